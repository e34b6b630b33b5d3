// HloSharding::Parse: the sharding grammar of XLA's HLO parser (op metadata kept as text).
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "device_ids.h"

namespace axe::sharding {
namespace {

// `[a,b,...]` (at least one entry).
absl::StatusOr<std::vector<int64_t>> ReadBracketList(Scanner& s) {
  AXE_RETURN_IF_ERROR(s.Expect('['));
  std::vector<int64_t> out;
  do {
    if (static_cast<int64_t>(out.size()) >= Mesh::kMaxDevices) {
      return s.MessageAt(s.pos(), "too many entries");
    }
    AXE_ASSIGN_OR_RETURN(int64_t v, s.ReadInt());
    out.push_back(v);
  } while (s.TryConsume(','));
  AXE_RETURN_IF_ERROR(s.Expect(']'));
  return out;
}

// After `devices=`: `[dims]<=[reshape]T(perm)` or `[dims]d0,d1,...`.
absl::StatusOr<TileAssignment> ReadTileAssignment(Scanner& s) {
  const size_t start = s.pos();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadBracketList(s));
  absl::StatusOr<TileAssignment> tiles;
  if (s.TryConsume("<=")) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reshape, ReadBracketList(s));
    std::vector<int64_t> perm;
    if (s.TryConsume('T')) {
      AXE_RETURN_IF_ERROR(s.Expect('('));
      do {
        if (perm.size() >= reshape.size()) return s.MessageAt(s.pos(), "too many T entries");
        AXE_ASSIGN_OR_RETURN(int64_t p, s.ReadInt());
        perm.push_back(p);
      } while (s.TryConsume(','));
      AXE_RETURN_IF_ERROR(s.Expect(')'));
    }
    tiles = TileAssignment::Iota(std::move(dims), std::move(reshape), std::move(perm));
  } else {
    std::vector<int64_t> devices;
    std::vector<size_t> positions;  // of each id in the text
    do {
      if (static_cast<int64_t>(devices.size()) >= Mesh::kMaxDevices) {
        return s.MessageAt(s.pos(), "too many device ids");
      }
      s.SkipSpace();
      positions.push_back(s.pos());
      AXE_ASSIGN_OR_RETURN(int64_t d, s.ReadInt());
      devices.push_back(d);
    } while (s.TryConsume(','));
    if (std::optional<BadDeviceId> bad = FindBadDeviceId(devices)) {
      return s.MessageAt(positions[bad->index], bad->error.message());
    }
    tiles = TileAssignment::Explicit(std::move(dims), std::move(devices));
  }
  if (!tiles.ok()) return s.MessageAt(start, tiles.status().message());
  return tiles;
}

// After `last_tile_dims=`: `{manual, replicated, ...}`.
absl::StatusOr<std::vector<HloSharding::SubgroupType>> ReadSubgroups(Scanner& s) {
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  std::vector<HloSharding::SubgroupType> out;
  do {
    s.SkipSpace();
    const size_t at = s.pos();
    std::optional<absl::string_view> word = s.TryIdent();
    if (out.size() >= 64) return s.MessageAt(at, "too many subgroup types");
    if (word == "manual") {
      out.push_back(HloSharding::SubgroupType::kManual);
    } else if (word == "replicated") {
      out.push_back(HloSharding::SubgroupType::kReplicated);
    } else if (word == "maximal") {
      out.push_back(HloSharding::SubgroupType::kMaximal);
    } else if (word == "unreduced") {
      out.push_back(HloSharding::SubgroupType::kUnreduced);
    } else {
      return s.ErrorAt(at, "manual, replicated, maximal or unreduced");
    }
  } while (s.TryConsume(','));
  AXE_RETURN_IF_ERROR(s.Expect('}'));
  return out;
}

// One metadata entry's `key=value ...` list up to (not including) its closing '}': values are
// quoted strings (backslash escapes kept as written) or plain tokens. Returns the entry with
// single spaces between its items, as XLA prints it.
absl::StatusOr<std::string> ReadMetadataItems(Scanner& s) {
  std::string out;
  const absl::string_view text = s.text();
  while (!s.AtEnd() && s.Peek() != '}') {
    const size_t key_pos = s.pos();
    std::optional<absl::string_view> key = s.TryIdent();
    if (!key || !s.TryConsume('=')) return s.ErrorAt(key_pos, "a metadata item key=value");
    size_t p = s.pos();
    const size_t value_start = p;
    if (p < text.size() && text[p] == '"') {
      for (++p; p < text.size() && text[p] != '"'; ++p) {
        if (text[p] == '\\') ++p;
      }
      if (p >= text.size()) return s.MessageAt(value_start, "unterminated string in metadata");
      ++p;
    } else {
      while (p < text.size() && !absl::ascii_isspace(text[p]) && text[p] != '}' && text[p] != '{' &&
             text[p] != ',') {
        ++p;
      }
      if (p == value_start) return s.ErrorAt(value_start, "a metadata value");
    }
    absl::StrAppend(&out, out.empty() ? "" : " ", *key, "=",
                    text.substr(value_start, p - value_start));
    s.set_pos(p);
  }
  return out;
}

// `metadata={...}` after its '=': one entry, or a list of `{...}` entries.
absl::StatusOr<std::vector<std::string>> ReadMetadata(Scanner& s) {
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  std::vector<std::string> out;
  if (s.Peek() != '{') {
    AXE_ASSIGN_OR_RETURN(std::string entry, ReadMetadataItems(s));
    AXE_RETURN_IF_ERROR(s.Expect('}'));
    out.push_back(std::move(entry));
    return out;
  }
  do {
    AXE_RETURN_IF_ERROR(s.Expect('{'));
    AXE_ASSIGN_OR_RETURN(std::string entry, ReadMetadataItems(s));
    AXE_RETURN_IF_ERROR(s.Expect('}'));
    out.push_back(std::move(entry));
  } while (s.TryConsume(','));
  AXE_RETURN_IF_ERROR(s.Expect('}'));
  return out;
}

// The sharding the attributes of one `{...}` describe.
absl::StatusOr<HloSharding> Build(const Scanner& s, size_t open, bool replicated, bool manual,
                                  bool maximal, std::optional<int64_t> device,
                                  std::optional<TileAssignment> tiles, bool last_replicate,
                                  std::vector<HloSharding::SubgroupType> subgroups) {
  if (replicated) return HloSharding::Replicated();
  if (manual) return HloSharding::Manual();
  if (maximal) {
    if (!device) return s.MessageAt(open, "maximal sharding needs device=");
    return HloSharding::Maximal(*device);
  }
  if (!tiles) return s.MessageAt(open, "expected replicated, manual, maximal or devices=");
  absl::StatusOr<HloSharding> out =
      HloSharding::Tiled(*std::move(tiles), last_replicate, std::move(subgroups));
  if (!out.ok()) return s.MessageAt(open, out.status().message());
  return out;
}

// One non-tuple sharding; its '{' already read.
absl::StatusOr<HloSharding> ReadSingle(Scanner& s, size_t open) {
  bool replicated = false, manual = false, maximal = false, last_replicate = false;
  std::optional<int64_t> device;
  std::optional<TileAssignment> tiles;
  std::vector<HloSharding::SubgroupType> subgroups;
  std::vector<std::string> metadata;
  bool unknown = false, unreduced = false;
  std::optional<HloSharding::ShardGroup> group;
  while (!s.TryConsume('}')) {
    s.SkipSpace();
    const size_t at = s.pos();
    std::optional<absl::string_view> word = s.TryIdent();
    if (word == "replicated") {
      replicated = true;
    } else if (word == "manual") {
      manual = true;
    } else if (word == "maximal") {
      maximal = true;
    } else if (word == "last_tile_dim_replicate") {
      last_replicate = true;
    } else if (word == "device" && s.TryConsume('=')) {
      s.SkipSpace();
      const size_t device_pos = s.pos();
      AXE_ASSIGN_OR_RETURN(int64_t d, s.ReadInt());
      if (absl::Status valid = CheckDeviceId(d); !valid.ok()) {
        return s.MessageAt(device_pos, valid.message());
      }
      device = d;
    } else if (word == "devices" && s.TryConsume('=')) {
      AXE_ASSIGN_OR_RETURN(TileAssignment t, ReadTileAssignment(s));
      tiles = std::move(t);
    } else if (word == "last_tile_dims" && s.TryConsume('=')) {
      AXE_ASSIGN_OR_RETURN(subgroups, ReadSubgroups(s));
    } else if (word == "metadata" && s.TryConsume('=')) {
      AXE_ASSIGN_OR_RETURN(metadata, ReadMetadata(s));
    } else if (word == "unknown") {
      unknown = true;
    } else if (word == "unreduced") {
      unreduced = true;
    } else if (word == "shard_as" || word == "shard_like") {
      s.SkipSpace();
      const size_t id_pos = s.pos();
      AXE_ASSIGN_OR_RETURN(int64_t id, s.ReadInt());
      if (id < 0) return s.MessageAt(id_pos, "a shard group id is >= 0");
      group = HloSharding::ShardGroup{word == "shard_like", id};
    } else {
      return s.ErrorAt(at, "a sharding attribute or '}'");
    }
  }
  absl::StatusOr<HloSharding> out =
      unknown     ? HloSharding::Unknown()
      : unreduced ? HloSharding::Unreduced()
                  : Build(s, open, replicated, manual, maximal, device, std::move(tiles),
                          last_replicate, std::move(subgroups));
  if (out.ok() && group) out = out->WithShardGroup(*group);
  if (!out.ok() || metadata.empty()) return out;
  return out->WithMetadata(std::move(metadata));
}

}  // namespace

absl::StatusOr<HloSharding> HloSharding::WithMetadata(std::vector<std::string> metadata) const {
  if (kind_ == Kind::kTuple && !metadata.empty()) {
    return absl::InvalidArgumentError("a tuple sharding carries no metadata (its elements do)");
  }
  HloSharding out = *this;
  out.metadata_.clear();
  for (const std::string& entry : metadata) {
    Scanner s(entry);
    AXE_ASSIGN_OR_RETURN(std::string normalized, ReadMetadataItems(s));
    if (!s.AtEnd()) return s.Error("end of the metadata entry");
    out.metadata_.push_back(std::move(normalized));
  }
  return out;
}

absl::StatusOr<HloSharding> HloSharding::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(absl::StrCat("sharding text of ", text.size(),
                                                   " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text, Scanner::Options{.skip_comments = true});
  s.SkipSpace();
  const size_t open = s.pos();
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  absl::StatusOr<HloSharding> out;
  if (s.Peek() == '{' || s.Peek() == '}') {  // a tuple (possibly empty)
    std::vector<HloSharding> elements;
    while (!s.TryConsume('}')) {
      if (!elements.empty()) AXE_RETURN_IF_ERROR(s.Expect(','));
      if (elements.size() >= kMaxTupleElements)
        return s.MessageAt(s.pos(), "too many tuple elements");
      s.SkipSpace();
      const size_t at = s.pos();
      AXE_RETURN_IF_ERROR(s.Expect('{'));
      AXE_ASSIGN_OR_RETURN(HloSharding e, ReadSingle(s, at));
      elements.push_back(std::move(e));
    }
    out = Tuple(std::move(elements));
  } else {
    out = ReadSingle(s, open);
  }
  if (out.ok() && !s.AtEnd()) return s.Error("end of input");
  return out;
}

}  // namespace axe::sharding
