#include "llm/arch/recurrent_state.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "graph/ops.h"

namespace edgeq {
namespace llm {

SsmConvResult SsmConv(Value x, Value state, Value weight, Value real_rows) {
  std::vector<Value> out = ops::OpOutputs("ssm_conv", {x, state, weight, real_rows});
  return {out[0], out[1]};
}

absl::StatusOr<std::vector<Tensor>> NewRecurrentStates(const ModelConfig& c) {
  std::vector<Tensor> states;
  for (const RecurrentStateSpec& s : c.recurrent_states) {
    bool positive = !s.shape.empty();
    for (int64_t d : s.shape) positive = positive && d > 0;
    if (!positive) {
      return absl::InvalidArgumentError(
          absl::StrFormat("recurrent state of layer %d has shape [%s]; expected positive sizes",
                          s.layer, absl::StrJoin(s.shape, ", ")));
    }
    EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, Shape(s.shape)));
    states.push_back(std::move(t));
  }
  ZeroRecurrentStates(&states);
  return states;
}

void ZeroRecurrentStates(std::vector<Tensor>* states) {
  for (Tensor& t : *states) {
    absl::StatusOr<absl::Span<float>> v = t.MutableValues<float>();
    if (v.ok()) std::memset(v->data(), 0, v->size() * sizeof(float));
  }
}

}  // namespace llm
}  // namespace edgeq
