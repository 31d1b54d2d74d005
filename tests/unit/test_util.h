// Shared helpers for the unit tests.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "switchyard/attrs.h"
#include "switchyard/op_schema.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy::test {

// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void WriteFile(const std::filesystem::path& path, std::string_view bytes);
std::string ReadFile(const std::filesystem::path& path);

// Whether process `pid` has ended within `seconds`: gone, or a zombie that its parent (for
// an orphan, init, which in a container may never reap) has not reaped yet.
bool ProcessEndsWithin(int pid, double seconds);

inline TensorType T(DType dtype, Shape shape) { return {dtype, std::move(shape)}; }
inline TensorType F32(Shape shape) { return {DType::kF32, std::move(shape)}; }

// Runs the schema checks and shape rule of catalogue op `op` on `inputs` with `attrs`.
// Fails the test (returns an internal error) when the op is not registered.
Expected<std::vector<TensorType>> Infer(std::string_view op, std::vector<TensorType> inputs,
                                        Attrs attrs = {}, int num_outputs = 1);

// Succeeds when `result` (what Infer returned) holds exactly `want`; else says what it
// got or the error.
::testing::AssertionResult Outputs(const Expected<std::vector<TensorType>>& result,
                                   const std::vector<TensorType>& want);

// Attrs from an initializer list: MakeAttrs({{"axis", int64_t{1}}, {"mode", "DCR"}}).
Attrs MakeAttrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

}  // namespace sy::test

// gtest assertions on Status / Expected.
#define SY_ASSERT_OK(expr)                                 \
  do {                                                     \
    const ::sy::Status sy_s_ = ::sy::test::ToStatus(expr); \
    ASSERT_TRUE(sy_s_.ok()) << sy_s_.ToString();           \
  } while (false)
#define SY_EXPECT_OK(expr)                                 \
  do {                                                     \
    const ::sy::Status sy_s_ = ::sy::test::ToStatus(expr); \
    EXPECT_TRUE(sy_s_.ok()) << sy_s_.ToString();           \
  } while (false)

// Expects a shape rule result (Expected<std::vector<TensorType>>) with exactly one output
// of type `expected`.
#define EXPECT_OUTPUT(expr, expected)                             \
  do {                                                            \
    const auto sy_r_ = (expr);                                    \
    SY_ASSERT_OK(sy_r_);                                          \
    ASSERT_EQ(sy_r_->size(), 1u);                                 \
    EXPECT_EQ((*sy_r_)[0], (expected)) << (*sy_r_)[0].ToString(); \
  } while (false)

// Expects an error whose message contains `substring`.
#define SY_EXPECT_ERROR(expr, substring)                                                   \
  do {                                                                                     \
    const ::sy::Status sy_s_ = ::sy::test::ToStatus(expr);                                 \
    EXPECT_FALSE(sy_s_.ok()) << "expected an error containing: " << (substring);           \
    EXPECT_NE(sy_s_.message().find(substring), std::string::npos)                          \
        << "message was: " << sy_s_.message() << "\nexpected to contain: " << (substring); \
  } while (false)

namespace sy::test {
inline Status ToStatus(const Status& s) { return s; }
template <typename T>
Status ToStatus(const Expected<T>& e) {
  return e.status();
}
}  // namespace sy::test
