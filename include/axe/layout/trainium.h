// Layouts of AWS Trainium on-chip memory: SBUF and PSUM are 128 partitions (memory axis `P`)
// by a free dimension (`F`); PSUM further splits F into 8 banks (`Bank`) of 512 fp32.
//
//   Trainium("PF", {256, 512})            // S[(2,128,512):(512@F,1@P,1@F)]
//   ToPsum(S[(1024,8):(1@F,1@P)])         // S[(2,512,8):(1@Bank,1@F,1@P)]
#ifndef AXE_LAYOUT_TRAINIUM_H_
#define AXE_LAYOUT_TRAINIUM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"

namespace axe {

// The axis names of Trainium in the standard catalogue: the memory axes P (SBUF/PSUM
// partition), F (free dimension) and Bank (PSUM bank).
absl::Span<const AxisCatalogEntry> TrainiumAxisNames();

inline constexpr int64_t kTrainiumPartitions = 128;
inline constexpr int64_t kPsumBankSize = 512;  // fp32 elements per bank and partition
inline constexpr int64_t kPsumBanks = 8;

// A layout on `shape` from a pattern over {P, F}, one letter per dimension: P dimensions get
// row-major strides among the P dimensions on axis P, F dimensions row-major strides among
// the F dimensions on axis F. A single P dimension larger than 128 is split into (d/128, 128):
// the 128 part stays on P and the high part becomes the outermost F component (its F stride
// is the product of all other F extents). Errors: the pattern's length differs from the
// rank or has another letter; more than 128 partitions otherwise; a split P dimension not a
// multiple of 128.
absl::StatusOr<Layout> Trainium(absl::string_view pattern, absl::Span<const int64_t> shape);

// Moves an SBUF-style layout to PSUM banks: an F iter (shard or replica) whose stride is a
// multiple of 512 moves to Bank with stride s/512; an F iter (e, s@F) with s < 512 < e s is
// split into (e/c, 1@Bank), (c, s@F) with c = 512/s. An F offset o becomes (o / 512)@Bank +
// (o % 512)@F. Errors (naming the iter): a negative F stride, s not dividing 512 or c not
// dividing e, an F value outside [0, 512) of its bank, or more than 8 banks.
absl::StatusOr<Layout> ToPsum(const Layout& layout);

}  // namespace axe

#endif  // AXE_LAYOUT_TRAINIUM_H_
