// PartitionSpecs: Parse and the round trip of Python's repr.
#include <cstdint>

#include "axe/sharding/partition_spec.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::sharding::PartitionSpec> p =
      axe::sharding::PartitionSpec::Parse(axe::fuzz::AsText(data, size));
  if (!p.ok()) return 0;
  const std::string text = p->ToString();
  absl::StatusOr<axe::sharding::PartitionSpec> again = axe::sharding::PartitionSpec::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *p, "parse(print(p)) == p for " + text);
  return 0;
}
