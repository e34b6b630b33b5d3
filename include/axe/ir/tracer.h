// A traced value: a variable or literal of the jaxpr a Builder is recording, with its type.
// Tracers are cheap to copy; they stay usable while their builder lives. A default-constructed
// Tracer belongs to no builder and is rejected by Builder::Bind.
#ifndef AXE_IR_TRACER_H_
#define AXE_IR_TRACER_H_

#include <cstdint>
#include <optional>

#include "axe/ir/literal.h"
#include "axe/ir/shaped_array.h"

namespace axe::ir {

class Builder;

struct Tracer {
  Builder* builder = nullptr;  // the recording builder (not owned)
  uint64_t trace_id = 0;       // the builder's serial number (guards against a stale builder)
  int32_t var = -1;            // the variable, when literal is empty
  std::optional<Literal> literal;
  ShapedArray aval;

  bool is_literal() const { return literal.has_value(); }
};

}  // namespace axe::ir

#endif  // AXE_IR_TRACER_H_
