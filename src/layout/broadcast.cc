#include "axe/layout/broadcast.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"

namespace axe {

absl::StatusOr<Layout> Broadcast(const Layout& layout, int64_t n, size_t pos, Axis axis) {
  if (n < 1)
    return absl::InvalidArgumentError(absl::StrCat("broadcast: extent must be >= 1, got ", n));
  if (pos > layout.shard().size()) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast: position ", pos, " is past the ",
                                                   layout.shard().size(), " shard iters of ",
                                                   layout.ToString()));
  }
  std::vector<Iter> shard = layout.shard();
  shard.insert(shard.begin() + static_cast<std::ptrdiff_t>(pos), Iter{n, 0, axis});
  absl::StatusOr<Layout> out = Layout::Create(std::move(shard), layout.replica(), layout.offset());
  if (!out.ok()) return internal::Annotate(out.status(), "broadcast: ");
  return out;
}

}  // namespace axe
