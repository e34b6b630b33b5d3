// HLO instruction lines with a sharding attribute (sharding::ParseShardedInstruction, what
// `axe shard` reads from a pasted dump line). Laws: the result shape and the sharding each
// read back from their prints to equal values, and a line rebuilt from them parses to the
// same instruction.
#include <cstdint>
#include <string>

#include "axe/sharding/hlo_instruction.h"
#include "axe/xla/text.h"
#include "fuzz_check.h"

namespace sh = axe::sharding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  (void)sh::IsShardedInstruction(input);
  absl::StatusOr<sh::ShardedInstruction> inst = sh::ParseShardedInstruction(input);
  if (!inst.ok()) return 0;
  const std::string shape = inst->result.ToString();
  absl::StatusOr<axe::xla::Shape> shape_again = axe::xla::ParseShape(shape);
  AXE_FUZZ_CHECK(shape_again.ok() && *shape_again == inst->result,
                 "the result shape reads back: " + shape);
  const std::string sharding = inst->sharding.ToString();
  absl::StatusOr<sh::HloSharding> sharding_again = sh::HloSharding::Parse(sharding);
  AXE_FUZZ_CHECK(sharding_again.ok() && *sharding_again == inst->sharding,
                 "the sharding reads back: " + sharding);
  const std::string line = "%x = " + shape + " parameter(0), sharding=" + sharding;
  AXE_FUZZ_CHECK(sh::IsShardedInstruction(line), "a rebuilt line is an instruction: " + line);
  absl::StatusOr<sh::ShardedInstruction> again = sh::ParseShardedInstruction(line);
  AXE_FUZZ_CHECK(again.ok() && again->result == inst->result && again->sharding == inst->sharding,
                 "the rebuilt line reads back (" +
                     (again.ok() ? again->result.ToString() + " " + again->sharding.ToString()
                                 : std::string(again.status().ToString())) +
                     "): " + line);
  return 0;
}
