#include "axe/relayout/element_type.h"

#include "absl/strings/str_cat.h"

namespace axe::relayout {

absl::StatusOr<int> ElementBytes(DType type) {
  if (!IsArrayType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type '", XlaName(type),
                     "' is not an array element type; the relayout engine moves array elements"));
  }
  if (IsSubByteNonPred(type)) {
    return absl::UnimplementedError(absl::StrCat(
        "sub-byte packed type '", XlaName(type), "' (", BitWidth(type),
        " bits per element) is not supported by the relayout engine yet; supported element "
        "sizes are 1, 2, 4, 8 and 16 bytes"));
  }
  return ByteWidth(type);
}

absl::Status CheckElementBytes(int bytes) {
  if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "element size ", bytes,
      " bytes is not supported: the relayout engine moves elements of 1, 2, 4, 8 or 16 bytes "
      "(sub-byte packed types such as s4/u4 are not supported yet)"));
}

}  // namespace axe::relayout
