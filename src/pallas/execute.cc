#include "axe/pallas/execute.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/base/thread_pool.h"
#include "program_context.h"

namespace axe::pallas {
namespace {

using Dims = absl::InlinedVector<int64_t, 6>;

std::string Point(absl::Span<const int64_t> p) { return FormatTuple(p, /*python_tuple=*/true); }

std::string CallName(const CallSpec& spec, const CallSite& site) {
  if (site.file.empty()) return absl::StrCat("pallas_call ", spec.options.name);
  return absl::StrCat("pallas_call ", spec.options.name, " at ", site.file, ":", site.line);
}

// Copies a rank-`rank` box of counts[] elements between strided buffers.
void CopyBox(std::byte* dst, const int64_t* dst_strides, const std::byte* src, const int64_t* src_strides,
             const int64_t* counts, int rank, size_t esize) {
  for (int d = 0; d < rank; ++d) {
    if (counts[d] <= 0) return;
  }
  if (rank == 0) {
    std::memcpy(dst, src, esize);
    return;
  }
  const int last = rank - 1;
  const bool dense = dst_strides[last] == 1 && src_strides[last] == 1;
  int64_t idx[kMaxRank] = {};
  int64_t doff = 0, soff = 0;
  while (true) {
    if (dense) {
      std::memcpy(dst + doff * static_cast<int64_t>(esize), src + soff * static_cast<int64_t>(esize),
                  static_cast<size_t>(counts[last]) * esize);
    } else {
      for (int64_t i = 0; i < counts[last]; ++i) {
        std::memcpy(dst + (doff + i * dst_strides[last]) * static_cast<int64_t>(esize),
                    src + (soff + i * src_strides[last]) * static_cast<int64_t>(esize), esize);
      }
    }
    int d = last - 1;
    while (d >= 0) {
      doff += dst_strides[d];
      soff += src_strides[d];
      if (++idx[d] < counts[d]) break;
      doff -= dst_strides[d] * counts[d];
      soff -= src_strides[d] * counts[d];
      idx[d] = 0;
      --d;
    }
    if (d < 0) return;
  }
}

Dims ContiguousStrides(absl::Span<const int64_t> shape) {
  Dims s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    s[static_cast<size_t>(d)] = s[static_cast<size_t>(d) + 1] * std::max<int64_t>(shape[static_cast<size_t>(d) + 1], 1);
  }
  return s;
}

// One operand of the call, with everything a program needs precomputed.
struct Operand {
  std::string origin;  // "args[0]" / "outputs[0]"
  bool output = false;
  int64_t index = 0;
  const BlockSpec* spec = nullptr;
  DType dtype = DType::kF32;
  size_t esize = 0;
  alignas(8) unsigned char uninit[8] = {};
  int rank = 0;
  Dims n;                    // array shape
  std::vector<BlockDim> dims;
  Dims b, lo, padded, limit;  // block sizes, Element padding in front, padded dims, padded - b
  absl::InlinedVector<bool, 6> blocked;
  bool element_padding = false;
  // The kernel's ref.
  Dims ref_shape;
  absl::InlinedVector<int, 6> kept;
  // The buffer programs read and write: buffer index = padded coordinate - off.
  std::byte* base = nullptr;
  Dims buf_dims, buf_strides, off, view_strides;
  // Copies of input windows that reach into padding.
  int64_t block_elems = 0;
  Dims scratch_full_strides, scratch_ref_strides;
  // Outputs that need padding run in this buffer.
  bool needs_padded_buffer = false;
  std::optional<AnyArray> padded_buffer;
};

std::string BlockShapeError(const Operand& op, absl::string_view rest) {
  return absl::StrCat("Block shape for ", op.origin, " (= ", FormatBlockShape(op.dims), ") ", rest);
}

// Builds the operand description and checks everything that does not need data.
absl::StatusOr<Operand> PlanOperand(std::string origin, bool output, int64_t index, const BlockSpec& spec,
                                    const ShapeDType& sd, const Grid& grid) {
  Operand op;
  op.origin = std::move(origin);
  op.output = output;
  op.index = index;
  op.spec = &spec;
  if (!IsArrayType(sd.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(op.origin, " has element type ", XlaName(sd.dtype),
                                                   ", which is not an array element type"));
  }
  op.dtype = sd.dtype;
  op.esize = static_cast<size_t>(ByteWidth(sd.dtype));
  op.rank = static_cast<int>(sd.shape.size());
  op.n.assign(sd.shape.begin(), sd.shape.end());
  op.dims = spec.Resolve(sd.shape);
  if (op.dims.size() != sd.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Block shape for ", op.origin, " (= ", FormatBlockShape(op.dims),
        ") must have the same number of dimensions as the array shape ", FormatTuple(sd.shape, true), "."));
  }
  const IndexMap& map = spec.index_map();
  if (map.arity() >= 0 && map.arity() != grid.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("Index map function ", map.Describe(), " for ", op.origin,
                                                   " takes ", map.arity(), " grid indices, but the grid ",
                                                   grid.ToString(), " has ", grid.rank(), " axes"));
  }
  for (int d = 0; d < op.rank; ++d) {
    const BlockDim& bd = op.dims[static_cast<size_t>(d)];
    if (absl::Status s = bd.Validate(); !s.ok()) {
      return absl::InvalidArgumentError(BlockShapeError(op, absl::StrCat("is invalid: ", s.message())));
    }
    int64_t b = bd.size();
    int64_t n = op.n[static_cast<size_t>(d)];
    int64_t lo = bd.padding_lo(), hi = bd.padding_hi();
    if (lo != 0 || hi != 0) op.element_padding = true;
    std::optional<int64_t> total = CheckedAdd(n, lo);
    if (total) total = CheckedAdd(*total, hi);
    if (!total) return absl::InvalidArgumentError(BlockShapeError(op, "has a padding that overflows int64"));
    int64_t padded;
    if (b == 0) {
      if (*total != 0) {
        return absl::InvalidArgumentError(BlockShapeError(
            op, absl::StrCat("has size 0 in dimension ", d, ", but the array shape ", FormatTuple(sd.shape, true),
                             " has ", *total, " elements there")));
      }
      padded = 0;
    } else {
      std::optional<int64_t> p = CheckedMul(CeilDiv(*total, b), b);
      if (!p) return absl::InvalidArgumentError(BlockShapeError(op, "pads the array beyond int64"));
      padded = *p;
      if (padded < b) {
        return absl::InvalidArgumentError(BlockShapeError(
            op, absl::StrCat("does not fit the array shape ", FormatTuple(sd.shape, true), ": dimension ", d,
                             " has no elements to hold a block of ", b)));
      }
    }
    op.b.push_back(b);
    op.lo.push_back(lo);
    op.padded.push_back(padded);
    op.limit.push_back(padded - b);
    op.blocked.push_back(bd.kind() == BlockDim::Kind::kBlocked);
    if (!bd.squeezed()) {
      op.kept.push_back(d);
      op.ref_shape.push_back(b);
    }
  }
  if (absl::Status s = ValidateShape(op.padded, absl::StrCat("the padded shape of ", op.origin)); !s.ok()) return s;
  return op;
}

struct Plan {
  std::vector<Operand> ops;  // inputs, then outputs
  size_t num_inputs = 0;
};

absl::StatusOr<Plan> BuildPlan(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                               absl::Span<const ShapeDType> outputs) {
  const Grid& grid = spec.grid;
  AXE_RETURN_IF_ERROR(grid.Validate());
  const CallOptions& o = spec.options;
  if (!o.dimension_semantics.empty() && o.dimension_semantics.size() != static_cast<size_t>(grid.rank())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Length of grid does not match length of dimension semantics. len(grid)=", grid.rank(),
        ", len(dimension_semantics)=", o.dimension_semantics.size()));
  }
  auto count_mismatch = [](absl::string_view specs, absl::string_view values, size_t a, size_t b) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Pytree for `", specs, "` and `", values, "` do not match. There are 1 mismatches, including:\n    * at ``, `",
        specs, "` is a tuple of length ", a, " but `", values, "` is a tuple of length ", b,
        ", so the lengths do not match"));
  };
  if (!spec.in_specs.empty() && spec.in_specs.size() != inputs.size()) {
    return count_mismatch("in_specs", "inputs", spec.in_specs.size(), inputs.size());
  }
  if (!spec.out_specs.empty() && spec.out_specs.size() != outputs.size()) {
    return count_mismatch("out_specs", "out_shape", spec.out_specs.size(), outputs.size());
  }
  static const BlockSpec kDefaultSpec;
  Plan plan;
  plan.num_inputs = inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    AXE_RETURN_IF_ERROR(ValidateShape(inputs[i].shape, absl::StrCat("args[", i, "]")));
    const BlockSpec& bs = spec.in_specs.empty() ? kDefaultSpec : spec.in_specs[i];
    AXE_ASSIGN_OR_RETURN(Operand op, PlanOperand(absl::StrCat("args[", i, "]"), false, static_cast<int64_t>(i), bs,
                                                 inputs[i], grid));
    plan.ops.push_back(std::move(op));
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    AXE_RETURN_IF_ERROR(ValidateShape(outputs[j].shape, absl::StrCat("out_shape[", j, "]")));
    const BlockSpec& bs = spec.out_specs.empty() ? kDefaultSpec : spec.out_specs[j];
    AXE_ASSIGN_OR_RETURN(Operand op, PlanOperand(absl::StrCat("outputs[", j, "]"), true, static_cast<int64_t>(j), bs,
                                                 outputs[j], grid));
    plan.ops.push_back(std::move(op));
  }
  // input_output_aliases.
  std::vector<bool> in_seen(inputs.size()), out_seen(outputs.size());
  for (const auto& [i, j] : o.input_output_aliases) {
    std::string mapping = absl::StrCat("input_output_aliases contains the mapping '", i, ":", j, "'");
    if (i < 0 || i >= static_cast<int64_t>(inputs.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(mapping, " with input index ", i, " outside the range [0, ", inputs.size(), ")"));
    }
    if (j < 0 || j >= static_cast<int64_t>(outputs.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(mapping, " with output index ", j, " outside the range [0, ", outputs.size(), ")"));
    }
    const ShapeDType& a = inputs[static_cast<size_t>(i)];
    const ShapeDType& b = outputs[static_cast<size_t>(j)];
    if (!(a == b)) {
      return absl::InvalidArgumentError(absl::StrCat(mapping, " referring to input[", i, "] with abstract value ",
                                                     a.ToString(), " and to output[", j,
                                                     "] with a different abstract value ", b.ToString(), "."));
    }
    if (in_seen[static_cast<size_t>(i)]) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_aliases maps input ", i, " more than once"));
    }
    if (out_seen[static_cast<size_t>(j)]) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_aliases maps more than one input to output ", j));
    }
    in_seen[static_cast<size_t>(i)] = out_seen[static_cast<size_t>(j)] = true;
  }
  if (!o.input_output_aliases.empty()) {
    for (const Operand& op : plan.ops) {
      if (op.element_padding) return absl::UnimplementedError("Padding with aliasing not supported.");
    }
  }
  return plan;
}

// Evaluates op's index map at `point` into `idx`, checking the result count (JAX's message).
absl::Status EvaluateIndexMap(const Operand& op, absl::Span<const int64_t> point, BlockIndices& idx) {
  const IndexMap& map = op.spec->index_map();
  if (absl::Status s = map.Evaluate(point, op.rank, &idx); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("Index map function ", map.Describe(), " for ", op.origin,
                                               " at grid point ", Point(point), ": ", s.message()));
  }
  if (static_cast<int>(idx.size()) != op.rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Index map function ", map.Describe(), " for ", op.origin, " must return ", op.rank,
        " values to match block_shape=", FormatBlockShape(op.dims), ". Currently returning ", idx.size(),
        " values: ", FormatTuple(idx, true), " at grid point ", Point(point), "."));
  }
  return absl::OkStatus();
}

// Per-thread state of the programs it runs.
struct Worker {
  explicit Worker(const Plan& plan) : refs(plan.ops.size()), scratch(plan.ops.size()) {}
  BlockIndices idx;
  Dims q;
  std::vector<RawRef> refs;
  std::vector<std::vector<std::byte>> scratch;
  std::vector<std::pair<int64_t, ClampEvent>> clamps;  // (program number, event)
  absl::Status program_error;
};

class Runner {
 public:
  Runner(const CallSpec& spec, const CallSite& site, Plan& plan, RawKernel kernel)
      : spec_(spec), site_(site), plan_(plan), kernel_(kernel) {}

  // The window starts of `op` at `point`, clamped, into `starts`; reports overflow and
  // count errors. `clamped` tells whether any start moved.
  absl::Status Starts(const Operand& op, absl::Span<const int64_t> point, BlockIndices& idx, Dims& starts,
                      bool& clamped, bool& blocked_moved) const {
    AXE_RETURN_IF_ERROR(EvaluateIndexMap(op, point, idx));
    const IndexMap& map = op.spec->index_map();
    starts.resize(static_cast<size_t>(op.rank));
    clamped = blocked_moved = false;
    for (int d = 0; d < op.rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      int64_t start = idx[k];
      if (op.blocked[k]) {
        std::optional<int64_t> s = CheckedMul(op.b[k], idx[k]);
        if (!s) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Index map function ", map.Describe(), " for ", op.origin, " returned ", FormatTuple(idx, true),
              " at grid point ", Point(point), ": the window start ", op.b[k], " * ", idx[k], " in dimension ", d,
              " overflows int64"));
        }
        start = *s;
      }
      int64_t c = start < 0 ? 0 : (start > op.limit[k] ? op.limit[k] : start);
      if (c != start) {
        clamped = true;
        if (op.blocked[k]) blocked_moved = true;
      }
      starts[k] = c;
    }
    return absl::OkStatus();
  }

  // Runs one program.
  absl::Status RunProgram(Worker& w, absl::Span<const int64_t> point, int64_t number) {
    Dims& q = w.q;
    for (size_t k = 0; k < plan_.ops.size(); ++k) {
      const Operand& op = plan_.ops[k];
      bool clamped, blocked_moved;
      AXE_RETURN_IF_ERROR(Starts(op, point, w.idx, q, clamped, blocked_moved));
      if (clamped && spec_.options.clamp_report != nullptr) {
        w.clamps.emplace_back(number, ClampReport(op, point, w.idx, blocked_moved));
      }
      bool inside = true;
      int64_t offset = 0;
      for (int d = 0; d < op.rank; ++d) {
        const size_t i = static_cast<size_t>(d);
        int64_t x = q[i] - op.off[i];
        q[i] = x;
        if (x < 0 || x + op.b[i] > op.buf_dims[i]) inside = false;
        offset += x * op.buf_strides[i];
      }
      RawRef& ref = w.refs[k];
      ref.rank = static_cast<int>(op.ref_shape.size());
      ref.shape = op.ref_shape.data();
      ref.dtype = op.dtype;
      if (inside) {
        ref.data = op.base + offset * static_cast<int64_t>(op.esize);
        ref.strides = op.view_strides.data();
      } else {
        AXE_CHECK(!op.output) << op.origin << ": an output window left its padded buffer";
        ref.data = CopyIn(op, w.scratch[k], q);
        ref.strides = op.scratch_ref_strides.data();
      }
    }
    internal::ProgramContext ctx{&spec_.grid, point.data(), &w.program_error};
    absl::Status s;
    {
      internal::ScopedProgram scope(&ctx);
      absl::Span<const RawRef> refs(w.refs);
      s = kernel_(refs.subspan(0, plan_.num_inputs), refs.subspan(plan_.num_inputs));
    }
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat(CallName(spec_, site_), " failed at grid point ", Point(point), ": ",
                                                 s.message()));
    }
    if (!w.program_error.ok()) {
      absl::Status e = std::move(w.program_error);
      w.program_error = absl::OkStatus();
      return e;
    }
    return absl::OkStatus();
  }

  // Interpret mode: every program in row-major order.
  absl::Status RunInterpret() {
    const Grid& grid = spec_.grid;
    const int64_t total = grid.num_programs();
    Worker w(plan_);
    Dims point(static_cast<size_t>(grid.rank()), 0);
    for (int64_t p = 0; p < total; ++p) {
      AXE_RETURN_IF_ERROR(RunProgram(w, point, p));
      NextGridPoint(grid, absl::MakeSpan(point));
    }
    Report(w.clamps);
    return absl::OkStatus();
  }

  absl::Status RunParallel() {
    const Grid& grid = spec_.grid;
    if (grid.num_programs() == 0) return absl::OkStatus();
    const std::vector<DimensionSemantics>& sem = spec_.options.dimension_semantics;
    std::vector<int> par, arb;
    for (int a = 0; a < grid.rank(); ++a) {
      (!sem.empty() && sem[static_cast<size_t>(a)] == DimensionSemantics::kParallel ? par : arb).push_back(a);
    }
    int64_t num_tasks = 1;
    for (int a : par) num_tasks *= grid.size(a);
    int64_t per_task = 1;
    for (int a : arb) per_task *= grid.size(a);
    if (spec_.options.check_parallel_writes && num_tasks > 1) AXE_RETURN_IF_ERROR(CheckDisjointWrites(par));

    ThreadPool& pool = spec_.options.pool != nullptr ? *spec_.options.pool : ThreadPool::Default();
    int threads = spec_.options.num_threads > 0 ? std::min(spec_.options.num_threads, pool.size()) : pool.size();
    int64_t chunks = threads <= 1 ? 1 : std::min<int64_t>(num_tasks, int64_t{8} * threads);

    std::mutex mu;
    absl::Status first_error;
    int64_t first_error_program = -1;
    std::vector<std::pair<int64_t, ClampEvent>> clamps;
    std::atomic<bool> failed{false};

    auto run_chunk = [&](int64_t c) {
      Worker w(plan_);
      Dims point(static_cast<size_t>(grid.rank()), 0);
      // Chunk c covers tasks [t0, t1): the first num_tasks % chunks chunks get one more.
      const int64_t base = num_tasks / chunks, extra = num_tasks % chunks;
      const int64_t t0 = c * base + std::min(c, extra), t1 = t0 + base + (c < extra ? 1 : 0);
      for (int64_t t = t0; t < t1 && !failed.load(std::memory_order_relaxed); ++t) {
        int64_t rest = t;
        for (auto it = par.rbegin(); it != par.rend(); ++it) {
          point[static_cast<size_t>(*it)] = rest % grid.size(*it);
          rest /= grid.size(*it);
        }
        for (int a : arb) point[static_cast<size_t>(a)] = 0;
        for (int64_t p = 0; p < per_task; ++p) {
          int64_t number = ProgramNumber(point);
          absl::Status s = RunProgram(w, point, number);
          if (!s.ok()) {
            std::lock_guard<std::mutex> lock(mu);
            if (first_error_program < 0 || number < first_error_program) {
              first_error = std::move(s);
              first_error_program = number;
            }
            failed.store(true, std::memory_order_relaxed);
            break;
          }
          for (auto it = arb.rbegin(); it != arb.rend(); ++it) {
            if (++point[static_cast<size_t>(*it)] < grid.size(*it)) break;
            point[static_cast<size_t>(*it)] = 0;
          }
        }
      }
      if (!w.clamps.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        for (auto& e : w.clamps) clamps.push_back(std::move(e));
      }
    };
    pool.ParallelFor(chunks, run_chunk, threads);
    if (first_error_program >= 0) return first_error;
    std::stable_sort(clamps.begin(), clamps.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Report(clamps);
    return absl::OkStatus();
  }

 private:
  int64_t ProgramNumber(absl::Span<const int64_t> point) const {
    int64_t number = 0;
    for (int a = 0; a < spec_.grid.rank(); ++a) number = number * spec_.grid.size(a) + point[static_cast<size_t>(a)];
    return number;
  }

  Dims PointOf(int64_t number) const {
    Dims point(static_cast<size_t>(spec_.grid.rank()));
    for (int a = spec_.grid.rank() - 1; a >= 0; --a) {
      point[static_cast<size_t>(a)] = number % spec_.grid.size(a);
      number /= spec_.grid.size(a);
    }
    return point;
  }

  void Report(std::vector<std::pair<int64_t, ClampEvent>>& clamps) {
    if (spec_.options.clamp_report == nullptr) return;
    for (auto& [n, e] : clamps) spec_.options.clamp_report->push_back(std::move(e));
  }

  ClampEvent ClampReport(const Operand& op, absl::Span<const int64_t> point, const BlockIndices& idx,
                         bool blocked_moved) const {
    ClampEvent e;
    e.operand = op.origin;
    e.grid_point.assign(point.begin(), point.end());
    e.indices.assign(idx.begin(), idx.end());
    for (int d = 0; d < op.rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      int64_t requested = op.blocked[k] ? op.b[k] * idx[k] : idx[k];  // no overflow: checked in Starts
      int64_t clamped = requested < 0 ? 0 : std::min(requested, op.limit[k]);
      e.requested_start.push_back(requested - op.lo[k]);
      e.start.push_back(clamped - op.lo[k]);
      e.size.push_back(op.b[k]);
      e.array_shape.push_back(op.n[k]);
    }
    e.blocked_dim_moved = blocked_moved;
    return e;
  }

  // Fills `scratch` with an input block whose window q (array coordinates) reaches outside
  // the array: the uninitialized value, then the part inside the array.
  std::byte* CopyIn(const Operand& op, std::vector<std::byte>& scratch, const Dims& q) const {
    const size_t bytes = static_cast<size_t>(op.block_elems) * op.esize;
    if (scratch.size() != bytes) scratch.resize(bytes);
    std::byte* dst = scratch.data();
    for (int64_t i = 0; i < op.block_elems; ++i) std::memcpy(dst + i * static_cast<int64_t>(op.esize), op.uninit, op.esize);
    int64_t counts[kMaxRank];
    int64_t src_off = 0, dst_off = 0;
    for (int d = 0; d < op.rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      int64_t a0 = std::max<int64_t>(q[k], 0), a1 = std::min(q[k] + op.b[k], op.n[k]);
      if (a0 >= a1) return dst;  // the window holds only padding
      counts[d] = a1 - a0;
      src_off += a0 * op.buf_strides[k];
      dst_off += (a0 - q[k]) * op.scratch_full_strides[k];
    }
    CopyBox(dst + dst_off * static_cast<int64_t>(op.esize), op.scratch_full_strides.data(),
            op.base + src_off * static_cast<int64_t>(op.esize), op.buf_strides.data(), counts, op.rank, op.esize);
    return dst;
  }

  // Parallel mode: programs of different parallel slices must write disjoint windows.
  absl::Status CheckDisjointWrites(const std::vector<int>& par) {
    const Grid& grid = spec_.grid;
    const int64_t total = grid.num_programs();
    for (size_t k = plan_.num_inputs; k < plan_.ops.size(); ++k) {
      const Operand& op = plan_.ops[k];
      if (std::find(op.b.begin(), op.b.end(), 0) != op.b.end()) continue;  // empty windows
      struct Writer {
        int64_t slice, program;
      };
      absl::flat_hash_map<Dims, Writer> seen;
      Dims point(static_cast<size_t>(grid.rank()), 0);
      BlockIndices idx;
      Dims starts;
      for (int64_t p = 0; p < total; ++p) {
        bool clamped, moved;
        AXE_RETURN_IF_ERROR(Starts(op, point, idx, starts, clamped, moved));
        int64_t slice = 0;
        for (int a : par) slice = slice * grid.size(a) + point[static_cast<size_t>(a)];
        auto [it, inserted] = seen.try_emplace(starts, Writer{slice, p});
        if (!inserted && it->second.slice != slice) return Conflict(op, starts, starts, it->second.program, p);
        NextGridPoint(grid, absl::MakeSpan(point));
      }
      // Partial overlaps: only along dims where some start is not a multiple of the block.
      std::vector<int> loose;
      for (int d = 0; d < op.rank; ++d) {
        for (const auto& [s, wr] : seen) {
          if (s[static_cast<size_t>(d)] % op.b[static_cast<size_t>(d)] != 0) {
            loose.push_back(d);
            break;
          }
        }
      }
      if (loose.empty()) continue;
      auto overlap = [&](const Dims& s, const Dims& t) {
        for (int d = 0; d < op.rank; ++d) {
          const size_t i = static_cast<size_t>(d);
          if (s[i] - t[i] >= op.b[i] || t[i] - s[i] >= op.b[i]) return false;
        }
        return true;
      };
      std::vector<std::pair<Dims, Writer>> windows(seen.begin(), seen.end());
      std::sort(windows.begin(), windows.end(),
                [](const auto& a, const auto& b) { return a.second.program < b.second.program; });
      int64_t neighbors = 1;
      for (size_t u = 0; u < loose.size() && neighbors <= 729; ++u) neighbors *= 3;
      if (neighbors > 729 || neighbors > static_cast<int64_t>(windows.size())) {
        for (size_t x = 0; x < windows.size(); ++x) {
          for (size_t y = x + 1; y < windows.size(); ++y) {
            if (windows[x].second.slice != windows[y].second.slice && overlap(windows[x].first, windows[y].first)) {
              return Conflict(op, windows[x].first, windows[y].first, windows[x].second.program,
                              windows[y].second.program);
            }
          }
        }
        continue;
      }
      auto cell = [&](const Dims& s) {
        Dims c(s.size());
        for (size_t i = 0; i < s.size(); ++i) c[i] = FloorDiv(s[i], op.b[i]);
        return c;
      };
      absl::flat_hash_map<Dims, std::vector<size_t>> cells;
      for (size_t x = 0; x < windows.size(); ++x) cells[cell(windows[x].first)].push_back(x);
      for (size_t x = 0; x < windows.size(); ++x) {
        Dims base = cell(windows[x].first);
        for (int64_t code = 0; code < neighbors; ++code) {
          Dims c = base;
          int64_t rest = code;
          for (int d : loose) {
            c[static_cast<size_t>(d)] += rest % 3 - 1;
            rest /= 3;
          }
          auto it = cells.find(c);
          if (it == cells.end()) continue;
          for (size_t y : it->second) {
            if (y <= x || windows[x].second.slice == windows[y].second.slice) continue;
            if (overlap(windows[x].first, windows[y].first)) {
              return Conflict(op, windows[x].first, windows[y].first, windows[x].second.program,
                              windows[y].second.program);
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Conflict(const Operand& op, const Dims& s1, const Dims& s2, int64_t p1, int64_t p2) const {
    auto window = [&](const Dims& s) {
      std::vector<int64_t> start, size;
      for (size_t i = 0; i < s.size(); ++i) {
        start.push_back(s[i] - op.lo[i]);
        size.push_back(op.b[i]);
      }
      return FormatWindow(start, size);
    };
    return absl::InvalidArgumentError(absl::StrCat(
        "Parallel mode: ", op.origin, " is written at ", window(s1), " by grid point ", Point(PointOf(p1)),
        " and at ", window(s2), " by grid point ", Point(PointOf(p2)),
        ", which lie in different parallel slices; programs that differ on a \"parallel\" axis must write "
        "disjoint output windows (mark the axis \"arbitrary\" to revisit an output block)"));
  }

  const CallSpec& spec_;
  const CallSite& site_;
  Plan& plan_;
  RawKernel kernel_;
};

// Evaluates every index map at the first grid point, so that a wrong result count is
// reported before any program runs (JAX finds it when tracing).
absl::Status Probe(const CallSpec& spec, const Plan& plan) {
  if (spec.grid.num_programs() == 0) return absl::OkStatus();
  Dims point(static_cast<size_t>(spec.grid.rank()), 0);
  BlockIndices idx;
  for (const Operand& op : plan.ops) AXE_RETURN_IF_ERROR(EvaluateIndexMap(op, point, idx));
  return absl::OkStatus();
}

}  // namespace

absl::string_view DimensionSemanticsName(DimensionSemantics d) {
  return d == DimensionSemantics::kParallel ? "parallel" : "arbitrary";
}

absl::StatusOr<DimensionSemantics> ParseDimensionSemantics(absl::string_view text) {
  if (text == "parallel") return DimensionSemantics::kParallel;
  if (text == "arbitrary") return DimensionSemantics::kArbitrary;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dimension semantics '", text, "'; expected parallel or arbitrary"));
}

absl::Status ValidateCall(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                          absl::Span<const ShapeDType> outputs, const CallSite& site) {
  (void)site;
  AXE_ASSIGN_OR_RETURN(Plan plan, BuildPlan(spec, inputs, outputs));
  return Probe(spec, plan);
}

absl::StatusOr<std::vector<AnyArray>> ExecuteCall(const CallSpec& spec, absl::Span<const AnyArray* const> inputs,
                                                  absl::Span<const ShapeDType> out_shapes, RawKernel kernel,
                                                  const CallSite& site) {
  std::vector<ShapeDType> in_shapes;
  for (const AnyArray* a : inputs) in_shapes.push_back(a->shape_dtype());
  AXE_ASSIGN_OR_RETURN(Plan plan, BuildPlan(spec, in_shapes, out_shapes));
  for (const Operand& op : plan.ops) {
    for (const BlockDim& d : op.dims) {
      if (d.kind() == BlockDim::Kind::kBoundedSlice || d.kind() == BlockDim::Kind::kIndirect) {
        return absl::UnimplementedError(BlockShapeError(
            op, "has a BoundedSlice or Indirect dimension; axe runs only Blocked, Element and Squeezed dimensions"));
      }
    }
    if (!IsStorable(op.dtype)) {
      return absl::InvalidArgumentError(
          absl::StrCat(op.origin, " has dtype ", NumpyName(op.dtype), ", which axe can validate but not run"));
    }
  }
  AXE_RETURN_IF_ERROR(Probe(spec, plan));

  // Outputs: uninitialized, or a copy of the aliased input.
  std::vector<AnyArray> outputs;
  for (const ShapeDType& sd : out_shapes) {
    AXE_ASSIGN_OR_RETURN(AnyArray a, AnyArray::Uninitialized(sd.dtype, sd.shape));
    outputs.push_back(std::move(a));
  }
  std::vector<bool> aliased(out_shapes.size());
  for (const auto& [i, j] : spec.options.input_output_aliases) {
    outputs[static_cast<size_t>(j)] = *inputs[static_cast<size_t>(i)];
    aliased[static_cast<size_t>(j)] = true;
  }

  for (size_t k = 0; k < plan.ops.size(); ++k) {
    Operand& op = plan.ops[k];
    VisitDType(op.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T u = UninitializedValue<T>();
      std::memcpy(op.uninit, &u, sizeof(T));
    });
    Dims full_block(op.b.begin(), op.b.end());
    op.block_elems = *CheckedProduct(full_block);
    op.scratch_full_strides = ContiguousStrides(full_block);
    op.scratch_ref_strides = ContiguousStrides(op.ref_shape);
    if (!op.output) {
      const AnyArray& a = *inputs[k];
      op.base = static_cast<std::byte*>(const_cast<void*>(a.data()));
      op.buf_dims = op.n;
      op.buf_strides.assign(a.strides().begin(), a.strides().end());
      op.off = op.lo;
    } else {
      AnyArray& a = outputs[static_cast<size_t>(op.index)];
      op.needs_padded_buffer = op.element_padding || op.padded != op.n;
      if (op.needs_padded_buffer) {
        AXE_ASSIGN_OR_RETURN(AnyArray p, AnyArray::Uninitialized(op.dtype, op.padded));
        if (aliased[static_cast<size_t>(op.index)]) {
          // No Element padding with aliases, so the array sits at the buffer's origin.
          CopyBox(static_cast<std::byte*>(p.data()), p.strides().data(), static_cast<const std::byte*>(a.data()),
                  a.strides().data(), op.n.data(), op.rank, op.esize);
        }
        op.padded_buffer = std::move(p);
        op.base = static_cast<std::byte*>(op.padded_buffer->data());
        op.buf_dims = op.padded;
        op.buf_strides.assign(op.padded_buffer->strides().begin(), op.padded_buffer->strides().end());
        op.off.assign(static_cast<size_t>(op.rank), 0);
      } else {
        op.base = static_cast<std::byte*>(a.data());
        op.buf_dims = op.n;
        op.buf_strides.assign(a.strides().begin(), a.strides().end());
        op.off.assign(static_cast<size_t>(op.rank), 0);
      }
    }
    for (int d : op.kept) op.view_strides.push_back(op.buf_strides[static_cast<size_t>(d)]);
  }

  Runner runner(spec, site, plan, kernel);
  AXE_RETURN_IF_ERROR(spec.options.mode == Mode::kParallel ? runner.RunParallel() : runner.RunInterpret());

  // Remove Element padding and cut to shape.
  for (Operand& op : plan.ops) {
    if (!op.output || !op.needs_padded_buffer) continue;
    AnyArray& a = outputs[static_cast<size_t>(op.index)];
    const AnyArray& p = *op.padded_buffer;
    int64_t src_off = 0;
    for (int d = 0; d < op.rank; ++d) src_off += op.lo[static_cast<size_t>(d)] * p.strides()[static_cast<size_t>(d)];
    CopyBox(static_cast<std::byte*>(a.data()), a.strides().data(),
            static_cast<const std::byte*>(p.data()) + src_off * static_cast<int64_t>(op.esize), p.strides().data(),
            op.n.data(), op.rank, op.esize);
  }
  return outputs;
}

}  // namespace axe::pallas
