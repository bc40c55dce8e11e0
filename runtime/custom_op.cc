#include "runtime/custom_op.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "graph/op.h"
#include "runtime/internal/op_kernels.h"

namespace edgeq {
namespace {

using internal::ExecContext;
using internal::OpKernel;

class CustomKernelAdapter : public OpKernel {
 public:
  CustomKernelAdapter(const CustomOpDef* def, std::vector<int> in_ids, std::vector<int> out_ids,
                      std::vector<ValueType> in_types, std::vector<ValueType> out_types)
      : def_(def),
        in_ids_(std::move(in_ids)),
        out_ids_(std::move(out_ids)),
        in_types_(std::move(in_types)),
        out_types_(std::move(out_types)),
        in_refs_(in_ids_.size()),
        out_refs_(out_ids_.size()) {
    for (size_t i = 0; i < in_refs_.size(); ++i) in_refs_[i].type = &in_types_[i];
    for (size_t i = 0; i < out_refs_.size(); ++i) out_refs_[i].type = &out_types_[i];
  }
  absl::Status Run(const ExecContext& ctx) override {
    for (size_t i = 0; i < in_refs_.size(); ++i) in_refs_[i].data = ctx.slots[in_ids_[i]];
    for (size_t i = 0; i < out_refs_.size(); ++i) out_refs_[i].data = ctx.slots[out_ids_[i]];
    absl::Status s = def_->kernel(in_refs_, out_refs_, ctx.pool);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("custom op ", def_->name, ": ", s.message()));
    }
    return s;
  }
  std::string name() const override { return absl::StrCat("custom:", def_->name); }

 private:
  const CustomOpDef* def_;
  std::vector<int> in_ids_, out_ids_;
  std::vector<ValueType> in_types_, out_types_;
  std::vector<TensorRef> in_refs_, out_refs_;
};

// The OpDef of a custom op: any number of inputs, no attributes, the shape function as its
// inference (plain outputs), the adapter as its kernel.
OpDef ToOpDef(const CustomOpDef* custom) {
  OpDef def;
  def.name = custom->name;
  def.min_inputs = 0;
  def.max_inputs = -1;
  def.custom = true;
  def.infer = [custom](const InferInput& in,
                       const OpAttributes&) -> absl::StatusOr<std::vector<ValueType>> {
    absl::StatusOr<std::vector<TensorType>> types = custom->shape_function(in.types);
    if (!types.ok()) return types.status();
    std::vector<ValueType> out;
    for (const TensorType& t : *types) out.push_back(ValueType{t, "", t.shape});
    return out;
  };
  def.create_kernel =
      [custom](const internal::KernelArgs& a) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    std::vector<ValueType> in_types, out_types;
    for (int id : a.node.inputs) in_types.push_back(a.graph.value_type(id));
    for (int id : a.node.outputs) out_types.push_back(a.graph.value_type(id));
    return std::unique_ptr<OpKernel>(new CustomKernelAdapter(
        custom, a.node.inputs, a.node.outputs, std::move(in_types), std::move(out_types)));
  };
  return def;
}

}  // namespace

struct CustomOpRegistry::Impl {
  mutable absl::Mutex mu;
  // Values are heap-allocated so that pointers handed out stay valid.
  std::map<std::string, std::unique_ptr<CustomOpDef>, std::less<>> ops ABSL_GUARDED_BY(mu);
};

CustomOpRegistry::CustomOpRegistry() : impl_(std::make_unique<Impl>()) {}
CustomOpRegistry::~CustomOpRegistry() = default;

CustomOpRegistry& CustomOpRegistry::Global() {
  static CustomOpRegistry* registry = new CustomOpRegistry();
  return *registry;
}

absl::Status CustomOpRegistry::Register(CustomOpDef def) {
  if (def.name.empty()) return absl::InvalidArgumentError("custom op: empty name");
  if (!def.shape_function || !def.kernel) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom op ", def.name, ": needs both a shape function and a kernel"));
  }
  absl::MutexLock lock(&impl_->mu);
  if (impl_->ops.count(def.name) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("custom op ", def.name, " is already registered"));
  }
  auto owned = std::make_unique<CustomOpDef>(std::move(def));
  absl::Status s = OpRegistry::Global().Register(ToOpDef(owned.get()));
  if (!s.ok()) return s;
  std::string name = owned->name;
  impl_->ops.emplace(std::move(name), std::move(owned));
  return absl::OkStatus();
}

absl::StatusOr<const CustomOpDef*> CustomOpRegistry::Find(absl::string_view name) const {
  absl::MutexLock lock(&impl_->mu);
  auto it = impl_->ops.find(name);
  if (it == impl_->ops.end()) {
    std::vector<std::string> names;
    for (const auto& entry : impl_->ops) names.push_back(entry.first);
    return absl::NotFoundError(
        absl::StrCat("custom op \"", name, "\" is not registered (registered: ",
                     names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  return it->second.get();
}

std::vector<std::string> CustomOpRegistry::Names() const {
  absl::MutexLock lock(&impl_->mu);
  std::vector<std::string> names;
  for (const auto& entry : impl_->ops) names.push_back(entry.first);
  return names;
}

}  // namespace edgeq
