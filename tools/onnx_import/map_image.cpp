// ONNX ImageDecoder (opset 20): encoded image bytes to an 8-bit [H, W, C] image, RGB, BGR
// or Grayscale. Its output's size is the image's, which only decoding tells, so the
// importer decodes at import: the encoded bytes must be known then (an initializer, a
// Constant, or a graph input given with --input-value), and the image becomes a constant
// of the graph. A decoder whose bytes come at run time is refused with that reason: a
// run-time decode op with data-decided sizes is a debt (docs/onnx-import.md).
// The pixels are the codecs' (image_codecs.h); Grayscale is Pillow's `convert("L")` of
// the RGB pixels, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, as ONNX's reference.
#include <cstring>

#include "image_codecs.h"
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

Status MapImageDecoder(NodeContext& ctx) {
  const std::string format = ctx.AttrString("pixel_format", "RGB");
  if (format != "RGB" && format != "BGR" && format != "Grayscale") {
    return ctx.Invalid("pixel_format must be RGB, BGR or Grayscale, not " + format);
  }
  SY_ASSIGN_OR_RETURN(Tensor encoded, ctx.StaticInput(0, "encoded_stream"));
  if (encoded.dtype() != DType::kU8 || encoded.shape().size() != 1) {
    return ctx.Invalid("encoded_stream must be a 1-D uint8 tensor");
  }
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(encoded.data()),
                                       encoded.byte_size());
  Expected<DecodedImage> image = DecodeImage(bytes);
  if (!image.ok()) return ctx.Invalid(image.status().message());
  const int64_t pixels = image->height * image->width;
  const int64_t channels = format == "Grayscale" ? 1 : 3;
  SY_ASSIGN_OR_RETURN(Tensor out,
                      Tensor::Allocate(DType::kU8, {image->height, image->width, channels}));
  auto* y = reinterpret_cast<uint8_t*>(out.mutable_data());
  const uint8_t* rgb = image->rgb.data();
  for (int64_t i = 0; i < pixels; ++i) {
    const uint8_t* p = rgb + 3 * i;
    if (format == "Grayscale") {
      y[i] = static_cast<uint8_t>((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 0x8000u) >> 16);
    } else if (format == "BGR") {
      y[3 * i] = p[2], y[3 * i + 1] = p[1], y[3 * i + 2] = p[0];
    } else {
      std::memcpy(y + 3 * i, p, 3);
    }
  }
  ctx.SetOutputConstant(0, std::move(out));
  return Status::Ok();
}

}  // namespace

void AddImageMappings(MappingTable& table) { table.At("ImageDecoder").map = MapImageDecoder; }

}  // namespace sy::onnx_import
