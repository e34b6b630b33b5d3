#include "axe/pallas/index_map_expr.h"

#include <algorithm>
#include <optional>

#include "absl/container/inlined_vector.h"

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

// The operator with the spaces the canonical text puts around it.
absl::string_view Spaced(Op op) {
  switch (op) {
    case Op::kAdd: return " + ";
    case Op::kSub: return " - ";
    case Op::kMul: return " * ";
    case Op::kFloorDiv: return " // ";
    case Op::kMod: return " % ";
    default: return " ? ";
  }
}

absl::string_view Symbol(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kFloorDiv: return "//";
    case Op::kMod: return "%";
    case Op::kNeg: return "-";
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
    results_start_ = s_.pos();
    while (true) {
      AXE_ASSIGN_OR_RETURN(int e, ParseExpr());
      items.push_back(e);
      if (!s_.TryConsume(',')) break;
      if (s_.AtEnd()) break;  // trailing comma: "i,"
    }
    if (!s_.AtEnd())
      return s_.Error(items.size() > 1 ? "',' or end of input"
                                       : "an operator, ',' or end of input");
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
      if (!whole)
        return s_.MessageAt(n.pos, "a tuple can only be the whole result of the index map");
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

  // Appends a node; errors past kMaxTerms nodes (operands and operators).
  absl::StatusOr<int> Add(Data::Node n) {
    if (data_->nodes.size() >= IndexMapExpr::kMaxTerms) {
      return s_.MessageAt(n.pos, absl::StrCat("the index map has more than ",
                                              IndexMapExpr::kMaxTerms, " operands and operators"));
    }
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
      AXE_ASSIGN_OR_RETURN(lhs, Add({op, 0, lhs, rhs, {}, pos}));
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
      AXE_ASSIGN_OR_RETURN(lhs, Add({op, 0, lhs, rhs, {}, pos}));
    }
  }

  // One more level of parentheses or unary signs at `pos`; errors past kMaxDepth (the
  // parser recurses once per level).
  absl::Status Enter(size_t pos) {
    if (++depth_ > IndexMapExpr::kMaxDepth) {
      return s_.MessageAt(pos, absl::StrCat("the index map nests parentheses and unary signs "
                                            "more than ",
                                            IndexMapExpr::kMaxDepth, " levels deep"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int> ParseUnary() {
    s_.SkipSpace();
    // A run of signs is read in a loop: "---i" is one level per sign, without recursion.
    std::vector<size_t> negations;
    const int depth_before = depth_;
    while (true) {
      size_t at = s_.pos();
      if (s_.TryConsume('-')) {
        negations.push_back(at);
      } else if (!s_.TryConsume('+')) {
        break;
      }
      AXE_RETURN_IF_ERROR(Enter(at));
      s_.SkipSpace();
    }
    AXE_ASSIGN_OR_RETURN(int a, ParsePrimary());
    for (auto it = negations.rbegin(); it != negations.rend(); ++it) {
      AXE_ASSIGN_OR_RETURN(a, Add({Op::kNeg, 0, a, -1, {}, *it}));
    }
    depth_ = depth_before;
    return a;
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
        return s_.MessageAt(pos, absl::StrCat("unknown variable '", ElideForMessage(*id, 40),
                                              "'; the grid variables are (",
                                              absl::StrJoin(data_->params, ", "), ")"));
      }
      return Add({Op::kVar, it - data_->params.begin(), -1, -1, {}, pos});
    }
    if (s_.TryConsume('(')) {
      // The parentheses around all results do not count: the canonical text always has them.
      const bool counted = pos != results_start_;
      if (counted) AXE_RETURN_IF_ERROR(Enter(pos));
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
      if (counted) --depth_;
      if (items.size() == 1 && !comma) return items[0];
      Data::Node t{Op::kTuple, 0, -1, -1, std::move(items), pos};
      return Add(std::move(t));
    }
    return s_.Error("an integer, a variable or '('");
  }

  Scanner s_;
  int depth_ = 0;  // parentheses and unary signs open at the current point
  size_t results_start_ = std::string::npos;  // where the results begin
  std::unique_ptr<Data> data_ = std::make_unique<Data>();
};

// Whether node `child` needs parentheses as operand `side` (0: left or only, 1: right) of an
// operator of precedence `p`: lower precedence always does, equal precedence on the right
// does (the operators are left-associative); a negation under a negation does not ("--i").
bool NeedsParens(const Data& d, int child, int p, int side) {
  int c = Precedence(d.nodes[static_cast<size_t>(child)].op);
  return side == 0 ? c < p : c <= p;
}

// Appends node `root` with minimal parentheses. Iterative (an explicit stack), so a long
// sum, whose tree is as deep as it has terms, prints in constant stack space.
void Print(const Data& d, int root, std::string& out) {
  struct Step {
    int node;                  // -1: emit `text`
    absl::string_view text{};  // "(", ")" or an operator with its spaces
  };
  std::vector<Step> stack = {{root}};
  auto push_operand = [&](int child, bool parens) {
    if (parens) stack.push_back({-1, ")"});
    stack.push_back({child});
    if (parens) stack.push_back({-1, "("});
  };
  while (!stack.empty()) {
    Step step = stack.back();
    stack.pop_back();
    if (step.node < 0) {
      out.append(step.text.data(), step.text.size());
      continue;
    }
    const Data::Node& n = d.nodes[static_cast<size_t>(step.node)];
    switch (n.op) {
      case Op::kConst: absl::StrAppend(&out, n.value); break;
      case Op::kVar: out += d.params[static_cast<size_t>(n.value)]; break;
      case Op::kTuple: break;  // only at the top, printed by Canonical
      case Op::kNeg:
        out += "-";
        push_operand(n.a, n.op != d.nodes[static_cast<size_t>(n.a)].op &&
                              NeedsParens(d, n.a, Precedence(Op::kNeg) + 1, 0));
        break;
      default: {
        int p = Precedence(n.op);
        push_operand(n.b, NeedsParens(d, n.b, p, 1));
        stack.push_back({-1, Spaced(n.op)});
        push_operand(n.a, NeedsParens(d, n.a, p, 0));
        break;
      }
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

// Python's a // b and a % b for b != 0 (nullopt: the quotient INT64_MIN // -1 overflows).
std::optional<int64_t> FloorDivOrMod(Op op, int64_t a, int64_t b) {
  if (b == -1) {  // INT64_MIN / -1 and INT64_MIN % -1 are undefined in C++
    if (op == Op::kMod) return int64_t{0};
    return CheckedSub(0, a);
  }
  return op == Op::kFloorDiv ? FloorDiv(a, b) : FloorMod(a, b);
}

// The value of one operator node from its operands' values.
absl::StatusOr<int64_t> Apply(const Data::Node& n, int64_t a, int64_t b) {
  std::optional<int64_t> r;
  switch (n.op) {
    case Op::kNeg: r = CheckedSub(0, a); break;
    case Op::kAdd: r = CheckedAdd(a, b); break;
    case Op::kSub: r = CheckedSub(a, b); break;
    case Op::kMul: r = CheckedMul(a, b); break;
    case Op::kFloorDiv:
    case Op::kMod:
      if (b == 0) return absl::InvalidArgumentError("integer division or modulo by zero");
      r = FloorDivOrMod(n.op, a, b);
      break;
    default: return absl::InternalError("not an operator");
  }
  if (!r.has_value()) {
    return absl::InvalidArgumentError(
        n.op == Op::kNeg ? absl::StrCat("int64 overflow in -(", a, ")")
                         : absl::StrCat("int64 overflow in ", a, " ", Symbol(n.op), " ", b));
  }
  return *r;
}

// Every node's value at `args`. The parser appends a node after its operands, left operand
// first, so one pass in order computes them in Python's evaluation order, without recursion.
absl::Status EvalAll(const Data& d, absl::Span<const int64_t> args,
                     absl::InlinedVector<int64_t, 16>& values) {
  values.resize(d.nodes.size());
  for (size_t k = 0; k < d.nodes.size(); ++k) {
    const Data::Node& n = d.nodes[k];
    switch (n.op) {
      case Op::kConst: values[k] = n.value; break;
      case Op::kVar: values[k] = args[static_cast<size_t>(n.value)]; break;
      case Op::kTuple: values[k] = 0; break;  // the whole result: its items are the results
      default: {
        int64_t a = values[static_cast<size_t>(n.a)];
        int64_t b = n.b >= 0 ? values[static_cast<size_t>(n.b)] : 0;
        AXE_ASSIGN_OR_RETURN(values[k], Apply(n, a, b));
      }
    }
  }
  return absl::OkStatus();
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
    return absl::InvalidArgumentError(absl::StrCat(
        "index map ", data_->text, " takes ", data_->params.size(), " values, got ", args.size()));
  }
  absl::InlinedVector<int64_t, 16> values;
  AXE_RETURN_IF_ERROR(EvalAll(*data_, args, values));
  BlockIndices out;
  for (int r : data_->results) out.push_back(values[static_cast<size_t>(r)]);
  return out;
}

IndexMap IndexMapExpr::ToIndexMap() const {
  IndexMapExpr self = *this;
  return IndexMap::FromFunction(
      ToString(), static_cast<int>(data_->params.size()),
      [self](absl::Span<const int64_t> g, BlockIndices* out) -> absl::Status {
        AXE_ASSIGN_OR_RETURN(*out, self.Evaluate(g));
        return absl::OkStatus();
      });
}

std::string IndexMapExpr::ToString() const { return data_->text; }

}  // namespace axe::pallas
