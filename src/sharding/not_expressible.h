// The error of a conversion to a NamedSharding that the source cannot be written as.
#ifndef AXE_SRC_SHARDING_NOT_EXPRESSIBLE_H_
#define AXE_SRC_SHARDING_NOT_EXPRESSIBLE_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace axe::sharding::internal {

// FailedPrecondition "not expressible as a NamedSharding: <reason>".
inline absl::Status NotExpressibleAsNamedSharding(absl::string_view reason) {
  return absl::FailedPreconditionError(
      absl::StrCat("not expressible as a NamedSharding: ", reason));
}

}  // namespace axe::sharding::internal

#endif  // AXE_SRC_SHARDING_NOT_EXPRESSIBLE_H_
