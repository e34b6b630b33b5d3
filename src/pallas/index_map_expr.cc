#include "axe/pallas/index_map_expr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe::pallas {

struct IndexMapExpr::Data {
  enum class Op : uint8_t { kConst, kVar, kNeg, kAdd, kSub, kMul, kFloorDiv, kMod, kTuple };
  struct Node {
    Op op;
    int64_t value = 0;  // the constant, or the parameter index
    int a = -1, b = -1;
    std::vector<int> items;  // kTuple
    size_t pos = 0;
  };
  std::vector<std::string> params;
  std::vector<Node> nodes;
  std::vector<int> results;
  std::string text;  // canonical, computed once
};

namespace {

using Data = IndexMapExpr::Data;
using Op = Data::Op;

int Precedence(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kSub: return 1;
    case Op::kMul:
    case Op::kFloorDiv:
    case Op::kMod: return 2;
    case Op::kNeg: return 3;
    default: return 4;
  }
}

absl::string_view Symbol(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kFloorDiv: return "//";
    case Op::kMod: return "%";
    default: return "?";
  }
}

class Parser {
 public:
  explicit Parser(absl::string_view text) : s_(text) {}

  absl::StatusOr<std::shared_ptr<const Data>> Run() {
    AXE_RETURN_IF_ERROR(ParseParams());
    std::vector<int> items;
    if (s_.AtEnd()) return s_.Error("the index map's results");
    while (true) {
      AXE_ASSIGN_OR_RETURN(int e, ParseExpr());
      items.push_back(e);
      if (!s_.TryConsume(',')) break;
      if (s_.AtEnd()) break;  // trailing comma: "i,"
    }
    if (!s_.AtEnd()) return s_.Error(items.size() > 1 ? "',' or end of input" : "an operator, ',' or end of input");
    if (items.size() == 1 && data_->nodes[static_cast<size_t>(items[0])].op == Op::kTuple) {
      data_->results = data_->nodes[static_cast<size_t>(items[0])].items;
    } else {
      data_->results = items;
    }
    // A tuple anywhere else is an error.
    for (size_t k = 0; k < data_->nodes.size(); ++k) {
      const Data::Node& n = data_->nodes[k];
      if (n.op != Op::kTuple) continue;
      bool whole = items.size() == 1 && items[0] == static_cast<int>(k);
      if (!whole) return s_.MessageAt(n.pos, "a tuple can only be the whole result of the index map");
    }
    return std::shared_ptr<const Data>(std::move(data_));
  }

 private:
  absl::Status ParseParams() {
    std::optional<absl::string_view> id = s_.TryIdent();
    if (id.has_value() && *id == "lambda") {
      // lambda i, j: ...
      if (!s_.TryConsume(':')) {
        while (true) {
          AXE_RETURN_IF_ERROR(ReadParam());
          if (!s_.TryConsume(',')) break;
        }
        AXE_RETURN_IF_ERROR(s_.Expect(':'));
      }
      return absl::OkStatus();
    }
    if (id.has_value()) {
      s_.set_pos(s_.pos() - id->size());
      AXE_RETURN_IF_ERROR(ReadParam());
    } else {
      if (!s_.TryConsume('(')) return s_.Error("'(' (the grid variables), a variable or 'lambda'");
      if (!s_.TryConsume(')')) {
        while (true) {
          AXE_RETURN_IF_ERROR(ReadParam());
          if (!s_.TryConsume(',')) break;
          if (s_.Peek() == ')') break;
        }
        AXE_RETURN_IF_ERROR(s_.Expect(')'));
      }
    }
    if (!s_.TryConsume("->")) return s_.Error("'->'");
    return absl::OkStatus();
  }

  absl::Status ReadParam() {
    s_.SkipSpace();
    size_t pos = s_.pos();
    std::optional<absl::string_view> id = s_.TryIdent();
    if (!id.has_value()) return s_.Error("a variable name");
    if (std::find(data_->params.begin(), data_->params.end(), *id) != data_->params.end()) {
      return s_.MessageAt(pos, absl::StrCat("variable '", *id, "' is repeated"));
    }
    if (*id == "lambda") return s_.MessageAt(pos, "'lambda' cannot be a variable name");
    data_->params.emplace_back(*id);
    return absl::OkStatus();
  }

  int Add(Data::Node n) {
    data_->nodes.push_back(std::move(n));
    return static_cast<int>(data_->nodes.size()) - 1;
  }

  absl::StatusOr<int> ParseExpr() {
    AXE_ASSIGN_OR_RETURN(int lhs, ParseTerm());
    while (true) {
      s_.SkipSpace();
      size_t pos = s_.pos();
      Op op;
      if (s_.Peek() == '+') {
        op = Op::kAdd;
      } else if (s_.Peek() == '-') {
        op = Op::kSub;
      } else {
        return lhs;
      }
      s_.set_pos(pos + 1);
      AXE_ASSIGN_OR_RETURN(int rhs, ParseTerm());
      lhs = Add({op, 0, lhs, rhs, {}, pos});
    }
  }

  absl::StatusOr<int> ParseTerm() {
    AXE_ASSIGN_OR_RETURN(int lhs, ParseUnary());
    while (true) {
      s_.SkipSpace();
      size_t pos = s_.pos();
      Op op;
      if (s_.TryConsume("//")) {
        op = Op::kFloorDiv;
      } else if (s_.Peek() == '/') {
        return s_.MessageAt(pos, "'/' is not an index-map operator; use '//' (floor division)");
      } else if (s_.TryConsume('*')) {
        op = Op::kMul;
      } else if (s_.TryConsume('%')) {
        op = Op::kMod;
      } else {
        return lhs;
      }
      AXE_ASSIGN_OR_RETURN(int rhs, ParseUnary());
      lhs = Add({op, 0, lhs, rhs, {}, pos});
    }
  }

  absl::StatusOr<int> ParseUnary() {
    s_.SkipSpace();
    size_t pos = s_.pos();
    if (s_.TryConsume('-')) {
      AXE_ASSIGN_OR_RETURN(int a, ParseUnary());
      return Add({Op::kNeg, 0, a, -1, {}, pos});
    }
    if (s_.TryConsume('+')) return ParseUnary();
    return ParsePrimary();
  }

  absl::StatusOr<int> ParsePrimary() {
    s_.SkipSpace();
    size_t pos = s_.pos();
    char c = s_.Peek();
    if (c >= '0' && c <= '9') {
      AXE_ASSIGN_OR_RETURN(int64_t v, s_.ReadNonNegativeInt());
      return Add({Op::kConst, v, -1, -1, {}, pos});
    }
    if (std::optional<absl::string_view> id = s_.TryIdent(); id.has_value()) {
      auto it = std::find(data_->params.begin(), data_->params.end(), *id);
      if (it == data_->params.end()) {
        return s_.MessageAt(pos, absl::StrCat("unknown variable '", *id, "'; the grid variables are (",
                                              absl::StrJoin(data_->params, ", "), ")"));
      }
      return Add({Op::kVar, it - data_->params.begin(), -1, -1, {}, pos});
    }
    if (s_.TryConsume('(')) {
      std::vector<int> items;
      bool comma = false;
      if (!s_.TryConsume(')')) {
        while (true) {
          AXE_ASSIGN_OR_RETURN(int e, ParseExpr());
          items.push_back(e);
          if (!s_.TryConsume(',')) break;
          comma = true;
          if (s_.Peek() == ')') break;
        }
        AXE_RETURN_IF_ERROR(s_.Expect(')'));
      }
      if (items.size() == 1 && !comma) return items[0];
      Data::Node t{Op::kTuple, 0, -1, -1, std::move(items), pos};
      return Add(std::move(t));
    }
    return s_.Error("an integer, a variable or '('");
  }

  Scanner s_;
  std::unique_ptr<Data> data_ = std::make_unique<Data>();
};

void Print(const Data& d, int k, std::string& out) {
  const Data::Node& n = d.nodes[static_cast<size_t>(k)];
  auto child = [&](int c, bool parens) {
    if (parens) out += "(";
    Print(d, c, out);
    if (parens) out += ")";
  };
  switch (n.op) {
    case Op::kConst: absl::StrAppend(&out, n.value); return;
    case Op::kVar: out += d.params[static_cast<size_t>(n.value)]; return;
    case Op::kNeg:
      out += "-";
      child(n.a, Precedence(d.nodes[static_cast<size_t>(n.a)].op) < 4);
      return;
    case Op::kTuple: return;  // only at the top, printed by ToString
    default: {
      int p = Precedence(n.op);
      child(n.a, Precedence(d.nodes[static_cast<size_t>(n.a)].op) < p);
      absl::StrAppend(&out, " ", Symbol(n.op), " ");
      child(n.b, Precedence(d.nodes[static_cast<size_t>(n.b)].op) <= p);
      return;
    }
  }
}

std::string Canonical(const Data& d) {
  std::string out = absl::StrCat("(", absl::StrJoin(d.params, ", "), ") -> (");
  for (size_t r = 0; r < d.results.size(); ++r) {
    if (r > 0) out += ", ";
    Print(d, d.results[r], out);
  }
  return out + ")";
}

absl::StatusOr<int64_t> Eval(const Data& d, int k, absl::Span<const int64_t> args) {
  const Data::Node& n = d.nodes[static_cast<size_t>(k)];
  switch (n.op) {
    case Op::kConst: return n.value;
    case Op::kVar: return args[static_cast<size_t>(n.value)];
    case Op::kTuple: return absl::InternalError("tuple inside an expression");
    default: break;
  }
  auto overflow = [&]() {
    return absl::InvalidArgumentError("int64 overflow");
  };
  AXE_ASSIGN_OR_RETURN(int64_t a, Eval(d, n.a, args));
  if (n.op == Op::kNeg) {
    std::optional<int64_t> r = CheckedSub(0, a);
    if (!r.has_value()) return overflow();
    return *r;
  }
  AXE_ASSIGN_OR_RETURN(int64_t b, Eval(d, n.b, args));
  std::optional<int64_t> r;
  switch (n.op) {
    case Op::kAdd: r = CheckedAdd(a, b); break;
    case Op::kSub: r = CheckedSub(a, b); break;
    case Op::kMul: r = CheckedMul(a, b); break;
    case Op::kFloorDiv:
    case Op::kMod:
      if (b == 0) {
        return absl::InvalidArgumentError("integer division or modulo by zero");
      }
      if (b == -1) {
        if (n.op == Op::kMod) return int64_t{0};
        r = CheckedSub(0, a);
      } else {
        r = n.op == Op::kFloorDiv ? FloorDiv(a, b) : FloorMod(a, b);
      }
      break;
    default: break;
  }
  if (!r.has_value()) return overflow();
  return *r;
}

}  // namespace

absl::StatusOr<IndexMapExpr> IndexMapExpr::Parse(absl::string_view text) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const Data> data, Parser(text).Run());
  auto d = std::const_pointer_cast<Data>(data);
  d->text = Canonical(*d);
  return IndexMapExpr(std::move(data));
}

IndexMapExpr IndexMapExpr::Identity(int rank) {
  static constexpr absl::string_view kNames[] = {"i", "j", "k", "l", "m", "n"};
  auto d = std::make_shared<Data>();
  for (int a = 0; a < rank; ++a) {
    d->params.push_back(rank <= 6 ? std::string(kNames[a]) : absl::StrCat("a", a));
    d->nodes.push_back({Op::kVar, a, -1, -1, {}, 0});
    d->results.push_back(a);
  }
  d->text = Canonical(*d);
  return IndexMapExpr(std::move(d));
}

const std::vector<std::string>& IndexMapExpr::params() const { return data_->params; }

int IndexMapExpr::num_results() const { return static_cast<int>(data_->results.size()); }

absl::StatusOr<BlockIndices> IndexMapExpr::Evaluate(absl::Span<const int64_t> args) const {
  if (args.size() != data_->params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("index map ", data_->text, " takes ", data_->params.size(),
                                                   " values, got ", args.size()));
  }
  BlockIndices out;
  for (int r : data_->results) {
    AXE_ASSIGN_OR_RETURN(int64_t v, Eval(*data_, r, args));
    out.push_back(v);
  }
  return out;
}

IndexMap IndexMapExpr::ToIndexMap() const {
  IndexMapExpr self = *this;
  return IndexMap::FromFunction(ToString(), static_cast<int>(data_->params.size()),
                                [self](absl::Span<const int64_t> g, BlockIndices* out) -> absl::Status {
                                  AXE_ASSIGN_OR_RETURN(*out, self.Evaluate(g));
                                  return absl::OkStatus();
                                });
}

std::string IndexMapExpr::ToString() const { return data_->text; }

}  // namespace axe::pallas
