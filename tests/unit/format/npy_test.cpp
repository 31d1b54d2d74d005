// The .npy reader against files NumPy wrote (tools/make_npy_test_data.py), and the
// writer by reading its output back and by its exact header bytes, and as a file written
// whole and renamed into place (links planted where it goes, writers racing).
#include "switchyard/npy.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "switchyard/half.h"
#include "test_util.h"

namespace sy {
namespace {

std::string DataPath(std::string_view name) {
  return std::string(SY_SOURCE_DIR) + "/tests/data/npy/" + std::string(name);
}

TEST(Npy, ReadsWhatNumPyWrote) {
  Expected<Tensor> f32 = ReadNpy(DataPath("f32_2x3.npy"));
  SY_ASSERT_OK(f32);
  EXPECT_EQ(f32->type(), (TensorType{DType::kF32, {2, 3}}));
  EXPECT_EQ(f32->values<float>()[5], 1.25f);

  Expected<Tensor> f16 = ReadNpy(DataPath("f16_4.npy"));
  SY_ASSERT_OK(f16);
  EXPECT_EQ(HalfToFloat(f16->values<uint16_t>()[1]), -2.5f);
  EXPECT_EQ(HalfToFloat(f16->values<uint16_t>()[2]), 65504.0f);

  Expected<Tensor> scalar = ReadNpy(DataPath("f64_scalar.npy"));
  SY_ASSERT_OK(scalar);
  EXPECT_EQ(scalar->type(), (TensorType{DType::kF64, {}}));
  EXPECT_EQ(scalar->values<double>()[0], 3.141592653589793);

  Expected<Tensor> i8 = ReadNpy(DataPath("i8_3.npy"));
  SY_ASSERT_OK(i8);
  EXPECT_EQ(i8->values<int8_t>()[0], -128);
  Expected<Tensor> u8 = ReadNpy(DataPath("u8_1.npy"));
  SY_ASSERT_OK(u8);
  EXPECT_EQ(u8->values<uint8_t>()[0], 255);
  Expected<Tensor> empty = ReadNpy(DataPath("i32_2x0.npy"));
  SY_ASSERT_OK(empty);
  EXPECT_EQ(empty->type(), (TensorType{DType::kI32, {2, 0}}));
  Expected<Tensor> i64 = ReadNpy(DataPath("i64_5.npy"));
  SY_ASSERT_OK(i64);
  EXPECT_EQ(i64->values<int64_t>()[0], INT64_MIN);
  EXPECT_EQ(i64->values<int64_t>()[4], INT64_MAX);
  Expected<Tensor> b = ReadNpy(DataPath("bool_2x2.npy"));
  SY_ASSERT_OK(b);
  EXPECT_EQ(b->type(), (TensorType{DType::kBool, {2, 2}}));
  EXPECT_EQ(b->values<uint8_t>()[3], 1);
  EXPECT_EQ(b->values<uint8_t>()[1], 0);
}

TEST(Npy, RejectsWhatItCannotRepresent) {
  SY_EXPECT_ERROR(ReadNpy(DataPath("fortran_2x2.npy")), "Fortran-ordered arrays are not supported");
  SY_EXPECT_ERROR(ReadNpy(DataPath("bigendian_2.npy")), "dtype '>i4' is not supported");
  SY_EXPECT_ERROR(ReadNpy(DataPath("complex_1.npy")), "dtype '<c8' is not supported");
  SY_EXPECT_ERROR(ReadNpy(DataPath("missing.npy")), "missing.npy: No such file or directory");
}

TEST(Npy, RejectsMalformedBytes) {
  auto parse = [](std::string bytes) {
    return ParseNpy(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.npy");
  };
  SY_EXPECT_ERROR(parse(""), "t.npy: not a .npy file (bad magic)");
  SY_EXPECT_ERROR(parse("PK\x03\x04 not npy at all"), "bad magic");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string good =
      std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  SY_EXPECT_ERROR(parse(good), "data is 0 bytes but f32 [2] needs 8");
  SY_EXPECT_ERROR(parse(good + std::string(12, '\0')), "data is 12 bytes but f32 [2] needs 8");
  SY_ASSERT_OK(parse(good + std::string(8, '\0')));
  SY_EXPECT_ERROR(parse(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)), "truncated header");
  SY_EXPECT_ERROR(parse(std::string("\x93NUMPY\x09\x00\x00\x00", 10)), "format version 9");
  std::string no_shape = "{'descr': '<f4', 'fortran_order': False}";
  SY_EXPECT_ERROR(parse(std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(no_shape.size()) +
                        '\0' + no_shape),
                  "header has no 'shape' entry");
  std::string huge = "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }";
  SY_EXPECT_ERROR(
      parse(std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(huge.size()) + '\0' + huge),
      "overflows");
}

TEST(Npy, ShapeIsATupleOfCommaSeparatedInts) {
  auto parse = [](const std::string& shape, size_t data_bytes) {
    const std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': " + shape + ", }";
    const std::string bytes = std::string("\x93NUMPY\x01\x00", 8) +
                              static_cast<char>(header.size()) + '\0' + header +
                              std::string(data_bytes, '\0');
    return ParseNpy(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.npy");
  };
  SY_ASSERT_OK(parse("()", 1));
  SY_ASSERT_OK(parse("(3,)", 3));
  SY_ASSERT_OK(parse("(2, 3)", 6));
  SY_ASSERT_OK(parse("(2,3,)", 6));
  // Found by fuzz_npy: dims without commas were read as separate dims, and a zero among
  // huge ones passed the element count check.
  SY_EXPECT_ERROR(parse("(40737015916 550 0 551615)", 0), "shape dims are not separated by commas");
  SY_EXPECT_ERROR(parse("(2,, 3)", 6), "non-integer dimension");
  SY_EXPECT_ERROR(parse("(2, -3)", 6), "shape has a negative dimension");
  Expected<Tensor> zero = parse("(40737015916, 550, 0, 551615)", 0);
  SY_ASSERT_OK(zero);
  EXPECT_EQ(zero->element_count(), 0);
  EXPECT_EQ(ElementCount(zero->shape()), 0);
}

TEST(Npy, RefusesAKeyGivenTwice) {
  // NumPy keeps the last of two keys; reading the first would take this Fortran-order
  // array for a C-order one.
  const std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'fortran_order': True, }";
  const std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) +
                            '\0' + header + std::string(16, '\0');
  SY_EXPECT_ERROR(ParseNpy(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.npy"),
                  "t.npy: header gives 'fortran_order' twice");
}

TEST(Npy, ReadsOnlyRegularFiles) {
  // A device would be read without end, a FIFO waited on forever.
  SY_EXPECT_ERROR(ReadNpy("/dev/zero"), "not a regular file");
  test::TempDir dir;
  const auto fifo = dir / "pipe.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  SY_EXPECT_ERROR(ReadNpy(fifo), "not a regular file");
  SY_EXPECT_ERROR(ReadNpy(dir.path()), "not a regular file");
}

// A hard link planted where the file goes is replaced (the file is written beside it and
// renamed into place), so the file it shares its contents with is left as it was; and
// threads writing one file at once leave one whole file.
TEST(Npy, WriterReplacesAHardLinkAndNeverTearsAFile) {
  test::TempDir dir;
  const auto target = dir / "elsewhere.txt";
  { std::ofstream(target) << "keep me"; }
  const auto out = dir / "y.npy";
  std::filesystem::create_hard_link(target, out);
  const Tensor t = *Tensor::Allocate(DType::kF32, {3});
  SY_ASSERT_OK(WriteNpy(out, t));
  std::ifstream in(target);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
  Expected<Tensor> back = ReadNpy(out);
  SY_ASSERT_OK(back);
  EXPECT_EQ(back->shape(), (Shape{3}));
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i) {
    writers.emplace_back([&out, i] {
      const Tensor big = *Tensor::Allocate(DType::kF32, {1000 + 100 * i});
      for (int r = 0; r < 5; ++r) EXPECT_TRUE(WriteNpy(out, big).ok());
    });
  }
  for (std::thread& w : writers) w.join();
  Expected<Tensor> last = ReadNpy(out);
  SY_ASSERT_OK(last);  // one writer's whole file, whichever renamed last
  EXPECT_EQ((last->shape()[0] - 1000) % 100, 0);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
        << "a temporary file was left: " << entry.path();
  }
}

TEST(Npy, WriterDoesNotFollowASymbolicLink) {
  test::TempDir dir;
  const auto target = dir / "target.txt";
  { std::ofstream(target) << "keep me"; }
  const auto link = dir / "y.npy";
  std::filesystem::create_symlink(target, link);
  SY_EXPECT_ERROR(WriteNpy(link, *Tensor::Allocate(DType::kF32, {2})),
                  "y.npy: is a symbolic link (not following it)");
  std::ifstream in(target);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

TEST(Npy, WriterRoundTripsAndMatchesNumPyHeader) {
  test::TempDir dir;
  for (DType dtype : {DType::kF32, DType::kF16, DType::kF64, DType::kI8, DType::kU8, DType::kI32,
                      DType::kI64, DType::kBool}) {
    for (Shape shape : {Shape{}, Shape{3}, Shape{2, 0}, Shape{2, 3, 4}}) {
      Expected<Tensor> t = Tensor::Allocate(dtype, shape);
      SY_ASSERT_OK(t);
      for (size_t i = 0; i < t->byte_size(); ++i) {
        t->mutable_data()[i] = static_cast<std::byte>(dtype == DType::kBool ? (i % 2) : i * 7);
      }
      const auto path = dir / "t.npy";
      SY_ASSERT_OK(WriteNpy(path, *t));
      Expected<Tensor> back = ReadNpy(path);
      SY_ASSERT_OK(back);
      EXPECT_TRUE(back->BitwiseEquals(*t)) << DTypeName(dtype) << ShapeToString(shape);
    }
  }
  // NumPy 1.x writes exactly this header for np.save(f, np.zeros((2, 3), np.float32)).
  Expected<std::string> bytes = SerializeNpy(*Tensor::Allocate(DType::kF32, {2, 3}));
  SY_ASSERT_OK(bytes);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string expected_header = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
                                      std::string(127 - 10 - dict.size(), ' ') + "\n";
  EXPECT_EQ(bytes->substr(0, 128), expected_header);
  EXPECT_EQ(bytes->size(), 128u + 24u);
  EXPECT_EQ((*bytes)[127], '\n');
  SY_EXPECT_ERROR(SerializeNpy(*Tensor::Allocate(DType::kBF16, {1})), "bf16 has no .npy dtype");
}

}  // namespace
}  // namespace sy
