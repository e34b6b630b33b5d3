// Test support: parse a shape the test knows to be valid (a parse failure fails the test).
#ifndef AXE_TESTS_XLA_PARSE_FOR_TEST_H_
#define AXE_TESTS_XLA_PARSE_FOR_TEST_H_

#include "absl/strings/string_view.h"
#include "axe/xla/text.h"
#include "gtest/gtest.h"

namespace axe::xla::testing {

inline Shape ParsedShape(absl::string_view text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : Shape();
}

}  // namespace axe::xla::testing

#endif  // AXE_TESTS_XLA_PARSE_FOR_TEST_H_
