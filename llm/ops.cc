#include "llm/ops.h"

#include "graph/ops.h"

namespace edgeq {
namespace llm {

absl::Status RegisterLlmOps() { return absl::OkStatus(); }

Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode) {
  return ops::Rope(x, positions, inv_freq,
                   mode == RopeMode::kNeox ? ops::RopeMode::kNeox : ops::RopeMode::kNorm);
}

Value GeluTanh(Value x, bool half_precision_table) {
  return ops::GeluTanh(x, half_precision_table);
}

Value Tanh(Value x) { return ops::Tanh(x); }

}  // namespace llm
}  // namespace edgeq
