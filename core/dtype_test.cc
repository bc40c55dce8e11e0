#include "core/dtype.h"

#include "gtest/gtest.h"

namespace edgeq {
namespace {

TEST(DTypeTest, SizesAndNames) {
  EXPECT_EQ(DTypeSize(DType::kFloat32), 4u);
  EXPECT_EQ(DTypeSize(DType::kFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kInt8), 1u);
  EXPECT_EQ(DTypeSize(DType::kUInt8), 1u);
  EXPECT_EQ(DTypeSize(DType::kInt32), 4u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
  EXPECT_EQ(DTypeName(DType::kFloat32), "f32");
  EXPECT_EQ(DTypeName(DType::kBFloat16), "bf16");
  EXPECT_EQ(DTypeName(DType::kInt64), "i64");
}

TEST(DTypeTest, NameRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    absl::StatusOr<DType> back = DTypeFromName(DTypeName(d));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, d);
  }
}

TEST(DTypeTest, UnknownNameIsAnError) {
  absl::StatusOr<DType> d = DTypeFromName("f64");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("'f64'"), absl::string_view::npos) << d.status();
}

TEST(DTypeTest, FromIntChecksRange) {
  EXPECT_EQ(*DTypeFromInt(4), DType::kUInt8);
  EXPECT_EQ(DTypeFromInt(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DTypeFromInt(7).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DTypeTest, DTypeOfMapsCppTypes) {
  EXPECT_EQ(DTypeOf<float>::value, DType::kFloat32);
  EXPECT_EQ(DTypeOf<uint8_t>::value, DType::kUInt8);
  EXPECT_EQ(DTypeOf<int64_t>::value, DType::kInt64);
}

}  // namespace
}  // namespace edgeq
