#include "ir_args.h"

#include <iostream>

#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"

namespace axe::cli {

absl::StatusOr<ir::ClosedJaxpr> ReadCheckedJaxpr(const std::string& arg) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, "JAXPR"));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr jaxpr, ir::ParseJaxpr(text));
  AXE_RETURN_IF_ERROR(ir::CheckJaxpr(jaxpr));
  return jaxpr;
}

Json AvalsJson(const std::vector<ir::ShapedArray>& avals) {
  Json out = Json::array();
  for (const ir::ShapedArray& a : avals) out.push_back(a.ShortString());
  return out;
}

void PrintJaxprResult(std::ostream& out, const ir::ClosedJaxpr& j, bool json, Json extra) {
  std::string text = ir::PrintJaxpr(j);
  if (!json) {
    out << text << "\n";
    return;
  }
  Json result = {{"jaxpr", text},
                 {"in_avals", AvalsJson(j.jaxpr.in_avals())},
                 {"out_avals", AvalsJson(j.jaxpr.out_avals())}};
  for (auto& [key, value] : extra.items()) result[key] = value;
  PrintJson(out, result);
}

}  // namespace axe::cli
