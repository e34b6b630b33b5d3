// The sharding part of `axe tour`: the seed's 2x2 mesh examples (split/split and
// split/replicate) in JAX's, XLA's, Shardy's and Axe's notations, and an HLO dump's sharding read
// back as a NamedSharding. Everything shown is computed; the claims are checked as the tour runs.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/sharding/equivalent.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/from_hlo.h"
#include "tour.h"

namespace axe::cli {
namespace tour_sharding {
namespace {

absl::Status SelfCheck(bool holds, absl::string_view claim) {
  if (holds) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("tour self-check failed: ", claim));
}

absl::StatusOr<sharding::NamedSharding> Named(absl::string_view mesh, absl::string_view spec) {
  AXE_ASSIGN_OR_RETURN(sharding::Mesh m, sharding::Mesh::Parse(mesh));
  AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec p, sharding::PartitionSpec::Parse(spec));
  return sharding::NamedSharding::Create(std::move(m), std::move(p));
}

void ShowForms(std::ostream& os, const sharding::ShardingExplanation& e) {
  os << "  JAX     " << e.named.text.value_or("-") << "\n"
     << "  HLO     " << e.hlo.text.value_or("-") << "\n"
     << "  Shardy  " << e.shardy_mesh << "\n"
     << "          " << e.shardy.text.value_or("-") << "\n"
     << "  Axe     " << e.axe.text.value_or("-") << "\n\n";
  for (const std::string& line : e.picture) os << "  " << line << "\n";
}

// Where element `index` lives, by applying the Axe form.
absl::StatusOr<std::string> Places(const std::string& axe_text, const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& index) {
  AXE_ASSIGN_OR_RETURN(Layout layout, Layout::Parse(axe_text));
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, Apply(layout, shape, index));
  std::vector<std::string> shown;
  for (const PhysCoord& p : points) shown.push_back(p.ToString());
  return absl::StrJoin(shown, " and ");
}

// One 2x2-mesh example: the sharding in every notation, its picture, and where element (5,3)
// lives by applying the Axe form (checked against `expected`).
absl::Status ShowExample(std::ostream& os, absl::string_view spec, absl::string_view intro,
                         absl::string_view expected, absl::string_view meaning) {
  const std::vector<int64_t> shape = {8, 8};
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding s, Named("x=2,y=2", spec));
  AXE_ASSIGN_OR_RETURN(sharding::ShardingExplanation e,
                       sharding::ExplainNamedSharding(shape, s, {}));
  os << intro;
  ShowForms(os, e);
  AXE_ASSIGN_OR_RETURN(std::string at, Places(*e.axe.text, shape, {5, 3}));
  AXE_RETURN_IF_ERROR(SelfCheck(at == expected, absl::StrCat("element (5,3) is at ", expected)));
  os << "\nElement (5,3) is at " << at << meaning << "\n";
  return absl::OkStatus();
}

absl::Status SplitSplit(std::ostream& os) {
  return ShowExample(
      os, "P('x', 'y')",
      "f32[8,8] on a 2x2 mesh, rows split over x and columns over y: each device holds one\n"
      "4x4 block. The same sharding in four notations:\n\n",
      "{gpuid:2, m:7}", ": device 2 (x=1, y=0), local (1,3) = offset 7.");
}

absl::Status SplitReplicate(std::ostream& os) {
  return ShowExample(
      os, "P('x', None)",
      "Rows split over x, replicated over y: devices 0,1 hold rows 0-3 and devices 2,3 rows\n"
      "4-7. HLO says it with a replicated last tile dim; Axe with a replica iter R:\n\n",
      "{gpuid:2, m:11} and {gpuid:3, m:11}", ": the same local offset on both replicas.");
}

absl::Status FromHlo(std::ostream& os) {
  const std::vector<int64_t> shape = {8, 8};
  const std::string text = "{devices=[2,2]<=[2,2]T(1,0)}";
  AXE_ASSIGN_OR_RETURN(sharding::HloSharding hlo, sharding::HloSharding::Parse(text));
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::Mesh::Parse("x=2,y=2"));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named,
                       sharding::HloToNamedSharding(hlo, shape.size(), mesh));
  AXE_RETURN_IF_ERROR(
      SelfCheck(named.spec().ToString() == "P('y', 'x')", "the spec is P('y', 'x')"));
  AXE_ASSIGN_OR_RETURN(
      sharding::EquivalenceResult same,
      sharding::Equivalent(shape, {named, std::nullopt, {}}, {hlo, std::nullopt, {}}));
  AXE_RETURN_IF_ERROR(SelfCheck(same.equivalent, "the two forms are equivalent"));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding fresh,
                       sharding::HloToNamedSharding(hlo, shape.size(), mesh.num_devices()));
  os << "An HLO dump says sharding=" << text
     << ". The transposed iota puts\n"
        "device 1 in the second row of tiles. On the mesh x=2,y=2 that is\n\n  "
     << named << "\n\nand with no mesh at hand axe builds one:\n\n  " << fresh
     << "\n\nBoth put the same elements on every device (`axe shard equivalent` says so).\n";
  return absl::OkStatus();
}

std::vector<TourSection> ShardingTour() {
  return {{"sharding", "A 2x2 mesh: split/split in JAX, HLO, Shardy and Axe", SplitSplit},
          {"sharding", "Split/replicate: replica groups and R", SplitReplicate},
          {"sharding", "From an HLO dump back to a NamedSharding", FromHlo}};
}

AXE_TOUR_PART(30, ShardingTour);

}  // namespace
}  // namespace tour_sharding
}  // namespace axe::cli
