// Interpret mode against the spec's golden vectors ([SPI-*], [PT-*], [DI-2], [CK-2],
// [SFI-1], [AE-*]) and the Pallas grid documentation's printed examples.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/pallas/numpy_format.h"
#include "axe/pallas/pallas_call.h"
#include "axe/pallas/show_program_ids.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::pallas {
namespace interpret_test {
namespace {

using testing_support::StatusIs;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

IndexMap Expr(const char* text) {
  absl::StatusOr<IndexMapExpr> e = IndexMapExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status();
  return e->ToIndexMap();
}

std::string Show(std::vector<int64_t> shape, std::optional<std::vector<BlockDim>> block, Grid grid,
                 IndexMap map) {
  absl::StatusOr<AnyArray> a =
      ShowProgramIds({DType::kS32, std::move(shape)}, std::move(block), grid, std::move(map));
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? FormatNumpy(*a) : "";
}

TEST(Interpret, Spi1ShowProgramIds) {
  EXPECT_EQ(Show({8, 6}, std::vector<BlockDim>{2, 3}, Grid{4, 2}, Expr("(i,j)->(i,j)")),
            "[[ 0  0  0  1  1  1]\n"
            " [ 0  0  0  1  1  1]\n"
            " [10 10 10 11 11 11]\n"
            " [10 10 10 11 11 11]\n"
            " [20 20 20 21 21 21]\n"
            " [20 20 20 21 21 21]\n"
            " [30 30 30 31 31 31]\n"
            " [30 30 30 31 31 31]]");
}

TEST(Interpret, Spi4LastWriterWins) {
  EXPECT_EQ(Show({8, 6}, std::vector<BlockDim>{2, 3}, Grid{4, 2, 10}, Expr("(i,j,k)->(i,j)")),
            "[[  9   9   9  19  19  19]\n"
            " [  9   9   9  19  19  19]\n"
            " [109 109 109 119 119 119]\n"
            " [109 109 109 119 119 119]\n"
            " [209 209 209 219 219 219]\n"
            " [209 209 209 219 219 219]\n"
            " [309 309 309 319 319 319]\n"
            " [309 309 309 319 319 319]]");
}

TEST(Interpret, Spi9SqueezedDimIsRemovedFromTheRef) {
  auto kernel = [](Ref<int32_t> o) -> absl::Status {
    if (o.rank() != 1 || o.shape(0) != 2) return absl::InternalError("o_ref.shape != (2,)");
    o.Fill(static_cast<int32_t>(10 * ProgramId(1) + ProgramId(0)));
    return absl::OkStatus();
  };
  auto call = PallasCall(
      kernel, OutShape<int32_t>{{3, 4}},
      {.grid = {3, 2}, .out_specs = {BlockSpec({std::nullopt, 2}, [](int64_t i, int64_t j) {
                         return std::pair{i, j};
                       })}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FormatNumpyRepr(out->any()),
            "Array([[ 0,  0, 10, 10],\n"
            "       [ 1,  1, 11, 11],\n"
            "       [ 2,  2, 12, 12]], dtype=int32)");
}

TEST(Interpret, Pt1bNonDividingShapeIsPaddedThenCut) {
  auto call = PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(0))); },
                         OutShape<int32_t>{{8}},
                         {.grid = {3}, .out_specs = {BlockSpec({3}, [](int64_t i) { return i; })}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(0, 0, 0, 1, 1, 1, 2, 2));
}

TEST(Interpret, Pt2aPaddingValuesAreTheTypeMinimum) {
  auto copy = [](Ref<const int32_t> x, Ref<int32_t> o) {
    for (int64_t i = 0; i < o.shape(0); ++i) o(i) = x(i);
  };
  auto call = PallasCall(copy, OutShape<int32_t>{{6}},
                         {.grid = {1}, .in_specs = {BlockSpec({6}, [](int64_t) { return 0; })}});
  absl::StatusOr<Array<int32_t>> out = call(*Array<int32_t>::Full({3}, 42));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(42, 42, 42, kMin, kMin, kMin));
}

TEST(Interpret, Pt4aElementBlocks) {
  auto call =
      PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(0))); },
                 OutShape<int32_t>{{16, 128}},
                 {.grid = {2}, .out_specs = {BlockSpec({Element(8), Element(128)}, [](int64_t i) {
                                 return std::pair{8 * i, int64_t{0}};
                               })}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t c = 0; c < 128; ++c) ASSERT_EQ((*out)(r, c), r < 8 ? 0 : 1) << r << "," << c;
  }
}

// [DI-2] as JAX 0.10.2's interpret mode runs it: lax.dynamic_slice counts the negative start
// -2 from the end of the 8 elements (6), so program 0 writes the last block. (The spec's
// [1, 1, 2, 2, 3, 3, MIN, MIN] clamps -2 to 0; JAX gives this.)
TEST(Interpret, Di2NegativeStartCountsFromTheEnd) {
  std::vector<ClampEvent> clamps;
  auto call = PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(0))); },
                         OutShape<int32_t>{{8}},
                         {.grid = {4},
                          .out_specs = {BlockSpec({2}, [](int64_t i) { return i - 1; })},
                          .options = {.clamp_report = &clamps}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(1, 1, 2, 2, 3, 3, 0, 0));
  ASSERT_EQ(clamps.size(), 1u);
  EXPECT_EQ(clamps[0].operand, "outputs[0]");
  EXPECT_THAT(clamps[0].grid_point, ElementsAre(0));
  EXPECT_THAT(clamps[0].requested_start, ElementsAre(-2));
  EXPECT_THAT(clamps[0].start, ElementsAre(6));
  EXPECT_TRUE(clamps[0].negative_start);
  EXPECT_EQ(clamps[0].ToString(),
            "outputs[0] at grid point (0,): the index map returned (-1,), asking for the window "
            "[-2:0] of an array of shape (8,); it was moved to [6:8] (a negative start counts "
            "from the end of the padded dimension, as in JAX's lax.dynamic_slice)");
}

// The size added to a negative start is the padded one (lo + n + hi rounded up to the block),
// added once; what is still out of range is clamped. Values checked against JAX 0.10.2's
// pl.pallas_call(interpret=True).
TEST(Interpret, NegativeStartsUseThePaddedSizeOnceThenClamp) {
  auto run = [](int64_t n, BlockDim dim, int64_t grid, std::function<int64_t(int64_t)> map) {
    auto call = PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(0))); },
                           OutShape<int32_t>{{n}},
                           {.grid = {grid}, .out_specs = {BlockSpec({dim}, std::move(map))}});
    absl::StatusOr<Array<int32_t>> out = call();
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? out->values() : std::vector<int32_t>{};
  };
  // 7 elements in blocks of 2 pad to 8: program 0's start -2 becomes 6.
  EXPECT_THAT(run(7, Blocked(2), 4, [](int64_t i) { return i - 1; }),
              ElementsAre(1, 1, 2, 2, 3, 3, 0));
  // Program 0: start -20 + 8 = -12, clamped to 0; program 1: -10 + 8 = -2, clamped to 0.
  EXPECT_THAT(run(8, Blocked(2), 2, [](int64_t i) { return 5 * i - 10; }),
              ElementsAre(1, 1, kMin, kMin, kMin, kMin, kMin, kMin));
  // Element(2, (1, 0)) over 7 elements: padded to 8 (front padding counts), so the element
  // start -3 becomes 5 (array elements 4 and 5).
  EXPECT_THAT(run(7, Element(2, {1, 0}), 1, [](int64_t) { return -3; }),
              ElementsAre(kMin, kMin, kMin, kMin, 0, 0, kMin));
}

TEST(Interpret, Ck2ElementOffsetsInsteadOfBlockIndices) {
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
  absl::StatusOr<Array<float>> out = call(*Array<float>::Iota({12}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FormatNumpy(out->any()), "[ 0.  1.  2.  3. nan nan nan nan  8.  9. 10. 11.]");
  // Programs 1 and 2 ask for starts 16 and 32 for the input and the output.
  ASSERT_EQ(clamps.size(), 4u);
  EXPECT_EQ(clamps[0].ToString(),
            "args[0] at grid point (1,): the index map returned (4,), asking for the window "
            "[16:20] of an array "
            "of shape (12,); it was clamped to [8:12] (an index map returns block indices, not "
            "element offsets)");
  EXPECT_EQ(clamps[1].operand, "outputs[0]");
  EXPECT_THAT(clamps[3].grid_point, ElementsAre(2));
  EXPECT_THAT(clamps[3].requested_start, ElementsAre(32));
}

// x @ y accumulated over k blocks; `mask` zeroes the padded tail k >= 33.
Array<float> Pt7(bool mask) {
  Array<float> x = *Array<float>::Zeros({32, 33});
  Array<float> y = *Array<float>::Zeros({33, 32});
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t k = 0; k < 33; ++k) {
      x(i, k) = static_cast<float>((i + 2 * k) % 5);
      y(k, i) = static_cast<float>((3 * i + k) % 7 - 3);
    }
  }
  auto kernel = [mask](Ref<const float> xb, Ref<const float> yb, Ref<float> o) {
    if (ProgramId(2) == 0) o.Fill(0.0f);
    const int64_t k0 = ProgramId(2) * 32;
    for (int64_t i = 0; i < 32; ++i) {
      for (int64_t j = 0; j < 32; ++j) {
        float acc = o(i, j);
        for (int64_t k = 0; k < 32; ++k) {
          if (mask && k0 + k >= 33) continue;
          acc += xb(i, k) * yb(k, j);
        }
        o(i, j) = acc;
      }
    }
  };
  auto call = PallasCall(kernel, OutShape<float>{{32, 32}},
                         {.grid = {1, 1, 2},
                          .in_specs = {BlockSpec({32, 32},
                                                 [](int64_t i, int64_t, int64_t k) {
                                                   return std::pair{i, k};
                                                 }),
                                       BlockSpec({32, 32},
                                                 [](int64_t, int64_t j, int64_t k) {
                                                   return std::pair{k, j};
                                                 })},
                          .out_specs = {BlockSpec({32, 32}, [](int64_t i, int64_t j, int64_t) {
                            return std::pair{i, j};
                          })}});
  absl::StatusOr<Array<float>> out = call(x, y);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!mask) return *out;
  // Compare with x @ y (integer values: exact).
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      float want = 0;
      for (int64_t k = 0; k < 33; ++k) want += x(i, k) * y(k, j);
      EXPECT_EQ((*out)(i, j), want) << i << "," << j;
    }
  }
  return *out;
}

TEST(Interpret, Pt7UnmaskedOutOfBoundsReductionIsAllNan) {
  Array<float> out = Pt7(/*mask=*/false);
  for (int64_t i = 0; i < out.size(); ++i) ASSERT_TRUE(std::isnan(out.data()[i])) << i;
  Pt7(/*mask=*/true);
}

TEST(Interpret, Sfi1SlicesForInvocation) {
  BlockSpec spec({10, 20}, [](int64_t i, int64_t j) { return std::pair{i, j}; });
  auto s = SlicesForInvocation({100, 100}, spec, Grid{10, 5}, {2, 4});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(FormatSlices(*s), "[slice(20, 30, None), slice(80, 100, None)]");
  // The documentation's other two invocations.
  BlockSpec spec3({10, 20}, [](int64_t i, int64_t j, int64_t) { return std::pair{i, j}; });
  EXPECT_EQ(FormatSlices(*SlicesForInvocation({100, 100}, spec3, Grid{10, 5, 4}, {2, 4, 0})),
            "[slice(20, 30, None), slice(80, 100, None)]");
  EXPECT_EQ(FormatSlices(*SlicesForInvocation({100, 90}, spec, Grid{10, 5}, {2, 4})),
            "[slice(20, 30, None), slice(80, 100, None)]");
  // A block that starts past the end.
  EXPECT_THAT(SlicesForInvocation({100, 80}, spec, Grid{10, 5}, {2, 4}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at least one element of the block must be within bounds")));
  EXPECT_FALSE(SlicesForInvocation({100, 100}, spec, Grid{10, 5}, {10, 0}).ok());
}

// The Pallas documentation's show_program_ids examples.
TEST(Interpret, DocumentationExamples) {
  EXPECT_EQ(Show({7, 5}, std::vector<BlockDim>{2, 3}, Grid{4, 2}, Expr("(i,j)->(i,j)")),
            "[[ 0  0  0  1  1]\n"
            " [ 0  0  0  1  1]\n"
            " [10 10 10 11 11]\n"
            " [10 10 10 11 11]\n"
            " [20 20 20 21 21]\n"
            " [20 20 20 21 21]\n"
            " [30 30 30 31 31]]");
  EXPECT_EQ(Show({1, 2}, std::vector<BlockDim>{2, 3}, Grid{1, 1}, Expr("(i,j)->(i,j)")), "[[0 0]]");
  const char* twelves =
      "[[12 12 12 12]\n"
      " [12 12 12 12]\n"
      " [12 12 12 12]\n"
      " [12 12 12 12]]";
  EXPECT_EQ(Show({4, 4}, std::nullopt, Grid{2, 3}, IndexMap()), twelves);
  EXPECT_EQ(Show({4, 4}, std::vector<BlockDim>{4, 4}, Grid{2, 3}, IndexMap()), twelves);
  EXPECT_EQ(Show({8, 6}, std::vector<BlockDim>{Element(2), Element(3)}, Grid{4, 2},
                 Expr("(i,j)->(2*i,3*j)")),
            Show({8, 6}, std::vector<BlockDim>{2, 3}, Grid{4, 2}, Expr("(i,j)->(i,j)")));
}

TEST(Interpret, ElementWithPadding) {
  EXPECT_EQ(Show({7, 7}, std::vector<BlockDim>{Element(2, {1, 0}), Element(3, {2, 0})}, Grid{4, 3},
                 Expr("(i,j)->(2*i,3*j)")),
            "[[ 0  1  1  1  2  2  2]\n"
            " [10 11 11 11 12 12 12]\n"
            " [10 11 11 11 12 12 12]\n"
            " [20 21 21 21 22 22 22]\n"
            " [20 21 21 21 22 22 22]\n"
            " [30 31 31 31 32 32 32]\n"
            " [30 31 31 31 32 32 32]]");
}

TEST(Interpret, InputElementPaddingReadsUninitialized) {
  // Window of 3 over [1, 2, 3, 4] padded with (2, 1): starts -2, 0, 2 in array coordinates.
  auto copy = [](Ref<const int32_t> x, Ref<int32_t> o) {
    for (int64_t i = 0; i < 3; ++i) o(i) = x(i);
  };
  auto call =
      PallasCall(copy, OutShape<int32_t>{{9}},
                 {.grid = {3},
                  .in_specs = {BlockSpec({Element(3, {2, 1})}, [](int64_t i) { return 2 * i; })},
                  .out_specs = {BlockSpec({3}, [](int64_t i) { return i; })}});
  absl::StatusOr<Array<int32_t>> out = call(*Array<int32_t>::FromValues({4}, {1, 2, 3, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(kMin, kMin, 1, 1, 2, 3, 3, 4, kMin));
}

TEST(Interpret, OutputElementPaddingIsDropped) {
  // Output (4,) padded (1, 1) to 6: two blocks of 3 at padded starts 0 and 3.
  auto call =
      PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(7 + ProgramId(0))); },
                 OutShape<int32_t>{{4}},
                 {.grid = {2},
                  .out_specs = {BlockSpec({Element(3, {1, 1})}, [](int64_t i) { return 3 * i; })}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(7, 7, 8, 8));
}

TEST(Interpret, KernelSeesCurrentOutputAndPaddingPersists) {
  // Block 3 over an output of 4 (padded to 6): the second block's padded tail keeps what
  // the previous visit wrote, as in the HLO interpreter's padded carry.
  auto kernel = [](Ref<int32_t> o) {
    for (int64_t i = 0; i < 3; ++i) o(i) = (ProgramId(1) == 0 ? 0 : o(i)) + 1;
  };
  auto call = PallasCall(
      kernel, OutShape<int32_t>{{4}},
      {.grid = {2, 3}, .out_specs = {BlockSpec({3}, [](int64_t i, int64_t) { return i; })}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(3, 3, 3, 3));
}

TEST(Interpret, UninitializedValuesPerDtype) {
  auto empty_grid = [](DType t) {
    return *ShowProgramIds({t, {2}}, std::nullopt, Grid{0}, IndexMap());
  };
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kS32)), "[-2147483648 -2147483648]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kS8)), "[-128 -128]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kS64)), "[-9223372036854775808 -9223372036854775808]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kU8)), "[0 0]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kF32)), "[nan nan]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kF64)), "[nan nan]");
  EXPECT_EQ(FormatNumpy(empty_grid(DType::kPred)), "[False False]");
  // Grid () runs exactly one program.
  EXPECT_EQ(FormatNumpy(*ShowProgramIds({DType::kS32, {2}}, std::nullopt, Grid{}, IndexMap())),
            "[0 0]");
}

TEST(Interpret, InBoundsInputBlocksAreViews) {
  Array<float> x = *Array<float>::Iota({8, 8});
  std::vector<const float*> seen;
  auto kernel = [&seen](Ref<const float> xb, Ref<float> o) {
    seen.push_back(xb.data());
    EXPECT_EQ(xb.stride(0), 8);  // a strided window of x, not a copy
    o.Fill(xb(0, 0));
  };
  auto call = PallasCall(kernel, OutShape<float>{{8, 8}},
                         {.grid = {2, 2},
                          .in_specs = {BlockSpec({4, 4},
                                                 [](int64_t i, int64_t j) {
                                                   return std::pair{i, j};
                                                 })},
                          .out_specs = {BlockSpec({4, 4}, [](int64_t i, int64_t j) {
                            return std::pair{i, j};
                          })}});
  ASSERT_TRUE(call(x).ok());
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], x.data());
  EXPECT_EQ(seen[3], x.data() + 4 * 8 + 4);
}

TEST(Interpret, ProgramIdsAndNamedAxes) {
  std::vector<std::vector<int64_t>> seen;
  auto kernel = [&seen](Ref<int32_t>) {
    seen.push_back({ProgramId(0), ProgramId(-1), NumPrograms(0), NumPrograms(-1), ProgramId("j"),
                    NumPrograms("i")});
  };
  auto call =
      PallasCall(kernel, OutShape<int32_t>{{1}}, {.grid = Grid::Named({{"i", 2}, {"j", 3}})});
  ASSERT_TRUE(call().ok());
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_THAT(seen[0], ElementsAre(0, 0, 2, 3, 0, 2));
  EXPECT_THAT(seen[1], ElementsAre(0, 1, 2, 3, 1, 2));  // last axis fastest
  EXPECT_THAT(seen[5], ElementsAre(1, 2, 2, 3, 2, 2));
}

TEST(Interpret, ProgramIdOutOfBoundsFailsTheCall) {
  auto call = PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(2))); },
                         OutShape<int32_t>{{1}}, {.grid = {4, 2}});
  EXPECT_THAT(call(), StatusIs(absl::StatusCode::kInvalidArgument,
                               "Axis 2 is out of bounds for grid (4, 2)"));
  auto named = PallasCall([](Ref<int32_t>) { (void)NumPrograms("k"); }, OutShape<int32_t>{{1}},
                          {.grid = Grid::Named({{"i", 1}})});
  EXPECT_THAT(named(), StatusIs(absl::StatusCode::kInvalidArgument,
                                "Grid (('i', 1),) has no axis named 'k'"));
}

TEST(Interpret, KernelErrorsNameTheProgram) {
  auto call = PallasCall(
      [](Ref<int32_t>) -> absl::Status {
        return ProgramId(0) == 1 ? absl::FailedPreconditionError("boom") : absl::OkStatus();
      },
      OutShape<int32_t>{{1}}, {.grid = {3}, .options = {.name = "my_kernel"}});
  absl::Status s = call().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kFailedPrecondition, StartsWith("pallas_call my_kernel at ")));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("interpret_test.cc:")));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kFailedPrecondition,
                          HasSubstr(" failed at grid point (1,): boom")));
}

TEST(Interpret, Ae3InSpecsMustBeAList) {
  // JAX rejects a bare BlockSpec for in_specs at run time; in C++ it does not compile.
  static_assert(!std::is_convertible_v<BlockSpec, std::vector<BlockSpec>>);
}

TEST(Interpret, Ae6IndexMapResultCount) {
  auto call = PallasCall(
      [](Ref<const int32_t>, Ref<int32_t>) {}, OutShape<int32_t>{{4}},
      {.grid = {1}, .in_specs = {BlockSpec({4}, IndexMap::Named("my_index_map", [](int64_t) {
                                             return std::pair{0, 0};
                                           }))}});
  absl::Status s = call(*Array<int32_t>::Zeros({4})).status();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          StartsWith("Index map function my_index_map at ")));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("interpret_test.cc:")));
  EXPECT_THAT(
      s, StatusIs(
             absl::StatusCode::kInvalidArgument,
             HasSubstr(" for args[0] must return 1 values to match "
                       "block_shape=(Blocked(block_size=4),). Currently returning 2 values: (0, 0) "
                       "at grid point (0,).")));
}

// Inputs and outputs are named the same way in every message: args[i] and outputs[j] (the
// shape check of an output once said out_shape[j]).
TEST(Interpret, OperandNamesInShapeErrors) {
  auto out = PallasCall([](Ref<int32_t>) {}, OutShape<int32_t>{{4, -1}}, {});
  EXPECT_THAT(out(), StatusIs(absl::StatusCode::kInvalidArgument,
                              "outputs[0] (4, -1) has a negative size -1 in dimension 1"));
}

TEST(Interpret, Ae9BlockShapeRank) {
  auto in = PallasCall([](Ref<const int32_t>, Ref<int32_t>) {}, OutShape<int32_t>{{4}},
                       {.grid = {1}, .in_specs = {BlockSpec({1, 1})}});
  EXPECT_THAT(in(*Array<int32_t>::Zeros({4})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Block shape for args[0] (= (Blocked(block_size=1), Blocked(block_size=1))) "
                       "must have the same number of "
                       "dimensions as the array shape (4,)."));
  auto out =
      PallasCall([](Ref<int32_t>) {}, OutShape<int32_t>{{4}}, {.out_specs = {BlockSpec({1, 1})}});
  EXPECT_THAT(out(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("Block shape for outputs[0] (= (Blocked(block_size=1), ")));
}

TEST(Interpret, ArgumentErrors) {
  auto nothing = [](Ref<int32_t>) {};
  auto run = [&](CallSpec spec) {
    return PallasCall(nothing, OutShape<int32_t>{{4}}, std::move(spec))().status();
  };
  EXPECT_THAT(run({.grid = {4, -1}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Grid must be a tuple of non-negative integers, got (4, -1)"));
  EXPECT_THAT(
      run({.grid = {4, 2, 10}, .options = {.dimension_semantics = {kParallel, kArbitrary}}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Length of grid does not match length of dimension semantics. len(grid)=3, "
               "len(dimension_semantics)=2"));
  EXPECT_THAT(run({.out_specs = {BlockSpec(), BlockSpec()}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Pytree for `out_specs` and `out_shape` do not match. There are 1 "
                       "mismatches, including:\n"
                       "    * at ``, `out_specs` is a tuple of length 2 but `out_shape` is a tuple "
                       "of length 1, so the lengths "
                       "do not match"));
  EXPECT_THAT(
      run({.grid = {4, 2}, .out_specs = {BlockSpec({2}, [](int64_t i) { return i; })}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(" for outputs[0] takes 1 grid indices, but the grid (4, 2) has 2 axes")));
  EXPECT_THAT(run({.out_specs = {BlockSpec({-2})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Block shape for outputs[0] (= (Blocked(block_size=-2),)) is "
                                 "invalid: Blocked(-2) has a "
                                 "negative block size")));
  EXPECT_THAT(run({.out_specs = {BlockSpec({0})}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has size 0 in dimension 0")));
  EXPECT_EQ(run({.out_specs = {BlockSpec({BoundedSlice(2)})}}).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_THAT(run({.grid = {1},
                   .out_specs = {BlockSpec({2},
                                           [](int64_t) -> absl::StatusOr<int64_t> {
                                             return absl::OutOfRangeError("nope");
                                           })}}),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("for outputs[0] at grid point (0,): nope")));
  EXPECT_THAT(
      run({.grid = {1}, .out_specs = {BlockSpec({4}, [](int64_t) { return int64_t{1} << 62; })}}),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("the window start 4 * 4611686018427387904 in dimension 0 overflows int64")));
  // Index maps are checked at every program, not only the first.
  EXPECT_THAT(run({.grid = {3},
                   .out_specs = {BlockSpec(
                       {2}, [](int64_t i) { return std::vector<int64_t>(i == 2 ? 2 : 1, 0); })}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Currently returning 2 values: (0, 0) at grid point (2,).")));
}

TEST(Interpret, InputOutputAliases) {
  auto add_one = [](Ref<const int32_t>, Ref<int32_t> o) {
    for (int64_t i = 0; i < o.shape(0); ++i) o(i) += 1;
  };
  Array<int32_t> x = *Array<int32_t>::Iota({5});
  auto call = PallasCall(add_one, OutShape<int32_t>{{5}},
                         {.grid = {3},
                          .in_specs = {BlockSpec({2}, [](int64_t i) { return i; })},
                          .out_specs = {BlockSpec({2}, [](int64_t i) { return i; })},
                          .options = {.input_output_aliases = {{0, 0}}}});
  absl::StatusOr<Array<int32_t>> out = call(x);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->values(), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(x.values(), ElementsAre(0, 1, 2, 3, 4));  // the input is untouched

  auto run = [&](std::vector<std::pair<int64_t, int64_t>> aliases, std::vector<int64_t> out_shape,
                 BlockSpec in_spec = BlockSpec()) {
    return PallasCall([](Ref<const int32_t>, Ref<int32_t>) {},
                      OutShape<int32_t>{std::move(out_shape)},
                      {.grid = {1},
                       .in_specs = {std::move(in_spec)},
                       .options = {.input_output_aliases = std::move(aliases)}})(x)
        .status();
  };
  EXPECT_THAT(run({{1, 0}}, {5}), StatusIs(absl::StatusCode::kInvalidArgument,
                                           "input_output_aliases contains the mapping '1:0' with "
                                           "input index 1 outside the range [0, 1)"));
  EXPECT_THAT(run({{0, 3}}, {5}), StatusIs(absl::StatusCode::kInvalidArgument,
                                           "input_output_aliases contains the mapping '0:3' with "
                                           "output index 3 outside the range [0, 1)"));
  EXPECT_THAT(run({{0, 0}}, {4}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "input_output_aliases contains the mapping '0:0' referring to input[0] with "
                       "abstract value int32[5] and "
                       "to output[0] with a different abstract value int32[4]."));
  EXPECT_THAT(run({{0, 0}}, {5}, BlockSpec({Element(2, {1, 0})}, [](int64_t) { return 0; })),
              StatusIs(absl::StatusCode::kUnimplemented, "Padding with aliasing not supported."));
}

TEST(Interpret, MultipleOutputsAndDtypes) {
  auto kernel = [](Ref<const double> x, Ref<int64_t> floor, Ref<bool> positive) {
    floor(0) = static_cast<int64_t>(std::floor(x(0)));
    positive(0) = x(0) > 0;
  };
  auto call = PallasCall(kernel, std::tuple{OutShape<int64_t>{{3}}, OutShape<bool>{{3}}},
                         {.grid = {3},
                          .in_specs = {BlockSpec({1}, [](int64_t i) { return i; })},
                          .out_specs = {BlockSpec({1}, [](int64_t i) { return i; }),
                                        BlockSpec({1}, [](int64_t i) { return i; })}});
  auto out = call(*Array<double>::FromValues({3}, {-1.5, 0.0, 2.25}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(std::get<0>(*out).values(), ElementsAre(-2, 0, 2));
  EXPECT_EQ(FormatNumpy(std::get<1>(*out).any()), "[False False  True]");
}

TEST(Interpret, ZeroSizedArrays) {
  auto call =
      PallasCall([](Ref<const float> x, Ref<float> o) { EXPECT_EQ(x.size() + o.size(), 0); },
                 OutShape<float>{{0, 3}}, {.grid = {2}});
  absl::StatusOr<Array<float>> out = call(*Array<float>::Zeros({2, 0}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), 0);
  // A positive block over an empty dimension cannot hold a window.
  auto bad = PallasCall([](Ref<float>) {}, OutShape<float>{{0}}, {.out_specs = {BlockSpec({2})}});
  EXPECT_THAT(bad(), StatusIs(absl::StatusCode::kInvalidArgument,
                              HasSubstr("does not fit the array shape (0,)")));
  // Empty windows at offsets into an empty buffer: no pointer arithmetic on its null data
  // (UBSan's "applying non-zero offset to null pointer", found by the explorer's fuzz target
  // on /api/grid?shape=8,0&block=2,0&grid=4,6; fuzz/corpus/explorer_request/
  // empty-array-grid-regression).
  absl::StatusOr<AnyArray> ids = ShowProgramIds({DType::kS32, {8, 0}}, std::vector<BlockDim>{2, 0},
                                                Grid{4, 6}, IndexMapExpr::Identity(2).ToIndexMap());
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(ids->size(), 0);
  // An empty output with huge Element padding in front: the padded buffer is empty too, and
  // cutting the output from it forms no offset (UBSan: 2^56 * 4 bytes from a null pointer).
  const auto padded = [](int64_t lo, const std::string& map) {
    return ShowProgramIds(
        {DType::kS32, {0, 1}},
        std::vector<BlockDim>{*BlockDim::Parse("0"),
                              *BlockDim::Parse(absl::StrCat("Element(1,(", lo, ",0))"))},
        Grid{2, 2}, IndexMapExpr::Parse(map)->ToIndexMap());
  };
  absl::StatusOr<AnyArray> far = padded(int64_t{1} << 56, "(i,j)->(i,j)");
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_EQ(far->size(), 0);
  // Padding to 2^63 - 2 would give a buffer whose byte strides leave int64 (NumPy: "array is
  // too big").
  EXPECT_EQ(padded(INT64_MAX - 1, "(i,j)->(i,j)").status().code(),
            absl::StatusCode::kResourceExhausted);
  // An empty block whose byte strides would leave int64: refused before its scratch is laid
  // out (fuzz/corpus/explorer_request/empty-block-strides-past-int64-regression).
  EXPECT_THAT(ShowProgramIds({DType::kS32, {0, 1, 5}},
                             std::vector<BlockDim>{
                                 *BlockDim::Parse("0"), *BlockDim::Parse("Blocked(2147483647)"),
                                 *BlockDim::Parse("Blocked(4611686018427387904)")},
                             Grid{1, 2, 3}, IndexMapExpr::Identity(3).ToIndexMap()),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("is too large to run: its nonzero dimensions times the element "
                                 "size pass 2^63 bytes")));
  // A window start that, less the Element padding, leaves int64 is refused like a Blocked
  // start that overflows.
  EXPECT_THAT(padded(int64_t{1} << 60, "(i,j)->(i,-j*9000000000000000000)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at grid point (0, 1): the window start -9000000000000000000 - "
                                 "1152921504606846976 (less the Element padding) in dimension 1 "
                                 "overflows int64")));
}

TEST(Interpret, UntypedExecuteCall) {  // the example of execute.h
  AnyArray x = Array<float>::Iota({12})->any();
  auto kernel = [](absl::Span<const RawRef> in, absl::Span<const RawRef> out) {
    Ref<const float> xb = in[0].As<const float>();
    Ref<float> y = out[0].As<float>();
    for (int64_t i = 0; i < y.shape(0); ++i) y(i) = 2 * xb(i);
    return absl::OkStatus();
  };
  CallSpec spec{.grid = {3},
                .in_specs = {BlockSpec({4}, [](int64_t i) { return i; })},
                .out_specs = {BlockSpec({4}, [](int64_t i) { return i; })}};
  absl::StatusOr<std::vector<AnyArray>> out =
      ExecuteCall(spec, {&x}, {{DType::kF32, {12}}}, kernel);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FormatNumpy((*out)[0]), "[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18. 20. 22.]");
  EXPECT_TRUE(ValidateCall(spec, {x.shape_dtype()}, {{DType::kF32, {12}}}).ok());
  EXPECT_FALSE(ExecuteCall(spec, {&x}, {{DType::kBF16, {12}}}, kernel).ok());
}

// A block far larger than its array pads the array to whole blocks: a 2^32-1 block over 8
// elements would allocate and fill 17 GB. The call is refused instead (found by the
// explorer's fuzz target; the CLI used to hang on it).
TEST(Interpret, BuffersBeyondTheLimitAreRefusedNotAllocated) {
  EXPECT_THAT(ShowProgramIds({DType::kS32, {8}}, std::vector<BlockDim>{4294967295}, Grid{3},
                             IndexMapExpr::Identity(1).ToIndexMap()),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "pallas_call show_program_ids: outputs[0] padded to whole blocks has the "
                       "shape (4294967295,), 17179869180 bytes, more than the limit of "
                       "4294967296 bytes (max_buffer_bytes)"));
  EXPECT_THAT(ShowProgramIds({DType::kS32, {8}}, std::vector<BlockDim>{4}, Grid{2},
                             IndexMapExpr::Identity(1).ToIndexMap(), {.max_buffer_bytes = 31}),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::HasSubstr("32 bytes")));
  EXPECT_OK(ShowProgramIds({DType::kS32, {8}}, std::vector<BlockDim>{4}, Grid{2},
                           IndexMapExpr::Identity(1).ToIndexMap(), {.max_buffer_bytes = 32})
                .status());
}

}  // namespace
}  // namespace interpret_test
}  // namespace axe::pallas
