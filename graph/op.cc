#include "graph/op.h"

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace edgeq {

struct OpRegistry::Impl {
  mutable absl::Mutex mu;
  // Values are heap-allocated so that pointers handed out stay valid.
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> ops ABSL_GUARDED_BY(mu);
};

OpRegistry::OpRegistry() : impl_(std::make_unique<Impl>()) {}
OpRegistry::~OpRegistry() = default;

}  // namespace edgeq

// The linker's bounds of the `edgeq_builtin_ops` section: one factory per built-in op linked in
// (nullptr for an op a selective build leaves out). Weak: a program without runtime/ops has none.
extern "C" {
extern const edgeq::BuiltinOpFactory __start_edgeq_builtin_ops[]
    __attribute__((weak, visibility("hidden")));
extern const edgeq::BuiltinOpFactory __stop_edgeq_builtin_ops[]
    __attribute__((weak, visibility("hidden")));
}

namespace edgeq {

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    for (const BuiltinOpFactory* p = __start_edgeq_builtin_ops; p != __stop_edgeq_builtin_ops;
         ++p) {
      if (*p == nullptr) continue;
      OpDef def = (*p)();
      const std::string name = def.name;
      absl::Status s = r->Register(std::move(def));
      if (!s.ok()) {
        std::fprintf(stderr, "edgeq: built-in op %s: %s\n", name.c_str(), s.ToString().c_str());
      }
    }
    return r;
  }();
  return *registry;
}

absl::Status OpRegistry::Register(OpDef def) {
  if (def.name.empty()) return absl::InvalidArgumentError("op registry: empty op name");
  if (!def.infer || !def.create_kernel) {
    return absl::InvalidArgumentError(
        absl::StrCat("op ", def.name, ": needs both a type inference and a kernel factory"));
  }
  if (def.min_inputs < 0 || (def.max_inputs >= 0 && def.max_inputs < def.min_inputs)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "op %s: input counts [%d, %d] are not a range", def.name, def.min_inputs, def.max_inputs));
  }
  absl::MutexLock lock(&impl_->mu);
  if (impl_->ops.count(def.name) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("op ", def.name, " is already registered"));
  }
  std::string name = def.name;
  impl_->ops.emplace(std::move(name), std::make_unique<OpDef>(std::move(def)));
  return absl::OkStatus();
}

absl::StatusOr<const OpDef*> OpRegistry::Find(absl::string_view name) const {
  absl::MutexLock lock(&impl_->mu);
  auto it = impl_->ops.find(name);
  if (it == impl_->ops.end()) {
    std::vector<std::string> names;
    for (const auto& entry : impl_->ops) names.push_back(entry.first);
    return absl::NotFoundError(
        absl::StrCat("op \"", name, "\" is not registered (registered: ",
                     names.empty() ? "none: link //runtime/ops" : absl::StrJoin(names, ", "), ")"));
  }
  return it->second.get();
}

std::vector<std::string> OpRegistry::Names() const {
  absl::MutexLock lock(&impl_->mu);
  std::vector<std::string> names;
  for (const auto& entry : impl_->ops) names.push_back(entry.first);
  return names;
}

std::vector<const OpDef*> OpRegistry::Ops() const {
  absl::MutexLock lock(&impl_->mu);
  std::vector<const OpDef*> ops;
  for (const auto& entry : impl_->ops) ops.push_back(entry.second.get());
  return ops;
}

absl::StatusOr<std::shared_ptr<const OpAttributes>> ParseNoAttributes(absl::string_view op,
                                                                      const AttributeMap& map) {
  if (absl::Status s = CheckAttributeKeys(op, map, {}); !s.ok()) return s;
  return std::shared_ptr<const OpAttributes>(std::make_shared<NoAttributes>());
}

namespace {

const AttributeValue* Lookup(const AttributeMap& map, absl::string_view key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

absl::Status WrongKind(absl::string_view op, absl::string_view key, const char* expected) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: attribute %s must be %s", op, key, expected));
}

}  // namespace

absl::StatusOr<int64_t> GetIntAttribute(absl::string_view op, const AttributeMap& map,
                                        absl::string_view key, int64_t fallback) {
  const AttributeValue* v = Lookup(map, key);
  if (v == nullptr) return fallback;
  if (const int64_t* i = std::get_if<int64_t>(v)) return *i;
  return WrongKind(op, key, "an integer");
}

absl::StatusOr<double> GetRealAttribute(absl::string_view op, const AttributeMap& map,
                                        absl::string_view key, double fallback) {
  const AttributeValue* v = Lookup(map, key);
  if (v == nullptr) return fallback;
  if (const double* d = std::get_if<double>(v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return WrongKind(op, key, "a number");
}

absl::StatusOr<std::string> GetStringAttribute(absl::string_view op, const AttributeMap& map,
                                               absl::string_view key, std::string fallback) {
  const AttributeValue* v = Lookup(map, key);
  if (v == nullptr) return fallback;
  if (const std::string* s = std::get_if<std::string>(v)) return *s;
  return WrongKind(op, key, "a string");
}

absl::StatusOr<std::vector<int64_t>> GetIntsAttribute(absl::string_view op, const AttributeMap& map,
                                                      absl::string_view key) {
  const AttributeValue* v = Lookup(map, key);
  if (v == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: missing attribute %s (a list of integers)", op, key));
  }
  if (const auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  return WrongKind(op, key, "a list of integers");
}

absl::Status CheckAttributeKeys(absl::string_view op, const AttributeMap& map,
                                absl::Span<const char* const> known) {
  for (const auto& entry : map) {
    bool found = false;
    for (const char* k : known) found = found || entry.first == k;
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: unknown attribute \"%s\" (expected %s)", op, entry.first,
                          known.empty() ? "none" : absl::StrJoin(known, ", ")));
    }
  }
  return absl::OkStatus();
}

}  // namespace edgeq
