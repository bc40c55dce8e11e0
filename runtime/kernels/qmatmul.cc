// Kernel selection (best supported ISA under the cap, per shape class), weight repacking at
// Create, activation quantization and pthreadpool threading over n in Run.
#include "runtime/kernels/qmatmul.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "core/parallel.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/packed_memory.h"
#include "runtime/kernels/internal/select_kernel.h"
#include "sdk/selection.h"

namespace edgeq {
namespace kernels {
namespace {

using internal::Encoding;
using internal::KernelEntry;
using internal::MatmulParams;
using internal::Shape;

// kernels.bzl's table, as kernel_list.inc lists it, with whether this build keeps each entry
// (sdk/selection.h: --define=edgeq_encodings/edgeq_isas; the generic kernels of a kept encoding
// always stay, the fallback on any CPU, but see Dispatched). Read only at compile time.
struct ListedKernel {
  const KernelEntry* entry;
  bool kept;
  std::string_view encoding, isa, shape;
};
constexpr bool Kept(std::string_view encoding, std::string_view isa) {
  return selection::Selected(selection::kEncodings, encoding) &&
         (isa == "generic" || selection::Selected(selection::kIsas, isa));
}
constexpr ListedKernel kListedKernels[] = {
#define EDGEQ_KERNEL(symbol, encoding, isa, shape) \
  {&internal::k##symbol, Kept(#encoding, #isa), #encoding, #isa, #shape},
#include "runtime/kernels/internal/kernel_list.inc"
#undef EDGEQ_KERNEL
};
constexpr bool IsKept(const ListedKernel& k) { return k.kept; }
// Every AArch64 CPU has NEON: there a generic entry whose encoding and shape have a kept NEON
// entry is never the best one, so the dispatcher's list leaves it out and an aarch64 library does
// not carry it (README, "Footprint"); a cap below NEON then runs the NEON entry (Choose).
// AllKernels() (tests, benchmarks) still lists it.
#if defined(__aarch64__)
constexpr bool kNeonFloor = true;
#else
constexpr bool kNeonFloor = false;
#endif
constexpr bool Dispatched(const ListedKernel& k) {
  if (!k.kept) return false;
  if (!kNeonFloor || k.isa != "generic") return true;
  for (const ListedKernel& o : kListedKernels) {
    if (o.kept && o.isa == "neon" && o.encoding == k.encoding && o.shape == k.shape) return false;
  }
  return true;
}
template <bool (*kPred)(const ListedKernel&)>
constexpr size_t CountOf() {
  size_t n = 0;
  for (const ListedKernel& k : kListedKernels) n += kPred(k) ? 1 : 0;
  return n;
}
// The entries kPred holds for only, so that the linker drops the others' code.
template <bool (*kPred)(const ListedKernel&)>
constexpr std::array<const KernelEntry*, CountOf<kPred>()> ListOf() {
  std::array<const KernelEntry*, CountOf<kPred>()> kept{};
  size_t n = 0;
  for (const ListedKernel& k : kListedKernels) {
    if (kPred(k)) kept[n++] = k.entry;
  }
  return kept;
}
constexpr auto kAllKernels = ListOf<IsKept>();
constexpr auto kDispatchedKernels = ListOf<Dispatched>();

constexpr size_t kAlign = 64;

size_t RoundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

const KernelEntry* Choose(Encoding e, Shape shape, Isa cap) {
  const auto matches = [&](const KernelEntry& k) { return k.encoding == e && k.shape == shape; };
  const absl::Span<const KernelEntry* const> all = absl::MakeConstSpan(kDispatchedKernels);
  const KernelEntry* best = internal::SelectKernel(all, cap, matches);
  // On AArch64 a cap below NEON finds no generic entry where NEON's stands in for it.
  if (best == nullptr && kNeonFloor && static_cast<int>(cap) < static_cast<int>(Isa::kNeon)) {
    best = internal::SelectKernel(all, Isa::kNeon, matches);
  }
  return best;
}

struct RunContext {
  const KernelEntry* entry;
  MatmulParams params;
};

void RunTile(void* ctx, size_t start, size_t count) {
  const RunContext* c = static_cast<const RunContext*>(ctx);
  c->entry->matmul(c->params, static_cast<int64_t>(start), static_cast<int64_t>(start + count));
}

struct QuantizeContext {
  const KernelEntry* entry;
  const float* x;
  int64_t x_stride;
  int64_t k;
  uint8_t* out;
  size_t out_stride;
};

void QuantizeRow(void* ctx, size_t i) {
  const QuantizeContext* c = static_cast<const QuantizeContext*>(ctx);
  c->entry->quantize(c->x + static_cast<int64_t>(i) * c->x_stride, c->k,
                     c->out + i * c->out_stride);
}

// Unit i of a pair kernel's activations: rows 2 i and 2 i + 1 (the second may not exist).
struct QuantizePairContext {
  QuantizeContext q;
  int64_t m;
};

void QuantizePair(void* ctx, size_t i) {
  const QuantizePairContext* c = static_cast<const QuantizePairContext*>(ctx);
  const int64_t r = 2 * static_cast<int64_t>(i);
  const float* x0 = c->q.x + r * c->q.x_stride;
  const float* x1 = r + 1 < c->m ? x0 + c->q.x_stride : nullptr;
  c->q.entry->quantize_pair(x0, x1, c->q.k, c->q.out + i * c->q.out_stride);
}

// Activation units a kernel quantizes for m rows (pairs of rows for the pair kernels).
int64_t ActivationUnits(const KernelEntry& e, int64_t m) {
  return e.quantize_pair != nullptr ? (m + 1) / 2 : m;
}

class QMatmulKernelImpl final : public QMatmulKernel {
 public:
  QMatmulKernelImpl(int64_t n, int64_t k, const uint8_t* weights, size_t row_bytes,
                    const KernelEntry* gemv, const KernelEntry* gemm, const WeightsReadFn& on_read,
                    pthreadpool_t pool)
      : QMatmulKernel(n, k), gemv_(gemv), gemm_(gemm) {
    const bool shared = gemm_->repack == gemv_->repack;
    Allocate(gemv_, weights, row_bytes, &packed_gemv_, &w_gemv_, &w_gemv_row_bytes_);
    if (shared) {
      w_gemm_ = w_gemv_;
      w_gemm_row_bytes_ = w_gemv_row_bytes_;
    } else {
      Allocate(gemm_, weights, row_bytes, &packed_gemm_, &w_gemm_, &w_gemm_row_bytes_);
    }
    if (!ok() || (gemv_->repack == nullptr && gemm_->repack == nullptr)) return;
    // Repacked in waves of whole row groups (a multiple of every layout's group of 16 or 4 rows):
    // kRepackChunkRows rows per thread, or kRepackWaveBytes of the original if more (fewer
    // wake-ups of the pool), the wave's row groups shared among the pool's threads, both layouts
    // per group; then `on_read` of the rows read so far. So the pages of the original are dropped
    // only once repacked, with at most one wave of both resident.
    // Matrices under one such wave (each wave costs a wake-up of the pool and a wait for its
    // slowest thread) stay on the calling thread.
    const bool pooled = static_cast<uint64_t>(n) * row_bytes >= kRepackWaveBytes;
    const int64_t threads = pool != nullptr && pooled ? pthreadpool_get_threads_count(pool) : 1;
    if (threads <= 1) pool = nullptr;
    int64_t wave = kRepackChunkRows;
    if (threads > 1) {
      const int64_t by_bytes = static_cast<int64_t>(kRepackWaveBytes / row_bytes);
      wave = std::max(kRepackChunkRows * threads, by_bytes / kRepackChunkRows * kRepackChunkRows);
    }
    const RepackRows repack{this, weights, row_bytes, shared};
    for (int64_t j = 0; j < n; j += wave) {
      const int64_t rows = std::min<int64_t>(wave, n - j);
      const int64_t units = (rows + kRepackUnitRows - 1) / kRepackUnitRows;
      // Work: always worth a thread when there is more than one unit (a unit is ~10-60 KB).
      ParallelFor(pool, static_cast<size_t>(units), 1, units > 1 ? kMinParallelWork : 0,
                  [&](size_t start, size_t count) {
                    const int64_t first = j + static_cast<int64_t>(start) * kRepackUnitRows;
                    const int64_t last = std::min<int64_t>(
                        n, j + static_cast<int64_t>(start + count) * kRepackUnitRows);
                    repack(first, last - first);
                  });
      if (on_read) on_read(weights, static_cast<size_t>(j + rows) * row_bytes);
    }
  }

  // A view of weights already in the (shared) layout of gemv and gemm: nothing is copied.
  QMatmulKernelImpl(int64_t n, int64_t k, const uint8_t* packed, const KernelEntry* gemv,
                    const KernelEntry* gemm)
      : QMatmulKernel(n, k), gemv_(gemv), gemm_(gemm), view_(true) {
    w_gemv_ = w_gemm_ = packed;
    w_gemv_row_bytes_ = w_gemm_row_bytes_ = gemv->repacked_row_bytes(k);
  }

  absl::string_view name() const override { return gemv_->name; }
  absl::string_view kernel_name(int64_t m) const override {
    return m == 1 ? gemv_->name : gemm_->name;
  }
  Isa isa() const override {
    return static_cast<int>(gemv_->isa) > static_cast<int>(gemm_->isa) ? gemv_->isa : gemm_->isa;
  }

  bool holds_weight_copy() const override {
    return !view_ && gemv_->repack != nullptr && gemm_->repack != nullptr;
  }

  size_t copy_bytes() const override { return packed_gemv_.size() + packed_gemm_.size(); }

  size_t ScratchBytes(int64_t m) const override {
    if (m <= 0) return 0;
    const KernelEntry* e = m == 1 ? gemv_ : gemm_;
    if (!internal::QuantizesActivations(*e)) return 0;
    return static_cast<size_t>(ActivationUnits(*e, m)) * RoundUp(e->act_row_bytes(k()), kAlign);
  }

  void Run(int64_t m, const float* x, int64_t x_stride, float* y, int64_t y_stride, void* scratch,
           pthreadpool_t pool) const override {
    if (m <= 0 || n() == 0) return;
    // The one rule (core/parallel.h): about 2^20 multiply-adds; a 288x288 GEMV (83K, some 10 us
    // on one core) stays on the calling thread, the stories15M classifier (32000x288) does not.
    // Kernels on float activations (f16, bf16 weights) do 16 multiply-adds per instruction where
    // the integer ones do 64: their work counts four times.
    const KernelEntry* e = m == 1 ? gemv_ : gemm_;
    const int64_t per_mac = internal::QuantizesActivations(*e) ? 1 : 4;
    if (!WorthParallel(pool, MatmulWork(per_mac * m * n() * k()))) pool = nullptr;
    RunContext ctx;
    ctx.entry = e;
    ctx.params.w = m == 1 ? w_gemv_ : w_gemm_;
    ctx.params.w_row_bytes = m == 1 ? w_gemv_row_bytes_ : w_gemm_row_bytes_;
    ctx.params.k = k();
    ctx.params.m = m;
    ctx.params.y = y;
    ctx.params.y_stride = y_stride;
    SetActivations(*e, m, x, x_stride, static_cast<uint8_t*>(scratch), pool, &ctx.params);
    pthreadpool_parallelize_1d_tile_1d(pool, RunTile, &ctx, static_cast<size_t>(n()),
                                       static_cast<size_t>(e->tile_n), 0);
  }

  size_t BlocksScratchBytes(int64_t total_m, int64_t count) const override {
    if (count <= 0) return 0;
    size_t row = 0;
    for (const KernelEntry* e : {gemv_, gemm_}) {
      if (internal::QuantizesActivations(*e)) {
        row = std::max(row, RoundUp(e->act_row_bytes(k()), kAlign));
      }
    }
    // At most m units per block, and one more for a pair kernel's odd row.
    return RoundUp(sizeof(BlockTask) * static_cast<size_t>(count), kAlign) +
           static_cast<size_t>(total_m + count) * row;
  }

  void RunBlocks(int64_t block_rows, absl::Span<const Block> blocks, int64_t x_stride,
                 int64_t y_stride, void* scratch, pthreadpool_t pool) const override {
    if (blocks.empty() || block_rows <= 0) return;
    BlockTask* tasks = static_cast<BlockTask*>(scratch);
    uint8_t* xq =
        static_cast<uint8_t*>(scratch) + RoundUp(sizeof(BlockTask) * blocks.size(), kAlign);
    // Run()'s rule over the blocks' work together.
    const int64_t per_mac = internal::QuantizesActivations(*gemm_) ? 1 : 4;
    int64_t macs = 0;
    for (const Block& b : blocks) macs += per_mac * b.m * block_rows * k();
    if (!WorthParallel(pool, MatmulWork(macs))) pool = nullptr;
    int64_t first = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const Block& b = blocks[i];
      // Another stacked matrix of the same k (the only implementation of QMatmulKernel).
      const QMatmulKernelImpl& w =
          b.matrix != nullptr ? static_cast<const QMatmulKernelImpl&>(*b.matrix) : *this;
      const KernelEntry* e = b.m == 1 ? w.gemv_ : w.gemm_;
      BlockTask& t = tasks[i];
      t.entry = e;
      t.first_task = first;
      first += (block_rows + e->tile_n - 1) / e->tile_n;
      const size_t w_row_bytes = b.m == 1 ? w.w_gemv_row_bytes_ : w.w_gemm_row_bytes_;
      t.params.w = (b.m == 1 ? w.w_gemv_ : w.w_gemm_) +
                   static_cast<size_t>(b.index * block_rows) * w_row_bytes;
      t.params.w_row_bytes = w_row_bytes;
      t.params.k = k();
      t.params.m = b.m;
      t.params.y = b.y;
      t.params.y_stride = y_stride;
      if (i > 0 && blocks[i - 1].x == b.x && blocks[i - 1].m == b.m &&
          SameActivations(*tasks[i - 1].entry, *e)) {
        t.params.xq = tasks[i - 1].params.xq;
        t.params.xq_row_bytes = tasks[i - 1].params.xq_row_bytes;
        continue;
      }
      SetActivations(*e, b.m, b.x, x_stride, xq, pool, &t.params);
      if (internal::QuantizesActivations(*e)) {
        xq += static_cast<size_t>(ActivationUnits(*e, b.m)) * t.params.xq_row_bytes;
      }
    }
    BlocksContext ctx{tasks, static_cast<int64_t>(blocks.size()), block_rows};
    pthreadpool_parallelize_1d(pool, RunBlockTile, &ctx, static_cast<size_t>(first), 0);
  }

  // False if memory for a repacked copy could not be mapped.
  bool ok() const { return w_gemv_ != nullptr && w_gemm_ != nullptr; }

 private:
  // Rows per repack call: every layout's row groups (16 or 4 rows) are whole inside a chunk, and
  // a chunk of a 2048-wide q4_0 matrix is about 300 KB.
  static constexpr int64_t kRepackChunkRows = 256;
  // Bytes of the original a wave of a pooled repack may cover (above kRepackChunkRows rows per
  // thread): the most of the original resident beside its copy.
  static constexpr size_t kRepackWaveBytes = size_t{8} << 20;
  // Rows a thread repacks at a time: one row group of every layout.
  static constexpr int64_t kRepackUnitRows = 16;

  // One block of RunBlocks: its kernel and arguments, and its first tile's task number.
  struct BlockTask {
    const KernelEntry* entry;
    MatmulParams params;
    int64_t first_task;
  };
  struct BlocksContext {
    const BlockTask* tasks;
    int64_t count, block_rows;
  };
  // Task i of RunBlocks: the tile of its block (the last block whose first task is <= i).
  static void RunBlockTile(void* ctx, size_t i) {
    const BlocksContext* c = static_cast<const BlocksContext*>(ctx);
    const int64_t task = static_cast<int64_t>(i);
    const BlockTask* t =
        std::upper_bound(c->tasks, c->tasks + c->count, task,
                         [](int64_t v, const BlockTask& b) { return v < b.first_task; }) -
        1;
    const int64_t j0 = (task - t->first_task) * t->entry->tile_n;
    t->entry->matmul(t->params, j0, std::min(j0 + t->entry->tile_n, c->block_rows));
  }

  // Whether kernels a and b read the same quantized activations (one may reuse the other's).
  static bool SameActivations(const KernelEntry& a, const KernelEntry& b) {
    return a.quantize == b.quantize && a.quantize_pair == b.quantize_pair &&
           a.act_row_bytes == b.act_row_bytes;
  }

  // The activations of e for m rows of x in `params` (xq, xq_row_bytes): x itself for kernels on
  // f32 activations, else quantized into `out` (on the pool for more than one row).
  void SetActivations(const KernelEntry& e, int64_t m, const float* x, int64_t x_stride,
                      uint8_t* out, pthreadpool_t pool, MatmulParams* params) const {
    if (!internal::QuantizesActivations(e)) {
      params->xq = reinterpret_cast<const uint8_t*>(x);
      params->xq_row_bytes = static_cast<size_t>(x_stride) * sizeof(float);
      return;
    }
    const size_t row = RoundUp(e.act_row_bytes(k()), kAlign);
    QuantizeContext q{&e, x, x_stride, k(), out, row};
    if (e.quantize_pair != nullptr) {
      QuantizePairContext qp{q, m};
      pthreadpool_parallelize_1d(pool, QuantizePair, &qp,
                                 static_cast<size_t>(ActivationUnits(e, m)), 0);
    } else if (m == 1) {
      QuantizeRow(&q, 0);
    } else {
      pthreadpool_parallelize_1d(pool, QuantizeRow, &q, static_cast<size_t>(m), 0);
    }
    params->xq = out;
    params->xq_row_bytes = row;
  }

  // Repacks rows [first, first + rows) (first a multiple of kRepackUnitRows) into both layouts.
  struct RepackRows {
    const QMatmulKernelImpl* self;
    const uint8_t* weights;
    size_t row_bytes;
    bool shared;
    void operator()(int64_t first, int64_t rows) const {
      const uint8_t* src = weights + first * row_bytes;
      const int64_t k = self->k();
      if (self->gemv_->repack != nullptr) {
        self->gemv_->repack(src, rows, k,
                            const_cast<uint8_t*>(self->w_gemv_) + first * self->w_gemv_row_bytes_);
      }
      if (!shared && self->gemm_->repack != nullptr) {
        self->gemm_->repack(src, rows, k,
                            const_cast<uint8_t*>(self->w_gemm_) + first * self->w_gemm_row_bytes_);
      }
    }
  };

  // Where e's weights will be: the original, or a new buffer for its repacked copy (filled by the
  // constructor).
  void Allocate(const KernelEntry* e, const uint8_t* weights, size_t row_bytes,
                PackedMemory* storage, const uint8_t** w, size_t* w_row_bytes) {
    if (e->repack == nullptr) {
      *w = weights;
      *w_row_bytes = row_bytes;
      return;
    }
    *w_row_bytes = e->repacked_row_bytes(k());
    // Rows rounded up to 16: the X16 layouts pad the last row group. Page-aligned, zero-filled,
    // in huge pages where the kernel gives them (internal/packed_memory.h). Out of memory: null
    // (Create reports it: ok() is false).
    *w = storage->Allocate(*w_row_bytes * RoundUp(static_cast<size_t>(n()), 16));
  }

  const KernelEntry* gemv_;
  const KernelEntry* gemm_;
  bool view_ = false;  // reads a stored layout in place (CreatePrepacked)
  PackedMemory packed_gemv_, packed_gemm_;
  const uint8_t* w_gemv_ = nullptr;
  const uint8_t* w_gemm_ = nullptr;
  size_t w_gemv_row_bytes_ = 0, w_gemm_row_bytes_ = 0;
};

// The kernel, or ResourceExhausted if its repacked copy could not be allocated.
absl::StatusOr<std::unique_ptr<QMatmulKernel>> Finish(std::unique_ptr<QMatmulKernelImpl> kernel,
                                                      absl::string_view name, int64_t n,
                                                      int64_t k) {
  if (!kernel->ok()) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("qmatmul %s [%d, %d]: out of memory for the repacked weights", name, n, k));
  }
  return std::unique_ptr<QMatmulKernel>(std::move(kernel));
}

// InvalidArgument naming `who` unless n > 0 and k is a positive multiple of desc's block.
absl::Status CheckShape(const blocks::BlockFormat& desc, absl::string_view who, int64_t n,
                        int64_t k) {
  if (n > 0 && k > 0 && k % desc.values_per_block == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: bad shape n=%d k=%d; expected n > 0 and k a positive multiple of %d",
                      who, n, k, desc.values_per_block));
}

// The block format named `encoding` (any case), or InvalidArgument listing the known ones.
absl::StatusOr<const blocks::BlockFormat*> FindFormat(absl::string_view encoding) {
  const blocks::BlockFormat* desc = blocks::FindBlockFormat(encoding.data(), encoding.size());
  if (desc != nullptr) return desc;
  std::string known;
  for (const blocks::BlockFormat& f : blocks::kBlockFormats) {
    absl::StrAppend(&known, known.empty() ? "" : ", ", f.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("qmatmul: no kernel for encoding \"", encoding, "\"; expected one of ", known));
}

// The weights' shape and size for `desc`: n > 0, k a positive multiple of the block, and exactly
// n x k/block_elems x block_bytes bytes. Returns one row's bytes.
absl::StatusOr<size_t> CheckWeights(const blocks::BlockFormat& desc, absl::string_view who,
                                    int64_t n, int64_t k, absl::Span<const uint8_t> weights) {
  if (absl::Status s = CheckShape(desc, who, n, k); !s.ok()) return s;
  const uint64_t row_bytes =
      static_cast<uint64_t>(k / desc.values_per_block) * desc.bytes_per_block;
  // n and k come from validated shapes (at most 2^48 elements), but a caller may pass anything.
  const bool overflow = row_bytes != 0 && static_cast<uint64_t>(n) > SIZE_MAX / row_bytes;
  if (weights.data() == nullptr || overflow ||
      weights.size() != static_cast<size_t>(n) * row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: weights [%d, %d] need %d rows x %d blocks x %d bytes = %s bytes, got %d%s", who, n, k,
        n, k / desc.values_per_block, desc.bytes_per_block,
        overflow ? std::string("too many") : absl::StrCat(static_cast<uint64_t>(n) * row_bytes),
        weights.size(), weights.data() == nullptr ? " (null)" : ""));
  }
  return static_cast<size_t>(row_bytes);
}

}  // namespace

absl::StatusOr<std::unique_ptr<QMatmulKernel>> QMatmulKernel::Create(
    absl::string_view encoding, int64_t n, int64_t k, absl::Span<const uint8_t> weights, Isa cap,
    const WeightsReadFn& on_read, pthreadpool_t pool) {
  const absl::StatusOr<const blocks::BlockFormat*> format = FindFormat(encoding);
  if (!format.ok()) return format.status();
  const blocks::BlockFormat* desc = *format;
  const absl::StatusOr<size_t> row_bytes =
      CheckWeights(*desc, absl::StrCat("qmatmul ", desc->name), n, k, weights);
  if (!row_bytes.ok()) return row_bytes.status();
  const KernelEntry* gemv = Choose(desc->id, Shape::kGemv, cap);
  const KernelEntry* gemm = Choose(desc->id, Shape::kGemm, cap);
  if ((gemv == nullptr || gemm == nullptr) &&
      !selection::Selected(selection::kEncodings, desc->name)) {
    return absl::UnimplementedError(absl::StrCat(
        "qmatmul: encoding '", desc->name,
        "' is not in this build (built with: ", selection::BuiltWith(selection::kEncodings), ")"));
  }
  if (gemv == nullptr || gemm == nullptr) {
    return absl::InternalError(absl::StrCat("qmatmul ", desc->name, ": no kernel registered"));
  }
  return Finish(std::make_unique<QMatmulKernelImpl>(n, k, weights.data(), *row_bytes, gemv, gemm,
                                                    on_read, pool),
                desc->name, n, k);
}

namespace {

int Level(Isa isa) { return static_cast<int>(isa); }

// True if this build has kernels of `isa` (generic: always).
bool IsaInBuild(Isa isa) {
  if (isa == Isa::kGeneric) return true;
  for (const KernelEntry* e : kDispatchedKernels) {
    if (e->isa == isa) return true;
  }
  return false;
}

// As Choose, for a CPU running `isa` that may not be this one.
const KernelEntry* ChooseFor(Encoding e, Shape shape, Isa isa) {
  if (IsaSupported(isa)) return Choose(e, shape, isa);  // exactly Create's choice here
  const KernelEntry* best = nullptr;
  for (const KernelEntry* k : kDispatchedKernels) {
    if (k->encoding != e || k->shape != shape || Level(k->isa) > Level(isa)) continue;
    if (best == nullptr || Level(k->isa) > Level(best->isa)) best = k;
  }
  return best;
}

// The dispatched entry named `name`, or null (kDispatchedKernels, not kAllKernels: library code
// that names an entry keeps it linked, and an aarch64 library leaves out the generic entries
// NEON's stand for; none of those repacks).
const KernelEntry* FindEntry(absl::string_view name) {
  for (const KernelEntry* e : kDispatchedKernels) {
    if (name == e->name) return e;
  }
  return nullptr;
}

// The name of the layout `repack` writes for encoding `enc`: the first dispatched entry of `enc`
// that reads it (two encodings may share a repack function: q4_0 and iq4_nl).
const char* LayoutName(internal::RepackFn repack, Encoding enc) {
  for (const KernelEntry* e : kDispatchedKernels) {
    if (e->repack == repack && e->encoding == enc) return e->name;
  }
  return "";
}

size_t LayoutBytes(const KernelEntry& e, int64_t n, int64_t k) {
  return e.repacked_row_bytes(k) * RoundUp(static_cast<size_t>(n), 16);
}

}  // namespace

absl::StatusOr<std::optional<QMatmulKernel::StoredLayout>> QMatmulKernel::LayoutFor(
    absl::string_view encoding, int64_t n, int64_t k, Isa isa) {
  const absl::StatusOr<const blocks::BlockFormat*> format = FindFormat(encoding);
  if (!format.ok()) return format.status();
  const blocks::BlockFormat* desc = *format;
  if (absl::Status s = CheckShape(*desc, absl::StrCat("qmatmul ", desc->name), n, k); !s.ok())
    return s;
  if (!IsaInBuild(isa)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ISA ", IsaName(isa), " has no kernels in this build (",
                     IsaName(BestSupportedIsa()), " CPU); write its layouts with a build for it"));
  }
  const KernelEntry* gemv = ChooseFor(desc->id, Shape::kGemv, isa);
  const KernelEntry* gemm = ChooseFor(desc->id, Shape::kGemm, isa);
  if (gemv == nullptr || gemm == nullptr || gemv->repack == nullptr ||
      gemv->repack != gemm->repack || LayoutBytes(*gemv, n, k) != LayoutBytes(*gemm, n, k)) {
    return std::optional<StoredLayout>();
  }
  StoredLayout layout;
  layout.name = LayoutName(gemv->repack, desc->id);
  layout.isa = Level(gemv->isa) > Level(gemm->isa) ? gemv->isa : gemm->isa;
  layout.version = kStoredLayoutVersion;
  layout.bytes = LayoutBytes(*gemv, n, k);
  return std::optional<StoredLayout>(std::move(layout));
}

absl::StatusOr<std::vector<uint8_t>> QMatmulKernel::WriteLayout(absl::string_view encoding,
                                                                int64_t n, int64_t k,
                                                                absl::Span<const uint8_t> weights,
                                                                const StoredLayout& layout) {
  const absl::StatusOr<const blocks::BlockFormat*> format = FindFormat(encoding);
  if (!format.ok()) return format.status();
  const blocks::BlockFormat* desc = *format;
  const absl::StatusOr<size_t> row_bytes =
      CheckWeights(*desc, absl::StrCat("qmatmul ", desc->name), n, k, weights);
  if (!row_bytes.ok()) return row_bytes.status();
  const KernelEntry* e = FindEntry(layout.name);
  if (e == nullptr || e->repack == nullptr || e->encoding != desc->id ||
      layout.version != kStoredLayoutVersion || LayoutBytes(*e, n, k) != layout.bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("layout %s version %d (%d bytes) is not a layout of %s [%d, %d] in this "
                        "build; expected one from LayoutFor",
                        layout.name, layout.version, layout.bytes, desc->name, n, k));
  }
  std::vector<uint8_t> out(layout.bytes, 0);
  e->repack(weights.data(), n, k, out.data());
  return out;
}

absl::StatusOr<std::unique_ptr<QMatmulKernel>> QMatmulKernel::CreatePrepacked(
    absl::string_view tensor, absl::string_view encoding, int64_t n, int64_t k,
    const StoredLayout& layout, absl::Span<const uint8_t> packed, Isa cap) {
  const absl::StatusOr<const blocks::BlockFormat*> format = FindFormat(encoding);
  if (!format.ok()) return format.status();
  const blocks::BlockFormat* desc = *format;
  const std::string who = absl::StrCat(tensor, ": layout ", layout.name);
  const KernelEntry* e = FindEntry(layout.name);
  if (e == nullptr || e->repack == nullptr || e->encoding != desc->id) {
    return absl::FailedPreconditionError(
        absl::StrCat(who, " is not a ", desc->name,
                     " layout of this build; reconvert with --repack=native or use the GGUF"));
  }
  if (layout.version != kStoredLayoutVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(who, " is version ", layout.version, ", this edgeq reads version ",
                     kStoredLayoutVersion, "; reconvert with --repack=native or use the GGUF"));
  }
  if (!IsaSupported(layout.isa)) {
    return absl::FailedPreconditionError(
        absl::StrCat(who, " needs ", IsaName(layout.isa),
                     ", which this CPU lacks; reconvert with --repack=native or use the GGUF"));
  }
  if (Level(layout.isa) > Level(cap)) {
    return absl::FailedPreconditionError(absl::StrCat(who, " needs ", IsaName(layout.isa),
                                                      ", above the ISA cap ", IsaName(cap),
                                                      "; raise the cap or use the GGUF"));
  }
  if (absl::Status s = CheckShape(*desc, who, n, k); !s.ok()) return s;
  const KernelEntry* gemv = Choose(desc->id, Shape::kGemv, layout.isa);
  const KernelEntry* gemm = Choose(desc->id, Shape::kGemm, layout.isa);
  if (gemv == nullptr || gemm == nullptr || gemv->repack != e->repack ||
      gemm->repack != e->repack) {
    return absl::FailedPreconditionError(
        absl::StrCat(who, " is not what this CPU's ", IsaName(layout.isa), " kernels of ",
                     desc->name, " read; reconvert with --repack=native or use the GGUF"));
  }
  const size_t bytes = LayoutBytes(*e, n, k);
  if (packed.data() == nullptr || packed.size() != bytes || layout.bytes != bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s [%d, %d] needs %d bytes, got %d", who, n, k, bytes, packed.size()));
  }
  return std::unique_ptr<QMatmulKernel>(
      std::make_unique<QMatmulKernelImpl>(n, k, packed.data(), gemv, gemm));
}

namespace internal {

absl::Span<const KernelEntry* const> AllKernels() { return kAllKernels; }

absl::StatusOr<std::unique_ptr<QMatmulKernel>> CreateForEntry(const KernelEntry* entry, int64_t n,
                                                              int64_t k,
                                                              absl::Span<const uint8_t> weights) {
  if (!IsaSupported(entry->isa)) {
    return absl::FailedPreconditionError(
        absl::StrCat(entry->name, " needs ", IsaName(entry->isa), ", which this CPU lacks"));
  }
  const blocks::BlockFormat* desc = &blocks::GetBlockFormat(entry->encoding);
  const absl::StatusOr<size_t> row_bytes = CheckWeights(*desc, entry->name, n, k, weights);
  if (!row_bytes.ok()) return row_bytes.status();
  return Finish(std::make_unique<QMatmulKernelImpl>(n, k, weights.data(), *row_bytes, entry, entry,
                                                    nullptr, nullptr),
                entry->name, n, k);
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
