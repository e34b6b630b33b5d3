// Sharding notations read by `axe shard` (ShardingNotation::Parse: HLO, PartitionSpec on a
// mesh, Shardy, Axe layouts with device iters) and ExplainHloSharding. The input is
// `<notation>` or `<mesh>\n<notation>`. Laws on small shapes: a notation reads back from its
// print; it is equivalent to itself and to its reading back; an HLO sharding is equivalent
// to the NamedSharding and the Axe layout that explain gives for it.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "axe/layout/layout.h"
#include "axe/sharding/equivalent.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/sharding.h"
#include "fuzz_check.h"

namespace {

namespace sh = axe::sharding;

const std::vector<std::vector<int64_t>> kShapes = {{8}, {8, 12}, {4, 6, 8}};

// Enumerating an Axe layout's device map costs size x replicas: keep the fuzzer fast.
bool CheapToCompare(const sh::ShardingNotation& n) {
  const axe::Layout* layout = std::get_if<axe::Layout>(&n.value);
  return layout == nullptr || layout->replica_size() <= 64;
}

void CheckEquivalent(absl::Span<const int64_t> shape, const sh::ShardingNotation& a,
                     const sh::ShardingNotation& b, const std::string& what) {
  if (!CheapToCompare(a) || !CheapToCompare(b)) return;
  absl::StatusOr<sh::EquivalenceResult> eq = sh::Equivalent(shape, a, b);
  AXE_FUZZ_CHECK(!eq.ok() || eq->equivalent, what);
}

// The print of a notation read back (with the same mesh): the text of a spec, of an HLO
// sharding, of a Shardy sharding or of an Axe layout.
std::string Reprint(const sh::ShardingNotation& n) {
  if (!n.shardy.empty() || !std::holds_alternative<sh::NamedSharding>(n.value)) {
    return n.ToString();
  }
  return std::get<sh::NamedSharding>(n.value).spec().ToString();
}

void CheckExplainedHlo(const sh::HloSharding& hlo, const std::optional<sh::Mesh>& mesh,
                       const sh::ShardingNotation& notation) {
  // Over a mesh with an explicit device array, the HLO form numbers devices by mesh position
  // and the NamedSharding by id: the two are compared only where these agree.
  const bool ids_agree = !mesh || mesh->has_default_devices();
  for (const std::vector<int64_t>& shape : kShapes) {
    absl::StatusOr<sh::ShardingExplanation> e = sh::ExplainHloSharding(shape, hlo, mesh, 0, {});
    if (!e.ok()) continue;
    const std::string where = " for " + hlo.ToString() + " on rank " + std::to_string(shape.size());
    if (e->named.text && ids_agree) {
      absl::StatusOr<sh::Sharding> named = sh::Sharding::Parse(*e->named.text);
      AXE_FUZZ_CHECK(named.ok() && named->named() != nullptr,
                     "explain's NamedSharding parses: " + *e->named.text + where);
      CheckEquivalent(shape, notation, sh::ShardingNotation{*named->named(), mesh, {}},
                      "explain's NamedSharding is equivalent" + where);
    }
    if (e->axe.text && ids_agree) {
      absl::StatusOr<axe::Layout> layout = axe::Layout::Parse(*e->axe.text);
      AXE_FUZZ_CHECK(layout.ok(), "explain's Axe layout parses: " + *e->axe.text + where);
      CheckEquivalent(shape, notation, sh::ShardingNotation{*layout, std::nullopt, {}},
                      "explain's Axe layout is equivalent" + where);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = axe::fuzz::AsText(data, size);
  std::optional<sh::Mesh> mesh;
  if (const size_t newline = text.find('\n'); newline != absl::string_view::npos) {
    absl::StatusOr<sh::Mesh> m = sh::Mesh::Parse(text.substr(0, newline));
    if (!m.ok()) return 0;
    mesh = *std::move(m);
    text.remove_prefix(newline + 1);
  }
  absl::StatusOr<sh::ShardingNotation> n = sh::ShardingNotation::Parse(text, mesh);
  if (!n.ok()) return 0;
  const std::string print = Reprint(*n);
  absl::StatusOr<sh::ShardingNotation> again = sh::ShardingNotation::Parse(print, mesh);
  AXE_FUZZ_CHECK(again.ok() && again->KindName() == n->KindName() && Reprint(*again) == print,
                 "the notation reads back from its print " + print);
  for (const std::vector<int64_t>& shape : kShapes) {
    CheckEquivalent(shape, *n, *n, "equivalent to itself: " + print);
    CheckEquivalent(shape, *n, *again, "equivalent to its reading back: " + print);
  }
  if (const sh::HloSharding* hlo = std::get_if<sh::HloSharding>(&n->value)) {
    CheckExplainedHlo(*hlo, mesh, *n);
  }
  return 0;
}
