#include "axe/xla/program_shape.h"

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "shape_parser.h"

namespace axe::xla {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
    out += items[i];
  }
  return out;
}

}  // namespace

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (size_t i = 0; i < parameters.size(); ++i) {
    params.push_back(absl::StrCat(i < parameter_names.size() ? parameter_names[i] : "(unknown)",
                                  ": ", parameters[i].ToString(false)));
  }
  std::string out = "(";
  for (size_t i = 0; i < params.size(); ++i) absl::StrAppend(&out, i > 0 ? ", " : "", params[i]);
  return absl::StrCat(out, ") -> ", result.ToString(false));
}

std::string ProgramShape::ComputationLayoutString() const {
  std::vector<std::string> params;
  for (const Shape& p : parameters) params.push_back(p.ToString(true));
  return absl::StrCat("(", Join(params), ")->", result.ToString(true));
}

absl::StatusOr<ProgramShape> ParseProgramShape(absl::string_view text,
                                               const ParseOptions& options) {
  Scanner s(text, Scanner::Options{.skip_comments = true});
  internal::ShapeParser parser(s, options);
  const bool braced = s.TryConsume('{');
  AXE_RETURN_IF_ERROR(s.Expect('('));
  ProgramShape p;
  if (!s.TryConsume(')')) {
    while (true) {
      // An optional `name:` (identifiers may hold '.' and '-'), or `(unknown):`.
      const size_t save = s.pos();
      std::optional<std::string> name;
      if (s.TryConsume("(unknown)") && s.TryConsume(':')) {
        name = "(unknown)";
      } else {
        s.set_pos(save);
        std::optional<absl::string_view> id = s.TryIdent(".-");
        if (id && s.TryConsume(':')) {
          name = std::string(*id);
        } else {
          s.set_pos(save);
        }
      }
      if (name.has_value() != (p.parameter_names.size() == p.parameters.size()) &&
          !p.parameters.empty()) {
        return s.MessageAt(save, "either every parameter is named or none is");
      }
      if (name) p.parameter_names.push_back(*name);
      s.SkipSpace();
      const size_t at = s.pos();
      AXE_ASSIGN_OR_RETURN(Shape shape, parser.ParseShape());
      if (absl::Status st = parser.ValidateTopLevel(shape); !st.ok())
        return s.MessageAt(at, st.message());
      p.parameters.push_back(std::move(shape));
      if (s.TryConsume(',')) continue;
      if (s.TryConsume(')')) break;
      return s.Error("',' or ')' in the parameter list");
    }
  }
  if (!s.TryConsume("->")) return s.Error("'->'");
  s.SkipSpace();
  const size_t at = s.pos();
  AXE_ASSIGN_OR_RETURN(p.result, parser.ParseShape());
  if (absl::Status st = parser.ValidateTopLevel(p.result); !st.ok())
    return s.MessageAt(at, st.message());
  if (braced) AXE_RETURN_IF_ERROR(s.Expect('}'));
  if (!s.AtEnd()) return s.MessageAt(s.pos(), "extra content after program shape");
  return p;
}

}  // namespace axe::xla
