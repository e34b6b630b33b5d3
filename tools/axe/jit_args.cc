#include "jit_args.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"

namespace axe::cli {

absl::StatusOr<ir::ClosedJaxpr> JaxprOption(const std::string& arg) {
  std::string source = arg;
  std::error_code not_a_file;  // a text too long for a path is no file: no exception
  if (!arg.empty() && arg[0] != '{' && arg != "-" && arg[0] != '@' &&
      std::filesystem::is_regular_file(arg, not_a_file)) {
    source = "@" + arg;
  }
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(source, "--jaxpr"));
  absl::StatusOr<ir::ClosedJaxpr> jaxpr = ir::ParseJaxpr(text);
  if (!jaxpr.ok()) return InOption("--jaxpr", jaxpr.status());
  // Checked as `axe ir check` does: a missing or malformed parameter is named in JAX's words.
  if (absl::Status checked = ir::CheckJaxpr(*jaxpr); !checked.ok()) {
    return InOption("--jaxpr", checked);
  }
  return jaxpr;
}

absl::StatusOr<std::vector<std::optional<jit::Format>>> FormatOptions(
    const std::vector<std::string>& texts, absl::string_view option) {
  std::vector<std::optional<jit::Format>> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string what = absl::StrCat(option, " ", i);
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(texts[i], what));
    if (text.empty() || text == "none" || text == "None") {
      out.emplace_back();
      continue;
    }
    absl::StatusOr<jit::Format> f = jit::Format::Parse(text);
    if (!f.ok()) return InOption(what, f.status());
    out.emplace_back(*std::move(f));
  }
  return out;
}

Json CompiledFormatsJson(const std::vector<jit::Format>& formats) {
  Json out = Json::array();
  for (const jit::Format& f : formats) {
    const jit::LocalLayout& l = *f.local_layout();  // a compiled format's is concrete
    Json layout = {{"major_to_minor", l.major_to_minor()},
                   {"tiling", l.tiling() ? Json(*l.tiling()) : Json(nullptr)},
                   {"sub_byte_element_size_in_bits", l.sub_byte_element_size_in_bits()}};
    out.push_back({{"layout", layout},
                   {"sharding", f.sharding() ? Json(f.sharding()->ToString()) : Json(nullptr)},
                   {"format", f.ToString()}});
  }
  return out;
}

}  // namespace axe::cli
