// Golden tests of `axe grid show|check`: the spec's printed outputs, byte for byte.
#include <algorithm>
#include <fstream>
#include "cli/run_axe.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace grid_cli_test {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing::RunAxe;
using ::testing::StartsWith;

std::string Show(std::vector<std::string> args) {
  args.insert(args.begin(), {"grid", "show"});
  auto r = RunAxe(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(GridCli, Spi1) {
  EXPECT_EQ(
      Show({"--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--index-map", "(i,j)->(i,j)"}),
      "[[ 0  0  0  1  1  1]\n"
      " [ 0  0  0  1  1  1]\n"
      " [10 10 10 11 11 11]\n"
      " [10 10 10 11 11 11]\n"
      " [20 20 20 21 21 21]\n"
      " [20 20 20 21 21 21]\n"
      " [30 30 30 31 31 31]\n"
      " [30 30 30 31 31 31]]\n");
  // The identity is the default index map.
  EXPECT_EQ(
      Show({"--shape", "8,6", "--block", "2,3", "--grid", "4,2"}),
      Show({"--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--index-map", "(i,j)->(i,j)"}));
}

TEST(GridCli, Spi4) {
  EXPECT_EQ(Show({"--shape", "8,6", "--block", "2,3", "--grid", "4,2,10", "--index-map",
                  "(i,j,k)->(i,j)"}),
            "[[  9   9   9  19  19  19]\n"
            " [  9   9   9  19  19  19]\n"
            " [109 109 109 119 119 119]\n"
            " [109 109 109 119 119 119]\n"
            " [209 209 209 219 219 219]\n"
            " [209 209 209 219 219 219]\n"
            " [309 309 309 319 319 319]\n"
            " [309 309 309 319 319 319]]\n");
}

TEST(GridCli, Spi9SqueezedAsRepr) {
  // The spec's kernel writes 10*pid(1) + pid(0) on grid (3, 2); show_program_ids writes
  // 10*pid(0) + pid(1), so swap the grid axes.
  EXPECT_EQ(Show({"--shape", "3,4", "--block", "None,2", "--grid", "2,3", "--index-map",
                  "(j,i)->(i,j)", "--repr"}),
            "Array([[ 0,  0, 10, 10],\n"
            "       [ 1,  1, 11, 11],\n"
            "       [ 2,  2, 12, 12]], dtype=int32)\n");
}

TEST(GridCli, OneDimensionalExamples) {
  // [PT-1b]
  EXPECT_EQ(Show({"--shape", "8", "--block", "3", "--grid", "3"}), "[0 0 0 1 1 1 2 2]\n");
  // [DI-2] as JAX's interpret mode runs it: program 0's start -2 counts from the end (6).
  auto r = RunAxe(
      {"grid", "show", "--shape", "8", "--block", "2", "--grid", "4", "--index-map", "i -> i - 1"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "[1 1 2 2 3 3 0 0]\n");
  EXPECT_EQ(r.err,
            "axe: note: clamped: outputs[0] at grid point (0,): the index map returned (-1,), "
            "asking for the window [-2:0] of an array of shape (8,); it was moved to [6:8] (a "
            "negative start counts from the end of the padded dimension, as in JAX's "
            "lax.dynamic_slice)\n");
  // [CK-2]'s mistake with show_program_ids: element offsets clamp onto the last block.
  EXPECT_EQ(Show({"--shape", "12", "--block", "4", "--grid", "3", "--index-map", "i->4*i",
                  "--dtype", "float32"}),
            "[ 0.  0.  0.  0. nan nan nan nan  2.  2.  2.  2.]\n");
}

TEST(GridCli, DocumentationExamples) {
  EXPECT_EQ(Show({"--shape", "7,5", "--block", "2,3", "--grid", "4,2"}),
            "[[ 0  0  0  1  1]\n"
            " [ 0  0  0  1  1]\n"
            " [10 10 10 11 11]\n"
            " [10 10 10 11 11]\n"
            " [20 20 20 21 21]\n"
            " [20 20 20 21 21]\n"
            " [30 30 30 31 31]]\n");
  EXPECT_EQ(Show({"--shape", "1,2", "--block", "2,3", "--grid", "1,1"}), "[[0 0]]\n");
  const char* twelves =
      "[[12 12 12 12]\n"
      " [12 12 12 12]\n"
      " [12 12 12 12]\n"
      " [12 12 12 12]]\n";
  EXPECT_EQ(Show({"--shape", "4,4", "--block", "none", "--grid", "2,3", "--index-map", "none"}),
            twelves);
  EXPECT_EQ(Show({"--shape", "4,4", "--block", "4,4", "--grid", "2,3", "--index-map", "none"}),
            twelves);
  EXPECT_EQ(Show({"--shape", "8,6", "--block", "Element(2),Element(3)", "--grid", "4,2",
                  "--index-map", "lambda i, j: (2*i, 3*j)"}),
            Show({"--shape", "8,6", "--block", "2,3", "--grid", "4,2"}));
  EXPECT_EQ(Show({"--shape", "7,7", "--block", "Element(2,(1,0)),Element(3,(2,0))", "--grid", "4,3",
                  "--index-map", "(i,j)->(2*i,3*j)"}),
            "[[ 0  1  1  1  2  2  2]\n"
            " [10 11 11 11 12 12 12]\n"
            " [10 11 11 11 12 12 12]\n"
            " [20 21 21 21 22 22 22]\n"
            " [20 21 21 21 22 22 22]\n"
            " [30 31 31 31 32 32 32]\n"
            " [30 31 31 31 32 32 32]]\n");
}

TEST(GridCli, Json) {
  auto j =
      nlohmann::json::parse(Show({"--shape", "2,3", "--block", "1,3", "--grid", "2,1", "--json"}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"output": [[0, 0, 0], [10, 10, 10]]})"));
  // Uninitialized entries: the type's minimum, or null for NaN.
  j = nlohmann::json::parse(Show({"--shape", "3", "--block", "2", "--grid", "1", "--json"}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"output": [0, 0, -2147483648]})"));
  j = nlohmann::json::parse(
      Show({"--shape", "3", "--block", "2", "--grid", "1", "--dtype", "f32", "--json"}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"output": [0, 0, null]})"));
  // [PT-4a]
  j = nlohmann::json::parse(Show({"--shape", "16,128", "--block", "Element(8),Element(128)",
                                  "--grid", "2", "--index-map", "i -> (8*i, 0)", "--json"}));
  ASSERT_EQ(j["output"].size(), 16u);
  EXPECT_EQ(j["output"][7], nlohmann::json(std::vector<int>(128, 0)));
  EXPECT_EQ(j["output"][8], nlohmann::json(std::vector<int>(128, 1)));
  EXPECT_FALSE(j.contains("clamped"));
  // The clamp report is a JSON field.
  j = nlohmann::json::parse(
      Show({"--shape", "8", "--block", "2", "--grid", "4", "--index-map", "i->i-1", "--json"}));
  EXPECT_EQ(j["output"], nlohmann::json::parse("[1, 1, 2, 2, 3, 3, 0, 0]"));
  ASSERT_EQ(j["clamped"].size(), 1u);
  EXPECT_EQ(j["clamped"][0]["operand"], "outputs[0]");
  EXPECT_EQ(j["clamped"][0]["grid_point"], nlohmann::json::parse("[0]"));
  EXPECT_EQ(j["clamped"][0]["requested"], nlohmann::json::parse("[[-2, 0]]"));
  EXPECT_EQ(j["clamped"][0]["clamped_to"], nlohmann::json::parse("[[6, 8]]"));
}

TEST(GridCli, Check) {
  auto r = RunAxe({"grid", "check", "--backend", "tpu", "--shape", "9,128", "--block", "9,64",
                   "--dtype", "f32"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "The Pallas TPU lowering currently requires that the last two dimensions of your block "
            "shape are divisible "
            "by 8 and 128 respectively, or be equal to the respective dimensions of the overall "
            "array. Block spec for "
            "args[0] in pallas_call kernel has block shape (Blocked(block_size=9), "
            "Blocked(block_size=64)), "
            "array shape (9, 128), and index_map <zeros>, in memory space default.\nSee details at "
            "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec\n");
  r = RunAxe({"grid", "check", "--backend", "tpu", "--shape", "16,128", "--block", "8,128",
              "--dtype", "f32"});
  EXPECT_EQ(r.out, "ok\n");
  r = RunAxe(
      {"grid", "check", "--backend", "tpu", "--shape", "9,128", "--block", "9,64", "--json"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_THAT(j["error"].get<std::string>(),
              StartsWith("The Pallas TPU lowering currently requires that the last"));
  r = RunAxe(
      {"grid", "check", "--backend", "triton", "--shape", "9,128", "--block", "8,128", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"ok": true})"));
  r = RunAxe({"grid", "check", "--backend", "triton", "--shape", "3,3", "--block", "none"});
  EXPECT_EQ(r.out,
            "The Pallas Triton lowering currently requires that all operations have array "
            "arguments and results whose "
            "size is a power of 2. Encountered an array of shape (3, 3)\n");
  r = RunAxe(
      {"grid", "check", "--backend", "tpu", "--shape", "256", "--block", "128", "--dtype", "bf16"});
  EXPECT_THAT(r.out, HasSubstr("(256 = 128 * (32 // 16))"));
  r = RunAxe({"grid", "check", "--backend", "tpu", "--shape", "3072", "--block", "384",
              "--old-rank1-rule"});
  EXPECT_EQ(r.out, "ok\n");
  r = RunAxe({"grid", "check", "--backend", "mosaic-gpu", "--shape", "8,128", "--block", "8,3"});
  EXPECT_THAT(
      r.out,
      StartsWith(
          "Mosaic GPU requires the minor-most block dimension to span a multiple of 16 bytes"));
  r = RunAxe({"grid", "check", "--backend", "tpu", "--shape", "4,256", "--block", "None,256",
              "--grid", "4", "--index-map", "i->(i,0)"});
  EXPECT_THAT(r.out, HasSubstr("has block shape (Squeezed(), Blocked(block_size=256)), array shape "
                               "(4, 256), and index_map (i) -> (i, 0)"));
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// Index maps (and every other text option) from a file with "@path"; the inputs that crashed
// the parser (SIGSEGV) are one-line errors with exit code 2.
TEST(GridCli, IndexMapFromFileAndParserLimits) {
  std::string path = WriteTemp("grid_index_map.txt", "(i, j) ->\n  (i, j)\n");
  auto r = RunAxe({"grid", "show", "--shape", "4,4", "--block", "2,2", "--grid", "2,2",
                   "--index-map", "@" + path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[[ 0  0  1  1]\n [ 0  0  1  1]\n [10 10 11 11]\n [10 10 11 11]]\n");
  std::string sum = "i->i";
  for (int t = 1; t < 40000; ++t) sum += "+i";
  for (const std::string& text : {"(i)->" + std::string(20000, '(') + "i" + std::string(20000, ')'),
                                  "(i)->" + std::string(60000, '-') + "i", sum}) {
    std::string file = WriteTemp("grid_deep_map.txt", text);
    r = RunAxe({"grid", "check", "--backend", "tpu", "--shape", "1024", "--grid", "2",
                "--index-map", "@" + file});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, StartsWith("axe: error: --index-map: position "));
    EXPECT_THAT(r.err, AnyOf(HasSubstr("levels deep"), HasSubstr("operands and operators")));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// "gpu" and "mosaic" used to be silent aliases (of Mosaic GPU and TPU); both are ambiguous, so
// they are rejected with the accepted names. JAX's own backend names are accepted.
TEST(GridCli, BackendNames) {
  for (const char* name : {"gpu", "mosaic"}) {
    auto r = RunAxe({"grid", "check", "--backend", name, "--shape", "8"});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("--backend: backend '", name, "' is ambiguous")));
    EXPECT_THAT(r.err, HasSubstr("expected tpu, mosaic-gpu or triton (also JAX's names mosaic_tpu, "
                                 "mosaic_gpu)"));
  }
  for (const char* name : {"mosaic_tpu", "mosaic_gpu", "Triton"}) {
    auto r = RunAxe({"grid", "check", "--backend", name, "--shape", "1024"});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, "ok\n") << name;
  }
}

TEST(GridCli, BadInputExitsWithTwoAndOneLine) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"grid", "show", "--shape", "8,6", "--block", "2,Foo(3)"},
           {"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2,10"},
           {"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--index-map",
            "(i,j)->(i,k)"},
           {"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--index-map",
            "(i,j)->(i//0,j)"},
           {"grid", "show", "--shape", "8,6", "--block", "2", "--grid", "4"},
           {"grid", "show", "--shape", "8,-6"},
           {"grid", "show", "--shape", "8", "--grid", "4,x"},
           {"grid", "show", "--shape", "8", "--dtype", "int33"},
           {"grid", "show", "--shape", "8", "--block", "BoundedSlice(2)", "--grid", "4"},
           {"grid", "show", "--shape", "100000,100000"},
           {"grid", "show", "--shape", "8", "--grid", "1000000000", "--index-map", "none"},
           {"grid", "check", "--backend", "tpu", "--shape", "8", "--grid", "100000,100000"},
           {"grid", "check", "--backend", "cuda", "--shape", "8"},
           {"grid", "check", "--backend", "tpu", "--shape", "8", "--block", "2,2"},
           {"grid", "check", "--backend", "tpu", "--shape", "8", "--memory-space", "vram"},
       }) {
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[3] << " " << r.out;
    EXPECT_THAT(r.err, StartsWith("axe: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = RunAxe({"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2",
                   "--index-map", "(i,j)->(i,k)"});
  EXPECT_EQ(r.err,
            "axe: error: --index-map: position 10: unknown variable 'k'; the grid variables are "
            "(i, j) in "
            "\"(i,j)->(i,k)\"\n");
  r = RunAxe({"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--index-map",
              "(i,j)->(i//0,j)"});
  EXPECT_EQ(r.err,
            "axe: error: Index map function (i, j) -> (i // 0, j) for outputs[0] at grid point (0, "
            "0): integer "
            "division or modulo by zero\n");
}

TEST(GridCli, Help) {
  auto r = RunAxe({"grid", "show", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--index-map"));
  r = RunAxe({"grid", "check", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--old-rank1-rule"));
}

TEST(GridCli, TourPart) {
  auto r = RunAxe({"tour", "--part", "pallas"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("    [[ 0  0  0  1  1  1]\n     [ 0  0  0  1  1  1]\n     [10 10 10 11 11 11]"));
  EXPECT_THAT(r.out, HasSubstr("    [[ 0  1  1  1  2  2  2]\n     [10 11 11 11 12 12 12]"));
  EXPECT_THAT(r.out, HasSubstr("[ 0.  1.  2.  3. nan nan nan nan  8.  9. 10. 11.]"));
  EXPECT_THAT(r.out, HasSubstr("array (9, 128), block (Blocked(9), Blocked(64)):  tpu rejected"));
}

TEST(GridCli, HugeBlocksOverSmallArraysAreRefusedNotRun) {
  for (const char* svg : {"", "/dev/null"}) {
    std::vector<std::string> args = {"grid",       "show",   "--shape", "8",           "--block",
                                     "4294967295", "--grid", "3",       "--index-map", "(i) -> i"};
    if (*svg) args.insert(args.end(), {"--svg", svg});
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("padded to whole blocks has the shape (4294967295,)")) << svg;
  }
}

TEST(GridCli, ClampNotesAreSummarisedAndTheBudgetChecked) {
  // Every program but the first two clamps onto the last block.
  auto r = RunAxe(
      {"grid", "show", "--shape", "8", "--block", "2", "--grid", "1000", "--index-map", "i -> i"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::StartsWith("axe: note: 996 windows clamped, first: outputs[0] at "
                                           "grid point (4,)"));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  // --json lists the first 1000 of 99996.
  r = RunAxe({"grid", "show", "--shape", "8", "--block", "2", "--grid", "100000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["clamped"].size(), 1000u);
  // Output within the cap but over the budget.
  r = RunAxe({"--memory-limit", "1M", "grid", "show", "--shape", "1024,1024", "--block", "512,512",
              "--grid", "2,2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("show_program_ids of shape (1024, 1024) on the grid (2, 2) needs "
                               "about 28.0 MiB"));
  EXPECT_THAT(r.err, HasSubstr("from --memory-limit"));
  // More programs than the cap.
  r = RunAxe({"grid", "show", "--shape", "8", "--grid", "16777217", "--index-map", "none"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("axe grid runs at most 16777216"));
}

}  // namespace
}  // namespace grid_cli_test
}  // namespace axe
