#include "axe/pallas/program.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "program_context.h"

namespace axe::pallas {
namespace internal {

ProgramContext*& CurrentProgram() {
  thread_local ProgramContext* current = nullptr;
  return current;
}

}  // namespace internal

namespace {

internal::ProgramContext& Context(const char* function) {
  internal::ProgramContext* ctx = internal::CurrentProgram();
  AXE_CHECK(ctx != nullptr) << function << " called outside a Pallas kernel";
  return *ctx;
}

void Fail(internal::ProgramContext& ctx, absl::Status error) {
  if (ctx.error->ok()) *ctx.error = std::move(error);
}

// The axis index (Python-style negative axes), or -1 after recording an error.
int Resolve(internal::ProgramContext& ctx, int axis) {
  int rank = ctx.grid->rank();
  int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    Fail(ctx, absl::InvalidArgumentError(absl::StrCat("Axis ", axis, " is out of bounds for grid ",
                                                      ctx.grid->ToString())));
    return -1;
  }
  return a;
}

int Resolve(internal::ProgramContext& ctx, absl::string_view name) {
  int a = ctx.grid->AxisOf(name);
  if (a < 0) {
    Fail(ctx, absl::InvalidArgumentError(
                  ctx.grid->named() ? absl::StrCat("Grid ", ctx.grid->ToString(),
                                                   " has no axis named '", name, "'")
                                    : absl::StrCat("Grid ", ctx.grid->ToString(),
                                                   " has no axis names (looked up '", name, "')")));
  }
  return a;
}

}  // namespace

int64_t ProgramId(int axis) {
  internal::ProgramContext& ctx = Context("ProgramId");
  int a = Resolve(ctx, axis);
  return a < 0 ? 0 : ctx.point[a];
}

int64_t NumPrograms(int axis) {
  internal::ProgramContext& ctx = Context("NumPrograms");
  int a = Resolve(ctx, axis);
  return a < 0 ? 0 : ctx.grid->size(a);
}

int64_t ProgramId(absl::string_view axis_name) {
  internal::ProgramContext& ctx = Context("ProgramId");
  int a = Resolve(ctx, axis_name);
  return a < 0 ? 0 : ctx.point[a];
}

int64_t NumPrograms(absl::string_view axis_name) {
  internal::ProgramContext& ctx = Context("NumPrograms");
  int a = Resolve(ctx, axis_name);
  return a < 0 ? 0 : ctx.grid->size(a);
}

}  // namespace axe::pallas
