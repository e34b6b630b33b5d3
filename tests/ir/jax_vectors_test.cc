// axe's IR against what the real JAX said about random programs
// (testdata/jax_jaxpr_vectors.json, written by python/tests/generate_jaxpr_vectors.py; the
// environment variable AXE_JAX_JAXPR_VECTORS names another such file, as
// python/tests/test_jax_jaxprs.py passes a freshly generated one):
//   * every text JAX printed parses and re-prints character for character;
//   * CheckJaxpr accepts what JAX printed, and on the mutated shard_map programs agrees with
//     jax.core.check_jaxpr: the same verdict, the same Python exception class, JAX's message;
//   * LinearTranspose of each linear shard_map program has the collectives of
//     jax.linear_transpose's, and evaluates to the same values as JAX's transposed text.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/python_error.h"
#include "axe/ir/check.h"
#include "axe/ir/comm.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::ir {
namespace jax_vectors_test {
namespace {

using Json = nlohmann::json;

std::string VectorsPath() {
  const char* env = std::getenv("AXE_JAX_JAXPR_VECTORS");
  if (env != nullptr && *env != '\0') return env;
  return std::string(AXE_IR_TESTDATA_DIR) + "/jax_jaxpr_vectors.json";
}

const Json& Vectors() {
  static const Json* vectors = [] {
    auto* j = new Json(Json::parse(testing_support::ReadFile(VectorsPath()), nullptr,
                                   /*allow_exceptions=*/false));
    return j;
  }();
  return *vectors;
}

std::vector<const Json*> CasesOf(const std::string& kind) {
  std::vector<const Json*> out;
  if (!Vectors().contains("cases")) return out;
  for (const Json& c : Vectors()["cases"]) {
    if (kind.empty() || c["kind"] == kind) out.push_back(&c);
  }
  return out;
}

// The Python exception class a status maps to (python/src/status.cc does the same).
std::string PythonClass(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return IsTypeError(status) ? "TypeError" : "ValueError";
    case absl::StatusCode::kUnimplemented: return "NotImplementedError";
    default: return "ValueError";
  }
}

// Up to `limit` failure descriptions are kept; the count of all is what the tests check.
struct Failures {
  int count = 0;
  std::string first;
  void Add(int index, const std::string& what) {
    if (++count <= 5) absl::StrAppend(&first, "\n--- case ", index, ": ", what);
  }
};

int IndexOf(const Json* c) {
  const Json& all = Vectors()["cases"];
  for (size_t i = 0; i < all.size(); ++i) {
    if (&all[i] == c) return static_cast<int>(i);
  }
  return -1;
}

void CheckRoundTrip(const Json* c, const std::string& text, Failures& f) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) {
    f.Add(IndexOf(c), absl::StrCat("parse: ", j.status().message(), "\n", text));
    return;
  }
  std::string printed = PrintJaxpr(*j);
  if (printed != text) {
    f.Add(IndexOf(c), absl::StrCat("re-printed differently\nJAX:\n", text, "\naxe:\n", printed));
  }
}

TEST(JaxVectorsTest, TheFileIsThere) {
  ASSERT_TRUE(Vectors().contains("cases")) << "cannot read " << VectorsPath();
  std::map<std::string, int> kinds;
  for (const Json& c : Vectors()["cases"]) ++kinds[c["kind"].get<std::string>()];
  std::string line;
  for (const auto& [kind, n] : kinds) absl::StrAppend(&line, " ", kind, "=", n);
  std::cout << "[ vectors  ] " << VectorsPath() << " (jax "
            << Vectors().value("jax_version", std::string("?")) << ", seed "
            << Vectors().value("seed", -1) << "):" << line << "\n";
  EXPECT_GE(kinds["jaxpr"], 1);
  EXPECT_GE(kinds["shard_map"], 1);
  EXPECT_GE(kinds["typing"], 1);
  EXPECT_GE(kinds["transpose"], 1);
}

TEST(JaxVectorsTest, EveryTextReprintsIdentically) {
  Failures f;
  int n = 0;
  for (const Json* c : CasesOf("")) {
    CheckRoundTrip(c, (*c)["text"].get<std::string>(), f);
    ++n;
    if (c->contains("transposed")) {
      CheckRoundTrip(c, (*c)["transposed"].get<std::string>(), f);
      ++n;
    }
  }
  std::cout << "[ vectors  ] " << n << " texts parsed and re-printed\n";
  EXPECT_EQ(f.count, 0) << f.first;
}

TEST(JaxVectorsTest, WhatJaxPrintedTypeChecks) {
  Failures f;
  for (const std::string kind : {"jaxpr", "shard_map", "transpose"}) {
    for (const Json* c : CasesOf(kind)) {
      for (const char* field : {"text", "transposed"}) {
        if (!c->contains(field)) continue;
        absl::StatusOr<ClosedJaxpr> j = ParseJaxpr((*c)[field].get<std::string>());
        if (!j.ok()) continue;  // reported by EveryTextReprintsIdentically
        // JAX checks the open jaxpr (core.check_jaxpr): the text has no constants' values.
        absl::Status s = CheckJaxpr(j->jaxpr);
        if (!s.ok()) {
          f.Add(IndexOf(c), absl::StrCat("CheckJaxpr refused what JAX printed: ", s.message(), "\n",
                                         (*c)[field].get<std::string>()));
        }
      }
    }
  }
  EXPECT_EQ(f.count, 0) << f.first;
}

// The part of JAX's message that axe must reproduce exactly (as a prefix of its own): the
// message and the equation at fault, up to JAX's next "in equation:" (the enclosing
// equations, which axe introduces with "in the jaxpr of parameter ...", and JAX's "while
// checking jaxpr:" printouts of the whole jaxpr). JAX's "from source:" lines were removed by
// the generator; a primitive rule's ValueError comes without an equation.
// Python prints a frozenset in hash order, which differs between runs: the names inside each
// frozenset({...}) are sorted (axe prints them in mesh order).
std::string SortFrozensets(std::string message) {
  const std::string open = "frozenset({";
  for (size_t at = message.find(open); at != std::string::npos; at = message.find(open, at + 1)) {
    size_t begin = at + open.size();
    size_t end = message.find("})", begin);
    if (end == std::string::npos) break;
    std::vector<std::string> names = absl::StrSplit(message.substr(begin, end - begin), ", ");
    std::sort(names.begin(), names.end());
    message.replace(begin, end - begin, absl::StrJoin(names, ", "));
  }
  return message;
}

std::string KeyPart(const std::string& message) {
  const std::string marker = "\n\nin equation:\n\n";
  size_t first = message.find(marker);
  if (first == std::string::npos) return message;
  size_t end = std::min(message.find(marker, first + marker.size()),
                        message.find("\n\nwhile checking jaxpr:"));
  return end == std::string::npos ? message : message.substr(0, end);
}

TEST(JaxVectorsTest, CheckJaxprAgreesWithJaxOnMutatedShardMaps) {
  Failures f;
  int accepted = 0, rejected = 0;
  for (const Json* c : CasesOf("typing")) {
    const std::string text = (*c)["text"].get<std::string>();
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
    if (!j.ok()) continue;  // reported by EveryTextReprintsIdentically
    absl::Status s = CheckJaxpr(j->jaxpr);
    const bool jax_accepted = (*c)["accepted"].get<bool>();
    (jax_accepted ? accepted : rejected)++;
    if (jax_accepted != s.ok()) {
      f.Add(IndexOf(c),
            absl::StrCat("JAX ", jax_accepted ? "accepted" : "rejected", " (",
                         c->value("message", std::string()), "), axe ",
                         s.ok() ? "accepted" : "rejected", " (", s.message(), ")\n", text));
      continue;
    }
    if (jax_accepted) continue;
    const std::string base = (*c)["exception_base"].get<std::string>();
    const std::string message = (*c)["message"].get<std::string>();
    if (PythonClass(s) != base || !absl::StartsWith(SortFrozensets(std::string(s.message())),
                                                    SortFrozensets(KeyPart(message)))) {
      f.Add(IndexOf(c), absl::StrCat("JAX: ", base, ": ", message, "\naxe: ", PythonClass(s), ": ",
                                     s.message(), "\n", text));
    }
  }
  std::cout << "[ vectors  ] typing: JAX accepted " << accepted << ", rejected " << rejected
            << "\n";
  EXPECT_EQ(f.count, 0) << f.first;
}

// pvary moves nothing; JAX's linear_transpose and axe place it differently (see docs/ir.md,
// "Differential tests against JAX"), so it is left out of the comparison of counts.
std::map<std::string, int> CollectiveCounts(const CommunicationCount& count) {
  std::map<std::string, int> out;
  for (const CollectiveCount& c : count.collectives) {
    if (c.primitive != "pvary") ++out[c.primitive];
  }
  return out;
}

std::string CountsString(const std::map<std::string, int>& counts) {
  std::string s;
  for (const auto& [p, n] : counts) absl::StrAppend(&s, p, "=", n, " ");
  return s;
}

// Small integers: every transpose here sums and scales them exactly in f32.
std::vector<HostArray> RandomArgs(const Jaxpr& j, std::mt19937_64& rng) {
  std::vector<HostArray> args;
  std::uniform_int_distribution<int> value(-4, 4);
  for (const ShapedArray& a : j.in_avals()) {
    HostArray h{a, std::vector<double>(static_cast<size_t>(*a.NumElements()))};
    for (double& v : h.values) v = value(rng);
    args.push_back(std::move(h));
  }
  return args;
}

void CheckTranspose(const Json* c, std::mt19937_64& rng, Failures& f) {
  absl::StatusOr<ClosedJaxpr> program = ParseJaxpr((*c)["text"].get<std::string>());
  absl::StatusOr<ClosedJaxpr> theirs = ParseJaxpr((*c)["transposed"].get<std::string>());
  if (!program.ok() || !theirs.ok()) return;  // reported by EveryTextReprintsIdentically
  absl::StatusOr<ClosedJaxpr> ours =
      LinearTranspose(*program, std::vector<bool>(program->jaxpr.invars.size(), true));
  if (!ours.ok()) {
    f.Add(IndexOf(c), absl::StrCat("LinearTranspose: ", ours.status().message()));
    return;
  }
  absl::StatusOr<CommunicationCount> count = CountCommunication(*ours);
  if (!count.ok()) {
    f.Add(IndexOf(c), absl::StrCat("CountCommunication: ", count.status().message()));
    return;
  }
  std::map<std::string, int> expected;
  for (const auto& [p, n] : (*c)["collectives"].items()) {
    if (p != "pvary") expected[p] = n.get<int>();
  }
  absl::StatusOr<CommunicationCount> their_count = CountCommunication(*theirs);
  if (CollectiveCounts(*count) != expected || !their_count.ok() ||
      their_count->total_bytes_per_device != count->total_bytes_per_device) {
    f.Add(IndexOf(c),
          absl::StrCat("collectives: JAX ", CountsString(expected), "axe ",
                       CountsString(CollectiveCounts(*count)), "\naxe's:\n", PrintJaxpr(*ours),
                       "\nJAX's:\n", (*c)["transposed"].get<std::string>()));
    return;
  }
  // JAX's transpose may close over forward values (residuals): the generator recorded them.
  const Json& consts = (*c)["transposed_consts"];
  for (size_t i = 0; i < theirs->jaxpr.constvars.size() && i < consts.size(); ++i) {
    theirs->consts.push_back(HostArray{theirs->jaxpr.aval(theirs->jaxpr.constvars[i]),
                                       consts[i].get<std::vector<double>>()});
  }
  std::vector<HostArray> cts = RandomArgs(theirs->jaxpr, rng);
  absl::StatusOr<std::vector<HostArray>> a = EvalJaxpr(*ours, cts);
  absl::StatusOr<std::vector<HostArray>> b = EvalJaxpr(*theirs, cts);
  if (!a.ok() || !b.ok() || *a != *b) {
    f.Add(IndexOf(c),
          absl::StrCat("values differ (or do not evaluate: ", a.ok() ? "" : a.status().message(),
                       " ", b.ok() ? "" : b.status().message(), ")\naxe's:\n", PrintJaxpr(*ours)));
  }
}

TEST(JaxVectorsTest, TransposesHaveJaxsCollectivesAndValues) {
  std::mt19937_64 rng(testing_support::TestSeed(14));
  Failures f;
  for (const Json* c : CasesOf("transpose")) CheckTranspose(c, rng, f);
  EXPECT_EQ(f.count, 0) << f.first;
}

}  // namespace
}  // namespace jax_vectors_test
}  // namespace axe::ir
