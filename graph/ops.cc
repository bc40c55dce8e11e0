#include "graph/ops.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace edgeq {
namespace ops {
namespace {

using internal::GraphData;

// Finds the graph of `inputs`, checking they all belong to one graph and are valid. Returns null
// if the caller must return an invalid Value (`*failed` is then set to that Value).
GraphData* CommonGraph(absl::string_view op, absl::Span<const Value> inputs, Value* failed) {
  GraphData* g = nullptr;
  for (const Value& v : inputs) {
    if (v.graph_data() == nullptr) continue;
    if (g == nullptr) {
      g = v.graph_data();
    } else if (v.graph_data() != g) {
      *failed = g->Fail(absl::InvalidArgumentError(
          absl::StrFormat("%s: inputs come from two graphs, \"%s\" and \"%s\"", op, g->name,
                          v.graph_data()->name)));
      return nullptr;
    }
  }
  if (g == nullptr) {
    *failed = Value();
    return nullptr;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].graph_data() == nullptr) {
      *failed = g->Fail(absl::InvalidArgumentError(
          absl::StrFormat("%s: input %d is a default-constructed Value", op, i)));
      return nullptr;
    }
    if (!inputs[i].ok()) {  // An earlier builder failed and recorded why.
      *failed = Value(g, -1);
      return nullptr;
    }
  }
  return g;
}

std::string TypesString(absl::Span<const Value> inputs) {
  std::vector<std::string> parts;
  for (const Value& v : inputs) parts.push_back(v.value_type().ToString());
  return absl::StrJoin(parts, ", ");
}

Value Fail(GraphData* g, absl::string_view op, absl::Span<const Value> inputs,
           absl::string_view why) {
  return g->Fail(
      absl::InvalidArgumentError(absl::StrFormat("%s(%s): %s", op, TypesString(inputs), why)));
}

ValueType Plain(DType dtype, Shape shape) {
  ValueType t;
  t.type = TensorType(dtype, shape);
  t.logical_shape = std::move(shape);
  return t;
}

bool IsPlainF32(const Value& v) { return v.dtype() == DType::kFloat32 && !v.is_quantized(); }
bool IsIndex(const Value& v) {
  return (v.dtype() == DType::kInt32 || v.dtype() == DType::kInt64) && !v.is_quantized();
}

Value Single(GraphData* g, std::string op, std::vector<int> inputs, NodeAttributes attrs,
             ValueType out) {
  return g->AddNode(std::move(op), std::move(inputs), std::move(attrs), {std::move(out)})[0];
}

Value MatmulImpl(Value lhs, Value rhs, bool transposed) {
  const char* op = transposed ? "matmul_transposed" : "matmul";
  Value failed;
  GraphData* g = CommonGraph(op, {lhs, rhs}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(lhs) || !IsPlainF32(rhs)) {
    return Fail(g, op, {lhs, rhs}, "both operands must be plain f32 (use qmatmul for quantized)");
  }
  const Shape& a = lhs.shape();
  const Shape& b = rhs.shape();
  if (a.rank() < 2 || b.rank() < 2) return Fail(g, op, {lhs, rhs}, "operands need rank >= 2");
  const int64_t k = a.dim(-1);
  const int64_t rk = transposed ? b.dim(-1) : b.dim(-2);
  const int64_t n = transposed ? b.dim(-2) : b.dim(-1);
  if (rk != k) {
    return Fail(g, op, {lhs, rhs},
                absl::StrFormat("inner dimensions differ: lhs k=%d, rhs k=%d", k, rk));
  }
  if (b.rank() > 2) {
    std::vector<int64_t> ab(a.dims().begin(), a.dims().end() - 2);
    std::vector<int64_t> bb(b.dims().begin(), b.dims().end() - 2);
    if (ab != bb) {
      return Fail(g, op, {lhs, rhs}, "a batched rhs must have exactly lhs's batch dimensions");
    }
  }
  NodeAttributes attrs;
  attrs.flag = transposed;
  return Single(g, "matmul", {lhs.id(), rhs.id()}, std::move(attrs),
                Plain(DType::kFloat32, a.WithLastDim(n)));
}

Value Binary(const char* op, Value x, Value y) {
  Value failed;
  GraphData* g = CommonGraph(op, {x, y}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(x) || !IsPlainF32(y)) return Fail(g, op, {x, y}, "operands must be plain f32");
  absl::StatusOr<Shape> shape = BroadcastShapes(x.shape(), y.shape());
  if (!shape.ok()) return Fail(g, op, {x, y}, shape.status().message());
  return Single(g, op, {x.id(), y.id()}, {}, Plain(DType::kFloat32, *shape));
}

Value Unary(const char* op, Value x) {
  Value failed;
  GraphData* g = CommonGraph(op, {x}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(x)) return Fail(g, op, {x}, "operand must be plain f32");
  if (x.shape().rank() < 1 && std::string(op) == "softmax") {
    return Fail(g, op, {x}, "operand needs rank >= 1");
  }
  return Single(g, op, {x.id()}, {}, Plain(DType::kFloat32, x.shape()));
}

}  // namespace

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shapes %s and %s do not broadcast (dimension %d: %d vs %d)",
                          a.ToString(), b.ToString(), i, da, db));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

Value Matmul(Value lhs, Value rhs) { return MatmulImpl(lhs, rhs, false); }
Value MatmulTransposed(Value lhs, Value rhs) { return MatmulImpl(lhs, rhs, true); }

Value QMatmul(const QuantizationEncoding& encoding, Value lhs, Value rhs) {
  const char* op = "qmatmul";
  Value failed;
  GraphData* g = CommonGraph(op, {lhs, rhs}, &failed);
  if (g == nullptr) return failed;
  const std::string enc(encoding.name());
  if (!IsPlainF32(lhs)) return Fail(g, op, {lhs, rhs}, "lhs must be plain f32");
  if (lhs.shape().rank() < 1) return Fail(g, op, {lhs, rhs}, "lhs needs rank >= 1");
  if (!rhs.is_quantized() || rhs.dtype() != DType::kUInt8) {
    return Fail(g, op, {lhs, rhs},
                absl::StrFormat("rhs must be a uint8 tensor quantized with %s", enc));
  }
  if (rhs.value_type().encoding != enc) {
    return Fail(g, op, {lhs, rhs},
                absl::StrFormat("rhs is encoded with %s, but the op was given encoding %s",
                                rhs.value_type().encoding, enc));
  }
  const Shape& w = rhs.logical_shape();
  if (w.rank() != 2) {
    return Fail(g, op, {lhs, rhs}, "rhs must have logical shape [n, k]");
  }
  if (w.dim(1) != lhs.shape().dim(-1)) {
    return Fail(g, op, {lhs, rhs},
                absl::StrFormat("lhs k=%d but rhs (logical %s, transposed) has k=%d",
                                lhs.shape().dim(-1), w.ToString(), w.dim(1)));
  }
  if (g->nodes[g->producers[rhs.id()]].op != "constant") {
    return Fail(g, op, {lhs, rhs}, "rhs must be a constant (Graph::Quantize or Constant)");
  }
  NodeAttributes attrs;
  attrs.encoding = enc;
  return Single(g, op, {lhs.id(), rhs.id()}, std::move(attrs),
                Plain(DType::kFloat32, lhs.shape().WithLastDim(w.dim(0))));
}

Value Add(Value a, Value b) { return Binary("add", a, b); }
Value Sub(Value a, Value b) { return Binary("sub", a, b); }
Value Mul(Value a, Value b) { return Binary("mul", a, b); }
Value Div(Value a, Value b) { return Binary("div", a, b); }

Value RmsNorm(Value x, Value weight, float epsilon) {
  const char* op = "rms_norm";
  Value failed;
  GraphData* g = CommonGraph(op, {x, weight}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(x) || !IsPlainF32(weight)) {
    return Fail(g, op, {x, weight}, "operands must be plain f32");
  }
  if (x.shape().rank() < 1 || weight.shape().rank() != 1 ||
      weight.shape().dim(0) != x.shape().dim(-1)) {
    return Fail(g, op, {x, weight}, "weight must be [d] with d the last dimension of x");
  }
  if (!(epsilon >= 0.0f)) return Fail(g, op, {x, weight}, "epsilon must be >= 0");
  NodeAttributes attrs;
  attrs.f = epsilon;
  return Single(g, op, {x.id(), weight.id()}, std::move(attrs), Plain(DType::kFloat32, x.shape()));
}

Value Softmax(Value x) { return Unary("softmax", x); }
Value Silu(Value x) { return Unary("silu", x); }

Value SwiGlu(Value gate, Value up) {
  const char* op = "swiglu";
  Value failed;
  GraphData* g = CommonGraph(op, {gate, up}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(gate) || !IsPlainF32(up)) {
    return Fail(g, op, {gate, up}, "gate and up must be plain f32");
  }
  if (gate.shape() != up.shape()) return Fail(g, op, {gate, up}, "gate and up must have one shape");
  return Single(g, op, {gate.id(), up.id()}, {}, Plain(DType::kFloat32, gate.shape()));
}
Value Gelu(Value x) { return Unary("gelu", x); }

Value Rope(Value x, Value positions, float theta) {
  const char* op = "rope";
  Value failed;
  GraphData* g = CommonGraph(op, {x, positions}, &failed);
  if (g == nullptr) return failed;
  if (!IsPlainF32(x)) return Fail(g, op, {x, positions}, "x must be plain f32");
  if (!IsIndex(positions)) return Fail(g, op, {x, positions}, "positions must be i32 or i64");
  if (x.shape().rank() < 2 || x.shape().dim(-1) % 2 != 0) {
    return Fail(g, op, {x, positions}, "x must be [s, ..., d] with d even");
  }
  if (positions.shape().rank() != 1 || positions.shape().dim(0) != x.shape().dim(0)) {
    return Fail(g, op, {x, positions}, "positions must be [s] with s the first dimension of x");
  }
  if (!(theta > 0.0f)) return Fail(g, op, {x, positions}, "theta must be > 0");
  NodeAttributes attrs;
  attrs.f = theta;
  return Single(g, op, {x.id(), positions.id()}, std::move(attrs),
                Plain(DType::kFloat32, x.shape()));
}

Value Attention(Value q, Value k_cache, Value v_cache, Value k_new, Value v_new, Value positions,
                float scale, int64_t window) {
  const char* op = "attention";
  const std::vector<Value> in = {q, k_cache, v_cache, k_new, v_new, positions};
  Value failed;
  GraphData* g = CommonGraph(op, in, &failed);
  if (g == nullptr) return failed;
  // The caches are f32 or q8_0 rows (plain u8, both alike).
  const bool q8_0 = k_cache.dtype() == DType::kUInt8 && !k_cache.is_quantized();
  for (int i = 0; i < 5; ++i) {
    const bool cache = i == 1 || i == 2;
    const bool ok =
        q8_0 && cache ? in[i].dtype() == DType::kUInt8 && !in[i].is_quantized() : IsPlainF32(in[i]);
    if (!ok || in[i].shape().rank() != 3) {
      return Fail(g, op, in,
                  "q, k_new and v_new must be plain f32 of rank 3, and k_cache and v_cache both "
                  "plain f32 or both q8_0 rows (u8) of rank 3");
    }
  }
  if (positions.dtype() != DType::kInt32 || positions.is_quantized()) {
    return Fail(g, op, in, "positions must be i32");
  }
  const int64_t t = q.shape().dim(0), heads = q.shape().dim(1), hs = q.shape().dim(2);
  const int64_t kvh = k_cache.shape().dim(0), ctx = k_cache.shape().dim(1);
  if (kvh <= 0 || heads % kvh != 0) {
    return Fail(g, op, in, "heads (q's dimension 1) must be a multiple of kv_heads (k_cache's 0)");
  }
  if (q8_0 && hs % 32 != 0) {
    return Fail(g, op, in,
                absl::StrFormat("a q8_0 cache needs head_dim (q's dimension 2, %d) to be a "
                                "multiple of 32",
                                hs));
  }
  const int64_t row = q8_0 ? hs / 32 * 34 : hs;
  if (k_cache.shape() != Shape({kvh, ctx, row}) || v_cache.shape() != k_cache.shape()) {
    return Fail(g, op, in,
                q8_0 ? "k_cache and v_cache must both be [kv_heads, ctx, head_dim / 32 * 34]"
                     : "k_cache and v_cache must both be [kv_heads, ctx, head_dim]");
  }
  if (k_new.shape() != Shape({t, kvh, hs}) || v_new.shape() != k_new.shape()) {
    return Fail(g, op, in, "k_new and v_new must both be [t, kv_heads, head_dim]");
  }
  if (positions.shape() != Shape({t})) return Fail(g, op, in, "positions must be [t]");
  if (!(scale > 0.0f) || !std::isfinite(scale)) return Fail(g, op, in, "scale must be > 0");
  if (window < 0) return Fail(g, op, in, "window must be >= 0 (0: no window)");
  NodeAttributes attrs;
  attrs.f = scale;
  attrs.ints = {window};
  if (q8_0) attrs.encoding = "q8_0";
  std::vector<int> ids;
  for (const Value& v : in) ids.push_back(v.id());
  return Single(g, op, std::move(ids), std::move(attrs),
                Plain(DType::kFloat32, Shape({t, heads * hs})));
}

Value Gather(Value table, Value indices) {
  const char* op = "gather";
  Value failed;
  GraphData* g = CommonGraph(op, {table, indices}, &failed);
  if (g == nullptr) return failed;
  if (!IsIndex(indices)) return Fail(g, op, {table, indices}, "indices must be i32 or i64");
  const Shape& t = table.logical_shape();
  if (t.rank() != 2) return Fail(g, op, {table, indices}, "table must be [v, d]");
  if (!table.is_quantized() && table.dtype() != DType::kFloat32) {
    return Fail(g, op, {table, indices}, "table must be f32 or quantized");
  }
  NodeAttributes attrs;
  attrs.encoding = table.value_type().encoding;
  std::vector<int64_t> dims = indices.shape().dims();
  dims.push_back(t.dim(1));
  return Single(g, op, {table.id(), indices.id()}, std::move(attrs),
                Plain(DType::kFloat32, Shape(std::move(dims))));
}

Value Reshape(Value x, std::vector<int64_t> shape) {
  const char* op = "reshape";
  Value failed;
  GraphData* g = CommonGraph(op, {x}, &failed);
  if (g == nullptr) return failed;
  const std::string target = absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
  if (x.is_quantized()) return Fail(g, op, {x}, "cannot reshape a quantized value");
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return Fail(g, op, {x}, absl::StrCat("bad target shape ", target));
    } else {
      known *= shape[i];
    }
  }
  const int64_t total = x.shape().num_elements();
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return Fail(g, op, {x}, absl::StrCat("cannot infer -1 in target shape ", target));
    }
    shape[infer] = total / known;
    known = total;
  }
  if (known != total) {
    return Fail(
        g, op, {x},
        absl::StrFormat("target shape %s holds %d elements, the input %d", target, known, total));
  }
  NodeAttributes attrs;
  attrs.ints = shape;
  return Single(g, op, {x.id()}, std::move(attrs), Plain(x.dtype(), Shape(shape)));
}

Value Transpose(Value x, std::vector<int64_t> perm) {
  const char* op = "transpose";
  Value failed;
  GraphData* g = CommonGraph(op, {x}, &failed);
  if (g == nullptr) return failed;
  if (x.is_quantized()) return Fail(g, op, {x}, "cannot transpose a quantized value");
  const int rank = x.shape().rank();
  std::vector<bool> seen(rank, false);
  bool ok = static_cast<int>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) ok = false;
    if (ok) seen[perm[i]] = true;
  }
  if (!ok) {
    return Fail(g, op, {x},
                absl::StrFormat("[%s] is not a permutation of %d dimensions",
                                absl::StrJoin(perm, ", "), rank));
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) dims[i] = x.shape().dim(static_cast<int>(perm[i]));
  NodeAttributes attrs;
  attrs.ints = perm;
  return Single(g, op, {x.id()}, std::move(attrs), Plain(x.dtype(), Shape(std::move(dims))));
}

Value Slice(Value x, std::vector<int64_t> starts, std::vector<int64_t> ends) {
  const char* op = "slice";
  Value failed;
  GraphData* g = CommonGraph(op, {x}, &failed);
  if (g == nullptr) return failed;
  if (x.is_quantized()) return Fail(g, op, {x}, "cannot slice a quantized value");
  const int rank = x.shape().rank();
  if (static_cast<int>(starts.size()) != rank || static_cast<int>(ends.size()) != rank) {
    return Fail(g, op, {x},
                absl::StrFormat("need %d starts and ends, got %d and %d", rank, starts.size(),
                                ends.size()));
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (starts[i] < 0 || starts[i] > ends[i] || ends[i] > x.shape().dim(i)) {
      return Fail(g, op, {x},
                  absl::StrFormat("dimension %d: [%d, %d) is not inside [0, %d]", i, starts[i],
                                  ends[i], x.shape().dim(i)));
    }
    dims[i] = ends[i] - starts[i];
  }
  NodeAttributes attrs;
  attrs.ints = std::move(starts);
  attrs.ints2 = std::move(ends);
  return Single(g, op, {x.id()}, std::move(attrs), Plain(x.dtype(), Shape(std::move(dims))));
}

Value Concat(absl::Span<const Value> values, int64_t axis) {
  const char* op = "concat";
  Value failed;
  GraphData* g = CommonGraph(op, values, &failed);
  if (g == nullptr) return failed;
  const Value& first = values[0];
  const int rank = first.shape().rank();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    return Fail(g, op, values, absl::StrFormat("axis %d is out of range for rank %d", axis, rank));
  }
  std::vector<int64_t> dims = first.shape().dims();
  dims[axis] = 0;
  std::vector<int> ids;
  for (const Value& v : values) {
    if (v.is_quantized() || v.dtype() != first.dtype() || v.shape().rank() != rank) {
      return Fail(g, op, values, "values must be plain tensors of one dtype and rank");
    }
    for (int i = 0; i < rank; ++i) {
      if (i != axis && v.shape().dim(i) != first.shape().dim(i)) {
        return Fail(g, op, values,
                    absl::StrFormat("dimension %d differs outside axis %d", i, axis));
      }
    }
    dims[axis] += v.shape().dim(static_cast<int>(axis));
    ids.push_back(v.id());
  }
  NodeAttributes attrs;
  attrs.axis = axis;
  return Single(g, op, std::move(ids), std::move(attrs),
                Plain(first.dtype(), Shape(std::move(dims))));
}

std::vector<Value> Custom(absl::string_view name, absl::Span<const Value> inputs,
                          std::vector<TensorType> output_types) {
  const std::string op = absl::StrCat("custom ", name);
  Value failed;
  GraphData* g = CommonGraph(op, inputs, &failed);
  auto fail_all = [&](Value v) { return std::vector<Value>(output_types.size(), v); };
  if (g == nullptr) return fail_all(failed);
  if (name.empty() || output_types.empty()) {
    return fail_all(Fail(g, op, inputs, "needs a name and at least one output type"));
  }
  std::vector<ValueType> outs;
  for (const TensorType& t : output_types) {
    absl::Status s = t.shape.Validate();
    if (!s.ok()) return fail_all(Fail(g, op, inputs, s.message()));
    outs.push_back(Plain(t.dtype, t.shape));
  }
  std::vector<int> ids;
  for (const Value& v : inputs) ids.push_back(v.id());
  return g->AddNode(std::string(name), std::move(ids), {}, std::move(outs), /*custom=*/true);
}

}  // namespace ops
}  // namespace edgeq
