// Random mutations of a corpus, for the replay driver's mutation mode (`make test` builds
// with g++, where libFuzzer is not available). No coverage feedback: each generated input is
// one corpus input with a few random edits (bit and byte flips, inserted, erased and
// duplicated byte ranges, dictionary tokens, a splice of a second input, changed numbers
// and signs).
//
// The input of execution `index` is a pure function of (corpus, dictionary, max_bytes, seed,
// index), so a failure seen after millions of executions is reproduced by generating that one
// input again:
//
//   Mutator m(corpus, tokens, 4096);
//   for (uint64_t i = 0; ...; ++i) Run(m.Input(seed, i));
#ifndef AXE_FUZZ_MUTATOR_H_
#define AXE_FUZZ_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace axe::fuzz {

// A small deterministic generator (splitmix64): the same on every platform and standard
// library, unlike std::uniform_int_distribution.
class Random {
 public:
  explicit Random(uint64_t state) : state_(state) {}
  uint64_t Next();
  // Uniform in [0, n) for n > 0 (the modulo bias is negligible here).
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  bool OneIn(size_t n) { return Below(n) == 0; }

 private:
  uint64_t state_;
};

class Mutator {
 public:
  // `corpus` may be empty (inputs then grow from nothing); inputs never exceed `max_bytes`.
  Mutator(std::vector<std::string> corpus, std::vector<std::string> dictionary, size_t max_bytes);

  // The input of execution `index` under `seed`.
  std::string Input(uint64_t seed, uint64_t index) const;

  size_t max_bytes() const { return max_bytes_; }

 private:
  // One random edit of `data`, in place; keeps data.size() <= max_bytes_.
  void MutateOnce(Random& rng, std::string& data) const;
  void InsertBytes(Random& rng, std::string& data) const;
  void EraseRange(Random& rng, std::string& data) const;
  void DuplicateRange(Random& rng, std::string& data) const;
  void InsertToken(Random& rng, std::string& data, bool replace) const;
  void Splice(Random& rng, std::string& data) const;
  void TweakNumber(Random& rng, std::string& data) const;
  void TweakSign(Random& rng, std::string& data) const;
  // Inserts `piece` at `at`, or overwrites [at, at + erase) with it; trims to max_bytes_.
  void Put(std::string& data, size_t at, size_t erase, const std::string& piece) const;

  std::vector<std::string> corpus_;
  std::vector<std::string> dictionary_;
  size_t max_bytes_;
};

}  // namespace axe::fuzz

#endif  // AXE_FUZZ_MUTATOR_H_
