// Shardy's notation (ShardyMesh::Parse, ShardySharding::Parse). The input is a mesh, a
// sharding, or `<mesh>\n<sharding>`. Laws: each reads back from its print to an equal value;
// the verifier's Check never crashes; a sharding that checks against its mesh converts to a
// NamedSharding on the refined mesh, and one expressible on its own mesh converts back to
// the same dims (JAX's lowering keeps whole axes).
#include <cstdint>
#include <optional>
#include <string>

#include "axe/sharding/shardy.h"
#include "fuzz_check.h"

namespace {

namespace sh = axe::sharding;

void CheckMesh(const sh::ShardyMesh& mesh) {
  const std::string attr = mesh.AttrToString();
  absl::StatusOr<sh::ShardyMesh> again = sh::ShardyMesh::Parse(attr);
  AXE_FUZZ_CHECK(again.ok(), "the mesh attribute parses: " + attr);
  sh::ShardyMesh unnamed = mesh;
  unnamed.name.clear();
  AXE_FUZZ_CHECK(*again == unnamed, "parse(attr(m)) == m for " + attr);
  if (!mesh.name.empty()) {
    const std::string text = mesh.ToString();
    absl::StatusOr<sh::ShardyMesh> named = sh::ShardyMesh::Parse(text);
    AXE_FUZZ_CHECK(named.ok() && *named == mesh, "parse(print(m)) == m for " + text);
  }
  absl::StatusOr<sh::Mesh> as_mesh = mesh.ToMesh();
  if (as_mesh.ok()) {
    const sh::ShardyMesh back = sh::ShardyMesh::FromMesh(*as_mesh, mesh.name);
    AXE_FUZZ_CHECK(back.axes == mesh.axes, "FromMesh(ToMesh(m)) keeps the axes of " + attr);
  }
}

void CheckSharding(const sh::ShardySharding& s, const std::optional<sh::ShardyMesh>& mesh) {
  const std::string text = s.ToString();
  absl::StatusOr<sh::ShardySharding> again = sh::ShardySharding::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == s, "parse(print(s)) == s for " + text);
  if (!s.inline_mesh() && !mesh) return;
  if (!s.Check(mesh).ok()) return;
  absl::StatusOr<sh::NamedSharding> refined = sh::ShardyToRefinedNamedSharding(s, mesh);
  absl::StatusOr<sh::NamedSharding> named = sh::ShardyToNamedSharding(s, mesh);
  if (!named.ok()) return;
  AXE_FUZZ_CHECK(refined.ok(), "a sharding with a NamedSharding has a refined one: " + text);
  const sh::ShardySharding lowered = sh::NamedToShardySharding(*named, s.dims().size(), "m");
  AXE_FUZZ_CHECK(lowered.dims().size() == s.dims().size(), "lowering keeps the rank: " + text);
  for (size_t d = 0; d < s.dims().size(); ++d) {
    AXE_FUZZ_CHECK(lowered.dims()[d].axes == s.dims()[d].axes,
                   "lowering keeps dim " + std::to_string(d) + "'s axes: " + text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = axe::fuzz::AsText(data, size);
  std::optional<sh::ShardyMesh> mesh;
  if (const size_t newline = text.find('\n'); newline != absl::string_view::npos) {
    absl::StatusOr<sh::ShardyMesh> m = sh::ShardyMesh::Parse(text.substr(0, newline));
    if (m.ok()) {
      CheckMesh(*m);
      mesh = *std::move(m);
      text.remove_prefix(newline + 1);
    }
  }
  if (!mesh) {
    absl::StatusOr<sh::ShardyMesh> m = sh::ShardyMesh::Parse(text);
    if (m.ok()) CheckMesh(*m);
  }
  absl::StatusOr<sh::ShardySharding> s = sh::ShardySharding::Parse(text);
  if (s.ok()) CheckSharding(*s, mesh);
  return 0;
}
