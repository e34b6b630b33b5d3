// The in-process rendezvous behind the executor's collectives: one exchange slot per group of
// positions; a member deposits its value and waits until the group is complete; the last to
// arrive publishes the round's values and wakes the others. A count of the positions that
// wait (or have finished) turns a program whose positions can never all meet into an error:
// when every position either waits or has finished, no exchange can complete any more.
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/status_macros.h"
#include "axe/exec/communicator.h"

namespace axe::exec {
namespace {

class InProcessCommunicator : public Communicator {
 public:
  explicit InProcessCommunicator(int64_t positions) : positions_(positions) {}

  absl::StatusOr<std::vector<Value>> Exchange(absl::Span<const int64_t> group, int64_t member,
                                              uint64_t tag, Value value) override {
    absl::MutexLock lock(&mu_);
    if (aborted_) return Released();
    if (group.size() <= 1) return std::vector<Value>{std::move(value)};
    if (member < 0 || static_cast<size_t>(member) >= group.size()) {
      return absl::InternalError(
          absl::StrCat("member ", member, " of a group of ", group.size(), " positions"));
    }
    Slot& slot = slots_[std::vector<int64_t>(group.begin(), group.end())];
    if (slot.arrived == 0) {
      slot.tag = tag;
      slot.values.assign(group.size(), Value());
    } else if (slot.tag != tag) {
      AbortLocked(absl::InvalidArgumentError(
          "the positions of a shard_map reached different collectives: a cond whose branch "
          "differs between positions cannot run collectives"));
      return Released();
    }
    slot.values[static_cast<size_t>(member)] = std::move(value);
    if (++slot.arrived == static_cast<int64_t>(group.size())) {
      slot.result = std::make_shared<const std::vector<Value>>(std::move(slot.values));
      slot.values.clear();
      slot.arrived = 0;
      ++slot.generation;
      blocked_ -= static_cast<int64_t>(group.size()) - 1;  // the members waiting for it
      changed_.SignalAll();
      return *slot.result;
    }
    const uint64_t generation = slot.generation;
    ++blocked_;
    CheckStuck();
    while (!aborted_ && slot.generation == generation) changed_.Wait(&mu_);
    if (slot.generation != generation) return *slot.result;
    return Released();
  }

  void Abort(absl::Status status) override {
    absl::MutexLock lock(&mu_);
    AbortLocked(std::move(status));
  }

  void Finish(int64_t) override {
    absl::MutexLock lock(&mu_);
    ++finished_;
    CheckStuck();
  }

  absl::Status first_error() const override {
    absl::MutexLock lock(&mu_);
    return error_;
  }

 private:
  struct Slot {
    int64_t arrived = 0;
    uint64_t tag = 0;
    uint64_t generation = 0;
    std::vector<Value> values;                         // of the round being filled
    std::shared_ptr<const std::vector<Value>> result;  // of the last complete round
  };

  absl::Status Released() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::AbortedError(
        absl::StrCat("a collective was abandoned because another position of the shard_map "
                     "failed: ",
                     error_.message()));
  }

  void AbortLocked(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!aborted_) {
      aborted_ = true;
      error_ = std::move(status);
    }
    changed_.SignalAll();
  }

  // Every position waits or has finished while some wait: no exchange can complete.
  void CheckStuck() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (blocked_ > 0 && blocked_ + finished_ >= positions_) {
      AbortLocked(absl::InvalidArgumentError(
          "the positions of a shard_map wait in collectives that not every member of their "
          "group reaches: a cond whose branch differs between positions cannot run "
          "collectives"));
    }
  }

  const int64_t positions_;
  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  std::map<std::vector<int64_t>, Slot> slots_ ABSL_GUARDED_BY(mu_);
  int64_t blocked_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::Status Communicator::GatherInto(absl::Span<const std::string> axes,
                                      absl::Span<const int64_t> group, int64_t member, uint64_t tag,
                                      const Value& value, Value& into) {
  AXE_ASSIGN_OR_RETURN(std::vector<Value> all, ExchangeOverAxes(axes, group, member, tag, value));
  const size_t bytes = value.num_bytes();
  for (size_t m = 0; m < all.size(); ++m) {
    if (bytes > 0) std::memcpy(into.mutable_bytes() + m * bytes, all[m].bytes(), bytes);
  }
  return absl::OkStatus();
}

absl::Status Communicator::PermuteInto(absl::Span<const std::string> axes,
                                       absl::Span<const int64_t> group, int64_t member,
                                       uint64_t tag, const Value& value,
                                       absl::Span<const int64_t> source_of, Value& into) {
  AXE_ASSIGN_OR_RETURN(std::vector<Value> all, ExchangeOverAxes(axes, group, member, tag, value));
  const int64_t from = source_of[static_cast<size_t>(member)];
  if (from >= 0 && value.num_bytes() > 0) {
    std::memcpy(into.mutable_bytes(), all[static_cast<size_t>(from)].bytes(), value.num_bytes());
  }
  return absl::OkStatus();
}

absl::Status Communicator::AllToAllInto(absl::Span<const std::string> axes,
                                        absl::Span<const int64_t> group, int64_t member,
                                        uint64_t tag, const Value& send, int64_t block,
                                        Value& into) {
  AXE_ASSIGN_OR_RETURN(std::vector<Value> all, ExchangeOverAxes(axes, group, member, tag, send));
  const auto b = static_cast<size_t>(block);
  for (size_t j = 0; j < all.size(); ++j) {
    if (b > 0)
      std::memcpy(into.mutable_bytes() + j * b, all[j].bytes() + static_cast<size_t>(member) * b,
                  b);
  }
  return absl::OkStatus();
}

std::unique_ptr<Communicator> NewInProcessCommunicator(int64_t positions) {
  return std::make_unique<InProcessCommunicator>(positions);
}

}  // namespace axe::exec
