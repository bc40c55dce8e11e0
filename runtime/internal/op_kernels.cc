#include "runtime/internal/op_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "quantization/encoding.h"
#include "xnnpack.h"

namespace edgeq {
namespace internal {
namespace {

class CopyKernel : public OpKernel {
 public:
  CopyKernel(std::string name, int from, int to, size_t bytes)
      : name_(std::move(name)), from_(from), to_(to), bytes_(bytes) {}
  absl::Status Run(const ExecContext& ctx) override {
    if (bytes_ > 0) std::memcpy(ctx.slots[to_], ctx.slots[from_], bytes_);
    return absl::OkStatus();
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  int from_, to_;
  size_t bytes_;
};

std::string TypesString(const std::vector<TensorType>& types) {
  std::string out;
  for (const TensorType& t : types) absl::StrAppend(&out, out.empty() ? "" : ", ", t.ToString());
  return out;
}

// A custom op (def->custom) or a node whose op was resolved at Load: its inference must accept
// the inputs and give the output types the graph declared.
absl::Status CheckDeclaredOutputs(const Graph& graph, const Node& node, const OpDef& def) {
  std::vector<ValueType> in_types;
  InferInput in;
  for (int id : node.inputs) {
    in_types.push_back(graph.value_type(id));
    in.is_constant.push_back(graph.nodes()[graph.producer(id)].kind == NodeKind::kConstant);
  }
  in.types = in_types;
  const int n = static_cast<int>(node.inputs.size());
  if (n < def.min_inputs || (def.max_inputs >= 0 && n > def.max_inputs)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("custom op %s: takes %d to %d inputs, the graph gives %d", node.op,
                        def.min_inputs, def.max_inputs, n));
  }
  absl::StatusOr<std::vector<ValueType>> expected = def.infer(in, *node.attrs);
  if (!expected.ok()) {
    return absl::Status(
        expected.status().code(),
        absl::StrCat("custom op ", node.op,
                     ": shape function rejected the inputs: ", expected.status().message()));
  }
  std::vector<TensorType> want, got;
  for (const ValueType& t : *expected) want.push_back(t.type);
  for (int id : node.outputs) got.push_back(graph.value_type(id).type);
  if (want != got) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "custom op %s: the graph declares outputs (%s) but its shape function gives (%s)", node.op,
        TypesString(got), TypesString(want)));
  }
  return absl::OkStatus();
}

}  // namespace

const Tensor* KernelArgs::constant(int i) const {
  const Node& producer = graph.nodes()[graph.producer(node.inputs[i])];
  return producer.kind == NodeKind::kConstant ? &producer.constant : nullptr;
}

absl::Status InitializeXnnpack() {
  static absl::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  absl::call_once(once, [] { status = xnn_initialize(/*allocator=*/nullptr); });
  if (status != xnn_status_success) {
    return absl::UnavailableError(
        absl::StrFormat("xnn_initialize failed with status %d (CPU not recognized by cpuinfo?)",
                        static_cast<int>(status)));
  }
  return absl::OkStatus();
}

std::unique_ptr<OpKernel> CreateCopyKernel(int from, int to, size_t bytes, const char* name) {
  return std::make_unique<CopyKernel>(name, from, to, bytes);
}

absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> CreateXnnFullyConnected(
    const float* weights, int64_t k, int64_t n, bool transposed) {
  auto shared = std::make_shared<SharedXnnFullyConnected>();
  xnn_operator_t op = nullptr;
  const xnn_status s =
      xnn_create_fully_connected_nc_f32(k, n, k, n, weights, /*bias=*/nullptr, -INFINITY, INFINITY,
                                        transposed ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS, &op);
  if (s != xnn_status_success) {
    return absl::InternalError(absl::StrFormat(
        "matmul: xnn_create_fully_connected_nc_f32(k=%d, n=%d) failed with status %d", k, n,
        static_cast<int>(s)));
  }
  shared->op = op;
  return shared;
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const Graph& graph, const Node& node,
                                                         const KernelEnv& env) {
  const OpDef* def = node.def;
  if (def == nullptr) {
    // A custom op registered after the graph was built.
    absl::StatusOr<const OpDef*> found = OpRegistry::Global().Find(node.op);
    if (!found.ok()) {
      return absl::NotFoundError(absl::StrCat("custom ", found.status().message()));
    }
    if (!(*found)->custom) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node ", node.op, ": built-in ops must be built with their builder (graph/ops.h)"));
    }
    def = *found;
  }
  if (node.def == nullptr || def->custom) {
    EDGEQ_RETURN_IF_ERROR(CheckDeclaredOutputs(graph, node, *def));
  }
  return def->create_kernel(KernelArgs{graph, node, env});
}

absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> PreparedWeightCache::GetOrCreate(
    const std::string& encoding, int64_t n, int64_t k, absl::Span<const uint8_t> weights,
    kernels::Isa cap, const kernels::QMatmulKernel::WeightsReadFn& on_read, pthreadpool_t pool) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key key(encoding, n, k, weights.data(), weights.size(), cap);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (std::shared_ptr<const kernels::QMatmulKernel> live = it->second.lock()) {
      ++reuses_;
      return live;
    }
  }
  absl::StatusOr<std::unique_ptr<kernels::QMatmulKernel>> created =
      kernels::QMatmulKernel::Create(encoding, n, k, weights, cap, on_read, pool);
  if (!created.ok()) return created.status();
  std::shared_ptr<const kernels::QMatmulKernel> kernel = *std::move(created);
  // Drop expired entries so that the map does not grow with every CompiledGraph ever loaded.
  for (auto e = entries_.begin(); e != entries_.end();) {
    e = e->second.expired() ? entries_.erase(e) : std::next(e);
  }
  entries_[key] = kernel;
  return kernel;
}

SharedXnnFullyConnected::~SharedXnnFullyConnected() {
  if (op != nullptr) xnn_delete_operator(static_cast<xnn_operator_t>(op));
}

absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> PreparedWeightCache::GetOrCreateXnn(
    const float* weights, int64_t k, int64_t n, bool transposed) {
  std::lock_guard<std::mutex> lock(mu_);
  const XnnKey key(weights, k, n, transposed);
  auto it = xnn_entries_.find(key);
  if (it != xnn_entries_.end()) {
    if (std::shared_ptr<SharedXnnFullyConnected> live = it->second.lock()) {
      ++reuses_;
      return live;
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<SharedXnnFullyConnected> op,
                         CreateXnnFullyConnected(weights, k, n, transposed));
  for (auto e = xnn_entries_.begin(); e != xnn_entries_.end();) {
    e = e->second.expired() ? xnn_entries_.erase(e) : std::next(e);
  }
  xnn_entries_[key] = op;
  return op;
}

int64_t PreparedWeightCache::reuses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reuses_;
}

uint64_t PreparedWeightCache::copy_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t bytes = 0;
  for (const auto& entry : entries_) {
    if (std::shared_ptr<const kernels::QMatmulKernel> live = entry.second.lock()) {
      bytes += live->copy_bytes();
    }
  }
  return bytes;
}

}  // namespace internal
}  // namespace edgeq
