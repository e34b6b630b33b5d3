// A layout or the reason there is none: the result of the algebra operations whose answer
// may legitimately not exist (slice outside the paper's sufficient forms, tile-of when A
// is not a tiling of B). "No answer" is a regular result, not an error; genuine input
// errors (bad shapes, ranks, overflow) are reported through absl::Status instead.
//
//   absl::StatusOr<MaybeLayout> s = Slice(l, {16, 16}, {{2, 3}, {6, 10}});
//   if (s.ok() && s->has_value()) use(**s); else if (s.ok()) std::cout << s->reason;
#ifndef AXE_LAYOUT_MAYBE_LAYOUT_H_
#define AXE_LAYOUT_MAYBE_LAYOUT_H_

#include <optional>
#include <string>
#include <utility>

#include "axe/base/check.h"
#include "axe/layout/layout.h"

namespace axe {

struct MaybeLayout {
  std::optional<Layout> layout;
  std::string reason;  // why there is no layout (empty when there is one)

  static MaybeLayout Some(Layout l) { return MaybeLayout{std::move(l), ""}; }
  static MaybeLayout None(std::string why) { return MaybeLayout{std::nullopt, std::move(why)}; }

  bool has_value() const { return layout.has_value(); }
  explicit operator bool() const { return layout.has_value(); }
  // Requires has_value().
  const Layout& operator*() const {
    AXE_CHECK(layout.has_value()) << "no layout: " << reason;
    return *layout;
  }
  const Layout* operator->() const { return &**this; }
  // The canonical text of the layout, or "none: <reason>".
  std::string ToString() const { return layout ? layout->ToString() : "none: " + reason; }
};

}  // namespace axe

#endif  // AXE_LAYOUT_MAYBE_LAYOUT_H_
