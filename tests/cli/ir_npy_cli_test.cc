// `axe ir run` with values from .npy files (examples/npy, written by make_examples.py): a
// constvar's value from --const, an input from --arg @FILE.npy, outputs written by --out-npy;
// a malformed file or a missing or mistyped constant is one error line with exit code 2. Also
// a `while` loop JAX printed, run from the command line.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "axe/base/npy.h"
#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace ir_npy_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using ::testing::StartsWith;

std::string Example(const std::string& name) {
  return std::string(AXE_SOURCE_DIR) + "/examples/npy/" + name;
}

std::filesystem::path TempDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("axe_ir_npy_cli_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// tanh(x @ w) for the example's x = [1, 2] and w = [[0.5, -1, 2], [1.5, 0.25, -0.5]].
const float kExpected[3] = {0.99817789f, -0.46211716f, 0.76159416f};

TEST(IrNpyCli, ConstAndArgFromNpyAndOutputsAsNpy) {
  std::filesystem::path dir = TempDir("out");
  auto r = RunAxe({"ir", "run", "@" + Example("dense.txt"), "--const", "@" + Example("w.npy"),
                   "--arg", "@" + Example("x.npy"), "--out-npy", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("f32[3] [0.99817"));
  std::string file = ReadBytes(dir / "out0.npy");
  ASSERT_EQ(file.size(), 128u + 12u);
  EXPECT_THAT(file, StartsWith("\x93NUMPY"));
  EXPECT_THAT(file, HasSubstr("'descr': '<f4', 'fortran_order': False, 'shape': (3,)"));
  float got[3];
  std::memcpy(got, file.data() + 128, sizeof(got));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], kExpected[i], 1e-6) << i;
  // The same constant from an archive (np.savez(f, w): arr_0).
  auto npz = RunAxe({"ir", "run", "@" + Example("dense.txt"), "--consts",
                     "@" + Example("consts.npz"), "--arg", "@" + Example("x.npy")});
  ASSERT_EQ(npz.exit_code, 0) << npz.err;
  EXPECT_EQ(npz.out, r.out);
  // The file JAX computed reads back as an input too.
  auto echo = RunAxe(
      {"ir", "run", "{ lambda ; a:f32[3]. let  in (a,) }", "--arg", "@" + Example("expected.npy")});
  ASSERT_EQ(echo.exit_code, 0) << echo.err;
  EXPECT_THAT(echo.out, StartsWith("f32[3] [0.99817"));
  std::filesystem::remove_all(dir);
}

// 64-bit integers past 2^53 in and out of .npy files keep every bit (the executor holds them
// in their own width; the i64 sum wraps as JAX's does); as a constant, which the closed jaxpr
// holds as the interpreter's doubles, such a value is refused rather than changed.
TEST(IrNpyCli, SixtyFourBitIntegersKeepEveryBit) {
  const std::filesystem::path dir = TempDir("int64");
  const int64_t in[2] = {int64_t{9007199254740993}, (int64_t{1} << 62) + 1};
  absl::StatusOr<std::string> file =
      WriteNpy(DType::kS64, {2}, absl::string_view(reinterpret_cast<const char*>(in), sizeof(in)));
  ASSERT_TRUE(file.ok()) << file.status();
  std::ofstream(dir / "big.npy", std::ios::binary) << *file;
  auto r = RunAxe({"ir", "run", "{ lambda ; a:i64[2]. let b:i64[2] = add a a in (b,) }", "--arg",
                   "@" + (dir / "big.npy").string(), "--out-npy", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "i64[2] [18014398509481986, -9223372036854775806]\n");
  absl::StatusOr<NpyArray> out = ParseNpy(ReadBytes(dir / "out0.npy"), "out0.npy");
  ASSERT_TRUE(out.ok()) << out.status();
  int64_t got[2] = {0, 0};
  ASSERT_EQ(out->data.size(), sizeof(got));
  std::memcpy(got, out->data.data(), sizeof(got));
  EXPECT_EQ(got[0], int64_t{18014398509481986});
  EXPECT_EQ(got[1], int64_t{-9223372036854775806});
  auto c = RunAxe({"ir", "run", "{ lambda a:i64[2]; . let  in (a,) }", "--const",
                   "@" + (dir / "big.npy").string()});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, HasSubstr("element 0 of i64[2] is 9007199254740993, past 2^53"));
}

TEST(IrNpyCli, BadValuesAreOneErrorLine) {
  std::filesystem::path dir = TempDir("bad");
  std::string w = ReadBytes(Example("w.npy"));
  std::ofstream(dir / "short.npy", std::ios::binary) << w.substr(0, w.size() - 1);
  struct Case {
    std::vector<std::string> extra;
    std::string error;
  };
  for (const Case& c :
       {Case{{"--arg", "@" + Example("x.npy")},
             "--const: the jaxpr has 1 constvars; 0 values were given"},
        Case{{"--const", "@" + (dir / "short.npy").string(), "--arg", "@" + Example("x.npy")},
             "short.npy: shape (2, 3) of float32 needs 24 bytes of data, the file has 23"},
        Case{{"--const", "@" + Example("x.npy"), "--arg", "@" + Example("x.npy")},
             "--const 0: a value of type f32[2] for constvar 0 of type f32[2,3]"},
        Case{{"--consts", "@" + Example("w.npy"), "--arg", "@" + Example("x.npy")},
             "w.npy: not an .npz file"}}) {
    std::vector<std::string> args = {"ir", "run", "@" + Example("dense.txt")};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2) << c.error;
    EXPECT_THAT(r.err, HasSubstr(c.error));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  std::filesystem::remove_all(dir);
}

// check and grad take the constants too (the type check wants a value per constvar).
TEST(IrNpyCli, CheckAndGradTakeConstants) {
  auto check =
      RunAxe({"ir", "check", "@" + Example("dense.txt"), "--consts", "@" + Example("consts.npz")});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, StartsWith("{ lambda a:f32[2,3]; b:f32[2]. let"));
  auto missing = RunAxe({"ir", "check", "@" + Example("dense.txt")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("--const: the jaxpr has 1 constvars; 0 values were given"));
  auto grad = RunAxe({"ir", "grad", "@" + Example("dense.txt"), "--const", "@" + Example("w.npy")});
  EXPECT_EQ(grad.exit_code, 2);  // dense has a vector output: JAX's grad error, after the check
  EXPECT_THAT(grad.err, HasSubstr("Gradient only defined for scalar-output functions"));
}

TEST(IrNpyCli, WhileLoopRuns) {
  auto r = RunAxe({"ir", "run",
                   std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_while/collatz.txt",
                   "--arg", "i32[]=27"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "i32[] 1\ni32[] 111\n");
}

}  // namespace
}  // namespace ir_npy_cli_test
}  // namespace axe
