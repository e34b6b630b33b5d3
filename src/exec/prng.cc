// Kernels of JAX's PRNG primitives on typed values (ir/threefry.h computes the bits): a key
// value is its key data, two u32 words per key, so random_wrap and random_unwrap relabel the
// storage; random_seed, random_split, random_bits, random_fold_in and threefry2x32 loop over
// the keys in integers. random_fold_in and threefry2x32 take operands of the result's size or
// of one element (other broadcasts fall back to the interpreter).
#include <array>
#include <cstdint>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/ir/threefry.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

using ir::threefry::KeyData;

BuiltKernel PrngLoop(const char* what, int64_t work, Kernel kernel) {
  BuiltKernel k;
  k.description = what;
  k.work = work;
  k.kernel = std::move(kernel);
  return k;
}

KeyData KeyAt(const Value& keys, int64_t i) {
  const uint32_t* w = keys.data<uint32_t>() + 2 * i;
  return {w[0], w[1]};
}

void StoreKey(Value& keys, int64_t i, const KeyData& key) {
  uint32_t* w = keys.mutable_data<uint32_t>() + 2 * i;
  w[0] = key[0];
  w[1] = key[1];
}

// random_wrap, random_unwrap: the same bytes under the other type.
absl::StatusOr<std::optional<BuiltKernel>> BuildRelabel(const EqnView& v) {
  BuiltKernel k;
  k.description = "relabel";
  k.relabel = true;
  const ir::ShapedArray out = v.out[0];
  k.kernel = [out](const RunContext&, absl::Span<const Value> in,
                   std::vector<Value>& res) -> absl::Status {
    res[0] = in[0].Relabeled(out);
    return absl::OkStatus();
  };
  return k;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildSeed(const EqnView& v) {
  const DType seed_type = v.in[0].dtype();
  if (!IsIntegral(seed_type)) return std::nullopt;
  const ir::ShapedArray out = v.out[0];
  return PrngLoop("threefry seed", 3 * NumElements(out),
                  [seed_type, out](const RunContext& ctx, absl::Span<const Value> in,
                                   std::vector<Value>& res) -> absl::Status {
                    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                    DispatchDType(seed_type, [&](auto tag) {
                      using T = typename decltype(tag)::type;
                      const T* seeds = in[0].data<T>();
                      for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                        // Sign-extended to 64 bits, as JAX's shifts and masks see the seed.
                        const uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(seeds[i]));
                        StoreKey(res[0], i, ir::threefry::SeedKey(bits, seed_type));
                      }
                    });
                    return absl::OkStatus();
                  });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildSplit(const EqnView& v) {
  const int64_t keys = NumElements(v.in[0]);
  const int64_t per_key = keys == 0 ? 0 : NumElements(v.out[0]) / keys;
  const ir::ShapedArray out = v.out[0];
  return PrngLoop("threefry split", 8 * NumElements(out),
                  [keys, per_key, out](const RunContext& ctx, absl::Span<const Value> in,
                                       std::vector<Value>& res) -> absl::Status {
                    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                    for (int64_t k = 0; k < keys; ++k) {
                      std::vector<KeyData> split = ir::threefry::SplitKey(KeyAt(in[0], k), per_key);
                      for (int64_t j = 0; j < per_key; ++j) {
                        StoreKey(res[0], k * per_key + j, split[static_cast<size_t>(j)]);
                      }
                    }
                    return absl::OkStatus();
                  });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildBits(const EqnView& v) {
  const DType t = v.out[0].dtype();
  if (!IsUnsignedIntegral(t)) return std::nullopt;
  const int64_t keys = NumElements(v.in[0]);
  const int64_t per_key = keys == 0 ? 0 : NumElements(v.out[0]) / keys;
  const ir::ShapedArray out = v.out[0];
  return PrngLoop("threefry bits", 4 * NumElements(out),
                  [t, keys, per_key, out](const RunContext& ctx, absl::Span<const Value> in,
                                          std::vector<Value>& res) -> absl::Status {
                    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                    DispatchDType(t, [&](auto tag) {
                      using T = typename decltype(tag)::type;
                      T* o = res[0].mutable_data<T>();
                      for (int64_t k = 0; k < keys; ++k) {
                        std::vector<uint64_t> bits =
                            ir::threefry::RandomBits(KeyAt(in[0], k), BitWidth(t), per_key);
                        for (int64_t j = 0; j < per_key; ++j) {
                          o[k * per_key + j] = static_cast<T>(bits[static_cast<size_t>(j)]);
                        }
                      }
                    });
                    return absl::OkStatus();
                  });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildFoldIn(const EqnView& v) {
  std::optional<std::vector<int64_t>> st = UnitStrides(v);
  const DType msg_type = v.in[1].dtype();
  if (!st || !IsIntegral(msg_type)) return std::nullopt;
  const std::vector<int64_t> s = *st;
  const ir::ShapedArray out = v.out[0];
  return PrngLoop("threefry fold_in", 4 * NumElements(out),
                  [s, msg_type, out](const RunContext& ctx, absl::Span<const Value> in,
                                     std::vector<Value>& res) -> absl::Status {
                    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                    DispatchDType(msg_type, [&](auto tag) {
                      using T = typename decltype(tag)::type;
                      const T* msgs = in[1].data<T>();
                      for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                        const uint32_t msg = static_cast<uint32_t>(msgs[i * s[1]]);
                        StoreKey(res[0], i, ir::threefry::FoldIn(KeyAt(in[0], i * s[0]), msg));
                      }
                    });
                    return absl::OkStatus();
                  });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildThreefry(const EqnView& v) {
  std::optional<std::vector<int64_t>> st = UnitStrides(v);
  if (!st || v.in.size() != 4) return std::nullopt;
  const std::vector<int64_t> s = *st;
  const ir::ShapedArray out = v.out[0];
  return PrngLoop("threefry2x32", 6 * NumElements(out),
                  [s, out](const RunContext& ctx, absl::Span<const Value> in,
                           std::vector<Value>& res) -> absl::Status {
                    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                    AXE_ASSIGN_OR_RETURN(res[1], ctx.Allocate(out));
                    uint32_t* y0 = res[0].mutable_data<uint32_t>();
                    uint32_t* y1 = res[1].mutable_data<uint32_t>();
                    const uint32_t* x[4];
                    for (size_t a = 0; a < 4; ++a) x[a] = in[a].data<uint32_t>();
                    for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                      std::array<uint32_t, 2> y = ir::threefry::Hash(
                          x[0][i * s[0]], x[1][i * s[1]], x[2][i * s[2]], x[3][i * s[3]]);
                      y0[i] = y[0];
                      y1[i] = y[1];
                    }
                    return absl::OkStatus();
                  });
}

}  // namespace

void AddPrngKernels(KernelTable& table) {
  table["random_wrap"] = BuildRelabel;
  table["random_unwrap"] = BuildRelabel;
  table["random_seed"] = BuildSeed;
  table["random_split"] = BuildSplit;
  table["random_bits"] = BuildBits;
  table["random_fold_in"] = BuildFoldIn;
  table["threefry2x32"] = BuildThreefry;
}

}  // namespace axe::exec::internal
