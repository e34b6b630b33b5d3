// Typed values at a program's edges: argument text parsed straight into the dtype's own
// encoding, values printed from it, and the checked hand-over to the double-valued
// interpreter.
//
//   exec::Value x = *exec::ParseValue("i64[2]=9007199254740993,-1");   // exact
//   exec::FormatValue(x)          // "[9007199254740993, -1]"
//   exec::ToExactHostArray(x)     // InvalidArgument: past 2^53, the interpreter's doubles
//                                 // cannot hold it
//
// ParseValue takes ir::ParseArgSpec's grammar (TYPE=iota, TYPE=V, TYPE=V1,V2,...) with its
// errors, but 64-bit integers are read exactly instead of through a double; every other
// element type gives the same values as ParseArgSpec.
#ifndef AXE_EXEC_VALUE_IO_H_
#define AXE_EXEC_VALUE_IO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/exec/value.h"
#include "axe/ir/host_array.h"

namespace axe::exec {

absl::StatusOr<Value> ParseValue(absl::string_view spec);

// Each element as ir::FormatElement prints it, row-major; 64-bit integers exactly.
std::vector<std::string> FormatElements(const Value& value);
// Nested by dimension like numpy's repr (ir::FormatValues' form), integers exact.
std::string FormatValue(const Value& value);

// The value as the interpreter's doubles; InvalidArgument naming the first element and its
// flat index when a 64-bit integer is past 2^53 (it would silently become another number).
absl::StatusOr<ir::HostArray> ToExactHostArray(const Value& value);

}  // namespace axe::exec

#endif  // AXE_EXEC_VALUE_IO_H_
