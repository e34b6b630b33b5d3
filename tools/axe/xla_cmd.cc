// axe xla explain|offset|check: XLA shapes and layouts as people paste them from HLO dumps.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/explorer/answer_json.h"
#include "axe/picture/xla_picture.h"
#include "axe/xla/explain.h"
#include "axe/xla/hlo_text.h"
#include "axe/xla/memory_space.h"
#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "axe/xla/validate.h"
#include "cli.h"

namespace axe::cli {
namespace xla_cmd {
namespace {

using xla::Shape;

struct ShapeArgs {
  std::string shape;
  bool lenient = false;
};

void AddShapeArgs(CLI::App* cmd, ShapeArgs& args) {
  cmd->add_option("shape", args.shape,
                  "An XLA shape in HLO text, e.g. 'bf16[16,256]{1,0:T(8,128)(2,1)}'; '-' reads "
                  "standard input, '@FILE' a file")
      ->required();
  cmd->add_flag(
      "--lenient", args.lenient,
      "Check a standalone array only for its minor_to_major length, as XLA's parser does");
}

absl::StatusOr<Shape> ParseShapeText(const std::string& text, const ShapeArgs& args) {
  absl::StatusOr<Shape> s = xla::ParseShape(text, {.lenient = args.lenient});
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("shape: ", s.status().message()));
  return s;
}

absl::StatusOr<Shape> ParseShapeArgs(const ShapeArgs& args) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.shape, "shape"));
  return ParseShapeText(text, args);
}

// The facts of a shape as JSON: explorer/answer_json.h (the explorer answers the same).
absl::StatusOr<Json> ShapeJson(const Shape& s) {
  AXE_ASSIGN_OR_RETURN(std::string text, explorer::XlaShapeJson(s));
  return Json::parse(text);
}

Json IndexJson(const xla::IndexExplanation& at) {
  Json levels = Json::array();
  for (const xla::LevelPosition& p : at.levels) {
    levels.push_back({{"tile_index", p.tile_index}, {"within", p.within}});
  }
  return {
      {"index", at.index},      {"linear_index", at.linear_index}, {"byte_offset", at.byte_offset},
      {"packed", at.packed},    {"bit_in_byte", at.bit_in_byte},   {"bit_offset", at.bit_offset},
      {"tile_position", levels}};
}

void PrintShapeText(std::ostream& out, const Shape& s) {
  if (!s.IsTuple()) {
    absl::StatusOr<xla::ArrayExplanation> e = xla::ExplainNonTuple(s);
    out << (e.ok() ? xla::ExplainText(*e) : absl::StrCat(e.status().message(), "\n"));
    return;
  }
  out << "tuple           " << s.ToString() << "\n";
  std::vector<xla::LeafExplanation> leaves = xla::ExplainLeaves(s);
  if (leaves.empty()) out << "{} () (an empty tuple)\n";
  for (const xla::LeafExplanation& leaf : leaves) out << xla::LeafLine(leaf);
}

struct ExplainArgs : ShapeArgs {
  std::string index;
  std::string leaf;
  std::string svg;    // --svg FILE: the tiling picture
  std::string latex;  // --latex FILE: the same picture as TikZ
};

// ---- HLO instruction lines and modules ----

Json ShapeJsonOrNull(const Shape& s) {
  absl::StatusOr<Json> j = ShapeJson(s);
  return j.ok() ? *j : Json(nullptr);
}

Json InstructionJson(const xla::HloInstruction& ins) {
  Json operands = Json::array();
  for (const xla::HloOperand& op : ins.operands) {
    operands.push_back(
        {{"name", op.name}, {"shape", op.shape ? ShapeJsonOrNull(*op.shape) : Json(nullptr)}});
  }
  return {{"computation", ins.computation},
          {"name", ins.name},
          {"opcode", ins.opcode},
          {"root", ins.is_root},
          {"line", ins.line},
          {"result", ShapeJsonOrNull(ins.result)},
          {"operands", operands}};
}

// The module as one JSON object, written an instruction at a time (a whole module's JSON
// tree would take about a hundred times the text's bytes).
void PrintHloJson(std::ostream& out, const xla::HloText& hlo,
                  const std::vector<xla::MemorySpaceTotal>& totals) {
  Json head = {{"module", hlo.module_name.empty() ? Json(nullptr) : Json(hlo.module_name)}};
  head["entry_computation_layout"] = nullptr;
  if (hlo.entry_computation_layout) {
    Json params = Json::array();
    for (const Shape& p : hlo.entry_computation_layout->parameters)
      params.push_back(ShapeJsonOrNull(p));
    head["entry_computation_layout"] = {
        {"parameters", params}, {"result", ShapeJsonOrNull(hlo.entry_computation_layout->result)}};
  }
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the object goes on
  out << text << ",\"instructions\":[";
  for (size_t i = 0; i < hlo.instructions.size(); ++i) {
    out << (i > 0 ? "," : "") << InstructionJson(hlo.instructions[i]).dump();
  }
  Json spaces = Json::array();
  for (const xla::MemorySpaceTotal& t : totals) {
    spaces.push_back({{"memory_space", t.memory_space},
                      {"memory_space_name", std::string(xla::MemorySpaceName(t.memory_space))},
                      {"buffers", t.buffers},
                      {"array_size_bytes", t.array_size_bytes},
                      {"unsized_buffers", t.unsized_buffers}});
  }
  out << "],\"memory_space_totals\":" << spaces.dump() << "}\n";
}

// One table row per array leaf of a shape: "<role> <name> {leaf} shape: sizes, memory space".
void PrintRows(std::ostream& out, absl::string_view role, absl::string_view name, const Shape& s) {
  for (const xla::LeafExplanation& leaf : xla::ExplainLeaves(s)) {
    out << "  " << role << " " << name << " " << xla::LeafLine(leaf);
  }
}

// A lone instruction: every shape explained in full.
void PrintInstruction(std::ostream& out, const xla::HloInstruction& ins) {
  out << "instruction     " << ins.name << " = " << ins.opcode << "(...) with "
      << ins.operands.size() << " operands\n\n== result " << ins.name << "\n";
  PrintShapeText(out, ins.result);
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    const xla::HloOperand& op = ins.operands[k];
    out << "\n== operand " << k << " " << (op.name.empty() ? "(unnamed)" : op.name) << "\n";
    if (op.shape) {
      PrintShapeText(out, *op.shape);
    } else {
      out << "(no shape written; it is the result of " << op.name << ")\n";
    }
  }
}

void PrintModule(std::ostream& out, const xla::HloText& hlo,
                 const std::vector<xla::MemorySpaceTotal>& totals) {
  if (!hlo.module_name.empty()) out << "module          " << hlo.module_name << "\n";
  if (hlo.entry_computation_layout) {
    out << "entry layout    " << hlo.entry_computation_layout->ComputationLayoutString() << "\n";
    const auto& params = hlo.entry_computation_layout->parameters;
    for (size_t k = 0; k < params.size(); ++k)
      PrintRows(out, absl::StrCat("parameter ", k), "", params[k]);
    PrintRows(out, "result", "", hlo.entry_computation_layout->result);
  }
  std::optional<std::string> computation;  // the one whose header was printed last
  for (const xla::HloInstruction& ins : hlo.instructions) {
    if (ins.computation != computation) {
      computation = ins.computation;
      out << "\ncomputation     " << (computation->empty() ? "(none)" : *computation) << "\n";
    }
    out << "line " << ins.line << ": " << (ins.is_root ? "ROOT " : "") << ins.name << " = "
        << ins.opcode << "\n";
    PrintRows(out, "result ", ins.name, ins.result);
    for (size_t k = 0; k < ins.operands.size(); ++k) {
      if (ins.operands[k].shape)
        PrintRows(out, absl::StrCat("operand ", k), ins.operands[k].name, *ins.operands[k].shape);
    }
  }
  out << "\ntotals per memory space (instruction results, without tuple, get-tuple-element "
         "and bitcast, which alias; XLA's ArraySize)\n";
  for (const xla::MemorySpaceTotal& t : totals) {
    out << "  S(" << t.memory_space << ") " << xla::MemorySpaceName(t.memory_space) << ": "
        << t.buffers << " buffers, " << t.array_size_bytes << " bytes";
    if (t.unsized_buffers > 0) out << " (" << t.unsized_buffers << " without a size, not counted)";
    out << "\n";
  }
}

// The bytes explaining HLO takes per byte of its text: the scanned module (its shapes,
// names and operands) and, with --json, one instruction's JSON at a time.
constexpr int64_t kHloBytesPerTextByte = 20;

absl::Status RunExplainHlo(std::ostream& out, const std::string& text, bool json,
                           const MemoryBudget& budget) {
  AXE_RETURN_IF_ERROR(
      budget.Check(CheckedMul(static_cast<int64_t>(text.size()), kHloBytesPerTextByte),
                   absl::StrCat("explaining ", text.size(), " bytes of HLO")));
  absl::StatusOr<xla::HloText> hlo = xla::ScanHlo(text);
  if (!hlo.ok()) return absl::InvalidArgumentError(absl::StrCat("HLO: ", hlo.status().message()));
  AXE_ASSIGN_OR_RETURN(std::vector<xla::MemorySpaceTotal> totals,
                       xla::ResultBytesByMemorySpace(*hlo));
  if (json) {
    PrintHloJson(out, *hlo, totals);
  } else if (hlo->module_name.empty() && hlo->instructions.size() == 1) {
    PrintInstruction(out, hlo->instructions[0]);
  } else {
    PrintModule(out, *hlo, totals);
  }
  return absl::OkStatus();
}

absl::Status RunExplain(std::ostream& out, const ExplainArgs& args, bool has_index, bool has_leaf,
                        bool json, const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.shape, "shape"));
  if (xla::LooksLikeHlo(text)) {
    if (has_index || has_leaf) {
      return absl::InvalidArgumentError("--index and --leaf take a single shape, not HLO text");
    }
    if (!args.svg.empty() || !args.latex.empty())
      return absl::InvalidArgumentError("--svg and --latex take a single shape, not HLO text");
    return RunExplainHlo(out, text, json, budget);
  }
  AXE_ASSIGN_OR_RETURN(Shape whole, ParseShapeText(text, args));
  std::vector<int64_t> leaf_index;
  if (has_leaf) {
    AXE_ASSIGN_OR_RETURN(leaf_index, ParseIntListOption(args.leaf, "--leaf"));
  }
  absl::StatusOr<const Shape*> leaf = xla::TupleLeaf(whole, leaf_index);
  if (!leaf.ok())
    return absl::InvalidArgumentError(absl::StrCat("--leaf: ", leaf.status().message()));
  const Shape& s = **leaf;
  if (!args.svg.empty() || !args.latex.empty()) {
    absl::StatusOr<std::string> svg = picture::TiledArraySvg(s);
    if (!svg.ok()) return InOption(args.svg.empty() ? "--latex" : "--svg", svg.status());
    AXE_RETURN_IF_ERROR(WritePictureFiles(args.svg, args.latex, *svg));
  }
  std::optional<xla::IndexExplanation> at;
  if (has_index) {
    if (!s.IsArray() && !s.IsBuffer()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--index needs an array shape, got ", ElideForMessage(s.ToString()),
                       s.IsTuple() ? " (pick a tuple leaf with --leaf)" : ""));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ParseIntListOption(args.index, "--index"));
    absl::StatusOr<xla::IndexExplanation> r = xla::ExplainIndex(s, idx);
    if (!r.ok()) return absl::InvalidArgumentError(absl::StrCat("--index: ", r.status().message()));
    at = *std::move(r);
  }
  if (json) {
    AXE_ASSIGN_OR_RETURN(Json j, ShapeJson(s));
    if (has_leaf) j["leaf"] = leaf_index;
    if (at) {
      j["linear_index"] = at->linear_index;
      j["element_position"] = IndexJson(*at);
      j["tile_position"] = j["element_position"]["tile_position"];
    }
    PrintJson(out, j);
    return absl::OkStatus();
  }
  if (has_leaf)
    out << "leaf            {" << absl::StrJoin(leaf_index, ",") << "} of " << whole.ToString()
        << "\n";
  PrintShapeText(out, s);
  if (at) out << xla::ExplainIndexText(*at);
  return absl::OkStatus();
}

void AddExplain(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = group.add_subcommand(
      "explain",
      "Element type, sizes, memory space, physical order, tiling and the Axe form of a shape");
  AddShapeArgs(cmd, *args);
  CLI::Option* index =
      cmd->add_option("--index", args->index, "A logical index, e.g. 2,3: its offset and tile");
  CLI::Option* leaf = cmd->add_option(
      "--leaf", args->leaf, "A tuple leaf, e.g. 1,0 (element 0 of element 1): explain only it");
  cmd->add_option("--svg", args->svg,
                  "Also draw the tiling (tiles numbered in memory order, padding, sub-tiles) "
                  "as an SVG picture into FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, args->latex);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, index, leaf, &selected]() -> absl::Status {
    return RunExplain(*selected.out, *args, index->count() > 0, leaf->count() > 0, selected.json,
                      selected.budget);
  });
}

void AddOffset(CLI::App& group, Selected& selected) {
  struct Args : ShapeArgs {
    int64_t linear = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "offset",
      "The logical index stored at a linear offset (in elements) of the tiled buffer, or padding");
  AddShapeArgs(cmd, *args);
  cmd->add_option("--linear", args->linear, "Offset in elements, in [0, padded_elements)")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(Shape s, ParseShapeArgs(*args));
    const Shape& a = s.array_shape();
    if (!a.IsArray()) {
      return absl::InvalidArgumentError("offset needs an array shape, got " +
                                        ElideForMessage(s.ToString()));
    }
    AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(a));
    absl::StatusOr<xla::DelinearizedIndex> r = m.Delinearize(args->linear);
    if (!r.ok())
      return absl::InvalidArgumentError(absl::StrCat("--linear: ", r.status().message()));
    if (selected.json) {
      PrintJson(out, r->padding ? Json{{"index", nullptr}, {"padding", true}}
                                : Json{{"index", r->index}});
    } else {
      out << (r->padding ? std::string("padding") : FormatTuple(r->index)) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddCheck(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<ShapeArgs>();
  CLI::App* cmd =
      group.add_subcommand("check", "Validate a shape: prints ok, or the error (exit code 2)");
  AddShapeArgs(cmd, *args);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(Shape s, ParseShapeArgs(*args));
    if (selected.json) {
      PrintJson(out, {{"ok", true}, {"shape", s.ToString()}});
    } else {
      out << "ok\n";
    }
    return absl::OkStatus();
  });
}

void AddXlaCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand("xla", "XLA shapes and layouts: explain, offset, check");
  group->require_subcommand(1);
  AddExplain(*group, selected);
  AddOffset(*group, selected);
  AddCheck(*group, selected);
}

AXE_CLI_COMMAND_GROUP(20, AddXlaCommands);

}  // namespace
}  // namespace xla_cmd
}  // namespace axe::cli
