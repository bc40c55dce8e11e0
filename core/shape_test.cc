#include "core/shape.h"

#include "gtest/gtest.h"

namespace edgeq {
namespace {

TEST(ShapeTest, Basics) {
  Shape s{32, 64};
  EXPECT_EQ(s.rank(), 2);
  EXPECT_EQ(s.dim(0), 32);
  EXPECT_EQ(s.dim(-1), 64);
  EXPECT_EQ(s.num_elements(), 2048);
  EXPECT_EQ(s.ToString(), "[32, 64]");
  EXPECT_TRUE(s.Validate().ok());
  EXPECT_EQ(s.WithLastDim(36), (Shape{32, 36}));
}

TEST(ShapeTest, ScalarHasOneElement) {
  Shape s;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.ToString(), "[]");
}

TEST(ShapeTest, ZeroDimIsValid) {
  Shape s{4, 0};
  EXPECT_TRUE(s.Validate().ok());
  EXPECT_EQ(s.num_elements(), 0);
}

TEST(ShapeTest, NegativeDimIsAnError) {
  absl::StatusOr<Shape> s = Shape::Create({3, -2});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("negative dimension -2 at index 1"), absl::string_view::npos)
      << s.status();
}

TEST(ShapeTest, OverflowingElementCountIsAnError) {
  absl::StatusOr<Shape> s = Shape::Create({int64_t{1} << 40, int64_t{1} << 40});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("too many elements"), absl::string_view::npos) << s.status();
  // A product that would wrap int64 to a small positive number must not slip through.
  EXPECT_FALSE(Shape::Create({int64_t{1} << 32, int64_t{1} << 32, 4}).ok());
  EXPECT_TRUE(Shape::Create({int64_t{1} << 24, int64_t{1} << 24}).ok());
}

TEST(ShapeTest, RankLimit) {
  EXPECT_TRUE(Shape::Create({1, 1, 1, 1, 1, 1, 1, 1}).ok());
  EXPECT_FALSE(Shape::Create({1, 1, 1, 1, 1, 1, 1, 1, 1}).ok());
}

TEST(ShapeTest, Equality) {
  EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
  EXPECT_NE((Shape{2, 3}), (Shape{3, 2}));
  EXPECT_NE((Shape{6}), (Shape{2, 3}));
}

}  // namespace
}  // namespace edgeq
