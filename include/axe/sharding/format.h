// JAX's `Format(layout=None, sharding=None)` (spec jax-layout-format.md §3): a device-local
// layout (None, Layout.AUTO or a concrete LocalLayout) paired with a sharding (None or a
// concrete Sharding), and its conversion to an Axe layout (§9).
//
//   Format f = *Format::Parse(
//       "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2, 'y': 2), P('x')))");
//   f.ToString();
//   // Format(layout=Layout(major_to_minor=(1, 0), tiling=None,
//   //   sub_byte_element_size_in_bits=0), sharding=NamedSharding(mesh=Mesh('x': 2, 'y': 2),
//   //   spec=P('x',)))   (one line)
//   FormatToAxe({8, 8}, f, DType::kF32)->ToString();   // S[(2,4,8):(2@gpuid,1,4)] + R[2:1@gpuid]
//
// Parse reads the repr and the positional and keyword forms (`Format()`,
// `Format(Layout.AUTO)`, `Format(layout=..., sharding=...)`). An argument that is none of
// None, AUTO / Layout.AUTO, Layout(...) (layout) or None, NamedSharding(...),
// SingleDeviceSharding(...) (sharding) gets JAX's TypeError text, with Python's name for
// the type of what was written.
#ifndef AXE_SHARDING_FORMAT_H_
#define AXE_SHARDING_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/layout/layout.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/to_axe.h"

namespace axe::sharding {

class Format {
 public:
  // None, Layout.AUTO or a concrete layout.
  using LayoutChoice = std::variant<std::monostate, AutoLayout, LocalLayout>;

  static constexpr size_t kMaxTextLength = Sharding::kMaxTextLength + LocalLayout::kMaxTextLength;

  // Format(): no layout, no sharding.
  Format() = default;
  // Errors (InvalidArgument, JAX's ValueError text) for a concrete layout without a
  // sharding:
  //   Sharding has to be concrete when layout is of type <class 'jax._src.layout.Layout'>.
  //   Please pass a `jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to
  //   the sharding argument. Got sharding None
  static absl::StatusOr<Format> Create(LayoutChoice layout = {},
                                       std::optional<Sharding> sharding = std::nullopt);
  static absl::StatusOr<Format> Parse(absl::string_view text);
  // The format a compiled program reports for one input or output: always a concrete
  // layout; the sharding it was given (none: left to the program, printed sharding=None, a
  // pair Create refuses as JAX's constructor does).
  static Format Compiled(LocalLayout layout, std::optional<Sharding> sharding) {
    return Format(std::move(layout), std::move(sharding));
  }

  const LayoutChoice& layout() const { return layout_; }
  const std::optional<Sharding>& sharding() const { return sharding_; }
  bool is_auto() const { return std::holds_alternative<AutoLayout>(layout_); }
  // The concrete layout, or null (None or AUTO).
  const LocalLayout* local_layout() const { return std::get_if<LocalLayout>(&layout_); }

  // Format(layout=<None|AUTO|Layout(...)>, sharding=<None|repr>).
  std::string ToString() const;
  // The repr of a layout choice: None, AUTO or Layout(...).
  static std::string LayoutToString(const LayoutChoice& layout);

  friend bool operator==(const Format&, const Format&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Format& f) {
    h = H::combine(std::move(h), f.layout_.index());
    if (const LocalLayout* l = f.local_layout()) h = H::combine(std::move(h), *l);
    if (f.sharding_) return H::combine(std::move(h), true, *f.sharding_);
    return H::combine(std::move(h), false);
  }
  friend std::ostream& operator<<(std::ostream& os, const Format& f) { return os << f.ToString(); }

 private:
  Format(LayoutChoice layout, std::optional<Sharding> sharding)
      : layout_(std::move(layout)), sharding_(std::move(sharding)) {}

  LayoutChoice layout_;
  std::optional<Sharding> sharding_;
};

// The Axe layout of an array of `global_shape` and `dtype` stored as `format` (spec §9): the
// local layout checked against the rank (CheckCompatibleAval) and converted with ToXla, then
// ShardedToAxe. A SingleDeviceSharding is the whole array on its device: the offset
// `device@gpuid` (in both modes; the memory kind is not part of the layout). Errors:
// FailedPrecondition "not expressible: the layout is AUTO; it is chosen at compile time",
// "not expressible: the layout is None; ..." and "not expressible: the sharding is None;
// ..."; CheckCompatibleAval's, ToXla's and ShardedToAxe's errors.
absl::StatusOr<axe::Layout> FormatToAxe(absl::Span<const int64_t> global_shape,
                                        const Format& format, DType dtype = DType::kF32,
                                        DeviceAxisMode mode = DeviceAxisMode::kFlat);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_FORMAT_H_
