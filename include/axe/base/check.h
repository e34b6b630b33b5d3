// Internal invariant checks. A failed AXE_CHECK is a bug in axe, never a user-input
// error (those are reported through absl::Status): it prints the message and aborts.
//
//   AXE_CHECK(extent > 0) << "iter " << i << " has extent " << extent;
#ifndef AXE_BASE_CHECK_H_
#define AXE_BASE_CHECK_H_

#include <sstream>

namespace axe::internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets the macro below be used as a statement that accepts `<< message`.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace axe::internal

#define AXE_CHECK(condition)                 \
  (condition) ? (void)0                      \
              : ::axe::internal::Voidify() & \
                    ::axe::internal::CheckFailure(__FILE__, __LINE__, #condition).stream()

#endif  // AXE_BASE_CHECK_H_
