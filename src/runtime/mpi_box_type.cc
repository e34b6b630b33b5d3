// MPI datatypes for strided boxes (mpi_state.h).
#include <mpi.h>

#include <climits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/strided_box.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

using relayout::BufferLayout;
using relayout::DescribeStridedBox;
using relayout::StridedBox;
using relayout::StridedDim;

MpiTypes::~MpiTypes() {
  for (MPI_Datatype& t : types_) {
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  }
}

MPI_Datatype MpiTypes::Add(MPI_Datatype type) {
  types_.push_back(type);
  return type;
}

absl::StatusOr<std::optional<MpiBoxView>> MpiViewOf(const StridedBox& box, uint8_t* buffer,
                                                    MpiTypes& types) {
  uint8_t* base = buffer + box.offset_bytes;
  if (box.contiguous()) {
    if (box.run_bytes > INT_MAX) return std::optional<MpiBoxView>();
    return std::optional<MpiBoxView>(MpiBoxView{base, MPI_BYTE, static_cast<int>(box.run_bytes)});
  }
  if (box.run_bytes > INT_MAX) return std::optional<MpiBoxView>();
  for (const StridedDim& d : box.dims) {
    if (d.extent > INT_MAX) return std::optional<MpiBoxView>();
  }
  // Each type is handed to `types` once the next one is built on it, the outermost once
  // committed (MPI_Type_commit may change the handle).
  MPI_Datatype type = MPI_DATATYPE_NULL;
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Type_contiguous(static_cast<int>(box.run_bytes), MPI_BYTE, &type),
                "MPI_Type_contiguous"));
  for (auto d = box.dims.rbegin(); d != box.dims.rend(); ++d) {
    MPI_Datatype outer = MPI_DATATYPE_NULL;
    const int code = MPI_Type_create_hvector(static_cast<int>(d->extent), 1,
                                             static_cast<MPI_Aint>(d->stride_bytes), type, &outer);
    types.Add(type);
    AXE_RETURN_IF_ERROR(MpiStatus(code, "MPI_Type_create_hvector"));
    type = outer;
  }
  const int code = MPI_Type_commit(&type);
  types.Add(type);
  AXE_RETURN_IF_ERROR(MpiStatus(code, "MPI_Type_commit"));
  return std::optional<MpiBoxView>(MpiBoxView{base, type, 1});
}

absl::StatusOr<std::optional<MpiBoxView>> MpiInPlaceView(const BufferLayout& layout,
                                                         absl::Span<const int64_t> shape,
                                                         absl::Span<const Interval> box,
                                                         int element_bytes, const uint8_t* data,
                                                         MpiTypes& types) {
  AXE_ASSIGN_OR_RETURN(std::optional<StridedBox> strided,
                       DescribeStridedBox(layout, shape, box, element_bytes));
  if (!strided || (!strided->contiguous() && strided->run_bytes < kMinInPlaceRunBytes)) {
    return std::optional<MpiBoxView>();
  }
  // MPI only writes through the view when the caller's buffer is its own to write.
  return MpiViewOf(*strided, const_cast<uint8_t*>(data), types);
}

}  // namespace axe::runtime
