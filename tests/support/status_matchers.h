// gMock matchers for absl::Status and absl::StatusOr<T>.
//
//   EXPECT_THAT(Layout::Parse("S[4"), StatusIs(absl::StatusCode::kInvalidArgument,
//                                              HasSubstr("position 3")));
//   EXPECT_THAT(ParseDType("f32"), IsOkAndHolds(DType::kF32));
//   EXPECT_OK(status_or_value);
#ifndef AXE_TESTS_SUPPORT_STATUS_MATCHERS_H_
#define AXE_TESTS_SUPPORT_STATUS_MATCHERS_H_

#include <ostream>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"

namespace axe::testing_support {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr whose code is `code` and whose message matches `message`
// (a string: equality; or any string matcher).
MATCHER_P2(StatusIs, code, message,
           absl::StrCat("has status code ", absl::StatusCodeToString(code), " and a message that ",
                        ::testing::DescribeMatcher<std::string>(message, negation))) {
  const absl::Status& status = ::axe::testing_support::GetStatus(arg);
  *result_listener << "whose status is " << status;
  if (status.code() != code) return false;
  return ::testing::ExplainMatchResult(::testing::SafeMatcherCast<const std::string&>(message),
                                       std::string(status.message()), result_listener);
}

// Matches an OK StatusOr whose value matches `value`.
MATCHER_P(
    IsOkAndHolds, value,
    absl::StrCat("is OK and holds a value that ",
                 ::testing::DescribeMatcher<typename std::remove_cvref_t<arg_type>::value_type>(
                     value, negation))) {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value, *arg, result_listener);
}

// Matches an OK Status or StatusOr.
MATCHER(IsOk, negation ? "is not OK" : "is OK") {
  const absl::Status& status = ::axe::testing_support::GetStatus(arg);
  *result_listener << "whose status is " << status;
  return status.ok();
}

}  // namespace axe::testing_support

#define EXPECT_OK(expr) EXPECT_THAT((expr), ::axe::testing_support::IsOk())
#define ASSERT_OK(expr) ASSERT_THAT((expr), ::axe::testing_support::IsOk())

#endif  // AXE_TESTS_SUPPORT_STATUS_MATCHERS_H_
