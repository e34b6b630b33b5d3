#include "axe/pallas/block_spec.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe::pallas {

absl::string_view MemorySpaceName(MemorySpace m) {
  switch (m) {
    case MemorySpace::kDefault: return "default";
    case MemorySpace::kAny: return "ANY";
    case MemorySpace::kSmem: return "SMEM";
    case MemorySpace::kGmem: return "GMEM";
  }
  return "";
}

absl::StatusOr<MemorySpace> ParseMemorySpace(absl::string_view text) {
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "default" || t == "vmem") return MemorySpace::kDefault;
  if (t == "any" || t == "hbm") return MemorySpace::kAny;
  if (t == "smem") return MemorySpace::kSmem;
  if (t == "gmem") return MemorySpace::kGmem;
  return absl::InvalidArgumentError(absl::StrCat("unknown memory space '",
                                                 ElideForMessage(text, 40),
                                                 "'; expected default, any (hbm), smem or gmem"));
}

std::vector<BlockDim> BlockSpec::Resolve(absl::Span<const int64_t> array_shape) const {
  if (block_shape_.has_value()) return *block_shape_;
  std::vector<BlockDim> dims;
  for (int64_t n : array_shape) dims.push_back(BlockDim::Blocked(n));
  return dims;
}

std::string BlockSpec::ToString() const {
  std::string s = absl::StrCat(
      "BlockSpec(", block_shape_.has_value() ? BlockShapeToString(*block_shape_) : "None", ", ",
      index_map_.Describe());
  if (memory_space_ != MemorySpace::kDefault)
    absl::StrAppend(&s, ", memory_space=", MemorySpaceName(memory_space_));
  return s + ")";
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SlicesForInvocation(
    absl::Span<const int64_t> x_shape, const BlockSpec& spec, const Grid& grid,
    absl::Span<const int64_t> invocation) {
  AXE_RETURN_IF_ERROR(grid.Validate());
  if (static_cast<int>(invocation.size()) != grid.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("invocation ", FormatTuple(invocation, true),
                                                   " has ", invocation.size(),
                                                   " indices for the grid ", grid.ToString()));
  }
  for (int a = 0; a < grid.rank(); ++a) {
    if (invocation[static_cast<size_t>(a)] < 0 ||
        invocation[static_cast<size_t>(a)] >= grid.size(a)) {
      return absl::InvalidArgumentError(absl::StrCat("invocation ", FormatTuple(invocation, true),
                                                     " is outside the grid ", grid.ToString()));
    }
  }
  std::vector<BlockDim> dims = spec.Resolve(x_shape);
  if (dims.size() != x_shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("block shape ", FormatBlockShape(dims),
                                                   " and array shape ", FormatTuple(x_shape, true),
                                                   " differ in rank"));
  }
  BlockIndices v;
  AXE_RETURN_IF_ERROR(spec.index_map().Evaluate(invocation, static_cast<int>(dims.size()), &v));
  if (v.size() != dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the index map returned ", v.size(), " values for a rank-", dims.size(), " block shape"));
  }
  std::vector<std::pair<int64_t, int64_t>> slices;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::optional<int64_t> start = dims[d].kind() == BlockDim::Kind::kBlocked
                                       ? CheckedMul(v[d], dims[d].size())
                                       : std::optional<int64_t>(v[d]);
    std::optional<int64_t> stop = start ? CheckedAdd(*start, dims[d].size()) : std::nullopt;
    if (!stop)
      return absl::InvalidArgumentError(
          absl::StrCat("the window start in dimension ", d, " overflows int64"));
    if (*start >= x_shape[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("the window [", *start, ":", *stop, ") in dimension ", d,
                       " starts at or past the array's end ", x_shape[d],
                       "; at least one element of the block must be within bounds"));
    }
    slices.emplace_back(*start, *stop);
  }
  return slices;
}

std::string FormatSlices(absl::Span<const std::pair<int64_t, int64_t>> slices) {
  return absl::StrCat("[",
                      absl::StrJoin(slices, ", ",
                                    [](std::string* out, const auto& s) {
                                      absl::StrAppend(out, "slice(", s.first, ", ", s.second,
                                                      ", None)");
                                    }),
                      "]");
}

}  // namespace axe::pallas
