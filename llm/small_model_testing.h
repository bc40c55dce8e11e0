// The small random model llm/model_test.cc and llm/model_arch_test.cc share, and the
// blocked-prefill check the architecture tests (llm/arch/*_test.cc) share.
#ifndef EDGEQ_LLM_SMALL_MODEL_TESTING_H_
#define EDGEQ_LLM_SMALL_MODEL_TESTING_H_

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {

// A small model with every feature at once: GQA (4 heads, 2 kv heads), head dim 12, llama3
// rope_freqs, rope base 500000; tied unless `tied` is false.
inline RandomModelSpec SmallSpec(bool tied = true) {
  RandomModelSpec s = *RandomModelPreset("llama-3.2-1b");
  s.dim = 48, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 40, s.vocab = 37;
  s.context = 64, s.tied = tied, s.seed = 3;
  // Small original context so that the factors are not all 1 at head dim 12.
  s.rope_original_context = 16, s.rope_factor = 8.0f;
  return s;
}

inline checkpoint::TensorDict SmallModel(bool tied = true) {
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(SmallSpec(tied));
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

// The random model of preset `name` (RandomModelPreset) at its preset shape.
inline checkpoint::TensorDict PresetModel(absl::string_view name) {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset(name);
  EXPECT_TRUE(s.ok()) << s.status();
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s.ok() ? *s : RandomModelSpec{});
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *std::move(d) : checkpoint::TensorDict();
}

// Model::Load with prefill blocks of `prefill_block` rows and 64 positions; null (a test
// failure) if it fails.
inline std::unique_ptr<Model> LoadWithBlock(const checkpoint::TensorDict& d, int prefill_block) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(d, {.prefill_block = prefill_block, .context_length = 64});
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// Each logit within tol * max |want| of want's.
inline void ExpectLogitsNear(absl::Span<const float> got, const std::vector<float>& want,
                             float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  float max_abs = 0;
  for (float w : want) max_abs = std::max(max_abs, std::fabs(w));
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * max_abs) << "logit " << i;
  }
}

// `prompt` prefilled in blocks of 4, 8 and 16 rows, then `next` decoded token by token: the
// logits of the prompt's last token and of each decoded one as those of the model run one token
// at a time (decode graph only), and the prefill loaded block graphs. Returns the one-at-a-time
// logits of every position (prompt then next) for further checks.
inline std::vector<std::vector<float>> ExpectBlockedPrefillEqualsTokenByToken(
    const checkpoint::TensorDict& d, const std::vector<int>& prompt, const std::vector<int>& next) {
  std::vector<std::vector<float>> want;
  std::unique_ptr<Model> one = LoadWithBlock(d, 1);
  if (one == nullptr) return want;
  for (size_t i = 0; i < prompt.size() + next.size(); ++i) {
    const int token = i < prompt.size() ? prompt[i] : next[i - prompt.size()];
    absl::StatusOr<absl::Span<const float>> l = one->Forward(token, static_cast<int>(i));
    EXPECT_TRUE(l.ok()) << l.status();
    if (!l.ok()) return {};
    want.emplace_back(l->begin(), l->end());
  }
  for (int block : {4, 8, 16}) {
    SCOPED_TRACE(block);
    std::unique_ptr<Model> m = LoadWithBlock(d, block);
    if (m == nullptr) return want;
    absl::StatusOr<absl::Span<const float>> l = m->Prefill(prompt, 0);
    EXPECT_TRUE(l.ok()) << l.status();
    if (!l.ok()) return want;
    ExpectLogitsNear(*l, want[prompt.size() - 1]);
    for (size_t j = 0; j < next.size(); ++j) {
      const int pos = static_cast<int>(prompt.size() + j);
      l = m->Forward(next[j], pos);
      EXPECT_TRUE(l.ok()) << l.status();
      if (!l.ok()) return want;
      ExpectLogitsNear(*l, want[static_cast<size_t>(pos)]);
    }
    EXPECT_FALSE(m->loaded_block_sizes().empty());
  }
  return want;
}

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_SMALL_MODEL_TESTING_H_
