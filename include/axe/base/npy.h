// NumPy's .npy format (np.save / np.load), read and written with every field checked: the
// magic and version (1.0, 2.0, 3.0), a header of at most kMaxNpyHeaderBytes holding a Python
// dict literal with 'descr', 'fortran_order' and 'shape', and exactly as many data bytes as
// the shape and dtype need.
//
//   absl::StatusOr<NpyArray> a = ParseNpy(bytes, "x.npy");   // errors name "x.npy"
//   std::string file = WriteNpy(DType::kF32, {2, 3}, data);   // data: 24 bytes, C order
//
// dtypes (little-endian or byte-sized, as NumPy writes them on x86 and ARM):
//   '|b1' bool   '|i1' '<i2' '<i4' '<i8' s8..s64   '|u1' '<u2' '<u4' '<u8' u8..u64
//   '<f2' f16    '<f4' f32    '<f8' f64    '<V2' bf16 (how ml_dtypes.bfloat16 arrays save)
// Refused with a message naming the file and what is wrong: big-endian ('>f4'), Fortran order,
// other dtypes (objects, strings, complex), a negative or overflowing shape, a data size that
// differs from the shape's.
#ifndef AXE_BASE_NPY_H_
#define AXE_BASE_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"

namespace axe {

inline constexpr size_t kMaxNpyHeaderBytes = size_t{1} << 16;

struct NpyArray {
  DType dtype = DType::kInvalid;
  std::vector<int64_t> shape;
  std::string data;  // the elements in C order, little-endian
};

// InvalidArgument "<what>: ..." for anything malformed.
absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes, absl::string_view what);

// The arrays of an .npz archive (np.savez: a zip of .npy files, stored uncompressed), by entry
// name without ".npy", in archive order. Read through the zip's central directory (zip64
// sizes too); every offset and size is checked against the archive. Refused: compressed
// entries (np.savez_compressed), encrypted or split archives, an entry that is not .npy.
struct NpzEntry {
  std::string name;
  NpyArray array;
};
absl::StatusOr<std::vector<NpzEntry>> ParseNpz(absl::string_view bytes, absl::string_view what);

// Whether `bytes` starts with the .npy magic ("\x93NUMPY").
bool LooksLikeNpy(absl::string_view bytes);

// A version 1.0 file; `data` holds the elements in C order, little-endian (its size must be
// the shape's; checked). InvalidArgument for a dtype the format above does not name.
absl::StatusOr<std::string> WriteNpy(DType dtype, absl::Span<const int64_t> shape,
                                     absl::string_view data);

}  // namespace axe

#endif  // AXE_BASE_NPY_H_
