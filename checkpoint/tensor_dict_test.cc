#include "checkpoint/tensor_dict.h"

#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace {

Tensor F32(std::vector<float> v) {
  return *Tensor::FromValues<float>(Shape{static_cast<int64_t>(v.size())}, v);
}

TEST(TensorDictTest, KeepsInsertionOrderAndReplacesInPlace) {
  TensorDict d;
  ASSERT_TRUE(d.Set("b", F32({1})).ok());
  ASSERT_TRUE(d.Set("a", F32({2, 3})).ok());
  ASSERT_TRUE(d.Set("b", F32({4, 5, 6})).ok());
  EXPECT_EQ(d.Keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(d.size(), 2u);
  EXPECT_TRUE(d.Contains("a"));
  EXPECT_FALSE(d.Contains("c"));
  EXPECT_EQ((*d.Get("b"))->num_elements(), 3);
  EXPECT_EQ(d.TotalBytes(), 5u * 4u);
  EXPECT_TRUE(d.Remove("b"));
  EXPECT_FALSE(d.Remove("b"));
  EXPECT_EQ(d.Keys(), (std::vector<std::string>{"a"}));
}

TEST(TensorDictTest, ErrorsNameTheKeyAndDtypes) {
  TensorDict d;
  EXPECT_EQ(d.Set("", F32({1})).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(d.Set("w", F32({1})).ok());
  absl::StatusOr<const Tensor*> missing = d.Get("nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos);
  absl::StatusOr<const Tensor*> wrong = d.Get("w", DType::kInt8);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(wrong.status().message().find("'w' has dtype f32, expected i8"), std::string::npos)
      << wrong.status();
  EXPECT_TRUE(d.Get("w", DType::kFloat32).ok());
}

TEST(TensorDictTest, Metadata) {
  TensorDict d;
  d.SetMetadata("n", MetadataValue::Int(5, MetadataValue::Width::kU32));
  d.SetMetadata("eps", MetadataValue::Float(1e-5, MetadataValue::Width::kF32));
  d.SetMetadata("name", MetadataValue::String("llama"));
  d.SetMetadata("ids", MetadataValue::IntArray({1, 2, 3}, MetadataValue::Width::kI32));
  EXPECT_EQ(*d.GetInt("n"), 5);
  EXPECT_EQ(*d.GetFloat("eps"), static_cast<double>(1e-5f));  // rounded to f32
  EXPECT_DOUBLE_EQ(*d.GetFloat("n"), 5.0);
  EXPECT_EQ(*d.GetString("name"), "llama");
  EXPECT_EQ(d.GetInt("name").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(d.GetInt("ids").status().message().find("i32[3]"), std::string::npos);
  EXPECT_EQ(d.GetInt("missing").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(d.MetadataKeys(), (std::vector<std::string>{"n", "eps", "name", "ids"}));
  EXPECT_EQ((*d.GetMetadata("ids"))->DebugString(2), "[1, 2, ... (3 items)]");
  EXPECT_EQ((*d.GetMetadata("n"))->TypeName(), "u32");
  // A width that does not fit the kind falls back to the kind's default.
  EXPECT_EQ(MetadataValue::Int(1, MetadataValue::Width::kF32).width(), MetadataValue::Width::kI64);
  EXPECT_EQ(MetadataValue::Int(7), MetadataValue::Int(7));
  EXPECT_NE(MetadataValue::Int(7), MetadataValue::Int(7, MetadataValue::Width::kU32));
  EXPECT_EQ(MetadataValue().int_value(), 0);
  EXPECT_TRUE(d.RemoveMetadata("eps"));
  EXPECT_FALSE(d.RemoveMetadata("eps"));
  EXPECT_FALSE(d.HasMetadata("eps"));
  EXPECT_EQ(d.MetadataKeys(), (std::vector<std::string>{"n", "name", "ids"}));
}

// Issue 27 F6/F14: a bool is not an integer, and an integer or a string ("true") is not a bool.
TEST(TensorDictTest, IntAndBoolAccessAreStrict) {
  TensorDict d;
  d.SetMetadata("flag", MetadataValue::Bool(true));
  d.SetMetadata("n", MetadataValue::Int(1, MetadataValue::Width::kU32));
  d.SetMetadata("text", MetadataValue::String("true"));
  d.SetMetadata("flags", MetadataValue::BoolArray({true}));
  EXPECT_EQ(*d.GetBool("flag"), true);
  absl::StatusOr<int64_t> as_int = d.GetInt("flag");
  ASSERT_EQ(as_int.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(as_int.status().message(), "metadata 'flag' is bool, expected a scalar integer");
  absl::StatusOr<bool> from_int = d.GetBool("n");
  ASSERT_EQ(from_int.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(from_int.status().message(), "metadata 'n' is u32, expected a scalar bool");
  EXPECT_EQ(d.GetBool("text").status().message(),
            "metadata 'text' is string, expected a scalar bool");
  EXPECT_EQ(d.GetBool("flags").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(d.GetBool("missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
