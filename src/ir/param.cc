#include "axe/ir/param.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/printer.h"
#include "python_text.h"

namespace axe::ir {

Param Param::Bool(bool value) {
  Param p;
  p.kind_ = Kind::kBool;
  p.int_ = value ? 1 : 0;
  return p;
}
Param Param::Int(int64_t value) {
  Param p;
  p.kind_ = Kind::kInt;
  p.int_ = value;
  return p;
}
Param Param::Float(double value) {
  Param p;
  p.kind_ = Kind::kFloat;
  p.float_ = value;
  return p;
}
Param Param::String(std::string value) {
  Param p;
  p.kind_ = Kind::kString;
  p.text_ = std::move(value);
  return p;
}
Param Param::Symbol(std::string text) {
  Param p;
  p.kind_ = Kind::kSymbol;
  p.text_ = std::move(text);
  return p;
}
Param Param::OfDType(DType dtype) {
  Param p;
  p.kind_ = Kind::kDType;
  p.int_ = static_cast<int64_t>(dtype);
  return p;
}
Param Param::Tuple(std::vector<Param> items) {
  Param p;
  p.kind_ = Kind::kTuple;
  p.items_ = std::move(items);
  return p;
}
Param Param::List(std::vector<Param> items) {
  Param p = Tuple(std::move(items));
  p.kind_ = Kind::kList;
  return p;
}
Param Param::Set(std::vector<Param> items) {
  Param p = Tuple(std::move(items));
  p.kind_ = Kind::kSet;
  return p;
}
Param Param::Call(std::string name, std::vector<Param> args) {
  Param p = Tuple(std::move(args));
  p.kind_ = Kind::kCall;
  p.text_ = std::move(name);
  return p;
}
Param Param::Keyword(std::string key, Param value) {
  Param p = Tuple({std::move(value)});
  p.kind_ = Kind::kKeyword;
  p.text_ = std::move(key);
  return p;
}
Param Param::Pair(Param key, Param value) {
  Param p = Tuple({std::move(key), std::move(value)});
  p.kind_ = Kind::kPair;
  return p;
}
Param Param::Jaxpr(std::shared_ptr<const ClosedJaxpr> jaxpr) {
  Param p;
  p.kind_ = Kind::kJaxpr;
  p.jaxpr_ = std::move(jaxpr);
  return p;
}
Param Param::Ints(const std::vector<int64_t>& values) {
  std::vector<Param> items;
  for (int64_t v : values) items.push_back(Int(v));
  return Tuple(std::move(items));
}
Param Param::Names(const std::vector<std::string>& names) {
  std::vector<Param> items;
  for (const std::string& n : names) items.push_back(String(n));
  return Tuple(std::move(items));
}
Param Param::Jaxprs(std::vector<std::shared_ptr<const ClosedJaxpr>> jaxprs) {
  std::vector<Param> items;
  for (auto& j : jaxprs) items.push_back(Jaxpr(std::move(j)));
  return Tuple(std::move(items));
}

Param Param::OfPartitionSpec(const sharding::PartitionSpec& spec) {
  std::vector<Param> args;
  for (const sharding::PartitionSpec::Entry& e : spec.entries()) {
    if (e.empty()) {
      args.push_back(None());
    } else if (e.size() == 1) {
      args.push_back(String(e[0]));
    } else {
      args.push_back(Names(e));
    }
  }
  // repr(P('x')) is P('x',): a one-entry spec prints a trailing comma.
  return Call("P", std::move(args));
}

Param Param::OfMesh(const sharding::Mesh& mesh) {
  std::vector<Param> args;
  std::vector<Param> types;
  for (const sharding::MeshAxis& a : mesh.axes()) {
    args.push_back(Pair(String(a.name), Int(a.size)));
    types.push_back(Symbol("Auto"));
  }
  args.push_back(Keyword("axis_types", Tuple(std::move(types))));
  return Call("Mesh", std::move(args));
}

bool Param::IsJaxprTuple() const {
  if (kind_ != Kind::kTuple || items_.empty()) return false;
  for (const Param& p : items_) {
    if (p.kind_ != Kind::kJaxpr) return false;
  }
  return true;
}

namespace {

std::string JoinItems(const std::vector<Param>& items) {
  return absl::StrJoin(
      items, ", ", [](std::string* out, const Param& p) { absl::StrAppend(out, p.ToString()); });
}

}  // namespace

std::string Param::ToString() const {
  switch (kind_) {
    case Kind::kNone: return "None";
    case Kind::kBool: return int_ ? "True" : "False";
    case Kind::kInt: return absl::StrCat(int_);
    case Kind::kFloat: return internal::PythonFloat(float_);
    case Kind::kString: return internal::PythonStringRepr(text_);
    case Kind::kSymbol: return text_;
    case Kind::kDType: return std::string(NumpyName(dtype()));
    case Kind::kTuple: return absl::StrCat("(", JoinItems(items_), items_.size() == 1 ? ",)" : ")");
    case Kind::kList: return absl::StrCat("[", JoinItems(items_), "]");
    case Kind::kSet: return absl::StrCat("{", JoinItems(items_), "}");
    case Kind::kCall: {
      // PartitionSpec's repr keeps Python's one-tuple comma: P('x',).
      bool one_tuple = text_ == "P" && items_.size() == 1;
      return absl::StrCat(text_, "(", JoinItems(items_), one_tuple ? ",)" : ")");
    }
    case Kind::kKeyword: return absl::StrCat(text_, "=", items_[0].ToString());
    case Kind::kPair: return absl::StrCat(items_[0].ToString(), ": ", items_[1].ToString());
    case Kind::kJaxpr: return jaxpr_ ? PrintJaxprOneLine(jaxpr_->jaxpr) : "None";
  }
  return "";
}

bool operator==(const Param& a, const Param& b) {
  if (a.kind_ != b.kind_ || a.int_ != b.int_ || a.text_ != b.text_ || a.items_ != b.items_) {
    return false;
  }
  if (std::memcmp(&a.float_, &b.float_, sizeof(double)) != 0) return false;
  if (a.jaxpr_ == b.jaxpr_) return true;
  if (!a.jaxpr_ || !b.jaxpr_) return false;
  return *a.jaxpr_ == *b.jaxpr_;
}

namespace {

absl::Status WrongForm(absl::string_view name, absl::string_view expected, const Param& p) {
  return absl::InvalidArgumentError(
      absl::StrCat("parameter ", name, " must be ", expected, ", got ", p.ToString()));
}

}  // namespace

namespace {

// An integer, or a NumPy integer scalar as JAX prints one: np.int64(1), np.int32(-3).
const Param* IntegerOf(const Param& p) {
  if (p.kind() == Param::Kind::kInt) return &p;
  if (p.kind() != Param::Kind::kCall || p.items().size() != 1 ||
      p.items()[0].kind() != Param::Kind::kInt) {
    return nullptr;
  }
  static constexpr absl::string_view kNumpyIntegers[] = {
      "np.int8",   "np.int16",  "np.int32",  "np.int64",    "np.uint8",
      "np.uint16", "np.uint32", "np.uint64", "numpy.int64", "numpy.int32"};
  for (absl::string_view type : kNumpyIntegers) {
    if (p.text() == type) return &p.items()[0];
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<int64_t> Param::AsInt(absl::string_view name) const {
  const Param* integer = IntegerOf(*this);
  if (integer == nullptr) return WrongForm(name, "an integer", *this);
  return integer->int_;
}

absl::StatusOr<bool> Param::AsBool(absl::string_view name) const {
  if (kind_ != Kind::kBool) return WrongForm(name, "True or False", *this);
  return int_ != 0;
}

absl::StatusOr<std::vector<int64_t>> Param::AsInts(absl::string_view name) const {
  if (kind_ != Kind::kTuple && kind_ != Kind::kList) {
    return WrongForm(name, "a tuple of integers", *this);
  }
  std::vector<int64_t> out;
  for (const Param& item : items_) {
    const Param* integer = IntegerOf(item);
    if (integer == nullptr) return WrongForm(name, "a tuple of integers", *this);
    const Param& p = *integer;
    out.push_back(p.int_);
  }
  return out;
}

absl::StatusOr<DType> Param::AsDType(absl::string_view name) const {
  if (kind_ == Kind::kDType) return dtype();
  if (kind_ == Kind::kSymbol || kind_ == Kind::kString) {
    absl::StatusOr<DType> t = ParseDType(text_);
    if (t.ok() && IsArrayType(*t)) return *t;
  }
  return WrongForm(name, "a dtype such as float32", *this);
}

absl::StatusOr<std::vector<std::string>> Param::AsAxisNames(absl::string_view name) const {
  if ((kind_ == Kind::kSymbol || kind_ == Kind::kString) && internal::IsIdentifier(text_)) {
    return std::vector<std::string>{text_};
  }
  if (kind_ != Kind::kTuple) return WrongForm(name, "a tuple of axis names", *this);
  std::vector<std::string> out;
  for (const Param& p : items_) {
    if ((p.kind_ != Kind::kString && p.kind_ != Kind::kSymbol) ||
        !internal::IsIdentifier(p.text_)) {
      return WrongForm(name, "a tuple of axis names", *this);
    }
    out.push_back(p.text_);
  }
  return out;
}

absl::StatusOr<sharding::PartitionSpec> Param::AsPartitionSpec(absl::string_view name) const {
  if (kind_ != Kind::kCall || (text_ != "P" && text_ != "PartitionSpec")) {
    return WrongForm(name, "a PartitionSpec P(...)", *this);
  }
  std::vector<sharding::PartitionSpec::Entry> entries;
  for (const Param& p : items_) {
    if (p.kind_ == Kind::kNone) {
      entries.emplace_back();
    } else if (p.kind_ == Kind::kString) {
      entries.push_back({p.text_});
    } else if (p.kind_ == Kind::kTuple) {
      AXE_ASSIGN_OR_RETURN(std::vector<std::string> names, p.AsAxisNames(name));
      entries.push_back(std::move(names));
    } else {
      return WrongForm(name, "a PartitionSpec P(...)", *this);
    }
  }
  absl::StatusOr<sharding::PartitionSpec> spec = sharding::PartitionSpec::Create(entries);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter ", name, ": ", spec.status().message()));
  }
  return spec;
}

absl::StatusOr<sharding::Mesh> Param::AsMesh(absl::string_view name) const {
  if (kind_ != Kind::kCall || text_ != "Mesh") return WrongForm(name, "a Mesh(...)", *this);
  std::vector<sharding::MeshAxis> axes;
  for (const Param& p : items_) {
    if (p.kind_ == Kind::kKeyword) continue;  // axis_types=..., which axe does not model
    if (p.kind_ != Kind::kPair || p.items_[0].kind_ != Kind::kString ||
        p.items_[1].kind_ != Kind::kInt) {
      return WrongForm(name, "a Mesh('x': 4, ...)", *this);
    }
    axes.push_back({p.items_[0].text_, p.items_[1].int_});
  }
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Create(std::move(axes));
  if (!mesh.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter ", name, ": ", mesh.status().message()));
  }
  return mesh;
}

absl::StatusOr<const Param*> GetParam(const Params& params, absl::string_view primitive,
                                      absl::string_view name) {
  auto it = params.find(name);
  if (it == params.end()) {
    return absl::NotFoundError(
        absl::StrCat("primitive '", primitive, "' needs the parameter '", name, "'"));
  }
  return &it->second;
}

}  // namespace axe::ir
