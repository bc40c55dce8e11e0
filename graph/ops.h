// Op builders. Each checks its inputs when called and, on a mismatch, records the first error in
// the graph (Graph::status()) with a message naming the op and the offending types, and returns
// an invalid Value. Inputs must all belong to the same graph.
//
// Unless said otherwise, ops take and produce f32 tensors.
#ifndef EDGEQ_GRAPH_OPS_H_
#define EDGEQ_GRAPH_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace ops {

// lhs [..., m, k] · rhs [k, n] -> [..., m, n]. rhs may also be batched, [..., k, n] with exactly
// lhs's batch dimensions. A rank-2 constant rhs runs as XNNPACK's fully-connected operator.
Value Matmul(Value lhs, Value rhs);
// lhs [..., m, k] · rhs^T with rhs [n, k] (or batched [..., n, k]) -> [..., m, n]: the layout of
// a linear layer's weights (out_features x in_features), and of Q·K^T in attention.
Value MatmulTransposed(Value lhs, Value rhs);

// lhs f32 [..., k] · W^T with W a quantized constant of logical shape [n, k] in `encoding`
// (any built-in: q4_0, q8_0, q4_k, q5_k, q6_k, bf16) -> f32 [..., n]. The activations are
// quantized to 8 bits on the fly by the kernel (except for bf16 weights).
Value QMatmul(const QuantizationEncoding& encoding, Value lhs, Value rhs);

// Element-wise arithmetic with numpy broadcasting (f32).
Value Add(Value a, Value b);
Value Sub(Value a, Value b);
Value Mul(Value a, Value b);
Value Div(Value a, Value b);

// x [..., d] * weight [d] / sqrt(mean(x^2 over the last axis) + epsilon).
Value RmsNorm(Value x, Value weight, float epsilon = 1e-5f);
// Softmax over the last axis.
Value Softmax(Value x);
// x * sigmoid(x).
Value Silu(Value x);
// silu(gate) * up, in one pass (the gated FFN of Llama, Qwen, ...: Mul(Silu(gate), up) without
// the intermediate). gate and up: plain f32 of the same shape.
Value SwiGlu(Value gate, Value up);
// 0.5 x (1 + erf(x / sqrt(2))) (exact GELU).
Value Gelu(Value x);

// Rotary position embedding on adjacent pairs (Llama 2 / llama2.c order). x is f32 [s, ..., d]
// with d even; positions is i32 or i64 [s]. Element pair (2i, 2i+1) of every row at sequence
// index j is rotated by the angle positions[j] * theta^(-2i/d).
Value Rope(Value x, Value positions, float theta = 10000.0f);

// Causal self-attention of a block of t query rows over a key/value cache and the block's own
// keys/values (grouped-query: `heads` query heads share `kv_heads` key/value heads in order).
//   q        f32 [t, heads, head_dim]       (after RoPE)
//   k_cache  f32 [kv_heads, ctx, head_dim]  rows 0..pos-1 hold positions 0..pos-1
//   v_cache  f32 [kv_heads, ctx, head_dim]
//            or both caches q8_0: u8 [kv_heads, ctx, head_dim / 32 * 34], each row head_dim / 32
//            GGML block_q8_0 (head_dim a multiple of 32); rows are decoded as they are read
//   k_new    f32 [t, kv_heads, head_dim]    the block's keys, positions pos..pos+t-1 (the
//   v_new    f32 [t, kv_heads, head_dim]    projections' own layout: no transpose needed)
//   positions i32 [t]: pos, pos + 1, ..., pos + t - 1 (read at Execute; consecutive, and
//            0 <= pos <= ctx, else Execute fails with OutOfRange naming them)
// -> f32 [t, heads * head_dim]: row i, head h is softmax(scale * q.k) . v over positions
// <= pos + i, and with window > 0 only over the last `window` of them (sliding-window layers).
// Only the visible rows of the cache are read.
Value Attention(Value q, Value k_cache, Value v_cache, Value k_new, Value v_new, Value positions,
                float scale, int64_t window = 0);

// Rows of `table` [v, d] picked by `indices` (i32 or i64, any shape [...]) -> f32 [..., d].
// `table` may be quantized (rows are decoded with its encoding). An index outside [0, v) makes
// Execute fail with OutOfRange naming it.
Value Gather(Value table, Value indices);
inline Value Embedding(Value table, Value indices) { return Gather(table, indices); }

// Same data, new shape (one dimension may be -1: inferred). Any plain dtype.
Value Reshape(Value x, std::vector<int64_t> shape);
// Permutes dimensions: output dim i is input dim perm[i]. Any plain dtype.
Value Transpose(Value x, std::vector<int64_t> perm);
// x[starts[0]:ends[0], starts[1]:ends[1], ...], one start/end per dimension, step 1.
Value Slice(Value x, std::vector<int64_t> starts, std::vector<int64_t> ends);
// Joins values along `axis` (negative counts from the end); other dimensions must match.
Value Concat(absl::Span<const Value> values, int64_t axis);

// A custom op, resolved by name in the runtime's op registry at Load (which checks the declared
// output types against the registered shape function). Returns one Value per output type.
std::vector<Value> Custom(absl::string_view name, absl::Span<const Value> inputs,
                          std::vector<TensorType> output_types);

// Broadcasts two shapes numpy-style; InvalidArgument naming both shapes if they do not.
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace ops
}  // namespace edgeq

#endif  // EDGEQ_GRAPH_OPS_H_
