// The parsers of Shardy's mesh and sharding attributes (see shardy.h for the grammar by
// example). Bounded: text length, dims, axis refs and ids; errors name the position.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/shardy.h"

namespace axe::sharding {

class ShardyParser {
 public:
  explicit ShardyParser(absl::string_view text) : scan_(text) {}

  absl::Status CheckLength(size_t max) const {
    if (scan_.text().size() <= max) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("the text has ", scan_.text().size(),
                                                   " characters; at most ", max, " are read"));
  }

  // `sdy.mesh @name = <...>`, `@name = <...>`, `#sdy.mesh<...>`, `mesh<...>` or `<...>`.
  absl::StatusOr<ShardyMesh> MeshDeclaration() {
    ShardyMesh mesh;
    scan_.TryConsume("sdy.mesh");
    if (scan_.TryConsume('@')) {
      AXE_ASSIGN_OR_RETURN(mesh.name, Symbol());
      AXE_RETURN_IF_ERROR(scan_.Expect('='));
    }
    if (!scan_.TryConsume("#sdy.mesh")) scan_.TryConsume("mesh");
    AXE_RETURN_IF_ERROR(MeshAttr(mesh));
    AXE_RETURN_IF_ERROR(End());
    return mesh;
  }

  absl::StatusOr<ShardySharding> Sharding() {
    ShardySharding s;
    scan_.TryConsume("#sdy.sharding");
    AXE_RETURN_IF_ERROR(scan_.Expect('<'));
    if (scan_.TryConsume('@')) {
      AXE_ASSIGN_OR_RETURN(s.mesh_name_, Symbol());
    } else if (scan_.TryConsume("#sdy.mesh") || scan_.TryConsume("mesh")) {
      ShardyMesh mesh;
      AXE_RETURN_IF_ERROR(MeshAttr(mesh));
      s.inline_mesh_ = std::move(mesh);
    } else {
      return scan_.Error("'@mesh_name' or an inlined 'mesh<[...]>'");
    }
    AXE_RETURN_IF_ERROR(scan_.Expect(','));
    AXE_RETURN_IF_ERROR(Dims(s.dims_));
    bool replicated = false, unreduced = false;
    while (scan_.TryConsume(',')) {
      const size_t at = scan_.pos();
      if (!replicated && scan_.TryConsume("replicated")) {
        replicated = true;
        AXE_RETURN_IF_ERROR(scan_.Expect('='));
        AXE_RETURN_IF_ERROR(AxisList(s.replicated_));
      } else if (!unreduced && scan_.TryConsume("unreduced")) {
        unreduced = true;
        AXE_RETURN_IF_ERROR(scan_.Expect('='));
        if (scan_.TryConsume("max")) {
          s.reduction_ = ShardyReduction::kMax;
        } else if (scan_.TryConsume("min")) {
          s.reduction_ = ShardyReduction::kMin;
        } else {
          scan_.TryConsume("sum");
        }
        AXE_RETURN_IF_ERROR(AxisList(s.unreduced_));
      } else {
        return scan_.ErrorAt(at, "'replicated=' or 'unreduced=' (each at most once)");
      }
    }
    // No unreduced axes: nothing to reduce, and Shardy prints no `unreduced=max{}`.
    if (s.unreduced_.empty()) s.reduction_ = ShardyReduction::kSum;
    AXE_RETURN_IF_ERROR(scan_.Expect('>'));
    AXE_RETURN_IF_ERROR(End());
    return s;
  }

 private:
  static constexpr size_t kMaxIds = 1 << 16;

  absl::Status End() {
    if (scan_.AtEnd()) return absl::OkStatus();
    return scan_.Error("the end of the text");
  }

  absl::StatusOr<std::string> Symbol() {
    std::optional<absl::string_view> name = scan_.TryIdent("$.-");
    if (!name) return scan_.Error("a symbol name");
    return std::string(*name);
  }

  absl::StatusOr<std::string> QuotedName() {
    scan_.SkipSpace();
    const size_t at = scan_.pos();
    if (!scan_.TryConsume('"')) return scan_.Error("an axis name in double quotes");
    const absl::string_view text = scan_.text();
    size_t end = at + 1;
    while (end < text.size() && text[end] != '"' && text[end] != '\\' && end - at <= 256) ++end;
    if (end >= text.size() || text[end] != '"') {
      return scan_.MessageAt(at,
                             "an axis name must be a quoted identifier of at most 256 "
                             "characters");
    }
    scan_.set_pos(end + 1);
    return std::string(text.substr(at + 1, end - at - 1));
  }

  // <["x"=2, "y"=4], device_ids=[...]>
  absl::Status MeshAttr(ShardyMesh& mesh) {
    AXE_RETURN_IF_ERROR(scan_.Expect('<'));
    AXE_RETURN_IF_ERROR(scan_.Expect('['));
    if (!scan_.TryConsume(']')) {
      do {
        if (mesh.axes.size() >= Mesh::kMaxAxes) return scan_.Error("at most 32 mesh axes");
        MeshAxis axis;
        AXE_ASSIGN_OR_RETURN(axis.name, QuotedName());
        AXE_RETURN_IF_ERROR(scan_.Expect('='));
        AXE_ASSIGN_OR_RETURN(axis.size, scan_.ReadNonNegativeInt());
        mesh.axes.push_back(std::move(axis));
      } while (scan_.TryConsume(','));
      AXE_RETURN_IF_ERROR(scan_.Expect(']'));
    }
    if (scan_.TryConsume(',')) {
      if (!scan_.TryConsume("device_ids")) return scan_.Error("'device_ids='");
      AXE_RETURN_IF_ERROR(scan_.Expect('='));
      AXE_RETURN_IF_ERROR(scan_.Expect('['));
      do {
        if (mesh.device_ids.size() >= kMaxIds) return scan_.Error("at most 65536 device ids");
        AXE_ASSIGN_OR_RETURN(int64_t id, scan_.ReadInt());
        mesh.device_ids.push_back(id);
      } while (scan_.TryConsume(','));
      AXE_RETURN_IF_ERROR(scan_.Expect(']'));
    }
    return scan_.Expect('>');
  }

  // "x" or "x":(m)k
  absl::StatusOr<ShardyAxisRef> AxisRef() {
    if (++axis_refs_ > ShardySharding::kMaxAxisRefs) {
      return scan_.Error("at most 256 axis references");
    }
    ShardyAxisRef ref;
    AXE_ASSIGN_OR_RETURN(ref.name, QuotedName());
    if (scan_.TryConsume(':')) {
      AXE_RETURN_IF_ERROR(scan_.Expect('('));
      AXE_ASSIGN_OR_RETURN(ref.pre_size, scan_.ReadNonNegativeInt());
      AXE_RETURN_IF_ERROR(scan_.Expect(')'));
      AXE_ASSIGN_OR_RETURN(ref.size, scan_.ReadNonNegativeInt());
      if (ref.size == 0) return scan_.Error("a sub-axis size > 1");
    }
    return ref;
  }

  absl::Status AxisList(std::vector<ShardyAxisRef>& out) {
    AXE_RETURN_IF_ERROR(scan_.Expect('{'));
    if (scan_.TryConsume('}')) return absl::OkStatus();
    do {
      AXE_ASSIGN_OR_RETURN(ShardyAxisRef ref, AxisRef());
      out.push_back(std::move(ref));
    } while (scan_.TryConsume(','));
    return scan_.Expect('}');
  }

  // {"x", "y", ?}p1
  absl::StatusOr<ShardyDimSharding> Dim() {
    ShardyDimSharding dim;
    AXE_RETURN_IF_ERROR(scan_.Expect('{'));
    if (scan_.TryConsume('?')) {
      dim.open = true;
    } else if (scan_.Peek() != '}') {
      do {
        if (scan_.TryConsume('?')) {
          dim.open = true;
          break;
        }
        AXE_ASSIGN_OR_RETURN(ShardyAxisRef ref, AxisRef());
        dim.axes.push_back(std::move(ref));
      } while (scan_.TryConsume(','));
    }
    AXE_RETURN_IF_ERROR(scan_.Expect('}'));
    if (scan_.TryConsume('p')) {
      AXE_ASSIGN_OR_RETURN(int64_t priority, scan_.ReadNonNegativeInt());
      dim.priority = priority;
    }
    return dim;
  }

  absl::Status Dims(std::vector<ShardyDimSharding>& out) {
    AXE_RETURN_IF_ERROR(scan_.Expect('['));
    if (scan_.TryConsume(']')) return absl::OkStatus();
    do {
      if (out.size() >= ShardySharding::kMaxDims) return scan_.Error("at most 64 dimensions");
      AXE_ASSIGN_OR_RETURN(ShardyDimSharding dim, Dim());
      out.push_back(std::move(dim));
    } while (scan_.TryConsume(','));
    return scan_.Expect(']');
  }

  Scanner scan_;
  size_t axis_refs_ = 0;
};

namespace {

// Validates a parsed mesh as Mesh::Create does and drops device ids in iota order (Shardy
// prints none for them), so that a mesh equals what its print reads back to.
absl::Status ValidateAndNormalize(ShardyMesh& mesh) {
  if (mesh.MaximalDevice()) return absl::OkStatus();
  AXE_RETURN_IF_ERROR(mesh.ToMesh().status());
  bool iota = true;  // ToMesh refused ids fewer or more than the devices
  for (size_t i = 0; i < mesh.device_ids.size(); ++i) {
    iota = iota && mesh.device_ids[i] == static_cast<int64_t>(i);
  }
  if (iota) mesh.device_ids.clear();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ShardyMesh> ShardyMesh::Parse(absl::string_view text) {
  ShardyParser parser(text);
  AXE_RETURN_IF_ERROR(parser.CheckLength(kMaxTextLength));
  AXE_ASSIGN_OR_RETURN(ShardyMesh mesh, parser.MeshDeclaration());
  AXE_RETURN_IF_ERROR(ValidateAndNormalize(mesh));
  return mesh;
}

absl::StatusOr<ShardySharding> ShardySharding::Parse(absl::string_view text) {
  ShardyParser parser(text);
  AXE_RETURN_IF_ERROR(parser.CheckLength(kMaxTextLength));
  AXE_ASSIGN_OR_RETURN(ShardySharding sharding, parser.Sharding());
  if (sharding.inline_mesh_) AXE_RETURN_IF_ERROR(ValidateAndNormalize(*sharding.inline_mesh_));
  return sharding;
}

}  // namespace axe::sharding
