// Named hardware axes (memory `m`, `reg`, lanes, warps, devices, ...).
//
// An Axis is an immutable value: a name and a kind (memory, thread or device). Names are
// case-sensitive identifiers ([A-Za-z_][A-Za-z0-9_]*). Two axes are the same axis iff both
// name and kind agree, so `x` as a mesh (device) axis and `x` as a thread axis are different
// axes, and nothing can change the kind of an axis that exists.
//
// Which kind a bare name has when text is parsed is the business of an AxisCatalog
// (axis_catalog.h): the standard catalogue holds the names of the hardware catalogues
// (NVIDIA, Trainium, TMEM, device meshes); any other name is a thread axis unless the text
// or the caller's catalogue says otherwise. See docs/notation.md, "Axis kinds".
//
//   Axis lane = Axis::Get("lane");                     // standard catalogue: thread
//   Axis x = Axis::Get("x", AxisKind::kDevice);        // a mesh axis
#ifndef AXE_LAYOUT_AXIS_H_
#define AXE_LAYOUT_AXIS_H_

#include <compare>
#include <cstdint>
#include <ostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe {

enum class AxisKind : uint8_t { kMemory, kThread, kDevice };

// "memory", "thread", "device".
absl::string_view AxisKindName(AxisKind kind);
// Inverse of AxisKindName; errors name the text.
absl::StatusOr<AxisKind> ParseAxisKind(absl::string_view text);

namespace internal {
struct AxisEntry;
}

class Axis {
 public:
  // The default memory axis `m`.
  Axis();

  // The axis `name` with the kind the standard catalogue gives the name (kThread for names
  // it does not hold). The name must be a valid identifier (a programming error otherwise;
  // use Find() for untrusted text).
  static Axis Get(absl::string_view name);
  // The axis `name` of kind `kind` (`m` is always memory: checked).
  static Axis Get(absl::string_view name, AxisKind kind);
  // Like Get() but returns InvalidArgument for a malformed name (or `m` of another kind).
  static absl::StatusOr<Axis> Find(absl::string_view name);
  static absl::StatusOr<Axis> Find(absl::string_view name, AxisKind kind);
  // True for [A-Za-z_][A-Za-z0-9_]*.
  static bool IsValidName(absl::string_view name);

  static Axis Memory() { return Axis(); }

  absl::string_view name() const;
  AxisKind kind() const;
  bool is_memory() const { return kind() == AxisKind::kMemory; }

  // Identity comparison (name and kind); ordering is by name, then kind (deterministic
  // across runs).
  friend bool operator==(Axis a, Axis b) { return a.entry_ == b.entry_; }
  friend std::strong_ordering operator<=>(Axis a, Axis b);

  template <typename H>
  friend H AbslHashValue(H h, Axis a) {
    return H::combine(std::move(h), a.entry_);
  }
  friend std::ostream& operator<<(std::ostream& os, Axis a) { return os << a.name(); }

 private:
  explicit Axis(const internal::AxisEntry* entry) : entry_(entry) {}
  const internal::AxisEntry* entry_;
};

}  // namespace axe

#endif  // AXE_LAYOUT_AXIS_H_
