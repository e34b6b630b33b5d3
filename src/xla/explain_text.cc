// The text of `axe xla explain`: ExplainText, ExplainIndexText and LeafLine.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/xla/explain.h"

namespace axe::xla {
namespace {

// "<value><suffix>", or "n/a (<why>)".
std::string Describe(const absl::StatusOr<int64_t>& v, absl::string_view suffix = "") {
  return v.ok() ? absl::StrCat(*v, suffix) : absl::StrCat("n/a (", v.status().message(), ")");
}

// One line per level, listing only the dims the level covers (linear in the tile lengths).
void AppendTiling(const ArrayExplanation& e, std::string& out) {
  for (size_t k = 0; k < e.tile_levels.size(); ++k) {
    const TileLevelFacts& l = e.tile_levels[k];
    absl::StrAppend(&out, k == 0 ? "tiling          " : "                ", "level ", k + 1, ": ",
                    l.tile, " covers the minor dims ", FormatTuple(l.covered));
    if (l.folded != l.covered) absl::StrAppend(&out, " folded to ", FormatTuple(l.folded));
    absl::StrAppend(&out, ": ", FormatTuple(l.counts), " tiles of ", FormatTuple(l.bounds), "\n");
  }
  if (!e.tile_levels.empty()) {
    absl::StrAppend(&out, "expanded shape  ", FormatTuple(e.expanded_shape),
                    " (stored row-major; the tile-level dims replace the covered ones)\n");
  }
}

void AppendAttributes(const ArrayExplanation& e, std::string& out) {
  if (e.element_size_in_bits != 0) {
    absl::StrAppend(&out, "element size    E(", e.element_size_in_bits, "): packed, ",
                    e.element_size_in_bits, " bits per element\n");
  }
  if (e.tail_padding_alignment != 1) {
    absl::StrAppend(&out, "tail padding    L(", e.tail_padding_alignment,
                    "): the element count rounds up to a ", "multiple of ",
                    e.tail_padding_alignment, "\n");
  }
  if (!e.split_configs.empty()) {
    absl::StrAppend(&out, "split configs   SC", absl::StrJoin(e.split_configs, ""),
                    " (physical dim: split indices)\n");
  }
  if (e.metadata_prefix_bytes != 0) {
    absl::StrAppend(&out, "metadata prefix M(", e.metadata_prefix_bytes,
                    "): bytes of dynamic-size metadata ", "before the data\n");
  }
}

void AppendSizes(const ArrayExplanation& e, std::string& out) {
  absl::StrAppend(
      &out, "elements_in     ", Describe(e.elements_in), "\n", "byte_size_of    ",
      Describe(e.byte_size_of, " bytes (elements x element size; ignores tiles, L, M, S)"), "\n",
      "array_size      ",
      Describe(e.array_size_bytes,
               " bytes (XLA's ArraySize: first tile level and L; no tiles: "
               "byte_size_of)"),
      "\n");
  if (e.array_size_note) absl::StrAppend(&out, "                ", *e.array_size_note, "\n");
  absl::StrAppend(&out, "padded_elements ",
                  Describe(e.padded_elements, " (the buffer after every tile level and L)"), "\n");
}

}  // namespace

std::string ExplainText(const ArrayExplanation& e) {
  if (!HasArrayFacts(e)) {
    return absl::StrCat("shape           ", e.shape, "\n", "kind            ", e.element_type, " (",
                        e.element_kind, ")\n");
  }
  const std::string unit = e.byte_width == 1 ? "byte" : "bytes";
  std::string out = absl::StrCat("shape           ", e.shape, "\n", "element type    ",
                                 e.element_type, ": ", e.element_kind, ", ", e.bit_width, " bits (",
                                 e.byte_width, " ", unit, " per element unless E(n) packs it)\n");
  if (e.invalid) {
    absl::StrAppend(&out, "invalid         ", *e.invalid, "\n");
  } else if (e.has_layout) {
    absl::StrAppend(&out, "physical order  ", e.physical_order, "\n");
    AppendTiling(e, out);
    AppendAttributes(e, out);
  }
  absl::StrAppend(&out, "memory space    ", e.memory_space, ": ", e.memory_space_description, "\n");
  AppendSizes(e, out);
  if (e.axe.ok()) {
    absl::StrAppend(&out, "axe             ", e.axe->layout.ToString(), " over ",
                    FormatTuple(e.axe->domain));
    if (e.axe->padded()) {
      absl::StrAppend(&out, " (padded domain; the real box is ", FormatTuple(e.axe->real_dims),
                      ")");
    }
    out += "\n";
  } else {
    absl::StrAppend(&out, "axe             ", e.axe.status().message(), "\n");
  }
  return out;
}

std::string ExplainIndexText(const IndexExplanation& at) {
  std::string out = absl::StrCat("index           ", FormatTuple(at.index), " -> linear offset ",
                                 at.linear_index, " (elements); byte ", at.byte_offset);
  if (at.packed) {
    absl::StrAppend(&out, ", bit ", at.bit_in_byte, " of that byte (bit offset ", at.bit_offset,
                    ")");
  }
  out += "\n";
  for (size_t k = 0; k < at.levels.size(); ++k) {
    absl::StrAppend(&out, "                level ", k + 1, ": tile ",
                    FormatTuple(at.levels[k].tile_index), ", position ",
                    FormatTuple(at.levels[k].within), " inside it\n");
  }
  return out;
}

std::string LeafLine(const LeafExplanation& leaf) {
  std::string out = absl::StrCat("{", absl::StrJoin(leaf.tuple_index, ","), "} ", leaf.shape);
  if (!leaf.array) return absl::StrCat(out, ": ", leaf.kind, "\n");
  const ArrayExplanation& a = *leaf.array;
  absl::StrAppend(&out, ": ", Describe(a.elements_in), " elements, byte_size_of ",
                  Describe(a.byte_size_of), ", array_size ", Describe(a.array_size_bytes),
                  ", padded_elements ", Describe(a.padded_elements), ", memory space ",
                  a.memory_space, " (", a.memory_space_name, "), axe ",
                  a.axe.ok()
                      ? absl::StrCat(a.axe->layout.ToString(), " over ", FormatTuple(a.axe->domain))
                      : "n/a (not expressible)",
                  "\n");
  return out;
}

}  // namespace axe::xla
