// The IR part of `axe tour`: shard_map programs transposed with variance typing and without it
// (check_vma=False), with the bytes each transpose moves per device side by side. Everything is
// traced, transposed and counted by axe::ir as the tour runs; the claims are checked.
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/status_macros.h"
#include "axe/ir/comm.h"
#include "axe/ir/drop_vma.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "tour.h"

namespace axe::cli {
namespace tour_ir {
namespace {

using Tracers = absl::StatusOr<std::vector<ir::Tracer>>;

absl::Status SelfCheck(bool holds, absl::string_view claim) {
  if (holds) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("tour self-check failed: ", claim));
}

// shard_map(body) of one f32[8] over the mesh x=4.
absl::StatusOr<ir::ClosedJaxpr> Traced(absl::string_view in_spec, absl::string_view out_spec,
                                       const ir::ShardMapBody& body) {
  ir::Builder b;
  ir::Tracer x = b.Arg(ir::ShapedArray({8}, DType::kF32));
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::Mesh::Parse("x=4"));
  AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec in, sharding::PartitionSpec::Parse(in_spec));
  AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec out, sharding::PartitionSpec::Parse(out_spec));
  ir::ShardMapSpec spec{std::move(mesh), {std::move(in)}, {std::move(out)}};
  AXE_ASSIGN_OR_RETURN(std::vector<ir::Tracer> outs, ir::ShardMap({x}, spec, body));
  return b.Build(outs);
}

std::string Collectives(const ir::CommunicationCount& c) {
  std::vector<std::string> names;
  for (const ir::CollectiveCount& e : c.collectives) {
    names.push_back(
        absl::StrCat(e.primitive, " over ", absl::StrJoin(e.axes, ","), " (", e.kind, ")"));
  }
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

void Indented(std::ostream& os, const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) os << "  " << line << "\n";
}

// f's transposes with and without variance typing, printed and counted; the byte totals must
// be `typed_bytes` and `naive_bytes`.
absl::Status BothWays(std::ostream& os, const ir::ClosedJaxpr& f, int64_t typed_bytes,
                      int64_t naive_bytes) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr typed, ir::LinearTranspose(f, {true}));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr unchecked, ir::DropVarianceTyping(f));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr naive, ir::LinearTranspose(unchecked, {true}));
  AXE_ASSIGN_OR_RETURN(ir::CommunicationCount ct, ir::CountCommunication(typed));
  AXE_ASSIGN_OR_RETURN(ir::CommunicationCount cn, ir::CountCommunication(naive));
  AXE_RETURN_IF_ERROR(SelfCheck(ct.total_bytes_per_device == typed_bytes,
                                absl::StrCat("the typed transpose moves ", typed_bytes, " bytes")));
  AXE_RETURN_IF_ERROR(SelfCheck(cn.total_bytes_per_device == naive_bytes,
                                absl::StrCat("the naive transpose moves ", naive_bytes, " bytes")));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr twice, ir::LinearTranspose(typed, {true}));
  AXE_RETURN_IF_ERROR(SelfCheck(ir::PrintJaxpr(twice) == ir::PrintJaxpr(f), "t(t(f)) prints as f"));
  os << "f:\n";
  Indented(os, ir::PrintJaxpr(f));
  os << "\nt(f) with variance typing (check_vma=True):\n";
  Indented(os, ir::PrintJaxpr(typed));
  os << "\nt(f) of the check_vma=False trace (`axe ir transpose --no-check-vma`):\n";
  Indented(os, ir::PrintJaxpr(naive));
  os << absl::StrFormat("\n  %-24s %-32s %s\n", "", "variance typing", "check_vma=False")
     << absl::StrFormat("  %-24s %-32s %s\n", "collectives of t(f)", Collectives(ct),
                        Collectives(cn))
     << absl::StrFormat("  %-24s %-32d %d\n", "bytes per device", ct.total_bytes_per_device,
                        cn.total_bytes_per_device)
     << "\nand t(t(f)) prints exactly as f under variance typing.\n";
  return absl::OkStatus();
}

absl::Status CursedIdentity(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(
      ir::ClosedJaxpr f,
      Traced("P()", "P()", [](ir::Builder&, absl::Span<const ir::Tracer> xs) -> Tracers {
        return std::vector<ir::Tracer>{xs[0]};
      }));
  os << "The cursed identity: shard_map(lambda x: x, in_specs=P(), out_specs=P()) on the mesh\n"
        "x=4. Variance typing knows the value is the same on every device, so the transpose\n"
        "is the identity again. Without it, the naive rule divides by 4 outside and psums\n"
        "inside: an all-reduce of the whole f32[8] (ring bytes 2 (n-1)/n S, `axe ir comm`).\n\n";
  return BothWays(os, f, 0, 48);
}

absl::Status ExampleOne(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(
      ir::ClosedJaxpr f,
      Traced("P('x')", "P()", [](ir::Builder&, absl::Span<const ir::Tracer> xs) -> Tracers {
        AXE_ASSIGN_OR_RETURN(ir::Tracer s, ir::Psum(xs[0], {"x"}));
        return std::vector<ir::Tracer>{s};
      }));
  os << "JEP 17111's example 1: shard_map(lambda x: psum(x, 'x'), in_specs=P('x'),\n"
        "out_specs=P()). psum's transpose under variance typing is pvary, a cast that moves\n"
        "nothing; the naive transpose all-reduces the cotangent again.\n\n";
  return BothWays(os, f, 0, 12);
}

std::vector<TourSection> IrTour() {
  return {
      {"ir", "The cursed identity, transposed with and without variance typing", CursedIdentity},
      {"ir", "psum's transpose: a pvary instead of an all-reduce", ExampleOne}};
}

AXE_TOUR_PART(70, IrTour);

}  // namespace
}  // namespace tour_ir

}  // namespace axe::cli
