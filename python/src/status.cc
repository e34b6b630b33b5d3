#include "status.h"

#include <string>

#include <nanobind/nanobind.h>

#include "axe/base/python_error.h"

namespace nb = nanobind;

namespace axe::python {

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      if (IsTypeError(status)) throw nb::type_error(message.c_str());
      throw nb::value_error(message.c_str());
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists: throw nb::value_error(message.c_str());
    case absl::StatusCode::kUnimplemented:
      PyErr_SetString(PyExc_NotImplementedError, message.c_str());
      throw nb::python_error();
    case absl::StatusCode::kResourceExhausted:
      PyErr_SetString(PyExc_MemoryError, message.c_str());
      throw nb::python_error();
    default: throw std::runtime_error(message);
  }
}

}  // namespace axe::python
