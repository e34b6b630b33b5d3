// What MPI itself costs for the exchange a rows -> columns reshard makes on two ranks: each
// rank keeps half of its rows' bytes and sends the other half, a strided box (`rows` half
// rows of `row_bytes`, a full row apart). Times, best of `runs`, barrier to barrier:
//   contiguous      the same bytes as one contiguous message each way (the baseline's copy)
//   vector          the strided half rows as one MPI_Type_vector message each way
//   local           the kept half rows copied by memcpy (no MPI)
//   vector+local    both, the local copy between posting the messages and waiting for them
//   pack+contiguous the half rows packed by memcpy, sent contiguous, then the local copy
// These are the floors docs/performance.md compares the reshard with ("Third look"):
//
//   mpirun -n 2 --allow-run-as-root --mca btl self,vader build/release/bench/mpi_exchange_floor
//       [rows row_bytes runs]     (default 2048 8192 30: 16 MiB each way, as 4096^2 f32)
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

struct Buffers {
  int64_t rows, row_bytes;
  std::vector<char> shard;   // rows x 2 * row_bytes: this rank's source rows
  std::vector<char> target;  // rows x row_bytes received
  std::vector<char> kept;    // rows x row_bytes copied locally
  std::vector<char> packed;  // rows x row_bytes staged for a contiguous send
};

void CopyHalfRows(const Buffers& b, int64_t half, char* out) {
  for (int64_t i = 0; i < b.rows; ++i) {
    std::memcpy(out + i * b.row_bytes, b.shard.data() + (2 * i + half) * b.row_bytes,
                static_cast<size_t>(b.row_bytes));
  }
}

// Posts the receive and the send of `count` items of `type` at `send`, runs `meanwhile`,
// waits.
void Exchange(Buffers& b, const void* send, int count, MPI_Datatype type, int peer,
              const std::function<void()>& meanwhile) {
  MPI_Request requests[2];
  MPI_Irecv(b.target.data(), static_cast<int>(b.rows * b.row_bytes), MPI_BYTE, peer, 0,
            MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(send, count, type, peer, 0, MPI_COMM_WORLD, &requests[1]);
  meanwhile();
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

double Best(int runs, const std::function<void()>& step) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    step();
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, MPI_Wtime() - start);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int64_t row_bytes = argc > 2 ? std::atoll(argv[2]) : 8192;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 30;
  // At most 1 GiB each way, and row strides that fit MPI's int counts.
  const int64_t max_bytes = int64_t{1} << 30;
  if (size != 2 || rows < 1 || row_bytes < 1 || row_bytes > max_bytes / 2 ||
      rows > max_bytes / row_bytes || runs < 1) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -n 2 %s [rows row_bytes runs]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const auto half = static_cast<size_t>(rows * row_bytes);
  Buffers b{rows,
            row_bytes,
            std::vector<char>(2 * half, 1),
            std::vector<char>(half, 0),
            std::vector<char>(half, 0),
            std::vector<char>(half, 0)};
  MPI_Datatype strided;
  MPI_Type_vector(static_cast<int>(rows), static_cast<int>(row_bytes),
                  static_cast<int>(2 * row_bytes), MPI_BYTE, &strided);
  MPI_Type_commit(&strided);
  const int peer = 1 - rank;
  const int bytes = static_cast<int>(half);
  // Rank 0 sends its second half rows and keeps its first; rank 1 the other way round.
  const int64_t send_half = rank == 0 ? 1 : 0, keep_half = 1 - send_half;
  const char* strided_start = b.shard.data() + send_half * row_bytes;
  auto nothing = [] {};
  auto copy_kept = [&] { CopyHalfRows(b, keep_half, b.kept.data()); };
  struct Row {
    const char* name;
    std::function<void()> step;
  };
  const Row table[] = {
      {"contiguous", [&] { Exchange(b, b.shard.data(), bytes, MPI_BYTE, peer, nothing); }},
      {"vector", [&] { Exchange(b, strided_start, 1, strided, peer, nothing); }},
      {"local", copy_kept},
      {"vector+local", [&] { Exchange(b, strided_start, 1, strided, peer, copy_kept); }},
      {"pack+contiguous",
       [&] {
         CopyHalfRows(b, send_half, b.packed.data());
         Exchange(b, b.packed.data(), bytes, MPI_BYTE, peer, copy_kept);
       }},
  };
  if (rank == 0) {
    std::printf("%lld half rows of %lld bytes each way (%.1f MiB), best of %d\n",
                static_cast<long long>(rows), static_cast<long long>(row_bytes),
                static_cast<double>(half) / (1 << 20), runs);
  }
  for (const Row& row : table) {
    const double seconds = Best(runs, row.step);
    if (rank == 0) std::printf("%-16s %8.3f ms\n", row.name, seconds * 1e3);
  }
  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
