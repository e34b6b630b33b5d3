// The explorer's four kinds of input (private to src/explorer): each reads its fields and
// produces the CLI's --json answer and the drawing, or an error about one field.
#ifndef AXE_SRC_EXPLORER_KINDS_H_
#define AXE_SRC_EXPLORER_KINDS_H_

#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace axe::explorer {

using Fields = std::map<std::string, std::string>;

struct KindAnswer {
  // Bad input: the field it is about and why.
  std::string error_field;
  absl::Status error;
  std::string answer_json;         // the answer when error is OK
  std::optional<std::string> svg;  // the drawing, or none and why
  std::string svg_error;
};

// A KindAnswer holding the error `status` about `field`.
KindAnswer FieldError(absl::string_view field, absl::Status status);
// An error naming the first field not in `known`; OK when every field is known.
KindAnswer CheckKnownFields(const Fields& fields, std::initializer_list<absl::string_view> known);
// The value of `name`, "" when absent.
std::string FieldOr(const Fields& fields, absl::string_view name, absl::string_view fallback = "");
// The field `name` without leading and trailing whitespace ("" when absent).
std::string Trimmed(const Fields& fields, absl::string_view name);

KindAnswer AnswerLayout(const Fields& fields);    // layout_kind.cc
KindAnswer AnswerXla(const Fields& fields);       // xla_kind.cc
KindAnswer AnswerSharding(const Fields& fields);  // sharding_kind.cc
KindAnswer AnswerGrid(const Fields& fields);      // grid_kind.cc

}  // namespace axe::explorer

#endif  // AXE_SRC_EXPLORER_KINDS_H_
