#include "axe/base/python_error.h"

#include <optional>

#include "absl/strings/cord.h"

namespace axe {

absl::Status TypeError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kPythonExceptionPayload, absl::Cord("TypeError"));
  return status;
}

bool IsTypeError(const absl::Status& status) {
  const auto payload = status.GetPayload(kPythonExceptionPayload);
  return payload.has_value() && *payload == "TypeError";
}

}  // namespace axe
