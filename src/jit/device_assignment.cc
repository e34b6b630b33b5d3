#include "axe/jit/device_assignment.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::jit {
namespace {

enum class Source { kArgument, kOutput };

// One sharding of the computation and where it came from.
struct Placement {
  std::vector<int64_t> devices;
  Source source;
};

std::string DevicesText(const std::vector<int64_t>& devices) {
  return absl::StrCat("with device ids [", absl::StrJoin(devices, ", "), "] on platform CPU");
}

// The argument stored on exactly these devices, named as JAX names it, if any.
std::optional<std::string> ArgumentText(const Placement& p,
                                        absl::Span<const ArgumentPlacement> arguments,
                                        const std::string& function) {
  if (p.source != Source::kArgument) return std::nullopt;
  for (const ArgumentPlacement& a : arguments) {
    if (a.devices != p.devices) continue;
    return absl::StrCat("argument ", a.name, " of ", function, " with shape ", a.aval.Str(),
                        " and ", DevicesText(p.devices));
  }
  return std::nullopt;
}

std::string PlainText(const Placement& p) {
  return absl::StrCat(p.source == Source::kArgument ? "ARG_SHARDING" : "explicit output sharding",
                      " ", DevicesText(p.devices));
}

absl::Status IncompatibleDevicesError(const Placement& first, const Placement& second,
                                      absl::Span<const ArgumentPlacement> arguments,
                                      const std::string& function) {
  const std::optional<std::string> a = ArgumentText(first, arguments, function);
  const std::optional<std::string> b = ArgumentText(second, arguments, function);
  // JAX names the side it found an argument for first.
  std::string got;
  if (a && b) {
    got = absl::StrCat(*a, " and ", *b);
  } else if (a || b) {
    got = a ? absl::StrCat(*a, " and ", PlainText(second))
            : absl::StrCat(*b, " and ", PlainText(first));
  } else {
    got = absl::StrCat(PlainText(first), " and ", PlainText(second));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Received incompatible devices for jitted computation. Got ", got));
}

}  // namespace

std::vector<int64_t> DeviceAssignment(const sharding::Sharding& sharding) {
  if (const sharding::NamedSharding* named = sharding.named()) {
    return named->mesh().device_array();
  }
  return {sharding.single_device()->device()};
}

absl::Status CheckDeviceAssignment(absl::Span<const std::optional<sharding::Sharding>> inputs,
                                   absl::Span<const std::optional<sharding::Sharding>> outputs,
                                   absl::Span<const ArgumentPlacement> arguments,
                                   const std::string& function) {
  std::vector<Placement> placements;
  std::vector<sharding::Sharding> seen_inputs;
  for (const std::optional<sharding::Sharding>& s : inputs) {
    if (!s) continue;
    bool repeated = false;
    for (const sharding::Sharding& t : seen_inputs) repeated = repeated || t == *s;
    if (repeated) continue;
    seen_inputs.push_back(*s);
    placements.push_back({DeviceAssignment(*s), Source::kArgument});
  }
  for (const std::optional<sharding::Sharding>& s : outputs) {
    if (s) placements.push_back({DeviceAssignment(*s), Source::kOutput});
  }
  for (size_t i = 1; i < placements.size(); ++i) {
    if (placements[i].devices != placements[0].devices) {
      return IncompatibleDevicesError(placements[0], placements[i], arguments, function);
    }
  }
  return absl::OkStatus();
}

}  // namespace axe::jit
