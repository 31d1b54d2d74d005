#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/mapped_file.h"
#include "switchyard/safetensors.h"
#include "test_util.h"

namespace sy {
namespace {

std::string Le64(uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// u64 length + header text + data, exactly as given.
std::string MakeFile(std::string_view header, std::string_view data = {}) {
  return Le64(header.size()) + std::string(header) + std::string(data);
}

// The header padded with spaces so that the data section starts 8-byte aligned.
std::string Padded(std::string header) {
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

template <typename T>
std::string Bytes(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

// Copies `file` into a buffer that starts 64-byte aligned, so that whether a tensor is
// aligned depends only on the file's layout.
struct AlignedBuffer {
  std::vector<std::byte> storage;
  std::span<const std::byte> bytes;
};

Expected<std::shared_ptr<const SafetensorsFile>> Parse(std::string_view file) {
  auto buffer = std::make_shared<AlignedBuffer>();
  buffer->storage.resize(file.size() + 64);
  const auto address = reinterpret_cast<uintptr_t>(buffer->storage.data());
  const size_t pad = (64 - address % 64) % 64;
  if (!file.empty()) std::memcpy(buffer->storage.data() + pad, file.data(), file.size());
  buffer->bytes = {buffer->storage.data() + pad, file.size()};
  const std::span<const std::byte> bytes = buffer->bytes;
  return SafetensorsFile::FromBuffer(std::move(buffer), bytes, "test.safetensors");
}

// Expects kInvalidModel with a message naming the file and containing `substring`.
void ExpectInvalid(std::string_view file, std::string_view substring) {
  const auto result = Parse(file);
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << substring;
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidModel) << result.status().ToString();
  const Status status = result.status();
  const std::string& message = status.message();
  EXPECT_NE(message.find("test.safetensors"), std::string::npos) << message;
  EXPECT_NE(message.find(substring), std::string::npos)
      << "message was: " << message << "\nexpected to contain: " << substring;
}

// One tensor entry `"w": {...}` with the given fields, in an otherwise valid header.
std::string OneEntry(std::string_view fields) { return "{\"w\":{" + std::string(fields) + "}}"; }

TEST(SafetensorsReaderTest, ParsesTensorsAndMetadata) {
  const std::string header = Padded(R"({"__metadata__":{"format":"pt","note":"hi"},)"
                                    R"("b":{"dtype":"I64","shape":[2],"data_offsets":[16,32]},)"
                                    R"("a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})");
  const std::string data = Bytes<float>({1, 2, 3, 4}) + Bytes<int64_t>({-5, 6});
  auto file = Parse(MakeFile(header, data));
  SY_ASSERT_OK(file);
  const SafetensorsFile& f = **file;
  EXPECT_EQ(f.source_name(), "test.safetensors");
  ASSERT_EQ(f.entries().size(), 2u);
  EXPECT_EQ(f.entries()[0].name, "a");  // data-offset order, not header order
  EXPECT_EQ(f.entries()[1].name, "b");
  EXPECT_EQ(f.entries()[1].begin, 16u);
  EXPECT_EQ(f.entries()[1].end, 32u);
  EXPECT_EQ(f.metadata().size(), 2u);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.metadata().at("note"), "hi");

  const SafetensorsFile::Entry* b = f.Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->dtype, DType::kI64);
  EXPECT_EQ(b->shape, (Shape{2}));
  EXPECT_EQ(f.Find("c"), nullptr);
  EXPECT_EQ(f.Find("__metadata__"), nullptr);

  auto a = f.Get("a");
  SY_ASSERT_OK(a);
  EXPECT_EQ(a->type(), (TensorType{DType::kF32, {2, 2}}));
  EXPECT_FALSE(a->writable());  // a zero-copy view
  EXPECT_EQ(std::vector<float>(a->values<float>().begin(), a->values<float>().end()),
            (std::vector<float>{1, 2, 3, 4}));
  auto bt = f.Get("b");
  SY_ASSERT_OK(bt);
  EXPECT_EQ(bt->values<int64_t>()[0], -5);
  EXPECT_EQ(bt->values<int64_t>()[1], 6);
}

TEST(SafetensorsReaderTest, ReadsAllNineDTypes) {
  const std::string header =
      Padded(R"({"f64":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},)"
             R"("i64":{"dtype":"I64","shape":[2],"data_offsets":[16,32]},)"
             R"("f32":{"dtype":"F32","shape":[2],"data_offsets":[32,40]},)"
             R"("i32":{"dtype":"I32","shape":[2],"data_offsets":[40,48]},)"
             R"("f16":{"dtype":"F16","shape":[2],"data_offsets":[48,52]},)"
             R"("bf16":{"dtype":"BF16","shape":[2],"data_offsets":[52,56]},)"
             R"("i8":{"dtype":"I8","shape":[2],"data_offsets":[56,58]},)"
             R"("u8":{"dtype":"U8","shape":[2],"data_offsets":[58,60]},)"
             R"("bool":{"dtype":"BOOL","shape":[2],"data_offsets":[60,62]}})");
  const std::string data = Bytes<double>({1.5, -2.25}) + Bytes<int64_t>({1LL << 40, -7}) +
                           Bytes<float>({0.5f, 8}) + Bytes<int32_t>({-1, 123456}) +
                           Bytes<uint16_t>({0x3C00, 0xC000}) + Bytes<uint16_t>({0x3F80, 0x4000}) +
                           Bytes<int8_t>({-128, 127}) + Bytes<uint8_t>({0, 255}) +
                           Bytes<uint8_t>({1, 0});
  auto file = Parse(MakeFile(header, data));
  SY_ASSERT_OK(file);
  ASSERT_EQ((*file)->entries().size(), 9u);

  auto get = [&](std::string_view name, DType dtype) {
    auto t = (*file)->Get(name);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) return Tensor();
    EXPECT_EQ(t->dtype(), dtype) << name;
    EXPECT_EQ(t->shape(), (Shape{2})) << name;
    EXPECT_FALSE(t->writable()) << name << " should be a zero-copy view";
    return *t;
  };
  EXPECT_EQ(get("f64", DType::kF64).values<double>()[1], -2.25);
  EXPECT_EQ(get("i64", DType::kI64).values<int64_t>()[0], 1LL << 40);
  EXPECT_EQ(get("f32", DType::kF32).values<float>()[0], 0.5f);
  EXPECT_EQ(get("i32", DType::kI32).values<int32_t>()[1], 123456);
  EXPECT_EQ(get("f16", DType::kF16).values<uint16_t>()[1], 0xC000);
  EXPECT_EQ(get("bf16", DType::kBF16).values<uint16_t>()[0], 0x3F80);
  EXPECT_EQ(get("i8", DType::kI8).values<int8_t>()[0], -128);
  EXPECT_EQ(get("u8", DType::kU8).values<uint8_t>()[1], 255);
  EXPECT_EQ(get("bool", DType::kBool).values<uint8_t>()[0], 1);
}

TEST(SafetensorsReaderTest, EmptyTensors) {
  // Empty tensors occupy no bytes, so one inside another's range overlaps nothing.
  const std::string header = Padded(R"({"full":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                    R"("e0":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                                    R"("e1":{"dtype":"I64","shape":[3,0,5],"data_offsets":[4,4]},)"
                                    R"("e2":{"dtype":"U8","shape":[0],"data_offsets":[8,8]}})");
  auto file = Parse(MakeFile(header, Bytes<float>({1, 2})));
  SY_ASSERT_OK(file);
  for (const char* name : {"e0", "e1", "e2"}) {
    auto t = (*file)->Get(name);
    SY_ASSERT_OK(t);
    EXPECT_EQ(t->element_count(), 0) << name;
    EXPECT_EQ(t->byte_size(), 0u) << name;
    EXPECT_TRUE(t->valid()) << name;
  }
  EXPECT_EQ((*file)->Find("e1")->shape, (Shape{3, 0, 5}));
}

TEST(SafetensorsReaderTest, EmptyTensorInEmptyDataSection) {
  auto file = Parse(MakeFile(R"({"e":{"dtype":"F64","shape":[0],"data_offsets":[0,0]}})"));
  SY_ASSERT_OK(file);
  auto t = (*file)->Get("e");
  SY_ASSERT_OK(t);
  EXPECT_EQ(t->element_count(), 0);
}

TEST(SafetensorsReaderTest, Scalars) {
  const std::string header = Padded(R"({"s":{"dtype":"F64","shape":[],"data_offsets":[0,8]},)"
                                    R"("b":{"dtype":"BOOL","shape":[],"data_offsets":[8,9]}})");
  auto file = Parse(MakeFile(header, Bytes<double>({3.25}) + std::string(1, '\1')));
  SY_ASSERT_OK(file);
  auto s = (*file)->Get("s");
  SY_ASSERT_OK(s);
  EXPECT_TRUE(s->shape().empty());
  EXPECT_EQ(s->element_count(), 1);
  EXPECT_EQ(s->values<double>()[0], 3.25);
  auto b = (*file)->Get("b");
  SY_ASSERT_OK(b);
  EXPECT_EQ(b->values<uint8_t>()[0], 1);
}

TEST(SafetensorsReaderTest, EmptyHeaderObject) {
  auto file = Parse(MakeFile("{}"));
  SY_ASSERT_OK(file);
  EXPECT_TRUE((*file)->entries().empty());
  EXPECT_TRUE((*file)->metadata().empty());
}

TEST(SafetensorsReaderTest, GapsTrailingBytesAndUnknownKeysAreAccepted) {
  const std::string header =
      Padded(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8],"extra":[1]}})");
  auto file = Parse(MakeFile(header, Bytes<float>({9, 7, 5})));
  SY_ASSERT_OK(file);
  auto w = (*file)->Get("w");
  SY_ASSERT_OK(w);
  EXPECT_EQ(w->values<float>()[0], 7.0f);
}

TEST(SafetensorsReaderTest, MisalignedTensorIsCopied) {
  // 8 + N is odd, so the data section starts at an odd address in the aligned buffer.
  std::string header = R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                       R"("y":{"dtype":"F64","shape":[1],"data_offsets":[12,20]}})";
  while (header.size() % 8 != 1) header += ' ';
  const std::string file_bytes =
      MakeFile(header, Bytes<float>({1.5f, -2, 3}) + Bytes<double>({7.75}));
  auto file = Parse(file_bytes);
  SY_ASSERT_OK(file);
  auto x = (*file)->Get("x");
  SY_ASSERT_OK(x);
  EXPECT_TRUE(x->writable());  // an owned copy
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x->data()) % alignof(float), 0u);
  EXPECT_EQ(x->values<float>()[0], 1.5f);
  EXPECT_EQ(x->values<float>()[1], -2.0f);
  EXPECT_EQ(x->values<float>()[2], 3.0f);
  auto y = (*file)->Get("y");
  SY_ASSERT_OK(y);
  EXPECT_TRUE(y->writable());
  EXPECT_EQ(y->values<double>()[0], 7.75);

  // The same file from disk (page-aligned mapping) behaves the same way.
  test::TempDir dir;
  test::WriteFile(dir / "m.safetensors", file_bytes);
  auto mapped = SafetensorsFile::Open(dir / "m.safetensors");
  SY_ASSERT_OK(mapped);
  auto mx = (*mapped)->Get("x");
  SY_ASSERT_OK(mx);
  EXPECT_TRUE(mx->writable());
  EXPECT_TRUE(mx->BitwiseEquals(*x));
}

TEST(SafetensorsReaderTest, ViewsOutliveTheFile) {
  const std::string header = Padded(R"({"w":{"dtype":"I32","shape":[3],"data_offsets":[0,12]}})");
  const std::string bytes = MakeFile(header, Bytes<int32_t>({10, 20, 30}));
  Tensor from_buffer;
  {
    auto file = Parse(bytes);
    SY_ASSERT_OK(file);
    auto w = (*file)->Get("w");
    SY_ASSERT_OK(w);
    EXPECT_FALSE(w->writable());
    from_buffer = *w;
  }  // the file and the test's handle on the buffer are gone; the view holds the buffer
  EXPECT_EQ(from_buffer.values<int32_t>()[2], 30);

  test::TempDir dir;
  const auto path = dir / "w.safetensors";
  test::WriteFile(path, bytes);
  Tensor from_disk;
  {
    auto file = SafetensorsFile::Open(path);
    SY_ASSERT_OK(file);
    auto w = (*file)->Get("w");
    SY_ASSERT_OK(w);
    EXPECT_FALSE(w->writable());
    from_disk = *w;
  }
  std::filesystem::remove(path);  // the mapping survives the unlink
  EXPECT_EQ(from_disk.values<int32_t>()[0], 10);
  EXPECT_EQ(from_disk.values<int32_t>()[2], 30);
}

TEST(SafetensorsReaderTest, GetUnknownNameIsNotFound) {
  auto file = Parse(MakeFile("{}"));
  SY_ASSERT_OK(file);
  auto t = (*file)->Get("missing");
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  SY_EXPECT_ERROR(t, "\"missing\"");
}

// ---- rejected files, one case each ----

TEST(SafetensorsReaderTest, RejectsFileShorterThanEightBytes) {
  ExpectInvalid("", "shorter than the 8-byte header length");
  ExpectInvalid(std::string(7, '\0'), "shorter than the 8-byte header length");
}

TEST(SafetensorsReaderTest, RejectsHeaderLongerThanFile) {
  ExpectInvalid(Le64(100) + "{}", "header length 100 is larger than the 2 bytes");
}

TEST(SafetensorsReaderTest, RejectsHeaderOverLimit) {
  ExpectInvalid(Le64(kMaxSafetensorsHeaderBytes + 1) + "{}", "exceeds the limit of 104857600");
  ExpectInvalid(Le64(UINT64_MAX) + "{}", "exceeds the limit");
}

TEST(SafetensorsReaderTest, RejectsInvalidJson) {
  ExpectInvalid(MakeFile(R"({"w":)"), "not valid JSON");
  ExpectInvalid(MakeFile(""), "not valid JSON");
  ExpectInvalid(MakeFile("{} x"), "not valid JSON");
  ExpectInvalid(MakeFile(R"({"a":1,})"), "not valid JSON");  // no trailing commas
}

TEST(SafetensorsReaderTest, RejectsInvalidUtf8) {
  ExpectInvalid(MakeFile("{\"w\xff\":{}}"), "not valid UTF-8");
  ExpectInvalid(MakeFile("{\"__metadata__\":{\"k\":\"\xc0\xaf\"}}"), "not valid UTF-8");
}

TEST(SafetensorsReaderTest, RejectsNestingTooDeep) {
  ExpectInvalid(MakeFile(R"({"__metadata__":{"k":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}})"),
                "not valid JSON");
}

TEST(SafetensorsReaderTest, RejectsHeaderThatIsNotAnObject) {
  ExpectInvalid(MakeFile("[1, 2]"), "header is an array, expected a JSON object");
  ExpectInvalid(MakeFile("7"), "expected a JSON object");
}

TEST(SafetensorsReaderTest, RejectsEntryThatIsNotAnObject) {
  ExpectInvalid(MakeFile(R"({"w":[1]})"), "tensor \"w\": entry is an array");
}

TEST(SafetensorsReaderTest, RejectsMissingDtype) {
  ExpectInvalid(MakeFile(OneEntry(R"("shape":[],"data_offsets":[0,4])"), std::string(4, '\0')),
                "tensor \"w\": missing \"dtype\"");
}

TEST(SafetensorsReaderTest, RejectsDtypeNotAString) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":5,"shape":[],"data_offsets":[0,4])")),
                "tensor \"w\": \"dtype\" is 5, expected a string");
}

TEST(SafetensorsReaderTest, RejectsUnknownDtype) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F8_E4M3","shape":[],"data_offsets":[0,1])")),
                "tensor \"w\": unknown dtype \"F8_E4M3\"");
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"f32","shape":[],"data_offsets":[0,4])")),
                "unknown dtype \"f32\"");
}

TEST(SafetensorsReaderTest, RejectsMissingShape) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","data_offsets":[0,4])")),
                "tensor \"w\": missing \"shape\"");
}

TEST(SafetensorsReaderTest, RejectsShapeNotAnArray) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":2,"data_offsets":[0,8])")),
                "tensor \"w\": \"shape\" is 2, expected an array");
}

TEST(SafetensorsReaderTest, RejectsNegativeDim) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[2,-3],"data_offsets":[0,0])")),
                "tensor \"w\": shape[1] is -3");
}

TEST(SafetensorsReaderTest, RejectsNonIntegerDim) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[2.5],"data_offsets":[0,0])")),
                "shape[0] is 2.5, expected");
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[1.0],"data_offsets":[0,4])")),
                "shape[0] is 1.0, expected");  // integral doubles are not integers
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":["2"],"data_offsets":[0,8])")),
                "shape[0] is a string");
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,0])")),
      "expected a non-negative integer below 2^63");
}

TEST(SafetensorsReaderTest, RejectsElementCountOverflow) {
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"U8","shape":[4294967296,4294967296,4],"data_offsets":[0,0])")),
      "overflows");
  // 2^62 elements of 8 bytes would be 2^65 bytes: rejected whichever limit trips first.
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"F64","shape":[2305843009213693952,2],"data_offsets":[0,0])")),
      "tensor \"w\": ");
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"F64","shape":[2305843009213693952,2],"data_offsets":[0,0])")),
      "overflows");
}

TEST(SafetensorsReaderTest, RejectsMissingDataOffsets) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[])")),
                "tensor \"w\": missing \"data_offsets\"");
}

TEST(SafetensorsReaderTest, RejectsMistypedDataOffsets) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[],"data_offsets":"0")")),
                "\"data_offsets\" is a string, expected [begin, end]");
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[],"data_offsets":[0])")),
                "\"data_offsets\" is an array of 1 elements");
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[],"data_offsets":[0,4.0])")),
                "must hold two non-negative integers");
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[],"data_offsets":[-4,0])")),
                "must hold two non-negative integers");
}

TEST(SafetensorsReaderTest, RejectsByteLengthMismatch) {
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[2,3],"data_offsets":[0,12])"),
                         std::string(24, '\0')),
                "tensor \"w\": data_offsets [0, 12] span 12 bytes but F32 [2, 3] needs 24");
}

TEST(SafetensorsReaderTest, RejectsBeginAfterEnd) {
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"F32","shape":[1],"data_offsets":[8,4])"), std::string(8, '\0')),
      "data_offsets [8, 4] has begin > end");
}

TEST(SafetensorsReaderTest, RejectsOffsetsOutsideTheDataSection) {
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,8])"), std::string(4, '\0')),
      "extend past the end of the data section (4 bytes");
  // Offsets near 2^64 must not wrap around.
  ExpectInvalid(MakeFile(OneEntry(R"("dtype":"F32","shape":[],)"
                                  R"("data_offsets":[18446744073709551611,18446744073709551615])")),
                "extend past the end of the data section");
}

TEST(SafetensorsReaderTest, RejectsTruncatedFile) {
  const std::string good = MakeFile(
      Padded(R"({"w":{"dtype":"F64","shape":[4],"data_offsets":[0,32]}})"), std::string(32, '\1'));
  SY_ASSERT_OK(Parse(good));
  ExpectInvalid(good.substr(0, good.size() - 1), "is the file truncated?");
  ExpectInvalid(good.substr(0, 20), "is the file truncated?");  // inside the header
}

TEST(SafetensorsReaderTest, RejectsOverlappingTensors) {
  ExpectInvalid(MakeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                         std::string(12, '\0')),
                "tensors \"a\" (bytes 0 to 8) and \"b\" (bytes 4 to 12) overlap");
  // The same range twice is an overlap too.
  ExpectInvalid(MakeFile(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})",
                         std::string(4, '\0')),
                "overlap");
}

TEST(SafetensorsReaderTest, RejectsMetadataThatIsNotAnObjectOfStrings) {
  ExpectInvalid(MakeFile(R"({"__metadata__":["a"]})"),
                "__metadata__ is an array, expected an object");
  ExpectInvalid(MakeFile(R"({"__metadata__":null})"), "__metadata__ is null");
  ExpectInvalid(MakeFile(R"({"__metadata__":{"k":1}})"),
                "__metadata__ entry \"k\" is 1, expected a string");
}

TEST(SafetensorsReaderTest, RejectsDuplicateNames) {
  ExpectInvalid(MakeFile(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                         "ab"),
                "duplicate tensor name \"w\"");
  ExpectInvalid(
      MakeFile(OneEntry(R"("dtype":"U8","dtype":"I8","shape":[],"data_offsets":[0,1])"), "a"),
      "tensor \"w\": duplicate key \"dtype\"");
  ExpectInvalid(MakeFile(R"({"__metadata__":{"k":"a","k":"b"}})"),
                "__metadata__: duplicate key \"k\"");
}

TEST(SafetensorsReaderTest, NamesInMessagesAreEscaped) {
  ExpectInvalid(MakeFile(R"({"a\nb\"":{"dtype":"X","shape":[],"data_offsets":[0,0]}})"),
                R"(tensor "a\x0ab\"": unknown dtype "X")");
}

// ---- files on disk ----

TEST(SafetensorsReaderTest, OpenMissingFileIsNotFound) {
  test::TempDir dir;
  const auto path = dir / "missing.safetensors";
  auto file = SafetensorsFile::Open(path);
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  SY_EXPECT_ERROR(file, path.string());
  SY_EXPECT_ERROR(file, "No such file or directory");
}

TEST(SafetensorsReaderTest, OpenDirectoryFails) {
  test::TempDir dir;
  auto file = SafetensorsFile::Open(dir.path());
  EXPECT_EQ(file.status().code(), StatusCode::kIoError);
  SY_EXPECT_ERROR(file, "not a regular file");
}

TEST(SafetensorsReaderTest, OpenEmptyFileIsTooShort) {
  test::TempDir dir;
  const auto path = dir / "empty.safetensors";
  test::WriteFile(path, "");
  auto file = SafetensorsFile::Open(path);
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidModel);
  SY_EXPECT_ERROR(file, path.string() + ": file is 0 bytes");
}

TEST(SafetensorsReaderTest, OpenReadsFromDisk) {
  test::TempDir dir;
  const auto path = dir / "ok.safetensors";
  test::WriteFile(path, MakeFile(Padded(R"({"w":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}})"),
                                 "\x05\xfb"));
  auto file = SafetensorsFile::Open(path);
  SY_ASSERT_OK(file);
  EXPECT_EQ((*file)->source_name(), path.string());
  auto w = (*file)->Get("w");
  SY_ASSERT_OK(w);
  EXPECT_EQ(w->values<int8_t>()[1], -5);
}

TEST(SafetensorsMappedFileTest, MapsContentsAndEmptyFiles) {
  test::TempDir dir;
  test::WriteFile(dir / "a", "hello");
  test::WriteFile(dir / "empty", "");
  auto a = MappedFile::Open(dir / "a");
  SY_ASSERT_OK(a);
  EXPECT_EQ((*a)->path(), dir / "a");
  ASSERT_EQ((*a)->bytes().size(), 5u);
  EXPECT_EQ(std::memcmp((*a)->bytes().data(), "hello", 5), 0);
  auto empty = MappedFile::Open(dir / "empty");
  SY_ASSERT_OK(empty);
  EXPECT_TRUE((*empty)->bytes().empty());
  auto missing = MappedFile::Open(dir / "nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  SY_EXPECT_ERROR(missing, (dir / "nope").string());
}

}  // namespace
}  // namespace sy
