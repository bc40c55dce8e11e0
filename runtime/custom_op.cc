#include "runtime/custom_op.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
// inference (plain outputs), the adapter as its kernel; it owns the CustomOpDef (custom_state).
OpDef ToOpDef(std::shared_ptr<const CustomOpDef> owned) {
  const CustomOpDef* custom = owned.get();
  OpDef def;
  def.name = custom->name;
  def.min_inputs = 0;
  def.max_inputs = -1;
  def.custom = true;
  def.custom_state = std::move(owned);
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

// The names of the registered custom ops, sorted.
std::vector<std::string> CustomNames() {
  std::vector<std::string> names;
  for (const OpDef* def : OpRegistry::Global().Ops()) {
    if (def->custom) names.push_back(def->name);
  }
  return names;
}

}  // namespace

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
  // AlreadyExists if the name is taken (by a custom or a built-in op).
  return OpRegistry::Global().Register(
      ToOpDef(std::make_shared<const CustomOpDef>(std::move(def))));
}

absl::StatusOr<const CustomOpDef*> CustomOpRegistry::Find(absl::string_view name) const {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(name);
  if (!def.ok() || !(*def)->custom) {
    const std::vector<std::string> names = CustomNames();
    return absl::NotFoundError(
        absl::StrCat("custom op \"", name, "\" is not registered (registered: ",
                     names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  return static_cast<const CustomOpDef*>((*def)->custom_state.get());
}

std::vector<std::string> CustomOpRegistry::Names() const { return CustomNames(); }

}  // namespace edgeq
