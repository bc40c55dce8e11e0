// The runtime's kernel interface: what an op's kernel factory (an OpDef of graph/op.h, one file
// per op in runtime/ops/) is given at Load and what it returns, bound to value ids and shapes.
#ifndef EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_
#define EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "pthreadpool.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace internal {

// What a kernel sees at Execute: the data pointer of every value (by id), the session's pool
// and the model's scratch buffer (64-byte aligned, at least the largest ScratchBytes()).
struct ExecContext {
  void* const* slots;
  pthreadpool_t pool;
  void* scratch;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Must not allocate on success.
  virtual absl::Status Run(const ExecContext& ctx) = 0;
  virtual std::string name() const = 0;
  virtual size_t ScratchBytes() const { return 0; }
  // True if Run() never reads input `position` (a constant): the kernel holds its own copy made
  // at Load (repacked quantized weights, XNNPACK's packed f32 weights).
  virtual bool CopiesConstantInput(int /*position*/) const { return false; }
  // The input positions Run() writes in place (attention with store_kv: its cache inputs); each
  // must be a graph input given as a writable tensor (checked by Load and Execute).
  virtual std::vector<int> InPlaceInputs() const { return {}; }
  // What the output may share (runtime/internal/aliasing.h), so that Load plans fewer bytes:
  // ViewOffset() >= 0: Run() only copies input 0's bytes [offset, offset + output bytes) (a slice
  // of whole rows); JoinsInputs(): Run() only copies the inputs back to back (a concatenation along
  // the first axis). Load makes such an output a view and skips Run() where the bytes are in the
  // arena. OverwritableInput() >= 0: Run() is correct with the output at that input's address
  // (same size; element by element), which Load does where nothing reads the input afterwards.
  virtual int64_t ViewOffset() const { return -1; }
  virtual bool JoinsInputs() const { return false; }
  virtual int OverwritableInput() const { return -1; }
};

// An XNNPACK fully-connected operator (f32 weights packed into it at creation), shared by the
// kernels of every graph of a session over the same weights; Run locks it (an operator is set up
// per call with that call's batch size).
struct SharedXnnFullyConnected {
  SharedXnnFullyConnected() = default;
  SharedXnnFullyConnected(const SharedXnnFullyConnected&) = delete;
  SharedXnnFullyConnected& operator=(const SharedXnnFullyConnected&) = delete;
  ~SharedXnnFullyConnected();
  std::mutex mu;
  void* op = nullptr;  // xnn_operator_t
};

// Prepared (repacked) qmatmul weights shared by the CompiledGraphs of one session: two graphs over
// the same constant buffer (e.g. a decoder's one-token and prompt-block graphs) share one prepared
// copy. Entries are weak: a prepared kernel lives as long as some CompiledGraph uses it, and every
// such CompiledGraph keeps the weight buffer alive, so an address in the key cannot be reused
// meanwhile.
class PreparedWeightCache {
 public:
  // The prepared kernel for (encoding, n, k, weights, cap): the cached one if a live CompiledGraph
  // holds it, else a new one from kernels::QMatmulKernel::Create (with `on_read`).
  absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> GetOrCreate(
      const std::string& encoding, int64_t n, int64_t k, absl::Span<const uint8_t> weights,
      kernels::Isa cap, const kernels::QMatmulKernel::WeightsReadFn& on_read = nullptr,
      pthreadpool_t pool = nullptr);
  // The shared XNNPACK operator for f32 weights [n, k] (transposed) or [k, n]: one packed copy
  // per weight matrix and session, however many graphs use it.
  absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> GetOrCreateXnn(const float* weights,
                                                                          int64_t k, int64_t n,
                                                                          bool transposed);
  // How many GetOrCreate/GetOrCreateXnn calls were served from the cache.
  int64_t reuses() const;
  // Bytes of the repacked copies the live prepared qmatmul kernels hold (each counted once,
  // however many graphs share it; QMatmulKernel::copy_bytes).
  uint64_t copy_bytes() const;

 private:
  using Key = std::tuple<std::string, int64_t, int64_t, const uint8_t*, size_t, kernels::Isa>;
  mutable std::mutex mu_;
  std::map<Key, std::weak_ptr<const kernels::QMatmulKernel>> entries_;
  using XnnKey = std::tuple<const float*, int64_t, int64_t, bool>;
  std::map<XnnKey, std::weak_ptr<SharedXnnFullyConnected>> xnn_entries_;
  int64_t reuses_ = 0;
};

struct KernelEnv {
  pthreadpool_t pool = nullptr;
  kernels::Isa isa_cap = kernels::Isa::kBest;
  bool use_xnnpack = false;
  PreparedWeightCache* weight_cache = nullptr;  // may be null: nothing is shared
  // SessionOptions::on_constant_bytes_read (may be empty).
  std::function<void(const void* data, size_t bytes_read)> on_constant_bytes_read = nullptr;
  // SessionOptions::on_constant_row_read (may be empty).
  std::function<void(const void* data, size_t bytes)> on_constant_row_read = nullptr;
};

// What a kernel factory (OpDef::create_kernel) is given: the node, its graph (types, constant
// tensors) and the session's environment.
struct KernelArgs {
  const Graph& graph;
  const Node& node;
  const KernelEnv& env;

  const ValueType& in_type(int i) const { return graph.value_type(node.inputs[i]); }
  const Shape& in_shape(int i) const { return in_type(i).type.shape; }
  int in(int i) const { return node.inputs[i]; }
  int out() const { return node.outputs[0]; }
  const ValueType& out_type() const { return graph.value_type(node.outputs[0]); }
  // The constant tensor input `i` is, or null if it is computed.
  const Tensor* constant(int i) const;
};

// A kernel for an op node of `graph` (kind NodeKind::kOp), from its OpDef (node.def, or for a
// custom op registered after the graph was built, the registry's entry of that name: NotFound
// naming it if there is none). A custom op's declared output types are checked against its
// inference. Constant inputs are read through the slots like every other value; kernels that
// prepare weights at Load (qmatmul, XNNPACK fully-connected) read them from the graph's constant
// tensors, which the caller keeps alive as long as the kernel.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const Graph& graph, const Node& node,
                                                         const KernelEnv& env);

// A kernel that copies value `from` to value `to` (`bytes` bytes), named `name`.
std::unique_ptr<OpKernel> CreateCopyKernel(int from, int to, size_t bytes,
                                           const char* name = "copy");

// A new XNNPACK fully-connected operator over f32 weights [n, k] (transposed) or [k, n].
absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> CreateXnnFullyConnected(
    const float* weights, int64_t k, int64_t n, bool transposed);

// Calls xnn_initialize once per process; the status says why XNNPACK is unusable.
absl::Status InitializeXnnpack();

}  // namespace internal
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_
