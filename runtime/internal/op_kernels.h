// The runtime's kernels for built-in and custom ops, bound at Load to value ids and shapes.
#ifndef EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_
#define EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_

#include <cstddef>
#include <memory>
#include <string>

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
};

struct KernelEnv {
  pthreadpool_t pool = nullptr;
  kernels::Isa isa_cap = kernels::Isa::kBest;
  bool use_xnnpack = false;
};

// A kernel for `node` of `graph` (any op but "input" and "constant"). Constant inputs are read
// through the slots like every other value; kernels that prepare weights at Load (qmatmul,
// XNNPACK fully-connected) read them from the graph's constant tensors, which the caller keeps
// alive as long as the kernel.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const Graph& graph, const Node& node,
                                                         const KernelEnv& env);

// A kernel that copies value `from` to value `to` (`bytes` bytes).
std::unique_ptr<OpKernel> CreateCopyKernel(int from, int to, size_t bytes);

// Calls xnn_initialize once per process; the status says why XNNPACK is unusable.
absl::Status InitializeXnnpack();

}  // namespace internal
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_INTERNAL_OP_KERNELS_H_
