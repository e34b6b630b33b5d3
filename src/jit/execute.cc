#include "axe/jit/execute.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/exec/executable.h"
#include "axe/exec/layouts.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/host_bytes.h"
#include "axe/runtime/reshard.h"
#include "axe/runtime/tensor_buffer.h"
#include "axe/sharding/device_map.h"

namespace axe::jit {
namespace {

constexpr size_t kMaxListed = 5;

ir::ShapedArray AvalOf(const runtime::Array& array) {
  return ir::ShapedArray(array.shape(), array.dtype());
}

// JAX's check_arg_avals_for_call.
absl::Status CheckTypes(const ir::Jaxpr& jaxpr, absl::Span<const runtime::Array* const> args,
                        absl::Span<const std::string> names) {
  const std::vector<ir::ShapedArray> in_avals = jaxpr.in_avals();
  if (in_avals.size() != args.size()) {
    return TypeError(absl::StrCat("Computation compiled for ", in_avals.size(),
                                  " inputs but called with ", args.size()));
  }
  std::vector<std::string> errors;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::ShapedArray& ref = in_avals[i];
    if (ref.shape() == args[i]->shape() && ref.dtype() == args[i]->dtype()) continue;
    errors.push_back(absl::StrCat("Argument '", names[i], "' compiled with ", ref.ShortString(),
                                  " and called with ", AvalOf(*args[i]).ShortString()));
  }
  if (errors.empty()) return absl::OkStatus();
  const std::string count = errors.size() >= kMaxListed
                                ? absl::StrCat("The first ", kMaxListed, " of ", errors.size())
                                : std::string("The");
  errors.resize(std::min(errors.size(), kMaxListed));
  return TypeError(absl::StrCat(
      "Argument types differ from the types for which this computation was compiled. Perhaps "
      "you are calling the compiled executable with a different enable_x64 mode than when it "
      "was AOT compiled? ",
      count, " mismatches are:\n", absl::StrJoin(errors, "\n")));
}

// The runtime format of a compiled input or output of `dtype`: its sharding (or `fallback`)
// and layout. Errors: a layout XLA cannot express for `dtype`.
absl::StatusOr<sharding::Format> RuntimeFormat(const Format& format, DType dtype,
                                               const sharding::Sharding& fallback) {
  const LocalLayout& layout = *format.local_layout();  // a compiled format's is concrete
  AXE_RETURN_IF_ERROR(layout.ToXla(dtype).status());
  return Format::Create(layout, format.sharding() ? *format.sharding() : fallback);
}

struct Mismatch {
  std::string text;
  bool sharding = false;  // else a layout
};

// JAX's check_array_xla_sharding_layout_match with the documents' first sentence (§4.3).
absl::Status MismatchError(std::vector<Mismatch> mismatches) {
  const bool all_sharding = std::all_of(mismatches.begin(), mismatches.end(),
                                        [](const Mismatch& m) { return m.sharding; });
  const bool all_layout = std::none_of(mismatches.begin(), mismatches.end(),
                                       [](const Mismatch& m) { return m.sharding; });
  const std::string kind = all_sharding ? "shardings"
                           : all_layout ? "layouts"
                                        : "shardings and layouts";
  const std::string kind_s = all_sharding ? "sharding(s)"
                             : all_layout ? "layout(s)"
                                          : "sharding(s) and layout(s)";
  const size_t n = mismatches.size();
  const std::string count = n < kMaxListed ? absl::StrCat("the ", n, " mismatches")
                                           : absl::StrCat(kMaxListed, " mismatches out of ", n);
  mismatches.resize(std::min(n, kMaxListed));
  std::vector<std::string> texts;
  for (const Mismatch& m : mismatches) texts.push_back(m.text);
  return absl::InvalidArgumentError(
      absl::StrCat("Compiled object called with input ", kind_s, " does not match the ", kind_s,
                   " the computation was compiled with. Computation was compiled for input ", kind,
                   " that disagree with the ", kind, " of arguments passed to it. Here are ", count,
                   ":\n", absl::StrJoin(texts, "\n")));
}

// The format every argument must have, and the errors for committed ones that differ.
absl::StatusOr<std::vector<Format>> TargetFormats(const Compiled& compiled,
                                                  absl::Span<const runtime::Array* const> args,
                                                  absl::Span<const std::string> names,
                                                  const sharding::NamedSharding& placement) {
  std::vector<Format> targets;
  std::vector<Mismatch> mismatches;
  for (size_t i = 0; i < args.size(); ++i) {
    const runtime::Array& arg = *args[i];
    const Format& want = compiled.input_formats()[i];
    AXE_ASSIGN_OR_RETURN(
        Format target,
        RuntimeFormat(want, arg.dtype(),
                      arg.committed() ? *arg.format().sharding() : sharding::Sharding(placement)));
    AXE_ASSIGN_OR_RETURN(sharding::NamedSharding target_sharding, runtime::ArraySharding(target));
    const std::string shape = AvalOf(arg).ShortString();
    if (arg.committed() && want.sharding() && !SameDeviceMap(arg, target_sharding)) {
      mismatches.push_back(
          {absl::StrCat("Argument ", names[i], " with shape ", shape,
                        ":\n  Passed sharding: ", arg.format().sharding()->ToString(),
                        "\n  Required sharding: ", want.sharding()->ToString()),
           true});
    }
    if (arg.committed() && LayoutOfArray(arg) != *want.local_layout()) {
      mismatches.push_back({absl::StrCat("Argument ", names[i], " with shape ", shape,
                                         ":\n  Passed layout: ", LayoutOfArray(arg).ToString(),
                                         "\n  Required layout: ", want.local_layout()->ToString()),
                            false});
    }
    targets.push_back(std::move(target));
  }
  if (!mismatches.empty()) return MismatchError(std::move(mismatches));
  return targets;
}

// Uncommitted arguments not already in their target format are moved there; with `record_only`
// (the executor reads every argument straight into its compiled layout) only listed.
absl::StatusOr<std::vector<std::optional<runtime::Array>>> MoveUncommitted(
    absl::Span<const runtime::Array* const> args, absl::Span<const Format> targets,
    absl::Span<const std::string> names, std::vector<ArgumentRelayout>& relayouts,
    bool record_only) {
  std::vector<std::optional<runtime::Array>> moved(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const runtime::Array& arg = *args[i];
    if (arg.committed()) continue;
    AXE_ASSIGN_OR_RETURN(sharding::NamedSharding target_sharding,
                         runtime::ArraySharding(targets[i]));
    const bool reshard = !SameDeviceMap(arg, target_sharding);
    LocalLayout to = *targets[i].local_layout();
    const LocalLayout from = LayoutOfArray(arg);
    if (!reshard && from == to) continue;
    if (reshard && !record_only) {
      AXE_ASSIGN_OR_RETURN(moved[i], runtime::Reshard(arg, targets[i]));
    } else if (!record_only) {
      AXE_ASSIGN_OR_RETURN(moved[i], arg.Relayout(to));
    }
    relayouts.push_back({i, names[i], from, std::move(to), reshard});
  }
  return moved;
}

// Where values without a sharding of their own go (uncommitted arguments and outputs):
// replicated over the devices of the computation, which the first compiled sharding (inputs,
// then outputs) fixes, else the first committed argument, else the first argument.
absl::StatusOr<sharding::NamedSharding> DefaultPlacement(
    const Compiled& compiled, absl::Span<const runtime::Array* const> args) {
  std::optional<sharding::NamedSharding> first;
  for (const auto* formats : {&compiled.input_formats(), &compiled.output_formats()}) {
    for (const Format& f : *formats) {
      if (first || !f.sharding()) continue;
      AXE_ASSIGN_OR_RETURN(first, runtime::ArraySharding(*f.sharding()));
    }
  }
  for (const runtime::Array* a : args) {
    if (!first && a->committed()) first = a->sharding();
  }
  if (!first && !args.empty()) first = args[0]->sharding();
  return sharding::NamedSharding::Create(first ? first->mesh() : sharding::Mesh(),
                                         sharding::PartitionSpec());
}

// The dense layout (minor_to_major) a compiled format's layout stores its elements in, tiles
// aside: the order the executor computes in.
std::vector<int64_t> MinorToMajor(const Format& format) {
  const std::vector<int64_t>& m2m = format.local_layout()->major_to_minor();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

// A `shape` array of `dtype` stored densely, its dimensions in `minor_to_major` order.
absl::StatusOr<relayout::BufferLayout> DenseBuffer(absl::Span<const int64_t> shape, DType dtype,
                                                   const std::vector<int64_t>& minor_to_major) {
  AXE_ASSIGN_OR_RETURN(LocalLayout local,
                       LocalLayout::Create({minor_to_major.rbegin(), minor_to_major.rend()}));
  AXE_ASSIGN_OR_RETURN(xla::Layout layout, local.ToXla(dtype));
  AXE_ASSIGN_OR_RETURN(
      runtime::TensorBuffer buffer,
      runtime::BufferLayoutFromXla(xla::Shape::Array(
          dtype, std::vector<int64_t>(shape.begin(), shape.end()), {}, std::move(layout))));
  return std::move(buffer.buffer);
}

// The bytes of a device's buffer when it holds the whole array stored as `dense` (an unsharded
// array in a dense layout): the executor reads them in place. nullptr otherwise.
const void* WholeArrayStoredAs(const runtime::Array& array, const relayout::BufferLayout& dense) {
  if (array.storage().shape != array.shape() || !(array.storage().layout == dense)) {
    return nullptr;
  }
  for (const sharding::DeviceShard& shard : array.device_map()) {
    const runtime::DeviceBuffer* buffer = array.shard_buffer(static_cast<int>(shard.device));
    if (buffer != nullptr && buffer->size() > 0) return buffer->data();
  }
  return nullptr;
}

// The executor, compiled for the formats' layouts (exec/layouts.h), on each argument's bytes
// in its compiled layout (typed; read in place when a device holds the whole array densely,
// else gathered into that order, tiles undone); its results, in the output formats' layouts,
// put back on the devices. A shard_map runs each mesh position of its body on a thread of
// this process, its collectives through the executor's in-process communicator.
absl::StatusOr<std::vector<runtime::Array>> RunOnExecutor(
    const Compiled& compiled, runtime::Client& client,
    absl::Span<const runtime::Array* const> inputs, const sharding::NamedSharding& fallback) {
  exec::ProgramLayouts layouts;
  for (const Format& f : compiled.input_formats()) {
    layouts.inputs.push_back(MinorToMajor(f));
  }
  for (const Format& f : compiled.output_formats()) {
    layouts.outputs.push_back(MinorToMajor(f));
  }
  // On a client whose process holds one device (MPI), its shard_map positions run here.
  exec::ExecOptions options;
  if (static_cast<int>(client.addressable_devices().size()) != client.num_devices()) {
    options.client = &client;
  }
  AXE_ASSIGN_OR_RETURN(exec::Executable executable,
                       exec::CompileInLayouts(compiled.jaxpr(), layouts, options));
  std::vector<exec::Value> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const runtime::Array& input = *inputs[i];
    AXE_ASSIGN_OR_RETURN(relayout::BufferLayout host,
                         DenseBuffer(input.shape(), input.dtype(), layouts.inputs[i]));
    if (const void* in_place = WholeArrayStoredAs(input, host)) {
      AXE_ASSIGN_OR_RETURN(exec::Value value,
                           exec::Value::Borrow(executable.input_avals()[i], in_place));
      values.push_back(std::move(value));
      continue;
    }
    AXE_ASSIGN_OR_RETURN(exec::Value value,
                         exec::Value::Uninitialized(executable.input_avals()[i]));
    if (value.num_bytes() > 0) {
      AXE_RETURN_IF_ERROR(input.ToHost(
          absl::MakeSpan(reinterpret_cast<uint8_t*>(value.mutable_bytes()), value.num_bytes()),
          host));
    }
    values.push_back(std::move(value));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<exec::Value> results, executable.Run(values));
  const std::vector<ir::ShapedArray> out_avals = compiled.jaxpr().jaxpr.out_avals();
  std::vector<runtime::Array> outputs;
  for (size_t i = 0; i < results.size(); ++i) {
    const ir::ShapedArray& aval = out_avals[i];
    AXE_ASSIGN_OR_RETURN(sharding::Format format,
                         RuntimeFormat(compiled.output_formats()[i], aval.dtype(), fallback));
    AXE_ASSIGN_OR_RETURN(relayout::BufferLayout host,
                         DenseBuffer(aval.shape(), aval.dtype(), layouts.outputs[i]));
    absl::Span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(results[i].bytes()),
                                    results[i].num_bytes());
    AXE_ASSIGN_OR_RETURN(runtime::Array out,
                         runtime::Array::DevicePut(client, bytes, host, aval.shape(), aval.dtype(),
                                                   std::move(format), /*committed=*/true));
    outputs.push_back(std::move(out));
  }
  return outputs;
}

absl::StatusOr<std::vector<runtime::Array>> RunProgram(
    const Compiled& compiled, runtime::Client& client,
    absl::Span<const runtime::Array* const> inputs, const sharding::NamedSharding& fallback) {
  // On a client whose process holds one device (MPI), every process runs the program and its
  // own mesh position of each shard_map, the collectives through the client's backend.
  const int64_t devices = ir::DevicesNeeded(compiled.jaxpr());
  if (devices > client.num_devices()) {
    return absl::InvalidArgumentError(absl::StrCat("a shard_map of the program has ", devices,
                                                   " devices but the client has ",
                                                   client.num_devices()));
  }
  return RunOnExecutor(compiled, client, inputs, fallback);
}

}  // namespace

std::vector<std::string> ArgumentNames(absl::Span<const std::string> names, size_t n) {
  std::vector<std::string> out(names.begin(), names.end());
  for (size_t i = out.size(); i < n; ++i) out.push_back(absl::StrCat("args[", i, "]"));
  return out;
}

bool SameDeviceMap(const runtime::Array& array, const sharding::NamedSharding& target) {
  absl::StatusOr<std::vector<sharding::DeviceShard>> map =
      sharding::DevicesIndicesMap(target, array.shape());
  return map.ok() && *map == array.device_map();
}

LocalLayout LayoutOfArray(const runtime::Array& array) {
  if (array.local_layout()) {
    absl::StatusOr<LocalLayout> layout = LocalLayout::FromXla(*array.local_layout());
    if (layout.ok()) return *std::move(layout);
  }
  // Row-major, with the full information an array's layout has (tiling=()).
  absl::StatusOr<LocalLayout> layout =
      DefaultLayout(array.shape().size()).WithTiling(LocalLayout::Tiling{});
  return *std::move(layout);
}

absl::StatusOr<CallResult> Execute(const Compiled& compiled, runtime::Client& client,
                                   absl::Span<const runtime::Array* const> args,
                                   absl::Span<const std::string> names) {
  const std::vector<std::string> arg_names = ArgumentNames(names, args.size());
  AXE_RETURN_IF_ERROR(CheckTypes(compiled.jaxpr().jaxpr, args, arg_names));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding placement, DefaultPlacement(compiled, args));
  AXE_ASSIGN_OR_RETURN(std::vector<Format> targets,
                       TargetFormats(compiled, args, arg_names, placement));
  CallResult result;
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<runtime::Array>> moved,
                       MoveUncommitted(args, targets, arg_names, result.relayouts,
                                       ir::DevicesNeeded(compiled.jaxpr()) == 1));
  std::vector<const runtime::Array*> inputs;
  for (size_t i = 0; i < args.size(); ++i) inputs.push_back(moved[i] ? &*moved[i] : args[i]);
  const sharding::NamedSharding& fallback = placement;
  AXE_ASSIGN_OR_RETURN(result.outputs, RunProgram(compiled, client, inputs, fallback));
  return result;
}

}  // namespace axe::jit
