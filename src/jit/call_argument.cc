#include "axe/jit/call_argument.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/host_bytes.h"
#include "axe/jit/device_assignment.h"
#include "axe/jit/execute.h"

namespace axe::jit {

absl::StatusOr<CallArgumentSpec> ParseCallArgumentSpec(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  const size_t space = text.find_first_of(" \t");
  const absl::string_view word = text.substr(0, space);
  CallArgumentSpec spec;
  if (word == "committed") {
    spec.committed = true;
  } else if (word != "uncommitted") {
    return absl::InvalidArgumentError(absl::StrCat(
        "position 0: an argument starts with 'committed' or 'uncommitted', got '", word, "'"));
  }
  if (space == absl::string_view::npos) return spec;
  const absl::string_view rest = absl::StripLeadingAsciiWhitespace(text.substr(space));
  const size_t at = text.size() - rest.size();
  if (absl::StartsWith(rest, "Format")) {
    absl::StatusOr<Format> format = Format::Parse(rest);
    if (!format.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("position ", at, ": ", format.status().message()));
    }
    AXE_RETURN_IF_ERROR(CheckDevicePutFormat(*format, "the argument"));
    const sharding::SingleDeviceSharding* single =
        format->sharding() ? format->sharding()->single_device() : nullptr;
    if (single != nullptr && single->device() >= sharding::Mesh::kMaxDevices) {
      return absl::InvalidArgumentError(absl::StrCat("position ", at, ": device ", single->device(),
                                                     " is beyond the ", sharding::Mesh::kMaxDevices,
                                                     " devices"));
    }
    if (const LocalLayout* l = format->local_layout()) spec.layout = *l;
    spec.sharding = format->sharding();
    return spec;
  }
  absl::StatusOr<LocalLayout> layout = LocalLayout::Parse(rest);
  if (!layout.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("position ", at, ": ", layout.status().message()));
  }
  spec.layout = *std::move(layout);
  return spec;
}

absl::StatusOr<Format> CallArgumentFormat(absl::Span<const int64_t> shape, DType dtype,
                                          const CallArgumentSpec& spec) {
  sharding::Sharding placement =
      spec.sharding ? *spec.sharding
                    : *sharding::NamedSharding::Create(sharding::Mesh(), sharding::PartitionSpec());
  Format::LayoutChoice layout;
  if (spec.layout) layout = *spec.layout;
  AXE_ASSIGN_OR_RETURN(Format format, Format::Create(std::move(layout), std::move(placement)));
  AXE_RETURN_IF_ERROR(runtime::ArraySharding(format).status());
  AXE_RETURN_IF_ERROR(runtime::ArrayLocalLayout(format, shape, dtype).status());
  return format;
}

int64_t DevicesNeeded(const CallArgumentSpec& spec) {
  return spec.sharding ? spec.sharding->device_id_bound() : 1;
}

std::vector<std::optional<Format>> CallInputFormats(const std::vector<std::optional<Format>>& in,
                                                    const std::vector<CallArgumentSpec>& specs) {
  std::vector<std::optional<Format>> out(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::optional<Format> given = i < in.size() ? in[i] : std::nullopt;
    const CallArgumentSpec& spec = specs[i];
    out[i] = given;
    if (!spec.committed || !spec.sharding || (given && given->sharding())) continue;
    JitLayout layout = given ? given->layout() : JitLayout{};
    if (!given && spec.layout &&
        *spec.layout != DefaultLayout(spec.layout->major_to_minor().size())) {
      layout = *spec.layout;
    }
    absl::StatusOr<Format> with_sharding = Format::Create(layout, spec.sharding);
    if (with_sharding.ok()) out[i] = *std::move(with_sharding);
  }
  return out;
}

int64_t DevicesNeeded(const std::vector<std::optional<Format>>& formats,
                      const std::vector<CallArgumentSpec>& specs) {
  int64_t devices = 1;
  for (const CallArgumentSpec& s : specs) devices = std::max(devices, DevicesNeeded(s));
  for (const std::optional<Format>& f : formats) {
    if (f && f->sharding()) {
      devices =
          std::max(devices, DevicesNeeded(CallArgumentSpec{false, std::nullopt, f->sharding()}));
    }
  }
  return devices;
}

std::vector<ArgumentPlacement> CallPlacements(const std::vector<ir::ShapedArray>& avals,
                                              const std::vector<CallArgumentSpec>& specs) {
  std::vector<ArgumentPlacement> out;
  for (size_t i = 0; i < avals.size() && i < specs.size(); ++i) {
    out.push_back(
        {absl::StrCat("args[", i, "]"), avals[i],
         specs[i].sharding ? DeviceAssignment(*specs[i].sharding) : std::vector<int64_t>{0}});
  }
  return out;
}

absl::StatusOr<runtime::Array> MakeCallArgument(runtime::Client& client,
                                                const ir::ShapedArray& aval,
                                                const CallArgumentSpec& spec) {
  const std::optional<int64_t> elements = aval.NumElements();
  if (!elements || *elements > ir::kMaxEvalTextElements) {
    return absl::InvalidArgumentError(absl::StrCat("an argument of type ", aval.ShortString(),
                                                   " has more than ", ir::kMaxEvalTextElements,
                                                   " elements, the most a call evaluates"));
  }
  ir::HostArray values{aval, std::vector<double>(static_cast<size_t>(*elements))};
  for (size_t i = 0; i < values.values.size(); ++i) values.values[i] = static_cast<double>(i);
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ir::HostArrayToBytes(values));
  AXE_ASSIGN_OR_RETURN(Format format, CallArgumentFormat(aval.shape(), aval.dtype(), spec));
  return runtime::Array::DevicePut(client, bytes, aval.shape(), aval.dtype(), std::move(format),
                                   spec.committed);
}

}  // namespace axe::jit
