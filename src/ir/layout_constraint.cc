// with_layout_constraint: the primitive `layout_constraint` and its rules.
#include "axe/ir/layout_constraint.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"

namespace axe::ir {
namespace {

constexpr absl::string_view kName = "with_layout_constraint";

// What Python's type() of a non-Layout leaf prints.
std::string PythonTypeOf(const sharding::Format::LayoutChoice& layout) {
  if (std::holds_alternative<sharding::AutoLayout>(layout)) {
    return "<class 'jax._src.layout.AutoLayout'>";
  }
  return "<class 'NoneType'>";
}

Param TilingParam(const std::optional<sharding::LocalLayout::Tiling>& tiling) {
  if (!tiling) return Param::None();
  std::vector<Param> tiles;
  for (const std::vector<int64_t>& tile : *tiling) tiles.push_back(Param::Ints(tile));
  return Param::Tuple(std::move(tiles));
}

absl::StatusOr<std::vector<ShapedArray>> LayoutConstraintAbstractEval(
    absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout_constraint takes one operand, got ", avals.size()));
  }
  AXE_ASSIGN_OR_RETURN(sharding::LocalLayout layout, LayoutOfConstraint(params));
  AXE_RETURN_IF_ERROR(CheckLayoutConstraintRank(layout, avals[0].shape()));
  return std::vector<ShapedArray>{avals[0]};
}

// Linear: the cotangent gets the same constraint.
absl::StatusOr<std::vector<std::optional<Tracer>>> LayoutConstraintTranspose(
    Builder& builder, absl::Span<const std::optional<Tracer>> cotangents,
    absl::Span<const TransposeArg>, const Params& params) {
  if (!cotangents[0]) return std::vector<std::optional<Tracer>>{std::nullopt};
  AXE_ASSIGN_OR_RETURN(Tracer ct,
                       builder.Bind1(*Builtins().with_layout_constraint, {*cotangents[0]}, params));
  return std::vector<std::optional<Tracer>>{std::move(ct)};
}

absl::StatusOr<BatchResult> LayoutConstraintBatching(Builder& builder,
                                                     absl::Span<const Tracer> args,
                                                     absl::Span<const std::optional<int64_t>> dims,
                                                     const Params& params) {
  Params batched = params;
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(sharding::LocalLayout layout, LayoutOfConstraint(params));
    batched["layout"] = LayoutConstraintParam(BatchedConstraintLayout(layout, *dims[0]));
  }
  AXE_ASSIGN_OR_RETURN(Tracer out,
                       builder.Bind1(*Builtins().with_layout_constraint, {args[0]}, batched));
  return BatchResult{{std::move(out)}, {dims[0]}};
}

}  // namespace

Param LayoutConstraintParam(const sharding::LocalLayout& layout) {
  return Param::Call("Layout",
                     {Param::Keyword("major_to_minor", Param::Ints(layout.major_to_minor())),
                      Param::Keyword("tiling", TilingParam(layout.tiling())),
                      Param::Keyword("sub_byte_element_size_in_bits",
                                     Param::Int(layout.sub_byte_element_size_in_bits()))});
}

absl::StatusOr<sharding::LocalLayout> LayoutOfConstraint(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "layout_constraint", "layout"));
  absl::StatusOr<sharding::LocalLayout> layout = sharding::LocalLayout::Parse(p->ToString());
  if (!layout.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout_constraint's parameter layout=", p->ToString(),
                     " is not a Layout: ", layout.status().message()));
  }
  return layout;
}

absl::Status CheckLayoutConstraintRank(const sharding::LocalLayout& layout,
                                       absl::Span<const int64_t> shape) {
  if (layout.major_to_minor().size() == shape.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "One of ", kName, " arguments is incompatible with its layout annotation ", layout.ToString(),
      ": Length of major_to_minor and the rank of the value should match. Got "
      "major_to_minor=",
      FormatTuple(layout.major_to_minor(), true), " and shape=", FormatTuple(shape, true)));
}

sharding::LocalLayout BatchedConstraintLayout(const sharding::LocalLayout& layout,
                                              int64_t batch_dim) {
  std::vector<int64_t> major_to_minor;
  for (int64_t m : layout.major_to_minor()) major_to_minor.push_back(m + 1);
  major_to_minor.insert(major_to_minor.begin() + batch_dim, 0);
  // Only the permutation changes; the tiling and element size stay (a rank-checked layout).
  absl::StatusOr<sharding::LocalLayout> batched = layout.WithMajorToMinor(major_to_minor);
  AXE_CHECK(batched.ok()) << batched.status();
  return *std::move(batched);
}

absl::StatusOr<sharding::LocalLayout> ConstraintLayout(const sharding::Format::LayoutChoice& layout,
                                                       absl::Span<const int64_t> shape) {
  const auto* concrete = std::get_if<sharding::LocalLayout>(&layout);
  if (concrete == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("layouts passed to `", kName,
                                                   "` must be of type `Layout`. Got [",
                                                   PythonTypeOf(layout), "]"));
  }
  AXE_RETURN_IF_ERROR(CheckLayoutConstraintRank(*concrete, shape));
  return *concrete;
}

absl::StatusOr<Tracer> WithLayoutConstraint(const Tracer& x,
                                            const sharding::Format::LayoutChoice& layout) {
  AXE_ASSIGN_OR_RETURN(sharding::LocalLayout concrete, ConstraintLayout(layout, x.aval.shape()));
  if (x.builder == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, " needs a traced value (an argument of a Builder)"));
  }
  return x.builder->Bind1(*Builtins().with_layout_constraint, {x},
                          {{"layout", LayoutConstraintParam(concrete)}});
}

void RegisterLayoutConstraintRules(const Primitive& p) {
  RegisterAbstractEval(p, LayoutConstraintAbstractEval);
  RegisterTranspose(p, LayoutConstraintTranspose);
  RegisterBatching(p, LayoutConstraintBatching);
}

}  // namespace axe::ir
