// Counts of the storage exec::Value allocates, for tests that hold the plan's memory figure
// (PlanStats::peak_bytes) against what a run really allocates:
//
//   exec::testing::ResetPeakStorageBytes();
//   const int64_t before = exec::testing::StorageBytesInUse();
//   ... run ...
//   const int64_t grew = exec::testing::PeakStorageBytes() - before;
//
// Bytes are the values' own sizes (not rounded to the alignment), over the whole process and
// every thread; borrowed values allocate nothing.
#ifndef AXE_EXEC_TESTING_STORAGE_COUNT_H_
#define AXE_EXEC_TESTING_STORAGE_COUNT_H_

#include <cstdint>

namespace axe::exec::testing {

// Bytes of value storage allocated and not yet freed.
int64_t StorageBytesInUse();
// The most StorageBytesInUse() has been since the last reset.
int64_t PeakStorageBytes();
// Starts a new peak at the bytes in use now.
void ResetPeakStorageBytes();

}  // namespace axe::exec::testing

#endif  // AXE_EXEC_TESTING_STORAGE_COUNT_H_
