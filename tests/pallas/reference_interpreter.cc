#include "pallas/reference_interpreter.h"

#include <cstring>

#include "axe/base/status_macros.h"

namespace axe::pallas::testing {
namespace {

// A dense row-major byte array.
struct Dense {
  DType dtype;
  size_t esize;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;

  int64_t Size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t Flat(const std::vector<int64_t>& idx) const {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
    return f;
  }
  std::byte* At(int64_t flat) { return bytes.data() + flat * static_cast<int64_t>(esize); }
};

std::vector<int64_t> Unflatten(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = flat % shape[static_cast<size_t>(d)];
    flat /= shape[static_cast<size_t>(d)];
  }
  return idx;
}

Dense Uninit(DType dtype, std::vector<int64_t> shape) {
  Dense a{dtype, static_cast<size_t>(ByteWidth(dtype)), std::move(shape), {}};
  a.bytes.resize(static_cast<size_t>(a.Size()) * a.esize);
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T u = UninitializedValue<T>();
    for (int64_t i = 0; i < a.Size(); ++i) std::memcpy(a.At(i), &u, sizeof(T));
  });
  return a;
}

Dense FromAny(const AnyArray& x) {
  Dense a{x.dtype(), x.element_size(), {x.shape().begin(), x.shape().end()}, {}};
  a.bytes.resize(static_cast<size_t>(x.size()) * a.esize);
  if (!a.bytes.empty()) std::memcpy(a.bytes.data(), x.data(), a.bytes.size());
  return a;
}

// Pads `a` with `lo` in front and `hi` behind per dimension (uninitialized values).
Dense Pad(Dense& a, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  std::vector<int64_t> shape = a.shape;
  for (size_t d = 0; d < shape.size(); ++d) shape[d] += lo[d] + hi[d];
  Dense p = Uninit(a.dtype, shape);
  for (int64_t f = 0; f < a.Size(); ++f) {
    std::vector<int64_t> idx = Unflatten(f, a.shape);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] += lo[d];
    std::memcpy(p.At(p.Flat(idx)), a.At(f), a.esize);
  }
  return p;
}

// The box [start, start + size) of `a`, or (write = true) writes `block` there.
void Slice(Dense& a, const std::vector<int64_t>& start, Dense& block, bool write) {
  for (int64_t f = 0; f < block.Size(); ++f) {
    std::vector<int64_t> idx = Unflatten(f, block.shape);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] += start[d];
    if (write) {
      std::memcpy(a.At(a.Flat(idx)), block.At(f), a.esize);
    } else {
      std::memcpy(block.At(f), a.At(a.Flat(idx)), a.esize);
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<AnyArray>> ReferenceInterpret(const CallSpec& spec,
                                                         const std::vector<const AnyArray*>& inputs,
                                                         const std::vector<ShapeDType>& out_shapes,
                                                         RawKernel kernel) {
  const size_t nin = inputs.size(), nout = out_shapes.size();
  std::vector<Dense> arrays;
  for (const AnyArray* x : inputs) arrays.push_back(FromAny(*x));
  for (const ShapeDType& sd : out_shapes) arrays.push_back(Uninit(sd.dtype, sd.shape));
  for (const auto& [i, j] : spec.options.input_output_aliases) {
    arrays[nin + static_cast<size_t>(j)] = FromAny(*inputs[static_cast<size_t>(i)]);
  }
  std::vector<std::vector<BlockDim>> dims;
  std::vector<const IndexMap*> maps;
  static const BlockSpec kDefault;
  for (size_t k = 0; k < nin + nout; ++k) {
    const BlockSpec& bs = k < nin ? (spec.in_specs.empty() ? kDefault : spec.in_specs[k])
                                  : (spec.out_specs.empty() ? kDefault : spec.out_specs[k - nin]);
    dims.push_back(bs.Resolve(arrays[k].shape));
    maps.push_back(&bs.index_map());
  }
  // Steps 3 and 4: Element padding, then up to a multiple of the block size.
  std::vector<Dense> padded;
  for (size_t k = 0; k < arrays.size(); ++k) {
    std::vector<int64_t> lo, hi;
    for (const BlockDim& d : dims[k]) {
      lo.push_back(d.padding_lo());
      hi.push_back(d.padding_hi());
    }
    Dense p = Pad(arrays[k], lo, hi);
    std::vector<int64_t> tail(p.shape.size(), 0), none(p.shape.size(), 0);
    for (size_t d = 0; d < p.shape.size(); ++d) {
      int64_t b = dims[k][d].size();
      if (b > 0) tail[d] = (p.shape[d] + b - 1) / b * b - p.shape[d];
    }
    padded.push_back(Pad(p, none, tail));
  }
  // Step 5: the loop.
  int64_t programs = 1;
  for (int64_t s : spec.grid.sizes()) programs *= s;
  for (int64_t i = 0; i < programs; ++i) {
    std::vector<int64_t> point = Unflatten(i, spec.grid.sizes());
    std::vector<Dense> blocks;
    std::vector<std::vector<int64_t>> starts, ref_shapes;
    for (size_t k = 0; k < padded.size(); ++k) {
      BlockIndices v;
      AXE_RETURN_IF_ERROR(maps[k]->Evaluate(point, static_cast<int>(dims[k].size()), &v));
      if (v.size() != dims[k].size()) return absl::InvalidArgumentError("index map result count");
      std::vector<int64_t> start, bshape, rshape;
      for (size_t d = 0; d < dims[k].size(); ++d) {
        int64_t b = dims[k][d].size();
        int64_t s = dims[k][d].kind() == BlockDim::Kind::kBlocked ? b * v[d] : v[d];
        if (s < 0) s += padded[k].shape[d];  // lax.dynamic_slice: a negative start from the end
        s = std::max<int64_t>(0, std::min(s, padded[k].shape[d] - b));  // then XLA's clamping
        start.push_back(s);
        bshape.push_back(b);
        if (!dims[k][d].squeezed()) rshape.push_back(b);
      }
      Dense block = Uninit(padded[k].dtype, bshape);
      Slice(padded[k], start, block, false);
      blocks.push_back(std::move(block));
      starts.push_back(std::move(start));
      ref_shapes.push_back(std::move(rshape));
    }
    std::vector<std::vector<int64_t>> strides;
    std::vector<RawRef> refs;
    for (size_t k = 0; k < blocks.size(); ++k) {
      std::vector<int64_t> st(ref_shapes[k].size(), 1);
      for (int d = static_cast<int>(st.size()) - 2; d >= 0; --d) {
        st[static_cast<size_t>(d)] =
            st[static_cast<size_t>(d) + 1] * ref_shapes[k][static_cast<size_t>(d) + 1];
      }
      strides.push_back(std::move(st));
    }
    for (size_t k = 0; k < blocks.size(); ++k) {
      refs.push_back(RawRef{blocks[k].bytes.data(), static_cast<int>(ref_shapes[k].size()),
                            ref_shapes[k].data(), strides[k].data(), blocks[k].dtype});
    }
    absl::Span<const RawRef> all(refs);
    AXE_RETURN_IF_ERROR(kernel(all.subspan(0, nin), all.subspan(nin)));
    for (size_t k = nin; k < blocks.size(); ++k) Slice(padded[k], starts[k], blocks[k], true);
  }
  // Step 6: remove Element padding, cut to shape.
  std::vector<AnyArray> out;
  for (size_t j = 0; j < nout; ++j) {
    const size_t k = nin + j;
    AXE_ASSIGN_OR_RETURN(AnyArray a, AnyArray::Zeros(out_shapes[j].dtype, out_shapes[j].shape));
    Dense view = FromAny(a);
    for (int64_t f = 0; f < view.Size(); ++f) {
      std::vector<int64_t> idx = Unflatten(f, view.shape);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] += dims[k][d].padding_lo();
      std::memcpy(static_cast<std::byte*>(a.data()) + f * static_cast<int64_t>(view.esize),
                  padded[k].At(padded[k].Flat(idx)), view.esize);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace axe::pallas::testing
