// The shapes in HLO text as people paste it: one instruction line
//
//   %fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} fusion(bf16[32,32,8192]{...} %fusion.32),
//   ...
//
// or a whole module (`HloModule name, entry_computation_layout={(...)->...}` followed by
// computations). ScanHlo finds every shape with its role: the entry computation layout's
// parameters and result, and for each instruction its result and the operand shapes written
// in its operand list (`%x` operands without a shape are recorded by name only). It does
// not check the HLO beyond what it needs: attributes after the operand list are skipped.
// Bounds: the text length, the number of lines and instructions, the operands per
// instruction and the shape nesting (ParseOptions::max_depth); errors name the line.
//
//   HloText h = *ScanHlo("%add = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %b)");
//   h.instructions[0].result;          // f32[4]{0}
//   h.instructions[0].operands[1].name; // "%b"
#ifndef AXE_XLA_HLO_TEXT_H_
#define AXE_XLA_HLO_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/xla/program_shape.h"
#include "axe/xla/shape.h"

namespace axe::xla {

struct HloOperand {
  std::string name;            // "%fusion.32"; empty for a literal operand
  std::optional<Shape> shape;  // when the operand list writes it
};

struct HloInstruction {
  std::string computation;  // the enclosing computation's name ("" for a lone line)
  std::string name;         // "%fusion.3"
  std::string opcode;       // "fusion"
  bool is_root = false;
  Shape result;
  std::vector<HloOperand> operands;
  size_t line = 0;  // 1-based
  // Where the attributes after the operand list (`, channel_id=1, sharding={...}`) start, as
  // a byte offset into the scanned line (ScanHloInstruction) or text (ScanHlo).
  size_t attributes_at = 0;
};

struct HloText {
  std::string module_name;  // empty without an HloModule line
  std::optional<ProgramShape> entry_computation_layout;
  std::vector<HloInstruction> instructions;
};

struct HloScanOptions {
  size_t max_text_bytes = size_t{256} << 20;
  size_t max_lines = 4'000'000;
  size_t max_instructions = 1'000'000;
  size_t max_operands = 100'000;  // per instruction
};

// One instruction line `[ROOT] name = shape opcode(operands), attributes` (operand names are
// read with or without their '%', as XLA prints them with and without it); `computation`
// and `line` are left empty. Errors: the line is not an instruction, a shape that does not
// parse, more than options.max_operands operands; messages start with "position P:" (the
// 0-based byte in `line`).
absl::StatusOr<HloInstruction> ScanHloInstruction(absl::string_view line,
                                                  const HloScanOptions& options = {});

// Errors: over a bound, an instruction line whose result or operand shape does not parse,
// a text with no instruction and no entry computation layout. Messages name the line.
absl::StatusOr<HloText> ScanHlo(absl::string_view text, const HloScanOptions& options = {});

// Per memory space: how many array buffers the instructions' results define and the sum of
// their ArraySize (XLA's), in increasing memory-space order. Operands are not counted (they
// are other instructions' results), nor are the results of tuple, get-tuple-element and
// bitcast (they alias buffers defined elsewhere). Errors: a size overflows int64.
struct MemorySpaceTotal {
  int64_t memory_space = 0;
  int64_t buffers = 0;
  int64_t array_size_bytes = 0;
  int64_t unsized_buffers = 0;  // buffers without a size (an unbounded '?' dim): not summed
};
absl::StatusOr<std::vector<MemorySpaceTotal>> ResultBytesByMemorySpace(const HloText& hlo);

// True when `text` looks like HLO (an `HloModule` header or an `x = shape op(...)` line)
// rather than a bare shape.
bool LooksLikeHlo(absl::string_view text);

}  // namespace axe::xla

#endif  // AXE_XLA_HLO_TEXT_H_
