#include "axe/sharding/hlo_instruction.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::sharding {
namespace hlo_instruction_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(HloInstructionTest, ReadsTheShardingOfADumpLine) {
  const char* line =
      "%dot.3 = f32[8,8]{1,0} dot(f32[8,4]{1,0} %a, f32[4,8]{1,0} %b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate "
      "metadata={op_name=\"jit(f)/dot {x}\"}}";
  EXPECT_TRUE(IsShardedInstruction(line));
  absl::StatusOr<ShardedInstruction> r = ParseShardedInstruction(line);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result.ToString(), "f32[8,8]{1,0}");
  EXPECT_EQ(r->sharding.ToString(),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name=\"jit(f)/dot {x}\"}}");
  // A parameter line; out_sharding= is not the attribute.
  r = ParseShardedInstruction(
      "%p = bf16[4]{0} parameter(0), out_sharding={replicated}, sharding={maximal device=1}");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->sharding.ToString(), "{maximal device=1}");
}

// The instruction is the one on the attribute's line, read up to the attribute: a metadata
// string with line breaks and instruction-like text inside used to be scanned as more HLO
// lines, so a line rebuilt from a parsed instruction did not read back (found by the
// sharded_instruction fuzz target, fuzz/corpus/sharded_instruction/metadata-lines-regression).
TEST(HloInstructionTest, OnlyTheAttributesOwnInstructionIsRead) {
  const char* line =
      "%x = f32[8,8]{1,0} parameter(0), sharding={replicated metadata={op_name=\"a\n"
      "cd = f32[8,6]{0,1} broken(f32[8,6] %a, \"}}";
  absl::StatusOr<ShardedInstruction> r = ParseShardedInstruction(line);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result.ToString(), "f32[8,8]{1,0}");
  // Earlier lines of a pasted module are not the instruction either.
  r = ParseShardedInstruction(
      "%a = f32[2]{0} parameter(0)\n%b = s32[4]{0} parameter(1), sharding={maximal device=1}");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result.ToString(), "s32[4]{0}");
}

TEST(HloInstructionTest, BareShardingsAreNotInstructions) {
  EXPECT_FALSE(IsShardedInstruction("{devices=[2]0,1}"));
  EXPECT_FALSE(IsShardedInstruction("%x = f32[2]{0} add(%a, %b)"));
}

TEST(HloInstructionTest, Errors) {
  EXPECT_THAT(ParseShardedInstruction("%x = f32[2]{0} add(%a, %b)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no sharding= attribute")));
  EXPECT_THAT(ParseShardedInstruction("%x = f32[2]{0} add(%a, %b), sharding={devices=[2]0,1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("never closed")));
  EXPECT_THAT(
      ParseShardedInstruction("%x = f32[2]{0} add(%a, %b), sharding={devices=[2]0,0}"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("in the sharding at position 37: position 14: device 0 is not unique")));
}

}  // namespace
}  // namespace hlo_instruction_test
}  // namespace axe::sharding
