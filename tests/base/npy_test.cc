// The .npy reader and writer: NumPy's own files (as np.save writes them, bytes below) read
// back, every dtype round-trips, and malformed files (each truncation, every byte changed, and
// handwritten bad headers) give an error naming the file, never a crash.
#include "axe/base/npy.h"

#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// np.save(f, np.array([[1, 2]], np.float32)): its header exactly.
std::string NumpyHeader(const std::string& dict) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h.push_back(' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  out.push_back(static_cast<char>(h.size()));
  out.push_back('\0');
  return out + h;
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  std::string f = NumpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }");
  EXPECT_EQ(f.size(), 128u);  // as np.save pads it
  const float v[2] = {1, 2};
  f.append(reinterpret_cast<const char*>(v), sizeof(v));
  absl::StatusOr<NpyArray> a = ParseNpy(f, "x.npy");
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->dtype, DType::kF32);
  EXPECT_THAT(a->shape, ElementsAre(1, 2));
  EXPECT_EQ(a->data.size(), 8u);
  // ml_dtypes.bfloat16 saves as '<V2'; a scalar bool has shape ().
  std::string bf = NumpyHeader("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }") +
                   std::string(4, '\0');
  ASSERT_THAT(ParseNpy(bf, "b.npy"), IsOk());
  EXPECT_EQ(ParseNpy(bf, "b.npy")->dtype, DType::kBF16);
  std::string b = NumpyHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (), }") + "\x01";
  ASSERT_THAT(ParseNpy(b, "b.npy"), IsOk());
  EXPECT_TRUE(ParseNpy(b, "b.npy")->shape.empty());
}

TEST(NpyTest, EveryDTypeRoundTrips) {
  for (DType t :
       {DType::kPred, DType::kS8, DType::kS16, DType::kS32, DType::kS64, DType::kU8, DType::kU16,
        DType::kU32, DType::kU64, DType::kF16, DType::kBF16, DType::kF32, DType::kF64}) {
    SCOPED_TRACE(NumpyName(t));
    std::string data(static_cast<size_t>(6 * ByteWidth(t)), '\x01');
    absl::StatusOr<std::string> f = WriteNpy(t, {2, 3}, data);
    ASSERT_THAT(f, IsOk());
    EXPECT_EQ((f->size() - data.size()) % 64, 0u);
    absl::StatusOr<NpyArray> a = ParseNpy(*f, "t.npy");
    ASSERT_THAT(a, IsOk());
    EXPECT_EQ(a->dtype, t);
    EXPECT_THAT(a->shape, ElementsAre(2, 3));
    EXPECT_EQ(a->data, data);
  }
  EXPECT_THAT(WriteNpy(DType::kF32, {2}, "abc").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 bytes for shape (2,)")));
}

TEST(NpyTest, BadHeadersNameTheFileAndTheProblem) {
  struct Case {
    std::string dict, data, error;
  };
  const std::string f4 = "'descr': '<f4', 'fortran_order': False, ";
  for (const Case& c : {
           Case{"{" + f4 + "'shape': (2,), }", std::string(7, '\0'),
                "shape (2,) of float32 needs 8 bytes of data, the file has 7"},
           Case{"{" + f4 + "'shape': (-1,), }", "", "negative dimension in shape (-1,)"},
           Case{"{" + f4 + "'shape': (4294967296, 4294967296, 4), }", "",
                "needs more than 2^63 bytes"},
           Case{"{" + f4 + "'shape': (99999999999999999999,), }", "", "a dimension past int64"},
           Case{"{'descr': '>f4', 'fortran_order': False, 'shape': (), }", "",
                "big-endian data ('>f4') is not supported"},
           Case{"{'descr': '<c8', 'fortran_order': False, 'shape': (), }", "",
                "dtype '<c8' is not supported"},
           Case{"{'descr': '<f4', 'fortran_order': True, 'shape': (), }", std::string(4, '\0'),
                "fortran_order=True is not supported"},
           Case{"{'descr': '<f4', 'shape': (), }", "", "the .npy header has no 'fortran_order'"},
           Case{"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2 }", "",
                "expected ',' or ')'"},
           Case{"{'descr': '<f4', 'fortran_order': 0, 'shape': () }", "",
                "expected a string, True, False or a tuple"},
           Case{"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': () }", "",
                "key 'descr' twice"},
       }) {
    SCOPED_TRACE(c.dict);
    EXPECT_THAT(ParseNpy(NumpyHeader(c.dict) + c.data, "w.npy").status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("w.npy: ")));
    EXPECT_THAT(ParseNpy(NumpyHeader(c.dict) + c.data, "w.npy").status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)));
  }
  EXPECT_THAT(ParseNpy("PK\x03\x04", "w.npy").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("w.npy: not a .npy file")));
  std::string huge = "\x93NUMPY\x02";
  huge += std::string("\0\0\0\0\x10", 5);  // version 2.0, a header of 2^28 bytes claimed
  EXPECT_THAT(ParseNpy(huge + "{}", "w.npy").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the .npy header claims 268435456 bytes, more than 65536")));
}

// Every prefix of a valid file, and the file with each byte replaced by a random one, parse
// to a value or an error (never a crash or an out-of-range read, which the sanitizer build
// would report).
TEST(NpyTest, TruncatedAndMutatedFilesNeverCrash) {
  absl::StatusOr<std::string> f = WriteNpy(DType::kS16, {3, 2}, std::string(12, '\x07'));
  ASSERT_THAT(f, IsOk());
  for (size_t n = 0; n < f->size(); ++n) {
    EXPECT_FALSE(ParseNpy(f->substr(0, n), "t.npy").ok()) << n;
  }
  std::mt19937_64 rng(testing_support::TestSeed(7));
  int parsed = 0;
  for (int round = 0; round < 20; ++round) {
    for (size_t i = 0; i < f->size(); ++i) {
      std::string m = *f;
      m[i] = static_cast<char>(rng());
      absl::StatusOr<NpyArray> a = ParseNpy(m, "t.npy");
      if (!a.ok()) {
        EXPECT_THAT(a.status().message(), HasSubstr("t.npy: "));
        continue;
      }
      ++parsed;
      EXPECT_EQ(a->data.size(),
                static_cast<size_t>(ByteWidth(a->dtype)) * (a->shape.empty() ? 1 : [&] {
                  size_t p = 1;
                  for (int64_t d : a->shape) p *= static_cast<size_t>(d);
                  return p;
                }()));
    }
  }
  EXPECT_GT(parsed, 0);  // the padding and the data bytes change nothing that is checked
}

}  // namespace
}  // namespace axe

namespace axe {
namespace {

// A zip archive of stored entries, as np.savez writes it (without zip64 fields).
std::string Zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  auto le = [](uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return s;
  };
  std::string body, dir;
  for (const auto& [name, data] : entries) {
    const uint64_t offset = body.size();
    body += std::string("PK\x03\x04", 4) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) +
            le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + name + data;
    dir += std::string("PK\x01\x02", 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
           le(0, 4) + le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) +
           le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + name;
  }
  return body + dir + std::string("PK\x05\x06", 4) + le(0, 2) + le(0, 2) + le(entries.size(), 2) +
         le(entries.size(), 2) + le(dir.size(), 4) + le(body.size(), 4) + le(0, 2);
}

TEST(NpzTest, ReadsStoredEntriesInOrder) {
  std::string a = *WriteNpy(DType::kF32, {2}, std::string(8, '\0'));
  std::string b = *WriteNpy(DType::kS8, {3}, "abc");
  absl::StatusOr<std::vector<NpzEntry>> z =
      ParseNpz(Zip({{"arr_0.npy", a}, {"w.npy", b}}), "c.npz");
  ASSERT_THAT(z, IsOk());
  ASSERT_EQ(z->size(), 2u);
  EXPECT_EQ((*z)[0].name, "arr_0");
  EXPECT_EQ((*z)[1].name, "w");
  EXPECT_EQ((*z)[1].array.dtype, DType::kS8);
  EXPECT_EQ((*z)[1].array.data, "abc");
  EXPECT_THAT(ParseNpz(Zip({{"notes.txt", "hi"}}), "c.npz").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("c.npz: entry 'notes.txt' is not an .npy file")));
  EXPECT_THAT(ParseNpz(Zip({{"w.npy", "bad"}}), "c.npz").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("c.npz entry 'w.npy': not a .npy file")));
  EXPECT_THAT(ParseNpz(a, "c.npz").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("c.npz: not an .npz file")));
}

TEST(NpzTest, TruncatedAndMutatedArchivesNeverCrash) {
  std::string z = Zip({{"arr_0.npy", *WriteNpy(DType::kU16, {2}, "abcd")},
                       {"arr_1.npy", *WriteNpy(DType::kPred, {}, "\x01")}});
  ASSERT_THAT(ParseNpz(z, "c.npz"), IsOk());
  for (size_t n = 0; n < z.size(); ++n) EXPECT_FALSE(ParseNpz(z.substr(0, n), "c.npz").ok()) << n;
  std::mt19937_64 rng(testing_support::TestSeed(11));
  for (int round = 0; round < 10; ++round) {
    for (size_t i = 0; i < z.size(); ++i) {
      std::string m = z;
      m[i] = static_cast<char>(rng());
      absl::StatusOr<std::vector<NpzEntry>> r = ParseNpz(m, "c.npz");
      if (!r.ok()) {
        EXPECT_THAT(r.status().message(), HasSubstr("c.npz"));
      }
    }
  }
}

}  // namespace
}  // namespace axe
