// ParseHloModule, ParseReplicaGroups and SummarizeHloModule on small modules written here.
#include <string>
#include <vector>

#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"
#include "axe/sharding/hlo_replica_groups.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::sharding {
namespace hlo_module_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int64_t>>;

// A partitioned module: 8 devices, a sharded parameter, an all-reduce, an all-gather and a
// collective-permute.
constexpr char kModule[] = R"(HloModule jit_f, is_scheduled=true, num_partitions=8

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

ENTRY %main.0_spmd (p: f32[4,16]) -> (f32[4,16], f32[32,16]) {
  %p = f32[4,16]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}, metadata={op_name="x"}
  %ar = f32[4,16]{1,0} all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8], to_apply=%add
  %ag = f32[32,16]{1,0} all-gather(%ar), channel_id=2, replica_groups=[1,8]<=[8], dimensions={0}
  %cp = f32[4,16]{1,0} collective-permute(%ar), channel_id=3, source_target_pairs={{0,1},{1,0}}
  ROOT %t = (f32[4,16]{1,0}, f32[32,16]{1,0}) tuple(%cp, %ag)
}
)";

TEST(HloModuleTest, ReadsComputationsInstructionsAndAttributes) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->name, "jit_f");
  ASSERT_EQ(m->computations.size(), 2u);
  EXPECT_EQ(m->computations[1].name, "%main.0_spmd");
  ASSERT_TRUE(m->entry.has_value());
  EXPECT_EQ(*m->entry, 1u);
  ASSERT_EQ(m->instructions.size(), 8u);
  const ModuleInstruction& ar = m->instructions[4];
  EXPECT_EQ(ar.opcode, "all-reduce");
  EXPECT_EQ(ar.channel_id, 1);
  EXPECT_EQ(ar.replica_groups, "[2,4]<=[8]");
  EXPECT_EQ(ar.replica_groups_column, 69u);
  ASSERT_EQ(ar.operand_names.size(), 1u);
  EXPECT_FALSE(ar.written_operand_shapes[0].has_value());  // compiled text omits it
  ASSERT_NE(m->OperandShape(ar, 0), nullptr);              // looked up
  EXPECT_EQ(m->OperandShape(ar, 0)->ToString(), "f32[4,16]{1,0}");
  EXPECT_EQ(m->instructions[3].sharding->ToString(), "{devices=[2,4]<=[8]}");
  EXPECT_EQ(m->instructions[5].dimensions, "{0}");
  EXPECT_EQ(m->instructions[6].source_target_pairs, "{{0,1},{1,0}}");
  EXPECT_TRUE(m->partitioning.partitioned);
}

TEST(HloModuleTest, NamesWithoutPercentAreOperandsToo) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(
      "HloModule m\n\nENTRY main.1 {\n  x.1 = f32[2]{0} parameter(0)\n"
      "  ROOT n.2 = f32[2]{0} negate(x.1)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->instructions[1].operand_names, ElementsAre("x.1"));
  EXPECT_NE(m->OperandShape(m->instructions[1], 0), nullptr);
}

TEST(HloModuleTest, ConstantLiteralsAreNotOperands) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(
      "HloModule m\n\nENTRY main.1 {\n  t = pred[] constant(true), sharding={replicated}\n"
      "  ROOT c = s32[2]{0} constant({1, 2})\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->instructions[0].operand_names.empty());
  EXPECT_TRUE(m->instructions[0].sharding.has_value());
  EXPECT_TRUE(m->instructions[1].operand_names.empty());
}

TEST(HloModuleTest, ErrorsNameLineAndColumn) {
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY %e () -> f32[] {\n  %c = f33[] constant(1)\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3, column 8:")));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY %e () -> f32[] {\n  %c = f32[] constant(1), "
                             "sharding={devices=[2]0,0}\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3, column ")));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY %e () -> f32[] {\n  %c = f32[] constant(1), "
                             "channel_id=x\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 3, column 38: channel_id=x is not a non-negative integer")));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY %e () -> f32[] {\n  %c = f32[] constant(1)\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the computation %e is never closed")));
  EXPECT_THAT(ParseHloModule("HloModule m\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no HLO instruction")));
}

TEST(HloModuleTest, BoundsAreErrors) {
  EXPECT_THAT(ParseHloModule(kModule, {.max_text_bytes = 100}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("over the limit of 100")));
  EXPECT_THAT(ParseHloModule(kModule, {.max_line_bytes = 60}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 9, column 1: the line is 62 bytes, over the limit of 60")));
  EXPECT_THAT(ParseHloModule(kModule, {.max_lines = 3}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 3 lines")));
  EXPECT_THAT(ParseHloModule(kModule, {.max_instructions = 2}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 2 instructions")));
}

TEST(HloModuleTest, DeepNestingIsAnErrorNotACrash) {
  std::string shape;
  for (int i = 0; i < 100000; ++i) shape += "(";
  const std::string text = "HloModule m\nENTRY %e () -> f32[] {\n  %c = " + shape + " tuple()\n}\n";
  EXPECT_THAT(ParseHloModule(text),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3, column")));
}

TEST(ReplicaGroupsTest, EveryForm) {
  EXPECT_THAT(ParseReplicaGroups("{{0,1},{2,3}}", 4), IsOkAndHolds(Groups{{0, 1}, {2, 3}}));
  EXPECT_THAT(ParseReplicaGroups("{}", 3), IsOkAndHolds(Groups{{0, 1, 2}}));
  EXPECT_THAT(ParseReplicaGroups("[2,4]<=[8]", 8),
              IsOkAndHolds(Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_THAT(ParseReplicaGroups("[4,2]<=[2,4]T(1,0)", 8),
              IsOkAndHolds(Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_THAT(ParseReplicaGroups("mesh['axis_0'=2,'axis_1'=2,'axis_2'=2] {'axis_1'}", 8),
              IsOkAndHolds(Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_THAT(ParseReplicaGroups("mesh['a'=2,'b'=4] {'b','a'}", 8),
              IsOkAndHolds(Groups{{0, 4, 1, 5, 2, 6, 3, 7}}));
  EXPECT_THAT(ParseReplicaGroups("mesh['a'=2,'b'=4] {}", 8),
              IsOkAndHolds(Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
}

TEST(ReplicaGroupsTest, SizesWithoutExpanding) {
  using Sizes = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_THAT(ReplicaGroupSizes("[256,256]<=[65536]", 65536), IsOkAndHolds(Sizes{{256, 256}}));
  EXPECT_THAT(ReplicaGroupSizes("{{0,1},{2,3},{4,5,6}}", 8), IsOkAndHolds(Sizes{{2, 2}, {3, 1}}));
  EXPECT_THAT(ReplicaGroupSizes("{}", 5), IsOkAndHolds(Sizes{{5, 1}}));
  EXPECT_THAT(ReplicaGroupSizes("mesh['a'=2,'b'=4] {'a'}", 8), IsOkAndHolds(Sizes{{2, 4}}));
  EXPECT_THAT(ReplicaGroupSizes("[2,4]<=[6]", 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 0:")));
}

TEST(ReplicaGroupsTest, BadGroupsAreErrors) {
  EXPECT_THAT(ParseReplicaGroups("{{0,1},{1,2}}", 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 8: device 1 is in more than one replica group")));
  EXPECT_THAT(ParseReplicaGroups("[2,4]<=[6]", 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 0:")));
  EXPECT_THAT(ParseReplicaGroups("[2,4,1]<=[8]", 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two dims")));
  EXPECT_THAT(ParseReplicaGroups("mesh['a'=100000] {'a'}", 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 65536")));
  EXPECT_THAT(ParseReplicaGroups("mesh['a'=2] {'b'}", 8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'b' is not a mesh axis")));
  EXPECT_THAT(ParseReplicaGroups("{{0,1}", 4),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 6: expected ','")));
  EXPECT_THAT(ParseReplicaGroups("{}", 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device count is unknown")));
  EXPECT_THAT(ParseSourceTargetPairs("{{0,1,2}}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two device ids")));
}

TEST(HloModuleSummaryTest, PartitionedModule) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m, {.top = 0});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->partitioning.partitioned);
  EXPECT_EQ(s->num_devices, 8);
  ASSERT_EQ(s->sharded.size(), 1u);
  const ShardedValue& p = s->sharded[0];
  EXPECT_EQ(p.global, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(p.shard, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(p.global_bytes, 2048);
  EXPECT_EQ(p.shard_bytes, 256);
  ASSERT_EQ(p.devices.size(), 8u);
  EXPECT_EQ(p.devices[5].IndexToString(), "[[4, 8], [16, 32]]");
  // Ring model on 256 operand bytes: all-gather 7 x 256 each (8 devices), all-reduce
  // 2 x 3/4 x 256 each (8 devices), permute 256 by each of 2 sources.
  ASSERT_EQ(s->collectives.size(), 3u);
  EXPECT_EQ(s->collectives[0].opcode, "all-gather");
  EXPECT_EQ(s->collectives[0].max_send_bytes, 1792);
  EXPECT_EQ(s->collectives[0].total_bytes, 8 * 1792);
  EXPECT_EQ(s->collectives[1].opcode, "all-reduce");
  EXPECT_EQ(s->collectives[1].max_send_bytes, 384);
  EXPECT_EQ(s->collectives[1].groups, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(s->collectives[1].total_bytes, 8 * 384);
  EXPECT_EQ(s->collectives[2].opcode, "collective-permute");
  EXPECT_EQ(s->collectives[2].devices, 2);
  EXPECT_EQ(s->collectives[2].total_bytes, 512);
  EXPECT_EQ(s->collective_total_bytes, 8 * 1792 + 8 * 384 + 512);
  // Memory: the parameter 256 bytes; the output 256 + 2048 + two 8-byte tuple pointers.
  EXPECT_EQ(s->memory.parameter_bytes, 256);
  EXPECT_EQ(s->memory.output_bytes, 256 + 2048 + 16);
  // Live at %cp: %p, %ar (used by %cp), %ag and %cp (outputs) = 256 * 3 + 2048.
  EXPECT_EQ(s->memory.peak_live_bytes, 3 * 256 + 2048);
  EXPECT_EQ(s->memory.peak_at, "%cp");
  ASSERT_FALSE(s->memory.live_at_peak.empty());
  EXPECT_EQ(s->memory.live_at_peak[0].instruction, "%ag");
}

// Async pairs: the -start moves the bytes, the -done nothing.
TEST(HloModuleSummaryTest, AsyncCollectivesCountAtTheirStart) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(R"(HloModule m, num_partitions=8

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %e_spmd (a: f32[4]) -> f32[32] {
  %a = f32[4]{0} parameter(0)
  %ags = (f32[4]{0}, f32[32]{0}) all-gather-start(%a), replica_groups=[1,8]<=[8], dimensions={0}
  %agd = f32[32]{0} all-gather-done(%ags)
  %ars = f32[4]{0} all-reduce-start(%a), channel_id=2, replica_groups={}, to_apply=%add
  %ard = f32[4]{0} all-reduce-done(%ars)
  %cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(%a), source_target_pairs={{0,1}}
  %cpd = f32[4]{0} collective-permute-done(%cps)
  ROOT %t = f32[32]{0} copy(%agd)
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m, {.top = 0});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->collective_count, 3u);
  EXPECT_EQ(s->collectives[0].opcode, "all-gather-start");
  EXPECT_EQ(s->collectives[0].total_bytes, 8 * 7 * 16);
  EXPECT_EQ(s->collectives[1].opcode, "all-reduce-start");
  EXPECT_EQ(s->collectives[1].max_send_bytes, 28);  // 2 x 7/8 x 16
  EXPECT_EQ(s->collectives[1].groups, (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(s->collectives[2].opcode, "collective-permute-start");
  EXPECT_EQ(s->collectives[2].total_bytes, 16);
}

TEST(HloModuleSummaryTest, TopCutsTheListsNotTheTotals) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(kModule);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m, {.top = 1});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->collectives.size(), 1u);
  EXPECT_EQ(s->collective_count, 3u);
  EXPECT_EQ(s->collective_total_bytes, 8 * 1792 + 8 * 384 + 512);
  EXPECT_EQ(s->memory.live_at_peak.size(), 1u);
}

TEST(HloModuleSummaryTest, UnpartitionedModuleHasPerDeviceBytes) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(
      "HloModule m\n\nENTRY main.1 {\n"
      "  x.1 = f32[8,64]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}\n"
      "  ROOT n.2 = f32[8,64]{1,0} negate(x.1), sharding={replicated}\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->partitioning.partitioned);
  EXPECT_EQ(s->num_devices, 8);  // from the shardings: the header has no num_partitions
  EXPECT_EQ(s->sharded[0].global, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(s->memory.parameter_bytes_per_device, std::vector<int64_t>(8, 256));
  EXPECT_EQ(s->memory.output_bytes_per_device, std::vector<int64_t>(8, 2048));
}

TEST(HloModuleSummaryTest, MemorySpacesAreSeparate) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(
      "HloModule m\n\nENTRY %e (a: f32[4], b: f32[8]) -> f32[4] {\n"
      "  %a = f32[4]{0:S(1)} parameter(0)\n  %b = f32[8]{0} parameter(1)\n"
      "  ROOT %c = f32[4]{0} copy(%a)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->memory.spaces.size(), 2u);
  EXPECT_EQ(s->memory.spaces[0].memory_space, 0);
  EXPECT_EQ(s->memory.spaces[0].parameter_bytes, 32);
  EXPECT_EQ(s->memory.spaces[0].output_bytes, 16);
  EXPECT_EQ(s->memory.spaces[1].memory_space, 1);
  EXPECT_EQ(s->memory.spaces[1].parameter_bytes, 16);
}

// Collectives over every one of 65,536 devices: only the listed ones have their groups
// expanded, so a module of many stays linear in its text.
TEST(HloModuleSummaryTest, ManyCollectivesOverManyDevicesAreNotExpanded) {
  std::string text =
      "HloModule m, num_partitions=65536\n\nENTRY %e_spmd (a: f32[4]) -> f32[4] {\n"
      "  %a = f32[4]{0} parameter(0)\n";
  for (int i = 0; i < 5000; ++i) {
    text += "  %r" + std::to_string(i) + " = f32[4]{0} all-reduce(%a), channel_id=1, " +
            (i % 2 ? "replica_groups={}\n" : "replica_groups=[1,65536]<=[65536]\n");
  }
  text += "  ROOT %out = f32[4]{0} copy(%a)\n}\n";
  absl::StatusOr<HloModuleText> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m, {.top = 2});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->collective_count, 5000u);
  ASSERT_EQ(s->collectives.size(), 2u);
  EXPECT_EQ(s->collectives[0].devices, 65536);
  EXPECT_EQ(s->collectives[0].groups.size(), 1u);
  EXPECT_EQ(s->collectives[0].groups[0].size(), 65536u);
  // 2 x 65535/65536 x 16 bytes, rounded down, from each of 65,536 devices.
  EXPECT_EQ(s->collectives[0].max_send_bytes, 31);
  EXPECT_EQ(s->collective_total_bytes, int64_t{5000} * 31 * 65536);
}

TEST(HloModuleSummaryTest, ListingEveryDeviceMapIsBounded) {
  std::string text = "HloModule m, num_partitions=65536\n\nENTRY %e_spmd (a: f32[4]) -> f32[4] {\n";
  for (int i = 0; i < 100; ++i) {
    text += "  %a" + std::to_string(i) + " = f32[4]{0} parameter(" + std::to_string(i) +
            "), sharding={replicated}\n";
  }
  text += "  ROOT %out = f32[4]{0} copy(%a0)\n}\n";
  absl::StatusOr<HloModuleText> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(SummarizeHloModule(*m, {.top = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the device maps of 100 sharded values on 65536 devices hold "
                                 "more than 4194304 device boxes")));
  EXPECT_TRUE(SummarizeHloModule(*m, {.top = 10}).ok());
}

TEST(HloModuleSummaryTest, PerDeviceBytesOfManyShardsOnManyDevicesAreNotComputed) {
  std::string text = "HloModule m\n\nENTRY %e (a: f32[4]) -> f32[4] {\n";
  for (int i = 0; i < 100; ++i) {
    text += "  %a" + std::to_string(i) + " = f32[4]{0} parameter(" + std::to_string(i) +
            "), sharding={maximal device=65535}\n";
  }
  text += "  ROOT %out = f32[4]{0} copy(%a0)\n}\n";
  absl::StatusOr<HloModuleText> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<HloModuleSummary> s = SummarizeHloModule(*m, {.top = 1});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->num_devices, 65536);
  EXPECT_TRUE(s->memory.parameter_bytes_per_device.empty());
  EXPECT_EQ(s->memory.per_device_note,
            "not computed: 100 sharded parameters and outputs on 65536 devices are more than "
            "4194304 device boxes");
}

TEST(HloModuleSummaryTest, BadGroupsNameTheLine) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(
      "HloModule m, num_partitions=4\n\nENTRY %e_spmd (a: f32[4]) -> f32[4] {\n"
      "  %a = f32[4]{0} parameter(0)\n"
      "  ROOT %g = f32[16]{0} all-gather(%a), replica_groups={{0,9999999}}, dimensions={0}\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(SummarizeHloModule(*m),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 5, column 59: %g: replica_groups: device 9999999 is not "
                                 "below 65536")));
}

}  // namespace
}  // namespace hlo_module_test
}  // namespace axe::sharding
