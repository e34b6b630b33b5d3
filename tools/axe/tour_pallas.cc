// The Pallas part of `axe tour`: grids, BlockSpecs, padding, clamping, backend rules.
#include <cmath>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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
namespace tour_pallas {
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

// A tour self-check: the text around it states what the run shows; a run that shows
// something else fails the tour (an internal error) instead of printing it.
absl::Status SelfCheck(bool holds, absl::string_view claim) {
  if (holds) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("tour self-check failed: ", claim));
}

absl::StatusOr<std::string> ShowIds(std::vector<int64_t> shape, std::vector<BlockDim> block,
                                    Grid grid, const char* index_map,
                                    std::vector<ClampEvent>* clamps = nullptr) {
  AXE_ASSIGN_OR_RETURN(IndexMapExpr e, IndexMapExpr::Parse(index_map));
  AXE_ASSIGN_OR_RETURN(AnyArray a, ShowProgramIds({DType::kS32, std::move(shape)}, std::move(block),
                                                  grid, e.ToIndexMap(), {.clamp_report = clamps}));
  return Indent(FormatNumpy(a));
}

absl::Status Grids(std::ostream& os) {
  os << "A Pallas call runs a kernel once per point of a grid (row-major, last axis fastest).\n"
        "A BlockSpec(block_shape, index_map) gives each program a window of each operand: the\n"
        "index map returns block indices, multiplied by the block size. show_program_ids fills\n"
        "each output block with its program's indices as decimal digits; an 8x6 array in 2x3\n"
        "blocks on the grid (4, 2), index map (i, j) -> (i, j), interpret mode:\n\n";
  AXE_ASSIGN_OR_RETURN(std::string spi1, ShowIds({8, 6}, {2, 3}, Grid{4, 2}, "(i, j) -> (i, j)"));
  os << spi1
     << "\nWith a third grid axis the index map ignores, each block is written ten times and the\n"
        "last writer wins (grid (4, 2, 10), (i, j, k) -> (i, j)):\n\n";
  AXE_ASSIGN_OR_RETURN(std::string spi4,
                       ShowIds({8, 6}, {2, 3}, Grid{4, 2, 10}, "(i, j, k) -> (i, j)"));
  AXE_RETURN_IF_ERROR(SelfCheck(absl::StrContains(spi4, "[[  9   9   9  19  19  19]") &&
                                    absl::StrContains(spi4, "[309 309 309 319 319 319]]"),
                                "the last writer (k = 9) wins in every block"));
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
  AXE_ASSIGN_OR_RETURN(std::string out, ShowIds({7, 7}, {Element(2, {1, 0}), Element(3, {2, 0})},
                                                Grid{4, 3}, "(i, j) -> (2 * i, 3 * j)"));
  os << out;
  // Interpret mode pads inputs with the uninitialized value: NaN, or the integer minimum.
  auto copy = [](Ref<const int32_t> x, Ref<int32_t> o) {
    for (int64_t i = 0; i < o.shape(0); ++i) o(i) = x(i);
  };
  auto call = PallasCall(copy, OutShape<int32_t>{{6}},
                         {.grid = {1}, .in_specs = {BlockSpec({6}, [](int64_t) { return 0; })}});
  AXE_ASSIGN_OR_RETURN(Array<int32_t> x, Array<int32_t>::Full({3}, 42));
  AXE_ASSIGN_OR_RETURN(Array<int32_t> y, call(x));
  const int32_t uninit = UninitializedValue<int32_t>();
  AXE_RETURN_IF_ERROR(SelfCheck(std::vector<int32_t>(y.data(), y.data() + y.size()) ==
                                    std::vector<int32_t>{42, 42, 42, uninit, uninit, uninit},
                                "the padding of an int32 input reads as the int32 minimum"));
  os << "\nA block larger than its array reads padding: copying full((3,), 42) through a block of "
        "6\n"
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
  bool middle_uninitialized = true;
  for (int64_t i = 4; i < 8; ++i) middle_uninitialized &= std::isnan(y.data()[i]);
  AXE_RETURN_IF_ERROR(SelfCheck(clamps.size() == 4 && middle_uninitialized,
                                "programs 1 and 2 are clamped (input and output) and the middle "
                                "block stays uninitialized"));
  os << Indent(FormatNumpy(y.any())) << "\nThe opt-in clamp report names each case:\n\n";
  for (const ClampEvent& e : clamps) os << "  " << e.ToString() << "\n";
  return absl::OkStatus();
}

absl::Status Backends(std::ostream& os) {
  os << "Backends restrict block shapes. TPU: the last two block dims divisible by 8 and 128 or\n"
        "equal to the array's; rank 1: equal, a multiple of 1024, or a power of two >= "
        "128*packing.\n"
        "Triton: power-of-two element counts. Mosaic GPU: 16-byte rows.\n\n";
  struct Case {
    std::vector<int64_t> array;
    std::vector<BlockDim> block;
    bool tpu_ok, triton_ok, mosaic_gpu_ok;  // what the rules above say
  };
  const std::vector<Case> cases = {
      {{16, 128}, {8, 128}, true, true, true}, {{9, 128}, {9, 64}, false, false, true},
      {{3, 3}, {3, 3}, true, false, false},    {{1024}, {128}, true, true, true},
      {{128}, {64}, false, true, true},        {{4, 256}, {std::nullopt, 256}, false, true, true}};
  for (const Case& c : cases) {
    CallSpec spec{.in_specs = {BlockSpec(c.block)}};
    std::vector<ShapeDType> in = {{DType::kF32, c.array}};
    os << "  array " << FormatTuple(c.array, true) << ", block " << BlockShapeToString(c.block)
       << ":";
    for (auto [b, expected] : {std::pair{Backend::kTpu, c.tpu_ok},
                               {Backend::kTriton, c.triton_ok},
                               {Backend::kMosaicGpu, c.mosaic_gpu_ok}}) {
      absl::Status s = Validate(spec, in, {}, b);
      AXE_RETURN_IF_ERROR(SelfCheck(
          s.ok() == expected,
          absl::StrCat(BackendName(b), (expected ? " accepts" : " rejects"), " block ",
                       BlockShapeToString(c.block), " of array ", FormatTuple(c.array, true))));
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
}  // namespace tour_pallas
}  // namespace axe::cli
