// ScanHlo: the shapes of pasted HLO instruction lines and modules, and their bounds.
#include "axe/xla/hlo_text.h"

#include <string>

#include "absl/strings/match.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::xla {
namespace hlo_text_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

constexpr char kFusionLine[] =
    "%fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} "
    "fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} "
    "%fusion.32), kind=kCustom, calls=%fused_computation.3";

TEST(HloText, InstructionLine) {
  absl::StatusOr<HloText> h = ScanHlo(kFusionLine);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->instructions.size(), 1u);
  const HloInstruction& ins = h->instructions[0];
  EXPECT_EQ(ins.name, "%fusion.3");
  EXPECT_EQ(ins.opcode, "fusion");
  EXPECT_EQ(ins.line, 1u);
  EXPECT_EQ(ins.result.ToString(), "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}");
  ASSERT_EQ(ins.operands.size(), 1u);
  EXPECT_EQ(ins.operands[0].name, "%fusion.32");
  ASSERT_TRUE(ins.operands[0].shape.has_value());
  EXPECT_EQ(ins.operands[0].shape->ToString(), "bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}");
  EXPECT_TRUE(LooksLikeHlo(kFusionLine));
  EXPECT_FALSE(LooksLikeHlo("bf16[32,32,4096]{2,1,0}"));
  EXPECT_FALSE(LooksLikeHlo("(f32[2]{0}, s32[])"));
  EXPECT_FALSE(LooksLikeHlo(""));
  EXPECT_TRUE(LooksLikeHlo("// a dump\n\nHloModule m\n"));
  EXPECT_TRUE(LooksLikeHlo("ENTRY %main () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n"));
  EXPECT_TRUE(LooksLikeHlo("%comp (p: f32[2]) -> f32[2] {\n}\n"));
}

// Regression: "}  // end" did not end the computation, so the instructions after it were
// credited to the computation before.
TEST(HloText, ClosingBraceWithCommentEndsTheComputation) {
  absl::StatusOr<HloText> h = ScanHlo(
      "%c (p: f32[2]) -> f32[2] {\n"
      "  ROOT %p = f32[2]{0} parameter(0)\n"
      "}  // end of %c   \n"
      "%x = f32[] constant(1)\n");
  ASSERT_OK(h.status());
  ASSERT_EQ(h->instructions.size(), 2u);
  EXPECT_EQ(h->instructions[0].computation, "%c");
  EXPECT_EQ(h->instructions[1].computation, "");
}

TEST(HloText, ModuleWithEntryLayoutComputationsTuplesAndLiterals) {
  const std::string module =
      "HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8]{0}, "
      "s4[16]{0:E(4)S(1)})->"
      "(f32[8]{0}, f32[]{:S(5)})}, allow_spmd_sharding_propagation_to_output={true}\n"
      "\n"
      "%fused_computation (param_0.1: f32[8]) -> f32[8] {\n"
      "  %param_0.1 = f32[8]{0} parameter(0)\n"
      "  ROOT %negate.1 = f32[8]{0} negate(f32[8]{0} %param_0.1)\n"
      "}\n"
      "\n"
      "ENTRY %main.5 (Arg_0.1: f32[8], Arg_1.2: s4[16]) -> (f32[8], f32[]) {\n"
      "  %Arg_0.1 = f32[8]{0} parameter(0), metadata={op_name=\"x\"}\n"
      "  %Arg_1.2 = s4[16]{0:E(4)S(1)} parameter(1)\n"
      "  %constant.3 = f32[]{:S(5)} constant(0.5)\n"
      "  %fusion = f32[8]{0} fusion(f32[8]{0} %Arg_0.1), kind=kLoop, calls=%fused_computation\n"
      "  ROOT %tuple.4 = (f32[8]{0}, f32[]{:S(5)}) tuple(%fusion, %constant.3)\n"
      "}\n";
  absl::StatusOr<HloText> h = ScanHlo(module);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->module_name, "jit_f");
  ASSERT_TRUE(h->entry_computation_layout.has_value());
  EXPECT_EQ(h->entry_computation_layout->parameters.size(), 2u);
  EXPECT_EQ(h->entry_computation_layout->result.ToString(), "(f32[8]{0}, f32[]{:S(5)})");
  ASSERT_EQ(h->instructions.size(), 7u);
  EXPECT_EQ(h->instructions[0].computation, "%fused_computation");
  EXPECT_TRUE(h->instructions[1].is_root);
  EXPECT_EQ(h->instructions[2].computation, "%main.5");
  EXPECT_EQ(h->instructions[2].line, 9u);
  EXPECT_TRUE(h->instructions[4].operands.empty());  // constant(0.5) is a literal
  const HloInstruction& tuple = h->instructions[6];
  EXPECT_EQ(tuple.opcode, "tuple");
  ASSERT_EQ(tuple.operands.size(), 2u);
  EXPECT_EQ(tuple.operands[1].name, "%constant.3");
  EXPECT_FALSE(tuple.operands[1].shape.has_value());
  absl::StatusOr<std::vector<MemorySpaceTotal>> totals = ResultBytesByMemorySpace(*h);
  ASSERT_TRUE(totals.ok()) << totals.status();
  ASSERT_EQ(totals->size(), 3u);
  // Space 0: param_0.1, negate.1, Arg_0.1 and fusion, 32 bytes each; the tuple aliases them.
  EXPECT_EQ((*totals)[0].memory_space, 0);
  EXPECT_EQ((*totals)[0].buffers, 4);
  EXPECT_EQ((*totals)[0].array_size_bytes, 128);
  EXPECT_EQ((*totals)[1].memory_space, 1);
  EXPECT_EQ((*totals)[1].array_size_bytes, 8);  // s4[16] packed: 8 bytes
  EXPECT_EQ((*totals)[2].memory_space, 5);
  EXPECT_EQ((*totals)[2].buffers, 1);
  EXPECT_EQ((*totals)[2].array_size_bytes, 4);
}

// XLA prints operand names with '%' in dumps and compiled text, without it in
// as_hlo_text(); a constant's literal is never an operand.
TEST(HloText, OperandNamesWithOrWithoutPercentAndAttributes) {
  absl::StatusOr<HloInstruction> ins =
      ScanHloInstruction("add.3 = f32[2]{0} add(x.1, y.2), sharding={replicated}");
  ASSERT_TRUE(ins.ok()) << ins.status();
  ASSERT_EQ(ins->operands.size(), 2u);
  EXPECT_EQ(ins->operands[0].name, "x.1");
  EXPECT_EQ(ins->operands[1].name, "y.2");
  EXPECT_EQ(std::string("add.3 = f32[2]{0} add(x.1, y.2), sharding={replicated}")
                .substr(ins->attributes_at),
            ", sharding={replicated}");
  for (const char* literal : {"%t = pred[] constant(true)", "%c = s32[2]{0} constant({1, 2})",
                              "%n = f32[] constant(nan)"}) {
    absl::StatusOr<HloInstruction> c = ScanHloInstruction(literal);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(c->operands.empty()) << literal;
  }
  absl::StatusOr<HloText> h = ScanHlo(
      "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n"
      "  ROOT b = f32[] negate(a), metadata={op_name=\"n\"}\n}\n");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->instructions[1].operands[0].name, "a");
  EXPECT_EQ(std::string("HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n"
                        "  ROOT b = f32[] negate(a), metadata={op_name=\"n\"}\n}\n")
                .substr(h->instructions[1].attributes_at, 10),
            ", metadata");
}

TEST(HloText, ErrorsNameTheLineAndBoundsHold) {
  EXPECT_THAT(ScanHlo("HloModule m\n\nENTRY %e () -> f32[] {\n  %c = f128[] constant(1)\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 4: position 5: unknown element type 'f128'")));
  EXPECT_THAT(
      ScanHlo("%a = f32[2,3]{0,0} negate(f32[2]{0} %b)"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1: position 5: result shape:")));
  EXPECT_THAT(
      ScanHlo("%a = f32[2]{0} negate(f32[2]{0} %b"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("',' or ')' in the operand list")));
  EXPECT_THAT(ScanHlo("just words"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no HLO instruction")));
  std::string many;
  for (int i = 0; i < 20; ++i) many += "%a = f32[] add(f32[] %b, f32[] %c)\n";
  EXPECT_THAT(ScanHlo(many, {.max_instructions = 10}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 10 instructions")));
  EXPECT_THAT(ScanHlo("%a = f32[] add(f32[] %b, f32[] %c, f32[] %d)", {.max_operands = 2}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 2 operands")));
  EXPECT_THAT(ScanHlo(std::string(100, ' '), {.max_text_bytes = 10}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("over the limit")));
  // 100,000 nested parentheses in an operand shape: the parser's depth limit, no crash.
  std::string deep =
      "%a = f32[] tuple(" + std::string(100000, '(') + "f32[]" + std::string(100000, ')') + " %b)";
  // The operand's shape fails to parse (too deep), so it is skipped like a literal: the
  // instruction is read, with no operand recorded.
  absl::StatusOr<HloText> h = ScanHlo(deep);
  ASSERT_OK(h.status());
  ASSERT_EQ(h->instructions.size(), 1u);
  EXPECT_EQ(h->instructions[0].opcode, "tuple");
  EXPECT_TRUE(h->instructions[0].operands.empty());
  // A literal with unbalanced brackets cannot run past the line.
  EXPECT_FALSE(ScanHlo("%c = f32[2] constant({1, 2)").ok());
}

}  // namespace
}  // namespace hlo_text_test
}  // namespace axe::xla
