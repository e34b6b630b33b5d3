// XLA element types: XLA's PrimitiveType is axe's DType (axe/base/dtype.h), which carries the
// HLO spelling, the widths and the NumPy/jaxpr names. The XLA-flavoured names below are kept
// for code that reads like XLA's own (primitive_util).
//
//   PrimitiveTypeFromName("bf16");   // PrimitiveType::kBF16
//   BitWidth(PrimitiveType::kS4);    // 4
#ifndef AXE_XLA_PRIMITIVE_TYPE_H_
#define AXE_XLA_PRIMITIVE_TYPE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"

namespace axe::xla {

using PrimitiveType = ::axe::DType;

using ::axe::BitWidth;
using ::axe::ByteWidth;
using ::axe::IfrtBitSize;
using ::axe::IsArrayType;
using ::axe::IsComplex;
using ::axe::IsFloatingPoint;
using ::axe::IsIntegral;
using ::axe::IsSignedIntegral;
using ::axe::IsSubByteNonPred;
using ::axe::IsUnsignedIntegral;

// The HLO spelling (XlaName).
inline absl::string_view PrimitiveTypeName(PrimitiveType type) { return XlaName(type); }
// The type an HLO type token names (DTypeFromXlaName).
inline std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name) {
  return DTypeFromXlaName(name);
}
inline absl::Span<const PrimitiveType> AllPrimitiveTypes() { return AllDTypes(); }
inline absl::string_view PrimitiveTypeKind(PrimitiveType type) { return DTypeKind(type); }

}  // namespace axe::xla

#endif  // AXE_XLA_PRIMITIVE_TYPE_H_
