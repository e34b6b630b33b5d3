// dot_general on f32 and f64 through BLAS's GEMM (OpenBLAS, loaded on first use: its kernels
// are chosen at run time for the CPU, AVX-512 and AVX2 included; plain loops without it).
//
// Each operand is read in place when its row-major storage already is a stack of matrices:
// the batch dimensions first, then the free and contracting dimensions in either order (the
// other order is GEMM's transpose flag). Otherwise it is packed first into that form by the
// relayout engine. The result is [batch..., lhs free..., rhs free...], as dot_general's.
// 32- and 64-bit integer dots (operands of the result's type) run as plain loops on the
// unsigned bits, so sums wrap in the type's width as XLA's do (i64 past 2^53 exactly).
#include <algorithm>
#include <atomic>
#include <numeric>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "exec/blas.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

struct GemmSide {
  bool transposed = false;  // stored [batch, contract, free] (lhs) / [batch, free, contract]
  std::optional<StridedCopy> pack;  // to [batch, free, contract] (lhs) / [batch, contract, free]
  std::vector<int64_t> packed_shape;
};

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t k = 0; k < perm.size(); ++k) {
    if (perm[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

std::vector<int64_t> Concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

std::vector<int64_t> FreeDims(size_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contract) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contract.begin(), contract.end(), d) == contract.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// `normal` is the order GEMM reads without a flag, `flipped` the order it reads transposed.
absl::StatusOr<GemmSide> PlanSide(const ir::ShapedArray& aval, std::vector<int64_t> normal,
                                  std::vector<int64_t> flipped, int bytes, int threads) {
  GemmSide side;
  if (IsIdentity(normal)) return side;
  if (IsIdentity(flipped)) {
    side.transposed = true;
    return side;
  }
  AXE_ASSIGN_OR_RETURN(StridedCopy pack, PlanPermute(aval.shape(), normal, bytes, threads));
  side.pack = std::move(pack);
  for (int64_t d : normal) side.packed_shape.push_back(aval.shape()[static_cast<size_t>(d)]);
  return side;
}

int64_t Product(const ir::ShapedArray& aval, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= aval.shape()[static_cast<size_t>(d)];
  return p;
}

struct Gemm {
  GemmSide lhs, rhs;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  DType dtype = DType::kF32;
  ir::ShapedArray out;
};

// Products this small cost less as plain loops than as a BLAS call (a scan's step).
constexpr int64_t kSmallGemm = int64_t{1} << 15;

constexpr int kColumnBlock = 16;

// Columns [j0, j0 + kColumnBlock) of C's row i for a B stored [k, n]: the sums held in
// registers across k (the same sums in the same order as a row updated in memory).
template <typename F>
void SmallGemmBlock(const Gemm& g, const F* a, const F* __restrict b, F* __restrict row, int64_t i,
                    int64_t j0) {
  F acc[kColumnBlock] = {};
  for (int64_t p = 0; p < g.k; ++p) {
    const F x = g.lhs.transposed ? a[p * g.m + i] : a[i * g.k + p];
    const F* brow = b + p * g.n + j0;
    for (int j = 0; j < kColumnBlock; ++j) acc[j] += x * brow[j];
  }
  std::copy_n(acc, kColumnBlock, row + j0);
}

// C = A B for one batch element, A and B read as RunGemm does; sums in F in k order.
template <typename F>
void SmallGemm(const Gemm& g, const F* a, const F* b, F* c) {
  for (int64_t i = 0; i < g.m; ++i) {
    F* row = c + i * g.n;
    int64_t j0 = 0;
    if (!g.rhs.transposed) {
      for (; j0 + kColumnBlock <= g.n; j0 += kColumnBlock) SmallGemmBlock(g, a, b, row, i, j0);
    }
    std::fill(row + j0, row + g.n, F(0));
    for (int64_t p = 0; p < g.k; ++p) {
      const F x = g.lhs.transposed ? a[p * g.m + i] : a[i * g.k + p];
      if (g.rhs.transposed) {
        for (int64_t j = j0; j < g.n; ++j) row[j] += x * b[j * g.k + p];
      } else {
        const F* brow = b + p * g.n;
        for (int64_t j = j0; j < g.n; ++j) row[j] += x * brow[j];
      }
    }
  }
}

template <typename F>
void RunFloatGemm(const Gemm& g, const F* a, const F* b, F* c, int threads);

template <typename F>
void RunGemm(const Gemm& g, const F* a, const F* b, F* c, int threads) {
  if constexpr (!std::is_floating_point_v<F>) {  // integers as unsigned: sums wrap in the width
    for (int64_t i = 0; i < g.batch; ++i) {
      SmallGemm(g, a + i * g.m * g.k, b + i * g.k * g.n, c + i * g.m * g.n);
    }
    return;
  } else {
    RunFloatGemm(g, a, b, c, threads);
  }
}

template <typename F>
void RunFloatGemm(const Gemm& g, const F* a, const F* b, F* c, int threads) {
  const Blas* blas = g.m * g.n * g.k <= kSmallGemm ? nullptr : LoadedBlas();
  if (blas == nullptr) {  // a small product, or no OpenBLAS on this machine
    for (int64_t i = 0; i < g.batch; ++i) {
      SmallGemm(g, a + i * g.m * g.k, b + i * g.k * g.n, c + i * g.m * g.n);
    }
    return;
  }
  const CBLAS_TRANSPOSE ta = g.lhs.transposed ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = g.rhs.transposed ? CblasTrans : CblasNoTrans;
  const int lda = static_cast<int>(std::max<int64_t>(1, g.lhs.transposed ? g.m : g.k));
  const int ldb = static_cast<int>(std::max<int64_t>(1, g.rhs.transposed ? g.k : g.n));
  const int ldc = static_cast<int>(std::max<int64_t>(1, g.n));
  SetBlasThreads(*blas, std::max(1, threads));
  for (int64_t i = 0; i < g.batch; ++i) {
    const F* ai = a + i * g.m * g.k;
    const F* bi = b + i * g.k * g.n;
    F* ci = c + i * g.m * g.n;
    const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
    if constexpr (std::is_same_v<F, float>) {
      blas->sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, ai, lda, bi, ldb, 0.0f, ci, ldc);
    } else {
      blas->dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, ai, lda, bi, ldb, 0.0, ci, ldc);
    }
  }
}

template <typename F>
absl::Status DotKernel(const Gemm& g, const RunContext& ctx, absl::Span<const Value> in,
                       std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(g.out));
  const F* a = in[0].data<F>();
  const F* b = in[1].data<F>();
  Value a_packed, b_packed;
  if (g.lhs.pack) {
    AXE_ASSIGN_OR_RETURN(a_packed, ctx.Allocate(in[0].aval().WithShape(g.lhs.packed_shape)));
    AXE_RETURN_IF_ERROR(g.lhs.pack->Run(a, a_packed.mutable_bytes()));
    a = a_packed.data<F>();
  }
  if (g.rhs.pack) {
    AXE_ASSIGN_OR_RETURN(b_packed, ctx.Allocate(in[1].aval().WithShape(g.rhs.packed_shape)));
    AXE_RETURN_IF_ERROR(g.rhs.pack->Run(b, b_packed.mutable_bytes()));
    b = b_packed.data<F>();
  }
  if (g.k == 0) {
    std::fill_n(out[0].mutable_data<F>(), out[0].num_elements(), F(0));
  } else if (g.m * g.n > 0) {
    RunGemm(g, a, b, out[0].mutable_data<F>(), ctx.threads);
  }
  if (ctx.values != nullptr) {
    if (g.lhs.pack) ctx.values->Give(std::move(a_packed));
    if (g.rhs.pack) ctx.values->Give(std::move(b_packed));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildDot(const EqnView& v) {
  const DType t = v.out[0].dtype();
  const bool wide_int =
      t == DType::kS32 || t == DType::kU32 || t == DType::kS64 || t == DType::kU64;
  if ((t != DType::kF32 && t != DType::kF64 && !wide_int) || v.in.size() != 2 ||
      v.in[0].dtype() != t || v.in[1].dtype() != t) {
    return std::nullopt;
  }
  auto dn = v.eqn.params.find("dimension_numbers");
  if (dn == v.eqn.params.end()) return std::nullopt;
  const ir::Param& p = dn->second;
  // ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)); anything else is the interpreter's
  // to report.
  if (p.items().size() != 2 || p.items()[0].items().size() != 2 ||
      p.items()[1].items().size() != 2) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lc, p.items()[0].items()[0].AsInts("lc"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rc, p.items()[0].items()[1].AsInts("rc"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lb, p.items()[1].items()[0].AsInts("lb"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rb, p.items()[1].items()[1].AsInts("rb"));
  const ir::ShapedArray& l = v.in[0];
  const ir::ShapedArray& r = v.in[1];
  std::vector<int64_t> lf = FreeDims(l.rank(), lb, lc), rf = FreeDims(r.rank(), rb, rc);
  Gemm g;
  g.dtype = t;
  g.out = v.out[0];
  g.batch = Product(l, lb);
  g.m = Product(l, lf);
  g.k = Product(l, lc);
  g.n = Product(r, rf);
  if (g.m > kMaxBlasDim || g.n > kMaxBlasDim || g.k > kMaxBlasDim) return std::nullopt;
  const int bytes = t == DType::kF32 || t == DType::kS32 || t == DType::kU32 ? 4 : 8;
  const int threads = v.options.num_threads;
  AXE_ASSIGN_OR_RETURN(
      g.lhs, PlanSide(l, Concat({&lb, &lf, &lc}), Concat({&lb, &lc, &lf}), bytes, threads));
  AXE_ASSIGN_OR_RETURN(
      g.rhs, PlanSide(r, Concat({&rb, &rc, &rf}), Concat({&rb, &rf, &rc}), bytes, threads));
  BuiltKernel k;
  k.description = absl::StrCat(wide_int ? "integer gemm" : "gemm", g.lhs.pack ? " pack-lhs" : "",
                               g.rhs.pack ? " pack-rhs" : "", g.lhs.transposed ? " lhs^T" : "",
                               g.rhs.transposed ? " rhs^T" : "");
  k.work =
      g.batch * g.m * g.n * g.k + (NumElements(l) + NumElements(r) + NumElements(g.out)) * bytes;
  for (const auto* side : {&g.lhs, &g.rhs}) {  // the packed operands, from the value pool
    if (side->pack) {
      int64_t n = 1;
      for (int64_t d : side->packed_shape) n *= d;
      k.pooled_scratch.push_back(n * bytes);
    }
  }
  auto shared = std::make_shared<const Gemm>(std::move(g));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    switch (shared->dtype) {
      case DType::kF32: return DotKernel<float>(*shared, ctx, in, out);
      case DType::kF64: return DotKernel<double>(*shared, ctx, in, out);
      case DType::kS32:
      case DType::kU32: return DotKernel<uint32_t>(*shared, ctx, in, out);
      default: return DotKernel<uint64_t>(*shared, ctx, in, out);
    }
  };
  return k;
}

}  // namespace

void AddDotKernels(KernelTable& table) { table["dot_general"] = BuildDot; }

}  // namespace axe::exec::internal
