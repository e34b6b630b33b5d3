// The MPI backend of the runtime's Client: one device per MPI rank (`mpirun -n 4 ...`).
//
// Device d is rank d of MPI_COMM_WORLD; a process addresses only its own device
// (addressable_devices() == {rank}). Data moves between ranks by MPI's own point-to-point
// and collective calls (mpi_collectives.h, mpi_reshard.h), on sub-communicators made by
// MPI_Comm_split per mesh-axis group and kept for reuse.
//
// Faults. Every MPI call that waits on other ranks is started non-blocking (MPI_I...) and
// completed by polling MPI_Testall until a deadline (timeout_seconds after it started):
// a rank that died or stalls makes the others return DeadlineExceeded naming the operation
// and the timeout, never hang. The communicators use MPI_ERRORS_RETURN, so an error that MPI
// itself detects (a peer's connection lost, a message longer than its receive) comes back as
// an Internal status with MPI's error string. MpiInit is bounded too: a watchdog ends the
// process with one line when the other ranks never answer. Before the data of a collective or
// reshard moves, the ranks exchange a short text that describes the call (operation, shape, element
// type, axes, options); when the texts differ, every rank returns InvalidArgument naming the two
// ranks and both texts (marked IsSameOnEveryRank). After a timeout the client is broken: the
// requests MPI still holds cannot be taken back, so their buffers are kept alive and every later
// call fails at once with FailedPrecondition; the program should end with MpiAbort().
//
//   AXE_RETURN_IF_ERROR(MpiInit(&argc, &argv));
//   std::unique_ptr<MpiClient> client = *MpiClient::Create({.timeout_seconds = 10});
//   ... collectives / reshards on *client ...
//   MpiFinalize();
#ifndef AXE_RUNTIME_MPI_CLIENT_H_
#define AXE_RUNTIME_MPI_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/client.h"
#include "axe/runtime/device.h"
#include "axe/runtime/launcher.h"

namespace axe::runtime {

// The longest timeout MpiInit and MpiClientOptions accept (about 11.6 days).
inline constexpr double kMaxMpiTimeoutSeconds = 1e6;

// The exit code of a process whose MPI initialisation or finalisation ran past its timeout
// (MpiInit, MpiFinalize).
inline constexpr int kMpiTimeoutExitCode = 2;

// OK when `seconds` is a usable MPI timeout: 0 < seconds <= kMaxMpiTimeoutSeconds; else
// InvalidArgument "the MPI timeout must be positive and at most 1000000 s, got <t> s".
absl::Status CheckMpiTimeout(double seconds);

// MPI_Init_thread (MPI_THREAD_FUNNELED) unless MPI is already initialized, then
// MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF (an error MPI detects comes back as
// a status, never ends the job). MPI_Init waits for every rank of the job: when one never
// starts MPI (it died, is stopped, or runs without MPI), it would wait forever, and cannot
// be interrupted. So a watchdog thread, started before, ends the process when
// MPI_Init_thread has not returned within `timeout_seconds`: it writes one line on stderr
// in a single write(2), "axe: error: rank <r>: MPI initialisation: no answer from the other
// ranks within <t> s (a rank died, stalls or did not start MPI)" ("rank <r>: " only when the
// launcher started several ranks), and calls _exit(kMpiTimeoutExitCode). Errors:
// InvalidArgument for a timeout outside (0, kMaxMpiTimeoutSeconds]; Internal with MPI's
// message.
absl::Status MpiInit(int* argc, char*** argv, double timeout_seconds = 60);
// MPI_Finalize when MPI was initialized and is not finalized yet. MPI_Finalize waits for
// every rank too: when it has not returned within `timeout_seconds` (60 when outside
// (0, kMaxMpiTimeoutSeconds]), a watchdog ends the process as in MpiInit, with "axe: error:
// rank <r>: MPI finalisation: no answer from the other ranks within <t> s (a rank died or
// stalls)".
void MpiFinalize(double timeout_seconds = 60);
// MPI_Abort(MPI_COMM_WORLD, code): ends every rank (after a fault, instead of MpiFinalize).
[[noreturn]] void MpiAbort(int code);
// Whether MPI is initialized (and not finalized).
bool MpiIsInitialized();
// This process's rank and the number of ranks in MPI_COMM_WORLD (0 and 1 before MpiInit).
int MpiWorldRank();
int MpiWorldSize();
// MarkSameOnEveryRank, IsSameOnEveryRank: backend.h. MpiLaunchedWorldSize,
// MpiLaunchedWorldRank: launcher.h.

// Where a reshard copies the elements that stay on a rank (its local part) while its
// messages travel. The thread that calls MPI also makes MPI's copies of the messages it
// receives (shared-memory single copy, TCP), so the local part overlaps them only when
// another CPU runs it.
enum class LocalCopyThread {
  kAuto,    // the device's worker thread when the rank has a CPU to spare (own_cpus() >= 2)
            // and the local part is 1 MiB or more, else the calling thread
  kWorker,  // always the device's worker thread
  kCaller,  // always the calling thread, between posting the messages and completing them
};

struct MpiClientOptions {
  int64_t memory_per_device_bytes = 0;  // 0: unlimited
  // How long any one wait on other ranks may take before DeadlineExceeded
  // (0 < t <= kMaxMpiTimeoutSeconds).
  double timeout_seconds = 60;
  LocalCopyThread local_copies = LocalCopyThread::kAuto;
};

struct MpiState;  // MPI handles (src/runtime/mpi_state.h)

class MpiClient final : public Client {
 public:
  // A client over MPI_COMM_WORLD (MpiInit first). Errors: MPI not initialized
  // (FailedPrecondition), a negative memory limit or a timeout outside
  // (0, kMaxMpiTimeoutSeconds] (InvalidArgument).
  static absl::StatusOr<std::unique_ptr<MpiClient>> Create(const MpiClientOptions& options = {});
  ~MpiClient() override;

  absl::string_view backend() const override { return "mpi"; }
  int num_devices() const override { return size_; }
  const std::vector<int>& addressable_devices() const override { return addressable_; }
  bool IsAddressable(int device) const override { return device == rank_; }
  Device& device(int) override { return *device_; }

  // RunOnDevices runs fn(rank) on the calling thread (the thread that initialized MPI: every
  // MPI call stays on it). Errors: fn's, prefixed "device <rank>: " (its payloads kept).

  int rank() const { return rank_; }
  double timeout_seconds() const { return timeout_seconds_; }
  void set_timeout_seconds(double seconds) { timeout_seconds_ = seconds; }
  LocalCopyThread local_copies() const { return local_copies_; }
  void set_local_copies(LocalCopyThread where) { local_copies_ = where; }
  // The CPUs this rank has to itself: the CPUs of its affinity mask (as mpirun bound it),
  // divided among the ranks on its host (same MPI processor name) whose masks share a CPU
  // with it; at least 1.
  int own_cpus() const { return own_cpus_; }
  // Whether a reshard's local part of `bytes` runs on the device's worker thread.
  bool LocalCopiesOnWorker(int64_t bytes) const;
  // Whether a timeout has left requests pending (every later call fails).
  bool broken() const;
  // MPI handles, for the MPI collectives and reshard (src/runtime/mpi_state.h).
  MpiState& state() { return *state_; }

 private:
  MpiClient(int rank, int size, const MpiClientOptions& options);
  // own_cpus(): every rank reports its host and affinity mask (MPI_Iallgather, bounded by
  // the timeout); the ranks on this host whose masks overlap this one's share its CPUs.
  static absl::StatusOr<int> OwnCpus(MpiClient& client);

  int rank_, size_;
  double timeout_seconds_;
  LocalCopyThread local_copies_;
  int own_cpus_ = 1;
  std::vector<int> addressable_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<MpiState> state_;
};

// The MPI client behind `client`, or nullptr for another backend.
MpiClient* AsMpiClient(Client& client);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_MPI_CLIENT_H_
