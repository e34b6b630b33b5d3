// axe relayout: run the relayout engine on generated data and report its bandwidth.
//
//   axe relayout --shape 8192,8192 --dtype f32 --from 'S[(8192,8192):(8192,1)]'
//       --to 'S[(8192,8192):(1,8192)]' [--threads N] [--check] [--json]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/base/thread_pool.h"
#include "axe/runtime/buffer_layout.h"
#include "axe/runtime/element_type.h"
#include "axe/runtime/relayout_plan.h"
#include "axe/runtime/relayout_reference.h"
#include "axe/xla/primitive_type.h"
#include "axe/xla/shape.h"
#include "axe/xla/text.h"
#include "axe/xla/to_axe.h"
#include "cli.h"

namespace axe::cli {
namespace {

using runtime::BufferLayout;

// What a --from/--to argument denotes: the buffer layout and, when the text carries it,
// the tensor's shape and element size.
struct ResolvedLayout {
  BufferLayout buffer;
  std::optional<std::vector<int64_t>> shape;  // the real box
  std::optional<std::string> dtype;
};

// True for text that looks like an XLA shape string: "bf16[4096,4096]{1,0:T(8,128)(2,1)}".
bool LooksLikeXlaShape(absl::string_view text) {
  text = absl::StripLeadingAsciiWhitespace(text);
  const size_t bracket = text.find('[');
  if (bracket == 0 || bracket == absl::string_view::npos) return false;
  for (char c : text.substr(0, bracket)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  }
  return text[0] != 'S' || bracket != 1;
}

// Turns a --from/--to argument into a buffer layout: an Axe layout, optionally over a
// padded domain ("S[...] over (4096, 4096)"), or an XLA shape string, which axe::xla::ToAxe
// turns into its Axe layout over the padded (tiled) domain, with the real box and the
// element type from the shape ("bf16[4095,4095]{1,0:T(8,128)(2,1)}").
absl::StatusOr<ResolvedLayout> ResolveLayoutArgument(const std::string& text, const std::string& option) {
  if (LooksLikeXlaShape(text)) {
    absl::StatusOr<xla::Shape> shape = xla::ParseShape(text);
    if (!shape.ok()) return absl::InvalidArgumentError(absl::StrCat(option, ": ", shape.status().message()));
    if (!shape->has_layout()) {
      return absl::InvalidArgumentError(absl::StrCat(option, " '", text, "': give the layout, e.g. '", text, "{",
                                                     shape->dimensions().size() > 1 ? "1,0" : "0", "}'"));
    }
    if (shape->layout().element_size_in_bits() != 0) {
      return absl::UnimplementedError(absl::StrCat(option, " '", text,
                                                   "': packed elements (E(n)) are not supported by the relayout "
                                                   "engine yet"));
    }
    absl::StatusOr<xla::AxeForm> form = xla::ToAxe(*shape);
    if (!form.ok()) return absl::Status(form.status().code(), absl::StrCat(option, ": ", form.status().message()));
    for (const xla::DomainDim& d : form->domain_dims) {
      if (d.first_dim != d.last_dim) {
        return absl::UnimplementedError(absl::StrCat(option, " '", text, "': dims ", d.first_dim, " to ", d.last_dim,
                                                     " are folded into one padded domain dim ('*' tiles), which "
                                                     "the relayout engine does not take yet"));
      }
    }
    return ResolvedLayout{BufferLayout(form->layout, form->domain), form->real_dims,
                          std::string(xla::PrimitiveTypeName(shape->element_type()))};
  }
  absl::StatusOr<BufferLayout> b = BufferLayout::Parse(text);
  if (!b.ok()) return absl::InvalidArgumentError(absl::StrCat(option, ": ", b.status().message()));
  return ResolvedLayout{*std::move(b), std::nullopt, std::nullopt};
}

// The bytes of `value` as an element of `dtype` (for --fill).
absl::StatusOr<std::vector<uint8_t>> ElementFromNumber(const std::string& value, const std::string& dtype,
                                                       int bytes) {
  double d = 0;
  if (!absl::SimpleAtod(value, &d)) return absl::InvalidArgumentError(absl::StrCat("--fill: not a number: ", value));
  std::vector<uint8_t> out(static_cast<size_t>(bytes), 0);
  auto put = [&](auto v) { std::memcpy(out.data(), &v, sizeof(v)); };
  if (dtype == "f32") {
    put(static_cast<float>(d));
  } else if (dtype == "f64") {
    put(d);
  } else if (dtype == "bf16") {
    const float f = static_cast<float>(d);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    put(static_cast<uint16_t>(u >> 16));
  } else if (dtype == "f16") {
    return absl::InvalidArgumentError("--fill: f16 values are not supported; use an integer dtype of 2 bytes");
  } else if (dtype[0] == 'f' || dtype[0] == 'c') {
    return absl::InvalidArgumentError(absl::StrCat("--fill: no numeric conversion for ", dtype));
  } else {
    const int64_t i = static_cast<int64_t>(d);
    std::memcpy(out.data(), &i, static_cast<size_t>(std::min(bytes, 8)));
  }
  return out;
}

// Aligned storage for element offsets [begin, end) of a plan's side.
struct Buffer {
  std::unique_ptr<uint8_t, decltype(&std::free)> storage{nullptr, &std::free};
  uint8_t* base = nullptr;  // offset 0
  int64_t bytes = 0;
  // Errors (ResourceExhausted) when the allocation fails; `what` names the buffer.
  absl::Status Allocate(int64_t begin, int64_t end, int element_bytes, absl::string_view what) {
    bytes = std::max<int64_t>(1, (end - begin) * element_bytes);  // the plan checked the range
    const size_t size = static_cast<size_t>((bytes + 63) / 64 * 64);
    storage.reset(static_cast<uint8_t*>(std::aligned_alloc(64, size)));
    if (storage == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes for the ", what));
    }
    base = storage.get() - begin * element_bytes;
    return absl::OkStatus();
  }
  uint8_t* data() { return storage.get(); }
};

void FillPattern(uint8_t* p, int64_t bytes, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  int64_t k = 0;
  for (; k + 8 <= bytes; k += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(p + k, &x, 8);
  }
  for (; k < bytes; ++k) p[k] = static_cast<uint8_t>(k);
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void AddRelayout(CLI::App& app, Selected& selected) {
  struct Args {
    std::string shape, dtype = "f32", from, to, fill;
    int threads = 0;
    int repeat = 0;
    bool check = false, measure = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "relayout",
      "Copy a tensor from one memory layout to another on generated data: prints the plan (fused dims, loop "
      "order, kernel, threads), the time and the bandwidth (bytes read + written) next to memcpy of the same "
      "bytes, and with --check verifies the result against the naive oracle");
  cmd->add_option("--shape", args->shape,
                  "Logical shape of the tensor, e.g. 8192,8192 (optional when --from or --to is an XLA shape)");
  CLI::Option* dtype = cmd->add_option(
      "--dtype", args->dtype, "Element type: f32, bf16, s8, f64, c128, ... (default f32, or the XLA shape's)");
  cmd->add_option("--from", args->from,
                  "Source layout: an Axe layout on memory, e.g. 'S[(8192,8192):(8192,1)]', optionally "
                  "'... over (D0,D1)' for a padded domain, or an XLA shape such as 'bf16[4096,4096]{1,0}'")
      ->required();
  cmd->add_option("--to", args->to, "Destination layout (same forms as --from)")->required();
  cmd->add_option("--threads", args->threads, "Threads (default: all cores; small tensors use one)");
  cmd->add_option("--fill", args->fill, "Fill the destination's padding with this value (default: untouched)");
  cmd->add_option("--repeat", args->repeat, "Timed runs (default: as many as fit in about 0.3 s, 3 to 50)");
  cmd->add_flag("--measure", args->measure, "Pick the plan by timing candidates (PlanSearch::kMeasure)");
  cmd->add_flag("--check", args->check, "Verify the result against the element-by-element oracle");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, dtype, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(ResolvedLayout from, ResolveLayoutArgument(args->from, "--from"));
    AXE_ASSIGN_OR_RETURN(ResolvedLayout to, ResolveLayoutArgument(args->to, "--to"));
    // The shape and dtype: from the options, or from XLA shape strings (which must agree).
    std::optional<std::vector<int64_t>> shape_opt;
    if (!args->shape.empty()) {
      AXE_ASSIGN_OR_RETURN(shape_opt, ParseIntListOption(args->shape, "--shape"));
    }
    std::optional<std::string> dtype_name;
    if (dtype->count() > 0) dtype_name = args->dtype;
    for (const auto& [r, option] : {std::pair<const ResolvedLayout*, const char*>{&from, "--from"}, {&to, "--to"}}) {
      if (r->shape) {
        if (shape_opt && *shape_opt != *r->shape) {
          return absl::InvalidArgumentError(absl::StrCat(option, ": the shape's dims ", FormatTuple(*r->shape),
                                                         " differ from ", FormatTuple(*shape_opt)));
        }
        shape_opt = r->shape;
      }
      if (r->dtype) {
        if (dtype_name && *dtype_name != *r->dtype) {
          return absl::InvalidArgumentError(
              absl::StrCat(option, ": element type ", *r->dtype, " differs from ", *dtype_name));
        }
        dtype_name = r->dtype;
      }
    }
    if (!shape_opt) return absl::InvalidArgumentError("--shape is required unless --from or --to is an XLA shape");
    const std::vector<int64_t> shape = *shape_opt;
    args->dtype = dtype_name.value_or("f32");
    absl::StatusOr<int> bytes_or = runtime::ElementBytes(args->dtype);
    if (!bytes_or.ok()) return absl::Status(bytes_or.status().code(), absl::StrCat("--dtype: ", bytes_or.status().message()));
    const int bytes = *bytes_or;

    runtime::RelayoutOptions options;
    options.threads = args->threads;
    if (args->threads < 0) return absl::InvalidArgumentError("--threads: must be >= 0");
    if (args->measure) options.search = runtime::PlanSearch::kMeasure;
    if (!args->fill.empty()) {
      AXE_ASSIGN_OR_RETURN(options.padding_value, ElementFromNumber(args->fill, args->dtype, bytes));
    }
    AXE_ASSIGN_OR_RETURN(runtime::RelayoutPlan plan,
                         runtime::PlanRelayout(from.buffer, to.buffer, shape, bytes, options));

    // Source, destination, two memcpy buffers and, with --check, the expected result: refuse
    // up front what cannot fit in this machine's memory (instead of being killed mid-run).
    const int64_t copy_bytes = std::max<int64_t>(1, plan.bytes_moved() / 2);
    const double needed = static_cast<double>(plan.src_end() - plan.src_begin()) * bytes +
                          static_cast<double>(plan.dst_end() - plan.dst_begin()) * bytes * (args->check ? 2 : 1) +
                          2.0 * static_cast<double>(copy_bytes);
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (physical > 0 && needed > 0.8 * physical) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "this run needs %.1f GB of buffers (source, destination, memcpy baseline%s) but the machine has %.1f GB",
          needed / 1e9, args->check ? ", expected result" : "", physical / 1e9));
    }
    Buffer src, dst;
    AXE_RETURN_IF_ERROR(src.Allocate(plan.src_begin(), plan.src_end(), bytes, "source"));
    AXE_RETURN_IF_ERROR(dst.Allocate(plan.dst_begin(), plan.dst_end(), bytes, "destination"));
    FillPattern(src.data(), src.bytes, 1);
    std::memset(dst.data(), 0xA5, static_cast<size_t>(dst.bytes));

    // memcpy of the same number of bytes, on the same threads, interleaved with the plan's
    // runs; the best time of each.
    Buffer ma, mb;
    AXE_RETURN_IF_ERROR(ma.Allocate(0, copy_bytes, 1, "memcpy source"));
    AXE_RETURN_IF_ERROR(mb.Allocate(0, copy_bytes, 1, "memcpy destination"));
    FillPattern(ma.data(), copy_bytes, 2);
    std::memset(mb.data(), 0, static_cast<size_t>(copy_bytes));
    ThreadPool& pool = ThreadPool::Default();
    const int threads = plan.threads();
    auto memcpy_once = [&] {
      if (threads <= 1) {
        std::memcpy(mb.data(), ma.data(), static_cast<size_t>(copy_bytes));
        return;
      }
      const int64_t part = (copy_bytes / threads + 63) / 64 * 64;
      pool.ParallelFor(
          threads,
          [&](int64_t t) {
            const int64_t lo = std::min(copy_bytes, t * part), hi = std::min(copy_bytes, lo + part);
            std::memcpy(mb.data() + lo, ma.data() + lo, static_cast<size_t>(hi - lo));
          },
          threads);
    };
    AXE_RETURN_IF_ERROR(plan.Execute(src.base, dst.base));  // warm-up
    memcpy_once();
    double best = 1e30, best_memcpy = 1e30, spent = 0;
    const int max_runs = args->repeat > 0 ? args->repeat : 50;
    for (int run = 0; run < max_runs; ++run) {
      auto t0 = std::chrono::steady_clock::now();
      memcpy_once();
      auto t1 = std::chrono::steady_clock::now();
      AXE_RETURN_IF_ERROR(plan.Execute(src.base, dst.base));
      auto t2 = std::chrono::steady_clock::now();
      best_memcpy = std::min(best_memcpy, Seconds(t0, t1));
      best = std::min(best, Seconds(t1, t2));
      spent += Seconds(t0, t2);
      if (args->repeat == 0 && run >= 2 && spent > 0.3) break;
    }
    best = std::max(best, 1e-9);
    best_memcpy = std::max(best_memcpy, 1e-9);
    const double gbps = static_cast<double>(plan.bytes_moved()) / best / 1e9;
    const double memcpy_gbps = 2.0 * static_cast<double>(copy_bytes) / best_memcpy / 1e9;

    std::string check = "skipped";
    if (args->check) {
      Buffer expected;
      AXE_RETURN_IF_ERROR(expected.Allocate(plan.dst_begin(), plan.dst_end(), bytes, "expected result"));
      std::memset(expected.data(), 0xA5, static_cast<size_t>(expected.bytes));
      AXE_RETURN_IF_ERROR(runtime::ReferenceRelayout(from.buffer, to.buffer, shape, bytes, src.base, expected.base,
                                                     options.padding_value, &pool));
      check = std::memcmp(expected.data(), dst.data(), static_cast<size_t>(dst.bytes)) == 0 ? "passed" : "failed";
    }

    if (selected.json) {
      PrintJson({{"gbps", gbps},
                 {"seconds", best},
                 {"bytes", plan.bytes_moved()},
                 {"memcpy_gbps", memcpy_gbps},
                 {"threads", threads},
                 {"plan", plan.ToString()},
                 {"check", check}});
    } else {
      std::cout << plan << "\n"
                << absl::StrFormat("time      %.6f s (best of the timed runs)\n", best)
                << absl::StrFormat("bandwidth %.2f GB/s (%d bytes read + written)\n", gbps, plan.bytes_moved())
                << absl::StrFormat("memcpy    %.2f GB/s on %d thread%s: relayout at %.0f%% of memcpy\n", memcpy_gbps,
                                   threads, threads == 1 ? "" : "s", 100.0 * gbps / memcpy_gbps)
                << "check     " << check << "\n";
    }
    if (check == "failed") {
      return absl::InternalError("the relayout result differs from the element-by-element oracle");
    }
    return absl::OkStatus();
  });
}

AXE_CLI_COMMAND_GROUP(60, AddRelayout);

}  // namespace
}  // namespace axe::cli
