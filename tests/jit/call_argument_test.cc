#include "axe/jit/call_argument.h"

#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace call_argument_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(ParseCallArgumentSpecTest, ReadsTheWordsLayoutsAndFormats) {
  absl::StatusOr<CallArgumentSpec> plain = ParseCallArgumentSpec("uncommitted");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->committed);
  EXPECT_FALSE(plain->layout.has_value());
  EXPECT_EQ(DevicesNeeded(*plain), 1);
  absl::StatusOr<CallArgumentSpec> single =
      ParseCallArgumentSpec("committed Format(None, SingleDeviceSharding(device=3))");
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_TRUE(single->committed);
  EXPECT_EQ(DevicesNeeded(*single), 4);
  EXPECT_THAT(ParseCallArgumentSpec("maybe"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got 'maybe'")));
}

// Found by the call_argument fuzz target: DevicesNeeded added 1 to any device id, a signed
// overflow for SingleDeviceSharding(device=9223372036854775807).
TEST(ParseCallArgumentSpecTest, RefusesADeviceBeyondTheMeshLimit) {
  EXPECT_THAT(ParseCallArgumentSpec("uncommitted Format(Layout((0,)), "
                                    "SingleDeviceSharding(device=9223372036854775807))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 12: device 9223372036854775807 is beyond the 65536 "
                                 "devices")));
  absl::StatusOr<CallArgumentSpec> last =
      ParseCallArgumentSpec("uncommitted Format(None, SingleDeviceSharding(device=65535))");
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(DevicesNeeded(*last), 65536);
}

}  // namespace
}  // namespace call_argument_test
}  // namespace axe::jit
