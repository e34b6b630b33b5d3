// axe.ir: jaxprs (include/axe/ir) from Python: parse the text JAX prints, print it back, check
// shard_map variance typing, transpose, count communication, evaluate on NumPy arrays,
// differentiate and vectorize. Every transformation type-checks its input first (as the
// `axe ir` commands do), so an ill-typed program is an error and never reaches a rule.
// The Python module python/axe/ir.py converts NumPy arrays; here they arrive as flat byte
// views in the element type's own encoding (ir/host_bytes.h).
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/dims.h"
#include "axe/base/dtype.h"
#include "axe/base/python_error.h"
#include "axe/exec/executable.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/comm.h"
#include "axe/ir/drop_vma.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/host_bytes.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/printer.h"
#include "axe/ir/transpose.h"
#include "axe/runtime/client.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using ir::ClosedJaxpr;
using ir::HostArray;
using ir::ShapedArray;
// Arguments may be read-only (np.asarray of a jax.Array is); outputs are written in place.
using InBytes = nb::ndarray<const uint8_t, nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using OutBytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// The jaxpr after CheckJaxpr (what every transformation starts from).
const ClosedJaxpr& Checked(const ClosedJaxpr& j) {
  ThrowIfError(ir::CheckJaxpr(j));
  return j;
}

std::vector<std::string> AvalTexts(const std::vector<ShapedArray>& avals) {
  std::vector<std::string> out;
  out.reserve(avals.size());
  for (const ShapedArray& a : avals) out.push_back(a.ShortString());
  return out;
}

// (shape, NumPy dtype name) per aval: what ir.py allocates and checks arrays against.
std::vector<std::pair<Dims, std::string>> NumpyTypes(const std::vector<ShapedArray>& avals) {
  std::vector<std::pair<Dims, std::string>> out;
  out.reserve(avals.size());
  for (const ShapedArray& a : avals) out.emplace_back(a.shape(), std::string(NumpyName(a.dtype())));
  return out;
}

std::vector<std::string> EqnNames(const ClosedJaxpr& j) {
  std::vector<std::string> out;
  out.reserve(j.jaxpr.eqns.size());
  for (const ir::Eqn& e : j.jaxpr.eqns) out.push_back(e.primitive->name());
  return out;
}

// An index list from Python: None -> `fallback`, an int -> [it], else an iterable of ints.
std::vector<int64_t> IndexList(nb::handle value, const char* what, std::vector<int64_t> fallback) {
  if (value.is_none()) return fallback;
  if (PyLong_Check(value.ptr())) return {ToInt64(value, what)};
  std::vector<int64_t> out;
  for (nb::handle item : nb::iter(value)) out.push_back(ToInt64(item, what));
  return out;
}

// The linear mask of `wrt` (input indices; None: every input), JAX's IndexError words when
// out of range.
std::vector<bool> LinearMask(nb::handle wrt, size_t inputs) {
  std::vector<bool> linear(inputs, wrt.is_none());
  for (int64_t n : IndexList(wrt, "wrt", {})) {
    if (n < 0 || static_cast<uint64_t>(n) >= inputs) {
      PyErr_SetString(PyExc_IndexError, absl::StrCat("wrt: input ", n, " is out of range for a ",
                                                     "jaxpr with ", inputs, " inputs")
                                            .c_str());
      throw nb::python_error();
    }
    linear[static_cast<size_t>(n)] = true;
  }
  return linear;
}

ClosedJaxpr Transpose(const ClosedJaxpr& j, nb::handle wrt, bool check_vma) {
  ClosedJaxpr program = Checked(j);
  if (!check_vma) program = Unwrap(ir::DropVarianceTyping(program));
  std::vector<bool> linear = LinearMask(wrt, program.jaxpr.invars.size());
  return Unwrap(ir::LinearTranspose(program, linear));
}

nb::dict Comm(const ClosedJaxpr& j) {
  ir::CommunicationCount c = Unwrap(ir::CountCommunication(Checked(j)));
  nb::list rows;
  for (const ir::CollectiveCount& e : c.collectives) {
    nb::dict row;
    row["primitive"] = e.primitive;
    row["kind"] = e.kind;
    row["axes"] = nb::tuple(nb::cast(e.axes));
    row["group_size"] = e.group_size;
    row["operand"] = e.operand;
    row["count"] = e.count;
    row["bytes_per_device"] = e.bytes_per_device;
    rows.append(row);
  }
  nb::dict out;
  out["collectives"] = rows;
  out["total_bytes_per_device"] = c.total_bytes_per_device;
  out["table"] = ir::CommunicationTable(c);
  return out;
}

// The host arrays of `args` (flat bytes), typed as the jaxpr's inputs.
std::vector<HostArray> ReadArgs(const ClosedJaxpr& j, const std::vector<InBytes>& args) {
  const std::vector<ShapedArray> avals = j.jaxpr.in_avals();
  if (avals.size() != args.size()) {
    ThrowIfError(TypeError(absl::StrCat("Computation compiled for ", avals.size(),
                                        " inputs but called with ", args.size())));
  }
  std::vector<HostArray> out;
  out.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    // Before converting: the interpreter holds 8 bytes per element.
    std::optional<int64_t> n = avals[i].NumElements();
    if (!n || *n > ir::kMaxEvalTextElements) {
      throw nb::value_error(absl::StrCat("argument ", i, " of type ", avals[i].ShortString(),
                                         " has more than ", ir::kMaxEvalTextElements,
                                         " elements (the interpreter's bound)")
                                .c_str());
    }
    absl::Span<const uint8_t> bytes(args[i].data(), args[i].size());
    out.push_back(Unwrap(ir::HostArrayFromBytesExact(avals[i].WithVma({}), bytes)));
  }
  return out;
}

void WriteOutputs(const std::vector<HostArray>& values, std::vector<OutBytes>& outs) {
  if (values.size() != outs.size()) throw std::runtime_error("axe.ir.eval: output count");
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<uint8_t> bytes = Unwrap(ir::HostArrayToBytes(values[i]));
    if (bytes.size() != outs[i].size()) throw std::runtime_error("axe.ir.eval: output size");
    if (!bytes.empty()) std::memcpy(outs[i].data(), bytes.data(), bytes.size());
  }
}

// The outputs' (shape, NumPy dtype) for ir.py to allocate, once the jaxpr checks and each
// output is within the interpreter's bound (so that nothing huge is allocated first).
std::vector<std::pair<Dims, std::string>> EvalOutputTypes(const ClosedJaxpr& j) {
  const std::vector<ShapedArray> avals = Checked(j).jaxpr.out_avals();
  for (const ShapedArray& a : avals) {
    std::optional<int64_t> n = a.NumElements();
    if (!n || *n > ir::kMaxEvalTextElements) {
      throw nb::value_error(absl::StrCat("cannot evaluate a value of type ", a.ShortString(),
                                         ": more than ", ir::kMaxEvalTextElements, " elements")
                                .c_str());
    }
  }
  return NumpyTypes(avals);
}

using OwnedBytes = nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>;

// `value`'s bytes as a NumPy array that owns them: handed over when nothing else holds the
// storage, copied otherwise (an output that is an argument, or shares its storage).
OwnedBytes ToNumpyBytes(exec::Value value) {
  if (!value.sole_owner()) {
    exec::Value copy = Unwrap(exec::Value::Uninitialized(value.aval()));
    if (value.num_bytes() > 0) std::memcpy(copy.mutable_bytes(), value.bytes(), value.num_bytes());
    value = std::move(copy);
  }
  auto* owned = new exec::Value(std::move(value));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<exec::Value*>(p); });
  size_t shape[1] = {owned->num_bytes()};
  return OwnedBytes(owned->mutable_bytes(), 1, shape, owner);
}

// A compiled program's run on flat bytes in the dtypes' own encodings (what NumPy holds): the
// arguments are read in place, the results handed to NumPy without a copy.
std::vector<OwnedBytes> RunCompiled(const exec::Executable& e, const std::vector<InBytes>& args) {
  const std::vector<ShapedArray>& avals = e.input_avals();
  if (avals.size() != args.size()) {
    ThrowIfError(TypeError(absl::StrCat("Computation compiled for ", avals.size(),
                                        " inputs but called with ", args.size())));
  }
  std::vector<exec::Value> values;
  for (size_t i = 0; i < args.size(); ++i) {
    exec::Value v = Unwrap(exec::Value::Borrow(avals[i], args[i].data()));
    if (v.num_bytes() != args[i].size()) {
      throw nb::value_error(absl::StrCat("argument ", i, " has ", args[i].size(), " bytes for ",
                                         avals[i].ShortString())
                                .c_str());
    }
    values.push_back(std::move(v));
  }
  absl::StatusOr<std::vector<exec::Value>> result;
  {
    nb::gil_scoped_release release;
    result = e.Run(values);
  }
  std::vector<OwnedBytes> out;
  for (exec::Value& v : Unwrap(std::move(result))) out.push_back(ToNumpyBytes(std::move(v)));
  return out;
}

// Evaluates on the executor: backend "host", or "threads" with `devices` in-process devices
// for the shard_map bodies (None: as many as the program needs).
void Eval(const ClosedJaxpr& j, const std::vector<InBytes>& args, std::vector<OutBytes> outs,
          const std::string& backend, std::optional<int64_t> devices) {
  const ClosedJaxpr& program = Checked(j);
  if (backend != "host" && backend != "threads") {
    throw nb::value_error(
        absl::StrCat("backend must be 'host' or 'threads', got '", backend, "'").c_str());
  }
  if (backend == "host" && devices) {
    throw nb::value_error("devices= needs backend='threads' (the host simulates the mesh)");
  }
  std::vector<HostArray> inputs = ReadArgs(program, args);
  absl::StatusOr<std::vector<HostArray>> result;
  if (backend == "host") {
    nb::gil_scoped_release release;
    result = exec::ExecuteJaxpr(program, inputs);
  } else {
    int64_t n = devices.value_or(ir::DevicesNeeded(program));
    if (n < 1 || n > runtime::Client::kMaxInProcessDevices) {
      throw nb::value_error(absl::StrCat("the threads backend runs 1 to ",
                                         runtime::Client::kMaxInProcessDevices, " devices, not ", n)
                                .c_str());
    }
    // The executor, each shard_map position on a thread of its own.
    const int64_t needed = ir::DevicesNeeded(program);
    nb::gil_scoped_release release;
    result =
        needed > n
            ? absl::InvalidArgumentError(absl::StrCat("a shard_map of the program has ", needed,
                                                      " devices but the client has ", n))
            : exec::ExecuteJaxpr(program, inputs);
  }
  WriteOutputs(Unwrap(std::move(result)), outs);
}

ClosedJaxpr Jvp(const ClosedJaxpr& j, nb::handle wrt) {
  const ClosedJaxpr& program = Checked(j);
  std::vector<bool> with_tangent;
  if (!wrt.is_none()) with_tangent = LinearMask(wrt, program.jaxpr.invars.size());
  return Unwrap(ir::Jvp(program, std::move(with_tangent)));
}

std::tuple<ClosedJaxpr, ClosedJaxpr, size_t> Linearize(const ClosedJaxpr& j) {
  ir::Linearized l = Unwrap(ir::Linearize(Checked(j)));
  return {std::move(l.primal), std::move(l.linear), l.num_residuals};
}

ClosedJaxpr Grad(const ClosedJaxpr& j, nb::handle argnums) {
  return Unwrap(ir::Grad(Checked(j), IndexList(argnums, "argnums", {0})));
}

std::optional<int64_t> OptionalInt(nb::handle value, const char* what) {
  if (value.is_none()) return std::nullopt;
  return ToInt64(value, what);
}

// jax.vmap's in_axes / out_axes: an int (or None for in_axes) for every position, or one
// entry per position.
ClosedJaxpr Vmap(const ClosedJaxpr& j, nb::handle size, nb::handle in_axes, nb::handle out_axes) {
  const ClosedJaxpr& program = Checked(j);
  ir::VmapOptions o;
  o.axis_size = OptionalInt(size, "axis_size");
  const size_t inputs = program.jaxpr.invars.size();
  if (in_axes.is_none() || PyLong_Check(in_axes.ptr())) {
    o.in_axes.assign(inputs, OptionalInt(in_axes, "in_axes"));
  } else {
    for (nb::handle a : nb::iter(in_axes)) o.in_axes.push_back(OptionalInt(a, "in_axes"));
    if (o.in_axes.size() != inputs) {
      throw nb::value_error(absl::StrCat("vmap in_axes must be an int, None, or a tuple of "
                                         "entries corresponding to the positional arguments "
                                         "passed to the function, but got len(in_axes)=",
                                         o.in_axes.size(), ", len(args)=", inputs)
                                .c_str());
    }
  }
  const size_t outputs = program.jaxpr.outvars.size();
  if (PyLong_Check(out_axes.ptr())) {
    o.out_axes.assign(outputs, ToInt64(out_axes, "out_axes"));
  } else {
    o.out_axes = IndexList(out_axes, "out_axes", {});
    if (o.out_axes.size() != outputs) {
      throw nb::value_error(absl::StrCat("vmap out_axes specification must be a tree prefix of "
                                         "the corresponding value, got ",
                                         o.out_axes.size(), " out_axes for ", outputs, " outputs")
                                .c_str());
    }
  }
  return Unwrap(ir::Vmap(program, std::move(o)));
}

// The parser reads the str's own UTF-8 form (no copy), after refusing a text longer than the
// parser's bound (counted in code points, so at most 4 bytes each are ever encoded).
ClosedJaxpr Parse(nb::handle text) {
  if (!PyUnicode_Check(text.ptr())) {
    throw nb::type_error(absl::StrCat("axe.ir.parse takes the jaxpr's text (str), got ",
                                      Py_TYPE(text.ptr())->tp_name)
                             .c_str());
  }
  const ir::ParseOptions options;
  const Py_ssize_t length = PyUnicode_GetLength(text.ptr());
  if (length < 0) throw nb::python_error();
  if (static_cast<size_t>(length) > options.max_length) {
    throw nb::value_error(
        absl::StrCat("jaxpr text of ", length, " characters (at most ", options.max_length, ")")
            .c_str());
  }
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (utf8 == nullptr) throw nb::python_error();  // UnicodeEncodeError (a ValueError)
  return Unwrap(ir::ParseJaxpr(absl::string_view(utf8, static_cast<size_t>(size)), options));
}

// The jaxpr with its constvars' values from flat bytes, in constvar order (axe.ir.eval and
// axe.ir.compile's consts=; ir.py checks the arrays' types first).
ClosedJaxpr WithConsts(const ClosedJaxpr& j, const std::vector<InBytes>& consts) {
  const std::vector<ir::VarId>& constvars = j.jaxpr.constvars;
  if (consts.size() != constvars.size()) {
    ThrowIfError(TypeError(absl::StrCat("the jaxpr has ", constvars.size(), " constvars but ",
                                        consts.size(), " consts were given")));
  }
  ClosedJaxpr out = j;
  out.consts.clear();
  for (size_t i = 0; i < consts.size(); ++i) {
    const ShapedArray aval = j.jaxpr.aval(constvars[i]).WithVma({});
    std::optional<int64_t> n = aval.NumElements();
    if (!n || *n > ir::kMaxEvalTextElements) {
      throw nb::value_error(absl::StrCat("const ", i, " of type ", aval.ShortString(),
                                         " has more than ", ir::kMaxEvalTextElements,
                                         " elements (the interpreter's bound)")
                                .c_str());
    }
    absl::Span<const uint8_t> bytes(consts[i].data(), consts[i].size());
    out.consts.push_back(Unwrap(ir::HostArrayFromBytesExact(aval, bytes)));
  }
  return out;
}

void BindJaxpr(nb::module_& m) {
  nb::class_<ClosedJaxpr>(m, "Jaxpr", "A closed jaxpr (JAX's ClosedJaxpr), printed as JAX does.")
      .def_static("parse", &Parse, nb::arg("text"),
                  "Reads the text JAX prints (print(jax.make_jaxpr(f)(x))) or axe's.")
      .def("__str__", [](const ClosedJaxpr& j) { return ir::PrintJaxpr(j); })
      .def("__repr__", [](const ClosedJaxpr& j) { return ir::PrintJaxpr(j); })
      .def(
          "pretty_print",
          [](const ClosedJaxpr& j, size_t width) { return ir::PrintJaxpr(j, width); },
          nb::arg("width") = 80)
      .def("__eq__", [](const ClosedJaxpr& a, const ClosedJaxpr& b) { return a == b; })
      .def("__eq__", [](const ClosedJaxpr&, nb::handle) { return false; })
      // Equal jaxprs print the same (jaxpr.h), so the text's hash agrees with ==.
      .def("__hash__", [](const ClosedJaxpr& j) { return absl::HashOf(ir::PrintJaxpr(j)); })
      .def_prop_ro("in_avals", [](const ClosedJaxpr& j) { return AvalTexts(j.jaxpr.in_avals()); })
      .def_prop_ro("out_avals", [](const ClosedJaxpr& j) { return AvalTexts(j.jaxpr.out_avals()); })
      .def_prop_ro("eqns", &EqnNames, "The top-level equations' primitive names, in order.")
      .def_prop_ro("eqn_count", [](const ClosedJaxpr& j) { return j.jaxpr.eqns.size(); })
      .def_prop_ro("num_consts", [](const ClosedJaxpr& j) { return j.consts.size(); })
      .def_prop_ro("effects", [](const ClosedJaxpr& j) { return j.jaxpr.effects; })
      .def_prop_ro("_in_types", [](const ClosedJaxpr& j) { return NumpyTypes(j.jaxpr.in_avals()); })
      .def_prop_ro("_const_types",
                   [](const ClosedJaxpr& j) {
                     std::vector<ShapedArray> avals;
                     for (ir::VarId v : j.jaxpr.constvars) avals.push_back(j.jaxpr.aval(v));
                     return NumpyTypes(avals);
                   })
      .def_prop_ro("const_avals",
                   [](const ClosedJaxpr& j) {
                     std::vector<ShapedArray> avals;
                     for (ir::VarId v : j.jaxpr.constvars) avals.push_back(j.jaxpr.aval(v));
                     return AvalTexts(avals);
                   })
      .def_prop_ro("_out_types",
                   [](const ClosedJaxpr& j) { return NumpyTypes(j.jaxpr.out_avals()); });
}

}  // namespace

void BindIr(nb::module_& m) {
  BindJaxpr(m);
  m.def(
      "check", [](const ClosedJaxpr& j) { ThrowIfError(ir::CheckJaxpr(j)); }, nb::arg("jaxpr"));
  m.def("transpose", &Transpose, nb::arg("jaxpr"), nb::arg("wrt").none() = nb::none(),
        nb::arg("check_vma") = true);
  m.def("comm", &Comm, nb::arg("jaxpr"));
  m.def("_eval", &Eval, nb::arg("jaxpr"), nb::arg("args"), nb::arg("outs"), nb::arg("backend"),
        nb::arg("devices").none());
  // The short type text of a NumPy array ("f32[8]"), for the argument type errors; its NumPy
  // name when axe has no such dtype.
  m.def(
      "_type_text",
      [](const std::string& dtype, const Dims& shape) {
        absl::StatusOr<DType> d = ParseDType(dtype);
        std::string name = d.ok() ? std::string(JaxprName(*d)) : dtype;
        return absl::StrCat(name, "[", absl::StrJoin(shape, ","), "]");
      },
      nb::arg("dtype"), nb::arg("shape"));
  m.def("_eval_output_types", &EvalOutputTypes, nb::arg("jaxpr"));
  m.def("_with_consts", &WithConsts, nb::arg("jaxpr"), nb::arg("consts"));
  nb::class_<exec::Executable>(m, "_Executable")
      .def("describe", &exec::Executable::Describe)
      .def("output_types", [](const exec::Executable& e) { return NumpyTypes(e.output_avals()); });
  m.def(
      "_compile",
      [](const ClosedJaxpr& j, int threads) {
        exec::ExecOptions options;
        options.num_threads = threads;
        return Unwrap(exec::Executable::Compile(Checked(j), options));
      },
      nb::arg("jaxpr"), nb::arg("threads"));
  m.def("_run_compiled", &RunCompiled, nb::arg("executable"), nb::arg("args"));
  m.def(
      "devices_needed", [](const ClosedJaxpr& j) { return ir::DevicesNeeded(j); },
      nb::arg("jaxpr"));
  m.def("jvp", &Jvp, nb::arg("jaxpr"), nb::arg("wrt").none() = nb::none());
  m.def("linearize", &Linearize, nb::arg("jaxpr"));
  m.def(
      "vjp", [](const ClosedJaxpr& j) { return Unwrap(ir::Vjp(Checked(j))); }, nb::arg("jaxpr"));
  m.def("grad", &Grad, nb::arg("jaxpr"), nb::arg("argnums").none() = 0);
  m.def("vmap", &Vmap, nb::arg("jaxpr"), nb::arg("axis_size").none() = nb::none(),
        nb::arg("in_axes").none() = 0, nb::arg("out_axes") = 0);
}

}  // namespace axe::python
