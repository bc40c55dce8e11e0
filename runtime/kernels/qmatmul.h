// qmatmul microkernels: y[m, n] = x[m, k] · W[n, k]^T with W quantized row by row.
//
// This is the one dispatch point between the runtime and the kernels. The runtime creates one
// QMatmulKernel per qmatmul node at Load (choosing the best kernel the CPU and the session's ISA
// cap allow, and repacking the weights once if that kernel wants to), then calls Run() from
// Execute with caller-provided scratch memory: Run never allocates.
#ifndef EDGEQ_RUNTIME_KERNELS_QMATMUL_H_
#define EDGEQ_RUNTIME_KERNELS_QMATMUL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "pthreadpool.h"
#include "runtime/kernels/isa.h"  // Isa, IsaSupported (part of this API)

namespace edgeq {
namespace kernels {

// A qmatmul bound to one weight matrix.
class QMatmulKernel {
 public:
  virtual ~QMatmulKernel() = default;

  // Chooses the best kernel for `encoding` (any name of blocks::kBlockFormats, the 14 block
  // formats of quantization/block_layout.h: every one has kernels) that the CPU supports and `cap`
  // allows. `weights` holds exactly n rows of k/elements_per_block blocks in the encoding's GGML
  // layout and must stay alive as long as the kernel unless the kernel repacks (copies) it.
  // InvalidArgument if k does not fit the encoding, the encoding has no kernel, or weights.size()
  // is not n x k/elements_per_block x block bytes (the message names the expected and actual byte
  // counts): no kernel ever reads past `weights`. `on_read`, if given, is called while a repacking
  // kernel copies the weights, with the bytes of `weights` read so far from the start (rows in
  // order; the last call covers them all): a caller whose weights are a file mapping can drop those
  // pages before the rest is copied, so that the copy and the original are never both resident.
  // `pool` (may be null) shares the repack among its threads, a few row groups each.
  using WeightsReadFn = std::function<void(const uint8_t* weights, size_t bytes_read)>;
  static absl::StatusOr<std::unique_ptr<QMatmulKernel>> Create(
      absl::string_view encoding, int64_t n, int64_t k, absl::Span<const uint8_t> weights,
      Isa cap = Isa::kBest, const WeightsReadFn& on_read = nullptr, pthreadpool_t pool = nullptr);

  // ---- Stored repacked layouts (docs/stored_repack.md: `edgeq convert --repack=NAME`) ----
  // A weight layout the kernels read instead of GGML blocks, as stored in a file: named after the
  // first kernel entry of this build's table that reads it (e.g. "q4_k_avx512vnni_gemv"), with the
  // ISA of the kernels chosen with it and the layout version (kStoredLayoutVersion).
  struct StoredLayout {
    std::string name;
    Isa isa = Isa::kGeneric;
    int64_t version = 0;
    size_t bytes = 0;  // the layout's bytes: its row bytes x n rounded up to 16 (zero padded)
  };
  // Bumped whenever the bytes of any repacked layout change (files of another version are refused).
  static constexpr int64_t kStoredLayoutVersion = 1;
  // The layout the kernels that Create would choose for `encoding` [n, k] on a CPU running `isa`
  // read (this CPU is not asked: a file may be written for another machine), or nullopt if they
  // read GGML blocks in place or the GEMV and GEMM kernels read different layouts (such weights
  // stay GGML). InvalidArgument as Create for a bad encoding or shape, or if this build has no
  // kernel of `isa` (e.g. an ARM level in an x86 build).
  static absl::StatusOr<std::optional<StoredLayout>> LayoutFor(absl::string_view encoding,
                                                               int64_t n, int64_t k, Isa isa);
  // The bytes of `layout` for `weights` (GGML blocks, checked as by Create), written by the
  // layout's KernelEntry::repack (the one writer of each layout), pad rows zero.
  static absl::StatusOr<std::vector<uint8_t>> WriteLayout(absl::string_view encoding, int64_t n,
                                                          int64_t k,
                                                          absl::Span<const uint8_t> weights,
                                                          const StoredLayout& layout);
  // A kernel reading `packed` (a stored layout, e.g. a file mapping, alive as long as the kernel)
  // in place: no copy, no repack. FailedPrecondition, one line naming `tensor`, the layout and the
  // ISA, if the layout is not in this build, the CPU lacks its ISA, `cap` is below it, or the
  // version differs; InvalidArgument if packed.size() != the layout's bytes.
  static absl::StatusOr<std::unique_ptr<QMatmulKernel>> CreatePrepacked(
      absl::string_view tensor, absl::string_view encoding, int64_t n, int64_t k,
      const StoredLayout& layout, absl::Span<const uint8_t> packed, Isa cap = Isa::kBest);

  // The kernel Run(m = 1) uses, e.g. "q4_0_avx2_gemv".
  virtual absl::string_view name() const = 0;
  // The kernel Run() uses for m rows: the GEMV kernel for m == 1, the GEMM kernel otherwise
  // (e.g. "q4_0_avx512vnni_gemm").
  virtual absl::string_view kernel_name(int64_t m) const = 0;
  // The highest ISA level among the kernels chosen.
  virtual Isa isa() const = 0;
  int64_t n() const { return n_; }
  int64_t k() const { return k_; }

  // True if Run() never reads the `weights` given to Create: the kernel keeps its own repacked
  // copy for every m (the caller may then drop the original's pages).
  virtual bool holds_weight_copy() const = 0;
  // Bytes of memory mapped for this kernel's repacked copies (page multiples; 0 if it reads the
  // given weights in place): memory accounting (llm::Model::Memory).
  virtual size_t copy_bytes() const { return 0; }

  // Bytes of scratch Run() needs for m rows of activations (quantized copies of x).
  virtual size_t ScratchBytes(int64_t m) const = 0;

  // y[i * y_stride + j] = sum_l x[i * x_stride + l] * W[j, l] for i < m, j < n.
  // `scratch` holds ScratchBytes(m) bytes, 64-byte aligned. `pool` may be null (one thread);
  // problems of fewer than 2^20 multiply-adds (m * n * k) run on the calling thread anyway.
  virtual void Run(int64_t m, const float* x, int64_t x_stride, float* y, int64_t y_stride,
                   void* scratch, pthreadpool_t pool) const = 0;

  // A block of rows of a stacked matrix (one expert of a mixture of experts, whose E matrices of
  // block_rows rows are one kernel of n = E x block_rows rows): rows [index * block_rows,
  // (index + 1) * block_rows) against its own m >= 1 rows of activations x, into y.
  struct Block {
    int64_t index;
    int64_t m;
    const float* x;
    float* y;
    // The stacked matrix this block reads, when not the one RunBlocks is called on (another
    // kernel of the same k, e.g. the up projections beside the gate ones); null: that one.
    const QMatmulKernel* matrix = nullptr;
  };
  // Run() over several blocks in one dispatch of the pool (the blocks' row tiles shared among its
  // threads): y[i * y_stride + j] = sum_l x[i * x_stride + l] * W[index * block_rows + j, l],
  // bit-identical to Run() of a kernel made from that block's rows alone. block_rows must be a
  // positive multiple of 16 (every layout's row group) dividing n, and index < n / block_rows
  // (unchecked: the caller's shapes; the same for a block's own `matrix`). A block with the same
  // x and m as the one before it, and the same activation format, reuses its quantized
  // activations. `scratch`: BlocksScratchBytes(sum of the blocks' m, count) bytes of every
  // matrix the blocks read (the largest).
  virtual size_t BlocksScratchBytes(int64_t total_m, int64_t count) const = 0;
  virtual void RunBlocks(int64_t block_rows, absl::Span<const Block> blocks, int64_t x_stride,
                         int64_t y_stride, void* scratch, pthreadpool_t pool) const = 0;

 protected:
  QMatmulKernel(int64_t n, int64_t k) : n_(n), k_(k) {}

 private:
  int64_t n_;
  int64_t k_;
};

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_QMATMUL_H_
