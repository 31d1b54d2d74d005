// TensorProto decoding: typed fields, raw data, external data, and what is refused.
#include "onnx_tensor.h"

#include <fstream>

#include <gtest/gtest.h>

namespace sy::onnx_import {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;

fs::path TempDir() {
  const fs::path dir =
      fs::temp_directory_path() /
      ("sy_onnx_tensor_test_" +
       std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  fs::create_directories(dir);
  return dir;
}

TEST(OnnxTensorTest, TypedFieldsDecode) {
  TensorProto p;
  p.set_name("t");
  p.set_data_type(TensorProto::INT32);
  p.add_dims(2);
  p.add_dims(2);
  for (int v : {1, -2, 3, 4}) p.add_int32_data(v);
  Expected<Tensor> t = TensorFromProto(p, ".");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->type().ToString(), "i32 [2, 2]");
  EXPECT_EQ(t->values<int32_t>()[1], -2);

  TensorProto b;
  b.set_data_type(TensorProto::BOOL);
  b.add_dims(3);
  for (int v : {0, 7, 1}) b.add_int32_data(v);
  Expected<Tensor> bt = TensorFromProto(b, ".");
  ASSERT_TRUE(bt.ok());
  EXPECT_EQ(bt->values<uint8_t>()[1], 1);  // any non-zero is true

  TensorProto h;  // f16 travels as bit patterns in int32_data
  h.set_data_type(TensorProto::FLOAT16);
  h.add_dims(1);
  h.add_int32_data(0x3C00);  // 1.0
  Expected<Tensor> ht = TensorFromProto(h, ".");
  ASSERT_TRUE(ht.ok());
  EXPECT_EQ(ht->values<uint16_t>()[0], 0x3C00);
}

TEST(OnnxTensorTest, RawDataMustMatchTheShape) {
  TensorProto p;
  p.set_name("w");
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(3);
  p.set_raw_data(std::string(8, '\0'));
  Expected<Tensor> t = TensorFromProto(p, ".");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tensor 'w' of type f32 and shape [3] needs 12 bytes of "
                                      "raw_data but has 8"),
            std::string::npos)
      << t.status().message();
}

TEST(OnnxTensorTest, TypedFieldCountMustMatch) {
  TensorProto p;
  p.set_data_type(TensorProto::INT64);
  p.add_dims(4);
  p.add_int64_data(1);
  Expected<Tensor> t = TensorFromProto(p, ".");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("needs 4 elements but its int64_data holds 1"),
            std::string::npos);
}

TEST(OnnxTensorTest, NegativeDimsAndUnsupportedTypesAreRefused) {
  TensorProto p;
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(-2);
  EXPECT_EQ(TensorFromProto(p, ".").status().code(), StatusCode::kInvalidModel);
  TensorProto s;
  s.set_name("words");
  s.set_data_type(TensorProto::STRING);
  Expected<Tensor> t = TensorFromProto(s, ".");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(t.status().message().find("STRING"), std::string::npos);
}

// INT4 and UINT4 (two values a byte, the first in the low nibble) widen to i8 (sign-
// extended) and u8, from raw_data or from int32_data's packed bytes; an odd count leaves
// the last high nibble unused. Values derived by hand from the bytes.
TEST(OnnxTensorTest, FourBitTypesWidenToBytes) {
  TensorProto s;
  s.set_data_type(TensorProto::INT4);
  s.add_dims(5);
  // bytes 0x8F, 0x71, 0x03: -1 (F), -8 (8), 1, 7, 3 (the fifth, low nibble of 0x03).
  s.set_raw_data(std::string("\x8F\x71\x03", 3));
  Expected<Tensor> t = TensorFromProto(s, ".");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->type().ToString(), "i8 [5]");
  const std::vector<int8_t> want_signed = {-1, -8, 1, 7, 3};
  for (size_t i = 0; i < want_signed.size(); ++i) EXPECT_EQ(t->values<int8_t>()[i], want_signed[i]);

  TensorProto u;
  u.set_data_type(TensorProto::UINT4);
  u.add_dims(2);
  u.add_dims(2);
  u.add_int32_data(0xF0);  // 0, 15
  u.add_int32_data(0x9A);  // 10, 9
  Expected<Tensor> ut = TensorFromProto(u, ".");
  ASSERT_TRUE(ut.ok()) << ut.status().message();
  EXPECT_EQ(ut->type().ToString(), "u8 [2, 2]");
  const std::vector<uint8_t> want_unsigned = {0, 15, 10, 9};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(ut->values<uint8_t>()[i], want_unsigned[i]);

  // Three values need two packed bytes, not three.
  TensorProto bad;
  bad.set_name("w4");
  bad.set_data_type(TensorProto::UINT4);
  bad.add_dims(3);
  bad.set_raw_data(std::string("\x01\x02\x03", 3));
  Expected<Tensor> b = TensorFromProto(bad, ".");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(b.status().message().find("needs 2 bytes of raw_data (two values a byte)"),
            std::string::npos)
      << b.status().message();
}

TensorProto External(const std::string& location, int64_t offset, int64_t length) {
  TensorProto p;
  p.set_name("big");
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(2);
  p.set_data_location(TensorProto::EXTERNAL);
  auto add = [&](const char* key, const std::string& value) {
    auto* e = p.add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  add("location", location);
  if (offset >= 0) add("offset", std::to_string(offset));
  if (length >= 0) add("length", std::to_string(length));
  return p;
}

TEST(OnnxTensorTest, ExternalDataIsReadFromTheModelFolder) {
  const fs::path dir = TempDir();
  const float values[3] = {9.0f, 1.5f, -2.0f};
  std::ofstream(dir / "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(values), sizeof(values));
  Expected<Tensor> t = TensorFromProto(External("weights.bin", 4, 8), dir);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->values<float>()[0], 1.5f);
  EXPECT_EQ(t->values<float>()[1], -2.0f);
}

// `switchyard import model.onnx` in the model's folder: the folder is "" (the working one).
TEST(OnnxTensorTest, ExternalDataOfAModelNamedWithoutAFolder) {
  const fs::path dir = TempDir();
  const float values[2] = {4.0f, -1.0f};
  std::ofstream(dir / "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(values), sizeof(values));
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  Expected<Tensor> t = TensorFromProto(External("weights.bin", 0, 8), fs::path());
  fs::current_path(before);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->values<float>()[1], -1.0f);
}

TEST(OnnxTensorTest, ExternalDataThroughASymbolicLinkMustStayInTheModelFolder) {
  const fs::path base = TempDir();
  fs::remove_all(base);  // links left by an earlier run
  const fs::path outside = base / "outside", dir = base / "model";
  fs::create_directories(outside);
  fs::create_directories(dir);
  const float secret[2] = {4.0f, 2.0f};
  std::ofstream(outside / "secret.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(secret), sizeof(secret));
  fs::create_symlink(outside / "secret.bin", dir / "weights.bin");
  Expected<Tensor> t = TensorFromProto(External("weights.bin", 0, 8), dir);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("(through a symbolic link), outside the model's folder"),
            std::string::npos)
      << t.status().message();
  // A link that stays inside the folder is fine, and so is a folder reached by a link.
  fs::create_directory(dir / "data");
  std::ofstream(dir / "data" / "w.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(secret), sizeof(secret));
  fs::create_symlink(dir / "data" / "w.bin", dir / "alias.bin");
  EXPECT_TRUE(TensorFromProto(External("alias.bin", 0, 8), dir).ok());
  fs::create_directory_symlink(dir, outside / "model_link");
  EXPECT_TRUE(TensorFromProto(External("data/w.bin", 0, 8), outside / "model_link").ok());
  // A folder named as the data is not a regular file.
  Expected<Tensor> folder = TensorFromProto(External("data", 0, 8), dir);
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("is not a regular file"), std::string::npos);
}

TEST(OnnxTensorTest, MissingOrShortExternalDataIsAnError) {
  const fs::path dir = TempDir();
  Expected<Tensor> missing = TensorFromProto(External("absent.bin", 0, 8), dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open external data file"), std::string::npos);

  std::ofstream(dir / "short.bin", std::ios::binary) << "abc";
  Expected<Tensor> short_file = TensorFromProto(External("short.bin", 0, -1), dir);
  ASSERT_FALSE(short_file.ok());
  EXPECT_NE(short_file.status().message().find("holds 3 bytes, too few for 8"), std::string::npos)
      << short_file.status().message();

  Expected<Tensor> escape = TensorFromProto(External("../../etc/passwd", 0, 8), dir);
  ASSERT_FALSE(escape.ok());
  EXPECT_NE(escape.status().message().find("must be a path inside the model's folder"),
            std::string::npos);

  Expected<Tensor> wrong_length = TensorFromProto(External("short.bin", 0, 3), dir);
  EXPECT_FALSE(wrong_length.ok());
}

// offset and length are whole decimal numbers: "0abc" and "1e3" were read as 0 and 1.
TEST(OnnxTensorTest, ExternalOffsetsAndLengthsMustBeWholeDecimalNumbers) {
  const fs::path dir = TempDir();
  std::ofstream(dir / "w.bin", std::ios::binary) << std::string(64, '\0');
  for (const std::string bad : {"0abc", "1e3", "-4", "", " 8", "0x10", "99999999999999999999"}) {
    for (const char* key : {"offset", "length"}) {
      TensorProto p = External("w.bin", -1, -1);
      auto* e = p.add_external_data();
      e->set_key(key);
      e->set_value(bad);
      Expected<Tensor> t = TensorFromProto(p, dir);
      ASSERT_FALSE(t.ok()) << key << " '" << bad << "'";
      EXPECT_NE(t.status().message().find("is not a non-negative decimal integer"),
                std::string::npos)
          << t.status().message();
    }
  }
  TensorProto good = External("w.bin", 8, 8);
  EXPECT_TRUE(TensorFromProto(good, dir).ok());
}

}  // namespace
}  // namespace sy::onnx_import
