#include "llm/rope_frequencies.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace llm {
namespace {

// The per-pair divisors of the global layers' angles, or null when the model has none.
absl::StatusOr<const float*> FrequencyFactors(const ModelConfig& c,
                                              const checkpoint::TensorDict& weights, int context) {
  const char* name = nullptr;
  if (weights.Contains("rope_freqs.weight")) {
    name = "rope_freqs.weight";
  } else if (c.has_rope_factors) {
    name = context > c.rope_scaling_original_context_length ? "rope_factors_long.weight"
                                                            : "rope_factors_short.weight";
  } else {
    return nullptr;
  }
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* t, weights.Get(name));
  absl::StatusOr<absl::Span<const float>> values = t->Values<float>();
  const size_t pairs = static_cast<size_t>(c.rope_dimension_count / 2);
  if (!values.ok() || values->size() < pairs) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must be f32 with at least %d values (rope dimensions / 2), got %s",
                        name, pairs, t->DebugString()));
  }
  return values->data();
}

// Llama 3.1's frequency factor applied to the angle f (from the rope.scaling.* keys).
float Llama3Scaled(const ModelConfig& c, float f) {
  const float low_wavelen = c.rope_scaling_original_context_length / c.rope_scaling_low_freq_factor;
  const float high_wavelen =
      c.rope_scaling_original_context_length / c.rope_scaling_high_freq_factor;
  const float wavelen = 2.0f * static_cast<float>(M_PI) / f;
  if (wavelen > low_wavelen) {
    f /= c.rope_scaling_factor;
  } else if (wavelen >= high_wavelen) {
    const float smooth =
        (c.rope_scaling_original_context_length / wavelen - c.rope_scaling_low_freq_factor) /
        (c.rope_scaling_high_freq_factor - c.rope_scaling_low_freq_factor);
    f /= 1.0f / ((1.0f - smooth) / c.rope_scaling_factor + smooth);
  }
  return f;
}

}  // namespace

absl::StatusOr<Tensor> RopeFrequencies(const ModelConfig& c, const checkpoint::TensorDict& weights,
                                       int context, bool sliding_window) {
  // Sliding-window layers: their own rotated dimensions when set (gemma4).
  const int rot = sliding_window && c.rope_dimension_count_swa > 0 ? c.rope_dimension_count_swa
                                                                   : c.rope_dimension_count;
  const int pairs = rot / 2;
  EDGEQ_ASSIGN_OR_RETURN(Tensor table, Tensor::Create(DType::kFloat32, {pairs}));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> inv, table.MutableValues<float>());
  const float base = sliding_window ? c.rope_freq_base_swa : c.rope_freq_base;
  const float* factors = nullptr;
  if (!sliding_window) {
    EDGEQ_ASSIGN_OR_RETURN(factors, FrequencyFactors(c, weights, context));
  }
  for (int i = 0; i < pairs; ++i) {
    float f = 1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(rot));
    if (sliding_window) {
      inv[i] = f;
      continue;
    }
    if (factors != nullptr) {
      f /= factors[i];
    } else if (c.rope_scaling_type == RopeScaling::kLlama3) {
      f = Llama3Scaled(c, f);
    }
    if (c.rope_scaling_type == RopeScaling::kLinear) f /= c.rope_scaling_factor;
    inv[i] = f;
  }
  return table;
}

}  // namespace llm
}  // namespace edgeq
