// Which Python exception a user-input error corresponds to, for the bindings: JAX raises
// TypeError for some mistakes and ValueError for most. A status made by TypeError() carries a
// payload saying so; every other InvalidArgument is a ValueError.
#ifndef AXE_BASE_PYTHON_ERROR_H_
#define AXE_BASE_PYTHON_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace axe {

// The payload type URL that marks a status as a Python TypeError.
inline constexpr absl::string_view kPythonExceptionPayload = "axe/python-exception";

// InvalidArgument with `message`, marked as a TypeError.
absl::Status TypeError(absl::string_view message);

// True when `status` was made by TypeError().
bool IsTypeError(const absl::Status& status);

}  // namespace axe

#endif  // AXE_BASE_PYTHON_ERROR_H_
