#include "axe/sharding/sharding.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "call_text.h"

namespace axe::sharding {

const std::optional<std::string>& Sharding::memory_kind() const {
  if (const NamedSharding* n = named()) return n->memory_kind();
  return single_device()->memory_kind();
}

int64_t Sharding::device_id_bound() const {
  if (const NamedSharding* n = named()) return n->mesh().device_id_bound();
  return CheckedAdd(single_device()->device(), 1).value_or(INT64_MAX);
}

std::string Sharding::ToString() const {
  if (const NamedSharding* n = named()) return n->ToString();
  return single_device()->ToString();
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const Sharding& sharding,
                                                           absl::Span<const int64_t> shape) {
  if (const NamedSharding* n = sharding.named()) return DevicesIndicesMap(*n, shape);
  return DevicesIndicesMap(*sharding.single_device(), shape);
}

absl::StatusOr<std::vector<int64_t>> ShardShape(const Sharding& sharding,
                                                absl::Span<const int64_t> shape) {
  if (const NamedSharding* n = sharding.named()) return n->ShardShape(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has negative size ", shape[i]));
    }
  }
  return std::vector<int64_t>(shape.begin(), shape.end());
}

namespace {

// None, a memory kind with or without quotes.
absl::StatusOr<std::optional<std::string>> ReadMemoryKind(const Scanner& s, const CallArg& arg) {
  absl::string_view text = ArgText(s, arg);
  if (text == "None") return std::optional<std::string>();
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
      text.back() == text.front()) {
    text = text.substr(1, text.size() - 2);
  }
  if (absl::Status st = CheckMemoryKind(text); !st.ok())
    return InArgument(s, arg, "memory_kind", st);
  return std::optional<std::string>(std::string(text));
}

// A device id: an integer, or a device as JAX prints it, `CpuDevice(id=3)`.
absl::StatusOr<int64_t> ReadDevice(Scanner& s, const CallArg& arg) {
  s.set_pos(arg.begin);
  if (!s.AtInt()) {
    AXE_ASSIGN_OR_RETURN(Call device, ReadCall(s, 8));
    static constexpr Param kDeviceParams[] = {
        {"id", ""},     {"process_index", ""}, {"slice_index", ""}, {"core_on_chip", ""},
        {"coords", ""}, {"kind", ""},          {"device_kind", ""}, {"platform", ""}};
    AXE_ASSIGN_OR_RETURN(std::vector<std::optional<CallArg>> bound,
                         BindArgs(s, device, kDeviceParams));
    if (!bound[0]) return s.MessageAt(arg.begin, "the device has no id");
    const size_t end = s.pos();
    s.set_pos(bound[0]->begin);
    AXE_ASSIGN_OR_RETURN(int64_t id, s.ReadInt());
    s.SkipSpace();
    if (s.pos() < bound[0]->end) return s.Error("',' or ')'");
    s.set_pos(end);
    s.SkipSpace();
    if (s.pos() < arg.end) return s.Error("',' or ')'");
    return id;
  }
  AXE_ASSIGN_OR_RETURN(int64_t id, s.ReadInt());
  s.SkipSpace();
  if (s.pos() < arg.end) return s.Error("',' or ')'");
  return id;
}

absl::Status Missing(const Scanner& s, const Call& call, absl::string_view param) {
  return s.MessageAt(call.callee_pos, absl::StrCat(call.name(),
                                                   "() missing 1 required positional "
                                                   "argument: '",
                                                   param, "'"));
}

absl::StatusOr<Sharding> ParseNamed(Scanner& s, const Call& call) {
  static constexpr Param kParams[] = {{"mesh", ""}, {"spec", ""}, {"memory_kind", ""}};
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<CallArg>> args, BindArgs(s, call, kParams));
  if (!args[0]) return Missing(s, call, "mesh");
  if (!args[1]) return Missing(s, call, "spec");
  absl::StatusOr<Mesh> mesh = Mesh::Parse(ArgText(s, *args[0]));
  if (!mesh.ok()) return InArgument(s, *args[0], "mesh", mesh.status());
  absl::StatusOr<PartitionSpec> spec = PartitionSpec::Parse(ArgText(s, *args[1]));
  if (!spec.ok()) return InArgument(s, *args[1], "spec", spec.status());
  std::optional<std::string> kind;
  if (args[2]) {
    AXE_ASSIGN_OR_RETURN(kind, ReadMemoryKind(s, *args[2]));
  }
  absl::StatusOr<NamedSharding> named =
      NamedSharding::Create(*std::move(mesh), *std::move(spec), std::move(kind));
  if (!named.ok()) return InArgument(s, *args[1], "spec", named.status());
  return Sharding(*std::move(named));
}

absl::StatusOr<Sharding> ParseSingleDevice(Scanner& s, const Call& call) {
  static constexpr Param kParams[] = {{"device", ""}, {"memory_kind", ""}};
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<CallArg>> args, BindArgs(s, call, kParams));
  if (!args[0]) return Missing(s, call, "device");
  AXE_ASSIGN_OR_RETURN(int64_t device, ReadDevice(s, *args[0]));
  std::optional<std::string> kind;
  if (args[1]) {
    AXE_ASSIGN_OR_RETURN(kind, ReadMemoryKind(s, *args[1]));
  }
  absl::StatusOr<SingleDeviceSharding> single = SingleDeviceSharding::Create(device, kind);
  if (!single.ok()) return InArgument(s, *args[0], "device", single.status());
  return Sharding(*std::move(single));
}

}  // namespace

absl::StatusOr<Sharding> Sharding::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(absl::StrCat("sharding text of ", text.size(),
                                                   " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text);
  AXE_ASSIGN_OR_RETURN(Call call, ReadCall(s, 3));
  if (!s.AtEnd()) return s.Error("the end of the text");
  if (call.name() == "NamedSharding") return ParseNamed(s, call);
  if (call.name() == "SingleDeviceSharding") return ParseSingleDevice(s, call);
  return s.ErrorAt(call.callee_pos, "NamedSharding(...) or SingleDeviceSharding(...)");
}

}  // namespace axe::sharding
