// HloModuleSvg: the entry computation's instructions with shardings and collectives
// (hlo_module_picture.h).
#include "axe/picture/hlo_module_picture.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"

namespace axe::picture {
namespace hlo_module_picture {
namespace {

constexpr int64_t kRowHeight = 2 * kLineHeight + 6;
constexpr int64_t kStripWidth = 160;
constexpr size_t kMaxTextChars = 90;

std::string Clip(absl::string_view text) {
  if (text.size() <= kMaxTextChars) return std::string(text);
  return absl::StrCat(text.substr(0, kMaxTextChars - 3), "...");
}

// The palette colour of a collective opcode (its -start form shares it).
int64_t CollectiveColour(absl::string_view opcode) {
  const char* kinds[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                         "collective-permute"};
  for (int64_t i = 0; i < 5; ++i) {
    if (absl::StartsWith(opcode, kinds[i])) return 2 * i + 1;
  }
  return 0;
}

// A strip of the sharding's tiles (one cell per device group) for a tiled sharding.
void TileStrip(Svg& svg, int64_t x, int64_t y, const sharding::HloSharding& s) {
  if (s.kind() != sharding::HloSharding::Kind::kTiled || !s.tiles()) return;
  const int64_t tiles = s.tiles()->num_elements();
  int64_t replicas = 1;
  const size_t data_rank = s.TiledDataRank();
  for (size_t i = data_rank; i < s.tiles()->dims().size(); ++i) replicas *= s.tiles()->dims()[i];
  const int64_t cells = std::min<int64_t>(tiles / std::max<int64_t>(replicas, 1), 64);
  const int64_t width = std::max<int64_t>(kStripWidth / std::max<int64_t>(cells, 1), 2);
  for (int64_t c = 0; c < cells; ++c) {
    const Swatch sw = PaletteSwatch(c);
    svg.Rect({.x = x + c * width, .y = y, .width = width, .height = kLineHeight - 2}, sw.fill,
             std::string(kInk));
  }
}

}  // namespace
}  // namespace hlo_module_picture

absl::StatusOr<std::string> HloModuleSvg(const sharding::HloModuleText& module,
                                         const sharding::HloModuleSummary& summary) {
  using namespace hlo_module_picture;  // NOLINT(build/namespaces)
  if (!module.entry) return absl::InvalidArgumentError("the module has no ENTRY computation");
  const sharding::ModuleComputation& entry = module.computations[*module.entry];
  Svg svg;
  std::vector<std::string> legend = {
      absl::StrCat("module ", summary.name, ", entry ", summary.entry, ": ",
                   summary.partitioning.partitioned ? "partitioned" : "not partitioned", ", ",
                   summary.num_devices, " devices"),
      "coloured rows: collectives (all-reduce, all-gather, reduce-scatter, all-to-all, "
      "permute); strips: a sharding's tiles"};
  int64_t y = LegendLines(svg, kMargin, kMargin, legend) + 6;
  int64_t width = LinesWidth(legend);
  const size_t count = entry.end_instruction - entry.first_instruction;
  const size_t rows = std::min(count, kMaxHloPictureRows);
  for (size_t r = 0; r < rows; ++r) {
    const sharding::ModuleInstruction& ins = module.instructions[entry.first_instruction + r];
    const int64_t colour = CollectiveColour(ins.opcode);
    const std::string first = Clip(absl::StrCat(ins.is_root ? "ROOT " : "", ins.name, " = ",
                                                ins.result.ToString(), " ", ins.opcode));
    std::string second;
    if (colour != 0) {
      second = !ins.source_target_pairs.empty()
                   ? absl::StrCat("source_target_pairs=", ins.source_target_pairs)
                   : absl::StrCat("replica_groups=",
                                  ins.replica_groups.empty() ? "{}" : ins.replica_groups);
      if (ins.channel_id) absl::StrAppend(&second, ", channel_id=", *ins.channel_id);
    } else if (ins.sharding) {
      second = absl::StrCat("sharding=", ins.sharding->ToString());
    }
    second = Clip(second);
    const int64_t row_width =
        std::max(TextWidth(first), TextWidth(second)) + 12 + (ins.sharding ? kStripWidth + 12 : 0);
    if (colour != 0) {
      const Swatch sw = PaletteSwatch(colour);
      svg.Rect({.x = kMargin, .y = y, .width = row_width, .height = kRowHeight - 4}, sw.fill,
               std::string(kInk));
      svg.Text(kMargin + 6, y + kLineHeight - 2, first, sw.text);
      svg.Text(kMargin + 6, y + 2 * kLineHeight - 2, second, sw.text);
    } else {
      svg.Rect({.x = kMargin, .y = y, .width = row_width, .height = kRowHeight - 4},
               std::string(kEmptyFill), std::string(kEmptyFill));
      svg.Text(kMargin + 6, y + kLineHeight - 2, first, std::string(kInk));
      if (!second.empty())
        svg.Text(kMargin + 6, y + 2 * kLineHeight - 2, second, std::string(kInk));
    }
    if (ins.sharding) {
      TileStrip(svg, kMargin + row_width - kStripWidth - 6, y + 3, *ins.sharding);
    }
    width = std::max(width, row_width);
    y += kRowHeight;
  }
  if (rows < count) {
    y = LegendLines(svg, kMargin, y,
                    {absl::StrCat("... ", count - rows, " more instructions not drawn")});
  }
  return svg.Finish(absl::StrCat("HLO module ", summary.name), width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
