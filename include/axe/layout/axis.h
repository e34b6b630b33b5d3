// Named hardware axes (memory `m`, `reg`, lanes, warps, devices, ...).
//
// An Axis is an interned name with a kind. Names are case-sensitive identifiers
// ([A-Za-z_][A-Za-z0-9_]*). Built-in names have fixed kinds (see docs/layout.md). A name
// used without being declared is registered with kind kThread ("defaulted"), so that
// storage() never treats an unknown name as memory; a defaulted name may later be declared
// once with another kind (a mesh declaring its axis names as devices, say). Re-declaring a
// declared or built-in axis with a different kind is an error.
//
//   Axis lane = Axis::Get("lane");                       // built-in, kThread
//   absl::StatusOr<Axis> x = Axis::Declare("x", AxisKind::kDevice);
#ifndef AXE_LAYOUT_AXIS_H_
#define AXE_LAYOUT_AXIS_H_

#include <compare>
#include <cstdint>
#include <ostream>
#include "absl/strings/string_view.h"
#include <utility>

#include "absl/status/statusor.h"

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

  // The axis named `name`, registering it with kind kThread if it is new. The name must be
  // a valid identifier (a programming error otherwise; use Find() for untrusted text).
  static Axis Get(absl::string_view name);
  // Like Get() but returns InvalidArgument for a malformed name.
  static absl::StatusOr<Axis> Find(absl::string_view name);
  // Declares `name` with `kind` (see the header comment for the rules).
  static absl::StatusOr<Axis> Declare(absl::string_view name, AxisKind kind);
  // True for [A-Za-z_][A-Za-z0-9_]*.
  static bool IsValidName(absl::string_view name);

  static Axis Memory() { return Axis(); }

  absl::string_view name() const;
  AxisKind kind() const;
  bool is_memory() const { return kind() == AxisKind::kMemory; }

  // Identity comparison; ordering is by name (deterministic across runs).
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
