// Decoding of encoded images (ONNX ImageDecoder's formats) into 8-bit pixels, for the
// importer to fold an ImageDecoder whose bytes it knows (map_image.cpp). JPEG, PNG, TIFF,
// WebP and JPEG 2000 go through the system's codec libraries (libjpeg-turbo, libpng,
// libtiff, libwebp, OpenJPEG), as Pillow (ONNX's reference) does; BMP and binary PNM are
// read here. Malformed or truncated data, and images above kMaxImagePixels, are errors
// naming the format and what is wrong; the codecs never abort the process.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "switchyard/status.h"

namespace sy::onnx_import {

// The largest image decoded (width * height), and the largest side: bounds on what a
// model's bytes can make the importer allocate.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 26;
inline constexpr int64_t kMaxImageSide = int64_t{1} << 16;

struct DecodedImage {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;  // height * width * 3, row-major, R G B
  std::string format;        // "JPEG", "PNG", ...: for messages
};

// Decodes `bytes` (the format recognised from its first bytes) to 8-bit RGB.
Expected<DecodedImage> DecodeImage(std::span<const uint8_t> bytes);

}  // namespace sy::onnx_import
