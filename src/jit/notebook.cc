#include "axe/jit/notebook.h"

#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/sharding/format.h"

namespace axe::jit {

const char kApplyFnJaxpr[] = R"({ lambda ; a:f32[512,1024] b:f32[512,1024]. let
    c:f32[1,1024] = slice[
      limit_indices=(1, 1024)
      start_indices=(0, 0)
      strides=None
    ] a
    d:f32[1024] = squeeze[dimensions=(0,)] c
    e:f32[512,1] = slice[
      limit_indices=(512, 1)
      start_indices=(0, 0)
      strides=None
    ] b
    f:f32[512] = squeeze[dimensions=(1,)] e
  in (d, f) })";

namespace {

constexpr int64_t kRows = 512;
constexpr int64_t kCols = 1024;

absl::StatusOr<sharding::Sharding> Device0() {
  AXE_ASSIGN_OR_RETURN(sharding::SingleDeviceSharding s, sharding::SingleDeviceSharding::Create(0));
  return sharding::Sharding(std::move(s));
}

// init() = (jnp.ones((512, 1024)), jnp.ones((512, 1024))).
absl::StatusOr<ir::ClosedJaxpr> InitProgram() {
  ir::Builder b;
  AXE_ASSIGN_OR_RETURN(ir::Tracer ones,
                       ir::BroadcastInDim(b.Scalar(1.0, DType::kF32), {kRows, kCols}, {}));
  return b.Build({ones, ones});
}

// np.ones((512, 1024)) on device 0, row-major, then in `layout` (committed or not).
absl::StatusOr<runtime::Array> Ones(runtime::Client& client, const LocalLayout& layout,
                                    bool committed) {
  std::vector<float> host(static_cast<size_t>(kRows * kCols), 1.0f);
  AXE_ASSIGN_OR_RETURN(
      sharding::NamedSharding device0,
      sharding::NamedSharding::Create(sharding::Mesh(), sharding::PartitionSpec()));
  AXE_ASSIGN_OR_RETURN(Format format, Format::Create(layout, std::move(device0)));
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  return runtime::Array::DevicePut(client, {bytes, host.size() * sizeof(float)}, {kRows, kCols},
                                   DType::kF32, std::move(format), committed);
}

NotebookCall Call(const Compiled& apply, runtime::Client& client, std::string title,
                  const runtime::Array& x, const runtime::Array& y) {
  NotebookCall call{std::move(title), {LayoutOfArray(x), LayoutOfArray(y)}, {}, {}};
  const runtime::Array* args[] = {&x, &y};
  const std::string names[] = {"x", "y"};
  absl::StatusOr<CallResult> result = Execute(apply, client, args, names);
  call.status = result.status();
  if (result.ok()) call.relayouts = std::move(result->relayouts);
  return call;
}

}  // namespace

absl::StatusOr<Notebook> RunLayoutNotebook(runtime::Client& client) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr apply_fn, ir::ParseJaxpr(kApplyFnJaxpr));
  AXE_ASSIGN_OR_RETURN(Format automatic, Format::Create(AutoLayout{}));
  AXE_ASSIGN_OR_RETURN(Compiled apply,
                       Compile(apply_fn, {automatic, automatic}, {automatic, automatic}));
  // init compiled with out_shardings = apply's input formats (on device 0).
  AXE_ASSIGN_OR_RETURN(sharding::Sharding device0, Device0());
  std::vector<std::optional<Format>> arg_formats;
  for (const Format& f : apply.input_formats()) {
    AXE_ASSIGN_OR_RETURN(Format format, Format::Create(*f.local_layout(), device0));
    arg_formats.push_back(std::move(format));
  }
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr init_fn, InitProgram());
  AXE_ASSIGN_OR_RETURN(Compiled init, Compile(std::move(init_fn), {}, arg_formats));
  AXE_ASSIGN_OR_RETURN(CallResult made, Execute(init, client, {}));

  const LocalLayout row_major = DefaultLayout(2);
  const LocalLayout& x_layout = *apply.input_formats()[0].local_layout();
  const LocalLayout& y_layout = *apply.input_formats()[1].local_layout();
  AXE_ASSIGN_OR_RETURN(runtime::Array x1, Ones(client, row_major, /*committed=*/false));
  AXE_ASSIGN_OR_RETURN(runtime::Array y1, Ones(client, row_major, /*committed=*/false));
  AXE_ASSIGN_OR_RETURN(runtime::Array x3, Ones(client, x_layout, /*committed=*/false));
  AXE_ASSIGN_OR_RETURN(runtime::Array y3, Ones(client, y_layout, /*committed=*/false));
  AXE_ASSIGN_OR_RETURN(runtime::Array y4, Ones(client, row_major, /*committed=*/true));

  Notebook notebook{std::move(apply), {}};
  const Compiled& c = notebook.apply;
  notebook.calls.push_back(Call(c, client, "uncommitted with mismatched layout", x1, y1));
  notebook.calls.push_back(Call(c, client, "uncommitted with matching layout", x3, y3));
  notebook.calls.push_back(
      Call(c, client, "committed with matching layout", made.outputs[0], made.outputs[1]));
  notebook.calls.push_back(
      Call(c, client, "committed with mismatched layout", made.outputs[0], y4));
  return notebook;
}

std::string FormatNotebook(const Notebook& notebook) {
  std::string out;
  for (const NotebookCall& call : notebook.calls) {
    absl::StrAppend(&out, "-- ", call.title, ":\n");
    absl::StrAppend(
        &out, "x major_to_minor = ", FormatTuple(call.layouts[0].major_to_minor(), true), "\n");
    absl::StrAppend(
        &out, "y major_to_minor = ", FormatTuple(call.layouts[1].major_to_minor(), true), "\n");
    if (call.status.ok()) {
      absl::StrAppend(&out, "-> `apply` called successfully\n");
    } else if (absl::StrContains(call.status.message(), "does not match")) {
      absl::StrAppend(&out, "-> error: mismatched input layouts\n");
    } else {
      absl::StrAppend(&out, "-> error: ", call.status.message(), "\n");
    }
    absl::StrAppend(&out, "\n");
  }
  out.pop_back();
  return out;
}

}  // namespace axe::jit
