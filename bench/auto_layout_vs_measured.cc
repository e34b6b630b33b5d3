// Layout.AUTO checked by measurement: each program runs on the executor in its compiled layouts
// (exec/layouts.h) under every candidate input layout the cost model (jit/auto_layout.h)
// enumerates, outputs in the layout the model gives them for those inputs. Per program it
// prints each candidate's median time over the rounds (with its quartiles), the model's choice
// and whether that choice is the fastest within noise: its median within 10% of the fastest
// median, or its first quartile at or below the fastest's third quartile (the two are not told
// apart by the rounds). The candidates run in turn, round after round, so that a change of
// load hits them all alike.
//
//   build/release/bench/auto_layout_vs_measured [--rounds=N] [--threads=N] [--describe]
//
// --threads: the executor's threads (ExecOptions::num_threads; 0, the default: every CPU).
//
// --describe prints the model's explanation and each candidate's plan (Executable::Describe).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/exec/layouts.h"
#include "axe/exec/value.h"
#include "axe/ir/parser.h"
#include "axe/jit/auto_layout.h"
#include "axe/jit/notebook.h"

namespace {

using axe::jit::JitLayout;
using axe::jit::LocalLayout;

struct Program {
  std::string name;
  std::string jaxpr;  // as jax.make_jaxpr prints it
};

std::vector<Program> Programs() {
  return {
      {"layout notebook: (x[0, :], y[:, 0])", axe::jit::kApplyFnJaxpr},
      {"column reduction: jnp.sum(x, axis=0)",
       "{ lambda ; a:f32[2048,2048]. let b:f32[2048] = reduce_sum[axes=(0,) out_sharding=None] a"
       " in (b,) }"},
      {"row reduction: jnp.sum(x, axis=1)",
       "{ lambda ; a:f32[2048,2048]. let b:f32[2048] = reduce_sum[axes=(1,) out_sharding=None] a"
       " in (b,) }"},
      {"transpose feeding a matmul: x.T @ w",
       "{ lambda ; a:f32[512,512] b:f32[512,512]. let c:f32[512,512] = transpose[permutation=(1, "
       "0)] a; d:f32[512,512] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
       "preferred_element_type=float32] c b in (d,) }"},
      {"slice of a row: x[7, :]",
       "{ lambda ; a:f32[4096,4096]. let b:f32[1,4096] = slice[limit_indices=(8, 4096) "
       "start_indices=(7, 0) strides=None] a; c:f32[4096] = squeeze[dimensions=(0,)] b in (c,) }"},
      {"slice of a column: x[:, 7]",
       "{ lambda ; a:f32[4096,4096]. let b:f32[4096,1] = slice[limit_indices=(4096, 8) "
       "start_indices=(0, 7) strides=None] a; c:f32[4096] = squeeze[dimensions=(1,)] b in (c,) }"},
      {"strided gather: x[:, ::16]",
       "{ lambda ; a:f32[2048,2048]. let b:f32[2048,128] = slice[limit_indices=(2048, 2048) "
       "start_indices=(0, 0) strides=(1, 16)] a in (b,) }"},
  };
}

void Die(const absl::Status& s, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(absl::StatusOr<T> v, const std::string& what) {
  if (!v.ok()) Die(v.status(), what);
  return *std::move(v);
}

std::vector<int64_t> MinorToMajor(const LocalLayout& l) {
  return {l.major_to_minor().rbegin(), l.major_to_minor().rend()};
}

std::string Text(const std::vector<LocalLayout>& layouts) {
  std::vector<std::string> parts;
  for (const LocalLayout& l : layouts) {
    parts.push_back(absl::StrCat("(", absl::StrJoin(l.major_to_minor(), ","), ")"));
  }
  return absl::StrJoin(parts, " ");
}

// Every combination of the inputs' candidate layouts.
std::vector<std::vector<LocalLayout>> Combinations(const axe::jit::LayoutPlan& plan,
                                                   size_t inputs) {
  std::vector<std::vector<LocalLayout>> out = {{}};
  for (size_t i = 0; i < inputs; ++i) {
    std::vector<std::vector<LocalLayout>> next;
    for (const auto& prefix : out) {
      for (const axe::jit::LayoutCandidate& c : plan.explain[i].candidates) {
        next.push_back(prefix);
        next.back().push_back(c.layout);
      }
    }
    out = std::move(next);
  }
  return out;
}

struct Candidate {
  std::vector<LocalLayout> inputs;
  axe::exec::Executable executable;
  std::vector<axe::exec::Value> args;
  std::vector<double> seconds;  // one per round
};

Candidate Prepare(const axe::ir::ClosedJaxpr& j, std::vector<LocalLayout> inputs, int threads) {
  std::vector<JitLayout> in(inputs.begin(), inputs.end());
  std::vector<JitLayout> out(j.jaxpr.outvars.size(), JitLayout(axe::jit::AutoLayout{}));
  axe::jit::LayoutPlan plan = Must(axe::jit::ChooseLayouts(j.jaxpr, in, out), "outputs");
  axe::exec::ProgramLayouts layouts;
  for (const LocalLayout& l : inputs) layouts.inputs.push_back(MinorToMajor(l));
  for (const LocalLayout& l : plan.outputs) layouts.outputs.push_back(MinorToMajor(l));
  axe::exec::ExecOptions options;
  options.num_threads = threads;
  axe::exec::Executable e = Must(axe::exec::CompileInLayouts(j, layouts, options), "compile");
  std::vector<axe::exec::Value> args;
  std::mt19937 rng(1);
  for (const axe::ir::ShapedArray& aval : e.input_avals()) {
    axe::exec::Value v = Must(axe::exec::Value::Uninitialized(aval), "allocate");
    auto* f = reinterpret_cast<float*>(v.mutable_bytes());
    for (size_t k = 0; k < v.num_bytes() / sizeof(float); ++k) f[k] = (rng() % 1000) / 1000.0f;
    args.push_back(std::move(v));
  }
  return Candidate{std::move(inputs), std::move(e), std::move(args), {}};
}

// Seconds per run, over enough runs to last about 2 ms.
double TimeOnce(const Candidate& c) {
  using Clock = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) Must(c.executable.Run(c.args), "run");
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > 2e-3 || reps >= (1 << 16)) return s / reps;
    reps *= 4;
  }
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}
double Median(const std::vector<double>& v) { return Quantile(v, 0.5); }

void Measure(const Program& p, int rounds, bool describe, int threads) {
  const axe::ir::ClosedJaxpr j = Must(axe::ir::ParseJaxpr(p.jaxpr), p.name);
  const size_t n = j.jaxpr.invars.size();
  std::vector<JitLayout> in(n, JitLayout(axe::jit::AutoLayout{}));
  std::vector<JitLayout> out(j.jaxpr.outvars.size(), JitLayout(axe::jit::AutoLayout{}));
  const axe::jit::LayoutPlan model = Must(axe::jit::ChooseLayouts(j.jaxpr, in, out), p.name);
  std::vector<Candidate> candidates;
  for (std::vector<LocalLayout>& combo : Combinations(model, n)) {
    candidates.push_back(Prepare(j, std::move(combo), threads));
  }
  for (Candidate& c : candidates) TimeOnce(c);  // warm-up: BLAS loaded, storage pooled
  for (int r = 0; r < rounds; ++r) {            // interleaved, so drift hits every candidate alike
    for (Candidate& c : candidates) c.seconds.push_back(TimeOnce(c));
  }
  double best = 1e300;
  std::string fastest;
  for (const Candidate& c : candidates) {
    if (Median(c.seconds) < best) {
      best = Median(c.seconds);
      fastest = Text(c.inputs);
    }
  }
  const std::string chosen = Text(model.inputs);
  double chosen_time = 0, chosen_q1 = 0, fastest_q3 = 0;
  std::printf("%s\n", p.name.c_str());
  if (describe) std::printf("%s", axe::jit::ExplainText(model).c_str());
  for (const Candidate& c : candidates) {
    const double m = Median(c.seconds);
    const bool is_chosen = Text(c.inputs) == chosen;
    if (is_chosen) chosen_time = m;
    if (is_chosen) chosen_q1 = Quantile(c.seconds, 0.25);
    if (Text(c.inputs) == fastest) fastest_q3 = Quantile(c.seconds, 0.75);
    std::printf("  inputs major_to_minor %-14s %10.1f us  (quartiles %.1f-%.1f)%s\n",
                Text(c.inputs).c_str(), m * 1e6, Quantile(c.seconds, 0.25) * 1e6,
                Quantile(c.seconds, 0.75) * 1e6, is_chosen ? "   <- model" : "");
    if (describe) std::printf("%s", c.executable.Describe().c_str());
  }
  const bool ok = chosen_time <= best * 1.1 || chosen_q1 <= fastest_q3;
  std::printf(
      "  model %s, fastest %s: %s\n\n", chosen.c_str(), fastest.c_str(),
      ok ? "the model's choice is the fastest (within noise)"
         : absl::StrCat("the model's choice is ", chosen_time / best, "x slower than the fastest")
               .c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 11;
  bool describe = false;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) threads = std::atoi(argv[i] + 10);
    if (std::strncmp(argv[i], "--rounds=", 9) == 0) rounds = std::max(1, std::atoi(argv[i] + 9));
    if (std::strcmp(argv[i], "--describe") == 0) describe = true;
  }
  for (const Program& p : Programs()) Measure(p, rounds, describe, threads);
  return 0;
}
