// A custom op that runs a matmul straight from "q3_sym" weights: the runtime knows nothing of
// the encoding; the op's kernel decodes the weights block by block while it multiplies.
//
//   EDGEQ_RETURN_IF_ERROR(edgeq::examples::RegisterQ3SymMatmulOp());  // also registers q3_sym
//   edgeq::Value w = graph.Quantize(**edgeq::FindEncoding("q3_sym"), weights);   // [n, k]
//   edgeq::Value y = edgeq::ops::Custom("q3_sym_matmul", {x, w},
//                                       {edgeq::TensorType(edgeq::DType::kFloat32, {m, n})})[0];
//
// "q3_sym_matmul": x f32 [m, k] and W a q3_sym tensor of logical shape [n, k] -> x · W^T, f32
// [m, n]. Its shape function checks dtypes, the encoding and k; the kernel allocates nothing.
#ifndef EDGEQ_EXAMPLES_CUSTOM_ENCODING_CUSTOM_OP_H_
#define EDGEQ_EXAMPLES_CUSTOM_ENCODING_CUSTOM_OP_H_

#include "absl/status/status.h"

namespace edgeq {
namespace examples {

inline constexpr char kQ3SymMatmulOp[] = "q3_sym_matmul";

// Registers the q3_sym encoding and the op. Idempotent.
absl::Status RegisterQ3SymMatmulOp();

}  // namespace examples
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_CUSTOM_ENCODING_CUSTOM_OP_H_
