// Test support: seeded random XLA array shapes with nested tilings, and a naive oracle of
// the tiled layout that materialises the physical buffer step by step (pad, reshape,
// transpose), sharing no code with the library's index math.
#ifndef AXE_TESTS_XLA_RANDOM_SHAPE_H_
#define AXE_TESTS_XLA_RANDOM_SHAPE_H_

#include <cstdint>
#include <random>
#include <vector>

#include "axe/xla/shape.h"

namespace axe::xla::testing {

struct RandomShapeOptions {
  int max_rank = 4;
  int64_t max_dim = 6;
  int max_levels = 3;
  bool allow_combine = true;       // `*` tile bounds
  bool allow_long_tiles = true;    // tiles longer than the current rank
  int64_t max_padded = 4096;       // reject draws whose buffer is larger
  bool prefer_descending = false;  // half of the draws get the default descending layout
};

// A valid array shape with a random permutation layout and 0..max_levels tile levels
// (bounds 1..8, sometimes `*`, sometimes the TPU (q,1) packing), random L, E, S.
Shape RandomTiledShape(std::mt19937_64& rng, const RandomShapeOptions& options = {});

// The physical buffer of an array shape: buffer[offset] = the row-major logical flat index
// stored there, or -1 for padding. Written from the definition in docs/xla.md.
std::vector<int64_t> OracleBuffer(const Shape& shape);

}  // namespace axe::xla::testing

#endif  // AXE_TESTS_XLA_RANDOM_SHAPE_H_
