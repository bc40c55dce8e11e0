// InferenceSession and CompiledGraph: load a Graph once, execute it many times.
//
//   edgeq::InferenceSession session({.num_threads = 2});
//   absl::StatusOr<edgeq::CompiledGraph> model = session.Load(graph);
//   absl::StatusOr<edgeq::TensorMap> out = model->Execute({{"input0", input}});
//   absl::StatusOr<edgeq::Tensor> y = out->Get("output0");
//
// Load verifies the graph, keeps the nodes that reach an output (in graph order, which is
// topological), plans one arena in which intermediate buffers are reused once their last reader
// has run, and prepares one kernel per node (qmatmul kernels for the session's ISA cap, XNNPACK
// fully-connected operators for f32 weights). Execute checks the inputs, then only runs kernels:
// after the first call it performs no heap allocation.
//
// Threading: a session owns one pthreadpool (num_threads - 1 workers plus the caller), shared by
// every CompiledGraph it loads and by XNNPACK. One CompiledGraph executes on one thread at a time
// (Execute is not reentrant: it writes the model's arena); distinct CompiledGraphs may execute
// concurrently on different threads, also when loaded from the same session (their parallel
// sections then take turns on the pool).
//
// Outputs: the tensors of a TensorMap are views of the model's arena. They stay valid (the
// buffer is kept alive) but are overwritten by the next Execute of the same CompiledGraph; Clone()
// one to keep it.
//
// Shared activation memory: CompiledGraphs loaded with the same ActivationArena (Load(graph,
// arena)) place their intermediates in one buffer sized to the largest of them, since only one of
// them runs at a time (e.g. a decoder's one-token and prompt-block graphs). Their outputs are then
// overwritten by the next Execute of any of them, and a Load that grows the arena invalidates them.
//
// Views: a reshape of a computed value runs no kernel; it names the same arena bytes (its
// buffer lives as long as either is read).
//
// In-place inputs: a kernel may write a graph input in place (attention with store_kv: the block's
// K/V rows into the cache inputs). Load refuses such a graph unless the written value is a graph
// input, and Execute refuses a read-only tensor for it.
#ifndef EDGEQ_RUNTIME_SESSION_H_
#define EDGEQ_RUNTIME_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace internal {
class PreparedWeightCache;
}  // namespace internal

// The most threads a session runs kernels on (SessionOptions::num_threads).
inline constexpr int kMaxSessionThreads = 1024;

struct SessionOptions {
  // Threads that run kernels (the calling thread included); in [1, kMaxSessionThreads]. If the
  // process cannot create them (address space, thread limits), Load returns ResourceExhausted
  // naming the count instead of hanging in pthreadpool_create.
  int num_threads = 1;
  // Highest instruction-set level qmatmul kernels may use (never above what the CPU has).
  kernels::Isa isa_cap = kernels::Isa::kBest;
  // Run f32 matmuls with constant 2-D weights through XNNPACK when it initializes; false (or an
  // XNNPACK that fails to initialize, e.g. under some emulators) uses the portable loop.
  bool use_xnnpack = true;
  // Called at Load for every constant a kernel has made its own copy of (repacked quantized
  // weights, XNNPACK's packed f32 weights), right after the copy: the kernel never reads the
  // original. Other kernels (of this or other graphs) may still read it; the callee decides what
  // to do (llm::Model drops a mapped file's pages). May be empty.
  std::function<void(const void* data, size_t bytes)> on_constant_copied = nullptr;
  // Called at Load while a kernel copies a constant, with the bytes of it read so far from its
  // start (several calls per constant, growing; before on_constant_copied): the callee may drop
  // them already, so that the copy and the original are never both resident (llm::Model drops a
  // mapped file's pages as the repack goes). May be empty.
  std::function<void(const void* data, size_t bytes_read)> on_constant_bytes_read = nullptr;
  // Called at Execute by a kernel that reads scattered rows of a constant (gather: an embedding
  // table), after each row it has decoded, with that row's bytes: the callee may drop their pages
  // (llm::Model drops a mapped file's pages, which the page fault brought in with 64 KiB of
  // neighbours). Called on the executing thread. May be empty.
  std::function<void(const void* data, size_t bytes)> on_constant_row_read = nullptr;
};

// Activation memory (intermediate and output buffers, kernel scratch) shared by the CompiledGraphs
// loaded into it, which must never execute at the same time: it holds the largest of their plans,
// not their sum. Grows (at Load) when a larger CompiledGraph joins; memory is mapped from the
// system directly (untouched pages take no resident memory; a replaced buffer is returned at once).
class ActivationArena {
 public:
  ActivationArena() = default;
  ~ActivationArena();
  ActivationArena(const ActivationArena&) = delete;
  ActivationArena& operator=(const ActivationArena&) = delete;

  // Bytes held: the largest activation plan plus the largest kernel scratch of the CompiledGraphs
  // loaded.
  size_t bytes() const { return activations_.bytes + scratch_.bytes; }
  size_t activation_bytes() const { return activations_.bytes; }
  size_t scratch_bytes() const { return scratch_.bytes; }

 private:
  friend class InferenceSession;
  friend class CompiledGraph;
  struct Region {
    void* data = nullptr;
    size_t bytes = 0;
  };
  // Grows the regions to at least these sizes (contents are not kept); bumps generation_ if any
  // moved. ResourceExhausted naming the bytes if the system refuses.
  absl::Status Reserve(size_t activation_bytes, size_t scratch_bytes);
  static absl::Status Grow(Region* r, size_t bytes);
  Region activations_, scratch_;
  uint64_t generation_ = 0;
};

// One named input of Execute. Holds a pointer: the tensor must outlive the call.
struct NamedTensor {
  NamedTensor(absl::string_view name, const Tensor& tensor) : name(name), tensor(&tensor) {}
  absl::string_view name;
  const Tensor* tensor;
};

// The outputs of one Execute, by name ("output0", "output1", ...). Cheap to copy.
class TensorMap {
 public:
  using Entries = std::vector<std::pair<std::string, Tensor>>;

  TensorMap() = default;
  explicit TensorMap(std::shared_ptr<const Entries> entries) : entries_(std::move(entries)) {}

  // NotFound naming the requested and the available names.
  absl::StatusOr<Tensor> Get(absl::string_view name) const;
  size_t size() const { return entries_ == nullptr ? 0 : entries_->size(); }
  const Entries& entries() const;

 private:
  std::shared_ptr<const Entries> entries_;
};

class CompiledGraph {
 public:
  CompiledGraph(CompiledGraph&&) noexcept;
  CompiledGraph& operator=(CompiledGraph&&) noexcept;
  ~CompiledGraph();

  // Runs the graph. Every graph input must be given exactly once, by its name (Graph::input_name:
  // "input0", ... or the name the graph gave it), with the dtype and shape the graph declared;
  // InvalidArgument naming the input and both types otherwise. Outputs are returned under their
  // names (Graph::output_name). Kernel errors (e.g. a gather index out of range) are returned as
  // they are.
  absl::StatusOr<TensorMap> Execute(absl::Span<const NamedTensor> inputs);

  // Bytes of this graph's activation plan (intermediates and outputs, after reuse), of its
  // scratch memory, and the sum of all intermediate/output buffer sizes without reuse. The memory
  // held is that of its ActivationArena (shared or not).
  size_t arena_bytes() const;
  size_t scratch_bytes() const;
  size_t unplanned_bytes() const;
  // Bytes of constant data (weights) the model references.
  size_t constant_bytes() const;

  // How the kernels use each constant (weights) the graph reads: `copied` if every kernel that
  // takes it made its own copy at Load (repacked or packed) and never reads the original at
  // Execute; then the original's memory may be released (e.g. a mapped file's pages dropped).
  struct ConstantUse {
    const void* data = nullptr;
    size_t bytes = 0;
    bool copied = false;
  };
  std::vector<ConstantUse> ConstantUses() const;

  // One line per executed node: value id, op and the kernel chosen, e.g.
  // "%2 = qmatmul -> q4_0_avx2_gemm".
  std::string DebugString() const;

  // Profiling: while enabled, every Execute times each kernel (a steady_clock read before and
  // after, tens of nanoseconds per kernel) and adds it to that kernel's row. Off by default.
  struct KernelTime {
    std::string label;   // "%2 = qmatmul"
    std::string kernel;  // "q4_0_avx2_gemm"
    int64_t calls = 0;
    double seconds = 0;
  };
  void EnableProfiling(bool on);
  // One row per executed node, in execution order (zeros while profiling was never on).
  std::vector<KernelTime> Profile() const;
  void ResetProfile();

  struct Impl;

 private:
  friend class InferenceSession;
  explicit CompiledGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class InferenceSession {
 public:
  explicit InferenceSession(SessionOptions options = {});
  ~InferenceSession();
  InferenceSession(const InferenceSession&) = delete;
  InferenceSession& operator=(const InferenceSession&) = delete;

  // Errors: the graph's own status (the first builder error) if not OK; a graph without
  // outputs; num_threads < 1 or above kMaxSessionThreads; worker threads the process could not
  // create (ResourceExhausted); a custom op that is not registered or whose shape function
  // disagrees with the graph (both named); a qmatmul encoding without a kernel.
  absl::StatusOr<CompiledGraph> Load(const Graph& graph);
  // As Load, with the activation memory in `arena`, shared with the other CompiledGraphs loaded
  // into it (null: a private one, as Load(graph)).
  absl::StatusOr<CompiledGraph> Load(const Graph& graph, std::shared_ptr<ActivationArena> arena);

  const SessionOptions& options() const { return options_; }
  // Notes about the session's set-up, e.g. that XNNPACK is unavailable and f32 matmul falls back
  // to the portable loop.
  const std::vector<std::string>& log() const { return log_; }
  // True if f32 matmuls run through XNNPACK.
  bool xnnpack_enabled() const { return xnnpack_enabled_; }
  // How many qmatmul weight preparations (repacking) Load took from another live CompiledGraph of
  // this session instead of doing them again: graphs over the same constant buffers (e.g. a
  // decoder's one-token and prompt-block graphs) share prepared weights.
  int64_t prepared_weight_reuses() const;
  // Bytes of the repacked weight copies the qmatmul kernels of this session's live CompiledGraphs
  // hold (mapped memory, page multiples; a copy shared by several graphs counts once). XNNPACK's
  // packed f32 weights are not included (they are on the heap).
  uint64_t prepared_weight_bytes() const;

 private:
  SessionOptions options_;
  std::shared_ptr<void> pool_;  // pthreadpool_t, null with one thread
  absl::Status pool_status_;    // why there is no pool for num_threads > 1 (Load returns it)
  std::shared_ptr<internal::PreparedWeightCache> weight_cache_;
  bool xnnpack_enabled_ = false;
  std::vector<std::string> log_;
};

}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_SESSION_H_
