#include "axe/jit/jit.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/printer.h"

namespace axe::jit {
namespace {

absl::Status CheckCount(size_t given, size_t expected, absl::string_view what) {
  if (given == 0 || given == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "jit got ", given, " ", what, " formats for a program with ", expected, " ", what, "s"));
}

// The sharding argument `arg` is compiled with: jit's, else a committed argument's own (JAX
// compiles for it), else none. Errors: a committed argument stored otherwise than jit's
// sharding (JAX's ValueError).
absl::StatusOr<std::optional<sharding::Sharding>> CompileSharding(
    const std::optional<Format>& given, const runtime::Array& arg) {
  const std::optional<sharding::Sharding> jit_sharding =
      given ? given->sharding() : std::optional<sharding::Sharding>();
  if (!jit_sharding) {
    if (arg.committed()) return arg.format().sharding();
    return std::nullopt;
  }
  if (arg.committed()) {
    AXE_ASSIGN_OR_RETURN(sharding::NamedSharding stored, runtime::ArraySharding(*jit_sharding));
    if (!SameDeviceMap(arg, stored)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Sharding passed to jit does not match the sharding on the respective arg. Got jit "
          "sharding: ",
          jit_sharding->ToString(), ",\narg sharding: ", arg.format().sharding()->ToString(),
          " for arg type: ", ir::ShapedArray(arg.shape(), arg.dtype()).Str()));
    }
  }
  return jit_sharding;
}

// The format argument `arg` is compiled with, from its layout resolution and its sharding (a
// concrete layout needs one: the argument's own when there is none).
absl::StatusOr<std::optional<Format>> CompileFormat(
    const InputResolution& resolution, const std::optional<sharding::Sharding>& sharding,
    const runtime::Array& arg) {
  switch (resolution.action) {
    case InputAction::kDefault:
      if (sharding) return Format::Create({}, sharding);
      return std::optional<Format>();
    case InputAction::kCompilerChoice: return Format::Create(AutoLayout{}, sharding);
    case InputAction::kArgumentLayout:
    case InputAction::kJitLayout:
    case InputAction::kRelayout: break;
  }
  return Format::Create(*resolution.layout,
                        sharding ? *sharding : sharding::Sharding(arg.sharding()));
}

ArgumentPlacement PlacementOf(const std::string& name, const runtime::Array& arg) {
  return {name, ir::ShapedArray(arg.shape(), arg.dtype()),
          DeviceAssignment(sharding::Sharding(arg.sharding()))};
}

}  // namespace

std::string Lowered::as_text() const { return ir::PrintJaxpr(jaxpr_); }

absl::StatusOr<Compiled> Lowered::Compile() const {
  return jit::Compile(jaxpr_, in_formats_, out_formats_);
}

absl::StatusOr<Jit> Jit::Create(ir::ClosedJaxpr jaxpr,
                                std::vector<std::optional<Format>> in_formats,
                                std::vector<std::optional<Format>> out_formats) {
  AXE_RETURN_IF_ERROR(CheckCount(in_formats.size(), jaxpr.jaxpr.invars.size(), "input"));
  AXE_RETURN_IF_ERROR(CheckCount(out_formats.size(), jaxpr.jaxpr.outvars.size(), "output"));
  Jit jit;
  in_formats.resize(jaxpr.jaxpr.invars.size());
  jit.jaxpr_ = std::move(jaxpr);
  jit.in_formats_ = std::move(in_formats);
  jit.out_formats_ = std::move(out_formats);
  return jit;
}

absl::StatusOr<Lowered> Jit::Lower() const {
  Lowered lowered;
  lowered.jaxpr_ = jaxpr_;
  lowered.in_formats_ = in_formats_;
  lowered.out_formats_ = out_formats_;
  return lowered;
}

absl::StatusOr<CallResult> Jit::Call(runtime::Client& client,
                                     absl::Span<const runtime::Array* const> args,
                                     absl::Span<const std::string> names) {
  const std::vector<ir::ShapedArray> in_avals = jaxpr_.jaxpr.in_avals();
  if (args.size() != in_avals.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the jitted program takes ", in_avals.size(),
                                                   " arguments, got ", args.size()));
  }
  const std::vector<std::string> arg_names = ArgumentNames(names, args.size());
  std::vector<std::optional<Format>> formats;
  CompileOptions options;
  std::string key;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::optional<Format>& given = in_formats_[i];
    const JitLayout jit_layout = given ? given->layout() : JitLayout{};
    CallArgument argument{arg_names[i], args[i]->committed(), LayoutOfArray(*args[i]),
                          ir::ShapedArray(args[i]->shape(), args[i]->dtype())};
    AXE_ASSIGN_OR_RETURN(InputResolution resolution, ResolveJitInput(jit_layout, argument));
    AXE_ASSIGN_OR_RETURN(std::optional<sharding::Sharding> sharding,
                         CompileSharding(given, *args[i]));
    AXE_ASSIGN_OR_RETURN(std::optional<Format> format,
                         CompileFormat(resolution, sharding, *args[i]));
    absl::StrAppend(&key, format ? format->ToString() : "None", "\n");
    formats.push_back(std::move(format));
    options.arguments.push_back(PlacementOf(arg_names[i], *args[i]));
  }
  std::shared_ptr<const Compiled>& compiled = cache_[key];
  if (compiled) {
    ++cache_hits_;
  } else {
    absl::StatusOr<Compiled> fresh = jit::Compile(jaxpr_, formats, out_formats_, options);
    if (!fresh.ok()) {
      cache_.erase(key);
      return fresh.status();
    }
    compiled = std::make_shared<const Compiled>(*std::move(fresh));
  }
  return Execute(*compiled, client, args, arg_names);
}

}  // namespace axe::jit
