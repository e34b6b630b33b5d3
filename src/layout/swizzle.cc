#include "axe/layout/swizzle.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/inverse.h"
#include "axe/layout/pack.h"
#include "axe/layout/tile.h"

namespace axe {
namespace {

constexpr int kMaxSwizzleBits = 32;

// log2(n) for a power of two n >= 1, else -1.
int Log2Exact(int64_t n) {
  if (n < 1 || (n & (n - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t{1} << k) != n) ++k;
  return k;
}

}  // namespace

absl::StatusOr<SwizzledLayout> SwizzledLayout::Create(int per_element, int swizzle_len,
                                                      int atom_len, Layout layout,
                                                      bool swizzle_inner) {
  const std::string what =
      absl::StrCat("swizzle (M,B,S) = (", per_element, ",", swizzle_len, ",", atom_len, ")");
  if (per_element < 0 || swizzle_len < 0 || atom_len < 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": parameters must be >= 0"));
  }
  if (atom_len < swizzle_len) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": needs S >= B (atom_len >= swizzle_len)"));
  }
  if (per_element + swizzle_len + atom_len > kMaxSwizzleBits) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": M + S + B must be at most ", kMaxSwizzleBits));
  }
  std::vector<Axis> axes = Canonicalize(layout).axes();
  if (axes.size() != 1 || !axes[0].is_memory()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the swizzled layout must live on a single memory axis, but ", layout.ToString(),
        " uses ",
        axes.size() == 1
            ? absl::StrCat("the ", AxisKindName(axes[0].kind()), " axis ", axes[0].name())
            : absl::StrCat(axes.size(), " axes")));
  }
  return SwizzledLayout(per_element, swizzle_len, atom_len, swizzle_inner, std::move(layout),
                        axes[0]);
}

bool SwizzledLayout::LooksSwizzled(absl::string_view text) {
  Scanner s(text);
  std::optional<absl::string_view> id = s.TryIdent();
  return id && (*id == "Swizzled" || *id == "ComposeLayout") && s.Peek() == '(';
}

absl::StatusOr<SwizzledLayout> SwizzledLayout::Parse(absl::string_view text,
                                                     const AxisCatalog& catalog) {
  Scanner s(text);
  std::optional<absl::string_view> id = s.TryIdent();
  if (!id || (*id != "Swizzled" && *id != "ComposeLayout")) {
    return s.ErrorAt(0, "'Swizzled(' or 'ComposeLayout('");
  }
  AXE_RETURN_IF_ERROR(s.Expect('('));
  int params[3];
  for (int& p : params) {
    s.SkipSpace();
    const size_t at = s.pos();
    AXE_ASSIGN_OR_RETURN(int64_t v, s.ReadInt());
    if (v < 0 || v > kMaxSwizzleBits) {
      return s.MessageAt(
          at, absl::StrCat("swizzle parameter must be in [0, ", kMaxSwizzleBits, "], got ", v));
    }
    p = static_cast<int>(v);
    AXE_RETURN_IF_ERROR(s.Expect(','));
  }
  // The inner layout runs to the first ',' or ')' outside brackets.
  s.SkipSpace();
  const size_t start = s.pos();
  size_t end = start;
  int depth = 0;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
  }
  absl::StatusOr<Layout> layout = Layout::Parse(text.substr(start, end - start), catalog);
  if (!layout.ok())
    return s.MessageAt(start, absl::StrCat("inner layout: ", layout.status().message()));
  s.set_pos(end);
  bool inner = true;
  if (s.TryConsume(',')) {
    s.SkipSpace();
    const size_t at = s.pos();
    std::optional<absl::string_view> key = s.TryIdent();
    if (!key || *key != "inner") return s.ErrorAt(at, "'inner='");
    AXE_RETURN_IF_ERROR(s.Expect('='));
    s.SkipSpace();
    const size_t value_at = s.pos();
    std::optional<absl::string_view> value = s.TryIdent();
    if (!value || (*value != "true" && *value != "false"))
      return s.ErrorAt(value_at, "'true' or 'false'");
    inner = *value == "true";
  }
  AXE_RETURN_IF_ERROR(s.Expect(')'));
  if (!s.AtEnd()) return s.Error("end of input");
  absl::StatusOr<SwizzledLayout> out =
      Create(params[0], params[1], params[2], *std::move(layout), inner);
  if (!out.ok())
    return absl::InvalidArgumentError(absl::StrCat(out.status().message(), " in \"", text, "\""));
  return out;
}

int64_t SwizzledLayout::Swizzle(int64_t address) const {
  // Pure bit operations on the two's complement pattern: bits [M+S, M+S+B) are XORed into
  // [M, M+B) (inner) or bits [M, M+B) into [M+S, M+S+B) (outer).
  const uint64_t u = static_cast<uint64_t>(address);
  const uint64_t low_mask = ((uint64_t{1} << b_) - 1) << m_;
  const uint64_t v = inner_ ? u ^ ((u >> s_) & low_mask) : u ^ ((u & low_mask) << s_);
  return static_cast<int64_t>(v);
}

absl::StatusOr<PhysCoord> SwizzledLayout::ApplyBase(int64_t flat) const {
  AXE_ASSIGN_OR_RETURN(PhysCoord p, axe::ApplyBase(layout_, flat));
  const Axis a = axis();
  PhysCoord out;
  out.set(a, Swizzle(p.get(a)));
  return out;
}

absl::StatusOr<PhysCoord> SwizzledLayout::ApplyBase(absl::Span<const int64_t> shape,
                                                    absl::Span<const int64_t> coord) const {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout_, shape));
  AXE_ASSIGN_OR_RETURN(int64_t flat, FlattenCoord(shape, coord));
  return ApplyBase(flat);
}

absl::StatusOr<std::vector<PhysCoord>> SwizzledLayout::Apply(int64_t flat) const {
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, axe::Apply(layout_, flat));
  const Axis a = axis();
  for (PhysCoord& p : points) {
    PhysCoord q;
    q.set(a, Swizzle(p.get(a)));
    p = q;
  }
  std::sort(points.begin(), points.end());  // the swizzle is a bijection: still distinct
  return points;
}

absl::StatusOr<std::vector<PhysCoord>> SwizzledLayout::Apply(
    absl::Span<const int64_t> shape, absl::Span<const int64_t> coord) const {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout_, shape));
  AXE_ASSIGN_OR_RETURN(int64_t flat, FlattenCoord(shape, coord));
  return Apply(flat);
}

std::string SwizzledLayout::ToString() const {
  return absl::StrCat("Swizzled(", m_, ",", b_, ",", s_, ", ", layout_.ToString(),
                      inner_ ? "" : ", inner=false", ")");
}

SwizzledLayout Canonicalize(const SwizzledLayout& layout) {
  absl::StatusOr<SwizzledLayout> out =
      SwizzledLayout::Create(layout.per_element(), layout.swizzle_len(), layout.atom_len(),
                             Canonicalize(layout.layout()), layout.swizzle_inner());
  AXE_CHECK(out.ok()) << out.status();
  return *std::move(out);
}

absl::StatusOr<SwizzledLayout> Tile(const Layout& outer, absl::Span<const int64_t> outer_shape,
                                    const SwizzledLayout& inner,
                                    absl::Span<const int64_t> inner_shape) {
  const Axis axis = inner.axis();
  const Layout c = Canonicalize(outer);
  for (Axis a : c.axes()) {
    if (a != axis) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile of a swizzled layout: the outer layout ", outer.ToString(),
                       " uses axis ", a.name(), "; a swizzle lives on ", axis.name(), " only"));
    }
  }
  const int64_t span = inner.layout().span(axis), period = inner.period();
  auto check = [&](int64_t value, absl::string_view what) -> absl::Status {
    std::optional<int64_t> scaled = CheckedMul(value, span);
    if (scaled && *scaled % period == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "tile of ", inner.ToString(), ": the outer ", what, " scaled by the inner span ", span,
        " is not a multiple of the swizzle period ", period,
        ", so the tiles would not repeat the swizzle atom"));
  };
  for (const Iter& it : c.shard()) {
    if (it.extent > 1)
      AXE_RETURN_IF_ERROR(check(it.stride, absl::StrCat("shard iter ", it.ToString())));
  }
  for (const Iter& it : c.replica())
    AXE_RETURN_IF_ERROR(check(it.stride, absl::StrCat("replica iter ", it.ToString())));
  AXE_RETURN_IF_ERROR(check(c.offset().get(axis), "offset"));
  AXE_ASSIGN_OR_RETURN(Layout tiled, Tile(c, outer_shape, inner.layout(), inner_shape));
  return SwizzledLayout::Create(inner.per_element(), inner.swizzle_len(), inner.atom_len(),
                                std::move(tiled), inner.swizzle_inner());
}

absl::StatusOr<SwizzledLayout> Unpack(const SwizzledLayout& layout, int64_t n) {
  const int k = Log2Exact(n);
  if (k < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("unpack of a swizzled layout: n = ", n, " is not a power of two"));
  AXE_ASSIGN_OR_RETURN(Layout inner, Unpack(layout.layout(), n));
  return SwizzledLayout::Create(layout.per_element() + k, layout.swizzle_len(), layout.atom_len(),
                                std::move(inner), layout.swizzle_inner());
}

absl::StatusOr<SwizzledLayout> Pack(const SwizzledLayout& layout, int64_t n) {
  const int k = Log2Exact(n);
  if (k < 0 || k > layout.per_element()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pack of ", layout.ToString(), ": n = ", n,
                     " must be a power of two at most 2^M = ", int64_t{1} << layout.per_element()));
  }
  AXE_ASSIGN_OR_RETURN(Layout inner, Pack(layout.layout(), n));
  return SwizzledLayout::Create(layout.per_element() - k, layout.swizzle_len(), layout.atom_len(),
                                std::move(inner), layout.swizzle_inner());
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Inverse(const SwizzledLayout& layout,
                                                          absl::Span<const int64_t> shape,
                                                          const PhysCoord& point) {
  PhysCoord target = point;
  const Axis a = layout.axis();
  target.set(a, layout.Swizzle(point.get(a)));
  return Inverse(layout.layout(), shape, target);
}

absl::StatusOr<MaybeSwizzledLayout> Slice(const SwizzledLayout& layout,
                                          absl::Span<const int64_t> shape,
                                          absl::Span<const Interval> region) {
  AXE_ASSIGN_OR_RETURN(MaybeLayout inner, Slice(layout.layout(), shape, region));
  if (!inner.has_value()) return MaybeSwizzledLayout{std::nullopt, inner.reason};
  AXE_ASSIGN_OR_RETURN(SwizzledLayout sliced,
                       SwizzledLayout::Create(layout.per_element(), layout.swizzle_len(),
                                              layout.atom_len(), *inner, layout.swizzle_inner()));
  return MaybeSwizzledLayout{std::move(sliced), ""};
}

}  // namespace axe
