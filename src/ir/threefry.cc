// Threefry-2x32 as described by Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"
// (Random123), and the derivations of JAX's threefry PRNG implementation.
#include "axe/ir/threefry.h"

#include <bit>
#include <cstring>

namespace axe::ir::threefry {
namespace {

constexpr uint32_t kParity = 0x1BD11BDA;
constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};

// Four rounds: mix, rotate, xor.
void FourRounds(std::array<uint32_t, 2>& x, const int (&rotations)[4]) {
  for (int r : rotations) {
    x[0] += x[1];
    x[1] = std::rotl(x[1], r);
    x[1] ^= x[0];
  }
}

// threefry_2x32 over a flat array of counters: the first half of the (zero-padded to even)
// counters pairs with the second half, and the two hashed halves are concatenated.
std::vector<uint32_t> HashCounters(const KeyData& key, const std::vector<uint32_t>& counts) {
  const size_t half = (counts.size() + 1) / 2;
  std::vector<uint32_t> out(2 * half);
  for (size_t i = 0; i < half; ++i) {
    const uint32_t x1 = half + i < counts.size() ? counts[half + i] : 0;
    std::array<uint32_t, 2> y = Hash(key[0], key[1], counts[i], x1);
    out[i] = y[0];
    out[half + i] = y[1];
  }
  out.resize(counts.size());
  return out;
}

std::vector<uint32_t> Iota(int64_t n) {
  std::vector<uint32_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>(i);
  return v;
}

// The hash of the 64-bit counter i (high word, low word), JAX's iota_2x32_shape.
std::array<uint32_t, 2> HashIndex(const KeyData& key, uint64_t i) {
  return Hash(key[0], key[1], static_cast<uint32_t>(i >> 32), static_cast<uint32_t>(i));
}

// The original (not partitionable) random_bits: one stream of u32 words, cut into values.
std::vector<uint64_t> RandomBitsOriginal(const KeyData& key, int bit_width, int64_t count) {
  const int64_t words = (bit_width * count + 31) / 32;
  const std::vector<uint32_t> bits = HashCounters(key, Iota(words));
  std::vector<uint64_t> out(static_cast<size_t>(count));
  const size_t n = out.size();
  for (size_t i = 0; i < n; ++i) {
    if (bit_width == 64) {
      out[i] = (uint64_t{bits[i]} << 32) | bits[n + i];
    } else if (bit_width == 32) {
      out[i] = bits[i];
    } else {
      const size_t per_word = static_cast<size_t>(32 / bit_width);
      const uint32_t word = bits[i / per_word];
      const int shift = bit_width * static_cast<int>(i % per_word);
      out[i] = (word >> shift) & ((uint32_t{1} << bit_width) - 1);
    }
  }
  return out;
}

}  // namespace

std::array<uint32_t, 2> Hash(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1) {
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ kParity};
  std::array<uint32_t, 2> x = {x0 + ks[0], x1 + ks[1]};
  for (uint32_t group = 1; group <= 5; ++group) {
    FourRounds(x, kRotations[(group - 1) % 2]);
    x[0] += ks[group % 3];
    x[1] += ks[(group + 1) % 3] + group;
  }
  return x;
}

KeyData SeedKey(uint64_t bits, DType seed_type) {
  const uint32_t high = BitWidth(seed_type) > 32 ? static_cast<uint32_t>(bits >> 32) : 0;
  return {high, static_cast<uint32_t>(bits)};
}

std::vector<KeyData> SplitKey(const KeyData& key, int64_t count, bool partitionable) {
  std::vector<KeyData> out(static_cast<size_t>(count));
  if (partitionable) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = HashIndex(key, i);
    return out;
  }
  const std::vector<uint32_t> words = HashCounters(key, Iota(2 * count));
  for (size_t i = 0; i < out.size(); ++i) out[i] = {words[2 * i], words[2 * i + 1]};
  return out;
}

KeyData FoldIn(const KeyData& key, uint32_t data) { return Hash(key[0], key[1], 0, data); }

std::vector<uint64_t> RandomBits(const KeyData& key, int bit_width, int64_t count,
                                 bool partitionable) {
  if (!partitionable) return RandomBitsOriginal(key, bit_width, count);
  std::vector<uint64_t> out(static_cast<size_t>(count));
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  for (size_t i = 0; i < out.size(); ++i) {
    const std::array<uint32_t, 2> y = HashIndex(key, i);
    out[i] = bit_width == 64 ? (uint64_t{y[0]} << 32) | y[1] : (y[0] ^ y[1]) & mask;
  }
  return out;
}

double KeyToDouble(const KeyData& key) {
  return std::bit_cast<double>(uint64_t{key[0]} | (uint64_t{key[1]} << 32));
}

KeyData KeyFromDouble(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  return {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
}

}  // namespace axe::ir::threefry
