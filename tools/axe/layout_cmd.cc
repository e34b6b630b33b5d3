// axe layout canon|apply|inverse|info|show
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/inverse.h"
#include "axe/layout/properties.h"
#include "axe/layout/render.h"
#include "cli.h"

namespace axe::cli {
namespace {

struct LayoutArgs {
  std::string layout;
  std::vector<std::string> declare;  // NAME=KIND
};

void AddLayoutArgs(CLI::App* cmd, LayoutArgs& args) {
  cmd->add_option("layout", args.layout, "An Axe layout, e.g. 'S[(8,4,2):(4@laneid,1@laneid,1)]'")
      ->required();
  cmd->add_option("--axis", args.declare,
                  "Declare an axis kind before parsing, NAME=memory|thread|device (repeatable; "
                  "undeclared names are threads)");
}

absl::StatusOr<Layout> ParseLayoutArgs(const LayoutArgs& args) {
  for (const std::string& d : args.declare) {
    std::vector<std::string> parts = absl::StrSplit(d, '=');
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("--axis '", d, "': expected NAME=KIND"));
    }
    AXE_ASSIGN_OR_RETURN(AxisKind kind, ParseAxisKind(parts[1]));
    AXE_RETURN_IF_ERROR(Axis::Declare(parts[0], kind).status());
  }
  absl::StatusOr<Layout> l = Layout::Parse(args.layout);
  if (!l.ok()) return absl::InvalidArgumentError(absl::StrCat("layout: ", l.status().message()));
  return l;
}

// The axes to show for points of `l`: its own axes, then any other axis of the points.
std::vector<Axis> DisplayAxes(const Layout& l, const std::vector<PhysCoord>& points) {
  std::vector<Axis> axes = l.axes();
  for (const PhysCoord& p : points) {
    for (const auto& e : p.entries()) {
      if (std::find(axes.begin(), axes.end(), e.first) == axes.end()) axes.push_back(e.first);
    }
  }
  return axes;
}

std::string FormatPoint(const PhysCoord& p, const std::vector<Axis>& axes) {
  return absl::StrCat("{", absl::StrJoin(axes, ", ", [&p](std::string* out, Axis a) {
                        absl::StrAppend(out, a.name(), ":", p.get(a));
                      }),
                      "}");
}

Json PointJson(const PhysCoord& p, const std::vector<Axis>& axes) {
  Json j = Json::object();
  for (Axis a : axes) j[std::string(a.name())] = p.get(a);
  return j;
}

// --shape, defaulting to the flat shape (size).
absl::StatusOr<std::vector<int64_t>> ShapeOrFlat(const std::string& shape, const Layout& l) {
  if (shape.empty()) return std::vector<int64_t>{l.size()};
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> s, ParseIntListOption(shape, "--shape"));
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(l, s));
  return s;
}

void AddCanon(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<LayoutArgs>();
  auto fuse = std::make_shared<bool>(false);
  CLI::App* cmd = group.add_subcommand(
      "canon", "Print the canonical form (rules D0, D1, C0, C1, C2, Z; replicas sorted)");
  AddLayoutArgs(cmd, *args);
  cmd->add_flag("--fuse-thread-scopes", *fuse,
                "Also rewrite tx/warpid/laneid/wgid/tid_in_wg/wid_in_wg into one thread axis");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, fuse, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(Layout c, Canonicalize(l, {.fuse_thread_scopes = *fuse}));
    if (selected.json) {
      PrintJson({{"layout", c.ToString()}});
    } else {
      std::cout << c << "\n";
    }
    return absl::OkStatus();
  });
}

void AddApply(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape, coord;
    int64_t flat = -1;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "apply", "Map a logical coordinate to every physical point it occupies (one per line)");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "Logical shape, e.g. 8,16 (default: the flat size)");
  CLI::Option* coord = cmd->add_option("--coord", args->coord, "Logical coordinate, e.g. 2,9");
  CLI::Option* flat = cmd->add_option("--flat", args->flat, "Flat (row-major) logical index instead of --coord");
  coord->excludes(flat);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, coord, flat, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ShapeOrFlat(args->shape, l));
    int64_t x = args->flat;
    if (coord->count() == 0) {
      if (flat->count() == 0) return absl::InvalidArgumentError("give --coord or --flat");
    } else {
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> c, ParseIntListOption(args->coord, "--coord"));
      AXE_ASSIGN_OR_RETURN(x, FlattenCoord(shape, c));
    }
    AXE_ASSIGN_OR_RETURN(PhysCoord base, ApplyBase(l, x));
    AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, Apply(l, x));
    std::vector<Axis> axes = DisplayAxes(l, points);
    if (selected.json) {
      Json pts = Json::array();
      for (const PhysCoord& p : points) pts.push_back(PointJson(p, axes));
      PrintJson({{"points", pts}, {"base", PointJson(base, axes)}});
    } else {
      for (const PhysCoord& p : points) std::cout << FormatPoint(p, axes) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddInverse(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape, point;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "inverse", "Print every logical coordinate that maps to a physical point (sorted)");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "Logical shape, e.g. 8,16 (default: the flat size)");
  cmd->add_option("--point", args->point, "Physical point, e.g. warp=6,lane=8,reg=1 (omitted axes are 0)")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ShapeOrFlat(args->shape, l));
    absl::StatusOr<PhysCoord> p = PhysCoord::Parse(args->point);
    if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat("--point: ", p.status().message()));
    AXE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> coords, Inverse(l, shape, *p));
    if (selected.json) {
      PrintJson({{"coords", coords}});
    } else if (coords.empty()) {
      std::cout << "no logical coordinate maps to " << FormatPoint(*p, DisplayAxes(l, {*p})) << "\n";
    } else {
      for (const auto& c : coords) std::cout << FormatTuple(c) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddInfo(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<LayoutArgs>();
  CLI::App* cmd = group.add_subcommand(
      "info", "Size, per-axis size and span, injectivity and the storage (memory) view");
  AddLayoutArgs(cmd, *args);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(bool injective, IsInjective(l));
    Layout storage = Storage(l);
    Layout canonical = Canonicalize(l);
    if (selected.json) {
      Json axes = Json::object();
      for (Axis a : l.axes()) {
        axes[std::string(a.name())] = {
            {"kind", AxisKindName(a.kind())}, {"size", l.size(a)}, {"span", l.span(a)}};
      }
      PrintJson({{"layout", l.ToString()},
                 {"canonical", canonical.ToString()},
                 {"size", l.size()},
                 {"replicas", l.replica_size()},
                 {"axes", axes},
                 {"injective", injective},
                 {"storage", storage.ToString()}});
      return absl::OkStatus();
    }
    std::cout << "layout     " << l << "\n"
              << "canonical  " << canonical << "\n"
              << "size       " << l.size() << " logical points";
    if (!l.replica().empty()) std::cout << ", each on " << l.replica_size() << " replica combinations";
    std::cout << "\n"
              << "injective  " << (injective ? "yes" : "no (some physical point holds several logical points)")
              << "\n"
              << "storage    " << storage << "  (the memory-only view one thread/device holds)\n"
              << absl::StrFormat("%-11s %-8s %10s %10s\n", "axis", "kind", "size", "span");
    for (Axis a : l.axes()) {
      std::cout << absl::StrFormat("%-11s %-8s %10d %10d\n", a.name(), AxisKindName(a.kind()), l.size(a), l.span(a));
    }
    return absl::OkStatus();
  });
}

void AddShow(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "show", "Draw a 2-D logical shape as a grid of the physical point of each element");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "Logical shape ROWS,COLS (default: 1,size)");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    std::vector<int64_t> shape = {1, l.size()};
    if (!args->shape.empty()) {
      AXE_ASSIGN_OR_RETURN(shape, ParseIntListOption(args->shape, "--shape"));
      if (shape.size() != 2) return absl::InvalidArgumentError("--shape: show draws a 2-D shape ROWS,COLS");
    }
    AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(l, shape[0], shape[1]));
    if (selected.json) {
      Json rows = Json::array();
      std::vector<Axis> axes = l.axes();
      for (int64_t r = 0; r < shape[0]; ++r) {
        Json row = Json::array();
        for (int64_t c = 0; c < shape[1]; ++c) row.push_back(PointJson(*ApplyBase(l, r * shape[1] + c), axes));
        rows.push_back(row);
      }
      PrintJson({{"layout", l.ToString()}, {"grid", rows}});
    } else {
      std::cout << grid;
    }
    return absl::OkStatus();
  });
}

void AddLayoutCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand("layout", "Axe layouts: canonical form, apply, inverse, info, pictures");
  group->require_subcommand(1);
  AddCanon(*group, selected);
  AddApply(*group, selected);
  AddInverse(*group, selected);
  AddInfo(*group, selected);
  AddShow(*group, selected);
}

AXE_CLI_COMMAND_GROUP(10, AddLayoutCommands);

}  // namespace
}  // namespace axe::cli
