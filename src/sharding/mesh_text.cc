// Mesh::Parse: `Mesh('x': 2, ...)`, `{x:2, ...}` and `x=2,y=2`, each optionally followed by
// `devices=[...]` and `axis_types=(...)` entries (in either order) after the axes; and JAX's
// repr, `Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Auto, Auto))`.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/mesh.h"
#include "python_text.h"

namespace axe::sharding {
namespace {

struct MeshText {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> devices;
  std::vector<MeshAxisType> axis_types;
  // JAX's repr names the axes in two tuples (with the text positions of the keywords).
  std::optional<std::vector<int64_t>> axis_sizes;
  std::optional<std::vector<std::string>> axis_names;
  size_t sizes_pos = 0, names_pos = 0;
};

// A Python tuple `(a, b)`, `(a,)` or `()` whose items `read_item` reads (at most kMaxAxes).
template <typename ReadItem>
absl::Status ReadTuple(Scanner& s, ReadItem read_item) {
  if (!s.TryConsume('(')) return s.Error("'('");
  if (s.TryConsume(')')) return absl::OkStatus();
  for (size_t count = 1;; ++count) {
    if (count > Mesh::kMaxAxes) return s.Error("at most 32 entries");
    AXE_RETURN_IF_ERROR(read_item());
    const bool comma = s.TryConsume(',');
    if (s.TryConsume(')')) return absl::OkStatus();
    if (!comma) return s.Error("',' or ')'");
  }
}

absl::Status ReadAxisSizes(Scanner& s, std::vector<int64_t>& out) {
  return ReadTuple(s, [&]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(int64_t size, s.ReadInt());
    out.push_back(size);
    return absl::OkStatus();
  });
}

absl::Status ReadAxisNames(Scanner& s, std::vector<std::string>& out) {
  return ReadTuple(s, [&]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(std::optional<std::string> name, ReadName(s, /*allow_bare=*/false));
    if (!name) return s.Error("a quoted mesh axis name");
    out.push_back(*std::move(name));
    return absl::OkStatus();
  });
}

// `(Auto, Explicit)`, `(AxisType.Auto,)`, also without parentheses in the bare form.
absl::Status ReadAxisTypes(Scanner& s, std::vector<MeshAxisType>& out) {
  const bool parenthesized = s.TryConsume('(');
  if (parenthesized && s.TryConsume(')')) return absl::OkStatus();
  while (true) {
    if (out.size() >= Mesh::kMaxAxes) return s.Error("at most 32 axis types");
    s.TryConsume("AxisType.");
    if (s.TryConsume("Auto")) {
      out.push_back(MeshAxisType::kAuto);
    } else if (s.TryConsume("Explicit")) {
      out.push_back(MeshAxisType::kExplicit);
    } else if (s.TryConsume("Manual")) {
      out.push_back(MeshAxisType::kManual);
    } else {
      return s.Error("an axis type (Auto, Explicit or Manual)");
    }
    if (!parenthesized) return absl::OkStatus();
    if (s.TryConsume(',')) {
      if (s.TryConsume(')')) return absl::OkStatus();
      continue;
    }
    if (s.TryConsume(')')) return absl::OkStatus();
    return s.Error("',' or ')'");
  }
}

// The ids after `devices=`: `[0, 2, 1, 3]`, or (bare form only) `0,2,1,3` to the end.
absl::Status ReadDevices(Scanner& s, bool bracketed_only, std::vector<int64_t>& out) {
  const bool bracketed = s.TryConsume('[');
  if (!bracketed && bracketed_only) return s.Error("'['");
  if (bracketed && s.TryConsume(']')) return absl::OkStatus();
  while (true) {
    if (static_cast<int64_t>(out.size()) >= Mesh::kMaxDevices) {
      return s.MessageAt(s.pos(), absl::StrCat("more than ", Mesh::kMaxDevices, " device ids"));
    }
    AXE_ASSIGN_OR_RETURN(int64_t id, s.ReadInt());
    out.push_back(id);
    if (s.TryConsume(',')) {
      if (bracketed && s.TryConsume(']')) return absl::OkStatus();
      continue;
    }
    if (!bracketed) return absl::OkStatus();
    if (s.TryConsume(']')) return absl::OkStatus();
    return s.Error("',' or ']'");
  }
}

// Reads the value of the keyword `name` (after its '='). False when `name` is no keyword.
absl::StatusOr<bool> ReadKeyword(Scanner& s, const std::string& name, size_t entry_pos,
                                 bool bracketed_only, MeshText& out) {
  const auto twice = [&] { return s.MessageAt(entry_pos, absl::StrCat(name, "= given twice")); };
  if (name == "devices") {
    if (!out.devices.empty()) return twice();
    AXE_RETURN_IF_ERROR(ReadDevices(s, bracketed_only, out.devices));
  } else if (name == "axis_types") {
    if (!out.axis_types.empty()) return twice();
    AXE_RETURN_IF_ERROR(ReadAxisTypes(s, out.axis_types));
  } else if ((name == "axis_sizes" || name == "axis_names") && s.Peek() != '(') {
    return false;  // an axis of that name: `axis_sizes=2`
  } else if (name == "axis_sizes") {
    if (out.axis_sizes) return twice();
    out.sizes_pos = entry_pos;
    AXE_RETURN_IF_ERROR(ReadAxisSizes(s, out.axis_sizes.emplace()));
  } else if (name == "axis_names") {
    if (out.axis_names) return twice();
    out.names_pos = entry_pos;
    AXE_RETURN_IF_ERROR(ReadAxisNames(s, out.axis_names.emplace()));
  } else {
    return false;
  }
  return true;
}

// JAX's axis_sizes= and axis_names= tuples into `out.axes`: both or neither, of one length,
// and not beside axes written `'x': 2`.
absl::Status PairAxisTuples(const Scanner& s, MeshText& out) {
  if (!out.axis_sizes && !out.axis_names) return absl::OkStatus();
  if (!out.axis_sizes || !out.axis_names) {
    return s.MessageAt(out.axis_sizes ? out.sizes_pos : out.names_pos,
                       "axis_sizes= and axis_names= are given together");
  }
  if (!out.axes.empty()) {
    return s.MessageAt(out.sizes_pos, "axis_sizes= with axes written as 'name': size");
  }
  if (out.axis_sizes->size() != out.axis_names->size()) {
    return s.MessageAt(out.names_pos, absl::StrCat(out.axis_names->size(), " axis_names for ",
                                                   out.axis_sizes->size(), " axis_sizes"));
  }
  for (size_t j = 0; j < out.axis_sizes->size(); ++j) {
    out.axes.push_back({(*out.axis_names)[j], (*out.axis_sizes)[j]});
  }
  return absl::OkStatus();
}

// Entries up to `close` ('\0' for the end of the text). Each is `name sep size` (sep ':' or
// '='; names quoted or bare) or, last, `devices=...`.
absl::StatusOr<MeshText> ReadEntries(Scanner& s, char close) {
  MeshText out;
  auto at_close = [&] { return close == '\0' ? s.AtEnd() : s.TryConsume(close); };
  if (at_close()) return out;
  bool keywords_only = false;
  while (true) {
    const size_t entry_pos = s.pos();
    AXE_ASSIGN_OR_RETURN(std::optional<std::string> name, ReadName(s, /*allow_bare=*/true));
    if (!name) return s.Error("a mesh axis name");
    const size_t after_name = s.pos();
    bool keyword = false;
    if (s.TryConsume('=')) {
      AXE_ASSIGN_OR_RETURN(keyword, ReadKeyword(s, *name, entry_pos, close != '\0', out));
      if (!keyword) s.set_pos(after_name);  // an axis written name=size
    }
    if (keyword) {
      const bool comma = s.TryConsume(',');
      if (at_close()) return out;
      if (comma) {
        keywords_only = true;
        continue;
      }
      return s.Error(close == '\0' ? "end of input"
                                   : absl::StrCat("'", std::string(1, close), "'"));
    }
    if (keywords_only) {
      return s.ErrorAt(entry_pos,
                       "devices=, axis_types=, axis_sizes= or axis_names= (after the axes)");
    }
    if (!s.TryConsume(':') && !s.TryConsume('=')) return s.Error("':' or '='");
    const size_t size_pos = s.pos();
    AXE_ASSIGN_OR_RETURN(int64_t size, s.ReadInt());
    if (out.axes.size() >= Mesh::kMaxAxes) {
      return s.MessageAt(entry_pos, absl::StrCat("more than ", Mesh::kMaxAxes, " mesh axes"));
    }
    if (size < 1) {
      return s.MessageAt(
          size_pos, absl::StrCat("mesh axis '", *name, "' has size ", size, " (must be >= 1)"));
    }
    out.axes.push_back({*std::move(name), size});
    const bool comma = s.TryConsume(',');
    if (at_close()) return out;
    if (!comma) {
      return s.Error(close == '\0' ? "',' or end of input"
                                   : absl::StrCat("',' or '", std::string(1, close), "'"));
    }
  }
}

}  // namespace

absl::StatusOr<Mesh> Mesh::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh text of ", text.size(), " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text);
  MeshText parsed;
  s.SkipSpace();
  const size_t start = s.pos();
  if (s.TryConsume("Mesh") && s.TryConsume('(')) {
    // JAX prints the mesh with no axes as `Mesh(, axis_types=())`.
    if (s.Peek() == ',') {
      const size_t comma = s.pos();
      s.TryConsume(',');
      if (s.Peek() == ')' || s.Peek() == ',') return s.ErrorAt(comma, "a mesh axis");
    }
    AXE_ASSIGN_OR_RETURN(parsed, ReadEntries(s, ')'));
  } else if (s.set_pos(start), s.TryConsume('{')) {
    AXE_ASSIGN_OR_RETURN(parsed, ReadEntries(s, '}'));
  } else {
    AXE_ASSIGN_OR_RETURN(parsed, ReadEntries(s, '\0'));
  }
  if (!s.AtEnd()) return s.Error("end of input");
  AXE_RETURN_IF_ERROR(PairAxisTuples(s, parsed));
  return Create(std::move(parsed.axes), std::move(parsed.devices), std::move(parsed.axis_types));
}

}  // namespace axe::sharding
