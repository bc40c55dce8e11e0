#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "core/status_macros.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace {

TEST(TensorTest, CreateIsZeroedAndAligned) {
  absl::StatusOr<Tensor> t = Tensor::Create(DType::kInt32, Shape{3, 5});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->size_bytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  absl::StatusOr<absl::Span<const int32_t>> v = t->Values<int32_t>();
  ASSERT_TRUE(v.ok());
  for (int32_t x : *v) EXPECT_EQ(x, 0);
  EXPECT_FALSE(t->is_view());
}

TEST(TensorTest, FullAndTypedAccess) {
  absl::StatusOr<Tensor> t = Tensor::Full({32, 64}, 0.15f);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  absl::Span<const float> v = *t->Values<float>();
  ASSERT_EQ(v.size(), 2048u);
  EXPECT_EQ(v[0], 0.15f);
  EXPECT_EQ(v[2047], 0.15f);
  EXPECT_EQ(t->DebugString(), "f32[32, 64]");
}

TEST(TensorTest, WrongDTypeAccessIsAnError) {
  Tensor t = *Tensor::Full({4}, 1.0f);
  absl::StatusOr<absl::Span<const uint8_t>> v = t.Values<uint8_t>();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(v.status().message().find("dtype f32, not the requested u8"), absl::string_view::npos)
      << v.status();
  EXPECT_FALSE(t.MutableValues<int32_t>().ok());
}

TEST(TensorTest, BadShapesAreErrors) {
  EXPECT_EQ(Tensor::Create(DType::kFloat32, Shape{2, -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      Tensor::Create(DType::kFloat32, Shape{int64_t{1} << 40, int64_t{1} << 40}).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Tensor::Full(Shape{-3}, 1.0f).ok());
}

TEST(TensorTest, FromValuesChecksCount) {
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  absl::StatusOr<Tensor> t = Tensor::FromValues<float>({2, 3}, values);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t->Values<float>())[5], 6.0f);
  absl::StatusOr<Tensor> bad = Tensor::FromValues<float>({2, 2}, values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("6 values given for shape [2, 2], which holds 4"),
            absl::string_view::npos)
      << bad.status();
}

TEST(TensorTest, CopiesShareAndCloneCopies) {
  Tensor a = *Tensor::Full({4}, 1.0f);
  Tensor b = a;
  (*b.MutableValues<float>())[0] = 7.0f;
  EXPECT_EQ((*a.Values<float>())[0], 7.0f);
  Tensor c = *a.Clone();
  (*c.MutableValues<float>())[0] = 9.0f;
  EXPECT_EQ((*a.Values<float>())[0], 7.0f);
  EXPECT_EQ((*c.Values<float>())[0], 9.0f);
}

TEST(TensorTest, ViewKeepsOwnerAliveAndIsReadOnly) {
  auto buffer = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  std::weak_ptr<std::vector<float>> weak = buffer;
  absl::StatusOr<Tensor> view;
  {
    std::shared_ptr<const void> owner = buffer;
    view = Tensor::View(DType::kFloat32, {2, 2}, buffer->data(), 16, owner);
    buffer.reset();
  }
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_FALSE(weak.expired());
  EXPECT_TRUE(view->is_view());
  EXPECT_EQ((*view->Values<float>())[3], 4.0f);
  absl::StatusOr<absl::Span<float>> m = view->MutableValues<float>();
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("read-only view"), absl::string_view::npos);
  *view = Tensor();
  EXPECT_TRUE(weak.expired());
}

TEST(TensorTest, ViewChecksByteCount) {
  std::vector<float> data(4);
  absl::StatusOr<Tensor> v = Tensor::View(DType::kFloat32, {5}, data.data(), 16, nullptr);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("16 bytes given for f32[5], which needs 20"),
            absl::string_view::npos)
      << v.status();
}

TEST(TensorTest, ReshapeKeepsDataAndChecksCount) {
  Tensor t = *Tensor::FromValues<float>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  absl::StatusOr<Tensor> r = t.Reshape({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{3, 2}));
  EXPECT_EQ(r->raw_data(), t.raw_data());
  EXPECT_FALSE(t.Reshape({4, 2}).ok());
}

TEST(TensorTest, QuantizationTag) {
  Tensor t = *Tensor::Create(DType::kUInt8, {32, 36});
  EXPECT_FALSE(t.is_quantized());
  EXPECT_EQ(t.logical_shape(), (Shape{32, 36}));
  t.SetQuantization("q4_0", {32, 64});
  EXPECT_TRUE(t.is_quantized());
  EXPECT_EQ(t.logical_shape(), (Shape{32, 64}));
  EXPECT_EQ(t.DebugString(), "u8[32, 36] (q4_0 of [32, 64])");
  Tensor c = *t.Clone();
  EXPECT_EQ(c.encoding(), "q4_0");
}

absl::StatusOr<int> Doubled(absl::StatusOr<int> in) {
  EDGEQ_ASSIGN_OR_RETURN(int v, std::move(in));
  return 2 * v;
}

absl::Status Check(bool ok) {
  EDGEQ_RETURN_IF_ERROR(ok ? absl::OkStatus() : absl::InternalError("boom"));
  return absl::OkStatus();
}

TEST(StatusMacrosTest, PropagateErrors) {
  EXPECT_EQ(*Doubled(21), 42);
  EXPECT_EQ(Doubled(absl::NotFoundError("x")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Check(true).ok());
  EXPECT_EQ(Check(false).message(), "boom");
}

}  // namespace
}  // namespace edgeq
