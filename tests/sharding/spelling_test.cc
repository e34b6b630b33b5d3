// One answer per sharding whatever its spelling: every iota tile assignment over up to 12
// devices (every tile dims, reshape dims and transpose of up to three dims each), written as
// an iota and as its explicit device list, must read as equal shardings and be explained the
// same way: the same NamedSharding (or the same reason there is none), the same Axe layout,
// the same device map and the same canonical HLO text (the iota).
#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace axe::sharding {
namespace spelling_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

// Every ordered factorization of n into 1..max_len factors > 1 (and [1] for n == 1, [1, n]).
std::vector<std::vector<int64_t>> Factorizations(int64_t n, size_t max_len) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> current;
  std::function<void(int64_t)> extend = [&](int64_t rest) {
    if (rest == 1 && !current.empty()) out.push_back(current);
    if (current.size() == max_len) return;
    for (int64_t f = 2; f <= rest; ++f) {
      if (rest % f != 0) continue;
      current.push_back(f);
      extend(rest / f);
      current.pop_back();
    }
  };
  extend(n);
  out.push_back({1, n});  // a size-1 tile dim
  if (n == 1) out.push_back({1});
  return out;
}

template <typename T>
std::string ToText(const absl::StatusOr<T>& value) {
  if (!value.ok()) return absl::StrCat("error: ", value.status().message());
  return value->ToString();
}

// Everything explain says about a sharding, as one comparable text.
std::string Answers(const HloSharding& hlo, const std::vector<int64_t>& shape, int64_t n) {
  std::string out = absl::StrCat("named ", ToText(HloToNamedSharding(hlo, shape.size(), n)));
  absl::StrAppend(&out, "\naxe ", ToText(HloShardingToAxe(shape, hlo, std::nullopt, n)));
  absl::StatusOr<ShardingExplanation> e =
      ExplainHloSharding(shape, hlo, std::nullopt, n, ExplainOptions{});
  if (!e.ok()) return absl::StrCat(out, "\nexplain error: ", e.status().message());
  absl::StrAppend(&out, "\nexplained hlo ", e->hlo.text.value_or(e->hlo.reason));
  absl::StrAppend(&out, "\nexplained named ", e->named.text.value_or(e->named.reason));
  absl::StrAppend(&out, "\nexplained axe ", e->axe.text.value_or(e->axe.reason));
  for (const DeviceShard& d : e->devices) {
    absl::StrAppend(&out, "\n", d.device, " ", d.replica_group, " ", d.IndexToString());
  }
  return out;
}

TEST(SpellingTest, IotaAndExplicitListsGiveOneAnswer) {
  int cases = 0;
  int expressible = 0;
  for (int64_t n = 1; n <= 12; ++n) {
    for (const std::vector<int64_t>& tile_dims : Factorizations(n, 3)) {
      for (const std::vector<int64_t>& reshape : Factorizations(n, 3)) {
        std::vector<int64_t> perm(reshape.size());
        std::iota(perm.begin(), perm.end(), 0);
        do {
          absl::StatusOr<TileAssignment> iota = TileAssignment::Iota(tile_dims, reshape, perm);
          ASSERT_TRUE(iota.ok()) << iota.status();
          std::vector<int64_t> devices;
          for (int64_t f = 0; f < n; ++f) devices.push_back(iota->DeviceAtFlat(f));
          for (bool replicate_last : {false, true}) {
            if (replicate_last && tile_dims.size() < 2) continue;
            const std::string suffix = replicate_last ? " last_tile_dim_replicate}" : "}";
            const std::string iota_text = absl::StrCat("{", iota->ToString(), suffix);
            const std::string list_text = absl::StrCat("{devices=[", absl::StrJoin(tile_dims, ","),
                                                       "]", absl::StrJoin(devices, ","), suffix);
            SCOPED_TRACE(iota_text + " vs " + list_text);
            const HloSharding a = ParseHlo(iota_text);
            const HloSharding b = ParseHlo(list_text);
            // Each prints as written (as XLA does); they are equal, with one canonical form.
            EXPECT_EQ(a.ToString(), iota_text);
            EXPECT_EQ(b.ToString(), list_text);
            EXPECT_EQ(a, b);
            EXPECT_EQ(b.Canonical().ToString(), iota_text);
            ASSERT_TRUE(b.tiles()->AsIota().has_value());
            std::vector<int64_t> shape;
            for (size_t i = 0; i < b.TiledDataRank(); ++i) shape.push_back(2 * tile_dims[i]);
            const std::string answer = Answers(a, shape, n);
            EXPECT_EQ(answer, Answers(b, shape, n));
            expressible += answer.find("named NamedSharding") != std::string::npos;
            ++cases;
          }
        } while (std::next_permutation(perm.begin(), perm.end()));
      }
    }
  }
  EXPECT_EQ(cases, 812);          // every spelling pair enumerated above
  EXPECT_EQ(expressible, cases);  // an iota over 0..N-1 is always some mesh's sharding
}

TEST(SpellingTest, ListsThatAreNoIotaStayLists) {
  for (const char* text : {"{devices=[4]0,2,3,1}", "{devices=[2,2]3,2,1,0}", "{devices=[2]4,5}",
                           "{devices=[3]1,2,0}"}) {
    SCOPED_TRACE(text);
    const HloSharding s = ParseHlo(text);
    EXPECT_FALSE(s.tiles()->AsIota().has_value());
    EXPECT_EQ(s.Canonical().ToString(), text);
  }
}

TEST(SpellingTest, TransposedIotaWithUnevenCutIsExpressible) {
  // The tile dims [2,3] cut the transposed iota's dims (3, 2) unevenly; the device list
  // 0,3,1,4,2,5 is still a mesh's device array.
  const HloSharding s = ParseHlo("{devices=[2,3]<=[2,3]T(1,0)}");
  absl::StatusOr<NamedSharding> named = HloToNamedSharding(s, 2, 6);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->ToString(),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 3, devices=[0, 3, 1, 4, 2, 5]), "
            "spec=P('x0', 'x1'))");
  EXPECT_EQ(ParseHlo("{devices=[2,3]0,3,1,4,2,5}"), s);
}

}  // namespace
}  // namespace spelling_test
}  // namespace axe::sharding
