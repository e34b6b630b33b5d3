#include "axe/pallas/validate.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe::pallas {
namespace {

constexpr absl::string_view kDocs =
    "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec";

bool IsPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

struct OperandView {
  std::string origin;
  const BlockSpec* spec;
  const ShapeDType* sd;
  std::vector<BlockDim> dims;
};

class Checker {
 public:
  Checker(const CallSpec& spec, const CallSite& site, const ValidateOptions& options)
      : spec_(spec), site_(site), options_(options) {}

  std::string CallName() const {
    std::string call = absl::StrCat("pallas_call ", spec_.options.name);
    if (!site_.file.empty()) absl::StrAppend(&call, " at ", site_.file, ":", site_.line);
    return call;
  }

  // The TPU lowering's err_details(): the block shape as the tuple of block dims' reprs,
  // "(Blocked(block_size=9), Blocked(block_size=64))".
  std::string Details(const OperandView& op) const {
    return absl::StrCat("Block spec for ", op.origin, " in ", CallName(), " has block shape ",
                        FormatBlockShape(op.dims), ", array shape ",
                        FormatTuple(op.sd->shape, true), ", and index_map ",
                        op.spec->index_map().Describe(), ", in memory space ",
                        MemorySpaceName(op.spec->memory_space()), ".\nSee details at ", kDocs);
  }

  // The Mosaic GPU lowering's err_details(), worded differently from the TPU one: no comma
  // before "in memory space", and " See details at <docs>." on the same line.
  std::string GpuDetails(const OperandView& op) const {
    return absl::StrCat("Block spec for ", op.origin, " in ", CallName(), " has block shape ",
                        FormatBlockShape(op.dims), ", array shape ",
                        FormatTuple(op.sd->shape, true), ", and index_map ",
                        op.spec->index_map().Describe(), " in memory space ",
                        MemorySpaceName(op.spec->memory_space()), ". See details at ", kDocs, ".");
  }

  // Whole array and an index map that returns zeros at every grid point.
  absl::StatusOr<bool> TrivialWindow(const OperandView& op) const {
    for (size_t d = 0; d < op.dims.size(); ++d) {
      if (op.dims[d].squeezed() || op.dims[d].size() != op.sd->shape[d]) return false;
    }
    const IndexMap& map = op.spec->index_map();
    if (map.is_zeros()) return true;
    const Grid& grid = spec_.grid;
    std::vector<int64_t> point(static_cast<size_t>(grid.rank()), 0);
    BlockIndices idx;
    for (int64_t p = 0; p < grid.num_programs(); ++p) {
      AXE_RETURN_IF_ERROR(map.Evaluate(point, static_cast<int>(op.dims.size()), &idx));
      for (int64_t v : idx) {
        if (v != 0) return false;
      }
      NextGridPoint(grid, absl::MakeSpan(point));
    }
    return true;
  }

  absl::Status Tpu(const OperandView& op) const {
    const MemorySpace ms = op.spec->memory_space();
    if (ms == MemorySpace::kGmem) {
      return absl::InvalidArgumentError(
          absl::StrCat(op.origin, ": GMEM is a GPU memory space, not a TPU one"));
    }
    if (ms == MemorySpace::kSmem) {
      AXE_ASSIGN_OR_RETURN(bool trivial, TrivialWindow(op));
      if (trivial) return absl::OkStatus();
    }
    const int rank = static_cast<int>(op.dims.size());
    if (rank < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The Pallas TPU lowering currently supports only blocks of rank >= 1. ", Details(op)));
    }
    if (ms == MemorySpace::kAny) {
      AXE_ASSIGN_OR_RETURN(bool trivial, TrivialWindow(op));
      if (!trivial) {
        return absl::InvalidArgumentError(
            absl::StrCat("The Pallas TPU lowering currently supports in memory space ANY only "
                         "blocks having the same block "
                         "shape as the array shape and a trivial index_map (returning all 0s). ",
                         Details(op)));
      }
    }
    const std::vector<int64_t>& as = op.sd->shape;
    const int64_t bs0 = op.dims[static_cast<size_t>(rank - 1)].size(),
                  as0 = as[static_cast<size_t>(rank - 1)];
    if (rank >= 2) {
      const int64_t bs1 = op.dims[static_cast<size_t>(rank - 2)].size(),
                    as1 = as[static_cast<size_t>(rank - 2)];
      if (!((bs0 == as0 || bs0 % 128 == 0) && (bs1 == as1 || bs1 % 8 == 0))) {
        return absl::InvalidArgumentError(
            absl::StrCat("The Pallas TPU lowering currently requires that the last two dimensions "
                         "of your block shape are "
                         "divisible by 8 and 128 respectively, or be equal to the respective "
                         "dimensions of the overall array. ",
                         Details(op)));
      }
    } else {
      const int bitwidth = op.sd->dtype == DType::kPred ? 32 : BitWidth(op.sd->dtype);
      const int64_t packing = 32 / bitwidth;  // 0 for 64-bit types, as in JAX's formula
      const int64_t tiling = 128 * packing;
      if (options_.old_tpu_rank1_rule) {
        if (!(bs0 == as0 || (tiling != 0 && bs0 % tiling == 0))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
              "first (and only) "
              "dimension of the block shape is equal to the first (and only) dimension of the "
              "array shape, or 2) "
              "the first (and only) dimension of the block shape is a multiple of the tiling size "
              "(",
              tiling, " = 128 * (32 // ", bitwidth, ")) of the array shape. ", Details(op)));
        }
      } else if (!(bs0 == as0 || bs0 % 1024 == 0 || (bs0 >= tiling && IsPowerOfTwo(bs0)))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
            "first (and only) "
            "dimension of the block shape is equal to the first (and only) dimension of the array "
            "shape, or 2) the "
            "first (and only) dimension of the block shape is a multiple of 1024, or 3) the first "
            "(and only) "
            "dimension of the block shape is a power of 2 and at least the tiling size (",
            tiling, " = 128 * (32 // ", bitwidth, ")) of the array shape. ", Details(op)));
      }
    }
    bool any_element = false, all_element = true;
    for (const BlockDim& d : op.dims) {
      if (d.kind() == BlockDim::Kind::kBoundedSlice || d.kind() == BlockDim::Kind::kIndirect) {
        // JAX prints type(bd): the Python class.
        return absl::UnimplementedError(
            absl::StrCat("Unsupported block dimension type: <class 'jax._src.pallas.core.",
                         d.kind() == BlockDim::Kind::kIndirect ? "Indirect" : "BoundedSlice",
                         "'> for block shape: ", FormatBlockShape(op.dims)));
      }
      if (d.kind() == BlockDim::Kind::kElement) any_element = true;
      if (d.kind() != BlockDim::Kind::kElement && !d.squeezed()) all_element = false;
    }
    if (any_element && !all_element) {
      return absl::UnimplementedError(
          "All block dimensions must be Elements or none of them can be Elements.");
    }
    return absl::OkStatus();
  }

  absl::Status MosaicGpu(const OperandView& op) const {
    const MemorySpace ms = op.spec->memory_space();
    if (ms == MemorySpace::kAny || ms == MemorySpace::kSmem) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.origin, ": ", MemorySpaceName(ms), " is a TPU memory space, not a Mosaic GPU one"));
    }
    if (ms == MemorySpace::kGmem) {
      AXE_ASSIGN_OR_RETURN(bool trivial, TrivialWindow(op));
      if (!trivial) {
        return absl::UnimplementedError(
            absl::StrCat("Mosaic GPU lowering currently requires blocks in GMEM memory space to "
                         "have same block shape as the "
                         "array shape and a trivial index_map (returning all 0s).\n\n",
                         GpuDetails(op)));
      }
    }
    for (const BlockDim& d : op.dims) {
      if (d.kind() == BlockDim::Kind::kElement) {
        return absl::UnimplementedError(absl::StrCat(
            "Only Blocked indexing mode is supported in Mosaic GPU lowering.\n\n", GpuDetails(op)));
      }
    }
    if (ms == MemorySpace::kGmem || op.dims.empty()) return absl::OkStatus();
    if (IsSubByteNonPred(op.sd->dtype)) {
      return absl::UnimplementedError(absl::StrCat(
          op.origin, ": axe checks Mosaic GPU blocks of whole-byte element types only; ",
          NumpyName(op.sd->dtype), " is ", BitWidth(op.sd->dtype), " bits wide"));
    }
    const int64_t bytes = ByteWidth(op.sd->dtype);
    auto too_large = [&] {
      return absl::InvalidArgumentError(absl::StrCat(op.origin, ": the array ", op.sd->ToString(),
                                                     " spans more bytes than fit in int64"));
    };
    const std::optional<int64_t> minor = CheckedMul(op.dims.back().size(), bytes);
    if (!minor.has_value()) return too_large();
    if (*minor % 16 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Mosaic GPU requires the minor-most block dimension to span a multiple of 16 bytes; ",
          op.dims.back().size(), " elements of ", NumpyName(op.sd->dtype), " span ", *minor,
          " bytes.\n\n", GpuDetails(op)));
    }
    // TMA copies: every GMEM stride but the last a multiple of 16 bytes.
    const std::vector<int64_t>& shape = op.sd->shape;
    int64_t stride = bytes;
    std::vector<int64_t> strides(shape.size());
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      strides[static_cast<size_t>(d)] = stride;
      if (d == 0) break;
      const std::optional<int64_t> next = CheckedMul(stride, shape[static_cast<size_t>(d)]);
      if (!next.has_value()) return too_large();
      stride = *next;
    }
    for (size_t d = 0; d + 1 < strides.size(); ++d) {
      if (strides[d] % 16 != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("async_copy requires all GMEM strides except the last one to be a "
                         "multiple of 16 bytes; the array ",
                         op.sd->ToString(), " has byte strides ", FormatTuple(strides, true),
                         ".\n\n", GpuDetails(op)));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Triton(const OperandView& op) const {
    const MemorySpace ms = op.spec->memory_space();
    if (ms != MemorySpace::kDefault) {
      return absl::InvalidArgumentError(absl::StrCat(op.origin, ": memory space ",
                                                     MemorySpaceName(ms),
                                                     " is not supported by the Triton lowering"));
    }
    for (const BlockDim& d : op.dims) {
      if (d.kind() == BlockDim::Kind::kElement && (d.padding_lo() != 0 || d.padding_hi() != 0)) {
        return absl::UnimplementedError(
            "Unblocked indexing with padding is not supported in Triton lowering.");
      }
    }
    for (const BlockDim& d : op.dims) {
      if (d.kind() == BlockDim::Kind::kBoundedSlice || d.kind() == BlockDim::Kind::kIndirect) {
        return absl::InvalidArgumentError(
            absl::StrCat("Unsupported block dim type: ",
                         d.kind() == BlockDim::Kind::kIndirect ? "Indirect" : "BoundedSlice"));
      }
    }
    std::vector<int64_t> shape;
    int64_t elems = 1;
    for (const BlockDim& d : op.dims) {
      elems *= d.size();
      if (!d.squeezed()) shape.push_back(d.size());
    }
    if (!IsPowerOfTwo(elems)) {
      return absl::InvalidArgumentError(
          absl::StrCat("The Pallas Triton lowering currently requires that all operations have "
                       "array arguments and results "
                       "whose size is a power of 2. Encountered an array of shape ",
                       FormatTuple(shape, true)));
    }
    return absl::OkStatus();
  }

 private:
  const CallSpec& spec_;
  const CallSite& site_;
  const ValidateOptions& options_;
};

}  // namespace

absl::string_view BackendName(Backend b) {
  switch (b) {
    case Backend::kTpu: return "tpu";
    case Backend::kMosaicGpu: return "mosaic-gpu";
    case Backend::kTriton: return "triton";
  }
  return "";
}

absl::StatusOr<Backend> ParseBackend(absl::string_view text) {
  constexpr absl::string_view kAccepted =
      "expected tpu, mosaic-gpu or triton (also JAX's names mosaic_tpu, mosaic_gpu)";
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "tpu" || t == "mosaic_tpu" || t == "mosaic-tpu") return Backend::kTpu;
  if (t == "mosaic-gpu" || t == "mosaic_gpu") return Backend::kMosaicGpu;
  if (t == "triton") return Backend::kTriton;
  if (t == "mosaic" || t == "gpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("backend '", text, "' is ambiguous (",
                     t == "gpu" ? "Pallas has two GPU backends, Mosaic GPU and Triton"
                                : "Mosaic is the TPU backend and the Mosaic GPU backend",
                     "); ", kAccepted));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown backend '", ElideForMessage(text, 40), "'; ", kAccepted));
}

absl::Status Validate(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                      absl::Span<const ShapeDType> outputs, Backend backend,
                      const ValidateOptions& options, const CallSite& site) {
  AXE_RETURN_IF_ERROR(ValidateCall(spec, inputs, outputs, site));
  static const BlockSpec kDefaultSpec;
  std::vector<OperandView> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const BlockSpec& bs = spec.in_specs.empty() ? kDefaultSpec : spec.in_specs[i];
    ops.push_back({absl::StrCat("args[", i, "]"), &bs, &inputs[i], bs.Resolve(inputs[i].shape)});
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const BlockSpec& bs = spec.out_specs.empty() ? kDefaultSpec : spec.out_specs[j];
    ops.push_back(
        {absl::StrCat("outputs[", j, "]"), &bs, &outputs[j], bs.Resolve(outputs[j].shape)});
  }
  Checker checker(spec, site, options);
  for (const OperandView& op : ops) {
    switch (backend) {
      case Backend::kTpu: AXE_RETURN_IF_ERROR(checker.Tpu(op)); break;
      case Backend::kMosaicGpu: AXE_RETURN_IF_ERROR(checker.MosaicGpu(op)); break;
      case Backend::kTriton: AXE_RETURN_IF_ERROR(checker.Triton(op)); break;
    }
  }
  return absl::OkStatus();
}

}  // namespace axe::pallas
