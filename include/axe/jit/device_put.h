// device_put(x, Format) and ShapeDtypeStruct(..., sharding=Format) (spec
// jax-layout-format.md §5).
//
//   runtime::Array a = *DevicePut(*client, host, {8, 8}, DType::kF32,
//                                 *Format::Parse("Format(Layout((1, 0)), "
//                                                "NamedSharding(Mesh('x': 2), P('x')))"));
//   a.committed();      // true
//   FormatOf(a);        // the Format it was put with (tiling as the array reports it: ())
#ifndef AXE_JIT_DEVICE_PUT_H_
#define AXE_JIT_DEVICE_PUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/jit/layout_rules.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"

namespace axe::jit {

// Row-major host data put on the devices in `format`; the result is committed. Format(None,
// None) is a plain put on device 0. Errors: an AUTO layout (JAX's "sharding and layout in
// `Layout` instance should be concrete. Got layout: ... for input f32[8,8]"), a layout of
// the wrong rank, a sharding that does not fit the shape, a SingleDeviceSharding on a device
// other than 0 (Unimplemented), the runtime's errors.
absl::StatusOr<runtime::Array> DevicePut(runtime::Client& client, absl::Span<const uint8_t> host,
                                         std::vector<int64_t> shape, DType dtype,
                                         const Format& format);

// The Format an array carries, as JAX's `x.format` shows it: its local layout (concrete,
// tiling=() when untiled) and its sharding (a SingleDeviceSharding stays one).
Format FormatOf(const runtime::Array& array);

// JAX's ShapeDtypeStruct with an optional Format: what Lower takes in place of an array.
// Errors: a Format with Layout.AUTO (JAX's TypeError "`Layout.AUTO` cannot be used in place
// of a device-local layout in a `ShapeDtypeStruct`. Got ..."), a layout of the wrong rank.
struct ShapeDtypeStruct {
  std::vector<int64_t> shape;
  DType dtype = DType::kF32;
  std::optional<Format> format;

  static absl::StatusOr<ShapeDtypeStruct> Create(std::vector<int64_t> shape, DType dtype,
                                                 std::optional<Format> format = std::nullopt);
};

}  // namespace axe::jit

#endif  // AXE_JIT_DEVICE_PUT_H_
