#include "axe/layout/axis.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/check.h"
#include "axe/base/scanner.h"
#include "axe/layout/axis_catalog.h"

namespace axe {
namespace internal {

// One interned (name, kind) pair. Entries are never modified or freed, so an Axis is a
// pointer whose meaning cannot change.
struct AxisEntry {
  std::string name;
  AxisKind kind;
};

}  // namespace internal

namespace {

using internal::AxisEntry;

// The interning table: append-only. One slot per (name, kind); lookups by name take no
// allocation (the map is keyed by the name and looked up with a string_view).
class AxisTable {
 public:
  AxisTable() { memory_ = Intern("m", AxisKind::kMemory); }

  const AxisEntry* memory() const { return memory_; }

  const AxisEntry* Intern(absl::string_view name, AxisKind kind) {
    const size_t k = static_cast<size_t>(kind);
    {
      absl::ReaderMutexLock lock(&mu_);
      auto it = entries_.find(name);
      if (it != entries_.end() && it->second[k] != nullptr) return it->second[k].get();
    }
    absl::MutexLock lock(&mu_);
    std::unique_ptr<AxisEntry>& slot = entries_[name][k];
    if (slot == nullptr) slot = std::make_unique<AxisEntry>(AxisEntry{std::string(name), kind});
    return slot.get();
  }

 private:
  absl::Mutex mu_;
  // name -> the entry of each kind (indexed by AxisKind).
  absl::flat_hash_map<std::string, std::array<std::unique_ptr<AxisEntry>, 3>> entries_
      ABSL_GUARDED_BY(mu_);
  const AxisEntry* memory_ = nullptr;
};

AxisTable& Table() {
  static AxisTable* table = new AxisTable();
  return *table;
}

absl::Status InvalidName(absl::string_view name) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid axis name '", name, "' (expected [A-Za-z_][A-Za-z0-9_]*)"));
}

}  // namespace

absl::string_view AxisKindName(AxisKind kind) {
  switch (kind) {
    case AxisKind::kMemory: return "memory";
    case AxisKind::kThread: return "thread";
    case AxisKind::kDevice: return "device";
  }
  return "unknown";
}

absl::StatusOr<AxisKind> ParseAxisKind(absl::string_view text) {
  for (AxisKind k : {AxisKind::kMemory, AxisKind::kThread, AxisKind::kDevice}) {
    if (text == AxisKindName(k)) return k;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown axis kind '", ElideForMessage(text, 40),
                                                 "' (expected memory, thread or device)"));
}

Axis::Axis() : entry_(Table().memory()) {}

bool Axis::IsValidName(absl::string_view name) {
  if (name.empty() || !(absl::ascii_isalpha(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

Axis Axis::Get(absl::string_view name) { return Get(name, AxisCatalog::Standard().KindOf(name)); }

Axis Axis::Get(absl::string_view name, AxisKind kind) {
  AXE_CHECK(IsValidName(name)) << "invalid axis name '" << name << "'";
  AXE_CHECK(name != "m" || kind == AxisKind::kMemory) << "axis 'm' is the memory axis";
  return Axis(Table().Intern(name, kind));
}

absl::StatusOr<Axis> Axis::Find(absl::string_view name) {
  if (!IsValidName(name)) return InvalidName(name);
  return Get(name);
}

absl::StatusOr<Axis> Axis::Find(absl::string_view name, AxisKind kind) {
  if (!IsValidName(name)) return InvalidName(name);
  if (name == "m" && kind != AxisKind::kMemory) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis 'm' is the memory axis; it cannot be a ", AxisKindName(kind), " axis"));
  }
  return Get(name, kind);
}

absl::string_view Axis::name() const { return entry_->name; }

AxisKind Axis::kind() const { return entry_->kind; }

std::strong_ordering operator<=>(Axis a, Axis b) {
  if (a.entry_ == b.entry_) return std::strong_ordering::equal;
  if (int c = a.name().compare(b.name()); c != 0) {
    return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  return a.kind() <=> b.kind();
}

}  // namespace axe
