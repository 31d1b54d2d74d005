// Image decoding for ImageDecoder folded at import (image_codecs.h). Each codec library is
// driven from memory with its errors caught and turned into a Status: libjpeg's error
// exit long-jumps out of the decoder (every object the jump crosses is reached through a
// pointer set before setjmp), libpng's simplified API and libwebp return failures,
// libtiff and OpenJPEG report through handlers that record the message.
#include "image_codecs.h"

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

namespace sy::onnx_import {
namespace {

using namespace std::string_view_literals;

Status Bad(const std::string& format, const std::string& what) {
  return InvalidModel("ImageDecoder: the " + format + " data " + what);
}

Status CheckSize(const std::string& format, int64_t width, int64_t height) {
  if (width < 1 || height < 1 || width > kMaxImageSide || height > kMaxImageSide ||
      width * height > kMaxImagePixels) {
    return Bad(format, "says the image is " + std::to_string(width) + " x " +
                           std::to_string(height) + ": sides must be 1 to " +
                           std::to_string(kMaxImageSide) + " and at most 2^26 pixels");
  }
  return Status::Ok();
}

bool StartsWith(std::span<const uint8_t> b, std::string_view magic, size_t at = 0) {
  return b.size() >= at + magic.size() &&
         std::memcmp(b.data() + at, magic.data(), magic.size()) == 0;
}

// ---- JPEG (libjpeg-turbo): decoded to RGB with the library's defaults, as Pillow does.

struct JpegState {
  jpeg_decompress_struct info{};
  jpeg_error_mgr errors{};
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};
  DecodedImage image;
  bool created = false;
  ~JpegState() {
    if (created) jpeg_destroy_decompress(&info);
  }
};

void JpegErrorExit(j_common_ptr info) {
  auto* state = static_cast<JpegState*>(info->client_data);
  (*info->err->format_message)(info, state->message);
  std::longjmp(state->jump, 1);
}
void JpegQuiet(j_common_ptr) {}  // corrupt-data warnings: the decode goes on, as Pillow's

Expected<DecodedImage> DecodeJpeg(std::span<const uint8_t> bytes) {
  auto state = std::make_unique<JpegState>();
  JpegState* s = state.get();
  s->info.err = jpeg_std_error(&s->errors);
  s->errors.error_exit = JpegErrorExit;
  s->errors.output_message = JpegQuiet;
  s->info.client_data = s;
  if (setjmp(s->jump) != 0) return Bad("JPEG", std::string("does not decode: ") + s->message);
  jpeg_create_decompress(&s->info);
  s->created = true;
  jpeg_mem_src(&s->info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&s->info, TRUE);
  s->info.out_color_space = JCS_RGB;
  s->info.mem->max_memory_to_use = 1L << 30;
  SY_RETURN_IF_ERROR(CheckSize("JPEG", s->info.image_width, s->info.image_height));
  jpeg_start_decompress(&s->info);
  const auto width = static_cast<int64_t>(s->info.output_width);
  const auto height = static_cast<int64_t>(s->info.output_height);
  s->image.width = width;
  s->image.height = height;
  s->image.rgb.resize(static_cast<size_t>(width * height * 3));
  while (s->info.output_scanline < s->info.output_height) {
    JSAMPROW row = s->image.rgb.data() +
                   static_cast<size_t>(s->info.output_scanline) * static_cast<size_t>(width) * 3;
    jpeg_read_scanlines(&s->info, &row, 1);
  }
  jpeg_finish_decompress(&s->info);
  return std::move(s->image);
}

// ---- PNG (libpng's simplified API).

Expected<DecodedImage> DecodePng(std::span<const uint8_t> bytes) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()) == 0) {
    return Bad("PNG", std::string("does not decode: ") + png.message);
  }
  Status size = CheckSize("PNG", png.width, png.height);
  if (!size.ok()) {
    png_image_free(&png);
    return size;
  }
  png.format = PNG_FORMAT_RGB;
  DecodedImage image;
  image.width = png.width;
  image.height = png.height;
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr) == 0) {
    return Bad("PNG", std::string("does not decode: ") + png.message);
  }
  return image;
}

// ---- WebP.

Expected<DecodedImage> DecodeWebp(std::span<const uint8_t> bytes) {
  int width = 0, height = 0;
  if (WebPGetInfo(bytes.data(), bytes.size(), &width, &height) == 0) {
    return Bad("WebP", "has no valid header");
  }
  SY_RETURN_IF_ERROR(CheckSize("WebP", width, height));
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
  if (WebPDecodeRGBInto(bytes.data(), bytes.size(), image.rgb.data(), image.rgb.size(),
                        width * 3) == nullptr) {
    return Bad("WebP", "does not decode");
  }
  return image;
}

// ---- TIFF (libtiff from memory, through TIFFReadRGBAImageOriented).

struct MemoryFile {
  std::span<const uint8_t> bytes;
  uint64_t at = 0;
};
thread_local std::string tiff_error;

tmsize_t TiffRead(thandle_t h, void* out, tmsize_t n) {
  auto* f = static_cast<MemoryFile*>(h);
  const uint64_t left = f->at < f->bytes.size() ? f->bytes.size() - f->at : 0;
  const uint64_t k = std::min<uint64_t>(left, static_cast<uint64_t>(n));
  std::memcpy(out, f->bytes.data() + f->at, k);
  f->at += k;
  return static_cast<tmsize_t>(k);
}
tmsize_t TiffWrite(thandle_t, void*, tmsize_t) { return 0; }
toff_t TiffSeek(thandle_t h, toff_t off, int whence) {
  auto* f = static_cast<MemoryFile*>(h);
  const uint64_t base = whence == SEEK_CUR ? f->at : whence == SEEK_END ? f->bytes.size() : 0;
  f->at = base + off;
  return f->at;
}
int TiffClose(thandle_t) { return 0; }
toff_t TiffSize(thandle_t h) { return static_cast<MemoryFile*>(h)->bytes.size(); }
int TiffErrorHandler(TIFF*, void*, const char* module, const char* fmt, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, fmt, args);
  tiff_error = std::string(module != nullptr ? module : "") + ": " + text;
  return 1;
}
int TiffWarningHandler(TIFF*, void*, const char*, const char*, va_list) { return 1; }

Expected<DecodedImage> DecodeTiff(std::span<const uint8_t> bytes) {
  MemoryFile file{bytes};
  tiff_error.clear();
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, TiffErrorHandler, nullptr);
  TIFFOpenOptionsSetWarningHandlerExtR(options, TiffWarningHandler, nullptr);
  TIFF* tif = TIFFClientOpenExt("image", "rm", &file, TiffRead, TiffWrite, TiffSeek, TiffClose,
                                TiffSize, nullptr, nullptr, options);
  TIFFOpenOptionsFree(options);
  if (tif == nullptr) return Bad("TIFF", "does not open: " + tiff_error);
  const std::unique_ptr<TIFF, void (*)(TIFF*)> owned(tif, TIFFClose);
  uint32_t width = 0, height = 0;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
  SY_RETURN_IF_ERROR(CheckSize("TIFF", width, height));
  std::vector<uint32_t> raster(static_cast<size_t>(width) * height);
  if (TIFFReadRGBAImageOriented(tif, width, height, raster.data(), ORIENTATION_TOPLEFT, 0) == 0) {
    return Bad("TIFF", "does not decode: " + tiff_error);
  }
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(raster.size() * 3);
  for (size_t i = 0; i < raster.size(); ++i) {
    image.rgb[3 * i] = static_cast<uint8_t>(TIFFGetR(raster[i]));
    image.rgb[3 * i + 1] = static_cast<uint8_t>(TIFFGetG(raster[i]));
    image.rgb[3 * i + 2] = static_cast<uint8_t>(TIFFGetB(raster[i]));
  }
  return image;
}

// ---- JPEG 2000 (OpenJPEG from memory; a JP2 file or a bare codestream).

OPJ_SIZE_T OpjRead(void* out, OPJ_SIZE_T n, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (f->at >= f->bytes.size()) return static_cast<OPJ_SIZE_T>(-1);
  const uint64_t k = std::min<uint64_t>(f->bytes.size() - f->at, n);
  std::memcpy(out, f->bytes.data() + f->at, k);
  f->at += k;
  return static_cast<OPJ_SIZE_T>(k);
}
OPJ_OFF_T OpjSkip(OPJ_OFF_T n, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const auto left =
      static_cast<OPJ_OFF_T>(f->bytes.size() - std::min<uint64_t>(f->at, f->bytes.size()));
  const OPJ_OFF_T k = std::clamp<OPJ_OFF_T>(n, -static_cast<OPJ_OFF_T>(f->at), left);
  f->at = static_cast<uint64_t>(static_cast<OPJ_OFF_T>(f->at) + k);
  return k;
}
OPJ_BOOL OpjSeek(OPJ_OFF_T n, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  if (n < 0 || static_cast<uint64_t>(n) > f->bytes.size()) return OPJ_FALSE;
  f->at = static_cast<uint64_t>(n);
  return OPJ_TRUE;
}
void OpjError(const char* message, void* user) { *static_cast<std::string*>(user) = message; }
void OpjQuiet(const char*, void*) {}

Expected<DecodedImage> DecodeJpeg2000(std::span<const uint8_t> bytes, bool jp2) {
  MemoryFile file{bytes};
  std::string error;
  const std::unique_ptr<opj_stream_t, void (*)(opj_stream_t*)> stream(
      opj_stream_default_create(OPJ_TRUE), opj_stream_destroy);
  opj_stream_set_user_data(stream.get(), &file, nullptr);
  opj_stream_set_user_data_length(stream.get(), bytes.size());
  opj_stream_set_read_function(stream.get(), OpjRead);
  opj_stream_set_skip_function(stream.get(), OpjSkip);
  opj_stream_set_seek_function(stream.get(), OpjSeek);
  const std::unique_ptr<opj_codec_t, void (*)(opj_codec_t*)> codec(
      opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K), opj_destroy_codec);
  opj_set_error_handler(codec.get(), OpjError, &error);
  opj_set_warning_handler(codec.get(), OpjQuiet, nullptr);
  opj_set_info_handler(codec.get(), OpjQuiet, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  opj_image_t* raw = nullptr;
  if (opj_setup_decoder(codec.get(), &parameters) == OPJ_FALSE ||
      opj_read_header(stream.get(), codec.get(), &raw) == OPJ_FALSE) {
    if (raw != nullptr) opj_image_destroy(raw);
    return Bad("JPEG 2000", "has no valid header: " + error);
  }
  const std::unique_ptr<opj_image_t, void (*)(opj_image_t*)> img(raw, opj_image_destroy);
  const int64_t width = static_cast<int64_t>(img->x1) - img->x0;
  const int64_t height = static_cast<int64_t>(img->y1) - img->y0;
  SY_RETURN_IF_ERROR(CheckSize("JPEG 2000", width, height));
  if (opj_decode(codec.get(), stream.get(), img.get()) == OPJ_FALSE ||
      opj_end_decompress(codec.get(), stream.get()) == OPJ_FALSE) {
    return Bad("JPEG 2000", "does not decode: " + error);
  }
  const uint32_t n = img->numcomps;
  if (n != 1 && n != 3 && n != 4) {
    return Bad("JPEG 2000", "has " + std::to_string(n) + " components (1, 3 or 4 decode)");
  }
  for (uint32_t c = 0; c < n; ++c) {
    const opj_image_comp_t& comp = img->comps[c];
    if (comp.dx != 1 || comp.dy != 1 || comp.w != width || comp.h != height ||
        comp.data == nullptr || comp.prec < 1 || comp.prec > 16) {
      return Bad("JPEG 2000", "has a subsampled or unusual component (" + std::to_string(c) +
                                  "): only full-size components of 1 to 16 bits decode");
    }
  }
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(static_cast<size_t>(width * height * 3));
  for (int64_t i = 0; i < width * height; ++i) {
    for (int c = 0; c < 3; ++c) {
      const opj_image_comp_t& comp = img->comps[n == 1 ? 0 : c];
      int64_t v = comp.data[i] + (comp.sgnd ? (int64_t{1} << (comp.prec - 1)) : 0);
      if (comp.prec > 8) v >>= comp.prec - 8;
      if (comp.prec < 8) v <<= 8 - comp.prec;
      image.rgb[static_cast<size_t>(i * 3 + c)] =
          static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
    }
  }
  return image;
}

// ---- BMP (uncompressed 8, 24 and 32 bits a pixel), read here.

uint32_t Le32(std::span<const uint8_t> b, size_t at) {
  return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (static_cast<uint32_t>(b[at + 3]) << 24);
}
uint16_t Le16(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint16_t>(b[at] | (b[at + 1] << 8));
}

Expected<DecodedImage> DecodeBmp(std::span<const uint8_t> b) {
  if (b.size() < 54) return Bad("BMP", "is shorter than its headers");
  const uint32_t offset = Le32(b, 10), header = Le32(b, 14);
  if (header < 40 || 14 + static_cast<uint64_t>(header) > b.size()) {
    return Bad("BMP", "has a header of " + std::to_string(header) + " bytes (40 or more)");
  }
  const auto width = static_cast<int32_t>(Le32(b, 18));
  const auto signed_height = static_cast<int32_t>(Le32(b, 22));
  const uint16_t bits = Le16(b, 28);
  const uint32_t compression = Le32(b, 30);
  const bool top_down = signed_height < 0;
  const int64_t height = top_down ? -static_cast<int64_t>(signed_height) : signed_height;
  SY_RETURN_IF_ERROR(CheckSize("BMP", width, height));
  if ((bits != 8 && bits != 24 && bits != 32) ||
      !(compression == 0 || (compression == 3 && bits == 32))) {
    return Bad("BMP", "has " + std::to_string(bits) + " bits a pixel, compression " +
                          std::to_string(compression) +
                          " (uncompressed 8-, 24- and 32-bit images decode)");
  }
  std::vector<uint8_t> palette;  // B G R x entries
  if (bits == 8) {
    uint32_t colors = Le32(b, 46);
    if (colors == 0 || colors > 256) colors = 256;
    const uint64_t at = 14 + static_cast<uint64_t>(header);
    if (at + colors * 4ull > b.size()) return Bad("BMP", "is shorter than its palette");
    palette.assign(b.begin() + static_cast<ptrdiff_t>(at),
                   b.begin() + static_cast<ptrdiff_t>(at + colors * 4ull));
  }
  const uint64_t stride = (static_cast<uint64_t>(width) * bits / 8 + 3) / 4 * 4;
  if (offset + stride * static_cast<uint64_t>(height) > b.size()) {
    return Bad("BMP", "is shorter than its " + std::to_string(height) + " rows of pixels");
  }
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(static_cast<size_t>(width * height * 3));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row =
        b.data() + offset + stride * static_cast<uint64_t>(top_down ? y : height - 1 - y);
    uint8_t* out = image.rgb.data() + static_cast<size_t>(y * width * 3);
    for (int64_t x = 0; x < width; ++x) {
      const uint8_t* px = bits == 8 ? nullptr : row + x * (bits / 8);
      if (bits == 8) {
        const size_t entry = static_cast<size_t>(row[x]) * 4;
        if (entry + 3 > palette.size()) return Bad("BMP", "indexes past its palette");
        px = palette.data() + entry;
      }
      out[3 * x] = px[2];
      out[3 * x + 1] = px[1];
      out[3 * x + 2] = px[0];
    }
  }
  return image;
}

// ---- PNM (binary P5 gray and P6 color, maxval up to 255), read here.

Expected<DecodedImage> DecodePnm(std::span<const uint8_t> b) {
  const bool color = b[1] == '6';
  if (b[1] != '5' && b[1] != '6') {
    return Bad("PNM", std::string("is P") + static_cast<char>(b[1]) + " (binary P5 and P6 decode)");
  }
  size_t at = 2;
  int64_t fields[3] = {0, 0, 0};
  for (int64_t& field : fields) {
    while (at < b.size() && (std::isspace(b[at]) != 0 || b[at] == '#')) {
      if (b[at] == '#') {
        while (at < b.size() && b[at] != '\n') ++at;
      } else {
        ++at;
      }
    }
    if (at >= b.size() || std::isdigit(b[at]) == 0) return Bad("PNM", "has a malformed header");
    while (at < b.size() && std::isdigit(b[at]) != 0 && field < (int64_t{1} << 30)) {
      field = field * 10 + (b[at++] - '0');
    }
  }
  ++at;  // the one whitespace byte before the pixels
  const int64_t width = fields[0], height = fields[1], maxval = fields[2];
  SY_RETURN_IF_ERROR(CheckSize("PNM", width, height));
  if (maxval < 1 || maxval > 255) {
    return Bad("PNM", "has maxval " + std::to_string(maxval) + " (1 to 255 decode)");
  }
  const int64_t channels = color ? 3 : 1;
  if (at + static_cast<uint64_t>(width * height * channels) > b.size()) {
    return Bad("PNM", "is shorter than its pixels");
  }
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(static_cast<size_t>(width * height * 3));
  for (int64_t i = 0; i < width * height; ++i) {
    for (int c = 0; c < 3; ++c) {
      const int64_t v = b[at + static_cast<size_t>(i * channels + (color ? c : 0))];
      image.rgb[static_cast<size_t>(i * 3 + c)] =
          static_cast<uint8_t>((v * 255 + maxval / 2) / maxval);
    }
  }
  return image;
}

}  // namespace

Expected<DecodedImage> DecodeImage(std::span<const uint8_t> bytes) {
  Expected<DecodedImage> image = InvalidModel(
      "ImageDecoder: the data is no image format it knows (JPEG, PNG, BMP, TIFF, WebP, JPEG "
      "2000, PNM: recognised by their first bytes)");
  if (StartsWith(bytes, "\xFF\xD8\xFF")) {
    image = DecodeJpeg(bytes);
  } else if (StartsWith(bytes, "\x89PNG\r\n\x1A\n")) {
    image = DecodePng(bytes);
  } else if (StartsWith(bytes, "BM")) {
    image = DecodeBmp(bytes);
  } else if (StartsWith(bytes, "II*\0"sv) || StartsWith(bytes, "MM\0*"sv)) {
    image = DecodeTiff(bytes);
  } else if (StartsWith(bytes, "RIFF") && StartsWith(bytes, "WEBP", 8)) {
    image = DecodeWebp(bytes);
  } else if (StartsWith(bytes, "\0\0\0\x0CjP  "sv)) {
    image = DecodeJpeg2000(bytes, true);
  } else if (StartsWith(bytes, "\xFF\x4F\xFF\x51")) {
    image = DecodeJpeg2000(bytes, false);
  } else if (bytes.size() >= 2 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7') {
    image = DecodePnm(bytes);
  }
  return image;
}

}  // namespace sy::onnx_import
