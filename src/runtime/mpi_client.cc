#include "axe/runtime/mpi_client.h"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "axe/base/status_macros.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

namespace {

bool Initialized() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init != 0 && fin == 0;
}

// Ends the process with one line on stderr unless disarmed (destroyed) within `seconds`:
// MPI_Init and MPI_Finalize wait for every rank and cannot be interrupted (and MPI cannot be
// used after it failed half-way). `what` names the step, `causes` what may have happened.
class Watchdog {
 public:
  Watchdog(double seconds, absl::string_view what, absl::string_view causes)
      : seconds_(seconds),
        line_(TimeoutLine(seconds, what, causes)),
        thread_([this] { Watch(); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      disarmed_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  // Made before MPI starts its step: MPI may change the environment while the watchdog waits.
  static std::string TimeoutLine(double seconds, absl::string_view what, absl::string_view causes) {
    const std::string rank =
        MpiLaunchedWorldSize() > 1 ? absl::StrCat("rank ", MpiLaunchedWorldRank(), ": ") : "";
    return absl::StrCat("axe: error: ", rank, what, ": no answer from the other ranks within ",
                        seconds, " s (", causes, ")\n");
  }

  void Watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::duration<double>(seconds_),
                       [this] { return disarmed_; })) {
      return;
    }
    // One write, so that the lines of several ranks never interleave; nothing to do if it fails.
    static_cast<void>(write(STDERR_FILENO, line_.data(), line_.size()));
    _exit(kMpiTimeoutExitCode);
  }

  const double seconds_;
  const std::string line_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool disarmed_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

absl::Status CheckMpiTimeout(double seconds) {
  if (!(seconds > 0) || !(seconds <= kMaxMpiTimeoutSeconds)) {
    return absl::InvalidArgumentError(absl::StrCat("the MPI timeout must be positive and at most ",
                                                   static_cast<int64_t>(kMaxMpiTimeoutSeconds),
                                                   " s, got ", seconds, " s"));
  }
  return absl::OkStatus();
}

absl::Status MpiStatus(int code, absl::string_view what) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(
      absl::StrCat(what, ": ", absl::string_view(text, static_cast<size_t>(length))));
}

absl::Status MpiInit(int* argc, char*** argv, double timeout_seconds) {
  if (absl::Status s = CheckMpiTimeout(timeout_seconds); !s.ok()) return s;
  int init = 0;
  MPI_Initialized(&init);
  if (init != 0) return absl::OkStatus();
  int provided = 0;
  int code = MPI_SUCCESS;
  {
    Watchdog watchdog(timeout_seconds, "MPI initialisation",
                      "a rank died, stalls or did not start MPI");
    code = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  }
  AXE_RETURN_IF_ERROR(MpiStatus(code, "MPI_Init_thread"));
  // Errors come back as statuses (the client's communicators inherit this handler).
  AXE_RETURN_IF_ERROR(MpiStatus(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                                "MPI_Comm_set_errhandler"));
  return MpiStatus(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
                   "MPI_Comm_set_errhandler");
}

void MpiFinalize(double timeout_seconds) {
  if (!Initialized()) return;
  Watchdog watchdog(CheckMpiTimeout(timeout_seconds).ok() ? timeout_seconds : 60,
                    "MPI finalisation", "a rank died or stalls");
  MPI_Finalize();
}

void MpiAbort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; in case it does
}

bool MpiIsInitialized() { return Initialized(); }

int MpiWorldRank() {
  int rank = 0;
  if (Initialized()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int MpiWorldSize() {
  int size = 1;
  if (Initialized()) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

absl::StatusOr<std::unique_ptr<MpiClient>> MpiClient::Create(const MpiClientOptions& options) {
  if (!Initialized()) {
    return absl::FailedPreconditionError(
        "the MPI client needs MPI initialized (MpiInit; run the program under mpirun)");
  }
  if (options.memory_per_device_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative memory per device: ", options.memory_per_device_bytes, " bytes"));
  }
  AXE_RETURN_IF_ERROR(CheckMpiTimeout(options.timeout_seconds));
  RegisterMpiBenchmarks();
  std::unique_ptr<MpiClient> client(new MpiClient(MpiWorldRank(), MpiWorldSize(), options));
  // Non-blocking, so that a rank that never comes gives DeadlineExceeded, not a hang (the
  // broken client then keeps what MPI may still write).
  std::vector<MPI_Request> request(1);
  AXE_RETURN_IF_ERROR(MpiStatus(
      MPI_Comm_idup(MPI_COMM_WORLD, &client->state_->world, request.data()), "MPI_Comm_idup"));
  AXE_RETURN_IF_ERROR(WaitAll(*client, request, "creating the MPI client (MPI_Comm_idup)"));
  AXE_RETURN_IF_ERROR(MpiStatus(MPI_Comm_set_errhandler(client->state_->world, MPI_ERRORS_RETURN),
                                "MPI_Comm_set_errhandler"));
  AXE_ASSIGN_OR_RETURN(client->own_cpus_, OwnCpus(*client));
  return client;
}

absl::StatusOr<int> MpiClient::OwnCpus(MpiClient& client) {
  // What each rank reports: its host and the CPUs it may run on.
  struct Report {
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    cpu_set_t cpus;
  };
  // One report per rank, then this rank's own (the send buffer, kept alive with the others).
  auto reports = std::make_shared<std::vector<Report>>(static_cast<size_t>(client.size_) + 1);
  Report& mine = reports->back();
  std::memset(&mine, 0, sizeof(mine));
  int length = 0;
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Get_processor_name(mine.host, &length), "MPI_Get_processor_name"));
  if (sched_getaffinity(0, sizeof(mine.cpus), &mine.cpus) != 0) CPU_ZERO(&mine.cpus);
  std::vector<MPI_Request> request(1);
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Iallgather(&mine, sizeof(Report), MPI_BYTE, reports->data(), sizeof(Report),
                               MPI_BYTE, client.state_->world, request.data()),
                "MPI_Iallgather"));
  if (absl::Status s = WaitAll(client, request, "creating the MPI client (CPU masks)"); !s.ok()) {
    client.state_->KeepAlive(std::move(reports));
    return s;
  }
  int sharing = 0;  // ranks on this host whose CPUs overlap mine, this one included
  for (int r = 0; r < client.size_; ++r) {
    Report& other = (*reports)[static_cast<size_t>(r)];
    cpu_set_t both;
    CPU_AND(&both, &mine.cpus, &other.cpus);
    if (std::strncmp(other.host, mine.host, sizeof(mine.host)) == 0 && CPU_COUNT(&both) > 0) {
      ++sharing;
    }
  }
  return std::max(1, CPU_COUNT(&mine.cpus) / std::max(1, sharing));
}

MpiClient::MpiClient(int rank, int size, const MpiClientOptions& options)
    : rank_(rank),
      size_(size),
      timeout_seconds_(options.timeout_seconds),
      local_copies_(options.local_copies),
      addressable_{rank},
      device_(std::make_unique<Device>(rank, options.memory_per_device_bytes)),
      state_(std::make_unique<MpiState>()) {
  SetOps(MakeMpiBackend(*this));
}

MpiClient::~MpiClient() {
  ReleaseOps();
  // After a timeout, pending requests may still use the communicators: leave them to MPI.
  if (state_->broken) {  // MPI may still touch its buffers: leave them (the job is ending)
    static_cast<void>(state_.release());
    return;
  }
  if (!Initialized()) return;
  for (auto& [key, comm] : state_->group_comms) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  if (state_->world != MPI_COMM_NULL) MPI_Comm_free(&state_->world);
}

bool MpiClient::LocalCopiesOnWorker(int64_t bytes) const {
  switch (local_copies_) {
    case LocalCopyThread::kWorker: return bytes > 0;
    case LocalCopyThread::kCaller: return false;
    case LocalCopyThread::kAuto: break;
  }
  return own_cpus_ >= 2 && bytes >= (int64_t{1} << 20);
}

bool MpiClient::broken() const { return state_->broken; }

MpiClient* AsMpiClient(Client& client) { return dynamic_cast<MpiClient*>(&client); }

absl::Status CheckUsable(MpiClient& client) {
  if (client.state().broken) {
    return absl::FailedPreconditionError(
        "the MPI client is broken by an earlier timeout (requests are still pending); end the "
        "program with MpiAbort");
  }
  return absl::OkStatus();
}

absl::Status WaitAll(MpiClient& client, std::vector<MPI_Request>& requests,
                     absl::string_view what) {
  if (requests.empty()) return absl::OkStatus();
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(client.timeout_seconds()));
  std::vector<MPI_Status> statuses(requests.size());
  const int n = static_cast<int>(requests.size());
  for (int polls = 0;; ++polls) {
    int done = 0;
    int code = MPI_Testall(n, requests.data(), &done, statuses.data());
    if (code != MPI_SUCCESS) {
      client.state().broken = true;
      if (code == MPI_ERR_IN_STATUS) {
        for (const MPI_Status& st : statuses) {
          if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING) {
            code = st.MPI_ERROR;
            break;
          }
        }
      }
      return MpiStatus(code, what);
    }
    if (done != 0) return absl::OkStatus();
    if ((polls & 63) == 63) {
      if (Clock::now() > deadline) {
        client.state().broken = true;
        return absl::DeadlineExceededError(
            absl::StrCat(what, ": no answer from the other ranks within ", client.timeout_seconds(),
                         " s (a rank died or stalls)"));
      }
      std::this_thread::yield();
    }
  }
}

namespace {

// 64-bit FNV-1a of `text` from `basis` (the same on every rank and build, unlike std::hash
// or absl::Hash, which may be seeded per process).
uint64_t Fnv1a(absl::string_view text, uint64_t basis) {
  uint64_t h = basis;
  for (char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Whether every rank's text has the same two hashes: one MPI_Iallreduce(MAX) of the hashes
// and their complements (max == this rank's value for both iff all are equal), the same
// answer on every rank.
absl::StatusOr<bool> SameHashes(MpiClient& client, absl::string_view what, absl::string_view text) {
  const uint64_t a = Fnv1a(text, 0xcbf29ce484222325ULL), b = Fnv1a(text, 0x84222325cbf29ce4ULL);
  auto values = std::make_shared<std::vector<uint64_t>>(std::vector<uint64_t>{a, ~a, b, ~b});
  std::vector<MPI_Request> req(1);
  if (absl::Status s = MpiStatus(MPI_Iallreduce(MPI_IN_PLACE, values->data(), 4, MPI_UINT64_T,
                                                MPI_MAX, client.state().world, req.data()),
                                 "MPI_Iallreduce");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WaitAll(client, req, absl::StrCat(what, " (exchanging arguments)"));
      !s.ok()) {
    client.state().abandoned.push_back(values);
    return s;
  }
  const std::vector<uint64_t>& v = *values;
  return v[0] == a && v[1] == ~a && v[2] == b && v[3] == ~b;
}

}  // namespace

absl::Status AgreeOnCall(MpiClient& client, absl::string_view what, const std::string& text) {
  if (absl::Status s = CheckUsable(client); !s.ok()) return s;
  // The common case costs one small all-reduce; only when the hashes differ do the ranks
  // exchange the texts to say what differs.
  absl::StatusOr<bool> same = SameHashes(client, what, text);
  if (!same.ok()) return same.status();
  if (*same) return absl::OkStatus();
  constexpr size_t kSlot = 256;
  std::string mine = text;
  if (mine.size() >= kSlot) {
    mine = absl::StrCat(mine.substr(0, kSlot - 24), "... #",
                        Fnv1a(text, 0xcbf29ce484222325ULL) % 1000000007);
  }
  std::vector<char> send(kSlot, '\0');
  std::memcpy(send.data(), mine.data(), std::min(mine.size(), kSlot - 1));
  auto all = std::make_shared<std::vector<char>>(kSlot * static_cast<size_t>(client.num_devices()));
  std::vector<MPI_Request> req(1);
  if (absl::Status s = MpiStatus(MPI_Iallgather(send.data(), kSlot, MPI_CHAR, all->data(), kSlot,
                                                MPI_CHAR, client.state().world, req.data()),
                                 "MPI_Iallgather");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WaitAll(client, req, absl::StrCat(what, " (exchanging arguments)"));
      !s.ok()) {
    client.state().KeepAlive(std::move(send));
    client.state().abandoned.push_back(all);
    return s;
  }
  const char* first = all->data();
  for (int r = 1; r < client.num_devices(); ++r) {
    const char* other = all->data() + static_cast<size_t>(r) * kSlot;
    if (std::strncmp(first, other, kSlot) != 0) {
      return MarkSameOnEveryRank(absl::InvalidArgumentError(
          absl::StrCat(what, ": the ranks' arguments differ: rank 0 has ", first, ", rank ", r,
                       " has ", other)));
    }
  }
  // The texts differ past what the slots hold (or the hashes of equal texts differ, which
  // cannot happen): still a mismatch.
  return MarkSameOnEveryRank(absl::InvalidArgumentError(
      absl::StrCat(what, ": the ranks' arguments differ: rank 0 has ", first)));
}

absl::StatusOr<MPI_Comm> GroupComm(MpiClient& client, const sharding::Mesh& mesh,
                                   absl::Span<const std::string> axes,
                                   const CollectiveGroups& groups) {
  std::string key = absl::StrCat(mesh.ToString(), "|", absl::StrJoin(axes, ","));
  auto it = client.state().group_comms.find(key);
  if (it != client.state().group_comms.end()) return it->second;
  const auto rank = static_cast<size_t>(client.rank());
  int color = MPI_UNDEFINED, order = 0;
  if (const auto member = groups.Member(static_cast<int64_t>(rank))) {
    color = static_cast<int>(member->first);
    order = static_cast<int>(member->second);
  }
  MPI_Comm comm = MPI_COMM_NULL;
  if (absl::Status s =
          MpiStatus(MPI_Comm_split(client.state().world, color, order, &comm), "MPI_Comm_split");
      !s.ok()) {
    return s;
  }
  client.state().group_comms.emplace(key, comm);  // freed with the client, even on error below
  if (comm != MPI_COMM_NULL) {
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler"));
  }
  return comm;
}

namespace {

template <typename T>
absl::Status AllreduceImpl(MpiClient& client, std::vector<T>& values, MPI_Datatype type, MPI_Op op,
                           absl::string_view what) {
  if (absl::Status s = CheckUsable(client); !s.ok()) return s;
  auto buffer = std::make_shared<std::vector<T>>(values);
  std::vector<MPI_Request> req(1);
  if (absl::Status s =
          MpiStatus(MPI_Iallreduce(MPI_IN_PLACE, buffer->data(), static_cast<int>(buffer->size()),
                                   type, op, client.state().world, req.data()),
                    "MPI_Iallreduce");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WaitAll(client, req, what); !s.ok()) {
    client.state().abandoned.push_back(buffer);
    return s;
  }
  values = *buffer;
  return absl::OkStatus();
}

}  // namespace

absl::Status MpiAllreduceInPlace(MpiClient& client, std::vector<int64_t>& values, MPI_Op op,
                                 absl::string_view what) {
  return AllreduceImpl(client, values, MPI_INT64_T, op, what);
}

absl::Status MpiAllreduceInPlace(MpiClient& client, std::vector<double>& values, MPI_Op op,
                                 absl::string_view what) {
  return AllreduceImpl(client, values, MPI_DOUBLE, op, what);
}

absl::Status MpiBarrier(MpiClient& client, absl::string_view what) {
  if (absl::Status s = CheckUsable(client); !s.ok()) return s;
  std::vector<MPI_Request> req(1);
  if (absl::Status s = MpiStatus(MPI_Ibarrier(client.state().world, req.data()), "MPI_Ibarrier");
      !s.ok()) {
    return s;
  }
  return WaitAll(client, req, what);
}

absl::StatusOr<uint8_t*> Scratch(MpiClient& client, int64_t bytes) {
  MpiState& state = client.state();
  if (bytes > state.scratch_bytes) {
    state.scratch.reset();  // release first: the peak holds one of them
    state.scratch_bytes = 0;
    state.scratch.reset(new (std::nothrow) uint8_t[static_cast<size_t>(bytes)]);
    if (state.scratch == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", bytes, " bytes of scratch for a collective"));
    }
    state.scratch_bytes = bytes;
  }
  return state.scratch.get();
}

absl::StatusOr<int> MpiCount(int64_t bytes, absl::string_view what) {
  if (bytes < 0 || bytes > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ", bytes, " bytes in one MPI message; the MPI backend sends at most ", INT_MAX));
  }
  return static_cast<int>(bytes);
}

}  // namespace axe::runtime
