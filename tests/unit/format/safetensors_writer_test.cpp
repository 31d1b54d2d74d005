#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "switchyard/safetensors.h"
#include "test_util.h"

namespace sy {
namespace {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

template <typename T>
Tensor MakeTensor(DType dtype, Shape shape, std::vector<T> values) {
  Expected<Tensor> t = Tensor::Allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return Tensor();
  EXPECT_EQ(t->byte_size(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t->mutable_data(), values.data(), t->byte_size());
  return *t;
}

std::string ToString(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

uint64_t HeaderLength(std::string_view file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(file[static_cast<size_t>(i)]);
  return n;
}

NamedTensors EveryDType() {
  return {
      {"f32", MakeTensor<float>(DType::kF32, {2, 3}, {1, -2, 3.5f, 0, 1e30f, -0.0f})},
      {"f16", MakeTensor<uint16_t>(DType::kF16, {3}, {0x3C00, 0xC000, 0x7E00})},
      {"bf16", MakeTensor<uint16_t>(DType::kBF16, {2}, {0x3F80, 0xFF80})},
      {"f64", MakeTensor<double>(DType::kF64, {}, {3.25})},
      {"i8", MakeTensor<int8_t>(DType::kI8, {5}, {-128, -1, 0, 1, 127})},
      {"u8", MakeTensor<uint8_t>(DType::kU8, {3}, {0, 128, 255})},
      {"i32", MakeTensor<int32_t>(DType::kI32, {2, 2}, {INT32_MIN, -1, 7, INT32_MAX})},
      {"i64", MakeTensor<int64_t>(DType::kI64, {1}, {INT64_MIN})},
      {"bool", MakeTensor<uint8_t>(DType::kBool, {4}, {0, 1, 1, 0})},
      {"empty", MakeTensor<float>(DType::kF32, {0, 4}, {})},
  };
}

TEST(SafetensorsWriterTest, RoundTripsEveryDType) {
  const NamedTensors tensors = EveryDType();
  const std::map<std::string, std::string> metadata = {
      {"format", "pt"}, {"note", "quote \" backslash \\ newline \n \xc3\xbcnicode"}};
  test::TempDir dir;
  const auto path = dir / "all.safetensors";
  SY_ASSERT_OK(WriteSafetensors(path, tensors, metadata));

  auto file = SafetensorsFile::Open(path);
  SY_ASSERT_OK(file);
  EXPECT_EQ((*file)->metadata(), metadata);
  ASSERT_EQ((*file)->entries().size(), tensors.size());
  for (const auto& [name, expected] : tensors) {
    auto got = (*file)->Get(name);
    SY_ASSERT_OK(got);
    EXPECT_TRUE(got->BitwiseEquals(expected)) << name;
    // Written aligned, so every non-empty tensor is a zero-copy view of the mapping.
    if (expected.byte_size() != 0) {
      EXPECT_FALSE(got->writable()) << name;
    }
  }

  // The in-memory form is byte-identical to the file.
  auto bytes = SerializeSafetensors(tensors, metadata);
  SY_ASSERT_OK(bytes);
  EXPECT_EQ(ToString(*bytes), test::ReadFile(path));
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(*bytes));
  auto from_buffer =
      SafetensorsFile::FromBuffer(owned, std::span<const std::byte>(*owned), "memory");
  SY_ASSERT_OK(from_buffer);
  for (const auto& [name, expected] : tensors) {
    auto got = (*from_buffer)->Get(name);
    SY_ASSERT_OK(got);
    EXPECT_TRUE(got->BitwiseEquals(expected)) << name;
  }
}

TEST(SafetensorsWriterTest, DataIsContiguousAlignedAndOrderedByDTypeSize) {
  const NamedTensors tensors = {
      {"a", MakeTensor<int8_t>(DType::kI8, {3}, {1, 2, 3})},
      {"b", MakeTensor<float>(DType::kF32, {1}, {1})},
      {"c", MakeTensor<int64_t>(DType::kI64, {2}, {1, 2})},
      {"d", MakeTensor<uint8_t>(DType::kU8, {1}, {9})},
      {"e", MakeTensor<uint16_t>(DType::kF16, {3}, {1, 2, 3})},
      {"f", MakeTensor<double>(DType::kF64, {1}, {1})},
  };
  auto bytes = SerializeSafetensors(tensors);
  SY_ASSERT_OK(bytes);
  const std::string file = ToString(*bytes);
  const uint64_t n = HeaderLength(file);
  EXPECT_EQ((8 + n) % 8, 0u);

  auto owned = std::make_shared<std::string>(file);
  auto parsed = SafetensorsFile::FromBuffer(
      owned, std::as_bytes(std::span<const char>(owned->data(), owned->size())), "memory");
  SY_ASSERT_OK(parsed);
  const auto& entries = (*parsed)->entries();
  std::vector<std::string> order;
  uint64_t expected_begin = 0;
  for (const auto& e : entries) {
    order.push_back(e.name);
    EXPECT_EQ(e.begin, expected_begin) << e.name << ": the data must be contiguous";
    EXPECT_EQ((8 + n + e.begin) % DTypeSize(e.dtype), 0u) << e.name << " is misaligned in the file";
    expected_begin = e.end;
  }
  EXPECT_EQ(expected_begin, file.size() - 8 - n) << "no trailing bytes";
  // Largest dtype first; the caller's order among equal sizes.
  EXPECT_EQ(order, (std::vector<std::string>{"c", "f", "b", "e", "a", "d"}));
}

TEST(SafetensorsWriterTest, HeaderIsPaddedWithSpaces) {
  for (size_t len = 1; len <= 16; ++len) {
    const std::string name(len, 'x');
    auto bytes = SerializeSafetensors({{name, MakeTensor<uint8_t>(DType::kU8, {1}, {7})}});
    SY_ASSERT_OK(bytes);
    const std::string file = ToString(*bytes);
    const uint64_t n = HeaderLength(file);
    ASSERT_LE(8 + n, file.size());
    EXPECT_EQ(n % 8, 0u) << "name length " << len;
    const std::string header = file.substr(8, n);
    const size_t close = header.find_last_of('}');
    ASSERT_NE(close, std::string::npos);
    EXPECT_LT(header.size() - close - 1, 8u);
    EXPECT_EQ(header.find_first_not_of(' ', close + 1), std::string::npos)
        << "padding must be spaces";
    boost::json::error_code ec;
    const boost::json::value v = boost::json::parse(header, ec);
    EXPECT_FALSE(ec) << header;
    EXPECT_TRUE(v.is_object());
  }
}

TEST(SafetensorsWriterTest, ExactBytesOfATinyFile) {
  auto bytes = SerializeSafetensors({{"a", MakeTensor<float>(DType::kF32, {1}, {1.0f})}});
  SY_ASSERT_OK(bytes);
  // 54 bytes of JSON + 2 spaces = 56; 8 + 56 = 64. 1.0f is 0x3F800000, little-endian.
  const std::string expected = std::string("\x38\0\0\0\0\0\0\0", 8) +
                               R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})" + "  " +
                               std::string("\x00\x00\x80\x3f", 4);
  EXPECT_EQ(ToString(*bytes), expected);
}

TEST(SafetensorsWriterTest, ExactBytesWithMetadataAndOrdering) {
  auto bytes = SerializeSafetensors({{"b", MakeTensor<uint8_t>(DType::kU8, {2}, {1, 2})},
                                     {"a", MakeTensor<int32_t>(DType::kI32, {}, {7})}},
                                    {{"k", "v"}});
  SY_ASSERT_OK(bytes);
  // 130 bytes of JSON + 6 spaces = 136 = 0x88; "__metadata__" first, then data order.
  const std::string expected =
      std::string("\x88\0\0\0\0\0\0\0", 8) +
      R"({"__metadata__":{"k":"v"},"a":{"dtype":"I32","shape":[],"data_offsets":[0,4]},)"
      R"("b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}})" +
      "      " + std::string("\x07\x00\x00\x00\x01\x02", 6);
  EXPECT_EQ(ToString(*bytes), expected);
}

TEST(SafetensorsWriterTest, NoTensors) {
  auto bytes = SerializeSafetensors({});
  SY_ASSERT_OK(bytes);
  EXPECT_EQ(ToString(*bytes), std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
}

TEST(SafetensorsWriterTest, RejectsBadNames) {
  const Tensor t = MakeTensor<float>(DType::kF32, {1}, {1});
  auto empty = SerializeSafetensors({{"", t}});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  SY_EXPECT_ERROR(empty, "tensor 0 has an empty name");
  SY_EXPECT_ERROR(SerializeSafetensors({{"w", t}, {"v", t}, {"w", t}}),
                  "duplicate tensor name \"w\"");
  SY_EXPECT_ERROR(SerializeSafetensors({{"__metadata__", t}}), "reserved");
  SY_EXPECT_ERROR(SerializeSafetensors({{"bad\xff", t}}), "not valid UTF-8");
  SY_EXPECT_ERROR(SerializeSafetensors({{"w", t}}, {{"k", "\xc3"}}), "not valid UTF-8");
}

TEST(SafetensorsWriterTest, RejectsTensorWithoutStorage) {
  SY_EXPECT_ERROR(SerializeSafetensors({{"w", Tensor()}}),
                  "tensor \"w\" (f32 []) has no valid storage");
}

TEST(SafetensorsWriterTest, ErrorsNameThePathAndLeaveNoFile) {
  test::TempDir dir;
  const Tensor t = MakeTensor<float>(DType::kF32, {1}, {1});

  const auto bad_name = dir / "dup.safetensors";
  auto status = WriteSafetensors(bad_name, {{"w", t}, {"w", t}});
  SY_EXPECT_ERROR(status, "cannot write " + bad_name.string() + ": duplicate tensor name");
  EXPECT_FALSE(std::filesystem::exists(bad_name));

  const auto no_dir = dir / "missing" / "x.safetensors";
  status = WriteSafetensors(no_dir, {{"w", t}});
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  SY_EXPECT_ERROR(status, no_dir.string());
  SY_EXPECT_ERROR(status, "No such file or directory");

  // Renaming onto a directory fails after the data was written: the temporary goes too.
  const auto is_dir = dir / "taken.safetensors";
  std::filesystem::create_directory(is_dir);
  status = WriteSafetensors(is_dir, {{"w", t}});
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  SY_EXPECT_ERROR(status, is_dir.string());
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"taken.safetensors"}));
}

TEST(SafetensorsWriterTest, FailedWriteKeepsTheOldFileAndSuccessReplacesIt) {
  test::TempDir dir;
  const auto path = dir / "m.safetensors";
  const Tensor one = MakeTensor<float>(DType::kF32, {1}, {1});
  const Tensor two = MakeTensor<int64_t>(DType::kI64, {2}, {5, 6});
  SY_ASSERT_OK(WriteSafetensors(path, {{"one", one}}));
  const std::string before = test::ReadFile(path);

  EXPECT_FALSE(WriteSafetensors(path, {{"", two}}).ok());
  EXPECT_EQ(test::ReadFile(path), before);

  // A reader holding the old file keeps seeing it after the replacement.
  auto old_file = SafetensorsFile::Open(path);
  SY_ASSERT_OK(old_file);
  SY_ASSERT_OK(WriteSafetensors(path, {{"two", two}}));
  auto new_file = SafetensorsFile::Open(path);
  SY_ASSERT_OK(new_file);
  EXPECT_EQ((*new_file)->Find("one"), nullptr);
  auto got = (*new_file)->Get("two");
  SY_ASSERT_OK(got);
  EXPECT_TRUE(got->BitwiseEquals(two));
  auto old_one = (*old_file)->Get("one");
  SY_ASSERT_OK(old_one);
  EXPECT_TRUE(old_one->BitwiseEquals(one));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(SafetensorsWriterTest, WritesViewsOfAnotherFile) {
  // Round trip through a read view (non-writable, shared storage) and a shared tensor
  // under two names.
  const NamedTensors tensors = EveryDType();
  auto first = SerializeSafetensors(tensors);
  SY_ASSERT_OK(first);
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(*first));
  auto file = SafetensorsFile::FromBuffer(owned, std::span<const std::byte>(*owned), "memory");
  SY_ASSERT_OK(file);
  auto view = (*file)->Get("i32");
  SY_ASSERT_OK(view);
  auto again = SerializeSafetensors({{"x", *view}, {"y", *view}});
  SY_ASSERT_OK(again);
  auto owned2 = std::make_shared<std::vector<std::byte>>(std::move(*again));
  auto file2 = SafetensorsFile::FromBuffer(owned2, std::span<const std::byte>(*owned2), "memory");
  SY_ASSERT_OK(file2);
  auto y = (*file2)->Get("y");
  SY_ASSERT_OK(y);
  EXPECT_TRUE(y->BitwiseEquals(*view));
}

}  // namespace
}  // namespace sy
