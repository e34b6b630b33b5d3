#include "axe/runtime/reshard_plan.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"

namespace axe::runtime {

using relayout::BoxElements;
using relayout::IndexBox;
using relayout::Intersect;
using relayout::Subtract;

namespace {

using sharding::DeviceShard;

constexpr int64_t kMaxPairs = int64_t{1} << 24;

// The source boxes, each with the devices that hold it (increasing ids).
struct SourceBox {
  IndexBox box;
  std::vector<int64_t> devices;
};

absl::Status CheckMap(absl::Span<const int64_t> shape, absl::Span<const DeviceShard> map,
                      absl::string_view what) {
  std::vector<int64_t> seen;
  for (const DeviceShard& s : map) {
    if (s.device < 0 || s.device >= (int64_t{1} << 20)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " map: device id ", s.device, " is outside [0, 2^20)"));
    }
    seen.push_back(s.device);
    if (s.index.size() != shape.size()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " map: device ", s.device, "'s box ",
                                                     s.IndexToString(), " has rank ",
                                                     s.index.size(), ", the array ", shape.size()));
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      if (s.index[i].begin < 0 || s.index[i].end < s.index[i].begin || s.index[i].end > shape[i]) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " map: device ", s.device, "'s box ", s.IndexToString(),
                         " leaves the array in dimension ", i, " (size ", shape[i], ")"));
      }
    }
  }
  std::sort(seen.begin(), seen.end());
  auto dup = std::adjacent_find(seen.begin(), seen.end());
  if (dup != seen.end()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " map lists device ", *dup, " twice"));
  }
  return absl::OkStatus();
}

// Groups the source map's devices by box and checks that the boxes tile the array.
absl::StatusOr<std::vector<SourceBox>> SourceBoxes(absl::Span<const DeviceShard> from,
                                                   int64_t total) {
  std::map<std::vector<int64_t>, size_t> index;
  std::vector<SourceBox> boxes;
  for (const DeviceShard& s : from) {
    IndexBox box = s.index;
    if (BoxElements(box).value_or(1) == 0) continue;
    std::vector<int64_t> key;
    for (const Interval& r : box) key.insert(key.end(), {r.begin, r.end});
    auto [it, inserted] = index.emplace(std::move(key), boxes.size());
    if (inserted) boxes.push_back({std::move(box), {}});
    boxes[it->second].devices.push_back(s.device);
  }
  if (static_cast<double>(boxes.size()) * static_cast<double>(boxes.size()) >
      static_cast<double>(kMaxPairs)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many distinct source boxes to plan: ", boxes.size()));
  }
  int64_t covered = 0;
  for (size_t a = 0; a < boxes.size(); ++a) {
    std::sort(boxes[a].devices.begin(), boxes[a].devices.end());
    covered += *BoxElements(boxes[a].box);  // each within the array: no overflow
    for (size_t b = 0; b < a; ++b) {
      if (Intersect(boxes[a].box, boxes[b].box).has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("source boxes ", BoxToString(boxes[b].box),
                                                       " and ", BoxToString(boxes[a].box),
                                                       " overlap without being equal"));
      }
    }
  }
  if (covered != total) {
    return absl::InvalidArgumentError(absl::StrCat("the source boxes hold ", covered, " of the ",
                                                   total, " elements of the array"));
  }
  return boxes;
}

// A piece of a box some device lacks, with the devices that can send it.
struct Piece {
  int64_t dst = 0;
  IndexBox box;
  int64_t elements = 0;
  const std::vector<int64_t>* senders = nullptr;
};

// Chooses each piece's sender: largest pieces first, each to the candidate that has sent
// the fewest bytes so far (then the smallest id).
void AssignSenders(std::vector<Piece>& pieces, ReshardPlan& plan) {
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Piece& a, const Piece& b) { return a.elements > b.elements; });
  for (Piece& p : pieces) {
    int64_t best = p.senders->front();
    for (int64_t s : *p.senders) {
      if (plan.bytes_sent[static_cast<size_t>(s)] < plan.bytes_sent[static_cast<size_t>(best)]) {
        best = s;
      }
    }
    int64_t bytes = p.elements * plan.element_bytes;
    plan.bytes_sent[static_cast<size_t>(best)] += bytes;
    plan.bytes_received[static_cast<size_t>(p.dst)] += bytes;
    plan.messages.push_back({best, p.dst, std::move(p.box), bytes});
  }
  std::stable_sort(plan.messages.begin(), plan.messages.end(),
                   [](const ReshardMessage& a, const ReshardMessage& b) {
                     return std::tie(a.dst_device, a.src_device) <
                            std::tie(b.dst_device, b.src_device);
                   });
}

}  // namespace

int64_t ReshardPlan::max_bytes_sent() const {
  int64_t m = 0;
  for (int64_t b : bytes_sent) m = std::max(m, b);
  return m;
}

absl::StatusOr<ReshardPlan> PlanReshard(absl::Span<const int64_t> shape, int element_bytes,
                                        absl::Span<const DeviceShard> from,
                                        absl::Span<const DeviceShard> to) {
  if (element_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("element size ", element_bytes, " bytes"));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has negative size ", shape[i]));
    }
  }
  std::optional<int64_t> total = CheckedProduct(shape);
  if (!total || !CheckedMul(*total, element_bytes)) {
    return absl::InvalidArgumentError("the array's size overflows int64");
  }
  AXE_RETURN_IF_ERROR(CheckMap(shape, from, "source"));
  AXE_RETURN_IF_ERROR(CheckMap(shape, to, "target"));
  AXE_ASSIGN_OR_RETURN(std::vector<SourceBox> sources, SourceBoxes(from, *total));
  if (static_cast<double>(to.size()) * static_cast<double>(sources.size()) >
      static_cast<double>(kMaxPairs)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many device x source-box pairs: ", to.size(), " x ", sources.size()));
  }
  ReshardPlan plan;
  plan.shape.assign(shape.begin(), shape.end());
  plan.element_bytes = element_bytes;
  int64_t max_device = -1;
  for (const DeviceShard& s : from) max_device = std::max(max_device, s.device);
  for (const DeviceShard& s : to) max_device = std::max(max_device, s.device);
  const auto devices = static_cast<size_t>(max_device + 1);
  plan.bytes_sent.assign(devices, 0);
  plan.bytes_received.assign(devices, 0);
  plan.bytes_kept.assign(devices, 0);
  std::vector<const DeviceShard*> held(devices, nullptr);
  for (const DeviceShard& s : from) held[static_cast<size_t>(s.device)] = &s;

  std::vector<Piece> pieces;
  for (const DeviceShard& t : to) {
    const IndexBox& target = t.index;
    std::vector<IndexBox> lacking{target};
    if (const DeviceShard* s = held[static_cast<size_t>(t.device)]; s != nullptr) {
      const IndexBox& own = s->index;
      if (std::optional<IndexBox> keep = Intersect(target, own)) {
        int64_t bytes = *BoxElements(*keep) * element_bytes;  // within the array
        std::optional<int64_t> sum = CheckedAdd(plan.local_bytes, bytes);
        if (!sum) return absl::InvalidArgumentError("the local bytes overflow int64");
        plan.bytes_kept[static_cast<size_t>(t.device)] += bytes;
        plan.local_bytes = *sum;
        plan.local_copies.push_back({t.device, t.device, std::move(*keep), bytes});
      }
      lacking = Subtract(target, own);
    }
    for (const IndexBox& need : lacking) {
      for (const SourceBox& src : sources) {
        std::optional<IndexBox> piece = Intersect(need, src.box);
        if (!piece) continue;
        int64_t n = *BoxElements(*piece);
        std::optional<int64_t> sum = CheckedAdd(plan.v_min_elements, n);
        if (!sum) return absl::InvalidArgumentError("V_min overflows int64");
        plan.v_min_elements = *sum;
        pieces.push_back({t.device, std::move(*piece), n, &src.devices});
      }
    }
  }
  std::optional<int64_t> v_min_bytes = CheckedMul(plan.v_min_elements, element_bytes);
  if (!v_min_bytes) return absl::InvalidArgumentError("V_min in bytes overflows int64");
  plan.v_min_bytes = *v_min_bytes;  // bounds every per-device sum below
  AssignSenders(pieces, plan);
  return plan;
}

absl::StatusOr<ReshardPlan> PlanReshard(absl::Span<const int64_t> shape, int element_bytes,
                                        const sharding::NamedSharding& from,
                                        const sharding::NamedSharding& to) {
  AXE_RETURN_IF_ERROR(from.CheckShape(shape, "the source values"));
  AXE_RETURN_IF_ERROR(to.CheckShape(shape, "the target values"));
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> src, sharding::DevicesIndicesMap(from, shape));
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> dst, sharding::DevicesIndicesMap(to, shape));
  AXE_ASSIGN_OR_RETURN(ReshardPlan plan, PlanReshard(shape, element_bytes, src, dst));
  plan.from = from.ToString();
  plan.to = to.ToString();
  return plan;
}

std::string ReshardPlan::ToString(int max_messages) const {
  std::string shape_text;
  for (size_t i = 0; i < shape.size(); ++i) {
    absl::StrAppend(&shape_text, i ? ", " : "", shape[i]);
  }
  std::string out = absl::StrCat("reshard (", shape_text, ") x ", element_bytes,
                                 " B: ", from.empty() ? "source map" : from, " -> ",
                                 to.empty() ? "target map" : to, "\n");
  absl::StrAppend(&out, "  V_min ", v_min_bytes, " bytes (", v_min_elements, " elements) in ",
                  messages.size(), " messages; kept locally ", local_bytes, " bytes in ",
                  local_copies.size(), " copies\n");
  for (size_t d = 0; d < bytes_sent.size(); ++d) {
    absl::StrAppend(&out, "  device ", d, ": sends ", bytes_sent[d], " B, receives ",
                    bytes_received[d], " B, keeps ", bytes_kept[d], " B\n");
  }
  int shown = 0;
  for (const ReshardMessage& m : messages) {
    if (shown++ == max_messages) {
      absl::StrAppend(&out, "  ... ", messages.size() - static_cast<size_t>(max_messages),
                      " more messages\n");
      break;
    }
    absl::StrAppend(&out, "  message ", m.src_device, " -> ", m.dst_device, ": ",
                    BoxToString(m.box), " ", m.bytes, " B\n");
  }
  return out;
}

}  // namespace axe::runtime
