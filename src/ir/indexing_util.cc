// The params, shape checks and element maps of gather and the scatter family
// (indexing_util.h). The checks follow JAX's _gather_shape_rule and _scatter_shape_rule, in
// their order and with their words.
#include "indexing_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("parameter ", what, " must be as JAX prints it"));
}

// The keyword `key` of a call, read as a tuple of ints.
absl::StatusOr<Dims> KeywordInts(const Param& call, absl::string_view key) {
  for (const Param& arg : call.items()) {
    if (arg.kind() == Param::Kind::kKeyword && arg.text() == key) {
      return arg.items()[0].AsInts(key);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("parameter dimension_numbers needs ", key, "=(...), got ", call.ToString()));
}

absl::StatusOr<IndexDims> ReadDims(const Params& params, absl::string_view prim,
                                   absl::string_view call_name,
                                   const std::vector<std::string>& keys) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, "dimension_numbers"));
  if (p->kind() != Param::Kind::kCall || p->text() != call_name) {
    return absl::InvalidArgumentError(absl::StrCat("parameter dimension_numbers must be ",
                                                   call_name, "(...), got ", p->ToString()));
  }
  IndexDims d;
  AXE_ASSIGN_OR_RETURN(d.window_dims, KeywordInts(*p, keys[0]));
  AXE_ASSIGN_OR_RETURN(d.collapsed_dims, KeywordInts(*p, keys[1]));
  AXE_ASSIGN_OR_RETURN(d.start_index_map, KeywordInts(*p, keys[2]));
  AXE_ASSIGN_OR_RETURN(d.operand_batching_dims, KeywordInts(*p, keys[3]));
  AXE_ASSIGN_OR_RETURN(d.indices_batching_dims, KeywordInts(*p, keys[4]));
  return d;
}

const std::vector<std::string>& GatherKeys() {
  static const auto* k =
      new std::vector<std::string>{"offset_dims", "collapsed_slice_dims", "start_index_map",
                                   "operand_batching_dims", "start_indices_batching_dims"};
  return *k;
}
const std::vector<std::string>& ScatterKeys() {
  static const auto* k = new std::vector<std::string>{
      "update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
      "operand_batching_dims", "scatter_indices_batching_dims"};
  return *k;
}

// mode: GatherScatterMode.X (a symbol), absent: `fallback`.
absl::StatusOr<IndexMode> ReadMode(const Params& params, IndexMode fallback) {
  auto it = params.find("mode");
  if (it == params.end() || it->second.is_none()) return fallback;
  const Param& m = it->second;
  if (m.kind() == Param::Kind::kSymbol) {
    if (m.text() == "GatherScatterMode.CLIP") return IndexMode::kClip;
    if (m.text() == "GatherScatterMode.FILL_OR_DROP") return IndexMode::kFillOrDrop;
    if (m.text() == "GatherScatterMode.PROMISE_IN_BOUNDS") return IndexMode::kPromiseInBounds;
  }
  return Malformed(absl::StrCat("mode=", m.ToString(),
                                " (GatherScatterMode.CLIP, FILL_OR_DROP or PROMISE_IN_BOUNDS)"));
}

Param DimsParam(const IndexDims& d, absl::string_view call_name,
                const std::vector<std::string>& keys) {
  return Param::Call(std::string(call_name),
                     {Param::Keyword(keys[0], Param::Ints(d.window_dims)),
                      Param::Keyword(keys[1], Param::Ints(d.collapsed_dims)),
                      Param::Keyword(keys[2], Param::Ints(d.start_index_map)),
                      Param::Keyword(keys[3], Param::Ints(d.operand_batching_dims)),
                      Param::Keyword(keys[4], Param::Ints(d.indices_batching_dims))});
}

// ---- JAX's dimension checks (slicing.py) ----

absl::Status IsSorted(const Dims& dims, absl::string_view op, absl::string_view name) {
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] < dims[i - 1]) {
      return TypeError(absl::StrCat(name, " in ", op, " op must be sorted; got ", PyTuple(dims)));
    }
  }
  return absl::OkStatus();
}

absl::Status NoDuplicates(const Dims& dims, absl::string_view op, absl::string_view name) {
  if (std::set<int64_t>(dims.begin(), dims.end()).size() != dims.size()) {
    return TypeError(
        absl::StrCat(name, " in ", op, " op must not repeat; got: ", PyTuple(dims), "."));
  }
  return absl::OkStatus();
}

absl::Status InRange(const Dims& dims, size_t rank, absl::string_view op, absl::string_view name) {
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(rank)) {
      return TypeError(absl::StrCat("Invalid ", name, " set in ", op, " op; valid range is [0, ",
                                    rank, "); got: ", d, "."));
    }
  }
  return absl::OkStatus();
}

// JAX checks only the ends of a sorted list (and skips a 0 there); with the sort and
// duplicate checks around it, checking every entry gives the same verdict on sorted input.
absl::Status SortedInRange(const Dims& dims, size_t rank, absl::string_view op,
                           absl::string_view name) {
  return InRange(dims, rank, op, name);
}

absl::Status Disjoint(const Dims& a, const Dims& b, absl::string_view op, absl::string_view na,
                      absl::string_view nb) {
  for (int64_t x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) {
      return TypeError(absl::StrCat(na, " and ", nb, " in ", op, " op must be disjoint; got: ",
                                    PyTuple(a), " and ", PyTuple(b), "."));
    }
  }
  return absl::OkStatus();
}

bool IsAmong(const Dims& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The batching checks both ops share; `op` is "gather" or "scatter", `Op` capitalized.
absl::Status CheckBatching(const IndexDims& d, const ShapedArray& operand,
                           const ShapedArray& indices, absl::string_view op, absl::string_view Op,
                           absl::string_view indices_name) {
  AXE_RETURN_IF_ERROR(NoDuplicates(d.indices_batching_dims, op, indices_name));
  AXE_RETURN_IF_ERROR(InRange(d.indices_batching_dims, indices.rank(), op, indices_name));
  const int64_t index_vector_dim = static_cast<int64_t>(indices.rank()) - 1;
  if (IsAmong(d.indices_batching_dims, index_vector_dim)) {
    return TypeError(absl::StrCat(Op, " op cannot have the index vector dimension as a batching ",
                                  "dimension; got ", PyTuple(d.indices_batching_dims), "."));
  }
  if (d.operand_batching_dims.size() != d.indices_batching_dims.size()) {
    return TypeError(absl::StrCat(Op, " op requires equal numbers of operand_batching_dims and ",
                                  indices_name, ", got ", PyTuple(d.operand_batching_dims),
                                  op == "gather" ? " and" : " and ",
                                  PyTuple(d.indices_batching_dims), "."));
  }
  Dims operand_batch, indices_batch;
  for (int64_t i : d.operand_batching_dims) operand_batch.push_back(operand.shape()[i]);
  for (int64_t i : d.indices_batching_dims) indices_batch.push_back(indices.shape()[i]);
  if (operand_batch != indices_batch) {
    return TypeError(absl::StrCat(Op, " op requires operand batching dimensions and indices ",
                                  "batching dimensions to have the same shape, got ",
                                  PyTuple(operand_batch), " and ", PyTuple(indices_batch), "."));
  }
  return absl::OkStatus();
}

absl::Status CheckIndexVector(const ShapedArray& indices, absl::string_view Op,
                              absl::string_view lower) {
  if (indices.rank() == 0) {
    return TypeError(absl::StrCat(Op, " index leaf dimension must be within [0, rank(indices) + ",
                                  "1). rank(indices) is 0 and ", lower,
                                  " index leaf dimension is -1."));
  }
  return absl::OkStatus();
}

absl::Status CheckGatherDims(const ShapedArray& operand, const ShapedArray& indices,
                             const IndexDims& d) {
  AXE_RETURN_IF_ERROR(CheckIndexVector(indices, "Gather", "gather"));
  AXE_RETURN_IF_ERROR(IsSorted(d.window_dims, "gather", "offset_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.window_dims, "gather", "offset_dims"));
  const size_t out_rank = d.window_dims.size() + indices.rank() - 1;
  for (size_t i = 0; i < d.window_dims.size(); ++i) {
    if (d.window_dims[i] < 0 || d.window_dims[i] >= static_cast<int64_t>(out_rank)) {
      return TypeError(absl::StrCat("Offset dimension ", i, " in gather op is out of bounds; got ",
                                    d.window_dims[i], ", but should have been in [0, ", out_rank,
                                    ")"));
    }
  }
  const int64_t ivd = static_cast<int64_t>(indices.rank()) - 1;
  const int64_t bound = indices.shape().back();
  if (static_cast<int64_t>(d.start_index_map.size()) != bound) {
    return TypeError(absl::StrCat("Gather op has ", d.start_index_map.size(),
                                  " elements in start_index_map and the bound of dimension ",
                                  "index_vector_dim=", ivd, " of indices is ", bound,
                                  ". These two numbers must be equal."));
  }
  for (size_t i = 0; i < d.start_index_map.size(); ++i) {
    int64_t m = d.start_index_map[i];
    if (m < 0 || m >= static_cast<int64_t>(operand.rank())) {
      return TypeError(absl::StrCat("Invalid start_index_map; domain is [0, ", operand.rank(),
                                    "), got: ", i, "->", m, "."));
    }
  }
  AXE_RETURN_IF_ERROR(NoDuplicates(d.start_index_map, "gather", "start_index_map"));
  AXE_RETURN_IF_ERROR(IsSorted(d.collapsed_dims, "gather", "collapsed_slice_dims"));
  AXE_RETURN_IF_ERROR(
      SortedInRange(d.collapsed_dims, operand.rank(), "gather", "collapsed_slice_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.collapsed_dims, "gather", "collapsed_slice_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.operand_batching_dims, "gather", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(IsSorted(d.operand_batching_dims, "gather", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(
      SortedInRange(d.operand_batching_dims, operand.rank(), "gather", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(Disjoint(d.collapsed_dims, d.operand_batching_dims, "gather",
                               "collapsed_slice_dims", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(Disjoint(d.start_index_map, d.operand_batching_dims, "gather",
                               "start_index_map", "operand_batching_dims"));
  return CheckBatching(d, operand, indices, "gather", "Gather", "start_indices_batching_dims");
}

absl::Status CheckSliceSizes(const ShapedArray& operand, const ShapedArray& indices,
                             const GatherParams& g) {
  const IndexDims& d = g.dims;
  const Dims& sizes = g.slice_sizes;
  if (operand.rank() != sizes.size()) {
    return TypeError(absl::StrCat("Gather op must have one slice size for every input dimension; ",
                                  "got: len(slice_sizes)=", sizes.size(),
                                  ", input_shape.rank=", operand.rank()));
  }
  if (sizes.size() !=
      d.window_dims.size() + d.collapsed_dims.size() + d.operand_batching_dims.size()) {
    return TypeError(absl::StrCat(
        "All components of the offset index in a gather op must either be a offset dimension ",
        "or explicitly collapsed/batching; got len(slice_sizes)=", sizes.size(),
        ", output_slice_sizes=", PyTuple(d.window_dims),
        ", collapsed_slice_dims=", PyTuple(d.collapsed_dims),
        ", operand_batching_dims=", PyTuple(d.operand_batching_dims), "."));
  }
  // JAX skips this check for empty indices; axe keeps it whenever a window would be read
  // (indices of shape (5, 0) still read five windows) and for negative sizes.
  bool empty_indices = false;
  for (size_t d = 0; d + 1 < indices.rank(); ++d) empty_indices |= indices.shape()[d] == 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if ((!empty_indices || sizes[i] < 0) && !(sizes[i] >= 0 && operand.shape()[i] >= sizes[i])) {
      return TypeError(absl::StrCat("Slice size at index ", i,
                                    " in gather op is out of range, must be within [0, ",
                                    operand.shape()[i], " + 1), got ", sizes[i], "."));
    }
  }
  for (size_t i = 0; i < d.collapsed_dims.size(); ++i) {
    int64_t b = sizes[d.collapsed_dims[i]];
    if (b != 1) {
      return TypeError(
          absl::StrCat("Gather op can only collapse slice dims with bound 1, but bound is ", b,
                       " for index ", d.collapsed_dims[i], " at position ", i, "."));
    }
  }
  for (size_t i = 0; i < d.operand_batching_dims.size(); ++i) {
    int64_t b = sizes[d.operand_batching_dims[i]];
    if (b > 1) {
      return TypeError(absl::StrCat(
          "Gather op can only have operand batching dims with bound 0/1, but bound is ", b,
          " for index ", d.operand_batching_dims[i], " at position ", i, "."));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckScatterDims(const ShapedArray& operand, const ShapedArray& indices,
                              const ShapedArray& updates, const IndexDims& d) {
  AXE_RETURN_IF_ERROR(CheckIndexVector(indices, "Scatter", "scatter"));
  const size_t expected = indices.rank() - 1 + d.window_dims.size();
  if (updates.rank() != expected) {
    return TypeError(
        absl::StrCat("Updates tensor must be of rank ", expected, "; got ", updates.rank(), "."));
  }
  AXE_RETURN_IF_ERROR(IsSorted(d.window_dims, "scatter", "update_window_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.window_dims, "scatter", "update_window_dims"));
  AXE_RETURN_IF_ERROR(
      SortedInRange(d.window_dims, updates.rank(), "scatter", "update_window_dims"));
  AXE_RETURN_IF_ERROR(IsSorted(d.collapsed_dims, "scatter", "inserted_window_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.collapsed_dims, "scatter", "inserted_window_dims"));
  AXE_RETURN_IF_ERROR(
      SortedInRange(d.collapsed_dims, operand.rank(), "scatter", "inserted_window_dims"));
  AXE_RETURN_IF_ERROR(IsSorted(d.operand_batching_dims, "scatter", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(NoDuplicates(d.operand_batching_dims, "scatter", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(
      SortedInRange(d.operand_batching_dims, operand.rank(), "scatter", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(Disjoint(d.collapsed_dims, d.operand_batching_dims, "scatter",
                               "inserted_window_dims", "operand_batching_dims"));
  AXE_RETURN_IF_ERROR(Disjoint(d.start_index_map, d.operand_batching_dims, "scatter",
                               "scatter_dims_to_operand_dims", "operand_batching_dims"));
  return CheckBatching(d, operand, indices, "scatter", "Scatter", "scatter_indices_batching_dims");
}

// The updates' dimensions that index (those not in update_window_dims), in order; they match
// the indices' dimensions before the index vector.
Dims UpdateScatterDims(const IndexDims& d, size_t updates_rank) {
  Dims out;
  for (size_t i = 0; i < updates_rank; ++i) {
    if (!IsAmong(d.window_dims, static_cast<int64_t>(i))) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

absl::Status CheckScatterBounds(const ShapedArray& operand, const ShapedArray& indices,
                                const ShapedArray& updates, const IndexDims& d) {
  const Dims scatter_dims = UpdateScatterDims(d, updates.rank());
  Dims operand_batch, updates_batch;
  for (size_t i = 0; i < d.operand_batching_dims.size(); ++i) {
    operand_batch.push_back(operand.shape()[d.operand_batching_dims[i]]);
    updates_batch.push_back(updates.shape()[scatter_dims[d.indices_batching_dims[i]]]);
  }
  if (operand_batch != updates_batch) {
    return TypeError(absl::StrCat("Scatter op requires operand batching dimensions and updates ",
                                  "batching dimensions to have the same shape, got ",
                                  PyTuple(operand_batch), " and ", PyTuple(updates_batch), "."));
  }
  const size_t window =
      d.window_dims.size() + d.collapsed_dims.size() + d.operand_batching_dims.size();
  if (operand.rank() != window) {
    return TypeError(absl::StrCat("Scatter op has window of size ", window,
                                  "; doesn't match operand of rank ", operand.rank(), "."));
  }
  const int64_t ivd = static_cast<int64_t>(indices.rank()) - 1;
  if (static_cast<int64_t>(d.start_index_map.size()) != indices.shape().back()) {
    return TypeError(absl::StrCat(
        "Scatter op has ", d.start_index_map.size(),
        " elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=",
        ivd, " of indices is ", indices.shape().back(), ". These two numbers must be equal"));
  }
  for (size_t i = 0; i < d.start_index_map.size(); ++i) {
    int64_t m = d.start_index_map[i];
    if (m < 0 || m >= static_cast<int64_t>(operand.rank())) {
      return TypeError(absl::StrCat("Invalid scatter_dims_to_operand_dims mapping; domain is [0, ",
                                    operand.rank(), "), got: ", i, "->", m, "."));
    }
  }
  AXE_RETURN_IF_ERROR(NoDuplicates(d.start_index_map, "scatter", "scatter_dims_to_operand_dims"));
  Dims max_sizes;
  for (size_t i = 0; i < operand.rank(); ++i) {
    int64_t di = static_cast<int64_t>(i);
    if (!IsAmong(d.collapsed_dims, di) && !IsAmong(d.operand_batching_dims, di)) {
      max_sizes.push_back(operand.shape()[i]);
    }
  }
  for (size_t i = 0; i < d.window_dims.size(); ++i) {
    int64_t u = d.window_dims[i];
    if (max_sizes[i] < updates.shape()[u]) {
      return TypeError(absl::StrCat(
          "Bounds of the window dimensions of updates must not exceed the bounds of the ",
          "corresponding dimensions of operand. For dimension ", u, ", updates bound is ",
          updates.shape()[u], ", operand bound is ", max_sizes[i], "."));
    }
  }
  for (size_t k = 0; k < scatter_dims.size(); ++k) {
    int64_t i = scatter_dims[k];
    if (updates.shape()[i] != indices.shape()[k]) {
      return TypeError(absl::StrCat(
          "Bounds of the scatter dimensions of updates must be the same as the bounds of the ",
          "corresponding dimensions of scatter indices. For scatter dimension ", i,
          ", updates bound is ", updates.shape()[i], ", indices bound is ", indices.shape()[k],
          "."));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GatherParams> ReadGatherParams(const Params& params) {
  GatherParams g;
  AXE_ASSIGN_OR_RETURN(g.dims, ReadDims(params, "gather", "GatherDimensionNumbers", GatherKeys()));
  AXE_ASSIGN_OR_RETURN(g.slice_sizes, RequiredInts(params, "gather", "slice_sizes"));
  AXE_ASSIGN_OR_RETURN(g.mode, ReadMode(params, IndexMode::kPromiseInBounds));
  auto it = params.find("fill_value");
  if (it != params.end() && !it->second.is_none()) {
    const Param& f = it->second;
    if (f.kind() == Param::Kind::kInt || f.kind() == Param::Kind::kBool) {
      g.fill_value = static_cast<double>(f.int_value());
    } else if (f.kind() == Param::Kind::kFloat) {
      g.fill_value = f.float_value();
    } else if (f.kind() == Param::Kind::kSymbol && (f.text() == "nan" || f.text() == "inf")) {
      g.fill_value = f.text() == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                       : std::numeric_limits<double>::infinity();
    } else {
      return Malformed(absl::StrCat("fill_value=", f.ToString(), " (a number or None)"));
    }
  }
  return g;
}

absl::StatusOr<ScatterParams> ReadScatterParams(const Params& params) {
  ScatterParams s;
  AXE_ASSIGN_OR_RETURN(s.dims,
                       ReadDims(params, "scatter", "ScatterDimensionNumbers", ScatterKeys()));
  AXE_ASSIGN_OR_RETURN(s.mode, ReadMode(params, IndexMode::kFillOrDrop));
  return s;
}

Param GatherDimensionNumbersParam(const IndexDims& dims) {
  return DimsParam(dims, "GatherDimensionNumbers", GatherKeys());
}
Param ScatterDimensionNumbersParam(const IndexDims& dims) {
  return DimsParam(dims, "ScatterDimensionNumbers", ScatterKeys());
}
Param ModeParam(IndexMode mode) {
  switch (mode) {
    case IndexMode::kClip: return Param::Symbol("GatherScatterMode.CLIP");
    case IndexMode::kFillOrDrop: return Param::Symbol("GatherScatterMode.FILL_OR_DROP");
    case IndexMode::kPromiseInBounds: break;
  }
  return Param::Symbol("GatherScatterMode.PROMISE_IN_BOUNDS");
}

absl::StatusOr<Dims> GatherShape(const ShapedArray& operand, const ShapedArray& indices,
                                 const GatherParams& g) {
  AXE_RETURN_IF_ERROR(CheckGatherDims(operand, indices, g.dims));
  AXE_RETURN_IF_ERROR(CheckSliceSizes(operand, indices, g));
  const IndexDims& d = g.dims;
  Dims window_sizes;
  for (size_t i = 0; i < g.slice_sizes.size(); ++i) {
    int64_t di = static_cast<int64_t>(i);
    if (!IsAmong(d.collapsed_dims, di) && !IsAmong(d.operand_batching_dims, di)) {
      window_sizes.push_back(g.slice_sizes[i]);
    }
  }
  const size_t out_rank = d.window_dims.size() + indices.rank() - 1;
  Dims shape;
  size_t next_window = 0, next_batch = 0;
  for (size_t i = 0; i < out_rank; ++i) {
    if (IsAmong(d.window_dims, static_cast<int64_t>(i))) {
      shape.push_back(window_sizes[next_window++]);
    } else {
      shape.push_back(indices.shape()[next_batch++]);
    }
  }
  return shape;
}

absl::Status CheckScatterShapes(absl::string_view, const ShapedArray& operand,
                                const ShapedArray& indices, const ShapedArray& updates,
                                const ScatterParams& s) {
  AXE_RETURN_IF_ERROR(CheckScatterDims(operand, indices, updates, s.dims));
  return CheckScatterBounds(operand, indices, updates, s.dims);
}

double GatherFillValue(const GatherParams& g, DType dtype) {
  if (g.fill_value) return *g.fill_value;
  if (dtype == DType::kPred) return 1;
  if (IsSignedIntegral(dtype)) return -std::ldexp(1.0, BitWidth(dtype) - 1);
  // The unsigned maximum; for u64 the largest double below 2^64 (2^64 - 1 is no double).
  if (IsIntegral(dtype)) {
    const double top = std::ldexp(1.0, BitWidth(dtype));
    return BitWidth(dtype) == 64 ? std::nextafter(top, 0.0) : top - 1;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

IndexMap BuildIndexMap(absl::Span<const int64_t> operand_shape,
                       absl::Span<const int64_t> indices_shape,
                       absl::Span<const int64_t> other_shape, const IndexDims& d,
                       absl::Span<const int64_t> indices, bool clamp) {
  const size_t rank = operand_shape.size();
  const Dims operand_strides = Strides(operand_shape);
  const Dims other_strides = Strides(other_shape);
  // The operand's window dimensions and their sizes (the other array's window dimensions).
  Dims operand_window, window_shape;
  for (size_t i = 0; i < rank; ++i) {
    int64_t di = static_cast<int64_t>(i);
    if (!IsAmong(d.collapsed_dims, di) && !IsAmong(d.operand_batching_dims, di)) {
      operand_window.push_back(di);
    }
  }
  for (int64_t w : d.window_dims) window_shape.push_back(other_shape[w]);
  Dims window_size(rank, 1);
  for (size_t i = 0; i < operand_window.size(); ++i)
    window_size[operand_window[i]] = window_shape[i];
  Dims other_batch;  // the other array's batch dimensions, in order
  for (size_t i = 0; i < other_shape.size(); ++i) {
    if (!IsAmong(d.window_dims, static_cast<int64_t>(i)))
      other_batch.push_back(static_cast<int64_t>(i));
  }
  IndexMap m;
  int64_t other_elements = 1;
  for (int64_t n : other_shape) other_elements *= n;
  if (other_elements == 0) return m;  // nothing is read or written (the batch may be huge)
  const Dims batch_shape(indices_shape.begin(), indices_shape.end() - 1);
  const size_t vector = static_cast<size_t>(indices_shape.back());
  int64_t batches = 1;
  for (int64_t n : batch_shape) batches *= n;
  m.base.reserve(static_cast<size_t>(batches));
  Dims g(batch_shape.size(), 0);
  for (int64_t b = 0; b < batches; ++b, NextIndex(g, batch_shape)) {
    int64_t base = 0, other = 0;
    bool inside = true;
    for (size_t k = 0; k < vector; ++k) {
      const int64_t dim = d.start_index_map[k];
      const int64_t hi = operand_shape[dim] - window_size[dim];
      int64_t s = indices[static_cast<size_t>(b) * vector + k];
      if (clamp) s = std::clamp<int64_t>(s, 0, std::max<int64_t>(hi, 0));
      inside = inside && s >= 0 && s <= hi;
      if (inside) base += s * operand_strides[dim];
    }
    for (size_t i = 0; i < d.operand_batching_dims.size(); ++i) {
      base += g[d.indices_batching_dims[i]] * operand_strides[d.operand_batching_dims[i]];
    }
    for (size_t j = 0; j < g.size(); ++j) other += g[j] * other_strides[other_batch[j]];
    m.base.push_back(inside ? base : -1);
    m.batch_other.push_back(other);
  }
  Dims w(window_shape.size(), 0);
  int64_t windows = 1;
  for (int64_t n : window_shape) windows *= n;
  for (int64_t k = 0; k < windows; ++k, NextIndex(w, window_shape)) {
    int64_t op = 0, other = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      op += w[i] * operand_strides[operand_window[i]];
      other += w[i] * other_strides[d.window_dims[i]];
    }
    m.window_operand.push_back(op);
    m.window_other.push_back(other);
  }
  return m;
}

std::optional<ScatterCombine> ScatterCombineOf(absl::string_view prim) {
  if (prim == "scatter") return ScatterCombine::kReplace;
  if (prim == "scatter-add") return ScatterCombine::kAdd;
  if (prim == "scatter-mul") return ScatterCombine::kMul;
  if (prim == "scatter-min") return ScatterCombine::kMin;
  if (prim == "scatter-max") return ScatterCombine::kMax;
  return std::nullopt;
}

}  // namespace axe::ir::internal
