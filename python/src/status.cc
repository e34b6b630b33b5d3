#include "status.h"

#include <string>

#include <nanobind/stl/string.h>

#include <nanobind/nanobind.h>

#include "axe/base/python_error.h"
#include "axe/base/utf8.h"

namespace nb = nanobind;

namespace axe::python {

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  // Python decodes the message as UTF-8: ill-formed bytes quoted from the input would
  // otherwise leave an empty message.
  std::string message = ToValidUtf8(status.message());
  if (message.empty()) message = absl::StatusCodeToString(status.code());
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

int64_t ToInt64(nb::handle value, const std::string& what) {
  // bool is an int in Python, but no JAX API takes True for a size or an id.
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
    throw nb::type_error(
        (what + " must be an int, got " + nb::cast<std::string>(nb::repr(value))).c_str());
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0) {
    PyErr_SetString(PyExc_OverflowError, (what + " does not fit in int64").c_str());
    throw nb::python_error();
  }
  return static_cast<int64_t>(v);
}

}  // namespace axe::python
