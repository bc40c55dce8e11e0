// Op "moe": a routed mixture-of-experts SwiGLU feed-forward (llama.cpp's build_moe_ffn with a
// gate, an up and a down projection per expert and the weighted sum of the routed experts) over a
// block of t rows of which the first n are real.
//   inputs  x       f32 [t, d]        the normed hidden states
//           logits  f32 [t, e]        router logits (x · ffn_gate_inp^T, computed by the graph)
//           gate    [e, f, d]         expert gate projections (ffn_gate_exps): a quantized
//           up      [e, f, d]         constant of any encoding with a qmatmul kernel, or a plain
//           down    [e, d, f]         f32 constant; the three may differ in encoding
//           n       i32 [1]           real rows (0 <= n <= t)
//           bias    f32 [e]           (optional) expert bias added to the gating probabilities
//                                     for the choice only (lfm2moe's exp_probs_b)
//   output  y       f32 [t, d]        rows >= n are zero
// Per real row: p = softmax(logits) or sigmoid(logits); the k experts of the largest p + bias
// (ties: the lower expert index first; llama.cpp's argsort is std::sort, whose order of exactly
// equal scores is unspecified); w_i = p of expert i, divided by max(sum w, 2^-14) when
// normalize is set, times scale; y = sum_i w_i down_i(silu(gate_i x) * up_i x).
// Attributes: gating ("softmax" | "sigmoid"), k (1 <= k <= e), normalize (0 | 1, default 1),
// scale (number > 0, default 1).
//
// The real rows are grouped by expert: each used expert's rows are gathered, multiplied by its
// three matrices once and scattered back with their weights. Each expert input is one qmatmul
// kernel over its e matrices stacked (the same kernels as op qmatmul on every ISA, repacked at
// Load into one allocation, so large enough for huge pages) when their rows are a multiple of 16,
// else one kernel per expert. The used experts run in groups of up to max(t, k) rows, the gate
// and up matrices of a group in one dispatch of the pool (QMatmulKernel::RunBlocks, each
// expert's gate block beside its up block on the same quantized rows), the down ones in a
// second: a decode step (n = 1) reads the weights of its k experts only, in two dispatches, its
// row quantized once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "core/parallel.h"
#include "runtime/kernels/qmatmul.h"
#include "runtime/kernels/vector/activation.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kMoeOpName[] = "moe";
// llama.cpp's clamp of the sum of the routed weights (the smallest normal fp16).
constexpr float kMinWeightSum = 6.103515625e-5f;

struct MoeAttributes : OpAttributes {
  bool sigmoid = false;
  int64_t k = 0;
  bool normalize = true;
  float scale = 1.0f;
  std::vector<std::string> Describe() const override {
    return {absl::StrCat("gating=", sigmoid ? "sigmoid" : "softmax"), absl::StrCat("k=", k),
            absl::StrCat("normalize=", normalize ? 1 : 0), absl::StrFormat("scale=%g", scale)};
  }
};

struct MoeDims {
  int64_t t, d, e, f, k;
};

// One input's e expert matrices [rows, cols]: one qmatmul kernel over all of them stacked
// ([e x rows, cols], repacked into one allocation; rows a multiple of 16), else one kernel per
// expert, or plain f32 rows.
struct ExpertMatrices {
  std::shared_ptr<const kernels::QMatmulKernel> stacked;
  std::vector<std::shared_ptr<const kernels::QMatmulKernel>> each;
  const float* f32 = nullptr;
  int64_t rows = 0, cols = 0;
  const kernels::QMatmulKernel* any() const {
    return stacked != nullptr ? stacked.get() : each.empty() ? nullptr : each[0].get();
  }
};

using Block = kernels::QMatmulKernel::Block;

// y[m, rows] = x[m, cols] · W^T for f32 W, 16 partial sums per dot product.
void F32Matmul(const float* w, int64_t rows, int64_t cols, int64_t m, const float* x, float* y,
               pthreadpool_t pool) {
  ParallelFor(pool, static_cast<size_t>(rows), 16, m * rows * cols, [&](size_t b, size_t c) {
    for (int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * cols;
      for (size_t j = b; j < b + c; ++j) {
        const float* wj = w + j * cols;
        float part[16] = {};
        int64_t l = 0;
        for (; l + 16 <= cols; l += 16) {
          for (int q = 0; q < 16; ++q) part[q] += xi[l + q] * wj[l + q];
        }
        for (; l < cols; ++l) part[l % 16] += xi[l] * wj[l];
        float sum = 0.0f;
        for (float p : part) sum += p;
        y[i * rows + j] = sum;
      }
    }
  });
}

// Each block's y = x · W_index^T (x rows `cols` apart, y rows `rows` apart): one dispatch over
// all blocks for a stacked kernel, else block by block.
void RunMatrix(const ExpertMatrices& w, absl::Span<const Block> blocks, void* scratch,
               pthreadpool_t pool) {
  if (w.stacked != nullptr) {
    w.stacked->RunBlocks(w.rows, blocks, w.cols, w.rows, scratch, pool);
    return;
  }
  for (const Block& b : blocks) {
    if (!w.each.empty()) {
      w.each[static_cast<size_t>(b.index)]->Run(b.m, b.x, w.cols, b.y, w.rows, scratch, pool);
    } else {
      F32Matmul(w.f32 + b.index * w.rows * w.cols, w.rows, w.cols, b.m, b.x, b.y, pool);
    }
  }
}

// The routing of one row: its k experts (descending score, ties by index) and their weights.
void RouteRow(const MoeAttributes& a, const float* logits, const float* bias, int64_t e,
              float* probs, int32_t* order, int32_t* experts, float* weights) {
  if (a.sigmoid) {
    for (int64_t j = 0; j < e; ++j) probs[j] = 1.0f / (1.0f + std::exp(-logits[j]));
  } else {
    float mx = logits[0];
    for (int64_t j = 1; j < e; ++j) mx = std::max(mx, logits[j]);
    double sum = 0.0;
    for (int64_t j = 0; j < e; ++j) {
      probs[j] = std::exp(logits[j] - mx);
      sum += probs[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < e; ++j) probs[j] *= inv;
  }
  for (int64_t j = 0; j < e; ++j) order[j] = static_cast<int32_t>(j);
  auto score = [&](int32_t j) { return bias != nullptr ? probs[j] + bias[j] : probs[j]; };
  std::partial_sort(order, order + a.k, order + e, [&](int32_t x, int32_t y) {
    const float sx = score(x), sy = score(y);
    return sx > sy || (sx == sy && x < y);
  });
  float sum = 0.0f;
  for (int64_t i = 0; i < a.k; ++i) {
    experts[i] = order[i];
    weights[i] = probs[order[i]];
    sum += weights[i];
  }
  const float div = a.normalize ? std::max(sum, kMinWeightSum) : 1.0f;
  for (int64_t i = 0; i < a.k; ++i) weights[i] = weights[i] / div * a.scale;
}

// Scratch layout (floats / ints): routing for t rows, then the rows of a group of experts (at
// most r = max(t, k) routed rows together).
struct MoeScratch {
  float* probs;     // [e]
  int32_t* order;   // [e]
  int32_t* expert;  // [t, k] routed expert of each (row, slot)
  float* weight;    // [t, k]
  int32_t* count;   // [e + 1] rows per expert, then prefix offsets
  int32_t* slots;   // [t k] (row, slot) pairs sorted by expert, as row * k + slot
  Block* blocks;    // [min(e, r)] the group's experts
  Block* pairs;     // [2 min(e, r)] their gate and up blocks (when those run in one dispatch)
  float* xs;        // [r, d] gathered rows
  float* g;         // [r, f]
  float* u;         // [r, f]
  float* y;         // [r, d]
  void* kernel;     // qmatmul scratch
};

size_t Align64(size_t b) { return (b + 63) / 64 * 64; }

class MoeKernel : public OpKernel {
 public:
  MoeKernel(std::vector<int> in, int out, MoeDims d, MoeAttributes a,
            std::vector<ExpertMatrices> mats, size_t kernel_scratch,
            const kernels::ActivationKernel* act)
      : in_(std::move(in)),
        out_(out),
        d_(d),
        a_(a),
        mats_(std::move(mats)),
        kernel_scratch_(kernel_scratch),
        act_(act),
        fused_(GateUpFused(mats_)) {}

  // Whether the gate and up products run in one dispatch: both stacked (RunBlocks over either
  // reads the other's blocks).
  static bool GateUpFused(const std::vector<ExpertMatrices>& mats) {
    return mats[0].stacked != nullptr && mats[1].stacked != nullptr;
  }

  absl::Status Run(const ExecContext& ctx) override {
    const int32_t n = *Data<int32_t>(ctx, in_[5]);
    if (n < 0 || n > d_.t) {
      return absl::OutOfRangeError(
          absl::StrFormat("moe: real row count n is %d; expected 0 <= n <= %d", n, d_.t));
    }
    float* out = Data(ctx, out_);
    std::memset(out, 0, sizeof(float) * d_.t * d_.d);
    const MoeScratch s = Layout(ctx.scratch);
    Route(ctx, n, s);
    const float* x = Data(ctx, in_[0]);
    // The used experts in index order, in groups of at most GroupRows() rows (an expert has at
    // most t <= GroupRows()).
    int64_t e = 0;
    while (e < d_.e) {
      int64_t count = 0, rows = 0;
      for (; e < d_.e; ++e) {
        const int64_t m = s.count[e + 1] - s.count[e];
        if (m == 0) continue;
        if (rows + m > GroupRows()) break;
        s.blocks[count++] = Block{e, m, nullptr, nullptr};
        rows += m;
      }
      if (count == 0) break;
      RunGroup(ctx, x, s, absl::MakeSpan(s.blocks, static_cast<size_t>(count)), out);
    }
    return absl::OkStatus();
  }

  size_t ScratchBytes() const override {
    return static_cast<size_t>(reinterpret_cast<uintptr_t>(Layout(nullptr).kernel)) +
           kernel_scratch_;
  }
  std::string name() const override {
    const kernels::QMatmulKernel* k = mats_[0].any();
    return k != nullptr ? absl::StrCat("moe_", k->kernel_name(d_.t)) : std::string("moe_f32");
  }
  bool CopiesConstantInput(int position) const override {
    if (position < 2 || position > 4) return false;
    const ExpertMatrices& m = mats_[static_cast<size_t>(position - 2)];
    if (m.stacked != nullptr) return m.stacked->holds_weight_copy();
    if (m.each.empty()) return false;
    for (const auto& k : m.each) {
      if (!k->holds_weight_copy()) return false;
    }
    return true;
  }

 private:
  int64_t GroupRows() const { return std::max(d_.t, d_.k); }

  MoeScratch Layout(void* base) const {
    // Integer offsets from `base` (null: the layout's size, in ScratchBytes).
    uintptr_t p = reinterpret_cast<uintptr_t>(base);
    auto take = [&p](size_t bytes) {
      char* r = reinterpret_cast<char*>(p);
      p += Align64(bytes);
      return r;
    };
    const size_t tk = static_cast<size_t>(d_.t * d_.k);
    const int64_t r = GroupRows();
    MoeScratch s;
    s.probs = reinterpret_cast<float*>(take(sizeof(float) * d_.e));
    s.order = reinterpret_cast<int32_t*>(take(sizeof(int32_t) * d_.e));
    s.expert = reinterpret_cast<int32_t*>(take(sizeof(int32_t) * tk));
    s.weight = reinterpret_cast<float*>(take(sizeof(float) * tk));
    s.count = reinterpret_cast<int32_t*>(take(sizeof(int32_t) * (d_.e + 1)));
    s.slots = reinterpret_cast<int32_t*>(take(sizeof(int32_t) * tk));
    s.blocks = reinterpret_cast<Block*>(take(sizeof(Block) * std::min(d_.e, r)));
    s.pairs = reinterpret_cast<Block*>(take(fused_ ? sizeof(Block) * 2 * std::min(d_.e, r) : 0));
    s.xs = reinterpret_cast<float*>(take(sizeof(float) * r * d_.d));
    s.g = reinterpret_cast<float*>(take(sizeof(float) * r * d_.f));
    s.u = reinterpret_cast<float*>(take(sizeof(float) * r * d_.f));
    s.y = reinterpret_cast<float*>(take(sizeof(float) * r * d_.d));
    s.kernel = reinterpret_cast<char*>(p);
    return s;
  }

  // Routes the n real rows and lists their (row, slot) pairs by expert (a counting sort: rows in
  // order within an expert).
  void Route(const ExecContext& ctx, int32_t n, const MoeScratch& s) const {
    const float* logits = Data(ctx, in_[1]);
    const float* bias = in_.size() > 6 ? Data(ctx, in_[6]) : nullptr;
    std::fill(s.count, s.count + d_.e + 1, 0);
    for (int32_t r = 0; r < n; ++r) {
      RouteRow(a_, logits + r * d_.e, bias, d_.e, s.probs, s.order, s.expert + r * d_.k,
               s.weight + r * d_.k);
      for (int64_t i = 0; i < d_.k; ++i) ++s.count[s.expert[r * d_.k + i] + 1];
    }
    for (int64_t e = 0; e < d_.e; ++e) s.count[e + 1] += s.count[e];
    // s.order (e ints) is free again: the fill position of each expert.
    std::copy(s.count, s.count + d_.e, s.order);
    for (int32_t r = 0; r < n; ++r) {
      for (int64_t i = 0; i < d_.k; ++i) {
        const int32_t e = s.expert[r * d_.k + i];
        s.slots[s.order[e]++] = static_cast<int32_t>(r * d_.k + i);
      }
    }
  }

  // The gate products of `blocks` into s.g (where their y point) and the up ones into s.u: one
  // dispatch over both stacked matrices, each expert's gate block beside its up block (so that
  // they share the quantized rows), else one dispatch each.
  void GateUp(const ExecContext& ctx, const MoeScratch& s, absl::Span<Block> blocks) const {
    if (fused_) {
      Block* p = s.pairs;
      for (const Block& b : blocks) {
        *p++ = b;
        *p++ = Block{b.index, b.m, b.x, s.u + (b.y - s.g), mats_[1].stacked.get()};
      }
      mats_[0].stacked->RunBlocks(d_.f, absl::MakeConstSpan(s.pairs, 2 * blocks.size()), d_.d, d_.f,
                                  s.kernel, ctx.pool);
      return;
    }
    RunMatrix(mats_[0], blocks, s.kernel, ctx.pool);
    for (Block& b : blocks) b.y = s.u + (b.y - s.g);
    RunMatrix(mats_[1], blocks, s.kernel, ctx.pool);
  }

  // A group of experts over their (row, slot) pairs: gather (a one-row expert reads its row of x
  // in place, so that a decode step's experts share one quantized copy), gate and up, SwiGLU,
  // down, weighted add (expert by expert, rows in order: the same sums as one expert at a time).
  void RunGroup(const ExecContext& ctx, const float* x, const MoeScratch& s,
                absl::Span<Block> blocks, float* out) const {
    const int64_t d = d_.d, f = d_.f;
    int64_t r = 0;
    for (Block& b : blocks) {
      const int32_t* slots = s.slots + s.count[b.index];
      if (b.m == 1) {
        b.x = x + (slots[0] / d_.k) * d;
      } else {
        for (int64_t i = 0; i < b.m; ++i) {
          std::memcpy(s.xs + (r + i) * d, x + (slots[i] / d_.k) * d, sizeof(float) * d);
        }
        b.x = s.xs + r * d;
      }
      b.y = s.g + r * f;
      r += b.m;
    }
    GateUp(ctx, s, blocks);
    // SwiGLU by the ISA's activation kernel, as the dense FFN's op "swiglu" (on the pool for a
    // prefill block's rows).
    const auto swiglu = act_->swiglu;
    ParallelFor(ctx.pool, static_cast<size_t>(r * f), 4096, 4 * r * f, [&](size_t b, size_t c) {
      swiglu(s.g + b, s.u + b, s.g + b, static_cast<int64_t>(c));
    });
    r = 0;
    for (Block& b : blocks) {
      b.x = s.g + r * f;
      b.y = s.y + r * d;
      r += b.m;
    }
    RunMatrix(mats_[2], blocks, s.kernel, ctx.pool);
    for (const Block& b : blocks) {
      const int32_t* slots = s.slots + s.count[b.index];
      for (int64_t i = 0; i < b.m; ++i) {
        const float w = s.weight[slots[i]];
        float* o = out + (slots[i] / d_.k) * d;
        const float* yi = b.y + i * d;
        for (int64_t j = 0; j < d; ++j) o[j] += w * yi[j];
      }
    }
  }

  std::vector<int> in_;
  int out_;
  MoeDims d_;
  MoeAttributes a_;
  std::vector<ExpertMatrices> mats_;  // gate, up, down
  size_t kernel_scratch_;
  const kernels::ActivationKernel* act_;
  bool fused_;  // GateUpFused(mats_)
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"gating", "k", "normalize", "scale"};
  if (absl::Status s = CheckAttributeKeys(kMoeOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::string> gating = GetStringAttribute(kMoeOpName, map, "gating", "");
  if (!gating.ok()) return gating.status();
  if (*gating != "softmax" && *gating != "sigmoid") {
    return Invalid(
        absl::StrFormat("moe: attribute gating is '%s'; expected softmax or sigmoid", *gating));
  }
  absl::StatusOr<int64_t> k = GetIntAttribute(kMoeOpName, map, "k", 0);
  if (!k.ok()) return k.status();
  absl::StatusOr<int64_t> normalize = GetIntAttribute(kMoeOpName, map, "normalize", 1);
  if (!normalize.ok()) return normalize.status();
  absl::StatusOr<double> scale = GetRealAttribute(kMoeOpName, map, "scale", 1.0);
  if (!scale.ok()) return scale.status();
  if (*k < 1) return Invalid(absl::StrFormat("moe: attribute k is %d; expected at least 1", *k));
  if (*normalize != 0 && *normalize != 1) {
    return Invalid(absl::StrFormat("moe: attribute normalize is %d; expected 0 or 1", *normalize));
  }
  if (!(*scale > 0.0) || !std::isfinite(*scale)) {
    return Invalid(
        absl::StrFormat("moe: attribute scale is %g; expected a finite number > 0", *scale));
  }
  auto attrs = std::make_shared<MoeAttributes>();
  attrs->sigmoid = *gating == "sigmoid";
  attrs->k = *k;
  attrs->normalize = *normalize == 1;
  attrs->scale = static_cast<float>(*scale);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

// An expert weight input: plain f32 or quantized, logical [e, rows, cols], a constant.
absl::Status CheckExperts(const InferInput& in, int i, const char* name, int64_t e, int64_t rows,
                          int64_t cols) {
  const ValueType& w = in.types[i];
  const Shape want({e, rows, cols});
  if (!(IsPlainF32(w) || (w.is_quantized() && w.type.dtype == DType::kUInt8)) ||
      w.logical_shape != want) {
    return Invalid(absl::StrFormat("%s must be f32 or quantized of logical shape %s, not %s", name,
                                   want.ToString(), w.ToString()));
  }
  if (!in.is_constant[i]) return Invalid(absl::StrFormat("%s must be a constant", name));
  return absl::OkStatus();
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const auto& a = static_cast<const MoeAttributes&>(attributes);
  if (!IsPlainF32(in.types[0]) || !IsPlainF32(in.types[1])) {
    return Invalid("x and logits must be plain f32");
  }
  const Shape& x = in.types[0].type.shape;
  const Shape& logits = in.types[1].type.shape;
  if (x.rank() != 2 || logits.rank() != 2 || logits.dim(0) != x.dim(0)) {
    return Invalid("x must be [t, d] and logits [t, experts]");
  }
  const int64_t d = x.dim(1), e = logits.dim(1);
  if (e < a.k) {
    return Invalid(absl::StrFormat("k=%d experts per row but logits have %d experts", a.k, e));
  }
  const Shape& gate = in.types[2].logical_shape;
  if (gate.rank() != 3) return Invalid("gate must have logical shape [experts, f, d]");
  const int64_t f = gate.dim(1);
  if (absl::Status s = CheckExperts(in, 2, "gate", e, f, d); !s.ok()) return s;
  if (absl::Status s = CheckExperts(in, 3, "up", e, f, d); !s.ok()) return s;
  if (absl::Status s = CheckExperts(in, 4, "down", e, d, f); !s.ok()) return s;
  const ValueType& n = in.types[5];
  if (n.type.dtype != DType::kInt32 || n.is_quantized() || n.type.shape != Shape({1})) {
    return Invalid("n must be i32 [1]");
  }
  if (in.types.size() > 6 && (!IsPlainF32(in.types[6]) || in.types[6].type.shape != Shape({e}))) {
    return Invalid(absl::StrFormat("bias must be f32 [%d]", e));
  }
  return One(Plain(DType::kFloat32, x));
}

// The kernels of input i's e expert matrices [rows, cols] (or their f32 rows), and the most
// scratch they need for `rows_at_once` rows in up to `blocks` blocks.
absl::Status AddMatrices(const KernelArgs& a, int i, int64_t rows_at_once, int64_t blocks,
                         std::vector<ExpertMatrices>* mats, size_t* scratch) {
  const ValueType& w = a.in_type(i);
  const Tensor* tensor = a.constant(i);
  if (tensor == nullptr) return Invalid("moe: the expert weights must be constants");
  const int64_t e = w.logical_shape.dim(0);
  ExpertMatrices m;
  m.rows = w.logical_shape.dim(1);
  m.cols = w.logical_shape.dim(2);
  const absl::Span<const uint8_t> all = tensor->bytes();
  if (!w.is_quantized()) {
    m.f32 = reinterpret_cast<const float*>(all.data());
    mats->push_back(std::move(m));
    return absl::OkStatus();
  }
  const internal::KernelEnv& env = a.env;
  kernels::QMatmulKernel::WeightsReadFn on_read = nullptr;
  if (env.on_constant_bytes_read) {
    on_read = [&env](const uint8_t* p, size_t bytes) { env.on_constant_bytes_read(p, bytes); };
  }
  auto create = [&](int64_t rows, absl::Span<const uint8_t> bytes) {
    if (env.weight_cache != nullptr) {
      return env.weight_cache->GetOrCreate(w.encoding, rows, m.cols, bytes, env.isa_cap, on_read,
                                           env.pool);
    }
    absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> k =
        kernels::QMatmulKernel::Create(w.encoding, rows, m.cols, bytes, env.isa_cap, on_read,
                                       env.pool);
    return k;
  };
  // Rows in whole groups of 16: every expert in one stacked kernel (one allocation).
  const bool stacked = m.rows % 16 == 0;
  const size_t per = all.size() / static_cast<size_t>(e);
  for (int64_t x = 0; x < (stacked ? 1 : e); ++x) {
    absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> kernel =
        stacked ? create(e * m.rows, all)
                : create(m.rows, all.subspan(static_cast<size_t>(x) * per, per));
    if (!kernel.ok()) {
      return absl::Status(
          kernel.status().code(),
          absl::StrFormat("moe: %s of %s: %s",
                          stacked ? std::string("experts") : absl::StrCat("expert ", x),
                          w.ToString(), kernel.status().message()));
    }
    if (stacked) {
      *scratch = std::max(*scratch, (*kernel)->BlocksScratchBytes(rows_at_once, blocks));
      m.stacked = *std::move(kernel);
    } else {
      *scratch = std::max(*scratch, (*kernel)->ScratchBytes(a.in_shape(0).dim(0)));
      m.each.push_back(*std::move(kernel));
    }
  }
  mats->push_back(std::move(m));
  return absl::OkStatus();
}

KernelOr Create(const KernelArgs& a) {
  const Shape& x = a.in_shape(0);
  const Shape& gate = a.in_type(2).logical_shape;
  const auto& attrs = a.node.attributes<MoeAttributes>();
  const MoeDims d{x.dim(0), x.dim(1), gate.dim(0), gate.dim(1), attrs.k};
  const int64_t rows = std::max(d.t, d.k);
  std::vector<ExpertMatrices> mats;
  size_t scratch = 0;
  for (int i = 2; i <= 4; ++i) {
    // The gate and up blocks may run in one RunBlocks (MoeKernel::GateUp): twice the rows.
    const int64_t times = i < 4 ? 2 : 1;
    if (absl::Status s =
            AddMatrices(a, i, times * rows, times * std::min(d.e, rows), &mats, &scratch);
        !s.ok()) {
      return s;
    }
  }
  std::vector<int> in;
  for (size_t i = 0; i < a.node.inputs.size(); ++i) in.push_back(a.in(static_cast<int>(i)));
  return Make(new MoeKernel(std::move(in), a.out(), d, attrs, std::move(mats), scratch,
                            &kernels::SelectActivationKernel(a.env.isa_cap)));
}

constexpr const char* kAttributeNames[] = {"gating", "k", "normalize", "scale"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kMoeOpName;
  def.min_inputs = 6;
  def.max_inputs = 7;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(moe, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
