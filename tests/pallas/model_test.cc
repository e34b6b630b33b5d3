// Grid, BlockDim, BlockSpec and IndexMap: printing, parsing back, validation, callables.
#include <array>
#include <random>
#include <tuple>
#include <vector>

#include "absl/hash/hash_testing.h"
#include "absl/strings/str_cat.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/grid.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::pallas {
namespace model_test {
namespace {

using testing_support::StatusIs;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Grid, PrintsAsPythonTuplesAndParsesBack) {
  EXPECT_EQ(Grid({4, 2}).ToString(), "(4, 2)");
  EXPECT_EQ(Grid({4}).ToString(), "(4,)");
  EXPECT_EQ(Grid().ToString(), "()");
  EXPECT_EQ(Grid().num_programs(), 1);
  EXPECT_EQ(Grid({4, 0}).num_programs(), 0);
  Grid named = Grid::Named({{"i", 4}, {"j", 2}});
  EXPECT_EQ(named.ToString(), "(('i', 4), ('j', 2))");
  EXPECT_EQ(named.AxisOf("j"), 1);
  EXPECT_EQ(named.AxisOf("k"), -1);
  for (const Grid& g : {Grid{4, 2}, Grid{4}, Grid{}, Grid{0, 3}, named, Grid::Named({{"x", 1}})}) {
    absl::StatusOr<Grid> back = Grid::Parse(g.ToString());
    ASSERT_TRUE(back.ok()) << g << ": " << back.status();
    EXPECT_EQ(*back, g);
  }
  EXPECT_EQ(*Grid::Parse("4"), (Grid{4}));
  EXPECT_EQ(*Grid::Parse("4,2"), (Grid{4, 2}));
  EXPECT_EQ(*Grid::Parse("((\"i\", 4),)"), Grid::Named({{"i", 4}}));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({Grid{4, 2}, Grid{2, 4}, Grid{}, named}));
}

TEST(Grid, NextGridPointIsRowMajor) {
  Grid g{2, 3};
  std::vector<int64_t> point = {0, 0};
  std::vector<std::vector<int64_t>> seen = {point};
  while (NextGridPoint(g, absl::MakeSpan(point))) seen.push_back(point);
  EXPECT_EQ(seen,
            (std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
  EXPECT_EQ(point, (std::vector<int64_t>{0, 0}));
  std::vector<int64_t> none;
  EXPECT_FALSE(NextGridPoint(Grid{}, absl::MakeSpan(none)));
}

TEST(Grid, Validation) {
  EXPECT_THAT(Grid({4, -1}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Grid must be a tuple of non-negative integers, got (4, -1)"));
  EXPECT_THAT(Grid::Named({{"i", 1}, {"i", 2}}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'i' is repeated")));
  EXPECT_THAT(Grid::Named({{"1x", 1}}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not an identifier")));
  EXPECT_THAT(Grid({int64_t{1} << 40, int64_t{1} << 40}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more programs than fit")));
  EXPECT_THAT(Grid::Parse("(4, x)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 4")));
  EXPECT_THAT(Grid::Parse("(('i', 4), ('j' 2))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 16: expected ','")));
  EXPECT_FALSE(Grid::Create({1}, {"a", "b"}).ok());
}

TEST(BlockDim, StrAndRepr) {  // [BS-str]
  EXPECT_EQ(Element(4).ToString(), "Element(4)");
  EXPECT_EQ(Element(4, {1, 0}).ToString(), "Element(4, padding=(1, 0))");
  EXPECT_EQ(Blocked(4).ToString(), "Blocked(4)");
  EXPECT_EQ(Blocked(4).Repr(), "Blocked(block_size=4)");
  EXPECT_EQ(Squeezed().Repr(), "Squeezed()");
  EXPECT_EQ(Element(4).Repr(), "Element(block_size=4, padding=(0, 0))");
  EXPECT_EQ(FormatBlockShape({Blocked(4)}), "(Blocked(block_size=4),)");
  EXPECT_EQ(FormatBlockShape({2, std::nullopt}), "(Blocked(block_size=2), Squeezed())");
  EXPECT_EQ(BlockShapeToString({2, Element(3, {2, 0}), std::nullopt}),
            "(Blocked(2), Element(3, padding=(2, 0)), Squeezed())");
}

TEST(BlockDim, ParsesEveryForm) {
  EXPECT_EQ(*BlockDim::Parse("4"), Blocked(4));
  EXPECT_EQ(*BlockDim::Parse("None"), Squeezed());
  EXPECT_EQ(*BlockDim::Parse("Squeezed()"), Squeezed());
  EXPECT_EQ(*BlockDim::Parse("Element(2)"), Element(2));
  EXPECT_EQ(*BlockDim::Parse("Element(3,(2,0))"), Element(3, {2, 0}));
  EXPECT_EQ(*BlockDim::Parse("pl.Element(block_size=3, padding=(2, 0))"), Element(3, {2, 0}));
  EXPECT_EQ(*BlockDim::Parse("Blocked(block_size=8)"), Blocked(8));
  EXPECT_EQ(*BlockDim::Parse("BoundedSlice(4)"), BoundedSlice(4));
  EXPECT_EQ(*BlockDim::Parse("Indirect(4)"), Indirect(4));
  EXPECT_THAT(BlockDim::Parse("Foo(2)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "position 0: Unsupported block dimension type: Foo. Allowed types: "
                       "`pl.Squeezed`, `pl.Blocked`, "
                       "`pl.Element`, `int`, `None`. in \"Foo(2)\""));
  EXPECT_THAT(BlockDim::Parse("Element(3,(2))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 12: expected ','")));
  EXPECT_THAT(BlockDim::Parse("Element(3) x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 11: expected end of input")));
  EXPECT_THAT(Element(3, {-1, 0}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative padding")));
  EXPECT_THAT(*ParseBlockShape("2, Element(3,(2,0)), None"),
              ElementsAre(Blocked(2), Element(3, {2, 0}), Squeezed()));
  EXPECT_THAT(*ParseBlockShape("(None, 2)"), ElementsAre(Squeezed(), Blocked(2)));
  EXPECT_THAT(*ParseBlockShape("(4,)"), ElementsAre(Blocked(4)));
  EXPECT_TRUE(ParseBlockShape("()")->empty());
  EXPECT_THAT(ParseBlockShape("2,,3"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 2")));
}

TEST(BlockDim, RandomRoundTrips) {
  std::mt19937 rng(static_cast<uint32_t>(testing_support::TestSeed(3)));
  std::vector<BlockDim> all;
  for (int t = 0; t < 300; ++t) {
    std::vector<BlockDim> shape;
    int rank = static_cast<int>(rng() % 4);
    for (int d = 0; d < rank; ++d) {
      int64_t n = rng() % 300;
      switch (rng() % 5) {
        case 0: shape.push_back(Blocked(n)); break;
        case 1:
          shape.push_back(
              Element(n, {static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % 3)}));
          break;
        case 2: shape.push_back(Squeezed()); break;
        case 3: shape.push_back(BoundedSlice(n)); break;
        default: shape.push_back(Indirect(n)); break;
      }
    }
    absl::StatusOr<std::vector<BlockDim>> back = ParseBlockShape(BlockShapeToString(shape));
    ASSERT_TRUE(back.ok()) << BlockShapeToString(shape) << ": " << back.status();
    EXPECT_EQ(*back, shape);
    for (const BlockDim& d : shape) {
      EXPECT_EQ(*BlockDim::Parse(d.ToString()), d);
      EXPECT_EQ(*BlockDim::Parse(d.Repr()), d);
      all.push_back(d);
    }
  }
  all.erase(all.begin() + 20, all.end());
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(all));
}

int64_t Twice(int64_t i) { return 2 * i; }

BlockIndices Eval(const IndexMap& m, std::vector<int64_t> g, int rank = 2) {
  BlockIndices out;
  absl::Status s = m.Evaluate(g, rank, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(IndexMap, AcceptsCallablesOfEveryShape) {
  static_assert(!internal::kIsIndexMapCallable<int>);
  static_assert(internal::IndexMapArity<decltype([](int64_t, int64_t) { return 0; })>() == 2);
  static_assert(internal::IndexMapArity<decltype([] { return 0; })>() == 0);
  static_assert(internal::IndexMapArity<decltype([](absl::Span<const int64_t>) { return 0; })>() ==
                -1);
  EXPECT_THAT(Eval(IndexMap(), {3, 4}), ElementsAre(0, 0));
  EXPECT_THAT(Eval(IndexMap([](int64_t i, int64_t j) {
                     return BlockIndices{j, i};
                   }),
                   {3, 4}),
              ElementsAre(4, 3));
  EXPECT_THAT(Eval(IndexMap([](int64_t i, int64_t) { return i; }), {3, 4}), ElementsAre(3));
  EXPECT_THAT(Eval(IndexMap([](int i, int j) {
                     return std::pair{i, j};
                   }),
                   {3, 4}),
              ElementsAre(3, 4));
  EXPECT_THAT(Eval(IndexMap([](int64_t i, int64_t j) {
                     return std::tuple{i, 0, j};
                   }),
                   {3, 4}),
              ElementsAre(3, 0, 4));
  EXPECT_THAT(Eval(IndexMap([](int64_t i, int64_t) {
                     return std::vector<int>{1, static_cast<int>(i)};
                   }),
                   {3, 4}),
              ElementsAre(1, 3));
  EXPECT_THAT(Eval(IndexMap([](int64_t, int64_t j) { return std::array<int64_t, 1>{j}; }), {3, 4}),
              ElementsAre(4));
  EXPECT_THAT(
      Eval(IndexMap([](absl::Span<const int64_t> g) { return BlockIndices(g.begin(), g.end()); }),
           {3, 4, 5}),
      ElementsAre(3, 4, 5));
  EXPECT_THAT(Eval(IndexMap(&Twice), {5}), ElementsAre(10));
  EXPECT_EQ(IndexMap(&Twice).arity(), 1);
  BlockIndices out;
  IndexMap failing([](int64_t) -> absl::StatusOr<int64_t> { return absl::NotFoundError("x"); });
  EXPECT_EQ(failing.Evaluate({1}, 1, &out).code(), absl::StatusCode::kNotFound);
  IndexMap huge([](int64_t) { return ~uint64_t{0}; });
  EXPECT_THAT(huge.Evaluate({1}, 1, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not fit int64")));
}

TEST(IndexMap, Describe) {
  EXPECT_EQ(IndexMap().Describe(), "<zeros>");
  const int line = __LINE__ + 1;
  IndexMap lambda([](int64_t i) { return i; });
  // The caller's file and line (__builtin_FILE/__builtin_LINE defaults, also under clang 14).
  EXPECT_THAT(lambda.Describe(), HasSubstr(absl::StrCat("model_test.cc:", line)));
  EXPECT_THAT(lambda.Describe(), HasSubstr("<lambda> at "));
  BlockSpec converted({2}, [](int64_t i) { return i; });  // implicit conversion: this line
  EXPECT_THAT(converted.index_map().Describe(),
              HasSubstr(absl::StrCat("model_test.cc:", line + 4)));
  EXPECT_THAT(IndexMap(&Twice).Describe(), HasSubstr("<function> at "));
  EXPECT_THAT(IndexMap::Named("my_index_map", [](int64_t i) { return i; }).Describe(),
              HasSubstr("my_index_map at "));
  EXPECT_EQ(IndexMap::FromFunction("f", 1, nullptr).Describe(), "<zeros>");
}

TEST(BlockSpec, DefaultsAndPrinting) {
  BlockSpec whole;
  EXPECT_THAT(whole.Resolve({8, 6}), ElementsAre(Blocked(8), Blocked(6)));
  EXPECT_TRUE(whole.index_map().is_zeros());
  EXPECT_EQ(whole.ToString(), "BlockSpec(None, <zeros>)");
  BlockSpec s({2, std::nullopt},
              IndexMap::FromFunction("m", 2,
                                     [](absl::Span<const int64_t>, BlockIndices* o) {
                                       o->assign({0, 0});
                                       return absl::OkStatus();
                                     }),
              MemorySpace::kSmem);
  EXPECT_EQ(s.ToString(), "BlockSpec((Blocked(2), Squeezed()), m, memory_space=SMEM)");
  EXPECT_EQ(*ParseMemorySpace("hbm"), MemorySpace::kAny);
  EXPECT_FALSE(ParseMemorySpace("vram").ok());
}

}  // namespace
}  // namespace model_test
}  // namespace axe::pallas
