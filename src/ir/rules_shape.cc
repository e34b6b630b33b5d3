// Abstract evaluation of the structural primitives (shapes, reductions, contractions,
// slicing, selection).
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/layout_constraint.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

int64_t Rank(const ShapedArray& a) { return static_cast<int64_t>(a.rank()); }

Result ConvertElementType(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("convert_element_type", avals, 1));
  AXE_ASSIGN_OR_RETURN(const Param* t, GetParam(params, "convert_element_type", "new_dtype"));
  AXE_ASSIGN_OR_RETURN(DType dtype, t->AsDType("new_dtype"));
  if (IsKeyType(avals[0].dtype()) != IsKeyType(dtype)) {
    return TypeError(absl::StrCat("Cannot convert_element_type from ", DTypeName(avals[0].dtype()),
                                  " to ", DTypeName(dtype)));
  }
  bool weak = false;
  if (auto it = params.find("weak_type"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(weak, it->second.AsBool("weak_type"));
  }
  return One(avals[0].WithDType(dtype).WithWeakType(weak));
}

Result BroadcastInDim(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("broadcast_in_dim", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                       RequiredInts(params, "broadcast_in_dim", "shape"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "broadcast_dimensions", {}));
  const ShapedArray& x = avals[0];
  if (dims.size() != x.rank()) {
    return TypeError(absl::StrCat(
        "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
        "broadcast_dimensions ",
        PyTuple(dims), " for operand ndim ", x.rank(), "."));
  }
  for (int64_t d : shape) {
    if (d < 0)
      return TypeError(
          absl::StrCat("broadcast_in_dim shape ", PyTuple(shape), " has a negative dimension"));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(shape.size())) {
      return TypeError(absl::StrCat("broadcast_in_dim broadcast_dimensions must be in range [0, ",
                                    shape.size(), "); got broadcast_dimensions ", PyTuple(dims),
                                    "."));
    }
    if (i > 0 && dims[i] <= dims[i - 1]) {
      return TypeError(
          absl::StrCat("broadcast_in_dim broadcast_dimensions must be strictly increasing; got "
                       "broadcast_dimensions ",
                       PyTuple(dims)));
    }
    if (x.shape()[i] != 1 && x.shape()[i] != shape[dims[i]]) {
      return TypeError(absl::StrCat(
          "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
          "corresponding dimensions in the target broadcast shape; got operand of shape ",
          PyTuple(x.shape()), ", target broadcast shape ", PyTuple(shape),
          ", broadcast_dimensions ", PyTuple(dims), " "));
    }
  }
  return One(x.WithShape(std::move(shape)));
}

Result Reshape(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("reshape", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, RequiredInts(params, "reshape", "new_sizes"));
  for (int64_t d : sizes) {
    if (d < 0) {
      return TypeError(
          absl::StrCat("reshape new_sizes must all be positive, got ", PyTuple(sizes), "."));
    }
  }
  // dimensions: the operand is read in this order of its dimensions (a transpose first). JAX
  // compares sets, so it would pass (0, 1, 1) for a rank-2 operand; axe asks for a permutation.
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "dimensions", {}));
  if (Given(params, "dimensions")) {
    std::vector<int64_t> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == avals[0].rank();
    for (size_t i = 0; permutation && i < sorted.size(); ++i) {
      permutation = sorted[i] == static_cast<int64_t>(i);
    }
    if (!permutation) {
      return TypeError(absl::StrCat(
          "reshape dimensions must be a permutation of operand dimensions, got dimensions ",
          PyTuple(dims), " for shape ", PyTuple(avals[0].shape()), "."));
    }
  }
  std::optional<int64_t> old_total = avals[0].NumElements();
  std::optional<int64_t> new_total = CheckedProduct(sizes);
  if (!old_total || !new_total || *old_total != *new_total) {
    return TypeError(absl::StrCat("reshape total size must be unchanged, got new_sizes ",
                                  PyTuple(sizes), " (of total size ",
                                  new_total ? absl::StrCat(*new_total) : "overflowing",
                                  ") for shape ", PyTuple(avals[0].shape()), " (of total size ",
                                  old_total ? absl::StrCat(*old_total) : "overflowing", ")."));
  }
  return One(avals[0].WithShape(std::move(sizes)));
}

Result Squeeze(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("squeeze", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RequiredInts(params, "squeeze", "dimensions"));
  const ShapedArray& x = avals[0];
  std::vector<bool> drop(x.rank(), false);
  for (int64_t d : dims) {
    int64_t c = d < 0 ? d + Rank(x) : d;
    if (c < 0 || c >= Rank(x)) {
      return TypeError(
          absl::StrCat("axis ", d, " is out of bounds for array of dimension ", x.rank()));
    }
    if (x.shape()[c] != 1) {
      return TypeError(absl::StrCat(
          "cannot select an axis to squeeze out which has size not equal to one, got shape=",
          PyTuple(x.shape()), " and dimensions=", PyTuple(dims)));
    }
    drop[c] = true;
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (!drop[i]) shape.push_back(x.shape()[i]);
  }
  return One(x.WithShape(std::move(shape)));
}

Result Transpose(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("transpose", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, RequiredInts(params, "transpose", "permutation"));
  const ShapedArray& x = avals[0];
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == x.rank();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok) {
    return TypeError(absl::StrCat(
        "transpose permutation isn't a permutation of operand dimensions, got permutation ",
        PyTuple(perm), " for operand shape ", PyTuple(x.shape()), "."));
  }
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(x.shape()[p]);
  return One(x.WithShape(std::move(shape)));
}

Rule Reduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, name, "axes"));
    const ShapedArray& x = avals[0];
    std::vector<bool> drop(x.rank(), false);
    for (int64_t a : axes) {
      if (a < 0 || a >= Rank(x)) {
        return TypeError(absl::StrCat("reduction axes ", PyTuple(axes),
                                      " contains out-of-bounds indices for ", x.Str(), "."));
      }
      if (drop[a]) {
        return TypeError(absl::StrCat("duplicate value in 'axes' of reduction: ", PyTuple(axes)));
      }
      drop[a] = true;
    }
    std::vector<int64_t> shape;
    for (size_t i = 0; i < x.rank(); ++i) {
      if (!drop[i]) shape.push_back(x.shape()[i]);
    }
    return One(x.WithShape(std::move(shape)));
  };
}

// ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)).
absl::StatusOr<std::vector<std::vector<int64_t>>> DimensionNumbers(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<std::vector<int64_t>> out;
  bool ok = p->kind() == Param::Kind::kTuple && p->items().size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    const Param& pair = p->items()[i];
    ok = pair.kind() == Param::Kind::kTuple && pair.items().size() == 2;
    for (size_t j = 0; ok && j < 2; ++j) {
      absl::StatusOr<std::vector<int64_t>> dims = pair.items()[j].AsInts("dimension_numbers");
      ok = dims.ok();
      if (ok) out.push_back(*dims);
    }
  }
  if (!ok) {
    return TypeError(absl::StrCat(
        "parameter dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, "
        "rhs_batch)), got ",
        p->ToString()));
  }
  return out;
}

absl::Status CheckDims(absl::string_view what, const std::vector<int64_t>& dims, int64_t rank) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return TypeError(absl::StrCat("dot_general requires ", what,
                                    " dimensions to be in range [0, ", rank, "), got ",
                                    PyTuple(dims), "."));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Pick(const ShapedArray& a, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(a.shape()[d]);
  return out;
}

Result DotGeneral(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("dot_general", avals, 2));
  AXE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> dn, DimensionNumbers(params));
  const ShapedArray& l = avals[0];
  const ShapedArray& r = avals[1];
  AXE_RETURN_IF_ERROR(CheckDims("lhs contracting", dn[0], Rank(l)));
  AXE_RETURN_IF_ERROR(CheckDims("rhs contracting", dn[1], Rank(r)));
  AXE_RETURN_IF_ERROR(CheckDims("lhs batch", dn[2], Rank(l)));
  AXE_RETURN_IF_ERROR(CheckDims("rhs batch", dn[3], Rank(r)));
  if (Pick(l, dn[2]) != Pick(r, dn[3])) {
    return TypeError(absl::StrCat(
        "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
        "shape, got ",
        PyTuple(Pick(l, dn[2])), " and ", PyTuple(Pick(r, dn[3])), "."));
  }
  if (Pick(l, dn[0]) != Pick(r, dn[1])) {
    return TypeError(
        absl::StrCat("dot_general requires contracting dimensions to have the same shape, got ",
                     PyTuple(Pick(l, dn[0])), " and ", PyTuple(Pick(r, dn[1])), "."));
  }
  DType dtype = l.dtype();
  if (auto it = params.find("preferred_element_type");
      it != params.end() && !it->second.is_none()) {
    AXE_ASSIGN_OR_RETURN(dtype, it->second.AsDType("preferred_element_type"));
  } else if (l.dtype() != r.dtype()) {
    return TypeError(
        absl::StrCat("lax.dot_general requires arguments to have the same dtypes, got ",
                     DTypeName(l.dtype()), ", ", DTypeName(r.dtype()), "."));
  }
  std::vector<int64_t> shape = Pick(l, dn[2]);
  auto free = [&](const ShapedArray& a, const std::vector<int64_t>& c,
                  const std::vector<int64_t>& b) {
    for (int64_t i = 0; i < Rank(a); ++i) {
      if (std::find(c.begin(), c.end(), i) == c.end() &&
          std::find(b.begin(), b.end(), i) == b.end()) {
        shape.push_back(a.shape()[i]);
      }
    }
  };
  free(l, dn[0], dn[2]);
  free(r, dn[1], dn[3]);
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dot_general", avals));
  return One(ShapedArray(std::move(shape), dtype, l.weak_type() && r.weak_type(), std::move(vma)));
}

Result Slice(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("slice", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> limit, RequiredInts(params, "slice", "limit_indices"));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       OptionalInts(params, "strides", std::vector<int64_t>(x.rank(), 1)));
  if (start.size() != x.rank() || limit.size() != x.rank() || strides.size() != x.rank()) {
    return TypeError(absl::StrCat(
        "slice start_indices, limit_indices and strides must have length equal to the number of "
        "dimensions of the operand, got start_indices ",
        PyTuple(start), ", limit_indices ", PyTuple(limit), " for operand shape ",
        PyTuple(x.shape()), "."));
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (limit[i] > x.shape()[i]) {
      return TypeError(absl::StrCat(
          "slice limit_indices must be less than or equal to operand shape, got limit_indices ",
          PyTuple(limit), " for operand shape ", PyTuple(x.shape()), "."));
    }
    if (start[i] < 0) {
      return TypeError(absl::StrCat(
          "slice start_indices must be greater than or equal to zero, got start_indices ",
          PyTuple(start), "."));
    }
    if (limit[i] < start[i]) {
      return TypeError(
          absl::StrCat("slice limit_indices must be greater than or equal to start_indices, got "
                       "start_indices ",
                       PyTuple(start), " and limit_indices ", PyTuple(limit), "."));
    }
    if (strides[i] <= 0) {
      return TypeError(absl::StrCat("slice strides must be positive, got ", PyTuple(strides)));
    }
    shape.push_back(CeilDiv(limit[i] - start[i], strides[i]));
  }
  return One(x.WithShape(std::move(shape)));
}

absl::Status CheckIndices(absl::string_view name, absl::Span<const ShapedArray> indices,
                          size_t rank) {
  if (indices.size() != rank) {
    return TypeError(absl::StrCat(name,
                                  " start_indices must have length equal to the number of "
                                  "dimensions of the operand, got ",
                                  indices.size(), " indices for an operand of rank ", rank, "."));
  }
  for (const ShapedArray& i : indices) {
    if (i.rank() != 0 || !IsIntegral(i.dtype())) {
      return TypeError(
          absl::StrCat(name, " start indices must be integer scalars, got ", i.Str(), "."));
    }
  }
  return absl::OkStatus();
}

Result DynamicSlice(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty()) return TypeError("dynamic_slice takes an operand and its start indices");
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                       RequiredInts(params, "dynamic_slice", "slice_sizes"));
  const ShapedArray& x = avals[0];
  AXE_RETURN_IF_ERROR(CheckIndices("dynamic_slice", avals.subspan(1), x.rank()));
  bool ok = sizes.size() == x.rank();
  for (size_t i = 0; ok && i < sizes.size(); ++i) ok = sizes[i] >= 0 && sizes[i] <= x.shape()[i];
  if (!ok) {
    return TypeError(absl::StrCat(
        "slice slice_sizes must be less than or equal to operand shape, got slice_sizes ",
        PyTuple(sizes), " for operand shape ", PyTuple(x.shape()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dynamic_slice", avals));
  return One(x.WithShape(std::move(sizes)).WithVma(std::move(vma)));
}

Result DynamicUpdateSlice(absl::Span<const ShapedArray> avals, const Params&) {
  if (avals.size() < 2) {
    return TypeError("dynamic_update_slice takes an operand, an update and start indices");
  }
  const ShapedArray& x = avals[0];
  const ShapedArray& u = avals[1];
  AXE_RETURN_IF_ERROR(CheckIndices("dynamic_update_slice", avals.subspan(2), x.rank()));
  bool ok = u.rank() == x.rank();
  for (size_t i = 0; ok && i < x.rank(); ++i) ok = u.shape()[i] <= x.shape()[i];
  if (!ok) {
    return TypeError(absl::StrCat(
        "dynamic_update_slice update shape must be smaller than operand shape, got update shape ",
        PyTuple(u.shape()), " for operand shape ", PyTuple(x.shape()), "."));
  }
  if (u.dtype() != x.dtype()) {
    return TypeError(
        absl::StrCat("lax.dynamic_update_slice requires arguments to have the same dtypes, got ",
                     DTypeName(x.dtype()), ", ", DTypeName(u.dtype()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dynamic_update_slice", avals));
  return One(x.WithVma(std::move(vma)));
}

std::string Shapes(absl::Span<const ShapedArray> avals) {
  std::vector<std::string> s;
  for (const ShapedArray& a : avals) s.push_back(PyTuple(a.shape()));
  return absl::StrJoin(s, ", ");
}

Result Concatenate(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty()) return TypeError("concatenate requires at least one operand");
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  const ShapedArray& x = avals[0];
  if (dim < 0 || dim >= Rank(x)) {
    return TypeError(absl::StrCat("concatenate dimension out of bounds: dimension ", dim,
                                  " for shapes ", Shapes(avals), "."));
  }
  int64_t total = 0;
  for (const ShapedArray& a : avals) {
    bool same = a.rank() == x.rank();
    for (int64_t i = 0; same && i < Rank(x); ++i) same = i == dim || a.shape()[i] == x.shape()[i];
    if (!same) {
      return TypeError(absl::StrCat(
          "Cannot concatenate arrays with shapes that differ in dimensions other than the one "
          "being concatenated: concatenating along dimension ",
          dim, " for shapes ", Shapes(avals), "."));
    }
    if (a.dtype() != x.dtype()) {
      return TypeError(
          absl::StrCat("lax.concatenate requires arguments to have the same dtypes, got ",
                       DTypeName(x.dtype()), ", ", DTypeName(a.dtype()), "."));
    }
    std::optional<int64_t> t = CheckedAdd(total, a.shape()[dim]);
    if (!t) return TypeError("concatenate: the result dimension overflows int64");
    total = *t;
  }
  std::vector<int64_t> shape = x.shape();
  shape[dim] = total;
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("concatenate", avals));
  return One(x.WithShape(std::move(shape)).WithVma(std::move(vma)));
}

Result SelectN(absl::Span<const ShapedArray> avals, const Params&) {
  if (avals.size() < 2) return TypeError("select_n requires at least one case");
  const ShapedArray& which = avals[0];
  if (which.dtype() != DType::kPred && !IsIntegral(which.dtype())) {
    return TypeError(absl::StrCat("select `which` must be boolean or integer type, got ",
                                  DTypeName(which.dtype()), "."));
  }
  if (which.dtype() == DType::kPred && avals.size() > 3) {
    return TypeError(absl::StrCat("select with boolean `which` cannot have > 2 cases, got ",
                                  avals.size() - 1, "."));
  }
  auto cases = avals.subspan(1);
  for (const ShapedArray& c : cases) {
    if (c.shape() != cases[0].shape()) {
      return TypeError(
          absl::StrCat("select cases must have the same shapes, got [", Shapes(cases), "]."));
    }
  }
  for (const ShapedArray& c : cases) {
    if (c.dtype() != cases[0].dtype()) {
      std::vector<std::string> names;
      for (const ShapedArray& d : cases) names.push_back(DTypeName(d.dtype()));
      return TypeError(absl::StrCat("select cases must have the same dtypes, got [",
                                    absl::StrJoin(names, ", "), "]."));
    }
  }
  if (which.rank() != 0 && which.shape() != cases[0].shape()) {
    return TypeError(absl::StrCat(
        "select `which` must be scalar or have the same shape as cases, got `which` shape ",
        PyTuple(which.shape()), " but case shape ", PyTuple(cases[0].shape()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("select_n", avals));
  bool weak = true;
  for (const ShapedArray& c : cases) weak = weak && c.weak_type();
  return One(cases[0].WithVma(std::move(vma)).WithWeakType(weak));
}

Result Iota(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("iota", avals, 0));
  AXE_ASSIGN_OR_RETURN(const Param* t, GetParam(params, "iota", "dtype"));
  AXE_ASSIGN_OR_RETURN(DType dtype, t->AsDType("dtype"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, RequiredInts(params, "iota", "shape"));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "iota", "dimension"));
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size())) {
    return TypeError(absl::StrCat("iota dimension must be between 0 and len(shape), got ", dim,
                                  " for shape ", PyTuple(shape)));
  }
  for (int64_t d : shape) {
    if (d < 0)
      return TypeError(absl::StrCat("iota shape must be non-negative, got ", PyTuple(shape)));
  }
  return One(ShapedArray(std::move(shape), dtype));
}

// argmax / argmin: one reduced axis, the index dtype's result.
Rule ArgReduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, name, "axes"));
    if (axes.size() != 1) {
      return TypeError(absl::StrCat(name, " requires exactly one axis, got ", PyTuple(axes)));
    }
    AXE_ASSIGN_OR_RETURN(const Param* dtype_param, GetParam(params, name, "index_dtype"));
    AXE_ASSIGN_OR_RETURN(DType index, dtype_param->AsDType("index_dtype"));
    if (!IsIntegral(index)) {
      return TypeError(
          absl::StrCat(name, " index_dtype must be an integer type, got ", DTypeName(index)));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, Reduction(name)(avals, params));
    return One(out[0].WithDType(index).WithWeakType(false));
  };
}

// reduce_or / reduce_and / reduce_xor: a bool or integer operand (JAX's words), reduced; the
// result is never weakly typed (JAX strips it). Axes are checked as for the other reductions:
// JAX's rule drops them with np.delete, which would also take a negative or repeated axis,
// but no JAX function binds those.
Rule LogicalReduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    const DType t = avals[0].dtype();
    if (t != DType::kPred && !IsIntegral(t)) {
      return TypeError(absl::StrCat("logical reduction requires operand dtype bool or int, got ",
                                    DTypeName(t), "."));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, Reduction(name)(avals, params));
    return One(out[0].WithWeakType(false));
  };
}

// `rule`, then JAX's dtype check of reduce_sum, reduce_prod and the cumulative reductions: the
// operand must be a number (JAX checks the shape first, then the dtype).
Rule NumbersOnly(std::string name, Rule rule) {
  return [name, rule](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, rule(avals, params));
    if (avals[0].dtype() == DType::kPred || IsKeyType(avals[0].dtype())) {
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(avals[0].dtype()),
                                    ". Accepted dtypes are subtypes of number."));
    }
    return out;
  };
}

// cumsum ... cumlogsumexp: the operand's type; `axis` within its rank (JAX's words).
Rule Cumulative(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, name, "axis"));
    const ShapedArray& x = avals[0];
    if (axis < 0) return TypeError("XLA operations do not allow negative axes");
    if (axis >= Rank(x)) {
      return TypeError(
          absl::StrCat("axis ", axis, " is out of bounds for array of shape ", PyTuple(x.shape())));
    }
    return One(x);
  };
}

}  // namespace

void RegisterShapeRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.reduce_min, Reduction("reduce_min"));
  RegisterAbstractEval(*p.argmax, ArgReduction("argmax"));
  RegisterAbstractEval(*p.argmin, ArgReduction("argmin"));
  for (const Primitive* prim : {p.reduce_or, p.reduce_and, p.reduce_xor}) {
    RegisterAbstractEval(*prim, LogicalReduction(prim->name()));
  }
  for (const Primitive* prim : {p.cumsum, p.cumprod, p.cummax, p.cummin, p.cumlogsumexp}) {
    RegisterAbstractEval(*prim, NumbersOnly(prim->name(), Cumulative(prim->name())));
  }
  RegisterAbstractEval(*p.convert_element_type, ConvertElementType);
  RegisterAbstractEval(*p.broadcast_in_dim, BroadcastInDim);
  RegisterAbstractEval(*p.reshape, Reshape);
  RegisterAbstractEval(*p.squeeze, Squeeze);
  RegisterAbstractEval(*p.transpose, Transpose);
  RegisterAbstractEval(*p.reduce_sum, NumbersOnly("reduce_sum", Reduction("reduce_sum")));
  RegisterAbstractEval(*p.reduce_prod, NumbersOnly("reduce_prod", Reduction("reduce_prod")));
  RegisterAbstractEval(*p.reduce_max, Reduction("reduce_max"));
  RegisterAbstractEval(*p.dot_general, DotGeneral);
  RegisterAbstractEval(*p.slice, Slice);
  RegisterAbstractEval(*p.dynamic_slice, DynamicSlice);
  RegisterAbstractEval(*p.dynamic_update_slice, DynamicUpdateSlice);
  RegisterAbstractEval(*p.concatenate, Concatenate);
  RegisterAbstractEval(*p.select_n, SelectN);
  RegisterAbstractEval(*p.iota, Iota);
  RegisterLayoutConstraintRules(*p.with_layout_constraint);
}

}  // namespace axe::ir::internal
