// Test support: a small XML well-formedness checker for the pictures (one root element,
// balanced and properly nested tags, quoted and unique attributes, known entities, no
// stray '<' or '&'). Returns "" when `text` is well-formed, else what is wrong and where.
#ifndef AXE_TESTS_PICTURE_XML_CHECK_H_
#define AXE_TESTS_PICTURE_XML_CHECK_H_

#include <string>

namespace axe::picture::testing {

std::string CheckXml(const std::string& text);

// The number of elements called `name` (well-formed input).
int CountElements(const std::string& text, const std::string& name);

}  // namespace axe::picture::testing

#endif  // AXE_TESTS_PICTURE_XML_CHECK_H_
