// llama.cpp parity for the 2026 architectures (issue 30): smollm3, lfm2, qwen35, gemma4,
// qwen3moe, lfm2moe, as arch_parity_test.cc does for the others (tests/parity/arch_parity.h;
// tests/parity/README.md).
#include <vector>

#include "gtest/gtest.h"
#include "tests/parity/arch_parity.h"

namespace edgeq {
namespace parity {
namespace {

// smollm3 (issue 30): no RoPE on layers 3, 7, ... The tiny preset: 8 layers (2 without RoPE),
// dim 64, 4 / 2 heads, ffn 128. make_random_gguf --shape=smollm3-tiny --synthetic_vocab
TEST(ArchParity, TinySmolLM3) {
  CheckArch(
      {"tiny_smollm3",
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
        567.3600, 572.0687, 570.0904, 576.3413, 572.5246, 572.2357, 570.3714, 570.1319, 570.2031}});
}

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
TEST(ArchParity, TinyLfm2) {
  CheckArch(
      {"tiny_lfm2",
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
        639.1394, 638.4048, 631.5475, 627.5901, 628.4661, 630.2661, 628.7594, 629.9543, 623.9905}});
}

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
TEST(ArchParity, TinyQwen35) {
  CheckArch(
      {"tiny_qwen35",
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
        619.8880, 616.8884, 609.0033, 605.1227, 608.9429, 608.0093, 605.9566, 607.4730, 607.2920}});
}

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
TEST(ArchParity, TinyGemma4) {
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
             kMaxRelativeLogitDifferenceGemma4});
}

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
TEST(ArchParity, TinyQwen3Moe) {
  CheckArch(
      {"tiny_qwen3moe",
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
        655.4251, 651.1473, 649.5257, 651.4453, 645.9247, 645.3324, 644.8851, 642.9306, 636.9699}});
}

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
TEST(ArchParity, TinyLfm2Moe) {
  CheckArch(
      {"tiny_lfm2moe",
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
        634.9555, 628.6854, 626.4755, 628.1414, 627.3137, 627.9197, 624.7169, 625.4996, 623.1510}});
}

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

}  // namespace
}  // namespace parity
}  // namespace edgeq
