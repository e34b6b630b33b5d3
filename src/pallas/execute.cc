// ExecuteCall's phases: operand planning (operand_plan.cc), buffers (here), the programs
// (runner.cc, with parallel mode's write check in write_check.cc), and cutting the outputs.
#include "axe/pallas/execute.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/array.h"
#include "copy_box.h"
#include "operand_plan.h"
#include "runner.h"

namespace axe::pallas {
namespace {

using internal::Operand;
using internal::Plan;

// Rejects what the model accepts but axe cannot run.
absl::Status CheckRunnable(const Plan& plan) {
  for (const Operand& op : plan.operands) {
    for (const BlockDim& d : op.block_dims) {
      if (d.kind() == BlockDim::Kind::kBoundedSlice || d.kind() == BlockDim::Kind::kIndirect) {
        return absl::UnimplementedError(internal::BlockShapeError(
            op,
            "has a BoundedSlice or Indirect dimension; axe runs only Blocked, Element and "
            "Squeezed dimensions"));
      }
    }
    if (!IsStorable(op.dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(op.origin, " has dtype ", NumpyName(op.dtype),
                                                     ", which axe can validate but not run"));
    }
    // A block's scratch is an array of its own: NumPy's rule for its byte strides, even when
    // the block is empty (a 0 beside dimensions near 2^62).
    if (!CheckStridesFit(op.dtype, op.block_size).ok()) {
      return absl::ResourceExhaustedError(internal::BlockShapeError(
          op,
          "is too large to run: its nonzero dimensions times the element size pass 2^63 "
          "bytes (NumPy: array is too big)"));
    }
  }
  return absl::OkStatus();
}

// Sets the buffer an output's programs write: the output itself, or a padded buffer (holding
// a copy of the aliased input when `aliased`).
absl::Status AttachOutputBuffer(Operand& op, AnyArray& out, bool aliased) {
  op.needs_padded_buffer = op.has_element_padding || op.padded_shape != op.array_shape;
  op.buffer_origin.assign(static_cast<size_t>(op.rank), 0);
  if (!op.needs_padded_buffer) {
    op.buffer = static_cast<std::byte*>(out.data());
    op.buffer_shape = op.array_shape;
    op.buffer_strides.assign(out.strides().begin(), out.strides().end());
    return absl::OkStatus();
  }
  AXE_ASSIGN_OR_RETURN(AnyArray padded, AnyArray::Uninitialized(op.dtype, op.padded_shape));
  if (aliased) {
    // No Element padding with aliases, so the array sits at the buffer's origin.
    internal::CopyBlock(static_cast<std::byte*>(padded.data()), padded.strides().data(),
                        static_cast<const std::byte*>(out.data()), out.strides().data(),
                        op.array_shape.data(), op.rank, op.element_bytes);
  }
  op.padded_buffer = std::move(padded);
  op.buffer = static_cast<std::byte*>(op.padded_buffer->data());
  op.buffer_shape = op.padded_shape;
  op.buffer_strides.assign(op.padded_buffer->strides().begin(), op.padded_buffer->strides().end());
  return absl::OkStatus();
}

// Sets every operand's buffer, uninitialized value and scratch layout.
absl::Status AttachBuffers(Plan& plan, absl::Span<const AnyArray* const> inputs,
                           std::vector<AnyArray>& outputs, const std::vector<bool>& aliased) {
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    Operand& op = plan.operands[k];
    VisitDType(op.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T value = UninitializedValue<T>();
      std::memcpy(op.uninitialized_bytes, &value, sizeof(T));
    });
    op.block_elements = *CheckedProduct(op.block_size);
    op.scratch_strides = internal::ContiguousStrides(op.block_size);
    op.scratch_ref_strides = internal::ContiguousStrides(op.ref_shape);
    if (!op.is_output) {
      const AnyArray& a = *inputs[k];
      op.buffer = static_cast<std::byte*>(const_cast<void*>(a.data()));
      op.buffer_shape = op.array_shape;
      op.buffer_strides.assign(a.strides().begin(), a.strides().end());
      op.buffer_origin = op.padding_lo;
    } else {
      const size_t j = static_cast<size_t>(op.index);
      AXE_RETURN_IF_ERROR(AttachOutputBuffer(op, outputs[j], aliased[j]));
    }
    for (int d : op.kept_dims) op.ref_strides.push_back(op.buffer_strides[static_cast<size_t>(d)]);
  }
  return absl::OkStatus();
}

// Removes Element padding and cuts the outputs that ran in padded buffers to their shapes.
void CutOutputs(const Plan& plan, std::vector<AnyArray>& outputs) {
  for (const Operand& op : plan.operands) {
    if (!op.is_output || !op.needs_padded_buffer) continue;
    AnyArray& out = outputs[static_cast<size_t>(op.index)];
    // Nothing to cut from an empty output; its padded buffer may be empty too, with strides
    // that no offset should be formed from.
    if (out.size() == 0) continue;
    const AnyArray& padded = *op.padded_buffer;
    int64_t src_offset = 0;
    for (int d = 0; d < op.rank; ++d) {
      src_offset +=
          op.padding_lo[static_cast<size_t>(d)] * padded.strides()[static_cast<size_t>(d)];
    }
    internal::CopyBlock(static_cast<std::byte*>(out.data()), out.strides().data(),
                        static_cast<const std::byte*>(padded.data()) +
                            src_offset * static_cast<int64_t>(op.element_bytes),
                        padded.strides().data(), op.array_shape.data(), op.rank, op.element_bytes);
  }
}

}  // namespace

absl::Status ValidateCall(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                          absl::Span<const ShapeDType> outputs, const CallSite& site) {
  (void)site;
  AXE_ASSIGN_OR_RETURN(Plan plan, internal::BuildPlan(spec, inputs, outputs));
  return internal::ProbeIndexMaps(spec, plan);
}

absl::StatusOr<std::vector<AnyArray>> ExecuteCall(const CallSpec& spec,
                                                  absl::Span<const AnyArray* const> inputs,
                                                  absl::Span<const ShapeDType> out_shapes,
                                                  RawKernel kernel, const CallSite& site) {
  std::vector<ShapeDType> in_shapes;
  for (const AnyArray* a : inputs) in_shapes.push_back(a->shape_dtype());
  AXE_ASSIGN_OR_RETURN(Plan plan, internal::BuildPlan(spec, in_shapes, out_shapes));
  AXE_RETURN_IF_ERROR(CheckRunnable(plan));
  AXE_RETURN_IF_ERROR(internal::ProbeIndexMaps(spec, plan));

  // Outputs: uninitialized, or a copy of the aliased input.
  std::vector<AnyArray> outputs;
  for (const ShapeDType& sd : out_shapes) {
    AXE_ASSIGN_OR_RETURN(AnyArray a, AnyArray::Uninitialized(sd.dtype, sd.shape));
    outputs.push_back(std::move(a));
  }
  std::vector<bool> aliased(out_shapes.size());
  for (const auto& [i, j] : spec.options.input_output_aliases) {
    outputs[static_cast<size_t>(j)] = *inputs[static_cast<size_t>(i)];
    aliased[static_cast<size_t>(j)] = true;
  }
  AXE_RETURN_IF_ERROR(AttachBuffers(plan, inputs, outputs, aliased));

  internal::Runner runner(spec, site, plan, kernel);
  AXE_RETURN_IF_ERROR(spec.options.mode == Mode::kParallel ? runner.RunParallel()
                                                           : runner.RunInterpret());
  CutOutputs(plan, outputs);
  return outputs;
}

}  // namespace axe::pallas
