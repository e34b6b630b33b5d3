// Axis catalogues: which kind a bare axis name has when text is read.
//
// A catalogue is an immutable value mapping names to kinds. Parsers take one (Layout::Parse,
// PhysCoord::Parse); a name it does not hold is a thread axis, except `m`, which is always
// memory. The standard catalogue is the union of the hardware catalogues, each declared
// beside its hardware (nvidia.h, trainium.h, tmem.h; the device axes below), and is fixed at build
// time: no call can change what a name means in a value already built. A caller with its own names
// (a mesh with axes `x`, `data`, ...) extends a catalogue into a new value:
//
//   AxisCatalog c = AxisCatalog::Standard().With({{"x", AxisKind::kDevice}});
//   Layout::Parse("S[(2,4):(1@x,1)]", c);   // x is a device axis here
//
// Text can also name kinds itself (`... where x:device`), see docs/notation.md.
#ifndef AXE_LAYOUT_AXIS_CATALOG_H_
#define AXE_LAYOUT_AXIS_CATALOG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/axis.h"

namespace axe {

// One name of a hardware catalogue.
struct AxisCatalogEntry {
  absl::string_view name;
  AxisKind kind;
};

// The device axis names of the standard catalogue: gpuid, gpuid_x, gpuid_y and pid.
absl::Span<const AxisCatalogEntry> MeshAxisNames();

class AxisCatalog {
 public:
  // The empty catalogue: `m` is memory, every other name a thread axis.
  AxisCatalog() = default;

  // The union of the hardware catalogues (NvidiaAxisNames, TrainiumAxisNames,
  // TmemAxisNames, MeshAxisNames).
  static const AxisCatalog& Standard();

  // This catalogue with `entries` added; an added name replaces this catalogue's kind for it.
  // Entries must be valid axis names, each at most once, and `m` only as memory
  // (InvalidArgument naming the entry otherwise).
  absl::StatusOr<AxisCatalog> With(absl::Span<const AxisCatalogEntry> entries) const;
  // The same from "NAME=KIND" texts (the CLI's --axis), e.g. {"x=device", "y=device"}.
  absl::StatusOr<AxisCatalog> WithDeclarations(absl::Span<const std::string> declarations) const;
  // This catalogue with the axes of a value (their names take their kinds).
  AxisCatalog With(absl::Span<const Axis> axes) const;

  // The kind this catalogue gives `name`: its entry, memory for `m`, else thread.
  AxisKind KindOf(absl::string_view name) const;
  // The kind of `name` if the catalogue holds it.
  std::optional<AxisKind> Find(absl::string_view name) const;
  // The axis `name` with KindOf(name). `name` must be valid (checked).
  Axis Resolve(absl::string_view name) const { return Axis::Get(name, KindOf(name)); }

  friend bool operator==(const AxisCatalog& a, const AxisCatalog& b) {
    return a.kinds_ == b.kinds_;
  }

 private:
  absl::flat_hash_map<std::string, AxisKind> kinds_;
};

}  // namespace axe

#endif  // AXE_LAYOUT_AXIS_CATALOG_H_
