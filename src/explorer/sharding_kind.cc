// /api/sharding: a sharding (a mesh and a PartitionSpec, or an HLO sharding) of an array,
// explained as `axe shard explain` and drawn (picture/sharding_picture.h).
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "axe/base/dtype.h"
#include "axe/base/int_list.h"
#include "axe/explorer/answer_json.h"
#include "axe/picture/sharding_picture.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/xla/text.h"
#include "kinds.h"

namespace axe::explorer {
namespace {

struct ArrayInput {
  std::vector<int64_t> dims;
  sharding::ExplainOptions options;
};

// shape: dims ("8,8", with dtype) or an XLA array shape whose layout is every shard's.
KindAnswer ParseArray(const Fields& fields, ArrayInput& out) {
  const std::string text = Trimmed(fields, "shape");
  if (text.empty()) {
    return FieldError(
        "shape", absl::InvalidArgumentError("type the global shape, e.g. 8,8 or f32[8,8]{0,1}"));
  }
  if (text.find('[') != std::string::npos) {
    absl::StatusOr<xla::Shape> shape = xla::ParseShape(text);
    if (!shape.ok()) return FieldError("shape", shape.status());
    if (!shape->IsArray()) {
      return FieldError("shape", absl::InvalidArgumentError("not an array shape"));
    }
    out.dims.assign(shape->dimensions().begin(), shape->dimensions().end());
    out.options.dtype = shape->element_type();
    if (shape->has_layout()) out.options.local_layout = shape->layout();
    return {};
  }
  absl::StatusOr<std::vector<int64_t>> dims = ParseIntList(text);
  if (!dims.ok()) return FieldError("shape", dims.status());
  out.dims = *std::move(dims);
  const std::string dtype = Trimmed(fields, "dtype");
  absl::StatusOr<DType> t = ParseDType(dtype.empty() ? "f32" : dtype);
  if (!t.ok()) return FieldError("dtype", t.status());
  out.options.dtype = *t;
  return {};
}

KindAnswer Explained(const absl::StatusOr<sharding::ShardingExplanation>& e,
                     const std::optional<sharding::Mesh>& mesh, absl::string_view field) {
  if (!e.ok()) return FieldError(field, e.status());
  KindAnswer out;
  out.answer_json = ShardingJson(*e);
  out.svg = picture::ShardingSvg(*e, mesh);
  return out;
}

}  // namespace

KindAnswer AnswerSharding(const Fields& fields) {
  KindAnswer known = CheckKnownFields(fields, {"shape", "dtype", "mesh", "spec", "hlo"});
  if (!known.error.ok()) return known;
  ArrayInput array;
  if (KindAnswer bad = ParseArray(fields, array); !bad.error.ok()) return bad;
  std::optional<sharding::Mesh> mesh;
  if (const std::string text = Trimmed(fields, "mesh"); !text.empty()) {
    absl::StatusOr<sharding::Mesh> m = sharding::Mesh::Parse(text);
    if (!m.ok()) return FieldError("mesh", m.status());
    mesh = *std::move(m);
  }
  const std::string spec_text = Trimmed(fields, "spec"), hlo_text = Trimmed(fields, "hlo");
  if (!hlo_text.empty()) {
    if (!spec_text.empty()) {
      return FieldError(
          "hlo", absl::InvalidArgumentError("give either a PartitionSpec (with a mesh) or an HLO "
                                            "sharding, not both"));
    }
    absl::StatusOr<sharding::HloSharding> hlo = sharding::HloSharding::Parse(hlo_text);
    if (!hlo.ok()) return FieldError("hlo", hlo.status());
    return Explained(sharding::ExplainHloSharding(array.dims, *hlo, mesh, 0, array.options), mesh,
                     "hlo");
  }
  if (!mesh) {
    return FieldError(
        "mesh", absl::InvalidArgumentError("type a mesh, e.g. x=2,y=2 (or give an HLO sharding)"));
  }
  absl::StatusOr<sharding::PartitionSpec> spec =
      sharding::PartitionSpec::Parse(spec_text.empty() ? "P()" : spec_text);
  if (!spec.ok()) return FieldError("spec", spec.status());
  absl::StatusOr<sharding::NamedSharding> named =
      sharding::NamedSharding::Create(*mesh, *std::move(spec));
  if (!named.ok()) return FieldError("spec", named.status());
  return Explained(sharding::ExplainNamedSharding(array.dims, *named, array.options), mesh, "spec");
}

}  // namespace axe::explorer
