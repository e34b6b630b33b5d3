#include "axe/layout/axis.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/check.h"

namespace axe {
namespace internal {

struct AxisEntry {
  std::string name;
  std::atomic<AxisKind> kind;
  bool declared;  // built-in or explicitly declared (guarded by the registry mutex)
};

}  // namespace internal

namespace {

using internal::AxisEntry;

class Registry {
 public:
  Registry() {
    for (const char* n : {"m", "reg", "P", "F", "Bank", "TCol", "TLane", "Col", "Lane"}) {
      Add(n, AxisKind::kMemory, true);
    }
    for (const char* n : {"bx", "by", "bz", "cbx", "cby", "cbz", "tx", "warpid", "laneid",
                          "wgid", "tid_in_wg", "wid_in_wg", "lane", "warp"}) {
      Add(n, AxisKind::kThread, true);
    }
    for (const char* n : {"gpuid", "gpuid_x", "gpuid_y", "pid"}) {
      Add(n, AxisKind::kDevice, true);
    }
    memory_ = Lookup("m");
  }

  const AxisEntry* memory() const { return memory_; }

  const AxisEntry* GetOrAdd(absl::string_view name) {
    {
      absl::ReaderMutexLock lock(&mu_);
      auto it = by_name_.find(name);
      if (it != by_name_.end()) return it->second;
    }
    absl::MutexLock lock(&mu_);
    return AddLocked(name, AxisKind::kThread, false);
  }

  absl::StatusOr<const AxisEntry*> Declare(absl::string_view name, AxisKind kind) {
    absl::MutexLock lock(&mu_);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return AddLocked(name, kind, true);
    AxisEntry* e = it->second;
    AxisKind old = e->kind.load(std::memory_order_relaxed);
    if (old == kind) {
      e->declared = true;
      return e;
    }
    if (e->declared) {
      return absl::AlreadyExistsError(absl::StrCat("axis '", name, "' is already a ",
                                                   AxisKindName(old), " axis; cannot declare it as ",
                                                   AxisKindName(kind)));
    }
    e->kind.store(kind, std::memory_order_relaxed);
    e->declared = true;
    return e;
  }

 private:
  const AxisEntry* Lookup(absl::string_view name) {
    absl::ReaderMutexLock lock(&mu_);
    return by_name_.at(name);
  }
  void Add(absl::string_view name, AxisKind kind, bool declared) {
    absl::MutexLock lock(&mu_);
    AddLocked(name, kind, declared);
  }
  AxisEntry* AddLocked(absl::string_view name, AxisKind kind, bool declared)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    auto entry = std::make_unique<AxisEntry>();
    entry->name = std::string(name);
    entry->kind.store(kind, std::memory_order_relaxed);
    entry->declared = declared;
    AxisEntry* raw = entry.get();
    entries_.push_back(std::move(entry));
    by_name_.emplace(raw->name, raw);
    return raw;
  }

  absl::Mutex mu_;
  std::vector<std::unique_ptr<AxisEntry>> entries_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<absl::string_view, AxisEntry*> by_name_ ABSL_GUARDED_BY(mu_);
  const AxisEntry* memory_ = nullptr;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

absl::string_view AxisKindName(AxisKind kind) {
  switch (kind) {
    case AxisKind::kMemory:
      return "memory";
    case AxisKind::kThread:
      return "thread";
    case AxisKind::kDevice:
      return "device";
  }
  return "unknown";
}

absl::StatusOr<AxisKind> ParseAxisKind(absl::string_view text) {
  for (AxisKind k : {AxisKind::kMemory, AxisKind::kThread, AxisKind::kDevice}) {
    if (text == AxisKindName(k)) return k;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown axis kind '", text, "' (expected memory, thread or device)"));
}

Axis::Axis() : entry_(GetRegistry().memory()) {}

bool Axis::IsValidName(absl::string_view name) {
  if (name.empty() || !(absl::ascii_isalpha(name[0]) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

Axis Axis::Get(absl::string_view name) {
  AXE_CHECK(IsValidName(name)) << "invalid axis name '" << name << "'";
  return Axis(GetRegistry().GetOrAdd(name));
}

absl::StatusOr<Axis> Axis::Find(absl::string_view name) {
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid axis name '", name, "' (expected [A-Za-z_][A-Za-z0-9_]*)"));
  }
  return Axis(GetRegistry().GetOrAdd(name));
}

absl::StatusOr<Axis> Axis::Declare(absl::string_view name, AxisKind kind) {
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid axis name '", name, "' (expected [A-Za-z_][A-Za-z0-9_]*)"));
  }
  absl::StatusOr<const internal::AxisEntry*> e = GetRegistry().Declare(name, kind);
  if (!e.ok()) return e.status();
  return Axis(*e);
}

absl::string_view Axis::name() const { return entry_->name; }

AxisKind Axis::kind() const { return entry_->kind.load(std::memory_order_relaxed); }

std::strong_ordering operator<=>(Axis a, Axis b) {
  if (a.entry_ == b.entry_) return std::strong_ordering::equal;
  int c = a.name().compare(b.name());
  return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
}

}  // namespace axe
