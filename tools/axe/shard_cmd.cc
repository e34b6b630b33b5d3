// axe shard explain|equivalent: shardings in JAX's, XLA's and Axe's notations.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "axe/base/dtype.h"
#include "axe/base/status_macros.h"
#include "axe/explorer/answer_json.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"
#include "axe/picture/sharding_picture.h"
#include "axe/sharding/equivalent.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/format.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/hlo_instruction.h"
#include "axe/sharding/hlo_module_shardings.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/shardy.h"
#include "axe/xla/text.h"
#include "cli.h"

namespace axe::cli {
namespace shard_cmd {
namespace {

using sharding::DeviceAxisMode;
using sharding::ShardingExplanation;
using sharding::TextOrReason;

// The global array: --shape as dims ("8,8", with --dtype) or an XLA shape whose layout is
// the local layout of every shard ("f32[8,8]{0,1}").
struct ArrayArgs {
  std::string shape;
  std::string dtype = "f32";
  std::string layout;  // JAX major_to_minor, e.g. (1,0)
};

struct ArraySpec {
  std::vector<int64_t> dims;
  DType dtype = DType::kF32;
  std::optional<xla::Layout> local_layout;
};

void AddArrayArgs(CLI::App* cmd, ArrayArgs& args) {
  cmd->add_option("--shape", args.shape,
                  "The global shape: dims such as 8,8, or an XLA shape such as 'f32[8,8]{0,1}' "
                  "whose layout is every shard's ('-' stdin, '@FILE'); optional when --hlo is an "
                  "HLO instruction line");
  cmd->add_option("--dtype", args.dtype, "Element type when --shape gives dims (default f32)");
  cmd->add_option("--layout", args.layout,
                  "Every shard's local layout: JAX's major_to_minor, e.g. '(1,0)', or a JAX "
                  "Layout repr with tiling (default: row-major, or the layout of an XLA --shape)");
}

// "(1, 0)" / "1,0" -> the XLA layout with minor_to_major reversed; "Layout(...)" (JAX's repr,
// tiling included) -> its XLA layout for `dtype`.
absl::StatusOr<xla::Layout> LayoutFromMajorToMinor(const std::string& text, size_t rank,
                                                   DType dtype) {
  if (text.find("Layout") != std::string::npos) {
    absl::StatusOr<sharding::LocalLayout> layout = sharding::LocalLayout::Parse(text);
    if (!layout.ok()) return InOption("--layout", layout.status());
    if (absl::Status fits = layout->CheckCompatibleAval(std::vector<int64_t>(rank, 1));
        !fits.ok()) {
      return InOption("--layout", fits);
    }
    absl::StatusOr<xla::Layout> xla_layout = layout->ToXla(dtype);
    if (!xla_layout.ok()) return InOption("--layout", xla_layout.status());
    return xla_layout;
  }
  std::string inner = text;
  if (!inner.empty() && inner.front() == '(' && inner.back() == ')') {
    inner = inner.substr(1, inner.size() - 2);
  }
  while (!inner.empty() && (inner.back() == ',' || inner.back() == ' ')) inner.pop_back();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> m2m, ParseIntListOption(inner, "--layout"));
  std::vector<bool> seen(rank, false);
  for (int64_t d : m2m) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) {
      return absl::InvalidArgumentError(
          absl::StrCat("--layout: major_to_minor (", absl::StrJoin(m2m, ", "),
                       ") is not a permutation of the ", rank, " dimensions"));
    }
    seen[static_cast<size_t>(d)] = true;
  }
  if (m2m.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--layout: Length of major_to_minor and the rank of the value should match. Got "
        "major_to_minor=(",
        absl::StrJoin(m2m, ", "), ") and shape rank ", rank));
  }
  return xla::Layout(std::vector<int64_t>(m2m.rbegin(), m2m.rend()));
}

// The array: --shape, or (without it) the result shape of an instruction line given as --hlo.
absl::StatusOr<ArraySpec> ParseArray(const ArrayArgs& args,
                                     const std::optional<xla::Shape>& instruction_shape) {
  ArraySpec out;
  std::string text;
  if (!args.shape.empty()) {
    AXE_ASSIGN_OR_RETURN(text, ReadInputText(args.shape, "--shape"));
  } else if (!instruction_shape) {
    return absl::InvalidArgumentError(
        "--shape is required (unless --hlo is an HLO instruction line with its shape)");
  }
  if (text.empty() || text.find('[') != std::string::npos) {
    absl::StatusOr<xla::Shape> shape =
        text.empty() ? absl::StatusOr<xla::Shape>(*instruction_shape) : xla::ParseShape(text);
    if (!shape.ok()) return InOption("--shape", shape.status());
    if (!shape->IsArray()) return absl::InvalidArgumentError("--shape: not an array shape");
    out.dims.assign(shape->dimensions().begin(), shape->dimensions().end());
    out.dtype = shape->element_type();
    if (shape->has_layout()) out.local_layout = shape->layout();
  } else {
    AXE_ASSIGN_OR_RETURN(out.dims, ParseIntListOption(text, "--shape"));
    absl::StatusOr<DType> dtype = ParseDType(args.dtype);
    if (!dtype.ok()) return InOption("--dtype", dtype.status());
    out.dtype = *dtype;
  }
  if (!args.layout.empty()) {
    AXE_ASSIGN_OR_RETURN(out.local_layout,
                         LayoutFromMajorToMinor(args.layout, out.dims.size(), out.dtype));
  }
  return out;
}

// --mesh in any spelling: x=2,y=2, Mesh('x': 2, ...), or Shardy's sdy.mesh @m = <[...]>.
struct MeshOption {
  std::optional<sharding::Mesh> mesh;
  std::optional<sharding::ShardyMesh> shardy;  // the same mesh, with its Shardy name if any
};

absl::StatusOr<MeshOption> ParseMeshOption(const std::string& arg) {
  MeshOption out;
  if (arg.empty()) return out;
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, "--mesh"));
  if (text.find("<[") != std::string::npos) {
    absl::StatusOr<sharding::ShardyMesh> sdy = sharding::ShardyMesh::Parse(text);
    if (!sdy.ok()) return InOption("--mesh", sdy.status());
    out.shardy = *sdy;
    if (!sdy->MaximalDevice()) {
      absl::StatusOr<sharding::Mesh> mesh = sdy->ToMesh();
      if (!mesh.ok()) return InOption("--mesh", mesh.status());
      out.mesh = *std::move(mesh);
    }
    return out;
  }
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(text);
  if (!mesh.ok()) return InOption("--mesh", mesh.status());
  out.shardy = sharding::ShardyMesh::FromMesh(*mesh, "");
  out.mesh = *std::move(mesh);
  return out;
}

absl::StatusOr<DeviceAxisMode> ParseMode(const std::string& mode) {
  if (mode == "flat") return DeviceAxisMode::kFlat;
  if (mode == "per_axis") return DeviceAxisMode::kPerAxis;
  return absl::InvalidArgumentError(
      absl::StrCat("--mode: unknown mode '", mode, "' (expected flat or per_axis)"));
}

struct ExplainArgs : ArrayArgs {
  std::string mesh, spec, hlo, sdy, sharding, format, axe, mode = "flat";
  std::string svg;      // --svg FILE: the picture
  std::string latex;    // --latex FILE: the picture as TikZ
  std::string devices;  // --devices: the mesh's device ids in mesh-position order
  int64_t num_devices = 0;
  bool partitioned = false;  // the --hlo shape is one device's (a compiled module's)
};

// Mesh axes read as device axes in Axe layout text.
absl::StatusOr<AxisCatalog> MeshCatalog(const std::optional<sharding::Mesh>& mesh) {
  std::vector<std::string> declarations;
  if (mesh) {
    for (const sharding::MeshAxis& a : mesh->axes()) declarations.push_back(a.name + "=device");
  }
  return AxisCatalog::Standard().WithDeclarations(declarations);
}

// A note when the device order of `mesh` was assumed rather than given (a JAX repr never
// shows it; the CLI's x=2,y=2 does not either).
void NoteAssumedOrder(const sharding::Mesh& mesh, absl::string_view text, const ExplainArgs& args,
                      ShardingExplanation& e) {
  if (mesh.num_devices() < 2 || !args.devices.empty() ||
      text.find("devices") != absl::string_view::npos) {
    return;
  }
  e.notes.push_back(
      absl::StrCat("device order assumed: mesh position k is device k (0..", mesh.num_devices() - 1,
                   "); a Mesh repr does not show the ids (JAX: [d.id for d in mesh.devices.flat]): "
                   "give them with --devices 4,5,6,7 or in the mesh as devices=[4, 5, 6, 7]"));
}

// A JAX Format: its sharding explained with its concrete layout (None: the default layout).
absl::StatusOr<ShardingExplanation> ExplainFormat(const ExplainArgs& args, const ArraySpec& array,
                                                  sharding::ExplainOptions options) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.format, "--format"));
  absl::StatusOr<sharding::Format> format = sharding::Format::Parse(text);
  if (!format.ok()) return InOption("--format", format.status());
  if (format->is_auto()) {
    return absl::InvalidArgumentError(
        "--format: the layout is AUTO: it is chosen when the program is compiled, so no shard "
        "has one yet");
  }
  if (!format->sharding()) return absl::InvalidArgumentError("--format: the sharding is None");
  if (const sharding::LocalLayout* layout = format->local_layout()) {
    if (absl::Status fits = layout->CheckCompatibleAval(array.dims); !fits.ok()) {
      return InOption("--format", fits);
    }
    absl::StatusOr<xla::Layout> xla_layout = layout->ToXla(array.dtype);
    if (!xla_layout.ok()) return InOption("--format", xla_layout.status());
    options.local_layout = *std::move(xla_layout);
  }
  AXE_ASSIGN_OR_RETURN(ShardingExplanation e,
                       sharding::ExplainSharding(array.dims, *format->sharding(), options));
  if (const sharding::NamedSharding* named = format->sharding()->named()) {
    NoteAssumedOrder(named->mesh(), text, args, e);
  }
  return e;
}

// The mesh with the --devices ids (when given) as its device array.
absl::StatusOr<sharding::Mesh> WithDeviceIds(const sharding::Mesh& mesh, const ExplainArgs& args) {
  if (args.devices.empty()) return mesh;
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.devices, "--devices"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ParseIntListOption(text, "--devices"));
  std::vector<sharding::MeshAxisType> types;
  for (size_t j = 0; j < mesh.rank(); ++j) types.push_back(mesh.axis_type(j));
  absl::StatusOr<sharding::Mesh> out = sharding::Mesh::Create(mesh.axes(), std::move(ids), types);
  if (!out.ok()) return InOption("--devices", out.status());
  return out;
}

// A NamedSharding of a repr or --spec: on the --devices ids, with a note when assumed.
absl::StatusOr<ShardingExplanation> ExplainNamed(const sharding::NamedSharding& named,
                                                 absl::string_view text, const ExplainArgs& args,
                                                 const ArraySpec& array,
                                                 const sharding::ExplainOptions& options) {
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, WithDeviceIds(named.mesh(), args));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding on,
                       sharding::NamedSharding::Create(mesh, named.spec(), named.memory_kind()));
  AXE_ASSIGN_OR_RETURN(ShardingExplanation e,
                       sharding::ExplainNamedSharding(array.dims, on, options));
  NoteAssumedOrder(mesh, text, args, e);
  return e;
}

absl::StatusOr<ShardingExplanation> ExplainOne(const ExplainArgs& args,
                                               const std::optional<sharding::HloSharding>& hlo,
                                               const std::optional<xla::Shape>& instruction_shape) {
  AXE_ASSIGN_OR_RETURN(ArraySpec array, ParseArray(args, instruction_shape));
  AXE_ASSIGN_OR_RETURN(MeshOption mesh_option, ParseMeshOption(args.mesh));
  const std::optional<sharding::Mesh>& mesh = mesh_option.mesh;
  sharding::ExplainOptions options;
  options.dtype = array.dtype;
  options.local_layout = array.local_layout;
  AXE_ASSIGN_OR_RETURN(options.mode, ParseMode(args.mode));
  const int given = !args.spec.empty() + !args.hlo.empty() + !args.sdy.empty() +
                    !args.sharding.empty() + !args.format.empty() + !args.axe.empty();
  if (given != 1) {
    return absl::InvalidArgumentError(
        "give the sharding as one of --spec (with --mesh), --hlo, --sdy, --sharding, --format "
        "or --axe");
  }
  if (!args.devices.empty() && args.sharding.empty() && args.spec.empty()) {
    return absl::InvalidArgumentError(
        "--devices: gives the device ids of the mesh of --sharding or --spec (put them in "
        "--mesh as devices=[...] for the other notations)");
  }
  if (!args.sharding.empty()) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.sharding, "--sharding"));
    absl::StatusOr<sharding::Sharding> s = sharding::Sharding::Parse(text);
    if (!s.ok()) return InOption("--sharding", s.status());
    if (s->named()) return ExplainNamed(*s->named(), text, args, array, options);
    if (!args.devices.empty()) {
      return absl::InvalidArgumentError("--devices: a SingleDeviceSharding names its device");
    }
    return sharding::ExplainSharding(array.dims, *s, options);
  }
  if (!args.format.empty()) return ExplainFormat(args, array, options);
  if (!args.axe.empty()) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.axe, "--axe"));
    AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, MeshCatalog(mesh));
    absl::StatusOr<Layout> layout = Layout::Parse(text, catalog);
    if (!layout.ok()) return InOption("--axe", layout.status());
    return sharding::ExplainAxeLayout(array.dims, *layout, mesh, options);
  }
  if (!args.sdy.empty()) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.sdy, "--sdy"));
    absl::StatusOr<sharding::ShardySharding> sdy = sharding::ShardySharding::Parse(text);
    if (!sdy.ok()) return InOption("--sdy", sdy.status());
    return sharding::ExplainShardySharding(array.dims, *sdy, mesh_option.shardy, options);
  }
  if (hlo) return sharding::ExplainHloSharding(array.dims, *hlo, mesh, args.num_devices, options);
  if (!mesh) return absl::InvalidArgumentError("--spec needs --mesh (e.g. --mesh x=2,y=2)");
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.spec, "--spec"));
  absl::StatusOr<sharding::PartitionSpec> spec = sharding::PartitionSpec::Parse(text);
  if (!spec.ok()) return InOption("--spec", spec.status());
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named,
                       sharding::NamedSharding::Create(*mesh, *std::move(spec)));
  return ExplainNamed(named, args.mesh, args, array, options);
}

// The shape of an instruction line as the global array's: per-device dims (a line of a
// partitioned module, --partitioned) times the tile counts.
absl::StatusOr<xla::Shape> GlobalInstructionShape(const sharding::ShardedInstruction& line,
                                                  bool partitioned,
                                                  std::vector<std::string>& notes) {
  if (!line.result.IsArray()) return line.result;  // ParseArray says why
  if (!partitioned) {
    if (line.sharding.kind() == sharding::HloSharding::Kind::kTiled) {
      notes.push_back(
          "the line's shape is taken as the whole array's; a line of a compiled (partitioned) "
          "module has one device's shape: pass --partitioned, or paste the whole module");
    }
    return line.result;
  }
  absl::StatusOr<std::vector<int64_t>> global =
      sharding::GlobalDimsFromLocal(line.result.dimensions(), line.sharding);
  if (!global.ok()) return InOption("--hlo", global.status());
  if (*global !=
      std::vector<int64_t>(line.result.dimensions().begin(), line.result.dimensions().end())) {
    notes.push_back(absl::StrCat(
        "global shape = the line's per-device shape ", line.result.ToString(),
        " times the tiles; exact when each sharded dimension divides evenly (XLA pads one that "
        "does not: give --shape then)"));
  }
  std::optional<xla::Layout> layout;
  if (line.result.has_layout()) layout = line.result.layout();
  return xla::Shape::Array(line.result.element_type(), *std::move(global), {}, layout);
}

absl::StatusOr<ShardingExplanation> Explain(const ExplainArgs& args, const std::string& hlo_text) {
  // --hlo may be a whole instruction line: its sharding, and its shape when --shape is absent.
  std::optional<sharding::HloSharding> hlo;
  std::optional<xla::Shape> instruction_shape;
  std::vector<std::string> notes;
  bool instruction_line = false;
  if (!args.hlo.empty()) {
    instruction_line = sharding::IsShardedInstruction(hlo_text);
    if (instruction_line) {
      absl::StatusOr<sharding::ShardedInstruction> line =
          sharding::ParseShardedInstruction(hlo_text);
      if (!line.ok()) return InOption("--hlo", line.status());
      hlo = line->sharding;
      if (args.shape.empty()) {
        AXE_ASSIGN_OR_RETURN(instruction_shape,
                             GlobalInstructionShape(*line, args.partitioned, notes));
      }
    } else {
      absl::StatusOr<sharding::HloSharding> parsed = sharding::HloSharding::Parse(hlo_text);
      if (!parsed.ok()) return InOption("--hlo", parsed.status());
      hlo = *std::move(parsed);
    }
  }
  if (args.partitioned && !instruction_line) {
    return absl::InvalidArgumentError(
        "--partitioned: says the shape of an --hlo instruction line is one device's; there is "
        "none here (--shape is always the whole array's)");
  }
  AXE_ASSIGN_OR_RETURN(ShardingExplanation e, ExplainOne(args, hlo, instruction_shape));
  e.notes.insert(e.notes.begin(), notes.begin(), notes.end());
  return e;
}

std::string Shown(const TextOrReason& t) {
  return t.text ? *t.text : absl::StrCat("(none: ", t.reason, ")");
}

std::string Tuple(const std::vector<int64_t>& v) {
  return v.size() == 1 ? absl::StrCat("(", v[0], ",)")
                       : absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

Json ExplanationJson(const ShardingExplanation& e) {
  return Json::parse(explorer::ShardingJson(e));  // the explorer's answer, notes included
}

void PrintExplanation(std::ostream& out, const ShardingExplanation& e) {
  out << "global shape   " << XlaName(e.dtype) << "[" << absl::StrJoin(e.global_shape, ",")
      << "]\n";
  out << "jax            " << (e.named_jax.empty() ? Shown(e.named) : e.named_jax) << "\n";
  out << "hlo            " << Shown(e.hlo) << "\n";
  out << "shardy         " << Shown(e.shardy) << "\n";
  if (!e.shardy_mesh.empty()) out << "               " << e.shardy_mesh << "\n";
  out << "axe            " << Shown(e.axe) << "\n";
  out << "format         " << Shown(e.format) << "\n";
  if (!e.device_assignment.empty()) {
    out << "device order   [" << absl::StrJoin(e.device_assignment, ", ")
        << "]  (HLO, Shardy and gpuid ids are positions in it)\n";
  }
  out << "shard shape    " << Tuple(e.shard_shape) << "\n";
  out << "local layout   " << e.local_shape << " = " << Shown(e.local_axe) << "\n";
  out << "devices        " << e.num_devices << (e.fully_replicated ? " (fully replicated)" : "")
      << "\n";
  for (const std::string& note : e.notes) out << "note           " << note << "\n";
  out << "\n";
  for (const std::string& line : e.picture) out << line << "\n";
  out << "\ndevice  replica group  index\n";
  for (const sharding::DeviceShard& d : e.devices) {
    out << absl::StrFormat("%-7d %-14d %s\n", d.device, d.replica_group, d.IndexToString());
  }
}

// --hlo given a whole module: every sharding in it, each on its own instruction's shape (the
// whole array's: per-device shapes of a partitioned module are multiplied out).
absl::Status ExplainModule(const ExplainArgs& args, const std::string& text, Selected& selected) {
  std::ostream& out = *selected.out;
  if (!args.shape.empty() || !args.layout.empty() || !args.svg.empty() || !args.latex.empty()) {
    return absl::InvalidArgumentError(
        "--hlo is a whole module: each of its instructions has its own shape and layout, so "
        "--shape, --layout, --svg and --latex do not apply (paste one instruction line for those)");
  }
  absl::StatusOr<sharding::ModuleShardings> module =
      sharding::ReadModuleShardings(text, args.partitioned);
  if (!module.ok()) return InOption("--hlo", module.status());
  if (module->shardings.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--hlo: the module has no instruction with a sharding= attribute on an array",
        module->skipped.empty() ? "" : absl::StrCat(" (", module->skipped.front(), ")")));
  }
  const sharding::ModulePartitioning& p = module->partitioning;
  ExplainArgs one = args;
  one.hlo = "-";  // not read again: the sharding is handed over
  if (one.num_devices == 0 && p.num_partitions > 1) one.num_devices = p.num_partitions;
  Json entries = Json::array();
  std::vector<std::pair<const sharding::ModuleSharding*, ShardingExplanation>> explained;
  for (const sharding::ModuleSharding& s : module->shardings) {
    std::optional<xla::Layout> layout;
    if (s.shape.has_layout()) layout = s.shape.layout();
    const xla::Shape global = xla::Shape::Array(s.shape.element_type(), s.global, {}, layout);
    absl::StatusOr<ShardingExplanation> e = ExplainOne(one, s.sharding, global);
    if (!e.ok()) {
      return absl::Status(
          e.status().code(),
          absl::StrCat("--hlo: line ", s.line, " ", s.instruction, ": ", e.status().message()));
    }
    explained.emplace_back(&s, *std::move(e));
  }
  if (selected.json) {
    for (const auto& [s, e] : explained) {
      entries.push_back({{"instruction", s->instruction},
                         {"line", s->line},
                         {"shape", s->shape.ToString()},
                         {"explanation", ExplanationJson(e)}});
    }
    PrintJson(out, {{"module",
                     {{"num_partitions", p.num_partitions},
                      {"entry", p.entry_name},
                      {"partitioned", p.partitioned || args.partitioned},
                      {"reason", args.partitioned ? "--partitioned" : p.reason}}},
                    {"shardings", entries},
                    {"skipped", module->skipped}});
    return absl::OkStatus();
  }
  out << "module         " << (args.partitioned ? "--partitioned: shapes are per device" : p.reason)
      << "\n";
  out << "shardings      " << explained.size() << "\n";
  for (const std::string& why : module->skipped) out << "skipped        " << why << "\n";
  for (const auto& [s, e] : explained) {
    out << "\n== line " << s->line << " " << s->instruction << " " << s->shape.ToString()
        << " sharding=" << s->sharding.ToString() << "\n";
    PrintExplanation(out, e);
  }
  return absl::OkStatus();
}

void AddExplain(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = group.add_subcommand(
      "explain",
      "A sharding in JAX's, XLA's and Axe's notations, its shard shape, a picture and the box "
      "each device holds");
  AddArrayArgs(cmd, *args);
  cmd->add_option("--mesh", args->mesh,
                  "The mesh: x=2,y=2, \"Mesh('x': 2, 'y': 2)\" or 'sdy.mesh @mesh = "
                  "<[\"x\"=2, \"y\"=2]>'");
  cmd->add_option("--spec", args->spec, "A PartitionSpec on --mesh, e.g. \"P('x', None)\"");
  cmd->add_option("--hlo", args->hlo,
                  "An HLO sharding, e.g. '{devices=[2,1,2]<=[4] last_tile_dim_replicate}', or a "
                  "whole instruction line from a dump with sharding={...} (with --mesh: its "
                  "NamedSharding on that mesh)");
  cmd->add_option("--sdy", args->sdy,
                  "A Shardy sharding, e.g. '#sdy.sharding<@mesh, [{\"x\"}, {}]>' (its mesh from "
                  "--mesh, e.g. 'sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>', unless inlined)");
  cmd->add_option("--sharding", args->sharding,
                  "A JAX sharding repr: \"NamedSharding(mesh=Mesh('x': 2), spec=P('x',))\" or "
                  "'SingleDeviceSharding(device=3)'");
  cmd->add_option("--format", args->format,
                  "A JAX Format repr: \"Format(Layout((1, 0)), NamedSharding(...))\" (its layout "
                  "is every shard's)");
  cmd->add_option("--axe", args->axe,
                  "An Axe layout with device iters (gpuid = mesh position, or mesh axes with "
                  "--mesh), read back as a sharding and a local layout");
  cmd->add_option("--devices", args->devices,
                  "The mesh's device ids in mesh-position order, e.g. 4,5,6,7 or 3,1,2,0 (JAX: "
                  "[d.id for d in mesh.devices.flat]; its reprs do not show them), for --sharding "
                  "and --spec");
  cmd->add_flag("--partitioned", args->partitioned,
                "The shape of the --hlo instruction line is one device's, as in a compiled "
                "(partitioned) module; the global shape is that times the tiles");
  cmd->add_option("--num-devices", args->num_devices,
                  "Device count for --hlo (default: one more than the largest id it names)");
  cmd->add_option("--mode", args->mode,
                  "Device iters of the Axe form: flat (gpuid) or per_axis (one axis per mesh "
                  "axis)");
  cmd->add_option("--svg", args->svg,
                  "Also draw the blocks each device holds, beside the mesh, as an SVG picture "
                  "into FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, args->latex);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    std::string hlo_text;
    if (!args->hlo.empty()) {
      AXE_ASSIGN_OR_RETURN(hlo_text, ReadInputText(args->hlo, "--hlo"));
      if (sharding::IsHloModule(hlo_text)) return ExplainModule(*args, hlo_text, selected);
    }
    AXE_ASSIGN_OR_RETURN(ShardingExplanation e, Explain(*args, hlo_text));
    if (!args->svg.empty() || !args->latex.empty()) {
      // The mesh is drawn beside the blocks (not when it came from standard input, read once).
      MeshOption mesh;
      if (args->mesh != "-") {
        AXE_ASSIGN_OR_RETURN(mesh, ParseMeshOption(args->mesh));
      }
      AXE_RETURN_IF_ERROR(
          WritePictureFiles(args->svg, args->latex, picture::ShardingSvg(e, mesh.mesh)));
    }
    if (selected.json) {
      PrintJson(out, ExplanationJson(e));
    } else {
      PrintExplanation(out, e);
    }
    return absl::OkStatus();
  });
}

struct EquivalentArgs {
  std::string first, second, shape, mesh;
};

void AddEquivalent(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<EquivalentArgs>();
  CLI::App* cmd = group.add_subcommand(
      "equivalent",
      "Whether two shardings (any notation: HLO '{...}', \"P(...)\" with --mesh, Shardy "
      "'#sdy.sharding<...>', an Axe layout) put the same elements on every device. Exit code 0: "
      "yes, 1: no");
  cmd->add_option("first", args->first, "A sharding ('-' stdin, '@FILE')")->required();
  cmd->add_option("second", args->second, "The other sharding ('-' stdin, '@FILE')")->required();
  cmd->add_option("--shape", args->shape, "The global shape, e.g. 8,8")->required();
  cmd->add_option("--mesh", args->mesh,
                  "The mesh of PartitionSpecs and of per_axis Axe layouts, e.g. x=2,y=2");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(std::string shape_text, ReadInputText(args->shape, "--shape"));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(shape_text, "--shape"));
    AXE_ASSIGN_OR_RETURN(MeshOption mesh_option, ParseMeshOption(args->mesh));
    const std::optional<sharding::Mesh>& mesh = mesh_option.mesh;
    std::vector<sharding::ShardingNotation> sides;
    for (const auto& [arg, what] : {std::pair{&args->first, "first"}, {&args->second, "second"}}) {
      AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(*arg, what));
      absl::StatusOr<sharding::ShardingNotation> n = sharding::ShardingNotation::Parse(text, mesh);
      if (!n.ok()) return InOption(what, n.status());
      sides.push_back(*std::move(n));
    }
    AXE_ASSIGN_OR_RETURN(sharding::EquivalenceResult r,
                         sharding::Equivalent(shape, sides[0], sides[1]));
    if (selected.json) {
      Json difference = nullptr;
      if (r.difference) {
        difference = {{"device", r.difference->device},
                      {"first", r.difference->first},
                      {"second", r.difference->second}};
      }
      PrintJson(out,
                {{"equivalent", r.equivalent},
                 {"first", {{"notation", sides[0].KindName()}, {"text", sides[0].ToString()}}},
                 {"second", {{"notation", sides[1].KindName()}, {"text", sides[1].ToString()}}},
                 {"difference", difference}});
    } else if (r.equivalent) {
      out << "equivalent\n";
    } else {
      out << "not equivalent: device " << r.difference->device << " holds " << r.difference->first
          << " under the first and " << r.difference->second << " under the second\n";
    }
    if (!r.equivalent) selected.exit_code = 1;  // like cmp and diff: the inputs differ
    return absl::OkStatus();
  });
}

void AddShardCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand(
      "shard", "Shardings (NamedSharding, HLO shardings, Axe layouts): explain, equivalent");
  group->require_subcommand(1);
  AddExplain(*group, selected);
  AddEquivalent(*group, selected);
}

AXE_CLI_COMMAND_GROUP(30, AddShardCommands);

}  // namespace
}  // namespace shard_cmd
}  // namespace axe::cli
