// Early-return helpers for absl::Status and absl::StatusOr.
//
//   AXE_RETURN_IF_ERROR(Validate(x));
//   AXE_ASSIGN_OR_RETURN(Layout l, Layout::Parse(text));
#ifndef AXE_BASE_STATUS_MACROS_H_
#define AXE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define AXE_RETURN_IF_ERROR(expr)                                 \
  do {                                                            \
    if (::absl::Status axe_status_ = (expr); !axe_status_.ok()) { \
      return axe_status_;                                         \
    }                                                             \
  } while (false)

#define AXE_STATUS_CONCAT_INNER_(a, b) a##b
#define AXE_STATUS_CONCAT_(a, b) AXE_STATUS_CONCAT_INNER_(a, b)

#define AXE_ASSIGN_OR_RETURN(lhs, expr) \
  AXE_ASSIGN_OR_RETURN_IMPL_(AXE_STATUS_CONCAT_(axe_statusor_, __LINE__), lhs, expr)

#define AXE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr)    \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // AXE_BASE_STATUS_MACROS_H_
