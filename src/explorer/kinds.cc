// The helpers the four kinds share.
#include "kinds.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::explorer {

KindAnswer FieldError(absl::string_view field, absl::Status status) {
  KindAnswer out;
  out.error_field = std::string(field);
  out.error = std::move(status);
  return out;
}

KindAnswer CheckKnownFields(const Fields& fields, std::initializer_list<absl::string_view> known) {
  for (const auto& [name, value] : fields) {
    bool found = false;
    for (absl::string_view k : known) found = found || name == k;
    if (!found) {
      return FieldError(
          name, absl::InvalidArgumentError(absl::StrCat(
                    "unknown field '", name, "'; expected one of: ", absl::StrJoin(known, ", "))));
    }
  }
  return {};
}

std::string FieldOr(const Fields& fields, absl::string_view name, absl::string_view fallback) {
  auto it = fields.find(std::string(name));
  return it == fields.end() ? std::string(fallback) : it->second;
}

std::string Trimmed(const Fields& fields, absl::string_view name) {
  return std::string(absl::StripAsciiWhitespace(FieldOr(fields, name)));
}

}  // namespace axe::explorer
