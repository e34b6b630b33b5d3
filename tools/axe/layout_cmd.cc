// axe layout canon|apply|inverse|info|show, and the algebra:
// axe layout group|tile|tile-of|direct-sum|slice
#include <array>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/explorer/answer_json.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/direct_sum.h"
#include "axe/layout/group.h"
#include "axe/layout/inverse.h"
#include "axe/layout/properties.h"
#include "axe/layout/render.h"
#include "axe/layout/slice.h"
#include "axe/layout/swizzle.h"
#include "axe/layout/tile.h"
#include "axe/layout/tile_of.h"
#include "axe/picture/layout_picture.h"
#include "cli.h"

namespace axe::cli {
namespace layout_cmd {
namespace {

struct LayoutArgs {
  std::string layout;
  std::vector<std::string> declare;  // NAME=KIND
};

void AddAxisOption(CLI::App* cmd, std::vector<std::string>& declare) {
  cmd->add_option("--axis", declare,
                  "Declare an axis kind before parsing, NAME=memory|thread|device (repeatable; "
                  "undeclared names are threads)");
}

void AddLayoutArgs(CLI::App* cmd, LayoutArgs& args) {
  cmd->add_option("layout", args.layout, "An Axe layout, e.g. 'S[(8,4,2):(4@laneid,1@laneid,1)]'")
      ->required();
  AddAxisOption(cmd, args.declare);
}

// The standard catalogue with the --axis NAME=KIND entries.
absl::StatusOr<AxisCatalog> CatalogWith(const std::vector<std::string>& declare) {
  absl::StatusOr<AxisCatalog> c = AxisCatalog::Standard().WithDeclarations(declare);
  if (!c.ok())
    return absl::Status(c.status().code(), absl::StrCat("--axis ", c.status().message()));
  return c;
}

// Parses a layout given on the command line (text, "-" or "@file"); `what` names it in errors.
absl::StatusOr<Layout> ParseLayoutText(const std::string& arg, absl::string_view what,
                                       const AxisCatalog& catalog = AxisCatalog::Standard()) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, std::string(what)));
  if (SwizzledLayout::LooksSwizzled(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     ": this command takes a plain layout S[...], not a Swizzled(...) layout; the "
                     "commands that take one are canon, apply, inverse and info"));
  }
  absl::StatusOr<Layout> l = Layout::Parse(text, catalog);
  if (!l.ok()) return InOption(what, l.status());
  return l;
}

absl::StatusOr<Layout> ParseLayoutArgs(const LayoutArgs& args) {
  AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, CatalogWith(args.declare));
  return ParseLayoutText(args.layout, "layout", catalog);
}

// A plain layout, or a swizzled one ("Swizzled(M,B,S, <layout>)" / "ComposeLayout(...)").
struct AnyLayout {
  Layout layout;  // the plain layout, or the swizzle's inner layout
  std::optional<SwizzledLayout> swizzled;

  std::string ToString() const { return swizzled ? swizzled->ToString() : layout.ToString(); }
  AnyLayout Canonical() const {
    if (swizzled) return AnyLayout{Canonicalize(layout), Canonicalize(*swizzled)};
    return AnyLayout{Canonicalize(layout), std::nullopt};
  }
};

absl::StatusOr<AnyLayout> ParseAnyLayoutText(const std::string& arg, absl::string_view what,
                                             const AxisCatalog& catalog) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, std::string(what)));
  if (!SwizzledLayout::LooksSwizzled(text)) {
    absl::StatusOr<Layout> l = Layout::Parse(text, catalog);
    if (!l.ok()) return InOption(what, l.status());
    return AnyLayout{*std::move(l), std::nullopt};
  }
  absl::StatusOr<SwizzledLayout> s = SwizzledLayout::Parse(text, catalog);
  if (!s.ok()) return InOption(what, s.status());
  return AnyLayout{s->layout(), *s};
}

absl::StatusOr<AnyLayout> ParseAnyLayoutArgs(const LayoutArgs& args) {
  AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, CatalogWith(args.declare));
  return ParseAnyLayoutText(args.layout, "layout", catalog);
}

// The axes to show for points of `l`: its own axes and any other axis of the points, in
// name order (the order PhysCoord::ToString, the tour and the Python API use).
std::vector<Axis> DisplayAxes(const Layout& l, const std::vector<PhysCoord>& points) {
  std::vector<Axis> axes = l.axes();
  for (const PhysCoord& p : points) {
    for (const auto& e : p.entries()) {
      if (std::find(axes.begin(), axes.end(), e.first) == axes.end()) axes.push_back(e.first);
    }
  }
  std::sort(axes.begin(), axes.end(), [](Axis a, Axis b) { return a.name() < b.name(); });
  return axes;
}

std::string FormatPoint(const PhysCoord& p, const std::vector<Axis>& axes) {
  return absl::StrCat("{",
                      absl::StrJoin(axes, ", ",
                                    [&p](std::string* out, Axis a) {
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
      "canon",
      "Print the canonical form (rules D0, D1, C0, C1, C2, Z; replicas sorted); "
      "accepts Swizzled(M,B,S, <layout>)");
  AddLayoutArgs(cmd, *args);
  cmd->add_flag("--fuse-thread-scopes", *fuse,
                "Also rewrite tx/warpid/laneid/wgid/tid_in_wg/wid_in_wg into one thread axis");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, fuse, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(AnyLayout l, ParseAnyLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(Layout c, Canonicalize(l.layout, {.fuse_thread_scopes = *fuse}));
    // A swizzle lives on one memory axis: scope fusion never applies to its layout.
    const std::string text = l.swizzled ? Canonicalize(*l.swizzled).ToString() : c.ToString();
    if (selected.json) {
      PrintJson(out, {{"layout", text}});
    } else {
      out << text << "\n";
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
      "apply",
      "Map a logical coordinate to every physical point it occupies (one per line); "
      "accepts Swizzled(M,B,S, <layout>)");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "Logical shape, e.g. 8,16 (default: the flat size)");
  CLI::Option* coord = cmd->add_option("--coord", args->coord, "Logical coordinate, e.g. 2,9");
  CLI::Option* flat =
      cmd->add_option("--flat", args->flat, "Flat (row-major) logical index instead of --coord");
  coord->excludes(flat);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, coord, flat, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(AnyLayout any, ParseAnyLayoutArgs(*args));
    const Layout& l = any.layout;
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ShapeOrFlat(args->shape, l));
    int64_t x = args->flat;
    if (coord->count() == 0) {
      if (flat->count() == 0) return absl::InvalidArgumentError("give --coord or --flat");
    } else {
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> c, ParseIntListOption(args->coord, "--coord"));
      AXE_ASSIGN_OR_RETURN(x, FlattenCoord(shape, c));
    }
    AXE_ASSIGN_OR_RETURN(PhysCoord base,
                         any.swizzled ? any.swizzled->ApplyBase(x) : ApplyBase(l, x));
    AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points,
                         any.swizzled ? any.swizzled->Apply(x) : Apply(l, x));
    std::vector<Axis> axes = DisplayAxes(l, points);
    if (selected.json) {
      Json pts = Json::array();
      for (const PhysCoord& p : points) pts.push_back(PointJson(p, axes));
      PrintJson(out, {{"points", pts}, {"base", PointJson(base, axes)}});
    } else {
      for (const PhysCoord& p : points) out << FormatPoint(p, axes) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddInverse(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape, point;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd =
      group.add_subcommand("inverse",
                           "Print every logical coordinate that maps to a physical point (sorted); "
                           "accepts Swizzled(M,B,S, <layout>)");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "Logical shape, e.g. 8,16 (default: the flat size)");
  cmd->add_option("--point", args->point,
                  "Physical point, e.g. warp=6,lane=8,reg=1 (omitted axes are 0)")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(AnyLayout any, ParseAnyLayoutArgs(*args));
    const Layout& l = any.layout;
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ShapeOrFlat(args->shape, l));
    // The point's axis names take the kinds they have in the layout.
    AXE_ASSIGN_OR_RETURN(std::string point, ReadInputText(args->point, "--point"));
    absl::StatusOr<PhysCoord> p = PhysCoord::Parse(point, AxisCatalog::Standard().With(l.axes()));
    if (!p.ok()) return InOption("--point", p.status());
    AXE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> coords,
                         any.swizzled ? Inverse(*any.swizzled, shape, *p) : Inverse(l, shape, *p));
    if (selected.json) {
      PrintJson(out, {{"coords", coords}});
    } else if (coords.empty()) {
      out << "no logical coordinate maps to " << FormatPoint(*p, DisplayAxes(l, {*p})) << "\n";
    } else {
      for (const auto& c : coords) out << FormatTuple(c) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddInfo(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<LayoutArgs>();
  CLI::App* cmd = group.add_subcommand(
      "info",
      "Size, per-axis size and span, injectivity and the storage (memory) view; accepts "
      "Swizzled(M,B,S, <layout>)");
  AddLayoutArgs(cmd, *args);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(AnyLayout any, ParseAnyLayoutArgs(*args));
    const Layout& l = any.layout;
    // A swizzle permutes addresses within each period: injectivity and spans are the inner
    // layout's, and a swizzled layout is its own storage view.
    AXE_ASSIGN_OR_RETURN(bool injective, IsInjective(l));
    const std::string storage = any.swizzled ? any.Canonical().ToString() : Storage(l).ToString();
    const std::string canonical = any.Canonical().ToString();
    if (selected.json) {
      Json axes = Json::object();
      for (Axis a : l.axes()) {
        axes[std::string(a.name())] = {
            {"kind", AxisKindName(a.kind())}, {"size", l.size(a)}, {"span", l.span(a)}};
      }
      Json j = {{"layout", any.ToString()},
                {"canonical", canonical},
                {"size", l.size()},
                {"replicas", l.replica_size()},
                {"axes", axes},
                {"injective", injective},
                {"storage", storage}};
      if (any.swizzled) {
        j["swizzle"] = {{"per_element", any.swizzled->per_element()},
                        {"swizzle_len", any.swizzled->swizzle_len()},
                        {"atom_len", any.swizzled->atom_len()},
                        {"inner", any.swizzled->swizzle_inner()},
                        {"period", any.swizzled->period()}};
      }
      PrintJson(out, j);
      return absl::OkStatus();
    }
    out << "layout     " << any.ToString() << "\n"
        << "canonical  " << canonical << "\n";
    if (any.swizzled) {
      out << "swizzle    (M,B,S) = (" << any.swizzled->per_element() << ","
          << any.swizzled->swizzle_len() << "," << any.swizzled->atom_len() << "), repeats every "
          << any.swizzled->period() << " elements"
          << (any.swizzled->swizzle_inner() ? "" : ", inner=false") << "\n";
    }
    out << "size       " << l.size() << " logical points";
    if (!l.replica().empty()) out << ", each on " << l.replica_size() << " replica combinations";
    out << "\n"
        << "injective  "
        << (injective ? "yes" : "no (some physical point holds several logical points)") << "\n"
        << "storage    " << storage << "  (the memory-only view one thread/device holds)\n"
        << absl::StrFormat("%-11s %-8s %10s %10s\n", "axis", "kind", "size", "span");
    for (Axis a : l.axes()) {
      out << absl::StrFormat("%-11s %-8s %10d %10d\n", a.name(), AxisKindName(a.kind()), l.size(a),
                             l.span(a));
    }
    return absl::OkStatus();
  });
}

// --svg FILE / --latex FILE of `axe layout show`: the picture (picture/layout_picture.h) of
// `l` on `shape`, zoomed to --zoom and --physical-zoom.
template <typename Args>
absl::Status WriteLayoutSvg(const Layout& l, std::array<int64_t, 2> shape, const Args& args) {
  picture::LayoutPictureOptions options{.shape = shape};
  if (!args.color_by.empty()) {
    for (Axis a : l.axes()) {
      if (a.name() == args.color_by) options.colour_axis = a;
    }
    if (!options.colour_axis) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--color-by: the layout ", l.ToString(), " does not use the axis '", args.color_by, "'"));
    }
  }
  if (!args.zoom.empty()) {
    absl::StatusOr<picture::GridZoom> zoom = picture::ParseGridZoom(args.zoom);
    if (!zoom.ok()) return InOption("--zoom", zoom.status());
    options.zoom = *zoom;
  }
  if (!args.physical_zoom.empty()) {
    absl::StatusOr<picture::GridZoom> zoom = picture::ParseGridZoom(args.physical_zoom);
    if (!zoom.ok()) return InOption("--physical-zoom", zoom.status());
    options.physical_zoom = *zoom;
  }
  absl::StatusOr<std::string> svg = picture::LayoutSvg(l, options);
  if (!svg.ok()) {
    const bool physical = absl::StrContains(svg.status().message(), "physical zoom");
    return InOption(physical            ? "--physical-zoom"
                    : args.zoom.empty() ? "--svg"
                                        : "--zoom",
                    svg.status());
  }
  return WritePictureFiles(args.svg, args.latex, *svg);
}

void AddShow(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape;
    int64_t max_rows = 32, max_cols = 16;
    std::string svg, latex, color_by, zoom;  // --svg FILE, --latex FILE, --color-by, --zoom
    std::string physical_zoom;               // --physical-zoom
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "show",
      "Draw a 2-D logical shape as a grid of the physical point of each element; large "
      "grids show their top-left window");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape,
                  "Logical shape ROWS,COLS (default: the trailing shard extents up to 64 columns)");
  cmd->add_option("--max-rows", args->max_rows, "Rows drawn at most (default 32)")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  cmd->add_option("--max-cols", args->max_cols, "Columns drawn at most (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  cmd->add_option("--svg", args->svg,
                  "Also draw the grid and the physical space as an SVG picture into FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, args->latex);
  cmd->add_option("--zoom", args->zoom,
                  "Draw rows ROW0..ROW1-1 and columns COL0..COL1-1 of the logical grid in the "
                  "--svg/--latex picture, as ROW0:ROW1,COL0:COL1 (default: the whole grid, "
                  "summarized in blocks when larger than 32 x 32)");
  cmd->add_option("--physical-zoom", args->physical_zoom,
                  "Draw only row-axis values ROW0..ROW1-1 and column-axis values COL0..COL1-1 of "
                  "the physical half of the --svg/--latex picture, as ROW0:ROW1,COL0:COL1 (a "
                  "layout on one axis: rows and column offsets of its folded grid; default: all "
                  "of it, summarized in blocks when larger than 32 x 32)");
  cmd->add_option("--color-by", args->color_by,
                  "The axis whose value colours the --svg cells (default: the first non-memory "
                  "axis)");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    std::array<int64_t, 2> shape = DefaultGridShape(l);
    if (!args->shape.empty()) {
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> s, ParseIntListOption(args->shape, "--shape"));
      if (s.size() != 2)
        return absl::InvalidArgumentError("--shape: show draws a 2-D shape ROWS,COLS");
      shape = {s[0], s[1]};
    }
    const GridWindow window{args->max_rows, args->max_cols};
    if (!args->svg.empty() || !args->latex.empty())
      AXE_RETURN_IF_ERROR(WriteLayoutSvg(l, shape, *args));
    if (!args->zoom.empty() && args->svg.empty() && args->latex.empty())
      return absl::InvalidArgumentError("--zoom: it applies to the --svg or --latex picture");
    if (!args->physical_zoom.empty() && args->svg.empty() && args->latex.empty()) {
      return absl::InvalidArgumentError(
          "--physical-zoom: it applies to the --svg or --latex picture");
    }
    if (!selected.json) {
      AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(l, shape[0], shape[1], window));
      out << grid;
      return absl::OkStatus();
    }
    AXE_ASSIGN_OR_RETURN(std::string json, explorer::LayoutShowJson(l, shape, window));
    out << json << "\n";
    return absl::OkStatus();
  });
}

// ---- The algebra: group, tile, tile-of, direct-sum, slice ----

// Prints an operation's result layout (already canonical): one line, or {"layout": ...}.
void PrintResult(std::ostream& out, const std::string& layout, bool json) {
  if (json) {
    PrintJson(out, {{"layout", layout}});
  } else {
    out << layout << "\n";
  }
}

// Prints an operation's optional result; "no answer" is an answer (exit code 0).
void PrintMaybe(std::ostream& out, const MaybeLayout& m, bool json) {
  if (m.has_value()) return PrintResult(out, m->ToString(), json);
  if (json) {
    PrintJson(out, {{"layout", nullptr}, {"reason", m.reason}});
  } else {
    out << "no answer: " << m.reason << "\n";
  }
}

absl::StatusOr<Layout> PlainOnly(const AnyLayout& l, absl::string_view what, absl::string_view op) {
  if (l.swizzled) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", op, " does not take a swizzled layout"));
  }
  return l.layout;
}

void AddGroup(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::vector<std::string> shapes;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "group",
      "Split the shard into consecutive blocks whose extent products are the shape's entries "
      "(the paper's L||S); prints the refined layout and the block separators");
  AddLayoutArgs(cmd, *args);
  cmd->add_option(
         "--shape", args->shapes,
         "Logical shape, e.g. 8,16; repeat it to group by several shapes at once (their common "
         "refinement)")
      ->required()
      ->allow_extra_args(false);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayoutArgs(*args));
    std::vector<std::vector<int64_t>> shapes;
    for (const std::string& text : args->shapes) {
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(text, "--shape"));
      shapes.push_back(std::move(shape));
    }
    // The refined shard is the answer; R and O are shown canonical.
    const Layout canonical = Canonicalize(l);
    auto refined = [&canonical](const Layout& g) {
      return Layout::Create(g.shard(), canonical.replica(), canonical.offset());
    };
    if (shapes.size() == 1) {
      AXE_ASSIGN_OR_RETURN(Grouped g, Group(l, shapes[0]));
      AXE_ASSIGN_OR_RETURN(Layout grouped, refined(g.layout));
      if (selected.json) {
        PrintJson(out, {{"layout", grouped.ToString()}, {"seps", g.seps}});
      } else {
        out << grouped << "\nseps [" << absl::StrJoin(g.seps, ", ") << "]\n";
      }
      return absl::OkStatus();
    }
    AXE_ASSIGN_OR_RETURN(GroupedMany g, GroupMany(l, shapes));
    AXE_ASSIGN_OR_RETURN(Layout grouped, refined(g.layout));
    if (selected.json) {
      PrintJson(out, {{"layout", grouped.ToString()}, {"meet", g.meet_shape}, {"seps", g.seps}});
    } else {
      out << grouped << "\nmeet " << FormatTuple(g.meet_shape) << "\nseps";
      for (const std::vector<size_t>& seps : g.seps)
        out << " [" << absl::StrJoin(seps, ", ") << "]";
      out << "\n";
    }
    return absl::OkStatus();
  });
}

// --outer/--outer-shape/--inner/--inner-shape (and --axis), shared by tile and direct-sum.
struct PairArgs {
  std::string outer, outer_shape, inner, inner_shape;
  std::vector<std::string> declare;
};

struct ParsedPair {
  AnyLayout outer, inner;
  std::vector<int64_t> outer_shape, inner_shape;
};

absl::StatusOr<ParsedPair> ParsePair(const PairArgs& a, absl::string_view outer_name,
                                     absl::string_view inner_name) {
  AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, CatalogWith(a.declare));
  AXE_ASSIGN_OR_RETURN(AnyLayout outer,
                       ParseAnyLayoutText(a.outer, absl::StrCat("--", outer_name), catalog));
  AXE_ASSIGN_OR_RETURN(AnyLayout inner,
                       ParseAnyLayoutText(a.inner, absl::StrCat("--", inner_name), catalog));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> os,
                       ParseIntListOption(a.outer_shape, absl::StrCat("--", outer_name, "-shape")));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> is,
                       ParseIntListOption(a.inner_shape, absl::StrCat("--", inner_name, "-shape")));
  return ParsedPair{std::move(outer), std::move(inner), std::move(os), std::move(is)};
}

void AddTile(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<PairArgs>();
  CLI::App* cmd = group.add_subcommand(
      "tile",
      "Tile an inner (intra-tile) layout by an outer (inter-tile) one, the paper's A (x) B: outer "
      "strides, replicas and offsets are scaled by the inner layout's span per axis");
  cmd->add_option("--outer", args->outer, "The outer layout, e.g. 'S[(8,8):(8,1)]'")->required();
  cmd->add_option("--outer-shape", args->outer_shape, "The outer layout's logical shape, e.g. 8,8")
      ->required();
  cmd->add_option("--inner", args->inner, "The inner layout (may be Swizzled(M,B,S, <layout>))")
      ->required();
  cmd->add_option("--inner-shape", args->inner_shape,
                  "The inner layout's logical shape (same rank)")
      ->required();
  AddAxisOption(cmd, args->declare);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(ParsedPair p, ParsePair(*args, "outer", "inner"));
    AXE_ASSIGN_OR_RETURN(Layout outer, PlainOnly(p.outer, "--outer", "tile"));
    if (p.inner.swizzled) {
      AXE_ASSIGN_OR_RETURN(SwizzledLayout t,
                           Tile(outer, p.outer_shape, *p.inner.swizzled, p.inner_shape));
      PrintResult(out, Canonicalize(t).ToString(), selected.json);
    } else {
      AXE_ASSIGN_OR_RETURN(Layout t, Tile(outer, p.outer_shape, p.inner.layout, p.inner_shape));
      PrintResult(out, t.ToString(), selected.json);
    }
    return absl::OkStatus();
  });
}

void AddTileOf(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape, inner, inner_shape, outer, outer_shape;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "tile-of",
      "Is the layout a tile? Given the inner layout, find the outer one (or given the outer, "
      "the inner) such that tile(outer, inner) is the layout; 'no answer' when there is none");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "The layout's logical shape, e.g. 16,24")->required();
  CLI::Option* inner = cmd->add_option("--inner", args->inner, "The known inner layout");
  CLI::Option* inner_shape =
      cmd->add_option("--inner-shape", args->inner_shape, "The inner layout's shape");
  CLI::Option* outer =
      cmd->add_option("--outer", args->outer, "The known outer layout (instead of --inner)");
  CLI::Option* outer_shape =
      cmd->add_option("--outer-shape", args->outer_shape, "The outer layout's shape");
  inner->needs(inner_shape);
  inner_shape->needs(inner);
  outer->needs(outer_shape);
  outer_shape->needs(outer);
  inner->excludes(outer);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, inner, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(Layout a, ParseLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(args->shape, "--shape"));
    const bool inner_known = inner->count() > 0;
    if (!inner_known && args->outer.empty())
      return absl::InvalidArgumentError("give --inner/--inner-shape or --outer/--outer-shape");
    const std::string& known_text = inner_known ? args->inner : args->outer;
    const std::string name = inner_known ? "--inner" : "--outer";
    AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, CatalogWith(args->declare));
    AXE_ASSIGN_OR_RETURN(Layout known, ParseLayoutText(known_text, name, catalog));
    AXE_ASSIGN_OR_RETURN(
        std::vector<int64_t> known_shape,
        ParseIntListOption(inner_known ? args->inner_shape : args->outer_shape, name + "-shape"));
    AXE_ASSIGN_OR_RETURN(MaybeLayout m, inner_known ? TileOfInner(a, shape, known, known_shape)
                                                    : TileOfOuter(a, shape, known, known_shape));
    PrintMaybe(out, m, selected.json);
    return absl::OkStatus();
  });
}

void AddDirectSum(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<PairArgs>();
  CLI::App* cmd = group.add_subcommand(
      "direct-sum", "The direct sum (A + B)(x, y) = A(x) + B(y): a tile without span scaling");
  cmd->add_option("--left,--outer", args->outer, "The left (outer-position) layout A")->required();
  cmd->add_option("--left-shape,--outer-shape", args->outer_shape, "A's logical shape")->required();
  cmd->add_option("--right,--inner", args->inner, "The right (inner-position) layout B")
      ->required();
  cmd->add_option("--right-shape,--inner-shape", args->inner_shape, "B's logical shape (same rank)")
      ->required();
  AddAxisOption(cmd, args->declare);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(ParsedPair p, ParsePair(*args, "left", "right"));
    AXE_ASSIGN_OR_RETURN(Layout a, PlainOnly(p.outer, "--left", "direct-sum"));
    AXE_ASSIGN_OR_RETURN(Layout b, PlainOnly(p.inner, "--right", "direct-sum"));
    AXE_ASSIGN_OR_RETURN(Layout sum, DirectSum(a, p.outer_shape, b, p.inner_shape));
    PrintResult(out, sum.ToString(), selected.json);
    return absl::OkStatus();
  });
}

void AddSlice(CLI::App& group, Selected& selected) {
  struct Args : LayoutArgs {
    std::string shape, region;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "slice",
      "The layout of a box sub-tensor, when one of the paper's two sufficient forms applies "
      "('no answer' otherwise); accepts Swizzled(M,B,S, <layout>)");
  AddLayoutArgs(cmd, *args);
  cmd->add_option("--shape", args->shape, "The layout's logical shape, e.g. 16,24")->required();
  cmd->add_option("--region", args->region, "The box, start:stop per dimension, e.g. 0:8,8:24")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(AnyLayout l, ParseAnyLayoutArgs(*args));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(args->shape, "--shape"));
    AXE_ASSIGN_OR_RETURN(std::string region_text, ReadInputText(args->region, "--region"));
    absl::StatusOr<std::vector<Interval>> region = ParseRegion(region_text);
    if (!region.ok()) return InOption("--region", region.status());
    if (l.swizzled) {
      AXE_ASSIGN_OR_RETURN(MaybeSwizzledLayout m, Slice(*l.swizzled, shape, *region));
      if (m.has_value()) {
        PrintResult(out, m.layout->ToString(), selected.json);
      } else {
        PrintMaybe(out, MaybeLayout::None(m.reason), selected.json);
      }
      return absl::OkStatus();
    }
    AXE_ASSIGN_OR_RETURN(MaybeLayout m, Slice(l.layout, shape, *region));
    PrintMaybe(out, m, selected.json);
    return absl::OkStatus();
  });
}

void AddLayoutCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand(
      "layout",
      "Axe layouts: canonical form, apply, inverse, info, pictures, and the algebra (group, tile, "
      "tile-of, direct-sum, slice)");
  group->require_subcommand(1);
  AddCanon(*group, selected);
  AddApply(*group, selected);
  AddInverse(*group, selected);
  AddInfo(*group, selected);
  AddShow(*group, selected);
  AddGroup(*group, selected);
  AddTile(*group, selected);
  AddTileOf(*group, selected);
  AddDirectSum(*group, selected);
  AddSlice(*group, selected);
}

AXE_CLI_COMMAND_GROUP(10, AddLayoutCommands);

}  // namespace
}  // namespace layout_cmd
}  // namespace axe::cli
