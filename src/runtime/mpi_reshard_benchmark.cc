#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"
#include "runtime/mpi_reshard_benchmark.h"
#include "src/runtime/mpi_state.h"
#include "src/runtime/mpi_timing.h"

namespace axe::runtime {

using relayout::CheckOutcome;
using relayout::ElementBytes;

namespace {

std::vector<uint8_t> GeneratedData(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> data(bytes);
  std::mt19937_64 rng(seed);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v = rng();
    std::memcpy(data.data() + i, &v, 8);
  }
  for (; i < bytes; ++i) data[i] = static_cast<uint8_t>(rng());
  return data;
}

// The plain exchange of the plan's bytes: per pair of ranks, one block of the bytes the plan
// sends between them, by MPI_Ialltoallv of unpacked buffers. With `with_local`, each rank
// also sends itself a block of the bytes its local copies write (MPI copies it in memory):
// every byte the reshard writes, as the in-process baseline counts them.
struct Exchange {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<uint8_t> send, receive;
};

absl::StatusOr<Exchange> MakeExchange(const ReshardPlan& plan, int rank, int ranks,
                                      bool with_local) {
  Exchange e;
  std::vector<int64_t> to(static_cast<size_t>(ranks), 0), from(static_cast<size_t>(ranks), 0);
  for (const ReshardMessage& m : plan.messages) {
    if (m.src_device == rank) to[static_cast<size_t>(m.dst_device)] += m.bytes;
    if (m.dst_device == rank) from[static_cast<size_t>(m.src_device)] += m.bytes;
  }
  for (const ReshardMessage& m : plan.local_copies) {
    if (with_local && m.dst_device == rank) {
      to[static_cast<size_t>(rank)] += m.bytes;
      from[static_cast<size_t>(rank)] += m.bytes;
    }
  }
  int64_t sent = 0, received = 0;
  for (int r = 0; r < ranks; ++r) {
    const auto i = static_cast<size_t>(r);
    AXE_ASSIGN_OR_RETURN(int s, MpiCount(to[i], "the exchange"));
    AXE_ASSIGN_OR_RETURN(int v, MpiCount(from[i], "the exchange"));
    AXE_ASSIGN_OR_RETURN(int sd, MpiCount(sent, "the exchange"));
    AXE_ASSIGN_OR_RETURN(int rd, MpiCount(received, "the exchange"));
    e.send_counts.push_back(s);
    e.recv_counts.push_back(v);
    e.send_displs.push_back(sd);
    e.recv_displs.push_back(rd);
    sent += s;
    received += v;
  }
  e.send.assign(static_cast<size_t>(sent), 1);
  e.receive.assign(static_cast<size_t>(received), 0);
  return e;
}

absl::Status RunExchange(MpiClient& client, Exchange& e) {
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Ialltoallv(e.send.data(), e.send_counts.data(), e.send_displs.data(), MPI_BYTE,
                               e.receive.data(), e.recv_counts.data(), e.recv_displs.data(),
                               MPI_BYTE, client.state().world, req.data()),
                "MPI_Ialltoallv"));
  absl::Status s = WaitAll(client, req, "the MPI_Alltoallv baseline");
  if (!s.ok()) client.state().KeepAlive(std::move(e));
  return s;
}

// The naive reshard's data movement: every rank's source shard to rank 0, then every target
// shard from rank 0 (no relayout: a lower bound on its time).
struct GatherScatter {
  std::vector<int> counts_in, displs_in, counts_out, displs_out;
  std::vector<uint8_t> mine_in, mine_out, root;
  int64_t crossing_bytes = 0;
};

absl::StatusOr<GatherScatter> MakeGatherScatter(MpiClient& client, int64_t src_bytes,
                                                int64_t dst_bytes, int mesh_devices) {
  GatherScatter g;
  const int ranks = client.num_devices();
  int64_t in = 0, out = 0;
  for (int r = 0; r < ranks; ++r) {
    const int64_t s = r < mesh_devices ? src_bytes : 0, d = r < mesh_devices ? dst_bytes : 0;
    AXE_ASSIGN_OR_RETURN(int sc, MpiCount(s, "the gather"));
    AXE_ASSIGN_OR_RETURN(int dc, MpiCount(d, "the scatter"));
    AXE_ASSIGN_OR_RETURN(int si, MpiCount(in, "the gather"));
    AXE_ASSIGN_OR_RETURN(int di, MpiCount(out, "the scatter"));
    g.counts_in.push_back(sc);
    g.displs_in.push_back(si);
    g.counts_out.push_back(dc);
    g.displs_out.push_back(di);
    in += s;
    out += d;
    if (r != 0) g.crossing_bytes += s + d;
  }
  const int me = client.rank();
  g.mine_in.assign(static_cast<size_t>(g.counts_in[static_cast<size_t>(me)]), 1);
  g.mine_out.assign(static_cast<size_t>(g.counts_out[static_cast<size_t>(me)]), 0);
  if (me == 0) g.root.assign(static_cast<size_t>(std::max(in, out)), 0);
  return g;
}

absl::Status RunGatherScatter(MpiClient& client, GatherScatter& g) {
  std::vector<MPI_Request> req(1);
  const int me = client.rank();
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Igatherv(g.mine_in.data(), g.counts_in[static_cast<size_t>(me)], MPI_BYTE,
                             g.root.data(), g.counts_in.data(), g.displs_in.data(), MPI_BYTE, 0,
                             client.state().world, req.data()),
                "MPI_Igatherv"));
  absl::Status s = WaitAll(client, req, "the gather baseline");
  if (s.ok()) {
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Iscatterv(g.root.data(), g.counts_out.data(), g.displs_out.data(), MPI_BYTE,
                                g.mine_out.data(), g.counts_out[static_cast<size_t>(me)], MPI_BYTE,
                                0, client.state().world, req.data()),
                  "MPI_Iscatterv"));
    s = WaitAll(client, req, "the scatter baseline");
  }
  if (!s.ok()) client.state().KeepAlive(std::move(g));
  return s;
}

// Compares this rank's target shard with the host data sliced to its box; passed only when
// every rank's does.
absl::StatusOr<CheckOutcome> CheckAll(MpiClient& client, const std::vector<uint8_t>& host,
                                      const Array& out) {
  std::vector<int64_t> failed{0};
  if (out.shard_buffer(client.rank()) != nullptr) {
    AXE_ASSIGN_OR_RETURN(Array expected,
                         Array::DevicePut(client, host, out.shape(), out.dtype(), out.format()));
    AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> got, out.ShardToHost(client.rank()));
    AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> want, expected.ShardToHost(client.rank()));
    failed[0] = got == want ? 0 : 1;
  }
  AXE_RETURN_IF_ERROR(MpiAllreduceInPlace(client, failed, MPI_SUM, "the check"));
  return failed[0] == 0 ? CheckOutcome::kPassed : CheckOutcome::kFailed;
}

}  // namespace

absl::StatusOr<MpiReshardBenchmarkResult> BenchmarkMpiReshard(
    MpiClient& client, absl::Span<const int64_t> shape, DType dtype, const sharding::Format& from,
    const sharding::Format& to, const MpiReshardBenchmarkOptions& options) {
  if (options.runs < 1 || options.runs > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("runs: must be between 1 and 1000, got ", options.runs));
  }
  // Every option that changes the messages: a rank that alone checks, or stages in other
  // rounds, or runs more times, would wait for messages the others never send.
  AXE_RETURN_IF_ERROR(AgreeOnCall(
      client, "reshard benchmark",
      absl::StrCat("{", options.runs, " runs, ", options.check ? "check" : "no check", ", staging ",
                   options.staging_bytes, " bytes, seed ", options.seed, "}")));
  AXE_ASSIGN_OR_RETURN(int element_bytes, ElementBytes(dtype));
  MpiReshardBenchmarkResult r;
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding from_named, ArraySharding(from));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding to_named, ArraySharding(to));
  AXE_ASSIGN_OR_RETURN(r.plan, PlanReshard(shape, element_bytes, from_named, to_named));
  const int64_t global = *CheckedProduct(shape) * element_bytes;  // checked by the plan
  std::vector<uint8_t> host = GeneratedData(static_cast<size_t>(global), options.seed);
  AXE_ASSIGN_OR_RETURN(Array array, Array::DevicePut(client, host, shape, dtype, from));
  const ReshardOptions staged{ReshardTransport::kStaged, options.staging_bytes};
  AXE_ASSIGN_OR_RETURN(Array out, Reshard(array, to, staged, &r.stats));
  if (options.check) {
    AXE_ASSIGN_OR_RETURN(r.check, CheckAll(client, host, out));
  }
  host = {};
  AXE_ASSIGN_OR_RETURN(Exchange exchange,
                       MakeExchange(r.plan, client.rank(), client.num_devices(), false));
  AXE_ASSIGN_OR_RETURN(Exchange exchange_local,
                       MakeExchange(r.plan, client.rank(), client.num_devices(), true));
  const int mesh_devices = static_cast<int>(
      std::min<int64_t>(std::max(from_named.mesh().num_devices(), to_named.mesh().num_devices()),
                        client.num_devices()));
  AXE_ASSIGN_OR_RETURN(GatherScatter naive, MakeGatherScatter(client, array.shard_bytes(),
                                                              out.shard_bytes(), mesh_devices));
  r.gather_scatter_bytes = naive.crossing_bytes;
  r.seconds = r.alltoallv_seconds = r.alltoallv_local_seconds = r.gather_scatter_seconds = 1e300;
  for (r.runs = 0; r.runs < options.runs; ++r.runs) {
    AXE_ASSIGN_OR_RETURN(double a, internal::TimedOnEveryRank(
                                       client, [&] { return RunExchange(client, exchange); }));
    AXE_ASSIGN_OR_RETURN(double b, internal::TimedOnEveryRank(client, [&] {
                           return ReshardInto(array, out, r.plan, staged);
                         }));
    AXE_ASSIGN_OR_RETURN(double c, internal::TimedOnEveryRank(
                                       client, [&] { return RunGatherScatter(client, naive); }));
    AXE_ASSIGN_OR_RETURN(double d, internal::TimedOnEveryRank(client, [&] {
                           return RunExchange(client, exchange_local);
                         }));
    r.alltoallv_seconds = std::min(r.alltoallv_seconds, a);
    r.alltoallv_local_seconds = std::min(r.alltoallv_local_seconds, d);
    r.seconds = std::min(r.seconds, b);
    r.gather_scatter_seconds = std::min(r.gather_scatter_seconds, c);
  }
  const auto v = static_cast<double>(r.plan.v_min_bytes);
  r.gbps = r.seconds > 0 ? v / r.seconds / 1e9 : 0;
  r.alltoallv_gbps = r.alltoallv_seconds > 0 ? v / r.alltoallv_seconds / 1e9 : 0;
  return r;
}

}  // namespace axe::runtime
