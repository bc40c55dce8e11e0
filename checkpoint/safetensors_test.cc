#include "checkpoint/safetensors.h"

#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "checkpoint/internal/testing.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace {

using testing::CopyToBuffer;

absl::StatusOr<TensorDict> Parse(const std::string& bytes) {
  testing::OwnedBuffer b = CopyToBuffer(bytes);
  return ReadSafetensorsFromBuffer(b.span, b.owner);
}

std::string File(const std::string& json, const std::string& data) {
  std::string s;
  const uint64_t n = json.size();
  s.append(reinterpret_cast<const char*>(&n), 8);
  return s + json + data;
}

TEST(SafetensorsTest, RoundTrip) {
  TensorDict d;
  ASSERT_TRUE(d.Set("a.f32", *Tensor::FromValues<float>(Shape{2, 2}, {1, -2, 3.5f, 4})).ok());
  ASSERT_TRUE(d.Set("b.i64", *Tensor::FromValues<int64_t>(Shape{3}, {-1, 0, 1 << 20})).ok());
  Tensor bf = *Tensor::FromValues<uint8_t>(Shape{1, 4}, {0x80, 0x3f, 0x00, 0xc0});
  bf.SetQuantization("bf16", Shape{1, 2});
  ASSERT_TRUE(d.Set("c.bf16", bf).ok());
  ASSERT_TRUE(d.Set("d.f16", *Tensor::Create(DType::kFloat16, Shape{5})).ok());
  d.SetMetadata("format", MetadataValue::String("pt"));
  absl::StatusOr<std::string> bytes = WriteSafetensorsToString(d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  uint64_t n;
  std::memcpy(&n, bytes->data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_TRUE(absl::StrContains(*bytes,
                                "\"a.f32\":{\"data_offsets\":[0,16],\"dtype\":\"F32\","
                                "\"shape\":[2,2]}"))
      << *bytes;
  absl::StatusOr<TensorDict> back = Parse(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  testing::ExpectSameTensors(d, *back);  // keys are sorted by name in safetensors
  EXPECT_EQ(*back->GetString("format"), "pt");
  EXPECT_TRUE((**back->Get("a.f32")).is_view());
}

TEST(SafetensorsTest, UnalignedDataIsCopied) {
  // Header of 5 bytes: data starts at byte 13, not 4-aligned.
  const std::string json = R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const std::string pad(3, ' ');
  float v = 2.5f;
  const std::string file = File(json + pad, std::string(reinterpret_cast<char*>(&v), 4));
  absl::StatusOr<TensorDict> d = Parse(file);
  ASSERT_TRUE(d.ok()) << d.status();
  const Tensor& x = **d->Get("x");
  EXPECT_EQ((*x.Values<float>())[0], 2.5f);
  EXPECT_FALSE(x.is_view());
}

TEST(SafetensorsTest, BadFilesAreClearErrors) {
  auto msg = [](const std::string& bytes) { return std::string(Parse(bytes).status().message()); };
  const std::string data(16, '\0');
  EXPECT_TRUE(absl::StrContains(
      msg(File(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", data)), "needs 8"));
  EXPECT_TRUE(absl::StrContains(
      msg(File(R"({"x":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}})", data)), "truncated"));
  EXPECT_TRUE(
      absl::StrContains(msg(File(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("y":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                 data)),
                        "'x' and 'y' overlap"));
  absl::StatusOr<TensorDict> f64 =
      Parse(File(R"({"x":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", data));
  EXPECT_EQ(f64.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(f64.status().message(), "tensor 'x' has dtype 'F64'"));
  EXPECT_TRUE(absl::StrContains(msg(File("{not json", data)), "not valid JSON"));
  EXPECT_TRUE(absl::StrContains(msg(File("[1,2]", data)), "not a JSON object"));
  EXPECT_TRUE(absl::StrContains(
      msg(File(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", data)),
      "not an integer"));
  EXPECT_TRUE(absl::StrContains(msg(File(R"({"x":{"dtype":"F32"}})", data)), "needs"));
  EXPECT_TRUE(absl::StrContains(msg(std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8)),
                                "above the limit"));
  // 2 MiB + 1: above edgeq's header limit (a parsed header takes ~20x its text).
  EXPECT_TRUE(absl::StrContains(msg(std::string("\x01\x00\x20\x00\x00\x00\x00\x00", 8)),
                                "header length 2097153 is above the limit 2097152"));
  EXPECT_TRUE(absl::StrContains(msg("abc"), "truncated"));
  std::string short_header = File("{}", "");
  short_header[0] = 50;
  EXPECT_TRUE(absl::StrContains(msg(short_header), "exceeds"));
  // An empty BF16 tensor is a quantized tensor without a block: refused (issue 14).
  EXPECT_TRUE(absl::StrContains(
      msg(File(R"({"x":{"dtype":"BF16","shape":[0,2],"data_offsets":[0,0]}})", data)),
      "quantized tensor 'x' (encoding 'bf16', logical shape [0, 2]"));
  // A q4_0 tensor cannot be written.
  TensorDict q;
  Tensor t = *Tensor::Create(DType::kUInt8, Shape{18});
  t.SetQuantization("q4_0", Shape{32});
  ASSERT_TRUE(q.Set("w", t).ok());
  EXPECT_EQ(WriteSafetensorsToString(q).status().code(), absl::StatusCode::kUnimplemented);
}

// F13: a key given twice in the header used to let the last one win silently.
TEST(SafetensorsTest, DuplicateKeysAreRefusedNamingTheKey) {
  const std::string data(16, '\0');
  absl::StatusOr<TensorDict> twice =
      Parse(File(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                 R"("x":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                 data));
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(twice.status().message(), "key 'x' appears twice"))
      << twice.status();
  absl::StatusOr<TensorDict> field =
      Parse(File(R"({"x":{"dtype":"F32","shape":[2],"shape":[4],"data_offsets":[0,16]}})", data));
  EXPECT_EQ(field.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(field.status().message(), "key 'shape' appears twice"))
      << field.status();
  absl::StatusOr<TensorDict> meta = Parse(File(R"({"__metadata__":{"a":"1","a":"2"}})", data));
  EXPECT_TRUE(absl::StrContains(meta.status().message(), "key 'a' appears twice")) << meta.status();
}

// F3: a deeply nested header used to overflow the stack in dump() while building the error.
TEST(SafetensorsTest, DeepHeadersAndHugeNamesGiveShortErrors) {
  const std::string deep = R"({"x":{"dtype":"F32","shape":)" + std::string(100000, '[') +
                           std::string(100000, ']') + R"(,"data_offsets":[0,0]}})";
  absl::StatusOr<TensorDict> d = Parse(File(deep, ""));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(d.status().message(), "JSON nested deeper than 3 levels"))
      << d.status();
  // One long array in an entry is refused without being built (issue 27: memory follows the
  // tensors, not the header).
  std::string zeros = "[0";
  for (int i = 0; i < 100000; ++i) zeros += ",0";
  d = Parse(File(R"({"x":{"dtype":"F32","shape":)" + zeros + R"(],"data_offsets":[0,0]}})", ""));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(d.status().message(), "has more than")) << d.status();
  d = Parse(File(R"({"x":)" + zeros + "]}", ""));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(d.status().message(), "has more than")) << d.status();
  const std::string name(1 << 20, 'n');
  d = Parse(File(R"({")" + name + R"(":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
                 std::string(8, '\0')));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_LT(d.status().message().size(), 400u);
  d = Parse(File(R"({"x":{"dtype":"F32","shape":[")" + name + R"("],"data_offsets":[0,4]}})",
                 std::string(4, '\0')));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(d.status().message().size(), 400u);
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
