// Backend block-shape rules: the spec's validity table [TB-*] and the messages.
#include "axe/pallas/validate.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::pallas {
namespace validate_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_support::IsOkAndHolds;
using testing_support::StatusIs;

absl::Status Check(Backend backend, DType dtype, std::vector<int64_t> shape,
                   std::vector<BlockDim> block, ValidateOptions options = {},
                   MemorySpace ms = MemorySpace::kDefault, IndexMap map = {}) {
  CallSpec spec{.in_specs = {BlockSpec(std::move(block), std::move(map), ms)}};
  return Validate(spec, {ShapeDType{dtype, std::move(shape)}}, {}, backend, options);
}

constexpr char kT1[] = "The Pallas TPU lowering currently requires that rank 1 block shapes";
constexpr char kT2[] =
    "The Pallas TPU lowering currently requires that the last two dimensions of your block shape "
    "are divisible by 8 "
    "and 128 respectively";
constexpr char kTritonPow2[] =
    "The Pallas Triton lowering currently requires that all operations have array arguments and "
    "results whose size "
    "is a power of 2.";

struct Row {
  const char* label;
  std::vector<int64_t> array;
  std::vector<BlockDim> block;
  DType dtype;
  const char* tpu;  // "" for ok, else a message prefix
  bool triton_ok;
};

TEST(Validate, ValidityTable) {
  const std::vector<Row> rows = {
      {"TB-2", {128}, {64}, DType::kS32, kT1, true},
      {"TB-4", {1024}, {128}, DType::kS32, "", true},
      {"TB-6", {3072}, {384}, DType::kS32, kT1, false},
      {"TB-9", {256}, {128}, DType::kS16, kT1, true},
      {"TB-17", {3, 3}, {3, 3}, DType::kS32, "", false},
      {"TB-18", {4, 2}, {2, 2}, DType::kS32, kT2, true},
      {"TB-20", {16, 128}, {8, 128}, DType::kS32, "", true},
      {"TB-23", {9, 128}, {9, 64}, DType::kS32, kT2, false},
      {"TB-27", {9, 129}, {8, 129}, DType::kS32, "", false},
      {"TB-30", {4, 256}, {std::nullopt, 256}, DType::kS32, kT2, true},
  };
  for (const Row& r : rows) {
    absl::Status tpu = Check(Backend::kTpu, r.dtype, r.array, r.block);
    if (std::string(r.tpu).empty()) {
      EXPECT_TRUE(tpu.ok()) << r.label << ": " << tpu;
    } else {
      EXPECT_THAT(tpu, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(r.tpu))) << r.label;
    }
    absl::Status triton = Check(Backend::kTriton, r.dtype, r.array, r.block);
    EXPECT_EQ(triton.ok(), r.triton_ok) << r.label << ": " << triton;
    if (!r.triton_ok) {
      EXPECT_THAT(triton, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(kTritonPow2)))
          << r.label;
    }
  }
}

TEST(Validate, BackendNames) {
  EXPECT_THAT(ParseBackend("mosaic_tpu"), IsOkAndHolds(Backend::kTpu));
  EXPECT_THAT(ParseBackend("Mosaic-GPU"), IsOkAndHolds(Backend::kMosaicGpu));
  EXPECT_THAT(ParseBackend("gpu"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("backend 'gpu' is ambiguous (Pallas has two GPU "
                                 "backends, Mosaic GPU and Triton)")));
  EXPECT_THAT(ParseBackend("mosaic"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is ambiguous")));
  EXPECT_THAT(ParseBackend("cuda"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "unknown backend 'cuda'; expected tpu, mosaic-gpu or "
                                             "triton (also JAX's names mosaic_tpu, mosaic_gpu)"));
}

TEST(Validate, TpuMessages) {
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kF32, {9, 128}, {9, 64}),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "The Pallas TPU lowering currently requires that the last two dimensions of your block "
          "shape "
          "are "
          "divisible by 8 and 128 respectively, or be equal to the respective dimensions of the "
          "overall array. "
          "Block spec for args[0] in pallas_call kernel has block shape (Blocked(block_size=9), "
          "Blocked(block_size=64)), array shape (9, 128), and index_map <zeros>, in memory space "
          "default.\n"
          "See details at "
          "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec"));
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kS32, {128}, {64}),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
          "first "
          "(and only) "
          "dimension of the block shape is equal to the first (and only) dimension of the array "
          "shape, "
          "or 2) the "
          "first (and only) dimension of the block shape is a multiple of 1024, or 3) the first "
          "(and "
          "only) "
          "dimension of the block shape is a power of 2 and at least the tiling size (128 = 128 * "
          "(32 "
          "// 32)) of "
          "the array shape. Block spec for args[0] in pallas_call kernel has block shape "
          "(Blocked(block_size=64),), array shape (128,), and index_map <zeros>, in memory space "
          "default.\n"
          "See details at "
          "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec"));
  EXPECT_THAT(Check(Backend::kTpu, DType::kBF16, {256}, {128}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(256 = 128 * (32 // 16))")));
  EXPECT_THAT(Check(Backend::kTpu, DType::kS8, {1024}, {256}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(512 = 128 * (32 // 8))")));
  EXPECT_TRUE(Check(Backend::kTpu, DType::kS8, {1024}, {512}).ok());
  EXPECT_TRUE(Check(Backend::kTpu, DType::kPred, {512}, {256}).ok());  // bool counts as 32 bits
  EXPECT_TRUE(Check(Backend::kTpu, DType::kS32, {4096}, {2048}).ok());
  EXPECT_TRUE(Check(Backend::kTpu, DType::kS32, {6144}, {3072}).ok());  // a multiple of 1024
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kS32, {4, 256}, {std::nullopt, 256}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(
                   "has block shape (Squeezed(), Blocked(block_size=256)), array shape (4, 256)")));
  EXPECT_TRUE(Check(Backend::kTpu, DType::kS32, {1, 256}, {std::nullopt, 256}).ok());
}

TEST(Validate, TpuOldRankOneRule) {
  ValidateOptions old{.old_tpu_rank1_rule = true};
  EXPECT_TRUE(
      Check(Backend::kTpu, DType::kS32, {3072}, {384}, old).ok());  // TB-6 passed before 2026-02
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kS32, {128}, {64}, old),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("or 2) the first (and only) dimension of the block shape is a multiple of "
                         "the tiling size "
                         "(128 = 128 * (32 // 32)) of the array shape. Block spec")));
  EXPECT_FALSE(Check(Backend::kTpu, DType::kS32, {4096}, {256}, old).ok() &&
               !Check(Backend::kTpu, DType::kS32, {4096}, {256}).ok());
}

TEST(Validate, TpuDimKindsRankAndMemorySpaces) {
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kF32, {1024}, {BoundedSlice(128)}),
      StatusIs(
          absl::StatusCode::kUnimplemented,
          "Unsupported block dimension type: <class 'jax._src.pallas.core.BoundedSlice'> for block "
          "shape: (BoundedSlice(128),)"));
  EXPECT_THAT(Check(Backend::kTpu, DType::kF32, {8, 128}, {Element(8), 128}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "All block dimensions must be Elements or none of them can be Elements."));
  EXPECT_TRUE(
      Check(Backend::kTpu, DType::kF32, {16, 128}, {Element(8, {1, 0}), Element(128)}).ok());
  EXPECT_THAT(
      Check(Backend::kTpu, DType::kF32, {}, {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               StartsWith("The Pallas TPU lowering currently supports only blocks of rank >= 1. "
                          "Block spec for args[0]")));
  EXPECT_TRUE(Check(Backend::kTpu, DType::kF32, {}, {}, {}, MemorySpace::kSmem)
                  .ok());  // trivial SMEM: skipped
  EXPECT_THAT(Check(Backend::kTpu, DType::kF32, {1024}, {512}, {}, MemorySpace::kAny),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("The Pallas TPU lowering currently supports in memory space ANY "
                                  "only blocks having the "
                                  "same "
                                  "block shape as the array shape and a trivial index_map "
                                  "(returning all 0s). Block spec")));
  EXPECT_TRUE(Check(Backend::kTpu, DType::kF32, {1000}, {1000}, {}, MemorySpace::kAny).ok());
  // A whole-array block whose index map is not all zeros is not trivial.
  CallSpec spec{.grid = {2},
                .in_specs = {BlockSpec(
                    {1000}, [](int64_t i) { return i; }, MemorySpace::kAny)}};
  EXPECT_FALSE(Validate(spec, {ShapeDType{DType::kF32, {1000}}}, {}, Backend::kTpu).ok());
  spec.in_specs[0] = BlockSpec(
      {1000}, [](int64_t) { return 0; }, MemorySpace::kAny);
  EXPECT_TRUE(Validate(spec, {ShapeDType{DType::kF32, {1000}}}, {}, Backend::kTpu).ok());
}

TEST(Validate, MosaicGpu) {
  EXPECT_TRUE(Check(Backend::kMosaicGpu, DType::kF32, {8, 128}, {8, 4}).ok());
  EXPECT_THAT(Check(Backend::kMosaicGpu, DType::kF32, {8, 128}, {8, 3}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("Mosaic GPU requires the minor-most block dimension to span a "
                                  "multiple of 16 bytes; 3 "
                                  "elements of float32 span 12 bytes.\n\nBlock spec for args[0]")));
  EXPECT_TRUE(Check(Backend::kMosaicGpu, DType::kF16, {8, 128}, {8, 8}).ok());
  EXPECT_FALSE(Check(Backend::kMosaicGpu, DType::kF16, {8, 128}, {8, 4}).ok());
  // The Mosaic GPU lowering words its details differently from the TPU one.
  EXPECT_THAT(
      Check(Backend::kMosaicGpu, DType::kF32, {16, 128}, {Element(8), Element(128)}),
      StatusIs(absl::StatusCode::kUnimplemented,
               "Only Blocked indexing mode is supported in Mosaic GPU lowering.\n\nBlock spec for "
               "args[0] "
               "in pallas_call kernel has block shape (Element(block_size=8, padding=(0, 0)), "
               "Element(block_size=128, padding=(0, 0))), array shape (16, 128), and index_map "
               "<zeros> in "
               "memory space default. See details at "
               "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec."));
  EXPECT_THAT(Check(Backend::kMosaicGpu, DType::kS4, {8, 128}, {8, 32}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("whole-byte element types only; int4 is 4 bits wide")));
  EXPECT_THAT(
      Check(Backend::kMosaicGpu, DType::kF32, {9, 129}, {8, 128}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               StartsWith("async_copy requires all GMEM strides except the last one to be a "
                          "multiple of 16 bytes; the "
                          "array float32[9,129] has byte strides (516, 4).")));
  EXPECT_THAT(
      Check(Backend::kMosaicGpu, DType::kF32, {64, 64}, {32, 64}, {}, MemorySpace::kGmem),
      StatusIs(
          absl::StatusCode::kUnimplemented,
          StartsWith(
              "Mosaic GPU lowering currently requires blocks in GMEM memory space to have same "
              "block shape "
              "as the array shape and a trivial index_map (returning all 0s).\n\n")));
  EXPECT_TRUE(Check(Backend::kMosaicGpu, DType::kF32, {3, 3}, {3, 3}, {}, MemorySpace::kGmem).ok());
}

TEST(Validate, Triton) {
  EXPECT_THAT(Check(Backend::kTriton, DType::kF32, {16}, {Element(8, {1, 0})}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "Unblocked indexing with padding is not supported in Triton lowering."));
  EXPECT_TRUE(Check(Backend::kTriton, DType::kF32, {16}, {Element(8)}).ok());
  EXPECT_THAT(
      Check(Backend::kTriton, DType::kF32, {16}, {BoundedSlice(8)}),
      StatusIs(absl::StatusCode::kInvalidArgument, "Unsupported block dim type: BoundedSlice"));
  EXPECT_THAT(
      Check(Backend::kTriton, DType::kF32, {3, 3}, {3, 3}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The Pallas Triton lowering currently requires that all operations have array "
               "arguments and results whose "
               "size is a power of 2. Encountered an array of shape (3, 3)"));
  EXPECT_TRUE(Check(Backend::kTriton, DType::kF32, {5, 64}, {std::nullopt, 64}).ok());
}

TEST(Validate, AConfiguredCall) {
  auto call = PallasCall([](Ref<const float>, Ref<float>) {}, OutShape<float>{{256, 256}},
                         {.grid = {2, 2},
                          .in_specs = {BlockSpec({128, 128},
                                                 [](int64_t i, int64_t j) {
                                                   return std::pair{i, j};
                                                 })},
                          .out_specs = {BlockSpec({128, 64},
                                                  [](int64_t i, int64_t j) {
                                                    return std::pair{i, j};
                                                  })},
                          .options = {.name = "my_kernel"}});
  EXPECT_TRUE(Validate(call, {{DType::kF32, {256, 256}}}, Backend::kTriton).ok());
  absl::Status s = Validate(call, {{DType::kF32, {256, 256}}}, Backend::kTpu);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("Block spec for outputs[0] in pallas_call my_kernel at ")));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("validate_test.cc:")));
  EXPECT_THAT(
      s,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("has block shape (Blocked(block_size=128), Blocked(block_size=64)), array "
                         "shape (256, 256), and index_map <lambda> at ")));
}

TEST(Validate, FirstViolationAndGenericErrors) {
  CallSpec spec{.in_specs = {BlockSpec({8, 128}), BlockSpec({9, 64})},
                .out_specs = {BlockSpec({3})}};
  std::vector<ShapeDType> in = {{DType::kF32, {16, 128}}, {DType::kF32, {9, 128}}};
  std::vector<ShapeDType> out = {{DType::kF32, {1000}}};
  EXPECT_THAT(Validate(spec, in, out, Backend::kTpu),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Block spec for args[1]")));
  in[1].shape = {9, 64};
  EXPECT_THAT(Validate(spec, in, out, Backend::kTpu),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Block spec for outputs[0]")));
  spec.in_specs[0] = BlockSpec({8});
  EXPECT_THAT(
      Validate(spec, in, out, Backend::kTpu),
      StatusIs(absl::StatusCode::kInvalidArgument,
               StartsWith("Block shape for args[0] (= (Blocked(block_size=8),)) must have the same "
                          "number of dimensions")));
  EXPECT_EQ(*ParseBackend("mosaic_gpu"), Backend::kMosaicGpu);
  EXPECT_EQ(BackendName(Backend::kTriton), "triton");
  EXPECT_FALSE(ParseBackend("cuda").ok());
}

}  // namespace
}  // namespace validate_test
}  // namespace axe::pallas
