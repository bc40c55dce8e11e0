// Op builders. Each checks its inputs when called and, on a mismatch, records the first error in
// the graph (Graph::status()) with a message naming the op and the offending types, and returns
// an invalid Value. Inputs must all belong to the same graph.
//
// Every builder below is a thin wrapper over ops::Op (by the op's registered name, with its
// attributes): the op itself -- attributes, type inference, kernels -- is one file of
// runtime/ops/ registered in the op registry (graph/op.h). A program that builds graphs must
// link //runtime/ops (every program that runs them does).
//
// Unless said otherwise, ops take and produce f32 tensors.
#ifndef EDGEQ_GRAPH_OPS_H_
#define EDGEQ_GRAPH_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace ops {

// The op registered as `name` over `inputs` with `attributes` (keys and kinds as the op's file in
// runtime/ops/ documents them; OpRegistry lists the ops). Records NotFound for an unknown name,
// InvalidArgument for a wrong input count, attribute or input type.
Value Op(absl::string_view name, absl::Span<const Value> inputs,
         const AttributeMap& attributes = {});
// As Op, for an op with several outputs (one Value per output; all invalid on error).
std::vector<Value> OpOutputs(absl::string_view name, absl::Span<const Value> inputs,
                             const AttributeMap& attributes = {});

// lhs [..., m, k] · rhs [k, n] -> [..., m, n]. rhs may also be batched, [..., k, n] with exactly
// lhs's batch dimensions. A rank-2 constant rhs runs as XNNPACK's fully-connected operator.
Value Matmul(Value lhs, Value rhs);
// lhs [..., m, k] · rhs^T with rhs [n, k] (or batched [..., n, k]) -> [..., m, n]: the layout of
// a linear layer's weights (out_features x in_features), and of Q·K^T in attention.
Value MatmulTransposed(Value lhs, Value rhs);

// lhs f32 [..., k] · W^T with W a quantized constant of logical shape [n, k] in `encoding` (any
// of the 14 built-in encodings: q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, q6_k,
// iq4_nl, iq4_xs, f16, bf16) -> f32 [..., n]. The activations are quantized on the fly by the
// kernel as the encoding's GGML vec_dot_type says (8-bit q8_0/q8_K blocks; f16 and bf16 weights
// take f16/bf16 activations).
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
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): the tanh approximation of GELU (GeGLU of
// Gemma). With `half_precision_table`, as ggml's CPU backend computes it for f32 (GGML_GELU_FP16):
// x <= -10 gives 0, x >= 10 gives x, otherwise x is rounded to fp16 and the result is the fp16
// rounding of the formula at that value (a 64K-entry table).
Value GeluTanh(Value x, bool half_precision_table = false);
// tanh(x), element-wise (final logit soft-capping: cap * tanh(logits / cap)).
Value Tanh(Value x);

// Which elements RoPE rotates together (llama.cpp's rope types).
enum class RopeMode {
  kNorm,  // adjacent pairs (2i, 2i+1): Llama, llama2.c (LLAMA_ROPE_TYPE_NORM)
  kNeox,  // halves (i, i + n/2) of the first n = 2 * pairs dimensions: GPT-NeoX, Qwen, Gemma,
          // Phi-3 (LLAMA_ROPE_TYPE_NEOX)
};

// Rotary position embedding on adjacent pairs (Llama 2 / llama2.c order). x is f32 [s, ..., d]
// with d even; positions is i32 or i64 [s]. Element pair (2i, 2i+1) of every row at sequence
// index j is rotated by the angle positions[j] * theta^(-2i/d).
Value Rope(Value x, Value positions, float theta = 10000.0f);
// The same op with an angle table: inv_freq f32 [pairs] with 2 * pairs <= d (the model's RoPE
// frequencies, with llama3 or long/short factors already applied). Pair i of a row at position
// p turns by the angle p * inv_freq[i]; dimensions from 2 * pairs on pass through unchanged.
Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode);

// Causal self-attention of a block of t query rows over a key/value cache and the block's own
// keys/values (grouped-query: `heads` query heads share `kv_heads` key/value heads in order).
//   q        f32 [t, heads, head_dim]       (after RoPE)
//   k_cache  f32 [kv_heads, ctx, head_dim]  rows 0..pos-1 hold positions 0..pos-1
//   v_cache  f32 [kv_heads, ctx, head_dim]
//            or both caches q8_0: u8 [kv_heads, ctx, head_dim / 32 * 34], each row head_dim / 32
//            GGML block_q8_0 (head_dim a multiple of 32); rows are decoded as they are read
//            or both caches f16 [kv_heads, ctx, head_dim] (GGML's fp16, llama.cpp's default)
//            (the op's typed attribute kv_cache = q8_0 or f16, set here from the caches' dtype)
//   k_new    f32 [t, kv_heads, head_dim]    the block's keys, positions pos..pos+t-1 (the
//   v_new    f32 [t, kv_heads, head_dim]    projections' own layout: no transpose needed)
//   positions i32 [t]: pos, pos + 1, ..., pos + t - 1 (read at Execute; consecutive, and
//            0 <= pos <= ctx, else Execute fails with OutOfRange naming them)
// -> f32 [t, heads * head_dim]: row i, head h is softmax(scale * q.k) . v over positions
// <= pos + i, and with window > 0 only over the last `window` of them (sliding-window layers).
// Only the visible rows of the cache are read. With q8_0 or f16 caches the block's own k_new/v_new
// rows are read as the caches would hold them (encoded and decoded back), so that the output does
// not depend on how a sequence is cut into blocks. With store_kv, the op also writes the block's
// k_new/v_new rows into the caches at their positions (below ctx; encoded as the caches are):
// the caches must then be graph inputs, given to Execute as writable tensors.
Value Attention(Value q, Value k_cache, Value v_cache, Value k_new, Value v_new, Value positions,
                float scale, int64_t window = 0, bool store_kv = false);

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
