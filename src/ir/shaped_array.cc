#include "axe/ir/shaped_array.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "python_text.h"

namespace axe::ir {

absl::StatusOr<ShapedArray> ShapedArray::Create(std::vector<int64_t> shape, DType dtype,
                                                bool weak_type, std::vector<std::string> vma) {
  if (shape.size() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShapedArray: rank ", shape.size(), " exceeds ", kMaxRank));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ShapedArray: dimension ", i, " has negative size ", shape[i]));
    }
  }
  if (!IsArrayType(dtype) && !IsKeyType(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShapedArray: '", XlaName(dtype), "' is not an array element type"));
  }
  if (vma.size() > kMaxVmaAxes) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShapedArray: ", vma.size(), " varying axes (at most ", kMaxVmaAxes, ")"));
  }
  for (size_t i = 0; i < vma.size(); ++i) {
    if (!internal::IsIdentifier(vma[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("ShapedArray: varying axis ", i, " '", vma[i], "' is not an identifier"));
    }
    if (std::find(vma.begin(), vma.begin() + i, vma[i]) != vma.begin() + i) {
      return absl::InvalidArgumentError(
          absl::StrCat("ShapedArray: varying axis '", vma[i], "' is repeated"));
    }
  }
  return ShapedArray(std::move(shape), dtype, weak_type, std::move(vma));
}

bool ShapedArray::IsVaryingOver(absl::string_view axis) const {
  return std::find(vma_.begin(), vma_.end(), axis) != vma_.end();
}

std::optional<int64_t> ShapedArray::NumElements() const { return CheckedProduct(shape_); }

ShapedArray ShapedArray::WithShape(std::vector<int64_t> shape) const {
  ShapedArray r = *this;
  if (shape.size() != r.shape_.size()) r.dim_shardings_.clear();
  r.shape_ = std::move(shape);
  return r;
}
ShapedArray ShapedArray::WithDimShardings(std::vector<std::string> dim_shardings) const {
  ShapedArray r = *this;
  r.dim_shardings_ = std::move(dim_shardings);
  return r;
}
ShapedArray ShapedArray::WithDType(DType dtype) const {
  ShapedArray r = *this;
  r.dtype_ = dtype;
  return r;
}
ShapedArray ShapedArray::WithWeakType(bool weak_type) const {
  ShapedArray r = *this;
  r.weak_type_ = weak_type;
  return r;
}
ShapedArray ShapedArray::WithVma(std::vector<std::string> vma) const {
  ShapedArray r = *this;
  r.vma_ = std::move(vma);
  return r;
}

std::string ShapedArray::VmaSuffix() const {
  if (vma_.empty()) return "";
  if (vma_.size() == 1) return absl::StrCat("{V:", vma_[0], "}");
  return absl::StrCat("{V:(", absl::StrJoin(vma_, ","), ")}");
}

std::string ShapedArray::ShortString() const {
  std::vector<std::string> dims;
  for (size_t d = 0; d < shape_.size(); ++d) {
    const bool sharded = d < dim_shardings_.size() && !dim_shardings_[d].empty();
    dims.push_back(sharded ? absl::StrCat(shape_[d], "@", dim_shardings_[d])
                           : absl::StrCat(shape_[d]));
  }
  return absl::StrCat(JaxprName(dtype_), "[", absl::StrJoin(dims, ","), "]", VmaSuffix());
}

std::string ShapedArray::Str() const {
  return absl::StrCat(weak_type_ ? "~" : "", NumpyName(dtype_), "[", absl::StrJoin(shape_, ","),
                      "]", VmaSuffix());
}

std::string ShapedArray::Repr() const {
  return absl::StrCat("ShapedArray(", NumpyName(dtype_), "[", absl::StrJoin(shape_, ","), "]",
                      VmaSuffix(), weak_type_ ? ", weak_type=True" : "", ")");
}

namespace {

absl::StatusOr<std::vector<std::string>> ParseVma(Scanner& s) {
  std::vector<std::string> vma;
  if (!s.TryConsume('{')) return vma;
  AXE_RETURN_IF_ERROR(s.Expect('V'));
  AXE_RETURN_IF_ERROR(s.Expect(':'));
  bool several = s.TryConsume('(');
  do {
    std::optional<absl::string_view> name = s.TryIdent();
    if (!name) return s.Error("a mesh axis name");
    if (vma.size() >= ShapedArray::kMaxVmaAxes) return s.Error("at most 32 varying axes");
    vma.emplace_back(*name);
  } while (several && s.TryConsume(','));
  if (several) AXE_RETURN_IF_ERROR(s.Expect(')'));
  AXE_RETURN_IF_ERROR(s.Expect('}'));
  return vma;
}

// A dimension's explicit sharding after its size: "@x" or "@(x,y)" gives "x" or "(x,y)";
// nothing gives "".
absl::StatusOr<std::string> ParseDimSharding(Scanner& s) {
  if (!s.TryConsume('@')) return std::string();
  const bool several = s.TryConsume('(');
  std::vector<std::string> axes;
  do {
    std::optional<absl::string_view> name = s.TryIdent();
    if (!name) return s.Error("a mesh axis name after '@'");
    if (axes.size() >= ShapedArray::kMaxVmaAxes) return s.Error("at most 32 mesh axes");
    axes.emplace_back(*name);
  } while (several && s.TryConsume(','));
  if (several) AXE_RETURN_IF_ERROR(s.Expect(')'));
  const std::string joined = absl::StrJoin(axes, ",");
  return several ? absl::StrCat("(", joined, ")") : joined;
}

}  // namespace

absl::StatusOr<ShapedArray> ShapedArray::ParseShort(absl::string_view text) {
  Scanner s(text);
  std::optional<absl::string_view> name = s.TryIdent();
  if (!name) return s.Error("an element type such as f32");
  if (*name == "key" && s.TryConsume('<')) {  // a PRNG key type, key<fry>
    std::optional<absl::string_view> impl = s.TryIdent();
    if (!impl || !s.TryConsume('>')) return s.Error("a key type such as key<fry>");
    const size_t start = static_cast<size_t>(name->data() - text.data());
    name = text.substr(start, s.pos() - start);
  }
  absl::StatusOr<DType> dtype = ParseJaxprDType(*name);
  if (!dtype.ok())
    return s.MessageAt(0, absl::StrCat("unknown element type '", ElideForMessage(*name, 40), "'"));
  AXE_RETURN_IF_ERROR(s.Expect('['));
  std::vector<int64_t> shape;
  std::vector<std::string> shardings;
  bool sharded = false;
  if (!s.TryConsume(']')) {
    do {
      if (shape.size() >= kMaxRank) return s.Error("at most 64 dimensions");
      AXE_ASSIGN_OR_RETURN(int64_t d, s.ReadNonNegativeInt());
      shape.push_back(d);
      AXE_ASSIGN_OR_RETURN(std::string axes, ParseDimSharding(s));
      sharded = sharded || !axes.empty();
      shardings.push_back(std::move(axes));
    } while (s.TryConsume(','));
    AXE_RETURN_IF_ERROR(s.Expect(']'));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, ParseVma(s));
  if (!s.AtEnd()) return s.Error("the end of the type");
  AXE_ASSIGN_OR_RETURN(ShapedArray a, Create(std::move(shape), *dtype, false, std::move(vma)));
  return sharded ? a.WithDimShardings(std::move(shardings)) : a;
}

bool TypesMatch(const ShapedArray& a, const ShapedArray& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && a.vma() == b.vma();
}

}  // namespace axe::ir
