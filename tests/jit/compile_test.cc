#include "axe/jit/compile.h"

#include <string>
#include <vector>

#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace compile_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

ir::ClosedJaxpr Parse(absl::string_view text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? *j : ir::ClosedJaxpr();
}

Format F(absl::string_view text) {
  absl::StatusOr<Format> f = Format::Parse(text);
  EXPECT_TRUE(f.ok()) << text << ": " << f.status();
  return f.ok() ? *f : Format();
}

constexpr char kTranspose[] = R"({ lambda ; a:f32[16,128]. let
    b:f32[128,16] = transpose[permutation=(1, 0)] a
  in (b,) })";

// [LT-5] through the compile step: input (0, 1) on one device, output AUTO.
TEST(CompileTest, FormatsOfATranspose) {
  absl::StatusOr<Compiled> c =
      Compile(Parse(kTranspose), {F("Format(Layout((0, 1)), SingleDeviceSharding(device=0))")},
              {F("Format(Layout.AUTO)")});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->input_formats()[0].ToString(),
            "Format(layout=Layout(major_to_minor=(0, 1), tiling=(), "
            "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(device=0))");
  EXPECT_EQ(c->output_formats()[0].ToString(),
            "Format(layout=Layout(major_to_minor=(1, 0), tiling=(), "
            "sub_byte_element_size_in_bits=0), sharding=None)");
  ASSERT_EQ(c->plan().explain.size(), 1u);
}

TEST(CompileTest, ChecksShardingsAndLayoutsAgainstTheValues) {
  EXPECT_THAT(Compile(Parse(kTranspose),
                      {F("Format(Layout((0, 1)), NamedSharding(Mesh('x': 3), P('x')))")}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of jit arguments was given the sharding of")));
  EXPECT_THAT(
      Compile(Parse(kTranspose), {F("Format(Layout((0,)), SingleDeviceSharding(device=0))")}, {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("One of jit arguments with pytree key path args[0] is incompatible "
                         "with its layout annotation")));
  EXPECT_THAT(Compile(Parse(kTranspose), {std::nullopt, std::nullopt}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the program has 1 inputs but 2 input formats were given")));
}

}  // namespace
}  // namespace compile_test
}  // namespace axe::jit
