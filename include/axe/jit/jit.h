// jax.jit(f, in_shardings=..., out_shardings=...) called like a function (spec
// jax-layout-format.md §4.1-4.2), and its AOT stages (§4.3): Lower(...) then Compile().
//
//   Jit f = *Jit::Create(jaxpr, {Format(AUTO), std::nullopt}, {});
//   CallResult r = *f.Call(*client, {&x, &y});   // compiles for these arguments, or reuses
//   f.cache_size();                                // executables compiled so far
//   Compiled c = *f.Lower()->Compile();            // the AOT path, for the given formats
//
// On every call each argument's layout is resolved by ResolveJitInput (layout_rules.h):
// none → the default layout, or — for a committed argument with a non-default layout — the
// argument's own layout (a separate executable); a concrete jit layout → that layout (an
// uncommitted argument is re-laid-out by Execute; a committed one that differs is an
// error); AUTO → the compiler's choice for an uncommitted argument (an error for a committed
// one). The resolved input formats key a cache of executables.
#ifndef AXE_JIT_JIT_H_
#define AXE_JIT_JIT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/jaxpr.h"
#include "axe/jit/compile.h"
#include "axe/jit/execute.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"

namespace axe::jit {

// The program with its formats, before layouts are chosen (JAX's Lowered).
class Lowered {
 public:
  // The program's text (the jaxpr as JAX prints it).
  std::string as_text() const;
  const std::vector<std::optional<Format>>& in_formats() const { return in_formats_; }
  const std::vector<std::optional<Format>>& out_formats() const { return out_formats_; }
  // Chooses every AUTO layout and checks the formats (Compile's errors).
  absl::StatusOr<Compiled> Compile() const;

 private:
  friend class Jit;
  ir::ClosedJaxpr jaxpr_;
  std::vector<std::optional<Format>> in_formats_;
  std::vector<std::optional<Format>> out_formats_;
};

class Jit {
 public:
  // `in_formats` / `out_formats`: one entry per input / output, or empty (all none). Errors:
  // counts that differ from the program's.
  static absl::StatusOr<Jit> Create(ir::ClosedJaxpr jaxpr,
                                    std::vector<std::optional<Format>> in_formats,
                                    std::vector<std::optional<Format>> out_formats);

  // Resolves the arguments' layouts, compiles (or reuses the executable compiled for the
  // same resolved formats) and executes. Errors: ResolveJitInput's (JAX's mismatch
  // ValueErrors), Compile's and Execute's.
  absl::StatusOr<CallResult> Call(runtime::Client& client,
                                  absl::Span<const runtime::Array* const> args,
                                  absl::Span<const std::string> names = {});

  // The AOT path for the formats given at creation.
  absl::StatusOr<Lowered> Lower() const;

  // Executables compiled so far (one per distinct resolved input formats), and how many
  // calls reused one.
  size_t cache_size() const { return cache_.size(); }
  int64_t cache_hits() const { return cache_hits_; }

 private:
  ir::ClosedJaxpr jaxpr_;
  std::vector<std::optional<Format>> in_formats_;
  std::vector<std::optional<Format>> out_formats_;
  // Keyed by the resolved input formats' canonical text (None for none), one per line.
  absl::flat_hash_map<std::string, std::shared_ptr<const Compiled>> cache_;
  int64_t cache_hits_ = 0;
};

}  // namespace axe::jit

#endif  // AXE_JIT_JIT_H_
