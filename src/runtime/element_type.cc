#include "axe/runtime/element_type.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::runtime {
namespace {

struct TypeSize {
  const char* name;
  int bits;
};

constexpr TypeSize kTypes[] = {
    {"pred", 8},     {"s8", 8},           {"u8", 8},          {"f8e4m3fn", 8},   {"f8e5m2", 8},
    {"f8e4m3", 8},   {"f8e4m3fnuz", 8},   {"f8e5m2fnuz", 8},  {"f8e4m3b11fnuz", 8}, {"f8e3m4", 8},
    {"f8e8m0fnu", 8}, {"s16", 16},        {"u16", 16},        {"f16", 16},       {"bf16", 16},
    {"s32", 32},     {"u32", 32},         {"f32", 32},        {"s64", 64},       {"u64", 64},
    {"f64", 64},     {"c64", 64},         {"c128", 128},      {"s4", 4},         {"u4", 4},
    {"s2", 2},       {"u2", 2},           {"s1", 1},          {"u1", 1},         {"f4e2m1fn", 4},
};

}  // namespace

absl::StatusOr<int> ElementBytes(absl::string_view dtype) {
  for (const TypeSize& t : kTypes) {
    if (dtype != t.name) continue;
    if (t.bits < 8) {
      return absl::UnimplementedError(absl::StrCat(
          "sub-byte packed type '", dtype, "' (", t.bits,
          " bits per element) is not supported by the relayout engine yet; supported element sizes are "
          "1, 2, 4, 8 and 16 bytes"));
    }
    return t.bits / 8;
  }
  std::vector<std::string> names;
  for (const TypeSize& t : kTypes) {
    if (t.bits >= 8) names.emplace_back(t.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", dtype, "'; known: ", absl::StrJoin(names, ", ")));
}

absl::Status CheckElementBytes(int bytes) {
  if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "element size ", bytes, " bytes is not supported: the relayout engine moves elements of 1, 2, 4, 8 or 16 "
      "bytes (sub-byte packed types such as s4/u4 are not supported yet)"));
}

}  // namespace axe::runtime
