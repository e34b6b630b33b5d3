#include "mutator.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace axe::fuzz {
namespace {

// Numbers that sit on the edges parsers and size computations must handle.
constexpr const char* kInterestingNumbers[] = {
    "0",
    "1",
    "2",
    "3",
    "7",
    "8",
    "16",
    "127",
    "128",
    "255",
    "256",
    "1024",
    "4096",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// [begin, end) of every run of ASCII digits in `data`.
std::vector<std::pair<size_t, size_t>> DigitRuns(const std::string& data) {
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < data.size();) {
    if (!IsDigit(data[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < data.size() && IsDigit(data[end])) ++end;
    runs.emplace_back(i, end);
    i = end;
  }
  return runs;
}

// The decimal text `digits` (at most 18 digits, so it fits) plus `delta`, never negative.
std::string AddToDigits(const std::string& digits, int delta) {
  const long long value = std::strtoll(digits.c_str(), nullptr, 10) + delta;
  return std::to_string(value < 0 ? 0 : value);
}

}  // namespace

uint64_t Random::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Mutator::Mutator(std::vector<std::string> corpus, std::vector<std::string> dictionary,
                 size_t max_bytes)
    : corpus_(std::move(corpus)),
      dictionary_(std::move(dictionary)),
      max_bytes_(std::max<size_t>(max_bytes, 1)) {
  for (std::string& input : corpus_) input.resize(std::min(input.size(), max_bytes_));
}

std::string Mutator::Input(uint64_t seed, uint64_t index) const {
  // Each execution's generator comes from (seed, index) alone.
  Random rng(Random(seed).Next() ^ Random(~index).Next());
  std::string data = corpus_.empty() ? std::string() : corpus_[rng.Below(corpus_.size())];
  const size_t edits = 1 + rng.Below(rng.OneIn(4) ? 8 : 2);
  for (size_t i = 0; i < edits; ++i) MutateOnce(rng, data);
  return data;
}

void Mutator::MutateOnce(Random& rng, std::string& data) const {
  if (data.empty()) return InsertBytes(rng, data);
  switch (rng.Below(11)) {
    case 0:  // flip one bit
      data[rng.Below(data.size())] ^= static_cast<char>(1u << rng.Below(8));
      return;
    case 1:  // set one byte
      data[rng.Below(data.size())] = static_cast<char>(rng.Below(256));
      return;
    case 2: return InsertBytes(rng, data);
    case 3:
    case 4: return EraseRange(rng, data);
    case 5: return DuplicateRange(rng, data);
    case 6: return InsertToken(rng, data, /*replace=*/false);
    case 7: return InsertToken(rng, data, /*replace=*/true);
    case 8: return Splice(rng, data);
    case 9: return TweakNumber(rng, data);
    default: return TweakSign(rng, data);
  }
}

void Mutator::Put(std::string& data, size_t at, size_t erase, const std::string& piece) const {
  at = std::min(at, data.size());
  data.replace(at, std::min(erase, data.size() - at), piece);
  if (data.size() > max_bytes_) data.resize(max_bytes_);
}

void Mutator::InsertBytes(Random& rng, std::string& data) const {
  const size_t count = 1 + rng.Below(rng.OneIn(8) ? 64 : 4);
  std::string piece;
  if (rng.OneIn(2)) {
    piece.assign(count, static_cast<char>(rng.Below(256)));  // a run of one byte
  } else {
    for (size_t i = 0; i < count; ++i) piece.push_back(static_cast<char>(rng.Below(128)));
  }
  Put(data, rng.Below(data.size() + 1), 0, piece);
}

void Mutator::EraseRange(Random& rng, std::string& data) const {
  const size_t at = rng.Below(data.size());
  const size_t count = 1 + rng.Below(std::min<size_t>(data.size() - at, 16));
  data.erase(at, count);
}

void Mutator::DuplicateRange(Random& rng, std::string& data) const {
  const size_t at = rng.Below(data.size());
  const size_t count = 1 + rng.Below(std::min<size_t>(data.size() - at, 32));
  std::string piece = data.substr(at, count);
  if (rng.OneIn(4)) {  // several copies: deep nesting, long lists
    const size_t copies = 1 + rng.Below(64);
    std::string repeated;
    for (size_t i = 0; i < copies && repeated.size() < max_bytes_; ++i) repeated += piece;
    piece = std::move(repeated);
  }
  Put(data, rng.Below(data.size() + 1), 0, piece);
}

void Mutator::InsertToken(Random& rng, std::string& data, bool replace) const {
  if (dictionary_.empty()) return InsertBytes(rng, data);
  const std::string& token = dictionary_[rng.Below(dictionary_.size())];
  const size_t at = rng.Below(data.size() + 1);
  Put(data, at, replace ? token.size() : 0, token);
}

void Mutator::Splice(Random& rng, std::string& data) const {
  if (corpus_.empty()) return InsertBytes(rng, data);
  const std::string& other = corpus_[rng.Below(corpus_.size())];
  if (other.empty()) return;
  const size_t from = rng.Below(other.size());
  const std::string piece = other.substr(from, 1 + rng.Below(other.size() - from));
  const size_t at = rng.Below(data.size() + 1);
  if (rng.OneIn(2)) return Put(data, at, 0, piece);
  Put(data, at, data.size() - at, piece);  // crossover: this input's head, the other's tail
}

void Mutator::TweakNumber(Random& rng, std::string& data) const {
  const std::vector<std::pair<size_t, size_t>> runs = DigitRuns(data);
  if (runs.empty()) {
    Put(data, rng.Below(data.size() + 1), 0, kInterestingNumbers[rng.Below(4)]);
    return;
  }
  const auto [begin, end] = runs[rng.Below(runs.size())];
  const std::string digits = data.substr(begin, end - begin);
  std::string replacement;
  switch (rng.Below(4)) {
    case 0:
    case 1:
      if (digits.size() <= 18) {
        replacement = AddToDigits(digits, rng.OneIn(2) ? 1 : -1);
      } else {
        replacement = digits.substr(0, digits.size() - 1);  // one digit shorter
      }
      break;
    case 2: {
      constexpr size_t kCount = sizeof(kInterestingNumbers) / sizeof(kInterestingNumbers[0]);
      replacement = kInterestingNumbers[rng.Below(kCount)];
      break;
    }
    default: replacement = digits + digits.substr(0, 1 + rng.Below(digits.size()));
  }
  Put(data, begin, end - begin, replacement);
}

void Mutator::TweakSign(Random& rng, std::string& data) const {
  const std::vector<std::pair<size_t, size_t>> runs = DigitRuns(data);
  if (runs.empty()) return Put(data, rng.Below(data.size() + 1), 0, "-");
  const size_t begin = runs[rng.Below(runs.size())].first;
  if (begin > 0 && (data[begin - 1] == '-' || data[begin - 1] == '+')) {
    data.erase(begin - 1, 1);  // drop the sign
  } else {
    Put(data, begin, 0, rng.OneIn(4) ? "+" : "-");
  }
}

}  // namespace axe::fuzz
