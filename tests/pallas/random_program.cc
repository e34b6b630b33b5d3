#include "pallas/random_program.h"

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/pallas/program.h"

namespace axe::pallas::testing {
namespace {

int64_t Uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// v_d = c0 + sum_a c_a * g_a per array dimension.
IndexMap AffineMap(std::vector<std::vector<int64_t>> coef, std::string& text) {
  std::vector<std::string> parts;
  for (const auto& c : coef) parts.push_back(absl::StrCat("[", absl::StrJoin(c, ","), "]"));
  text = absl::StrJoin(parts, " ");
  return IndexMap::FromFunction(
      absl::StrCat("affine ", text), -1,
      [coef = std::move(coef)](absl::Span<const int64_t> g, BlockIndices* out) {
        for (const auto& c : coef) {
          int64_t v = c[0];
          for (size_t a = 0; a < g.size(); ++a) v += c[a + 1] * g[a];
          out->push_back(v);
        }
        return absl::OkStatus();
      });
}

AnyArray RandomArray(std::mt19937& rng, DType dtype, const std::vector<int64_t>& shape) {
  AnyArray a = *AnyArray::Zeros(dtype, shape);
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = a.data_as<T>();
    for (int64_t i = 0; i < a.size(); ++i) p[i] = static_cast<T>(Uniform(rng, -20, 20));
  });
  return a;
}

DType RandomDType(std::mt19937& rng) {
  switch (Uniform(rng, 0, 3)) {
    case 0: return DType::kF32;
    case 1: return DType::kS8;
    default: return DType::kS32;
  }
}

std::vector<int64_t> RandomShape(std::mt19937& rng) {
  std::vector<int64_t> shape(static_cast<size_t>(Uniform(rng, 0, 3)));
  for (int64_t& d : shape) d = Uniform(rng, 1, 6);
  return shape;
}

std::vector<BlockDim> RandomBlock(std::mt19937& rng, const std::vector<int64_t>& shape,
                                  bool allow_padding) {
  std::vector<BlockDim> dims;
  for (int64_t n : shape) {
    switch (Uniform(rng, 0, 5)) {
      case 0: dims.push_back(Squeezed()); break;
      case 1:
      case 2:
        dims.push_back(Element(
            Uniform(rng, 1, n + 2),
            allow_padding ? std::pair{Uniform(rng, 0, 2), Uniform(rng, 0, 2)} : std::pair{0L, 0L}));
        break;
      default: dims.push_back(Blocked(Uniform(rng, 1, n + 1))); break;
    }
  }
  return dims;
}

BlockSpec RandomSpec(std::mt19937& rng, const std::vector<int64_t>& shape, int grid_rank,
                     bool allow_padding, std::string& text) {
  std::vector<std::vector<int64_t>> coef;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> c = {Uniform(rng, -2, 3)};
    for (int a = 0; a < grid_rank; ++a) c.push_back(Uniform(rng, -1, 2));
    coef.push_back(std::move(c));
  }
  if (Uniform(rng, 0, 6) == 0) {
    text = "whole";
    return BlockSpec::WholeArray(Uniform(rng, 0, 1) ? IndexMap() : AffineMap(coef, text));
  }
  std::vector<BlockDim> block = RandomBlock(rng, shape, allow_padding);
  std::string map_text;
  BlockSpec s(block, AffineMap(std::move(coef), map_text));
  text = absl::StrCat(BlockShapeToString(block), " ", map_text);
  return s;
}

// The element of a ref at row-major position `flat`.
int64_t OffsetOf(const RawRef& r, int64_t flat) {
  int64_t off = 0;
  for (int d = r.rank - 1; d >= 0; --d) {
    off += (flat % r.shape[d]) * r.strides[d];
    flat /= r.shape[d];
  }
  return off;
}

int64_t RefSize(const RawRef& r) {
  int64_t n = 1;
  for (int d = 0; d < r.rank; ++d) n *= r.shape[d];
  return n;
}

double ReadAsDouble(const RawRef& r, int64_t flat) {
  return VisitDType(r.dtype, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<const T*>(r.data)[OffsetOf(r, flat)]);
  });
}

}  // namespace

absl::Status AccumulateKernel(absl::Span<const RawRef> ins, absl::Span<const RawRef> outs,
                              int64_t* counter, int grid_rank) {
  int64_t tag = 0;
  if (counter != nullptr) {
    tag = (*counter)++;
  } else {
    for (int a = 0; a < grid_rank; ++a) tag = tag * NumPrograms(a) + ProgramId(a);
  }
  for (const RawRef& o : outs) {
    const int64_t n = RefSize(o);
    for (int64_t f = 0; f < n; ++f) {
      double sum = 0;
      for (const RawRef& in : ins) {
        int64_t m = RefSize(in);
        if (m > 0) sum += ReadAsDouble(in, f % m);
      }
      VisitDType(o.dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        T* p = static_cast<T*>(o.data) + OffsetOf(o, f);
        if constexpr (std::is_same_v<T, bool>) {
          *p = ((static_cast<int64_t>(*p) * 3 + static_cast<int64_t>(sum) + tag) & 1) != 0;
        } else if constexpr (std::is_floating_point_v<T>) {
          *p = static_cast<T>(*p * T(3) + static_cast<T>(sum) + static_cast<T>(tag));
        } else {
          using U = std::make_unsigned_t<T>;
          U v = static_cast<U>(static_cast<U>(*p) * U(3) +
                               static_cast<U>(static_cast<int64_t>(sum)) + static_cast<U>(tag));
          *p = static_cast<T>(v);
        }
      });
    }
  }
  return absl::OkStatus();
}

RandomProgram MakeRandomProgram(std::mt19937& rng) {
  RandomProgram p;
  std::vector<int64_t> grid(static_cast<size_t>(Uniform(rng, 0, 3)));
  for (int64_t& g : grid) g = Uniform(rng, 0, 9) == 0 ? 0 : Uniform(rng, 1, 3);
  p.spec.grid = Grid(grid);
  const bool aliasing = Uniform(rng, 0, 3) == 0;
  const int64_t nin = Uniform(rng, 0, 2), nout = Uniform(rng, 1, 2);
  p.description = absl::StrCat("grid ", p.spec.grid.ToString());
  for (int64_t i = 0; i < nin; ++i) {
    std::vector<int64_t> shape = RandomShape(rng);
    p.inputs.push_back(RandomArray(rng, RandomDType(rng), shape));
    std::string text;
    p.spec.in_specs.push_back(RandomSpec(rng, shape, p.spec.grid.rank(), !aliasing, text));
    absl::StrAppend(&p.description, "\n  in ", p.inputs.back().shape_dtype().ToString(), " ", text);
  }
  for (int64_t j = 0; j < nout; ++j) {
    ShapeDType sd{RandomDType(rng), RandomShape(rng)};
    if (aliasing && j < nin && Uniform(rng, 0, 1) == 0) {
      sd = p.inputs[static_cast<size_t>(j)].shape_dtype();
      p.spec.options.input_output_aliases.push_back({j, j});
    }
    p.outputs.push_back(sd);
    std::string text;
    p.spec.out_specs.push_back(RandomSpec(rng, sd.shape, p.spec.grid.rank(), !aliasing, text));
    absl::StrAppend(&p.description, "\n  out ", sd.ToString(), " ", text);
  }
  if (!p.spec.options.input_output_aliases.empty()) absl::StrAppend(&p.description, "\n  aliased");
  return p;
}

RandomProgram MakeRandomParallelProgram(std::mt19937& rng) {
  RandomProgram p;
  const int rank = static_cast<int>(Uniform(rng, 1, 3));
  std::vector<int64_t> grid(static_cast<size_t>(rank));
  std::vector<DimensionSemantics> sem(static_cast<size_t>(rank));
  std::vector<int> par;
  for (int a = 0; a < rank; ++a) {
    grid[static_cast<size_t>(a)] = Uniform(rng, 1, 4);
    sem[static_cast<size_t>(a)] = Uniform(rng, 0, 1) ? kParallel : kArbitrary;
    if (sem[static_cast<size_t>(a)] == kParallel) par.push_back(a);
  }
  if (par.empty()) {
    par.push_back(static_cast<int>(Uniform(rng, 0, rank - 1)));
    sem[static_cast<size_t>(par[0])] = kParallel;
  }
  p.spec.grid = Grid(grid);
  p.spec.options.mode = Mode::kParallel;
  p.spec.options.dimension_semantics = sem;
  p.description =
      absl::StrCat("grid ", p.spec.grid.ToString(), " parallel axes ", absl::StrJoin(par, ","));
  const int64_t nin = Uniform(rng, 0, 2), nout = Uniform(rng, 1, 2);
  for (int64_t i = 0; i < nin; ++i) {
    std::vector<int64_t> shape = RandomShape(rng);
    p.inputs.push_back(RandomArray(rng, RandomDType(rng), shape));
    std::string text;
    p.spec.in_specs.push_back(RandomSpec(rng, shape, rank, true, text));
    absl::StrAppend(&p.description, "\n  in ", p.inputs.back().shape_dtype().ToString(), " ", text);
  }
  for (int64_t j = 0; j < nout; ++j) {
    // One Blocked dim per parallel axis, large enough that windows never clamp; the other
    // dims depend on arbitrary axes only.
    const int extra = static_cast<int>(Uniform(rng, 0, 2));
    std::vector<int> owner;  // grid axis that owns each dim, or -1
    for (int a : par) owner.push_back(a);
    for (int e = 0; e < extra; ++e) owner.push_back(-1);
    std::shuffle(owner.begin(), owner.end(), rng);
    std::vector<int64_t> shape;
    std::vector<BlockDim> block;
    std::vector<std::vector<int64_t>> coef;
    for (int a : owner) {
      std::vector<int64_t> c(static_cast<size_t>(rank) + 1, 0);
      if (a >= 0) {
        int64_t b = Uniform(rng, 1, 3);
        shape.push_back(grid[static_cast<size_t>(a)] * b + Uniform(rng, 0, b - 1));
        block.push_back(Uniform(rng, 0, 1) ? Blocked(b) : Element(b));
        c[static_cast<size_t>(a) + 1] = 1;
        if (block.back().kind() == BlockDim::Kind::kElement) c[static_cast<size_t>(a) + 1] = b;
      } else {
        int64_t n = Uniform(rng, 1, 5);
        shape.push_back(n);
        block.push_back(Uniform(rng, 0, 2) == 0 ? Squeezed() : Blocked(Uniform(rng, 1, n)));
        c[0] = Uniform(rng, -1, 2);
        for (int x = 0; x < rank; ++x) {
          if (sem[static_cast<size_t>(x)] == kArbitrary)
            c[static_cast<size_t>(x) + 1] = Uniform(rng, -1, 1);
        }
      }
      coef.push_back(std::move(c));
    }
    ShapeDType sd{RandomDType(rng), shape};
    p.outputs.push_back(sd);
    std::string text;
    p.spec.out_specs.push_back(BlockSpec(block, AffineMap(std::move(coef), text)));
    absl::StrAppend(&p.description, "\n  out ", sd.ToString(), " ", BlockShapeToString(block), " ",
                    text);
  }
  return p;
}

}  // namespace axe::pallas::testing
