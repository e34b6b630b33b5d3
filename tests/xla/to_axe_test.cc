// ToAxe / FromAxe: golden examples and the equivalence property over whole domains.
#include "axe/xla/to_axe.h"

#include <cstdlib>
#include <iostream>
#include <random>

#include "axe/base/int_list.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/random_shape.h"

namespace axe::xla {
namespace to_axe_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

AxeForm Form(absl::string_view text) {
  absl::StatusOr<AxeForm> f = ToAxe(text);
  EXPECT_TRUE(f.ok()) << text << ": " << f.status();
  return f.ok() ? *f : AxeForm{*axe::Layout::RowMajor({1}), {}, {}, {}};
}

// Axe apply equals the nested linear index on every element of the real box.
void ExpectExact(const Shape& s, const AxeForm& f) {
  TilingMap m = *TilingMap::Create(s);
  std::vector<int64_t> idx(s.dimensions().size(), 0);
  const int64_t n = [&] {
    int64_t p = 1;
    for (int64_t d : s.dimensions()) p *= d;
    return p;
  }();
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = rest % s.dimensions(d);
      rest /= s.dimensions(d);
    }
    absl::StatusOr<PhysCoord> p = ApplyBase(f.layout, f.domain, *f.DomainIndex(idx));
    ASSERT_TRUE(p.ok()) << s << ": " << p.status();
    ASSERT_EQ(p->get(Axis::Memory()), *m.LinearIndex(idx))
        << s << " index " << FormatTuple(idx) << " axe " << f.layout;
  }
}

TEST(ToAxe, FigureOneA) {
  AxeForm f = Form("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(f.layout.ToString(), "S[(2,2,3,2):(12,2,4,1)]");
  EXPECT_THAT(f.domain, ElementsAre(4, 6));
  EXPECT_THAT(f.real_dims, ElementsAre(3, 5));
  EXPECT_TRUE(f.padded());
  EXPECT_EQ(ApplyBase(f.layout, f.domain, {2, 3})->get(Axis::Memory()), 17);
}

TEST(ToAxe, FigureTwoB) {
  AxeForm f = Form("f32[4,8]{1,0:T(2,4)(2,1)}");
  EXPECT_EQ(f.layout.ToString(), "S[(2,2,2,4):(16,1,8,2)]");
  EXPECT_THAT(f.domain, ElementsAre(4, 8));
  EXPECT_FALSE(f.padded());
}

TEST(ToAxe, TpuExamples) {
  AxeForm f = Form("bf16[16,256]{1,0:T(8,128)(2,1)}");
  EXPECT_THAT(f.domain, ElementsAre(16, 256));
  ExpectExact(*ParseShape("bf16[16,256]{1,0:T(8,128)(2,1)}"), f);
  AxeForm tour = Form("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
  EXPECT_THAT(tour.domain, ElementsAre(8, 1, 1280, 16384));
  AxeForm vmem = Form("bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}");
  EXPECT_THAT(vmem.domain, ElementsAre(32, 32, 4096));
  // A padded box: (1,5) under T(8,128) lives in an 8x128 tile.
  AxeForm small = Form("f32[1,5]{1,0:T(8,128)}");
  EXPECT_THAT(small.domain, ElementsAre(8, 128));
  EXPECT_EQ(small.layout.ToString(), "S[(8,128):(128,1)]");
  EXPECT_EQ(Canonicalize(small.layout).ToString(), "S[1024:1]");
  // A scalar under T(256).
  AxeForm scalar = Form("f32[]{:T(256)}");
  EXPECT_TRUE(scalar.domain.empty());
  EXPECT_EQ(scalar.layout.ToString(), "S[1:1]");
}

TEST(ToAxe, CombinedDimsMergeThePaddedDomainDims) {
  // RT-19: dims 1 and 2 fold (3·1004 = 3012) and pad to 3072: one domain dim.
  AxeForm f = Form("bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  EXPECT_THAT(f.domain, ElementsAre(2, 3072));
  ASSERT_EQ(f.domain_dims.size(), 2u);
  EXPECT_EQ(f.domain_dims[1].first_dim, 1);
  EXPECT_EQ(f.domain_dims[1].last_dim, 2);
  EXPECT_THAT(f.domain_dims[1].weights, ElementsAre(1004, 1));
  EXPECT_THAT(*f.DomainIndex({1, 2, 7}), ElementsAre(1, 2015));
  ExpectExact(*ParseShape("bf16[2,3,1004]{2,1,0:T(2,*,128)}"), f);
  // Without padding the folded dims stay separate.
  AxeForm g = Form("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  EXPECT_THAT(g.domain, ElementsAre(2, 7, 8, 111));
  ExpectExact(*ParseShape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"), g);
  // Folded dims that do not pad keep their own domain dims.
  EXPECT_THAT(Form("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,5)}").domain,
              ElementsAre(2, 7, 8, 11, 10));
}

TEST(ToAxe, NotExpressible) {
  // [J]: the second level pads the within-tile rows (8 -> 9): padding inside a split dim.
  absl::StatusOr<AxeForm> j = ToAxe("f32[8,128]{1,0:T(8,128)(3,1)}");
  EXPECT_EQ(j.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(j.status().message()), HasSubstr("not expressible as an Axe layout"));
  EXPECT_THAT(std::string(j.status().message()), HasSubstr("tile level 2"));
  EXPECT_THAT(std::string(ToAxe("f32[0,4]").status().message()), HasSubstr("no elements"));
  EXPECT_FALSE(ToAxe("(f32[2])").ok());
  EXPECT_FALSE(ToAxe("f32[?]").ok());
}

TEST(ToAxe, BufferUsesItsArray) {
  EXPECT_EQ(Form("b(f32[4,8]{0,1})").layout.ToString(), "S[(4,8):(1,4)]");
}

// The key property: over hundreds of seeded random shapes, layouts and nested tilings
// (padding, `*` dims, tiles longer than the rank, (q,1) packing), Axe apply of ToAxe equals
// the nested linear index for every element of the real box.
TEST(ToAxe, EqualsNestedLinearIndexOnRandomShapes) {
  std::mt19937_64 rng(7);
  int expressible = 0, padded = 0, merged = 0, total = 0;
  for (int n = 0; n < 1200; ++n) {
    Shape s = testing::RandomTiledShape(rng, {.prefer_descending = n % 2 == 1});
    int64_t elements = 1;
    for (int64_t d : s.dimensions()) elements *= d;
    if (elements == 0) continue;
    ++total;
    absl::StatusOr<AxeForm> f = ToAxe(s);
    if (!f.ok()) {
      ASSERT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition)
          << s << ": " << f.status();
      if (getenv("AXE_XLA_DEBUG") != nullptr) std::cout << f.status().message() << "\n";
      continue;
    }
    ++expressible;
    padded += f->padded();
    merged += f->domain.size() != f->real_dims.size();
    ExpectExact(s, *f);
  }
  // Most random tilings are expressible, padding and merged domains included.
  EXPECT_GT(expressible, total * 3 / 4) << expressible << " of " << total;
  EXPECT_GT(padded, 100);
  EXPECT_GT(merged, 3);
  std::cout << "expressible " << expressible << " of " << total << ", padded " << padded
            << ", merged " << merged << "\n";
}

TEST(FromAxe, Golden) {
  // [B]: the canonical digits (2@16, 2@1 | 8@2) give T(2,8)(2,1), the same map as T(2,4)(2,1).
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[(2,2,2,4):(16,1,8,2)]"), {4, 8}),
            *ParseLayout("{1,0:T(2,8)(2,1)}"));
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[(4,8):(1,4)]"), {4, 8}), *ParseLayout("{0,1}"));
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[32:1]"), {4, 8}), *ParseLayout("{1,0}"));
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[(2,8,2,128):(2048,128,1024,1)]"), {16, 256}),
            *ParseLayout("{1,0:T(8,128)}"));
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[1:1]"), {}), Layout());
  EXPECT_EQ(*FromAxe(*axe::Layout::Parse("S[(1,4):(1,1)]"), {1, 4, 1}), *ParseLayout("{1,2,0}"));
}

TEST(FromAxe, NotExpressible) {
  for (const char* text :
       {"S[4:1] + R[2:4]", "S[4:1] + 3", "S[4:2@reg]", "S[(2,2):(1,1)]", "S[4:-1]"}) {
    absl::StatusOr<Layout> l = FromAxe(*axe::Layout::Parse(text), {4});
    EXPECT_EQ(l.status().code(), absl::StatusCode::kFailedPrecondition) << text;
    EXPECT_THAT(std::string(l.status().message()), HasSubstr("not expressible as an XLA layout"))
        << text;
  }
  EXPECT_THAT(std::string(FromAxe(*axe::Layout::Parse("S[(2,2):(1,1)]"), {4}).status().message()),
              HasSubstr("tried: untiled, single-level tiling"));
  EXPECT_FALSE(FromAxe(*axe::Layout::Parse("S[8:1]"), {4}).ok());
}

// Round trip: whatever ToAxe gives over an unpadded domain, FromAxe recovers a layout with
// the same map (and a returned layout is always verified).
TEST(FromAxe, RecoversRandomLayouts) {
  std::mt19937_64 rng(11);
  int recovered = 0, tried = 0;
  for (int n = 0; n < 400; ++n) {
    Shape s =
        testing::RandomTiledShape(rng, {.max_rank = 3, .max_levels = 2, .allow_combine = false});
    absl::StatusOr<AxeForm> f = ToAxe(s);
    if (!f.ok() || f->padded()) continue;
    ++tried;
    absl::StatusOr<Layout> l = FromAxe(f->layout, f->real_dims);
    if (!l.ok()) {
      ASSERT_EQ(l.status().code(), absl::StatusCode::kFailedPrecondition) << s;
      continue;
    }
    ++recovered;
    AxeForm g = *ToAxe(s.WithLayout(*l));
    EXPECT_TRUE(*Equivalent(g.layout, f->layout)) << s << " -> " << *l;
  }
  EXPECT_GT(recovered, tried * 7 / 10) << recovered << " of " << tried;
}

}  // namespace
}  // namespace to_axe_test
}  // namespace axe::xla
