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

namespace edgeq {

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
  std::string name = def.name;
  impl_->ops.emplace(std::move(name), std::make_unique<CustomOpDef>(std::move(def)));
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
