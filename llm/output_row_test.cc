// Prefill's output-row graphs (BodyRows::kOutputRow: the last layer's feed-forward for the block's
// last token only, llm/arch/common.h LayerGraph::KeepOutputRow) against the all-rows graphs that
// PrefillAll runs, for every architecture of the table: the same logits bit for bit, the same
// caches and states after (the decode steps that follow give the same logits and tokens).
#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/arch/common.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::TensorDict;

// The random model of `preset`; the presets of real shapes shrunk to a few layers of width 64.
TensorDict Tiny(const std::string& preset) {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset(preset);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return TensorDict();
  if (!absl::StrContains(preset, "tiny")) {
    s->dim = 64, s->layers = 3, s->heads = 4, s->kv_heads = 2, s->ffn = 96, s->vocab = 40;
    s->head_dim = 32, s->sliding_window = 2;
  }
  absl::StatusOr<TensorDict> d = RandomModel(*s);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *std::move(d) : TensorDict();
}

// d with every matrix (rank 2) in q8_0: the quantized GEMM and GEMV kernels.
TensorDict Q8_0(const TensorDict& d) {
  TensorDict q;
  for (const std::string& name : d.Keys()) {
    const Tensor& t = **d.Get(name);
    if (t.rank() == 2 && t.shape().dim(1) % 32 == 0) {
      absl::StatusOr<Tensor> qt = Q8_0Encoding().Quantize(t);
      EXPECT_TRUE(qt.ok()) << qt.status();
      if (qt.ok()) {
        EXPECT_TRUE(q.Set(name, *std::move(qt)).ok());
      }
    } else {
      EXPECT_TRUE(q.Set(name, t).ok());
    }
  }
  for (const std::string& k : d.MetadataKeys()) q.SetMetadata(k, **d.GetMetadata(k));
  return q;
}

std::vector<float> Copy(absl::Span<const float> s) {
  return std::vector<float>(s.begin(), s.end());
}

int Argmax(const std::vector<float>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Every element the same bits (NaN-safe, -0 != +0).
void ExpectBitIdentical(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    ASSERT_EQ(a, b) << "logit " << i << ": " << got[i] << " vs " << want[i];
  }
}

const char* const kPresets[] = {"llama-3.2-1b", "qwen2.5-0.5b",  "qwen3-0.6b",  "gemma3-270m",
                                "phi3.5-mini",  "smollm3-tiny",  "lfm2-tiny",   "qwen3.5-tiny",
                                "gemma4-tiny",  "qwen3moe-tiny", "lfm2moe-tiny"};

// Prompts of 2..19 tokens with a ubatch of 8: one padded block (2, 5), one full block (8), full
// then padded blocks (11, 19), decode steps for a short rest (PlanPrefill). For each: Prefill
// (output-row graphs) and PrefillAll's last row (all-rows graphs), each on a fresh model, then
// three greedy decode steps on both.
TEST(OutputRowTest, PrefillEqualsTheAllRowsGraphsLastRowBitForBit) {
  const std::vector<int> kTokens = {1, 30, 17, 35, 9,  5, 26, 4,  7, 31,
                                    2, 39, 6,  22, 13, 8, 3,  38, 11};
  for (const char* preset : kPresets) {
    const TensorDict f32 = Tiny(preset);
    absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(f32);
    ASSERT_TRUE(c.ok()) << preset << ": " << c.status();
    for (const bool quantized : {false, true}) {
      const TensorDict d = quantized ? Q8_0(f32) : f32;
      for (const int n : {2, 5, 8, 11, 19}) {
        SCOPED_TRACE(testing::Message()
                     << preset << (quantized ? " q8_0 " : " f32 ") << n << " tokens");
        std::vector<int> prompt(kTokens.begin(), kTokens.begin() + n);
        for (int& t : prompt) t %= c->vocab_size;
        const ModelOptions options = {.prefill_block = 8, .context_length = 32};
        absl::StatusOr<std::unique_ptr<Model>> row = Model::Load(d, options);
        absl::StatusOr<std::unique_ptr<Model>> all = Model::Load(d, options);
        ASSERT_TRUE(row.ok()) << row.status();
        ASSERT_TRUE(all.ok()) << all.status();
        absl::StatusOr<absl::Span<const float>> l = (*row)->Prefill(prompt, 0);
        ASSERT_TRUE(l.ok()) << l.status();
        std::vector<float> got = Copy(*l), want;
        ASSERT_TRUE((*all)
                        ->PrefillAll(
                            prompt, 0,
                            [&](int i, absl::Span<const float> logits) {
                              EXPECT_EQ(i, n - 1);
                              want = Copy(logits);
                              return absl::OkStatus();
                            },
                            n - 1)
                        .ok());
        ExpectBitIdentical(got, want);
        // The output-row graphs' activations fit in the all-rows graphs' arena.
        EXPECT_LE((*row)->activation_bytes(), (*all)->activation_bytes());
        // The caches and states after both are the same: so are the decode steps' logits.
        for (int step = 0; step < 3; ++step) {
          const int token = Argmax(want), pos = n + step;
          EXPECT_EQ(Argmax(got), token);
          absl::StatusOr<absl::Span<const float>> a = (*row)->Forward(token, pos);
          ASSERT_TRUE(a.ok()) << a.status();
          got = Copy(*a);
          absl::StatusOr<absl::Span<const float>> b = (*all)->Forward(token, pos);
          ASSERT_TRUE(b.ok()) << b.status();
          want = Copy(*b);
          ExpectBitIdentical(got, want);
        }
      }
    }
  }
}

// The body graph's output: [t, dim] with every row, [1, dim] with the output row, whose index is
// an input; the last layer's feed-forward products take one row ([1, ffn]), the earlier layers'
// all t.
TEST(OutputRowTest, BodyGraphOutputsOneRow) {
  const TensorDict d = Tiny("llama-3.2-1b");
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(d);
  ASSERT_TRUE(c.ok()) << c.status();
  std::set<std::string> used;
  const WeightReader reader(d, &used);
  absl::StatusOr<Tensor> freqs = Tensor::Full({16}, 0.5f);
  ASSERT_TRUE(freqs.ok());
  const int64_t t = 8, dim = c->embedding_length, ffn = c->feed_forward_length;
  for (const BodyRows rows : {BodyRows::kAll, BodyRows::kOutputRow}) {
    SCOPED_TRACE(rows == BodyRows::kAll ? "all rows" : "output row");
    absl::StatusOr<std::unique_ptr<Graph>> g =
        BuildBodyGraph(reader, *c, 32, KvCacheType::kF32, *freqs, *freqs, t, kFfnChunkAuto, rows);
    ASSERT_TRUE(g.ok()) << g.status();
    const Graph& graph = **g;
    bool found = false;
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      if (graph.output_name(static_cast<int>(i)) != io::kHidden) continue;
      found = true;
      EXPECT_EQ(graph.value_type(graph.outputs()[i]).type.shape,
                Shape({rows == BodyRows::kOutputRow ? 1 : t, dim}));
    }
    EXPECT_TRUE(found);
    // Values [n, ffn] (the gate and up products): t rows in each layer but the last one's, where
    // the output-row graph has one.
    int wide = 0, narrow = 0;
    for (int v = 0; v < graph.num_values(); ++v) {
      const Shape& s = graph.value_type(v).type.shape;
      if (s == Shape({t, ffn})) ++wide;
      if (s == Shape({1, ffn})) ++narrow;
    }
    if (rows == BodyRows::kAll) {
      EXPECT_GT(wide, 0);
      EXPECT_EQ(narrow, 0);
    } else {
      EXPECT_EQ(wide, narrow * (c->block_count - 1)) << wide << " " << narrow;
      EXPECT_GT(narrow, 0);
    }
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
