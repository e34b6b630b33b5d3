#include "operand_plan.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"

namespace axe::pallas::internal {

std::string PointText(absl::Span<const int64_t> point) {
  return FormatTuple(point, /*python_tuple=*/true);
}

std::string CallName(const CallSpec& spec, const CallSite& site) {
  if (site.file.empty()) return absl::StrCat("pallas_call ", spec.options.name);
  return absl::StrCat("pallas_call ", spec.options.name, " at ", site.file, ":", site.line);
}

std::string BlockShapeError(const Operand& op, absl::string_view rest) {
  return absl::StrCat("Block shape for ", op.origin, " (= ", FormatBlockShape(op.block_dims), ") ",
                      rest);
}

namespace {

// Plans dimension d of `op`: block size, padding, padded size.
absl::Status PlanDimension(Operand& op, int d, absl::Span<const int64_t> shape) {
  const BlockDim& bd = op.block_dims[static_cast<size_t>(d)];
  if (absl::Status s = bd.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(
        BlockShapeError(op, absl::StrCat("is invalid: ", s.message())));
  }
  const int64_t size = bd.size();
  const int64_t lo = bd.padding_lo(), hi = bd.padding_hi();
  if (lo != 0 || hi != 0) op.has_element_padding = true;
  std::optional<int64_t> total = CheckedAdd(op.array_shape[static_cast<size_t>(d)], lo);
  if (total) total = CheckedAdd(*total, hi);
  if (!total) {
    return absl::InvalidArgumentError(BlockShapeError(op, "has a padding that overflows int64"));
  }
  int64_t padded = 0;
  if (size == 0) {
    if (*total != 0) {
      return absl::InvalidArgumentError(BlockShapeError(
          op, absl::StrCat("has size 0 in dimension ", d, ", but the array shape ",
                           FormatTuple(shape, true), " has ", *total, " elements there")));
    }
  } else {
    std::optional<int64_t> p = CheckedMul(CeilDiv(*total, size), size);
    if (!p) return absl::InvalidArgumentError(BlockShapeError(op, "pads the array beyond int64"));
    padded = *p;
    if (padded < size) {
      return absl::InvalidArgumentError(BlockShapeError(
          op, absl::StrCat("does not fit the array shape ", FormatTuple(shape, true),
                           ": dimension ", d, " has no elements to hold a block of ", size)));
    }
  }
  op.block_size.push_back(size);
  op.padding_lo.push_back(lo);
  op.padded_shape.push_back(padded);
  op.max_start.push_back(padded - size);
  op.is_blocked.push_back(bd.kind() == BlockDim::Kind::kBlocked);
  if (!bd.squeezed()) {
    op.kept_dims.push_back(d);
    op.ref_shape.push_back(size);
  }
  return absl::OkStatus();
}

// Builds the operand description and checks everything that does not need data.
absl::StatusOr<Operand> PlanOperand(std::string origin, bool is_output, int64_t index,
                                    const BlockSpec& spec, const ShapeDType& sd, const Grid& grid) {
  Operand op;
  op.origin = std::move(origin);
  op.is_output = is_output;
  op.index = index;
  op.spec = &spec;
  if (!IsArrayType(sd.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(op.origin, " has element type ",
                                                   XlaName(sd.dtype),
                                                   ", which is not an array element type"));
  }
  op.dtype = sd.dtype;
  op.element_bytes = static_cast<size_t>(ByteWidth(sd.dtype));
  op.rank = static_cast<int>(sd.shape.size());
  op.array_shape.assign(sd.shape.begin(), sd.shape.end());
  op.block_dims = spec.Resolve(sd.shape);
  if (op.block_dims.size() != sd.shape.size()) {
    return absl::InvalidArgumentError(
        BlockShapeError(op, absl::StrCat("must have the same number of dimensions as the array "
                                         "shape ",
                                         FormatTuple(sd.shape, true), ".")));
  }
  const IndexMap& map = spec.index_map();
  if (map.arity() >= 0 && map.arity() != grid.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Index map function ", map.Describe(), " for ", op.origin, " takes ", map.arity(),
        " grid indices, but the grid ", grid.ToString(), " has ", grid.rank(), " axes"));
  }
  for (int d = 0; d < op.rank; ++d) AXE_RETURN_IF_ERROR(PlanDimension(op, d, sd.shape));
  AXE_RETURN_IF_ERROR(
      ValidateShape(op.padded_shape, absl::StrCat("the padded shape of ", op.origin)));
  return op;
}

absl::Status CheckCounts(const CallSpec& spec, size_t num_inputs, size_t num_outputs) {
  const Grid& grid = spec.grid;
  AXE_RETURN_IF_ERROR(grid.Validate());
  const std::vector<DimensionSemantics>& semantics = spec.options.dimension_semantics;
  if (!semantics.empty() && semantics.size() != static_cast<size_t>(grid.rank())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Length of grid does not match length of dimension semantics. len(grid)=", grid.rank(),
        ", len(dimension_semantics)=", semantics.size()));
  }
  auto mismatch = [](absl::string_view specs, absl::string_view values, size_t a, size_t b) {
    return absl::InvalidArgumentError(
        absl::StrCat("Pytree for `", specs, "` and `", values,
                     "` do not match. There are 1 mismatches, including:\n    * at ``, `", specs,
                     "` is a tuple of length ", a, " but `", values, "` is a tuple of length ", b,
                     ", so the lengths do not match"));
  };
  if (!spec.in_specs.empty() && spec.in_specs.size() != num_inputs) {
    return mismatch("in_specs", "inputs", spec.in_specs.size(), num_inputs);
  }
  if (!spec.out_specs.empty() && spec.out_specs.size() != num_outputs) {
    return mismatch("out_specs", "out_shape", spec.out_specs.size(), num_outputs);
  }
  return absl::OkStatus();
}

absl::Status CheckAliases(const CallOptions& options, absl::Span<const ShapeDType> inputs,
                          absl::Span<const ShapeDType> outputs) {
  std::vector<bool> input_seen(inputs.size()), output_seen(outputs.size());
  for (const auto& [i, j] : options.input_output_aliases) {
    std::string mapping =
        absl::StrCat("input_output_aliases contains the mapping '", i, ":", j, "'");
    if (i < 0 || i >= static_cast<int64_t>(inputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          mapping, " with input index ", i, " outside the range [0, ", inputs.size(), ")"));
    }
    if (j < 0 || j >= static_cast<int64_t>(outputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          mapping, " with output index ", j, " outside the range [0, ", outputs.size(), ")"));
    }
    const ShapeDType& in = inputs[static_cast<size_t>(i)];
    const ShapeDType& out = outputs[static_cast<size_t>(j)];
    if (!(in == out)) {
      return absl::InvalidArgumentError(absl::StrCat(
          mapping, " referring to input[", i, "] with abstract value ", in.ToString(),
          " and to output[", j, "] with a different abstract value ", out.ToString(), "."));
    }
    if (input_seen[static_cast<size_t>(i)]) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_output_aliases maps input ", i, " more than once"));
    }
    if (output_seen[static_cast<size_t>(j)]) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_output_aliases maps more than one input to output ", j));
    }
    input_seen[static_cast<size_t>(i)] = output_seen[static_cast<size_t>(j)] = true;
  }
  return absl::OkStatus();
}

// Plans the inputs (origins "args[i]") or the outputs ("outputs[j]", JAX's names for
// them) onto `operands`; an empty `specs` gives every operand the default BlockSpec.
absl::Status PlanOperands(absl::Span<const BlockSpec> specs, absl::Span<const ShapeDType> values,
                          bool is_output, const Grid& grid, std::vector<Operand>& operands) {
  static const BlockSpec kDefaultSpec;
  for (size_t k = 0; k < values.size(); ++k) {
    const std::string origin = absl::StrCat(is_output ? "outputs[" : "args[", k, "]");
    AXE_RETURN_IF_ERROR(ValidateShape(values[k].shape, origin));
    const BlockSpec& bs = specs.empty() ? kDefaultSpec : specs[k];
    AXE_ASSIGN_OR_RETURN(
        Operand op, PlanOperand(origin, is_output, static_cast<int64_t>(k), bs, values[k], grid));
    operands.push_back(std::move(op));
  }
  return absl::OkStatus();
}

// The operand's buffer (padded to whole blocks) within options.max_buffer_bytes.
absl::Status CheckBufferBytes(const Operand& op, const CallOptions& options) {
  std::optional<int64_t> bytes = CheckedProduct(op.padded_shape);
  if (bytes) bytes = CheckedMul(*bytes, static_cast<int64_t>(op.element_bytes));
  if (bytes && *bytes <= options.max_buffer_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "pallas_call ", options.name, ": ", op.origin, " padded to whole blocks has the shape ",
      FormatTuple(op.padded_shape, true), ", ",
      bytes ? absl::StrCat(*bytes, " bytes") : std::string("more bytes than int64 holds"),
      ", more than the limit of ", options.max_buffer_bytes, " bytes (max_buffer_bytes)"));
}

}  // namespace

absl::StatusOr<Plan> BuildPlan(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                               absl::Span<const ShapeDType> outputs) {
  AXE_RETURN_IF_ERROR(CheckCounts(spec, inputs.size(), outputs.size()));
  Plan plan;
  plan.num_inputs = inputs.size();
  AXE_RETURN_IF_ERROR(
      PlanOperands(spec.in_specs, inputs, /*is_output=*/false, spec.grid, plan.operands));
  AXE_RETURN_IF_ERROR(
      PlanOperands(spec.out_specs, outputs, /*is_output=*/true, spec.grid, plan.operands));
  AXE_RETURN_IF_ERROR(CheckAliases(spec.options, inputs, outputs));
  for (const Operand& op : plan.operands) {
    AXE_RETURN_IF_ERROR(CheckBufferBytes(op, spec.options));
  }
  if (!spec.options.input_output_aliases.empty()) {
    for (const Operand& op : plan.operands) {
      if (op.has_element_padding) {
        return absl::UnimplementedError("Padding with aliasing not supported.");
      }
    }
  }
  return plan;
}

absl::Status IndexMapFailed(const Operand& op, absl::Span<const int64_t> point,
                            const absl::Status& error) {
  return absl::Status(
      error.code(),
      absl::StrCat("Index map function ", op.spec->index_map().Describe(), " for ", op.origin,
                   " at grid point ", PointText(point), ": ", error.message()));
}

absl::Status IndexMapCountError(const Operand& op, absl::Span<const int64_t> point,
                                const BlockIndices& indices) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Index map function ", op.spec->index_map().Describe(), " for ", op.origin, " must return ",
      op.rank, " values to match block_shape=", FormatBlockShape(op.block_dims),
      ". Currently returning ", indices.size(), " values: ", FormatTuple(indices, true),
      " at grid point ", PointText(point), "."));
}

absl::Status ProbeIndexMaps(const CallSpec& spec, const Plan& plan) {
  if (spec.grid.num_programs() == 0) return absl::OkStatus();
  Shape point(static_cast<size_t>(spec.grid.rank()), 0);
  BlockIndices indices;
  for (const Operand& op : plan.operands) {
    AXE_RETURN_IF_ERROR(EvaluateIndexMap(op, point, indices));
  }
  return absl::OkStatus();
}

absl::Status WindowStartOverflow(const Operand& op, absl::Span<const int64_t> point,
                                 const BlockIndices& indices, int d) {
  const size_t k = static_cast<size_t>(d);
  const std::string start = op.is_blocked[k] ? absl::StrCat(op.block_size[k], " * ", indices[k])
                                             : absl::StrCat(indices[k], " - ", op.padding_lo[k],
                                                            " (less the Element padding)");
  return absl::InvalidArgumentError(
      absl::StrCat("Index map function ", op.spec->index_map().Describe(), " for ", op.origin,
                   " returned ", FormatTuple(indices, true), " at grid point ", PointText(point),
                   ": the window start ", start, " in dimension ", d, " overflows int64"));
}

}  // namespace axe::pallas::internal
