// A whole HLO module as XLA prints it (a dump, compiled.as_text(), or
// lowered.compiler_ir('hlo').as_hlo_text()), read line by line in one pass:
//
//   HloModule jit_f, is_scheduled=true, entry_computation_layout={...}, num_partitions=8
//
//   %add.clone (x.3: f32[], y.1: f32[]) -> f32[] { ... }
//
//   ENTRY %main.0_spmd (param: f32[16,16]) -> f32[16,16] {
//     %param = f32[16,16]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}
//     ROOT %all-reduce = f32[16,16]{1,0} all-reduce(%param), channel_id=1,
//         replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=%add.clone
//   }
//
// Every instruction keeps its computation, name, opcode, result shape, operand names and the
// attributes `axe hlo` reads (sharding, replica_groups, source_target_pairs, channel_id,
// dimensions, custom_call_target); other attributes (metadata, backend_config, ...) are skipped.
// Operand shapes, which compiled modules do not print, are looked up by name in the computation.
//
// Bounds: the text length, the line length, the number of lines and instructions, the
// operands per instruction, the shape nesting; the work is linear in the text. Errors say
// "line L, column C: ..." (both 1-based; the column counts bytes).
#ifndef AXE_SHARDING_HLO_MODULE_H_
#define AXE_SHARDING_HLO_MODULE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/sharding/hlo_module_shardings.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/xla/shape.h"

namespace axe::sharding {

struct ModuleInstruction {
  size_t computation = 0;  // index into HloModuleText::computations
  std::string name;        // as written, "%param.1" or "param.1"
  std::string opcode;
  bool is_root = false;
  xla::Shape result;
  // Per operand: its name; the instruction (index into HloModuleText::instructions) of the
  // computation that defines it before this line, if any; its shape when the line writes
  // it (compiled modules do not). HloModuleText::OperandShape picks the one there is.
  std::vector<std::string> operand_names;
  std::vector<std::optional<size_t>> operand_definitions;
  std::vector<std::optional<xla::Shape>> written_operand_shapes;
  size_t line = 0;  // 1-based
  std::optional<HloSharding> sharding;
  size_t sharding_column = 0;  // 1-based column of the sharding's '{'
  std::string replica_groups;  // the attribute's value as written; empty when absent
  size_t replica_groups_column = 0;
  std::string source_target_pairs;  // likewise
  size_t source_target_pairs_column = 0;
  std::optional<int64_t> channel_id;
  std::string dimensions;          // `dimensions={0}` as written ("{0}"); empty when absent
  std::string custom_call_target;  // without its quotes; empty when absent
};

struct ModuleComputation {
  std::string name;  // as written, with its '%' if any
  bool is_entry = false;
  size_t first_instruction = 0;  // [first, end) in HloModuleText::instructions
  size_t end_instruction = 0;
};

struct HloModuleText {
  std::string name;
  ModulePartitioning partitioning;  // the header's num_partitions and the entry's name
  std::vector<ModuleComputation> computations;
  std::vector<ModuleInstruction> instructions;
  // The entry computation's index (nullopt when the text has no ENTRY computation).
  std::optional<size_t> entry;
  size_t lines = 0;

  // Operand k's shape: as the line writes it, else its definition's result; nullptr when
  // neither is known (a name defined later or nowhere).
  const xla::Shape* OperandShape(const ModuleInstruction& ins, size_t k) const {
    if (ins.written_operand_shapes[k]) return &*ins.written_operand_shapes[k];
    if (ins.operand_definitions[k]) return &instructions[*ins.operand_definitions[k]].result;
    return nullptr;
  }
};

// What reading a module and summarizing it takes in memory, per byte of text, at most: a
// generous bound over the 10 measured on compiled modules (docs/performance.md), for
// callers that check a memory budget before reading.
inline constexpr int64_t kHloModuleBytesPerTextByte = 12;

struct HloModuleLimits {
  size_t max_text_bytes = size_t{256} << 20;
  size_t max_line_bytes = size_t{16} << 20;
  size_t max_lines = 8'000'000;
  size_t max_instructions = 4'000'000;
  size_t max_operands = 100'000;  // per instruction
};

// Errors: over a bound; a line that starts like an instruction but does not parse (its
// shape, operand list or sharding); a sharding= or channel_id= that does not parse; a
// computation left open; no instruction at all.
absl::StatusOr<HloModuleText> ParseHloModule(absl::string_view text,
                                             const HloModuleLimits& limits = {});

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_MODULE_H_
