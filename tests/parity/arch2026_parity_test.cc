// llama.cpp parity for the 2026 architectures (issue 30): smollm3, lfm2, qwen35, gemma4,
// qwen3moe, lfm2moe, as arch_parity_test.cc does for the others (tests/parity/arch_parity.h;
// tests/parity/README.md), and the perplexity of llama-quantize's Q8_0 and Q4_K_M files of the
// tiny smollm3, lfm2, qwen35, gemma4, qwen3moe and lfm2moe.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "tests/parity/arch_parity.h"
#include "tests/parity/parity_util.h"

namespace edgeq {
namespace parity {
namespace {

// smollm3 (issue 30): no RoPE on layers 3, 7, ... The tiny preset: 8 layers (2 without RoPE),
// dim 64, 4 / 2 heads, ffn 128. make_random_gguf --shape=smollm3-tiny --synthetic_vocab
const ArchCase kTinySmolLM3 = {
    "tiny_smollm3",
    "smollm3-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0xebe56cd97f43ed75ull,
    false,
    kIds,
    {554.0317, 557.9291, 590.5969, 568.7760, 550.7958, 563.5621, 577.6045, 584.3498, 575.3991,
     567.3600, 572.0687, 570.0904, 576.3413, 572.5246, 572.2357, 570.3714, 570.1319, 570.2031}};
TEST(ArchParity, TinySmolLM3) { CheckArch(kTinySmolLM3); }

// SmolLM3-3B's widths (2048, 16 / 4 heads, ffn 11008), 4 of 36 layers (layer 3 without RoPE),
// the made-up 512-piece vocabulary: host only.
// make_random_gguf --shape=smollm3-3b --layers=4 --vocab_size=512 --synthetic_vocab (1254.2 MB)
TEST(ArchParity, SmolLM3_3bFirst4Layers) {
  CheckArch(
      {"rand_smollm3_l4", "smollm3-3b", 4, 0, 0, 0, -1, 0, -1, 512, 0x841682d78722d454ull, true});
}

// lfm2 (issue 30): short-convolution layers with a conv state (llm/arch/recurrent_state.h)
// between GQA attention layers. The tiny preset: 6 layers, attention on 2 and 5, dim 64, 4 / 2
// heads, ffn 128, 3 conv taps. make_random_gguf --shape=lfm2-tiny --synthetic_vocab
const ArchCase kTinyLfm2 = {
    "tiny_lfm2",
    "lfm2-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0xa60fed1d97bb914aull,
    false,
    kIds,
    {650.0103, 639.1155, 657.3598, 638.7629, 629.1719, 622.3758, 622.0826, 624.6263, 636.0807,
     639.1394, 638.4048, 631.5475, 627.5901, 628.4661, 630.2661, 628.7594, 629.9543, 623.9905}};
TEST(ArchParity, TinyLfm2) { CheckArch(kTinyLfm2); }

// LFM2-1.2B's widths (2048, 32 / 8 heads, ffn 8192, 3 conv taps), 4 of 16 layers (conv, conv,
// attention, conv), the made-up 512-piece vocabulary: host only.
// make_random_gguf --shape=lfm2-1.2b --layers=4 --vocab_size=512 --synthetic_vocab (1052.9 MB)
TEST(ArchParity, Lfm2_1_2bFirst4Layers) {
  CheckArch({"rand_lfm2_l4", "lfm2-1.2b", 4, 0, 0, 0, -1, 0, -1, 512, 0xf069f1f1a2fa1a3dull, true});
}

// qwen35 (issue 30): gated delta-net layers (short convolution and delta-rule states) with a
// gated full-attention layer every 4th, partial M-RoPE. The tiny preset: 8 layers (2 full
// attention), dim 64, 4 / 2 heads of 32 (8 rotated dims), ffn 128, delta-net 4 value heads over
// 2 key heads of 16. make_random_gguf --shape=qwen3.5-tiny --synthetic_vocab
const ArchCase kTinyQwen35 = {
    "tiny_qwen35",
    "qwen3.5-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0xaf1e3fb80ce09014ull,
    false,
    kIds,
    {658.7621, 622.6850, 621.3233, 624.9779, 620.1866, 608.2966, 610.4828, 613.2913, 618.2517,
     619.8880, 616.8884, 609.0033, 605.1227, 608.9429, 608.0093, 605.9566, 607.4730, 607.2920}};
TEST(ArchParity, TinyQwen35) { CheckArch(kTinyQwen35); }

// Qwen3.5-0.8B's widths (1024, 8 / 2 heads of 256 with 64 rotated dims, ffn 3584, delta-net 16
// value and 16 key heads of 128, conv kernel 4), 4 of 24 layers (layer 3 full attention),
// vocabulary 512. make_random_gguf --shape=qwen3.5-0.8b --layers=4 --vocab_size=512
// --synthetic_vocab (334.2 MB)
TEST(ArchParity, Qwen35_08bFirst4Layers) {
  CheckArch(
      {"rand_qwen35_l4", "qwen3.5-0.8b", 4, 0, 0, 0, -1, 0, -1, 512, 0x472c92745973e306ull, true});
}

// gemma4 (issue 30): Gemma 4's structure at small width (the gemma4-tiny preset): 10 layers
// (4 and 9 full, head dimension 32, partial RoPE through rope_freqs; the others slide over 16
// positions with head dimension 16), the last 5 reading layers 3 and 4's KV caches (double-wide
// FFN), per-layer embeddings of width 16, no attn_v on the full layers, logit soft-cap 30.
// make_random_gguf --shape=gemma4-tiny --synthetic_vocab
// Perplexity: llama-perplexity of the default build (fp16 GELU table), edgeq with its default
// table too.
const ArchCase kTinyGemma4 = {
    "tiny_gemma4",
    "gemma4-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0x9e5856e43b502ccfull,
    false,
    kIds,
    {596.1390, 616.7474, 622.1186, 606.9526, 614.6100, 602.2957, 602.2439, 607.5577, 614.1423,
     618.9738, 622.2342, 619.3811, 619.4084, 622.3262, 619.1766, 619.6658, 615.2172, 616.8719},
    kMaxRelativeLogitDifferenceGemma4};
TEST(ArchParity, TinyGemma4) { CheckArch(kTinyGemma4); }

// The same file with GELU exact on both sides (testdata/tiny_gemma4/exact_gelu.*).
TEST(ArchParity, TinyGemma4ExactGelu) {
  CheckArch({"tiny_gemma4",
             "gemma4-tiny",
             0,
             0,
             0,
             0,
             -1,
             0,
             -1,
             0,
             0x9e5856e43b502ccfull,
             false,
             nullptr,
             {},
             kMaxRelativeLogitDifference,
             "exact_gelu",
             128,
             -1,
             true});
}

// Gemma-4-E2B's widths (1536, 8 / 1 heads, head dimension 512 full / 256 sliding, ffn 6144 and
// 12288 on shared layers, per-layer width 256), 6 of 35 layers: layers 0-3 and 5 slide (window
// 512), layer 4 is full, layer 5 shares layer 3's cache; the made-up 512-piece vocabulary.
// make_random_gguf --shape=gemma4-e2b --layers=6 --shared_kv_layers=1 --vocab_size=512
//   --synthetic_vocab (1022.6 MB)
TEST(ArchParity, Gemma4E2bFirst6Layers) {
  CheckArch({"rand_gemma4_e2b_l6",
             "gemma4-e2b",
             6,
             0,
             0,
             0,
             -1,
             0,
             -1,
             512,
             0x043385aa570b3f0bull,
             true,
             nullptr,
             {},
             kMaxRelativeLogitDifferenceGemma4,
             "logits_f32",
             128,
             1});
}
TEST(ArchParity, Gemma4E2bFirst6LayersExactGelu) {
  CheckArch({"rand_gemma4_e2b_l6",
             "gemma4-e2b",
             6,
             0,
             0,
             0,
             -1,
             0,
             -1,
             512,
             0x043385aa570b3f0bull,
             true,
             nullptr,
             {},
             kMaxRelativeLogitDifference,
             "exact_gelu",
             128,
             1,
             true});
}

// qwen3moe (issue 30 item 5): qwen3 attention and a routed mixture of experts on every layer
// (softmax gating, top 2 of 8 experts of width 32, renormalised). The tiny preset: 4 layers,
// dim 64, 4 / 2 heads of 16, untied. make_random_gguf --shape=qwen3moe-tiny --synthetic_vocab
const ArchCase kTinyQwen3Moe = {
    "tiny_qwen3moe",
    "qwen3moe-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0x30bb74b6b5e58bd7ull,
    false,
    kIds,
    {625.6533, 603.7224, 639.1538, 654.4441, 648.6660, 659.3186, 659.4335, 651.7499, 651.8193,
     655.4251, 651.1473, 649.5257, 651.4453, 645.9247, 645.3324, 644.8851, 642.9306, 636.9699}};
TEST(ArchParity, TinyQwen3Moe) { CheckArch(kTinyQwen3Moe); }

// Qwen3-30B-A3B's widths (2048, 32 / 4 heads of 128, experts of 768, 8 per token), 2 of 48
// layers, 16 of 128 experts, vocabulary 512: host only.
// make_random_gguf --shape=qwen3-30b-a3b --layers=2 --experts=16 --vocab_size=512
//   --synthetic_vocab (763.7 MB)
TEST(ArchParity, Qwen3_30bA3bFirst2Layers16Experts) {
  CheckArch({"rand_qwen3moe_l2",
             "qwen3-30b-a3b",
             2,
             0,
             0,
             0,
             -1,
             0,
             -1,
             512,
             0x47ec99c3e4758f82ull,
             true,
             nullptr,
             {},
             kMaxRelativeLogitDifference,
             "logits_f32",
             128,
             -1,
             false,
             16});
}

// lfm2moe (issue 30 item 5): lfm2's conv and attention layers, the first 2 with a dense FFN, the
// others a mixture of experts with sigmoid gating and a selection bias (top 2 of 8 of width
// 32). The tiny preset: 6 layers (attention on 2 and 5), dim 64, 4 / 2 heads, dense ffn 128.
// make_random_gguf --shape=lfm2moe-tiny --synthetic_vocab
const ArchCase kTinyLfm2Moe = {
    "tiny_lfm2moe",
    "lfm2moe-tiny",
    0,
    0,
    0,
    0,
    -1,
    0,
    -1,
    0,
    0x7031d2ccca6035b6ull,
    false,
    kIds,
    {613.4902, 628.3194, 638.3697, 630.2151, 630.0118, 626.6711, 631.8148, 631.9900, 639.9911,
     634.9555, 628.6854, 626.4755, 628.1414, 627.3137, 627.9197, 624.7169, 625.4996, 623.1510}};
TEST(ArchParity, TinyLfm2Moe) { CheckArch(kTinyLfm2Moe); }

// LFM2-8B-A1B's widths (2048, 32 / 8 heads, dense ffn 7168, experts of 1792, 4 per token), 3 of
// 24 layers (conv dense, conv dense, attention + experts), 8 of 32 experts, vocabulary 512:
// host only. make_random_gguf --shape=lfm2-8b-a1b --layers=3 --experts=8 --vocab_size=512
//   --synthetic_vocab (885.2 MB)
TEST(ArchParity, Lfm2_8bA1bFirst3Layers8Experts) {
  CheckArch({"rand_lfm2moe_l3",
             "lfm2-8b-a1b",
             3,
             0,
             0,
             0,
             -1,
             0,
             -1,
             512,
             0xc19bc5ad6970d336ull,
             true,
             nullptr,
             {},
             kMaxRelativeLogitDifference,
             "logits_f32",
             128,
             -1,
             false,
             8});
}

// llama-quantize's Q8_0 and Q4_K_M files of the tiny smollm3, lfm2, qwen35, gemma4, qwen3moe
// and lfm2moe (issue 30: "within 0.5% of llama-perplexity"). Their 32/64/128/16-column rows fit
// no K-quant: llama-quantize falls back (Q4_K_M: q5_0 for q4_K, q8_0 for q6_K, q5_1 for q5_K
// (lfm2moe's and qwen3moe's attn_output), f16 for gemma4's 16-column `proj`; the 256-column
// ffn_down of gemma4's shared layers stays q4_K/q6_K), and refuses Q8_0 for gemma4's `proj` (16
// columns), which the Q8_0 file keeps f32 (`--tensor-type 'blk\.[0-9]+\.proj=f32'`).
// testdata/<model>/rules_<TYPE>.txt lists the type llama-quantize gave each tensor it did not
// keep f32; edgeq's quantizer with those rules writes the same tensor bytes (checked), and its
// running perplexity on them is compared with llama-perplexity's on llama-quantize's file
// (tests/parity/README.md, "Quantized tiny qwen35 and gemma4").
//
// Bounds: the perplexity of the whole text (the last running value, llama-perplexity's final
// estimate) within 0.5% (issue 30); every running value within 1% (issue 16's bound for quantized
// files): the first chunks score 64-128 tokens, and there edgeq's value differs by up to 0.67%
// (measured), llama.cpp's own by up to 0.44% when only its ubatch split changes (-ub 32;
// tests/parity/README.md).
constexpr double kQuantizedPerplexityPerChunk = 1e-2;
constexpr double kQuantizedPerplexityWholeText = 5e-3;

struct QuantizedPerplexityCase {
  const char* type;  // llama-quantize's type argument
  ArchCase model;
  uint64_t tensor_xxh3;     // TensorDataXxh3 of llama-quantize's output
  std::vector<double> ppl;  // llama-perplexity -c 128 -b 128 -ctk f32 -ctv f32 -nr on that file
};

class QuantizedPerplexityParity : public ::testing::TestWithParam<QuantizedPerplexityCase> {};

TEST_P(QuantizedPerplexityParity, SameTensorsAndPerplexity) {
  const QuantizedPerplexityCase& q = GetParam();
  const ArchCase& c = q.model;
  absl::StatusOr<std::string> rules = ReadQuantizeRules(c, q.type);
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<checkpoint::TensorDict> dict =
      QuantizeAsLlamaQuantize(c, q.type, *rules, q.tensor_xxh3);
  ASSERT_TRUE(dict.ok()) << dict.status();
  llm::ModelOptions options = ParityOptions(kPerplexityContext);
  options.gelu_fp16_table = !c.exact_gelu;
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(*dict, options);
  ASSERT_TRUE(model.ok()) << model.status();
  // Every chunk (under qemu-aarch64 the first only, as the other cases), then the whole text.
  std::vector<double> ppl;
  const double worst =
      CheckPerplexity(**model, absl::StrCat("tests/parity/testdata/", kIds), /*add_bos=*/true,
                      q.ppl, kQuantizedPerplexityPerChunk, nullptr, &ppl);
  ASSERT_FALSE(ppl.empty());
  double whole = -1;
  if (ppl.size() == q.ppl.size()) {
    whole = std::fabs(ppl.back() - q.ppl.back()) / q.ppl.back();
    EXPECT_LE(whole, kQuantizedPerplexityWholeText)
        << "whole text: edgeq " << ppl.back() << ", llama.cpp " << q.ppl.back();
  }
  std::printf(
      "%s %s: perplexity rel. diff max %.3g over %zu chunks, whole text %.3g (edgeq %.4f, "
      "llama.cpp %.4f)\n",
      c.name, q.type, worst, ppl.size(), whole, ppl.back(), q.ppl[ppl.size() - 1]);
  ::testing::Test::RecordProperty("max_relative_perplexity_difference",
                                  absl::StrFormat("%.3g", worst));
}

INSTANTIATE_TEST_SUITE_P(
    LlamaQuantize, QuantizedPerplexityParity,
    ::testing::Values(
        QuantizedPerplexityCase{"Q8_0",
                                kTinyQwen35,
                                0xe6b43d2c87564c40ull,
                                {661.7650, 625.0923, 627.1470, 630.1527, 622.4031, 610.0183,
                                 611.3221, 613.4723, 616.7317, 619.0359, 616.1722, 608.4159,
                                 605.5353, 609.4334, 608.0245, 605.8713, 606.9235, 606.3472}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinyQwen35,
                                0x593872f099267adbull,
                                {621.8441, 620.8280, 618.1796, 625.5918, 626.3426, 619.0743,
                                 614.3445, 611.9006, 618.0514, 622.5446, 616.9881, 607.8011,
                                 604.7776, 609.3611, 609.6294, 607.3190, 608.2094, 609.1216}},
        QuantizedPerplexityCase{"Q8_0",
                                kTinyGemma4,
                                0x34e191b15187113full,
                                {595.6005, 620.0250, 622.3420, 606.4788, 614.4496, 602.3016,
                                 601.8367, 607.0154, 612.5694, 617.7417, 620.8136, 617.8264,
                                 617.1695, 619.9227, 616.2186, 615.9183, 611.6090, 614.1394}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinyGemma4,
                                0x12a1ed9af67df973ull,
                                {588.0715, 619.5882, 624.5846, 608.4230, 618.9099, 607.3330,
                                 604.2027, 602.8603, 607.4417, 610.4500, 614.5347, 609.6305,
                                 612.8886, 613.4454, 611.1308, 612.0365, 607.7718, 610.6732}},
        QuantizedPerplexityCase{"Q8_0",
                                kTinySmolLM3,
                                0x1b55b4eda77ec44aull,
                                {554.7854, 558.9503, 591.4445, 569.7707, 551.8102, 564.1010,
                                 578.2746, 584.9444, 575.9866, 567.9956, 572.5860, 570.5897,
                                 576.7956, 572.9088, 572.6979, 570.7792, 570.5173, 570.5777}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinySmolLM3,
                                0xf657c17b2636419bull,
                                {557.5666, 561.8552, 592.1444, 570.1257, 551.3823, 564.6462,
                                 579.4895, 585.8636, 575.8642, 568.0459, 572.6269, 570.7198,
                                 576.5188, 572.7278, 571.9257, 570.2731, 570.1329, 570.0052}},
        QuantizedPerplexityCase{"Q8_0",
                                kTinyLfm2,
                                0xa9f049b3bad408e3ull,
                                {651.2754, 640.5195, 658.5787, 640.1630, 630.5268, 623.8744,
                                 623.3110, 625.7620, 637.4518, 640.3841, 639.1987, 632.3524,
                                 628.5327, 629.1558, 631.0945, 629.4286, 630.5846, 624.5831}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinyLfm2,
                                0x703a81d87056a57eull,
                                {663.7338, 651.1384, 664.8232, 644.2686, 637.3793, 628.3297,
                                 625.7103, 626.1338, 636.7525, 640.1418, 638.5646, 631.7072,
                                 628.0713, 629.3865, 631.0789, 628.4157, 629.4460, 623.2356}},
        QuantizedPerplexityCase{"Q8_0",
                                kTinyLfm2Moe,
                                0x55ff0cc1e64c18bbull,
                                {614.0242, 626.6761, 637.0514, 629.1691, 630.0676, 626.9242,
                                 631.1014, 631.0501, 639.2665, 634.2139, 628.3052, 625.9187,
                                 627.6618, 626.9329, 627.7123, 624.3065, 625.0647, 622.9562}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinyLfm2Moe,
                                0x673603c86dc449bfull,
                                {622.9576, 634.2905, 643.2126, 630.5008, 630.9002, 629.3992,
                                 633.6880, 633.7110, 640.6502, 636.3316, 629.8349, 625.9068,
                                 627.9242, 626.5835, 627.5052, 622.6977, 623.4594, 620.7370}},
        QuantizedPerplexityCase{"Q8_0",
                                kTinyQwen3Moe,
                                0xe989645a6e210c62ull,
                                {624.6117, 602.4131, 637.3458, 652.1627, 647.1339, 658.2016,
                                 659.0846, 651.4260, 651.4662, 655.2810, 650.8339, 649.1705,
                                 651.2661, 645.8417, 645.8551, 645.4009, 643.3631, 637.5335}},
        QuantizedPerplexityCase{"Q4_K_M",
                                kTinyQwen3Moe,
                                0xcf252579defcabd7ull,
                                {635.6177, 606.4808, 638.9652, 654.9562, 649.3110, 659.9778,
                                 658.9699, 652.8319, 653.1234, 656.9265, 653.8128, 652.5201,
                                 654.5403, 649.3742, 651.1722, 650.3573, 648.2627, 642.2711}}),
    [](const ::testing::TestParamInfo<QuantizedPerplexityCase>& info) {
      return absl::StrCat(info.param.model.name, "_", info.param.type);
    });

}  // namespace
}  // namespace parity
}  // namespace edgeq
