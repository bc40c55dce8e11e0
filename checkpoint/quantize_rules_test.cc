#include "checkpoint/quantize_rules.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {
namespace {

Tensor Ramp(std::vector<int64_t> shape) {
  Tensor t = *Tensor::Create(DType::kFloat32, Shape(shape));
  absl::Span<float> v = *t.MutableValues<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.1f * static_cast<float>(i));
  return t;
}

TEST(QuantizeRulesTest, ParsesRulesAndComments) {
  absl::StatusOr<std::vector<QuantizeRule>> rules = ParseQuantizeRules(
      "# mixed\n blk.*.ffn_down.weight -> Q8_0  # wide k\n\ntoken_embd.weight->q6_k\n* -> none\n",
      "r.txt");
  ASSERT_TRUE(rules.ok()) << rules.status();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].pattern, "blk.*.ffn_down.weight");
  EXPECT_EQ((*rules)[0].encoding, "q8_0");
  EXPECT_EQ((*rules)[1].encoding, "q6_k");
  EXPECT_EQ((*rules)[2].encoding, "f32");
}

TEST(QuantizeRulesTest, BadRulesNameTheLine) {
  absl::Status s = ParseQuantizeRules("* -> q4_0\nblk.* q8_0\n", "r.txt").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "r.txt:2")) << s;
  s = ParseQuantizeRules("* -> q3_x\n", "r.txt").status();
  EXPECT_TRUE(absl::StrContains(s.message(), "r.txt:1: unknown encoding 'q3_x'")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "q4_0")) << s;
  s = ParseQuantizeRules(" -> q4_0\n", "r.txt").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = DefaultQuantizeRules("q9").status();
  EXPECT_TRUE(absl::StrContains(s.message(), "--encoding: unknown encoding 'q9'")) << s;
  EXPECT_EQ(LoadQuantizeRules("/nonexistent/rules.txt").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(QuantizeRulesTest, FirstMatchWinsAndFallbackSaysWhy) {
  const std::vector<QuantizeRule> rules = {{"blk.*.ffn_down.weight", "q4_k"}, {"*", "q4_0"}};
  QuantizeDecision d =
      DecideEncoding("blk.0.ffn_down.weight", Shape({64, 172}), DType::kFloat32, false, rules);
  EXPECT_EQ(d.requested, "q4_k");
  EXPECT_EQ(d.chosen, "bf16");  // 172 fits neither 256 nor 32
  EXPECT_EQ(d.note, "k = 172 is not a multiple of 256");
  d = DecideEncoding("blk.0.ffn_down.weight", Shape({64, 288}), DType::kFloat32, false, rules);
  EXPECT_EQ(d.chosen, "q8_0");
  d = DecideEncoding("blk.0.attn_q.weight", Shape({64, 64}), DType::kFloat32, false, rules);
  EXPECT_EQ(d.chosen, "q4_0");
  EXPECT_TRUE(d.note.empty());
  d = DecideEncoding("blk.0.attn_norm.weight", Shape({64}), DType::kFloat32, false, rules);
  EXPECT_EQ(d.chosen, "f32");
  d = DecideEncoding("x", Shape({4, 32}), DType::kUInt8, true, rules);
  EXPECT_EQ(d.chosen, "kept");
  d = DecideEncoding("x", Shape({4, 32}), DType::kFloat32, false, {});
  EXPECT_EQ(d.requested, "f32");
  EXPECT_EQ(d.chosen, "f32");
}

TEST(QuantizeRulesTest, QuantizeDictAppliesRulesAndKeepsMetadata) {
  TensorDict d;
  ASSERT_TRUE(d.Set("a.weight", Ramp({4, 64})).ok());
  ASSERT_TRUE(d.Set("b.weight", Ramp({2, 48})).ok());
  ASSERT_TRUE(d.Set("norm", Ramp({64})).ok());
  d.SetMetadata("llama.block_count", MetadataValue::Int(5));
  std::vector<QuantizeDecision> decisions;
  std::vector<std::string> seen;
  absl::StatusOr<TensorDict> q = QuantizeDict(d, *DefaultQuantizeRules("q4_0"), &decisions,
                                              [&](int done, int total, const std::string& name) {
                                                EXPECT_EQ(total, 3);
                                                EXPECT_EQ(done, static_cast<int>(seen.size()) + 1);
                                                seen.push_back(name);
                                              });
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(seen, (std::vector<std::string>{"a.weight", "b.weight", "norm"}));
  const Tensor& a = **q->Get("a.weight");
  EXPECT_EQ(a.encoding(), "q4_0");
  EXPECT_EQ(a.logical_shape(), Shape({4, 64}));
  // Bytes equal the encoding's own output.
  const Tensor want = *Q4_0Encoding().Quantize(Ramp({4, 64}));
  ASSERT_EQ(a.size_bytes(), want.size_bytes());
  EXPECT_EQ(0, std::memcmp(a.raw_data(), want.raw_data(), a.size_bytes()));
  EXPECT_EQ((**q->Get("b.weight")).encoding(), "bf16");  // 48 fits neither q4_0 nor q8_0
  EXPECT_FALSE((**q->Get("norm")).is_quantized());
  ASSERT_EQ(decisions.size(), 3u);
  EXPECT_EQ((**q->GetMetadata("llama.block_count")).int_value(), 5);

  // A NaN is an error naming the tensor.
  Tensor bad = Ramp({1, 32});
  (*bad.MutableValues<float>())[3] = std::nanf("");
  TensorDict nan_dict;
  ASSERT_TRUE(nan_dict.Set("w", bad).ok());
  absl::Status s = QuantizeDict(nan_dict, *DefaultQuantizeRules("q8_0")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "tensor 'w'")) << s;
}

TEST(QuantizeRulesTest, ProgressLine) {
  EXPECT_EQ(QuantizeProgressLine(0, 3, "tok_embeddings.weight"),
            "\rquantizing [                              ] 0/3 tok_embeddings.weight" +
                std::string(40 - 21, ' '));
  EXPECT_EQ(QuantizeProgressLine(1, 3, "a"),
            "\rquantizing [##########                    ] 1/3 a" + std::string(39, ' '));
  // Long names are cut to 40 columns; the last call ends the line.
  EXPECT_EQ(QuantizeProgressLine(3, 3, std::string(50, 'x')),
            "\rquantizing [##############################] 3/3 " + std::string(40, 'x') + "\n");
  // Nothing to do: a full bar, not a division by zero.
  EXPECT_EQ(QuantizeProgressLine(0, 0, ""),
            "\rquantizing [##############################] 0/0 " + std::string(40, ' ') + "\n");
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
