// Values <-> device bytes, and collective equations on the runtime's collectives.
#include "eval_device_bytes.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/primitives.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/element_value.h"
#include "axe/runtime/reduce_elements.h"

namespace axe::ir::internal {
namespace {

template <typename T>
void Put(uint8_t* out, T v) {
  std::memcpy(out, &v, sizeof(T));
}

template <typename T>
T Get(const uint8_t* in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  return v;
}

// `v` is already a value of `t` (rounded), so every cast below is exact and in range.
void Encode(double v, DType t, uint8_t* out) {
  switch (t) {
    case DType::kPred: Put<uint8_t>(out, v != 0); break;
    case DType::kS8: Put<int8_t>(out, static_cast<int8_t>(v)); break;
    case DType::kS16: Put<int16_t>(out, static_cast<int16_t>(v)); break;
    case DType::kS32: Put<int32_t>(out, static_cast<int32_t>(v)); break;
    case DType::kS64:
      Put<int64_t>(out, static_cast<int64_t>(ConvertValue(v, DType::kF64, t)));
      break;
    case DType::kU8: Put<uint8_t>(out, static_cast<uint8_t>(v)); break;
    case DType::kU16: Put<uint16_t>(out, static_cast<uint16_t>(v)); break;
    case DType::kU32: Put<uint32_t>(out, static_cast<uint32_t>(v)); break;
    case DType::kU64:
      Put<uint64_t>(out, static_cast<uint64_t>(ConvertValue(v, DType::kF64, t)));
      break;
    case DType::kF16: Put<uint16_t>(out, runtime::RoundToF16Bits(v)); break;
    case DType::kBF16: Put<uint16_t>(out, runtime::RoundToBF16Bits(v)); break;
    case DType::kF32: Put<float>(out, static_cast<float>(v)); break;
    default: Put<double>(out, v); break;
  }
}

double Decode(const uint8_t* in, DType t) {
  switch (t) {
    case DType::kPred: return Get<uint8_t>(in) != 0;
    case DType::kS8: return Get<int8_t>(in);
    case DType::kS16: return Get<int16_t>(in);
    case DType::kS32: return Get<int32_t>(in);
    case DType::kS64: return static_cast<double>(Get<int64_t>(in));
    case DType::kU8: return Get<uint8_t>(in);
    case DType::kU16: return Get<uint16_t>(in);
    case DType::kU32: return Get<uint32_t>(in);
    case DType::kU64: return static_cast<double>(Get<uint64_t>(in));
    case DType::kF16: return runtime::F16BitsToFloat(Get<uint16_t>(in));
    case DType::kBF16: return runtime::BF16BitsToFloat(Get<uint16_t>(in));
    case DType::kF32: return Get<float>(in);
    default: return Get<double>(in);
  }
}

absl::StatusOr<int64_t> IntParam(const Eqn& eqn, absl::string_view name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return 0;
  return it->second.AsInt(name);
}

absl::StatusOr<bool> Tiled(const Eqn& eqn) {
  auto it = eqn.params.find("tiled");
  if (it == eqn.params.end() || it->second.is_none()) return false;
  return it->second.AsBool("tiled");
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> Perm(const Eqn& eqn) {
  AXE_ASSIGN_OR_RETURN(const Param* perm, GetParam(eqn.params, "ppermute", "perm"));
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const Param& p : perm->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sd, p.AsInts("perm"));
    if (sd.size() != 2) return absl::InvalidArgumentError("ppermute perm items must be pairs");
    pairs.emplace_back(sd[0], sd[1]);
  }
  return pairs;
}

}  // namespace

absl::StatusOr<runtime::DeviceValues> ToDevices(runtime::Client& client, const sharding::Mesh& mesh,
                                                const Replicas& x) {
  const ShapedArray& aval = x[0].aval;
  int bytes = ByteWidth(aval.dtype());
  std::vector<std::vector<uint8_t>> host(static_cast<size_t>(client.num_devices()),
                                         std::vector<uint8_t>(x[0].values.size() * bytes, 0));
  for (size_t p = 0; p < x.size(); ++p) {
    std::vector<uint8_t>& out =
        host[static_cast<size_t>(mesh.DeviceAtPosition(static_cast<int64_t>(p)))];
    for (size_t i = 0; i < x[p].values.size(); ++i) {
      Encode(x[p].values[i], aval.dtype(), out.data() + i * bytes);
    }
  }
  return runtime::DeviceValues::FromHost(client, aval.shape(), aval.dtype(), host);
}

absl::StatusOr<HostArray> FromDevice(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     int64_t position, const ShapedArray& aval) {
  if (v.shape() != aval.shape() || v.dtype() != aval.dtype()) {
    return absl::InternalError(absl::StrCat("the runtime's collective gave a value of shape (",
                                            absl::StrJoin(v.shape(), ", "),
                                            ") where the jaxpr has ", aval.ShortString()));
  }
  int bytes = ByteWidth(aval.dtype());
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> raw,
                       v.ToHost(static_cast<int>(mesh.DeviceAtPosition(position))));
  HostArray a{aval, std::vector<double>(raw.size() / static_cast<size_t>(bytes))};
  for (size_t i = 0; i < a.values.size(); ++i) {
    a.values[i] = Decode(raw.data() + i * static_cast<size_t>(bytes), aval.dtype());
  }
  return a;
}

absl::StatusOr<Replicas> FromDevices(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     const ShapedArray& aval) {
  Replicas out;
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    AXE_ASSIGN_OR_RETURN(HostArray a, FromDevice(v, mesh, p, aval));
    out.push_back(std::move(a));
  }
  return out;
}

RuntimeCollectives InProcessCollectives() {
  return {runtime::AllReduce, runtime::AllGather, runtime::ReduceScatter, runtime::AllToAll,
          runtime::CollectivePermute};
}

absl::StatusOr<runtime::DeviceValues> RunRuntimeCollective(const RuntimeCollectives& fns,
                                                           const sharding::Mesh& mesh,
                                                           const Eqn& eqn,
                                                           const std::vector<std::string>& axes,
                                                           const runtime::DeviceValues& x) {
  const BuiltinPrimitives& b = Builtins();
  const Primitive* p = eqn.primitive;
  if (p == b.psum || p == b.psum_invariant)
    return fns.all_reduce(mesh, axes, runtime::ReduceOp::kSum, x);
  if (p == b.pmax) return fns.all_reduce(mesh, axes, runtime::ReduceOp::kMax, x);
  if (p == b.pmin) return fns.all_reduce(mesh, axes, runtime::ReduceOp::kMin, x);
  AXE_ASSIGN_OR_RETURN(bool tiled, Tiled(eqn));
  if (p == b.all_gather || p == b.all_gather_invariant) {
    AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "all_gather_dimension"));
    return fns.all_gather(mesh, axes, x, dim, tiled);
  }
  if (p == b.reduce_scatter) {
    AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "scatter_dimension"));
    return fns.reduce_scatter(mesh, axes, runtime::ReduceOp::kSum, x, dim, tiled);
  }
  if (p == b.all_to_all) {
    AXE_ASSIGN_OR_RETURN(int64_t split, IntParam(eqn, "split_axis"));
    AXE_ASSIGN_OR_RETURN(int64_t concat, IntParam(eqn, "concat_axis"));
    return fns.all_to_all(mesh, axes, x, split, concat, tiled);
  }
  if (p == b.ppermute) {
    AXE_ASSIGN_OR_RETURN(auto perm, Perm(eqn));
    return fns.collective_permute(mesh, axes, x, perm);
  }
  return absl::InternalError(absl::StrCat(p->name(), " is not a collective"));
}

}  // namespace axe::ir::internal
