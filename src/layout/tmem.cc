#include "axe/layout/tmem.h"

#include "absl/strings/str_cat.h"
#include "axe/layout/canonical.h"

namespace axe {

absl::Span<const AxisCatalogEntry> TmemAxisNames() {
  static constexpr AxisCatalogEntry kNames[] = {{"TCol", AxisKind::kMemory},
                                                {"TLane", AxisKind::kMemory},
                                                {"Col", AxisKind::kMemory},
                                                {"Lane", AxisKind::kMemory}};
  return kNames;
}

namespace {

absl::Status Positive(int64_t v, absl::string_view what) {
  if (v >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " must be >= 1, got ", v));
}

}  // namespace

Axis TmemLaneAxis() { return Axis::Get("TLane"); }
Axis TmemColumnAxis() { return Axis::Get("TCol"); }

absl::StatusOr<Layout> TmemDatapathD(int64_t n) {
  if (absl::Status s = Positive(n, "TMEM datapath D: N"); !s.ok()) return s;
  return Layout::Create({{kTmemLanes, 1, TmemLaneAxis()}, {n, 1, TmemColumnAxis()}});
}

absl::StatusOr<Layout> TmemDatapathF(int64_t n, int sub_slab) {
  if (absl::Status s = Positive(n, "TMEM datapath F: N"); !s.ok()) return s;
  if (sub_slab != 0 && sub_slab != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TMEM datapath F: sub_slab must be 0 or 1, got ", sub_slab));
  }
  const Axis lane = TmemLaneAxis();
  PhysCoord offset;
  offset.set(lane, 16 * sub_slab);
  return Layout::Create({{4, 32, lane}, {16, 1, lane}, {n, 1, TmemColumnAxis()}}, {}, offset);
}

absl::StatusOr<Layout> TmemDatapathBE(int64_t n) {
  if (n < 2 || n % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("TMEM datapath B/E: N = ", n, " must be even and >= 2"));
  }
  const Axis lane = TmemLaneAxis();
  return Layout::Create({{64, 1, lane}, {2, 64, lane}, {n / 2, 1, TmemColumnAxis()}});
}

absl::StatusOr<Layout> TmemDatapathG(int64_t n) {
  if (n < 4 || n % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("TMEM datapath G: N = ", n, " must be a positive multiple of 4"));
  }
  const Axis lane = TmemLaneAxis();
  return Layout::Create({{32, 1, lane}, {4, 32, lane}, {n / 4, 1, TmemColumnAxis()}});
}

absl::StatusOr<Layout> Tmem32x32bAtom(int64_t k, Axis reg) {
  if (absl::Status s = Positive(k, "TMEM 32x32b atom: K"); !s.ok()) return s;
  return Layout::Create({{kTmemLanes, 1, Axis::Get("tid_in_wg")}, {k, 1, reg}});
}

absl::StatusOr<Layout> TmemScaleFactors(int64_t rows, int64_t sf) {
  if (rows < 32 || rows % 32 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("TMEM scale factors: rows = ", rows, " must be a positive multiple of 32"));
  }
  if (absl::Status s = Positive(sf, "TMEM scale factors: sf"); !s.ok()) return s;
  const Axis lane = TmemLaneAxis(), col = TmemColumnAxis();
  absl::StatusOr<Layout> l =
      Layout::Create({{rows / 32, sf, col}, {32, 1, lane}, {sf, 1, col}}, {{4, 32, lane}});
  if (!l.ok()) return l.status();
  return Canonicalize(*l);  // drops the unit iter when rows == 32
}

absl::StatusOr<Layout> TmemStagedAccumulator(int64_t stages, int64_t n, Axis lane, Axis col) {
  if (absl::Status s = Positive(stages, "TMEM accumulator: stages"); !s.ok()) return s;
  if (absl::Status s = Positive(n, "TMEM accumulator: N"); !s.ok()) return s;
  if (n > 512 || stages > 512 / n) {
    return absl::InvalidArgumentError(absl::StrCat("TMEM accumulator: ", stages, " stages of ", n,
                                                   " columns exceed the 512 TMEM columns"));
  }
  return Layout::Create({{stages, n, col}, {kTmemLanes, 1, lane}, {n, 1, col}});
}

}  // namespace axe
