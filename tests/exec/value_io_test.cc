// exec::ParseValue, FormatValue and ToExactHostArray: 64-bit integers exactly, every other
// type as the interpreter's grammar gives it.
#include "axe/exec/value_io.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "axe/ir/eval_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe::exec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ValueIo, SixtyFourBitIntegersAreReadAndPrintedExactly) {
  absl::StatusOr<Value> a = ParseValue("i64[3]=9007199254740993,-9223372036854775808,7");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->data<int64_t>()[0], int64_t{9007199254740993});
  EXPECT_EQ(a->data<int64_t>()[1], INT64_MIN);
  EXPECT_EQ(FormatValue(*a), "[9007199254740993, -9223372036854775808, 7]");
  absl::StatusOr<Value> u = ParseValue("u64[2,2]=18446744073709551615");
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(FormatValue(*u),
            "[[18446744073709551615, 18446744073709551615], "
            "[18446744073709551615, 18446744073709551615]]");
  absl::StatusOr<Value> iota = ParseValue("i64[4]=iota");
  ASSERT_TRUE(iota.ok()) << iota.status();
  EXPECT_THAT(FormatElements(*iota), ElementsAre("0", "1", "2", "3"));
}

// Everything else is the interpreter's grammar: the same values and the same errors.
TEST(ValueIo, OtherTypesFollowTheInterpretersGrammar) {
  for (const char* spec : {"f32[3]=0.1,nan,-inf", "i32[2]=-7,1.5", "pred[2]=true,0", "bf16[1]=0.1",
                           "u8[2]=iota", "i64[2]=1.5,2", "f64[]=1e300"}) {
    absl::StatusOr<Value> typed = ParseValue(spec);
    absl::StatusOr<ir::HostArray> host = ir::ParseArgSpec(spec);
    ASSERT_TRUE(typed.ok() && host.ok()) << spec;
    EXPECT_EQ(FormatValue(*typed), ir::FormatValues(*host)) << spec;
  }
  for (const char* spec : {"i64[2]=1,x", "i64[3]=1,2", "i64", "q32[1]=1"}) {
    absl::StatusOr<Value> typed = ParseValue(spec);
    absl::StatusOr<ir::HostArray> host = ir::ParseArgSpec(spec);
    ASSERT_FALSE(typed.ok()) << spec;
    EXPECT_EQ(typed.status(), host.status()) << spec;
  }
}

TEST(ValueIo, TheInterpreterGetsOnlyWhatADoubleHolds) {
  absl::StatusOr<Value> fits = ParseValue("i64[2]=9007199254740992,-9007199254740992");
  ASSERT_TRUE(fits.ok()) << fits.status();
  absl::StatusOr<ir::HostArray> host = ToExactHostArray(*fits);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_THAT(host->values, ElementsAre(9007199254740992.0, -9007199254740992.0));
  absl::StatusOr<Value> past = ParseValue("u64[2]=1,9007199254740993");
  ASSERT_TRUE(past.ok()) << past.status();
  absl::StatusOr<ir::HostArray> refused = ToExactHostArray(*past);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("element 1 of u64[2] is 9007199254740993, past 2^53: the interpreter "
                        "holds u64 values exactly only up to 2^53"));
}

}  // namespace
}  // namespace axe::exec
