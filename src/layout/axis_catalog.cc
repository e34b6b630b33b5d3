#include "axe/layout/axis_catalog.h"

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/scanner.h"
#include "axe/layout/nvidia.h"
#include "axe/layout/tmem.h"
#include "axe/layout/trainium.h"

namespace axe {

absl::Span<const AxisCatalogEntry> MeshAxisNames() {
  static constexpr AxisCatalogEntry kNames[] = {{"gpuid", AxisKind::kDevice},
                                                {"gpuid_x", AxisKind::kDevice},
                                                {"gpuid_y", AxisKind::kDevice},
                                                {"pid", AxisKind::kDevice}};
  return kNames;
}

const AxisCatalog& AxisCatalog::Standard() {
  static const AxisCatalog* standard = [] {
    auto* c = new AxisCatalog();
    for (absl::Span<const AxisCatalogEntry> names :
         {NvidiaAxisNames(), TrainiumAxisNames(), TmemAxisNames(), MeshAxisNames()}) {
      for (const AxisCatalogEntry& e : names) {
        auto [it, inserted] = c->kinds_.emplace(std::string(e.name), e.kind);
        AXE_CHECK(inserted || it->second == e.kind)
            << "two hardware catalogues give axis '" << e.name << "' different kinds";
      }
    }
    return c;
  }();
  return *standard;
}

absl::StatusOr<AxisCatalog> AxisCatalog::With(absl::Span<const AxisCatalogEntry> entries) const {
  AxisCatalog out = *this;
  absl::flat_hash_map<std::string, AxisKind> added;
  for (const AxisCatalogEntry& e : entries) {
    if (!Axis::IsValidName(e.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid axis name '", e.name, "' (expected [A-Za-z_][A-Za-z0-9_]*)"));
    }
    if (e.name == "m" && e.kind != AxisKind::kMemory) {
      return absl::InvalidArgumentError(absl::StrCat("axis 'm' is the memory axis; it cannot be a ",
                                                     AxisKindName(e.kind), " axis"));
    }
    if (!added.emplace(std::string(e.name), e.kind).second) {
      return absl::InvalidArgumentError(absl::StrCat("axis '", e.name, "' is given twice"));
    }
    out.kinds_[std::string(e.name)] = e.kind;
  }
  return out;
}

absl::StatusOr<AxisCatalog> AxisCatalog::WithDeclarations(
    absl::Span<const std::string> declarations) const {
  std::vector<AxisCatalogEntry> entries;
  entries.reserve(declarations.size());  // names point into `declarations`
  for (const std::string& d : declarations) {
    const size_t eq = d.find('=');
    if (eq == std::string::npos || d.find('=', eq + 1) != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", ElideForMessage(d), "': expected NAME=KIND"));
    }
    absl::StatusOr<AxisKind> kind = ParseAxisKind(absl::string_view(d).substr(eq + 1));
    if (!kind.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", ElideForMessage(d), "': ", kind.status().message()));
    }
    entries.push_back({absl::string_view(d).substr(0, eq), *kind});
  }
  return With(entries);
}

AxisCatalog AxisCatalog::With(absl::Span<const Axis> axes) const {
  AxisCatalog out = *this;
  for (Axis a : axes) out.kinds_[std::string(a.name())] = a.kind();
  return out;
}

AxisKind AxisCatalog::KindOf(absl::string_view name) const {
  if (name == "m") return AxisKind::kMemory;
  return Find(name).value_or(AxisKind::kThread);
}

std::optional<AxisKind> AxisCatalog::Find(absl::string_view name) const {
  auto it = kinds_.find(name);
  if (it == kinds_.end()) return std::nullopt;
  return it->second;
}

}  // namespace axe
