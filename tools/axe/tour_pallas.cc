// The Pallas part of `axe tour`: grids, BlockSpecs, padding, clamping, backend rules.
#include <ostream>
#include <vector>

#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/pallas/numpy_format.h"
#include "axe/pallas/pallas_call.h"
#include "axe/pallas/show_program_ids.h"
#include "axe/pallas/validate.h"
#include "tour.h"

namespace axe::cli {
namespace {

using namespace axe::pallas;  // NOLINT(build/namespaces)

// Indents every line of a printed array.
std::string Indent(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out + "\n";
}

absl::StatusOr<std::string> ShowIds(std::vector<int64_t> shape, std::vector<BlockDim> block, Grid grid,
                                    const char* index_map, std::vector<ClampEvent>* clamps = nullptr) {
  AXE_ASSIGN_OR_RETURN(IndexMapExpr e, IndexMapExpr::Parse(index_map));
  AXE_ASSIGN_OR_RETURN(AnyArray a, ShowProgramIds({DType::kS32, std::move(shape)}, std::move(block), grid,
                                                  e.ToIndexMap(), {.clamp_report = clamps}));
  return Indent(FormatNumpy(a));
}

absl::Status Grids(std::ostream& os) {
  os << "A Pallas call runs a kernel once per point of a grid (row-major, last axis fastest).\n"
        "A BlockSpec(block_shape, index_map) gives each program a window of each operand: the\n"
        "index map returns block indices, multiplied by the block size. show_program_ids fills\n"
        "each output block with its program's indices as decimal digits; an 8x6 array in 2x3\n"
        "blocks on the grid (4, 2), index map (i, j) -> (i, j), interpret mode:\n\n";
  AXE_ASSIGN_OR_RETURN(std::string spi1, ShowIds({8, 6}, {2, 3}, Grid{4, 2}, "(i, j) -> (i, j)"));
  os << spi1 << "\nWith a third grid axis the index map ignores, each block is written ten times and the\n"
                "last writer wins (grid (4, 2, 10), (i, j, k) -> (i, j)):\n\n";
  AXE_ASSIGN_OR_RETURN(std::string spi4, ShowIds({8, 6}, {2, 3}, Grid{4, 2, 10}, "(i, j, k) -> (i, j)"));
  os << spi4;
  BlockSpec spec({10, 20}, [](int64_t i, int64_t j) { return std::pair{i, j}; });
  AXE_ASSIGN_OR_RETURN(auto slices, SlicesForInvocation({100, 100}, spec, Grid{10, 5}, {2, 4}));
  os << "\nslices_for_invocation((100, 100), block (10, 20), grid (10, 5), program (2, 4)):\n    "
     << FormatSlices(slices) << "\n";
  return absl::OkStatus();
}

absl::Status Padding(std::ostream& os) {
  os << "Element(n, (lo, hi)) dims take element offsets into the array padded with lo values in\n"
        "front and hi behind. A 7x7 array, blocks (Element(2, (1, 0)), Element(3, (2, 0))), grid\n"
        "(4, 3), index map (i, j) -> (2*i, 3*j): the first row and the first two columns of each\n"
        "program's window fall into the padding, which is dropped afterwards.\n\n";
  AXE_ASSIGN_OR_RETURN(std::string out, ShowIds({7, 7}, {Element(2, {1, 0}), Element(3, {2, 0})}, Grid{4, 3},
                                                "(i, j) -> (2 * i, 3 * j)"));
  os << out;
  // Interpret mode pads inputs with the uninitialized value: NaN, or the integer minimum.
  auto copy = [](Ref<const int32_t> x, Ref<int32_t> o) {
    for (int64_t i = 0; i < o.shape(0); ++i) o(i) = x(i);
  };
  auto call = PallasCall(copy, OutShape<int32_t>{{6}},
                         {.grid = {1}, .in_specs = {BlockSpec({6}, [](int64_t) { return 0; })}});
  AXE_ASSIGN_OR_RETURN(Array<int32_t> x, Array<int32_t>::Full({3}, 42));
  AXE_ASSIGN_OR_RETURN(Array<int32_t> y, call(x));
  os << "\nA block larger than its array reads padding: copying full((3,), 42) through a block of 6\n"
        "gives (the int32 minimum marks uninitialized values):\n\n"
     << Indent(FormatNumpy(y.any()));
  return absl::OkStatus();
}

absl::Status Clamping(std::ostream& os) {
  os << "The classic mistake: returning element offsets instead of block indices. With block 4\n"
        "over 12 elements and i -> 4*i, programs 1 and 2 ask for windows past the end; interpret\n"
        "mode clamps them onto the last block (no error) and the middle stays uninitialized:\n\n";
  std::vector<ClampEvent> clamps;
  auto copy = [](Ref<const float> x, Ref<float> o) {
    for (int64_t i = 0; i < 4; ++i) o(i) = x(i);
  };
  auto offsets = [](int64_t i) { return 4 * i; };
  auto call = PallasCall(copy, OutShape<float>{{12}},
                         {.grid = {3},
                          .in_specs = {BlockSpec({4}, offsets)},
                          .out_specs = {BlockSpec({4}, offsets)},
                          .options = {.clamp_report = &clamps}});
  AXE_ASSIGN_OR_RETURN(Array<float> x, Array<float>::Iota({12}));
  AXE_ASSIGN_OR_RETURN(Array<float> y, call(x));
  os << Indent(FormatNumpy(y.any())) << "\nThe opt-in clamp report names each case:\n\n";
  for (const ClampEvent& e : clamps) os << "  " << e.ToString() << "\n";
  return absl::OkStatus();
}

absl::Status Backends(std::ostream& os) {
  os << "Backends restrict block shapes. TPU: the last two block dims divisible by 8 and 128 or\n"
        "equal to the array's; rank 1: equal, a multiple of 1024, or a power of two >= 128*packing.\n"
        "Triton: power-of-two element counts. Mosaic GPU: 16-byte rows.\n\n";
  struct Case {
    std::vector<int64_t> array;
    std::vector<BlockDim> block;
  };
  for (const Case& c : std::vector<Case>{{{16, 128}, {8, 128}}, {{9, 128}, {9, 64}}, {{3, 3}, {3, 3}},
                                         {{1024}, {128}}, {{128}, {64}}, {{4, 256}, {std::nullopt, 256}}}) {
    CallSpec spec{.in_specs = {BlockSpec(c.block)}};
    std::vector<ShapeDType> in = {{DType::kF32, c.array}};
    os << "  array " << FormatTuple(c.array, true) << ", block " << BlockShapeToString(c.block) << ":";
    for (Backend b : {Backend::kTpu, Backend::kTriton, Backend::kMosaicGpu}) {
      absl::Status s = Validate(spec, in, {}, b);
      os << "  " << BackendName(b) << " " << (s.ok() ? "ok" : "rejected");
    }
    os << "\n";
  }
  os << "\nTry: axe grid show --shape 8,6 --block 2,3 --grid 4,2\n"
        "     axe grid check --backend tpu --shape 9,128 --block 9,64 --dtype f32\n";
  return absl::OkStatus();
}

std::vector<TourSection> PallasTour() {
  return {
      {"pallas", "Pallas grids and BlockSpecs: show_program_ids", Grids},
      {"pallas", "Element blocks with padding", Padding},
      {"pallas", "Block indices, not element offsets: clamping", Clamping},
      {"pallas", "Backend block-shape rules", Backends},
  };
}

AXE_TOUR_PART(40, PallasTour);

}  // namespace
}  // namespace axe::cli
