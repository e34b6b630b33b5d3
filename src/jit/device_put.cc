#include "axe/jit/device_put.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/shaped_array.h"
#include "axe/jit/call_argument.h"
#include "axe/jit/execute.h"

namespace axe::jit {

absl::StatusOr<runtime::Array> DevicePut(runtime::Client& client, absl::Span<const uint8_t> host,
                                         std::vector<int64_t> shape, DType dtype,
                                         const Format& format) {
  AXE_RETURN_IF_ERROR(CheckDevicePutFormat(format, ir::ShapedArray(shape, dtype).ShortString()));
  CallArgumentSpec spec{/*committed=*/true, std::nullopt, format.sharding()};
  if (const LocalLayout* l = format.local_layout()) spec.layout = *l;
  AXE_ASSIGN_OR_RETURN(Format target, CallArgumentFormat(shape, dtype, spec));
  return runtime::Array::DevicePut(client, host, shape, dtype, std::move(target),
                                   /*committed=*/true);
}

Format FormatOf(const runtime::Array& array) {
  absl::StatusOr<Format> format = Format::Create(LayoutOfArray(array), *array.format().sharding());
  AXE_CHECK(format.ok()) << format.status();
  return *std::move(format);
}

absl::StatusOr<ShapeDtypeStruct> ShapeDtypeStruct::Create(std::vector<int64_t> shape, DType dtype,
                                                          std::optional<Format> format) {
  if (format) {
    AXE_RETURN_IF_ERROR(CheckShapeDtypeStructFormat(*format));
    if (const LocalLayout* l = format->local_layout()) {
      AXE_RETURN_IF_ERROR(l->CheckCompatibleAval(shape));
    }
  }
  return ShapeDtypeStruct{std::move(shape), dtype, std::move(format)};
}

}  // namespace axe::jit
