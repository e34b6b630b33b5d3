// The layout part of `axe tour`.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/inverse.h"
#include "axe/layout/properties.h"
#include "axe/layout/render.h"
#include "tour.h"

namespace axe::cli {
namespace tour_layout {
namespace {

std::string Points(const std::vector<PhysCoord>& points) {
  return absl::StrJoin(points, "  ",
                       [](std::string* out, const PhysCoord& p) { out->append(p.ToString()); });
}

absl::Status Model(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(
      Layout la, Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"));
  os << "An Axe layout maps each logical element to a set of physical points on named axes.\n"
        "It has three parts: an ordered shard D of iters extent:stride@axis, a multiset of\n"
        "replica iters R, and an offset O. The paper's Figure 2 (an 8x16 tile on 32 lanes,\n"
        "2 registers, two sharded and two replicated warps):\n\n  LA = "
     << la << "\n\n"
     << "D splits the row-major flat index into digits (last iter fastest) and sends digit c\n"
        "of iter e:s@a to c*s on axis a. Size "
     << la.size() << ", replicas " << la.replica_size() << ", span on warp "
     << la.span(Axis::Get("warp")) << " (offset-free).\n";
  return absl::OkStatus();
}

absl::Status Forward(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(
      Layout la, Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"));
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> pts, Apply(la, {8, 16}, {2, 9}));
  std::vector<int64_t> extents;
  for (const Iter& it : la.shard()) extents.push_back(it.extent);
  AXE_ASSIGN_OR_RETURN(int64_t flat, FlattenCoord({8, 16}, {2, 9}));
  os << "apply(LA, shape (8,16), element (2,9)): flat " << flat << ", digits "
     << FormatTuple(UnflattenIndex(extents, flat))
     << ", base point\n"
        "f_D + O, plus the replica offset 4@warp:\n\n  "
     << Points(pts) << "\n\n"
     << "The same layout admits any shape with 128 elements: (128), (2,64), (8,16).\n"
        "A picture of the ldmatrix/mma m8n8 fragment (8x8 tile, 32 lanes x 2 registers):\n\n";
  AXE_ASSIGN_OR_RETURN(Layout atom, Layout::Parse("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"));
  AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(atom, 8, 8));
  os << "  " << atom << "\n" << grid;
  return absl::OkStatus();
}

absl::Status Backward(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(
      Layout la, Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"));
  os << "inverse finds every logical element stored at a physical point, decoding digits per\n"
        "axis (mixed radix) instead of scanning the domain:\n\n";
  for (const char* point : {"warp=6,lane=8,reg=1", "warp=10,lane=8,reg=1", "warp=7,lane=8,reg=1"}) {
    AXE_ASSIGN_OR_RETURN(PhysCoord p, PhysCoord::Parse(point));
    AXE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> coords, Inverse(la, {8, 16}, p));
    os << "  LA^-1(" << point << ") = {"
       << absl::StrJoin(
              coords, ", ",
              [](std::string* out, const std::vector<int64_t>& c) { out->append(FormatTuple(c)); })
       << "}\n";
  }
  AXE_ASSIGN_OR_RETURN(Layout twice, Layout::Parse("S[(2,2):(1,1)]"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> flat, InverseFlat(twice, *PhysCoord::Parse("m=1")));
  os << "  " << twice << "^-1(m=1) = {" << absl::StrJoin(flat, ", ") << "}   (not injective)\n";
  return absl::OkStatus();
}

absl::Status Canonical(std::ostream& os) {
  os << "canonicalize merges, drops and normalizes without changing the map:\n\n";
  for (const char* text : {"S[(8,8,8,4,2):(512,64,8,2,1)]", "S[(8,2,3,6):(6,24,6,1)]",
                           "S[(8,8,8,4,2):(16,4@laneid,2,1@laneid,1)]", "S[4:1] + R[4:-2@warp]",
                           "S[4:1] + R[(2,4@warp),(4,1@warp)]"}) {
    AXE_ASSIGN_OR_RETURN(Layout l, Layout::Parse(text));
    os << "  " << text << "\n    -> " << Canonicalize(l) << "\n";
  }
  // Two canonical layouts with different replica iters and the same replica point set.
  AXE_ASSIGN_OR_RETURN(Layout a, Layout::Parse("S[2:1] + R[(6,2):(2@w,3@w)]"));
  AXE_ASSIGN_OR_RETURN(Layout b, Layout::Parse("S[2:1] + R[(3,4):(2@w,3@w)]"));
  AXE_ASSIGN_OR_RETURN(bool eq, Equivalent(a, b));
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, ReplicaPoints(a));
  os << "\noperator== is structural; Equivalent() compares induced maps:\n  " << a << " vs " << b
     << "\n  are " << (a == b ? "equal" : "not ==") << ", and " << (eq ? "equivalent" : "different")
     << ": both put every element at w + {"
     << absl::StrJoin(points, ",",
                      [](std::string* out, const PhysCoord& p) {
                        absl::StrAppend(out, p.get(Axis::Get("w")));
                      })
     << "}\n";
  return absl::OkStatus();
}

absl::Status Devices(std::ostream& os) {
  os << "On a device axis a replica copies, an offset translates (Example 9), element (1,2,3):\n\n";
  for (const char* text :
       {"S[(2,4,8):(1@gpuid_y,8@m,1@m)]", "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]",
        "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + 1@gpuid_x"}) {
    AXE_ASSIGN_OR_RETURN(Layout l, Layout::Parse(text));
    AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> pts, Apply(l, {2, 4, 8}, {1, 2, 3}));
    os << "  " << text << "\n    -> " << Points(pts) << "\n";
  }
  AXE_ASSIGN_OR_RETURN(Layout mesh, Layout::Parse("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]"));
  os << "\nA 64x128 tensor fully sharded on a 2x2 mesh (Example 5):\n  " << mesh << "\n";
  for (std::vector<int64_t> c : {std::vector<int64_t>{31, 127}, {33, 65}, {40, 100}}) {
    AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(mesh, {64, 128}, c));
    os << "  " << FormatTuple(c) << " -> " << p << "\n";
  }
  Layout local = Storage(mesh);
  os << "Each device stores storage() = " << local << " (" << local.size() << " elements, span "
     << local.span(Axis::Memory()) << ": compact).\n";
  return absl::OkStatus();
}

absl::Status Trainium(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(Layout psum, Layout::Parse("S[(2,512,8):(1@Bank,1@F,1@P)]"));
  AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(psum, {1024, 8}, {600, 3}));
  AXE_ASSIGN_OR_RETURN(Layout sb, Layout::Parse("S[(8,8,8):(64@F,1@P,1@F)]"));
  os << "Memory can have several axes too. Trainium PSUM banks (Example 18):\n  " << psum
     << "\n  (600,3) -> " << p << "\n"
     << "SBUF partitions x free dim: " << sb << ": size on P " << sb.size(Axis::Get("P"))
     << ", size on F " << sb.size(Axis::Get("F")) << ", span on F " << sb.span(Axis::Get("F"))
     << "\n"
     << "\nTry: axe layout info '<layout>', axe layout show '<layout>' --shape R,C\n";
  return absl::OkStatus();
}

std::vector<TourSection> LayoutTour() {
  return {
      {"layout", "The Axe layout: shard, replica, offset", Model},
      {"layout", "Forward: where does an element live?", Forward},
      {"layout", "Backward: which elements live here?", Backward},
      {"layout", "Canonical form and equivalence", Canonical},
      {"layout", "Devices: replicas versus offsets, a sharded tensor", Devices},
      {"layout", "Several memory axes: Trainium SBUF and PSUM", Trainium},
  };
}

AXE_TOUR_PART(10, LayoutTour);

}  // namespace
}  // namespace tour_layout
}  // namespace axe::cli
