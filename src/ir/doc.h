// A Wadler/Lindig-style pretty-printing document, laid out exactly like JAX's
// pretty_printer (internal to src/ir): a group prints flat when its own flat text fits in the
// rest of the line (what follows the group is not measured); otherwise its breaks become
// newlines indented by the enclosing nests.
#ifndef AXE_SRC_IR_DOC_H_
#define AXE_SRC_IR_DOC_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace axe::ir::internal {

struct DocNode;
using Doc = std::shared_ptr<const DocNode>;

struct DocNode {
  enum class Kind { kNil, kText, kBreak, kConcat, kNest, kGroup };
  Kind kind = Kind::kNil;
  std::string text;           // kText; kBreak: the flat text
  int indent = 0;             // kNest
  std::vector<Doc> children;  // kConcat; kNest and kGroup: one
  size_t flat_size = 0;       // the length printed flat (saturating)
};

Doc Nil();
Doc Text(std::string text);
Doc Brk(std::string flat_text = " ");
Doc Concat(std::vector<Doc> docs);
Doc Nest(int indent, Doc doc);
Doc Group(Doc doc);
Doc Join(const Doc& separator, const std::vector<Doc>& docs);

// Lays the document out in `width` columns.
std::string Format(const Doc& doc, size_t width);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_DOC_H_
