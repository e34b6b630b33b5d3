#include "axe/layout/trainium.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"

namespace axe {

absl::Span<const AxisCatalogEntry> TrainiumAxisNames() {
  static constexpr AxisCatalogEntry kNames[] = {
      {"P", AxisKind::kMemory}, {"F", AxisKind::kMemory}, {"Bank", AxisKind::kMemory}};
  return kNames;
}

absl::StatusOr<Layout> Trainium(absl::string_view pattern, absl::Span<const int64_t> shape) {
  const Axis p_axis = Axis::Get("P"), f_axis = Axis::Get("F");
  if (pattern.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("trainium: the pattern \"", pattern, "\" has ",
                                                   pattern.size(), " letters but the shape ",
                                                   FormatTuple(shape), " has rank ", shape.size()));
  }
  int p_dims = 0;
  for (size_t d = 0; d < pattern.size(); ++d) {
    if (pattern[d] != 'P' && pattern[d] != 'F') {
      return absl::InvalidArgumentError(absl::StrCat("trainium: pattern \"", pattern,
                                                     "\" position ", d, ": expected 'P' or 'F'"));
    }
    if (shape[d] < 1)
      return absl::InvalidArgumentError(
          absl::StrCat("trainium: dimension ", d, " has size ", shape[d]));
    p_dims += pattern[d] == 'P';
  }
  // The single P dimension > 128 is split; its high part is the outermost F component.
  int64_t high = 1;
  int64_t p_total = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (pattern[d] != 'P') continue;
    if (p_dims == 1 && shape[d] > kTrainiumPartitions) {
      if (shape[d] % kTrainiumPartitions != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("trainium: the P dimension ", d, " (", shape[d],
                         ") is split over 128 partitions and must be a multiple of 128"));
      }
      high = shape[d] / kTrainiumPartitions;
      p_total = kTrainiumPartitions;
    } else {
      p_total *= shape[d];
      if (p_total > kTrainiumPartitions) {
        return absl::InvalidArgumentError(absl::StrCat("trainium: the P dimensions of ",
                                                       FormatTuple(shape),
                                                       " need more than 128 partitions"));
      }
    }
  }
  // Row-major strides per axis, from the last dimension.
  std::vector<std::vector<Iter>> per_dim(shape.size());
  int64_t p_stride = 1, f_stride = 1;
  std::optional<size_t> split_dim;
  for (size_t d = shape.size(); d-- > 0;) {
    if (pattern[d] == 'F') {
      per_dim[d] = {Iter{shape[d], f_stride, f_axis}};
      std::optional<int64_t> next = CheckedMul(f_stride, shape[d]);
      if (!next) return absl::InvalidArgumentError("trainium: the free dimension overflows int64");
      f_stride = *next;
    } else if (high > 1) {
      per_dim[d] = {Iter{high, 1, f_axis},
                    Iter{kTrainiumPartitions, p_stride, p_axis}};  // F stride set below
      split_dim = d;
      p_stride *= kTrainiumPartitions;
    } else {
      per_dim[d] = {Iter{shape[d], p_stride, p_axis}};
      p_stride *= shape[d];
    }
  }
  std::vector<Iter> shard;
  if (split_dim) per_dim[*split_dim][0].stride = f_stride;  // the product of all other F extents
  for (const std::vector<Iter>& iters : per_dim)
    shard.insert(shard.end(), iters.begin(), iters.end());
  absl::StatusOr<Layout> out = Layout::Create(std::move(shard));
  if (!out.ok()) return internal::Annotate(out.status(), "trainium: ");
  return out;
}

absl::StatusOr<Layout> ToPsum(const Layout& layout) {
  const Axis f = Axis::Get("F"), bank = Axis::Get("Bank");
  auto convert = [&](const std::vector<Iter>& in, absl::string_view which,
                     std::vector<Iter>& out) -> absl::Status {
    for (size_t i = 0; i < in.size(); ++i) {
      const Iter& it = in[i];
      if (it.axis != f || it.extent == 1) {
        out.push_back(it);
        continue;
      }
      auto fail = [&](absl::string_view why) {
        return absl::InvalidArgumentError(absl::StrCat("to_psum: ", which, " iter ", i, " (",
                                                       it.ToString(), ") of ", layout.ToString(),
                                                       ": ", why));
      };
      if (it.stride < 0) return fail("negative F strides are not supported");
      if (it.stride == 0) {  // a broadcast stays where it is
        out.push_back(it);
        continue;
      }
      if (it.stride % kPsumBankSize == 0) {
        out.push_back(Iter{it.extent, it.stride / kPsumBankSize, bank});
        continue;
      }
      std::optional<int64_t> reach = CheckedMul(it.extent, it.stride);
      if (reach && *reach <= kPsumBankSize) {  // stays inside one bank
        out.push_back(it);
        continue;
      }
      if (it.stride > kPsumBankSize || kPsumBankSize % it.stride != 0) {
        return fail(absl::StrCat("the stride does not divide the bank size ", kPsumBankSize));
      }
      const int64_t c = kPsumBankSize / it.stride;
      if (it.extent % c != 0) {
        return fail(absl::StrCat("the extent is not a multiple of ", c, " elements per bank"));
      }
      out.push_back(Iter{it.extent / c, 1, bank});
      out.push_back(Iter{c, it.stride, f});
    }
    return absl::OkStatus();
  };
  std::vector<Iter> shard, replica;
  AXE_RETURN_IF_ERROR(convert(layout.shard(), "shard", shard));
  AXE_RETURN_IF_ERROR(convert(layout.replica(), "replica", replica));
  PhysCoord offset = layout.offset();
  const int64_t o = offset.get(f);
  offset.set(f, FloorMod(o, kPsumBankSize));
  std::optional<int64_t> banks = CheckedAdd(offset.get(bank), FloorDiv(o, kPsumBankSize));
  if (!banks) return absl::InvalidArgumentError("to_psum: the bank offset overflows int64");
  offset.set(bank, *banks);
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  if (!out.ok()) return internal::Annotate(out.status(), "to_psum: ");
  // Every F value must stay inside its bank and every bank index in [0, 8).
  int64_t f_lo = out->offset().get(f), f_hi = f_lo, b_lo = out->offset().get(bank), b_hi = b_lo;
  for (const std::vector<Iter>* iters : {&out->shard(), &out->replica()}) {
    for (const Iter& it : *iters) {
      const int64_t reach = it.stride * (it.extent - 1);  // validated by Create
      if (it.axis == f) (reach < 0 ? f_lo : f_hi) += reach;
      if (it.axis == bank) (reach < 0 ? b_lo : b_hi) += reach;
    }
  }
  if (f_lo < 0 || f_hi >= kPsumBankSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("to_psum: ", layout.ToString(), " has F values in [", f_lo, ", ", f_hi,
                     "] inside a bank; a bank holds ", kPsumBankSize));
  }
  if (b_lo < 0 || b_hi >= kPsumBanks) {
    return absl::InvalidArgumentError(absl::StrCat("to_psum: ", layout.ToString(), " needs banks ",
                                                   b_lo, "..", b_hi, "; PSUM has ", kPsumBanks));
  }
  return *std::move(out);
}

}  // namespace axe
