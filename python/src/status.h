// absl::Status -> Python exceptions, of the type JAX raises for the same mistake: a status
// marked by axe::TypeError() (axe/base/python_error.h) is TypeError, other bad values
// (InvalidArgument, OutOfRange, FailedPrecondition) are ValueError, Unimplemented is
// NotImplementedError, ResourceExhausted (an enumeration bound) is MemoryError, the rest
// RuntimeError. The message is axe's.
#ifndef AXE_PYTHON_SRC_STATUS_H_
#define AXE_PYTHON_SRC_STATUS_H_

#include <cstdint>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace axe::python {

// Throws the exception for a non-OK status (returns for OK).
void ThrowIfError(const absl::Status& status);

// A Python int as int64: TypeError (naming `what`) for a non-int, OverflowError beyond int64.
int64_t ToInt64(nanobind::handle value, const std::string& what);

template <typename T>
T Unwrap(absl::StatusOr<T> value) {
  ThrowIfError(value.status());
  return *std::move(value);
}

}  // namespace axe::python

#endif  // AXE_PYTHON_SRC_STATUS_H_
