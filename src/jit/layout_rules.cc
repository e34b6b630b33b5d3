#include "axe/jit/layout_rules.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"

namespace axe::jit {
namespace {

constexpr size_t kMaxListedMismatches = 5;

// JAX's check_compatible_aval, prefixed as jit prefixes it.
absl::Status CheckRank(const LocalLayout& layout, const CallArgument& argument) {
  absl::Status fits = layout.CheckCompatibleAval(argument.aval.shape());
  if (fits.ok()) return fits;
  return absl::InvalidArgumentError(absl::StrCat(
      "One of jit arguments with pytree key path ", argument.name,
      " is incompatible with its layout annotation ", layout.ToString(), ": ", fits.message()));
}

std::string MismatchMessage(const CallArgument& argument, const LocalLayout& required) {
  return absl::StrCat("Argument ", argument.name, " with shape ", argument.aval.Str(),
                      ":\n  Passed layout: ", argument.layout.ToString(),
                      "\n  Required layout: ", required.ToString());
}

}  // namespace

LocalLayout DefaultLayout(size_t rank) {
  std::vector<int64_t> major_to_minor(rank);
  for (size_t i = 0; i < rank; ++i) major_to_minor[i] = static_cast<int64_t>(i);
  absl::StatusOr<LocalLayout> layout = LocalLayout::Create(std::move(major_to_minor));
  return *std::move(layout);
}

bool UserLayoutMatches(const LocalLayout& user, const LocalLayout& actual) {
  if (!user.tiling() || user.tiling()->empty()) {
    return user.major_to_minor() == actual.major_to_minor();
  }
  return user == actual;
}

absl::StatusOr<JitLayout> JitLayoutOfBareLayout(const JitLayout& bare_layout) {
  if (std::holds_alternative<std::monostate>(bare_layout)) return bare_layout;
  return absl::InvalidArgumentError(absl::StrCat(
      "`jax.jit` does not accept device-local layouts directly. Create a `Format` instance "
      "wrapping this device-local layout and pass that to `jit` instead. Got ",
      Format::LayoutToString(bare_layout)));
}

absl::StatusOr<InputResolution> ResolveJitInput(const JitLayout& jit_layout,
                                                const CallArgument& argument) {
  const LocalLayout default_layout = DefaultLayout(argument.aval.shape().size());
  if (std::holds_alternative<std::monostate>(jit_layout)) {
    if (argument.committed && !UserLayoutMatches(argument.layout, default_layout)) {
      return InputResolution{InputAction::kArgumentLayout, argument.layout};
    }
    return InputResolution{InputAction::kDefault, default_layout};
  }
  const LocalLayout* concrete = std::get_if<LocalLayout>(&jit_layout);
  if (concrete) AXE_RETURN_IF_ERROR(CheckRank(*concrete, argument));
  const bool matches = concrete && UserLayoutMatches(*concrete, argument.layout);
  if (argument.committed && !matches) {
    std::string message = absl::StrCat(
        "Layout passed to jit does not match the layout on the respective arg. Got jit layout: ",
        Format::LayoutToString(jit_layout), ",\narg layout: ", argument.layout.ToString(),
        " for arg type: ", argument.aval.Str(), ".");
    if (!concrete) {
      absl::StrAppend(&message,
                      " The layout given to `jax.jit` is `Layout.AUTO` but the corresponding "
                      "argument passed is a `jax.Array` with a concrete layout. Consider passing "
                      "a `jax.ShapeDtypeStruct` instead of `jax.Array` as an argument to the "
                      "jitted function  when using `Layout.AUTO`.");
    }
    return absl::InvalidArgumentError(message);
  }
  if (!concrete) return InputResolution{InputAction::kCompilerChoice, std::nullopt};
  if (matches) return InputResolution{InputAction::kJitLayout, *concrete};
  return InputResolution{InputAction::kRelayout, *concrete};
}

absl::StatusOr<std::vector<size_t>> CheckCompiledCall(absl::Span<const CallArgument> arguments,
                                                      absl::Span<const LocalLayout> compiled) {
  if (arguments.size() != compiled.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the computation was compiled for ",
                                                   compiled.size(), " arguments, but ",
                                                   arguments.size(), " were passed"));
  }
  std::vector<std::string> mismatches;
  std::vector<size_t> relayout;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].layout == compiled[i]) continue;
    if (arguments[i].committed) {
      mismatches.push_back(MismatchMessage(arguments[i], compiled[i]));
    } else {
      relayout.push_back(i);
    }
  }
  if (mismatches.empty()) return relayout;
  const size_t n = mismatches.size();
  const std::string count = n < kMaxListedMismatches
                                ? absl::StrCat("the ", n, " mismatches")
                                : absl::StrCat(kMaxListedMismatches, " mismatches out of ", n);
  mismatches.resize(std::min(n, kMaxListedMismatches));
  return absl::InvalidArgumentError(absl::StrCat(
      "Compiled object called with input layout(s) does not match the layout(s) the "
      "computation was compiled with. Computation was compiled for input layouts that disagree "
      "with the layouts of arguments passed to it. Here are ",
      count, ":\n", absl::StrJoin(mismatches, "\n")));
}

absl::Status CheckDevicePutFormat(const Format& format, absl::string_view aval) {
  if (!format.is_auto()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("sharding and layout in `Layout` instance should be concrete. Got layout: ",
                   format.ToString(), " for input ", aval));
}

absl::Status CheckShapeDtypeStructFormat(const Format& format) {
  if (!format.is_auto()) return absl::OkStatus();
  return TypeError(absl::StrCat(
      "`Layout.AUTO` cannot be used in place of a device-local layout in a `ShapeDtypeStruct`. "
      "Got ",
      format.ToString()));
}

absl::Status CheckDonation(const JitLayout& input, const JitLayout& output) {
  const bool input_auto = std::holds_alternative<AutoLayout>(input);
  const bool output_auto = std::holds_alternative<AutoLayout>(output);
  const bool input_concrete = std::holds_alternative<LocalLayout>(input);
  const bool output_concrete = std::holds_alternative<LocalLayout>(output);
  if (input_auto && output_concrete) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input layout being donated was AUTO while output layout was ",
        Format::LayoutToString(output),
        ". Did you mean to set the **output layout** to **Layout.AUTO**?\nThis will allow for "
        "the input and output layout to be chosen by XLA and not the layout of the output which "
        "might not be optimal."));
  }
  if (input_concrete && output_auto) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input layout being donated was ", Format::LayoutToString(input),
        " while output layout was AUTO. Did you mean to set the **input layout** to "
        "**Layout.AUTO**?\nThis will allow for the input and output layout to be chosen by XLA "
        "and not the layout of the input which might not be optimal."));
  }
  return absl::OkStatus();
}

}  // namespace axe::jit
