#include "axe/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace axe::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": axe internal check failed: " << condition << ": ";
}

CheckFailure::~CheckFailure() {
  std::fputs(stream_.str().c_str(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace axe::internal
