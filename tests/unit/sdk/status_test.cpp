#include "switchyard/status.h"

#include <gtest/gtest.h>

namespace sy {
namespace {

Expected<int> Half(int x) {
  if (x % 2) return InvalidArgument(std::to_string(x) + " is odd");
  return x / 2;
}

Expected<int> Quarter(int x) {
  SY_ASSIGN_OR_RETURN(int half, Half(x));
  SY_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  SY_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(Status, WithContextPrefixesMessageAndKeepsCode) {
  Status s = InvalidModel("bad dim").WithContext("node 3 (matmul)").WithContext("m.json");
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(s.message(), "m.json: node 3 (matmul): bad dim");
  EXPECT_EQ(s.ToString(), "invalid model: m.json: node 3 (matmul): bad dim");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(Status, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  Expected<int> odd = Quarter(6);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "3 is odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

TEST(Status, ExpectedFromOkStatusBecomesInternalError) {
  Expected<int> e{Status::Ok()};
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInternal);
}

TEST(Status, EveryCodeHasAName) {
  for (int c = 0; c <= static_cast<int>(StatusCode::kInternal); ++c) {
    EXPECT_NE(StatusCodeName(static_cast<StatusCode>(c)), "unknown status");
  }
}

}  // namespace
}  // namespace sy
