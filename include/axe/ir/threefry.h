// JAX's threefry2x32 PRNG, bit for bit: the Threefry-2x32 hash (20 rounds, Random123's
// rotation constants and key schedule) and the key derivations JAX builds on it (seed, split,
// fold_in, random_bits), both with jax_threefry_partitionable on (JAX's default since 0.5) and
// off. The interpreter's impl rules and the executor's kernels share these functions.
//
//   KeyData key = SeedKey(0, DType::kS32);               // jax.random.key(0): {0, 0}
//   std::vector<KeyData> two = SplitKey(key, 2);          // jax.random.split(key)
//   std::vector<uint64_t> bits = RandomBits(key, 32, 3);  // jax.random.bits(key, (3,))
//
// A key element of type key<fry> is its two u32 words. The interpreter holds one in a double
// by its 64 bits (word 0 in the low half: the order the executor stores the words in memory),
// see KeyToDouble.
#ifndef AXE_IR_THREEFRY_H_
#define AXE_IR_THREEFRY_H_

#include <array>
#include <cstdint>
#include <vector>

#include "axe/base/dtype.h"

namespace axe::ir::threefry {

// One key's data: jax.random.key_data(key), u32[2].
using KeyData = std::array<uint32_t, 2>;

// The Threefry-2x32 hash with 20 rounds of the counter pair (x0, x1) under the key (k0, k1).
std::array<uint32_t, 2> Hash(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1);

// random_seed: the key of an integer seed held as a 64-bit two's complement `bits` of a value of
// `seed_type` (JAX: the high word is seed >> 32 (0 below 64 bits), the low word seed's low 32
// bits).
KeyData SeedKey(uint64_t bits, DType seed_type);
// random_split: `count` new keys (row-major over the split shape).
std::vector<KeyData> SplitKey(const KeyData& key, int64_t count, bool partitionable = true);
// random_fold_in: the key with `data` folded in.
KeyData FoldIn(const KeyData& key, uint32_t data);
// random_bits: `count` values of `bit_width` (8, 16, 32 or 64) random bits, row-major.
std::vector<uint64_t> RandomBits(const KeyData& key, int bit_width, int64_t count,
                                 bool partitionable = true);

// A key held in a double (the interpreter's HostArray values) and back.
double KeyToDouble(const KeyData& key);
KeyData KeyFromDouble(double value);

}  // namespace axe::ir::threefry

#endif  // AXE_IR_THREEFRY_H_
