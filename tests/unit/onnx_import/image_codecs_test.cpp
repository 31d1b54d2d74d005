// ImageDecoder's decoders (tools/onnx_import/image_codecs.h): BMP and PNM images written
// here byte by byte, with the pixels they must give derived by hand; and, for every
// format, data that is truncated, garbled or claims an absurd size, which must come back
// as an error naming the format, never a crash or a huge allocation (ASan runs these).
// The codec libraries' decodes of real images are checked by the onnx 1.23 node tests
// (test_image_decoder_*, ctest onnx_latest_node_tests).
#include "image_codecs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sy::onnx_import {
namespace {

using Bytes = std::vector<uint8_t>;

void Put32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void Put16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}

// A 24-bit BMP, bottom-up (height > 0) or top-down, of `pixels` given top row first as
// R G B; rows padded to 4 bytes.
Bytes Bmp24(int32_t width, int32_t height, const std::vector<uint8_t>& rgb_top_first,
            bool top_down = false) {
  const uint32_t stride = (static_cast<uint32_t>(width) * 3 + 3) / 4 * 4;
  Bytes b = {'B', 'M'};
  Put32(b, 54 + stride * static_cast<uint32_t>(height));
  Put32(b, 0);
  Put32(b, 54);
  Put32(b, 40);
  Put32(b, static_cast<uint32_t>(width));
  Put32(b, static_cast<uint32_t>(top_down ? -height : height));
  Put16(b, 1);
  Put16(b, 24);
  for (int i = 0; i < 6; ++i) Put32(b, 0);
  for (int32_t r = 0; r < height; ++r) {
    const int32_t y = top_down ? r : height - 1 - r;
    for (int32_t x = 0; x < width; ++x) {
      const size_t p = (static_cast<size_t>(y) * width + x) * 3;
      b.push_back(rgb_top_first[p + 2]);  // B G R
      b.push_back(rgb_top_first[p + 1]);
      b.push_back(rgb_top_first[p]);
    }
    for (uint32_t pad = static_cast<uint32_t>(width) * 3; pad < stride; ++pad) b.push_back(0);
  }
  return b;
}

TEST(ImageCodecs, BmpRowsComeBackTopFirstInRgbOrder) {
  const std::vector<uint8_t> rgb = {1,  2,  3,  4,  5,  6,  7,  8,  9,  // row 0 (3 pixels)
                                    10, 11, 12, 13, 14, 15, 16, 17, 18};
  for (bool top_down : {false, true}) {
    Expected<DecodedImage> img = DecodeImage(Bmp24(3, 2, rgb, top_down));
    ASSERT_TRUE(img.ok()) << img.status().message();
    EXPECT_EQ(img->width, 3);
    EXPECT_EQ(img->height, 2);
    EXPECT_EQ(img->rgb, rgb) << "top_down " << top_down;
  }
}

TEST(ImageCodecs, PnmGrayAndColorAndItsMaxval) {
  const std::string p6 = "P6\n# a comment\n2 1\n255\n";
  Bytes color(p6.begin(), p6.end());
  for (uint8_t v : {10, 20, 30, 40, 50, 60}) color.push_back(v);
  Expected<DecodedImage> c = DecodeImage(color);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->rgb, (std::vector<uint8_t>{10, 20, 30, 40, 50, 60}));
  const std::string p5 = "P5 2 1 15\n";
  Bytes gray(p5.begin(), p5.end());
  gray.push_back(15);
  gray.push_back(5);
  Expected<DecodedImage> g = DecodeImage(gray);
  ASSERT_TRUE(g.ok()) << g.status().message();
  // 15 of 15 is 255; 5 of 15 is 85; gray replicated to R G B.
  EXPECT_EQ(g->rgb, (std::vector<uint8_t>{255, 255, 255, 85, 85, 85}));
}

TEST(ImageCodecs, BadDataIsAnErrorNamingTheFormat) {
  const std::vector<std::pair<std::string, Bytes>> cases = {
      {"JPEG", {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1}},
      {"PNG", {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}},
      {"TIFF", {'I', 'I', '*', 0, 200, 0, 0, 0}},
      {"WebP", {'R', 'I', 'F', 'F', 4, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' '}},
      {"JPEG 2000", {0xFF, 0x4F, 0xFF, 0x51, 0, 47, 0, 0}},
      {"JPEG 2000", {0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10, 0, 0}},
      {"PNM", {'P', '6', '\n', '2'}},
      {"BMP", {'B', 'M', 0, 0}},
  };
  for (const auto& [format, bytes] : cases) {
    Expected<DecodedImage> img = DecodeImage(bytes);
    ASSERT_FALSE(img.ok()) << format;
    EXPECT_NE(img.status().message().find("the " + format + " data"), std::string::npos)
        << img.status().message();
  }
  Expected<DecodedImage> unknown = DecodeImage(Bytes{'G', 'I', 'F', '8', '9', 'a'});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no image format it knows"), std::string::npos);
}

TEST(ImageCodecs, AbsurdSizesAreRefusedBeforeAllocating) {
  Bytes bmp = Bmp24(1, 1, {0, 0, 0});
  bmp[18] = 0xFF, bmp[19] = 0xFF, bmp[20] = 0xFF, bmp[21] = 0x7F;  // width 2^31 - 1
  Expected<DecodedImage> img = DecodeImage(bmp);
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.status().message().find("sides must be 1 to 65536"), std::string::npos)
      << img.status().message();
  const std::string huge = "P6 60000 60000 255\n";
  EXPECT_FALSE(DecodeImage(Bytes(huge.begin(), huge.end())).ok());
  // A truncated BMP: the header promises rows the data does not have.
  Bytes cut = Bmp24(4, 4, std::vector<uint8_t>(48, 7));
  cut.resize(cut.size() - 5);
  Expected<DecodedImage> short_bmp = DecodeImage(cut);
  ASSERT_FALSE(short_bmp.ok());
  EXPECT_NE(short_bmp.status().message().find("shorter than its 4 rows"), std::string::npos);
}

}  // namespace
}  // namespace sy::onnx_import
