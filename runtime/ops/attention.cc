// Op "attention": causal self-attention of a block of t query rows over a key/value cache and the
// block's own keys/values (graph/ops.h, ops::Attention, documents the inputs).
//   attributes scale (number > 0), window (integer >= 0, default 0: no window) and kv_cache (the
//   caches' type, a typed enum: "f32", default, "q8_0": u8 rows of GGML block_q8_0, or "f16": f16
//   rows, GGML's fp16) and store_kv (0, default, or 1: the block's k_new/v_new rows are also
//   written into the caches at their positions, encoded as the cache is (q8_0 by GGML's
//   quantize_row_q8_0, f16 rounded to nearest even as GGML's fp32-to-fp16); the caches are then
//   inputs written in place). With an encoded cache the block's own rows are read as the cache
//   holds them (RoundNewRows).
// The work is split into tasks over the (kv head, tile of query rows) groups, each task with its
// own slice of the scratch buffer for its scores; the ISA's kernel does a group
// (runtime/kernels/attention/attention.h).
#include "runtime/kernels/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "quantization/internal/codecs.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kAttentionOpName[] = "attention";

enum class KvCacheType { kF32, kQ8_0, kF16 };
constexpr KvCacheType kKvCacheTypes[] = {KvCacheType::kF32, KvCacheType::kQ8_0, KvCacheType::kF16};
constexpr const char* kKvCacheTypeNames[] = {"f32", "q8_0", "f16"};
constexpr int kNumKvCacheTypes = 3;

struct AttentionAttributes : OpAttributes {
  float scale = 1.0f;
  int64_t window = 0;
  KvCacheType kv_cache = KvCacheType::kF32;
  bool store_kv = false;
  std::vector<std::string> Describe() const override {
    std::vector<std::string> parts = {absl::StrFormat("scale=%g", scale)};
    if (window > 0) parts.push_back(absl::StrCat("window=", window));
    if (kv_cache != KvCacheType::kF32) {
      parts.push_back(absl::StrCat("kv_cache=", kKvCacheTypeNames[static_cast<int>(kv_cache)]));
    }
    if (store_kv) parts.push_back("store_kv=1");
    return parts;
  }
};

class AttentionKernel : public OpKernel {
 public:
  AttentionKernel(std::vector<int> in, int out, kernels::AttentionArgs shape, KvCacheType cache,
                  bool store_kv, int64_t slots, const kernels::AttentionKernel* kernel)
      : in_(std::move(in)),
        out_(out),
        shape_(shape),
        cache_(cache),
        store_kv_(store_kv),
        slots_(slots),
        kernel_(kernel) {}

  absl::Status Run(const ExecContext& ctx) override {
    kernels::AttentionArgs a = shape_;
    const int32_t* positions = Data<int32_t>(ctx, in_[5]);
    a.pos = a.t > 0 ? positions[0] : 0;
    if (a.pos < 0 || a.pos > a.ctx) {
      return absl::OutOfRangeError(
          absl::StrFormat("attention: position %d is outside the cache's [0, %d]", a.pos, a.ctx));
    }
    for (int64_t i = 1; i < a.t; ++i) {
      if (positions[i] != a.pos + i) {
        return absl::OutOfRangeError(absl::StrFormat(
            "attention: positions must be consecutive; positions[%d] is %d, expected %d", i,
            positions[i], a.pos + i));
      }
    }
    a.q = Data(ctx, in_[0]);
    if (cache_ == KvCacheType::kQ8_0) {
      a.k_cache_q8_0 = Data<uint8_t>(ctx, in_[1]);
      a.v_cache_q8_0 = Data<uint8_t>(ctx, in_[2]);
    } else if (cache_ == KvCacheType::kF16) {
      a.k_cache_f16 = Data<uint16_t>(ctx, in_[1]);
      a.v_cache_f16 = Data<uint16_t>(ctx, in_[2]);
    } else {
      a.k_cache = Data(ctx, in_[1]);
      a.v_cache = Data(ctx, in_[2]);
    }
    const float* k_new = Data(ctx, in_[3]);
    const float* v_new = Data(ctx, in_[4]);
    a.k_new = k_new;
    a.v_new = v_new;
    if (cache_ != KvCacheType::kF32) RoundNewRows(ctx, &a);  // stores them too (store_kv)
    a.out = Data(ctx, out_);
    RunGroups(ctx, a);
    if (store_kv_ && cache_ == KvCacheType::kF32) StoreRows(ctx, a, k_new, v_new);
    return absl::OkStatus();
  }
  std::vector<int> InPlaceInputs() const override {
    return store_kv_ ? std::vector<int>{1, 2} : std::vector<int>{};
  }
  // q's rows of a (kv head, row tile) group are read before the group writes the same rows of the
  // output ([t, heads * head_dim]: q's layout), and no other group reads them.
  int OverwritableInput() const override { return 0; }
  std::string name() const override {
    if (cache_ == KvCacheType::kF32) return std::string(kernel_->name);
    return absl::StrCat(kernel_->name, "_", kKvCacheTypeNames[static_cast<int>(cache_)], "_cache");
  }
  size_t ScratchBytes() const override {
    return (static_cast<size_t>(slots_) * SlotFloats() + RoundedFloats()) * sizeof(float);
  }

 private:
  void RunGroups(const ExecContext& ctx, const kernels::AttentionArgs& a) const {
    // Groups: (kv head, tile of up to kAttentionTileRows consecutive query rows).
    const int64_t tiles = (a.t + kernels::kAttentionTileRows - 1) / kernels::kAttentionTileRows;
    const int64_t groups = a.kv_heads * tiles;
    if (groups == 0) return;
    const int64_t slots = std::min(slots_, groups);
    const int64_t per_slot = (groups + slots - 1) / slots;
    const size_t slot_floats = SlotFloats();
    float* scratch = static_cast<float*>(ctx.scratch);
    const kernels::AttentionGroupFn group = kernel_->group;
    const int64_t work = MatmulWork(2 * a.heads * a.t * (a.pos + a.t) * a.head_dim) * 4;
    ParallelFor(ctx.pool, static_cast<size_t>(slots), 1, work, [&](size_t s, size_t c) {
      for (size_t slot = s; slot < s + c; ++slot) {
        float* scores = scratch + slot * slot_floats;
        const int64_t end = std::min(groups, static_cast<int64_t>(slot + 1) * per_slot);
        for (int64_t gi = static_cast<int64_t>(slot) * per_slot; gi < end; ++gi) {
          const int64_t row0 = (gi % tiles) * kernels::kAttentionTileRows;
          group(a, gi / tiles, row0, std::min(kernels::kAttentionTileRows, a.t - row0), scores);
        }
      }
    });
  }

  // With an encoded cache, the block's own K and V rows as the cache holds them (each row encoded
  // and decoded back, into the scratch after the groups' slots): every row the groups read then has
  // the cache's precision, as a later step that finds it in the cache reads it, so the outputs do
  // not depend on how a prompt is cut into blocks (llama.cpp stores a batch's rows in the cache
  // before attending to them). With store_kv a row at a position below ctx is encoded straight
  // into its cache row (the groups read the cache's rows before pos only), others into a scratch
  // row: each row is encoded once.
  void RoundNewRows(const ExecContext& ctx, kernels::AttentionArgs* a) const {
    const int64_t hs = a->head_dim, values = a->t * a->kv_heads * hs;
    const int64_t row_bytes =
        cache_ == KvCacheType::kQ8_0 ? kernels::AttentionQ8_0RowBytes(hs) : hs * 2;
    float* rounded = static_cast<float*>(ctx.scratch) + static_cast<size_t>(slots_) * SlotFloats();
    uint8_t* scratch_row = reinterpret_cast<uint8_t*>(rounded + 2 * values);
    for (int which = 0; which < 2; ++which) {
      const float* src = which == 0 ? a->k_new : a->v_new;
      float* dst = rounded + which * values;
      uint8_t* cache = Data<uint8_t>(ctx, in_[1 + which]);
      for (int64_t r = 0; r < a->t * a->kv_heads; ++r) {
        const int64_t i = r / a->kv_heads, h = r % a->kv_heads;
        uint8_t* row = store_kv_ && a->pos + i < a->ctx
                           ? cache + (h * a->ctx + a->pos + i) * row_bytes
                           : scratch_row;
        EncodeRow(src + r * hs, hs, row);
        if (cache_ == KvCacheType::kQ8_0) {
          quantization_internal::DequantizeRowQ8_0(row, dst + r * hs, hs);
        } else {
          kernel_->decode_f16(reinterpret_cast<const uint16_t*>(row), hs, dst + r * hs);
        }
      }
    }
    a->k_new = rounded;
    a->v_new = rounded + values;
  }
  // The scratch floats of RoundNewRows: K and V rows of the largest block, and one encoded row.
  size_t RoundedFloats() const {
    if (cache_ == KvCacheType::kF32) return 0;
    return static_cast<size_t>(2 * shape_.t * shape_.kv_heads * shape_.head_dim + shape_.head_dim);
  }

  // store_kv with an f32 cache: the block's rows i (those at positions pos + i < ctx) of k_new and
  // v_new into row pos + i of each kv head of the caches, after the groups have read the cache's
  // rows before pos. (Encoded caches: RoundNewRows stores them.)
  void StoreRows(const ExecContext& ctx, const kernels::AttentionArgs& a, const float* k_new,
                 const float* v_new) const {
    const int64_t rows = std::min(a.t, a.ctx - a.pos), hs = a.head_dim;
    for (int which = 0; which < 2; ++which) {
      const float* src = which == 0 ? k_new : v_new;
      float* dst = Data(ctx, in_[1 + which]);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t h = 0; h < a.kv_heads; ++h) {
          std::memcpy(dst + (h * a.ctx + a.pos + i) * hs, src + (i * a.kv_heads + h) * hs,
                      static_cast<size_t>(hs) * sizeof(float));
        }
      }
    }
  }

  // One row of n values in an encoded cache's type: q8_0 by GGML's quantize_row_q8_0; f16 by the
  // ISA's conversion (round to nearest even, as GGML's fp32-to-fp16; the kernel's encode_f16, not
  // the f16 codec, which a selective build may leave out). Rows are 2-byte aligned.
  void EncodeRow(const float* x, int64_t n, uint8_t* out) const {
    if (cache_ == KvCacheType::kQ8_0) {
      quantization_internal::QuantizeRowQ8_0(x, out, n);
    } else {
      kernel_->encode_f16(x, n, reinterpret_cast<uint16_t*>(out));
    }
  }

  // The kernel's scratch for one group at the largest position (ctx + t keys), rounded to 64
  // bytes.
  size_t SlotFloats() const {
    return (kernels::AttentionScratchFloats(shape_.heads, shape_.kv_heads, shape_.head_dim,
                                            shape_.ctx + shape_.t, cache_ != KvCacheType::kF32) +
            15) /
           16 * 16;
  }

  std::vector<int> in_;
  int out_;
  kernels::AttentionArgs shape_;
  KvCacheType cache_;
  bool store_kv_;
  int64_t slots_;
  const kernels::AttentionKernel* kernel_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"scale", "window", "kv_cache", "store_kv"};
  if (absl::Status s = CheckAttributeKeys(kAttentionOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<double> scale = GetRealAttribute(kAttentionOpName, map, "scale", 1.0);
  if (!scale.ok()) return scale.status();
  absl::StatusOr<int64_t> window = GetIntAttribute(kAttentionOpName, map, "window", 0);
  if (!window.ok()) return window.status();
  absl::StatusOr<std::string> cache = GetStringAttribute(kAttentionOpName, map, "kv_cache", "f32");
  if (!cache.ok()) return cache.status();
  absl::StatusOr<int64_t> store = GetIntAttribute(kAttentionOpName, map, "store_kv", 0);
  if (!store.ok()) return store.status();
  if (*store != 0 && *store != 1) {
    return Invalid(absl::StrCat("attention: attribute store_kv is ", *store, ", expected 0 or 1"));
  }
  auto attrs = std::make_shared<AttentionAttributes>();
  attrs->scale = static_cast<float>(*scale);
  attrs->window = *window;
  attrs->store_kv = *store == 1;
  bool known = false;
  for (int i = 0; i < kNumKvCacheTypes; ++i) {
    if (*cache == kKvCacheTypeNames[i]) {
      attrs->kv_cache = kKvCacheTypes[i];
      known = true;
    }
  }
  if (!known) {
    return Invalid(absl::StrCat("attention: attribute kv_cache is \"", *cache,
                                "\", expected f32, q8_0 or f16"));
  }
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

absl::Status CheckInputKinds(const InferInput& in, KvCacheType cache_type) {
  for (int i = 0; i < 5; ++i) {
    const bool cache = i == 1 || i == 2;
    const ValueType& v = in.types[i];
    bool ok = IsPlainF32(v);
    if (cache && cache_type != KvCacheType::kF32) {
      const DType want = cache_type == KvCacheType::kQ8_0 ? DType::kUInt8 : DType::kFloat16;
      ok = v.type.dtype == want && !v.is_quantized();
    }
    if (!ok || v.type.shape.rank() != 3) {
      return Invalid(
          "q, k_new and v_new must be plain f32 of rank 3, and k_cache and v_cache both plain "
          "f32, both q8_0 rows (u8) or both f16 (as the attribute kv_cache says) of rank 3");
    }
  }
  const ValueType& positions = in.types[5];
  if (positions.type.dtype != DType::kInt32 || positions.is_quantized()) {
    return Invalid("positions must be i32");
  }
  return absl::OkStatus();
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const auto& attrs = static_cast<const AttentionAttributes&>(attributes);
  const bool q8_0 = attrs.kv_cache == KvCacheType::kQ8_0;
  if (absl::Status s = CheckInputKinds(in, attrs.kv_cache); !s.ok()) return s;
  const Shape& q = in.types[0].type.shape;
  const Shape& k_cache = in.types[1].type.shape;
  const int64_t t = q.dim(0), heads = q.dim(1), hs = q.dim(2);
  const int64_t kvh = k_cache.dim(0), ctx = k_cache.dim(1);
  if (kvh <= 0 || heads % kvh != 0) {
    return Invalid("heads (q's dimension 1) must be a multiple of kv_heads (k_cache's 0)");
  }
  if (q8_0 && hs % 32 != 0) {
    return Invalid(absl::StrFormat(
        "a q8_0 cache needs head_dim (q's dimension 2, %d) to be a multiple of 32", hs));
  }
  const int64_t row = q8_0 ? kernels::AttentionQ8_0RowBytes(hs) : hs;
  if (k_cache != Shape({kvh, ctx, row}) || in.types[2].type.shape != k_cache) {
    return Invalid(q8_0 ? "k_cache and v_cache must both be [kv_heads, ctx, head_dim / 32 * 34]"
                        : "k_cache and v_cache must both be [kv_heads, ctx, head_dim]");
  }
  if (in.types[3].type.shape != Shape({t, kvh, hs}) ||
      in.types[4].type.shape != in.types[3].type.shape) {
    return Invalid("k_new and v_new must both be [t, kv_heads, head_dim]");
  }
  if (in.types[5].type.shape != Shape({t})) return Invalid("positions must be [t]");
  if (!(attrs.scale > 0.0f) || !std::isfinite(attrs.scale)) return Invalid("scale must be > 0");
  if (attrs.window < 0) return Invalid("window must be >= 0 (0: no window)");
  return One(Plain(DType::kFloat32, Shape({t, heads * hs})));
}

KernelOr Create(const KernelArgs& args) {
  const AttentionAttributes& attrs = args.node.attributes<AttentionAttributes>();
  kernels::AttentionArgs a;
  a.t = args.in_shape(0).dim(0);
  a.heads = args.in_shape(0).dim(1);
  a.head_dim = args.in_shape(0).dim(2);
  a.kv_heads = args.in_shape(1).dim(0);
  a.ctx = args.in_shape(1).dim(1);
  a.scale = attrs.scale;
  a.window = attrs.window;
  const int64_t threads = args.env.pool == nullptr
                              ? 1
                              : static_cast<int64_t>(pthreadpool_get_threads_count(args.env.pool));
  // A few tasks per thread balance the causal rows' unequal lengths.
  const int64_t slots = std::max<int64_t>(1, std::min(a.kv_heads * a.t, 4 * threads));
  return Make(new AttentionKernel(args.node.inputs, args.out(), a, attrs.kv_cache, attrs.store_kv,
                                  slots, &kernels::SelectAttentionKernel(args.env.isa_cap)));
}

constexpr const char* kAttributeNames[] = {"scale", "window", "kv_cache", "store_kv"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kAttentionOpName;
  def.min_inputs = def.max_inputs = 6;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(attention, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
