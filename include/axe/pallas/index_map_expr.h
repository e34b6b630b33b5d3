// A small language for index maps typed on the command line:
//
//   (i, j) -> (i, j)            lambda i, j: (2*i, 3*j)         (i) -> i // 2
//   (i, j, k) -> (i, k)         () -> (0, 0)                    (i) -> ()
//
// Results are integer expressions over the parameters with + - * // % (Python's floor
// division and modulo: -7 // 2 == -4, -7 % 2 == 1), unary minus, parentheses and
// non-negative integer constants. A single result needs no tuple: "(i) -> 4*i". Parse errors
// name the 0-based position; evaluation reports division by zero and int64 overflow.
//
// Limits: at most kMaxTerms operands and operators (the length of an index map, counted so
// that printing preserves it: spaces, parentheses and unary '+' do not count), and
// parentheses and unary signs nested at most kMaxDepth levels deep (the parentheses around
// all results excepted). Printing and evaluation use no recursion, so every accepted
// expression prints and evaluates, and its printed text parses back to an equal expression.
//
//   IndexMapExpr e = *IndexMapExpr::Parse("(i,j)->(2*i, j//2)");
//   e.ToString();            // "(i, j) -> (2 * i, j // 2)"  (canonical; parses back)
//   *e.Evaluate({3, 5});     // {6, 2}
//   BlockSpec({2, 3}, e.ToIndexMap());
#ifndef AXE_PALLAS_INDEX_MAP_EXPR_H_
#define AXE_PALLAS_INDEX_MAP_EXPR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/pallas/index_map.h"

namespace axe::pallas {

class IndexMapExpr {
 public:
  // The most operands and operators Parse accepts ("(i) -> 2 * i + 1" has 5).
  static constexpr size_t kMaxTerms = 65536;
  // The deepest nesting of parentheses and unary signs ("-(-(i))" is 4 levels) Parse accepts.
  static constexpr int kMaxDepth = 256;

  static absl::StatusOr<IndexMapExpr> Parse(absl::string_view text);
  // "(i, j) -> (i, j)" for rank 2: parameters i, j, k, l, m, n (a0, a1, ... beyond 6).
  static IndexMapExpr Identity(int rank);

  const std::vector<std::string>& params() const;
  int num_results() const;

  // The results at `args` (one per parameter; checked: a count mismatch is an error).
  absl::StatusOr<BlockIndices> Evaluate(absl::Span<const int64_t> args) const;
  // An IndexMap named by ToString(), taking params().size() grid indices.
  IndexMap ToIndexMap() const;

  // Canonical text with minimal parentheses and single spaces around binary operators.
  std::string ToString() const;

  friend bool operator==(const IndexMapExpr& a, const IndexMapExpr& b) {
    return a.ToString() == b.ToString();
  }
  template <typename H>
  friend H AbslHashValue(H h, const IndexMapExpr& e) {
    return H::combine(std::move(h), e.ToString());
  }
  friend std::ostream& operator<<(std::ostream& os, const IndexMapExpr& e) {
    return os << e.ToString();
  }

  struct Data;  // the parsed tree (shared, immutable)

 private:
  explicit IndexMapExpr(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

}  // namespace axe::pallas

#endif  // AXE_PALLAS_INDEX_MAP_EXPR_H_
