// Status helpers on top of Abseil.
//
//   EDGEQ_RETURN_IF_ERROR(DoThing());
//   EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, shape));
//
// Both return the failing absl::Status from the enclosing function, which must return
// absl::Status or absl::StatusOr<T>.
#ifndef EDGEQ_CORE_STATUS_MACROS_H_
#define EDGEQ_CORE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define EDGEQ_RETURN_IF_ERROR(expr)                \
  do {                                             \
    const ::absl::Status edgeq_status_ = (expr);   \
    if (!edgeq_status_.ok()) return edgeq_status_; \
  } while (0)

#define EDGEQ_STATUS_CONCAT_INNER_(a, b) a##b
#define EDGEQ_STATUS_CONCAT_(a, b) EDGEQ_STATUS_CONCAT_INNER_(a, b)

#define EDGEQ_ASSIGN_OR_RETURN(lhs, rexpr) \
  EDGEQ_ASSIGN_OR_RETURN_IMPL_(EDGEQ_STATUS_CONCAT_(edgeq_statusor_, __LINE__), lhs, rexpr)

#define EDGEQ_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // EDGEQ_CORE_STATUS_MACROS_H_
