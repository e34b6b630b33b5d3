// The .npy reader and writer (npy.h): the header's dict literal is read by a small bounded
// scanner (strings, True/False, tuples of integers), never evaluated.
#include "axe/base/npy.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"

namespace axe {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxRank = 64;

struct Descr {
  const char* code;
  DType dtype;
};

constexpr Descr kDescrs[] = {{"|b1", DType::kPred}, {"|i1", DType::kS8},  {"<i1", DType::kS8},
                             {"<i2", DType::kS16},  {"<i4", DType::kS32}, {"<i8", DType::kS64},
                             {"|u1", DType::kU8},   {"<u1", DType::kU8},  {"<u2", DType::kU16},
                             {"<u4", DType::kU32},  {"<u8", DType::kU64}, {"<f2", DType::kF16},
                             {"<f4", DType::kF32},  {"<f8", DType::kF64}, {"<V2", DType::kBF16}};

// One value of the header's dict: a string, a bool or a tuple of integers.
struct HeaderValue {
  enum class Kind { kString, kBool, kInts } kind = Kind::kString;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

class HeaderScanner {
 public:
  HeaderScanner(absl::string_view text, absl::string_view what) : text_(text), what_(what) {}

  absl::StatusOr<std::map<std::string, HeaderValue>> Dict() {
    std::map<std::string, HeaderValue> out;
    AXE_RETURN_IF_ERROR(Expect('{'));
    while (Skip(), Peek() != '}') {
      AXE_ASSIGN_OR_RETURN(std::string key, String());
      AXE_RETURN_IF_ERROR(Expect(':'));
      AXE_ASSIGN_OR_RETURN(HeaderValue v, Value());
      if (!out.emplace(key, std::move(v)).second)
        return Error(absl::StrCat("key '", key, "' twice"));
      Skip();
      if (Peek() == ',') ++pos_;
    }
    ++pos_;
    Skip();
    if (pos_ != text_.size()) return Error("text after the header's dict");
    return out;
  }

 private:
  absl::Status Error(absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what_, ": malformed .npy header at byte ", pos_, ": ", why));
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  absl::Status Expect(char c) {
    Skip();
    if (Peek() != c) return Error(absl::StrCat("expected '", std::string(1, c), "'"));
    ++pos_;
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> String() {
    Skip();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == absl::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  absl::StatusOr<int64_t> Int() {
    Skip();
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    int64_t v = 0;
    bool any = false;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      std::optional<int64_t> next = CheckedMul(v, int64_t{10});
      if (next) next = CheckedAdd(*next, int64_t{Peek() - '0'});
      if (!next) return Error("a dimension past int64");
      v = *next;
      any = true;
      ++pos_;
    }
    if (!any) return Error("expected an integer");
    if (Peek() == 'L') ++pos_;  // Python 2's long
    return text_[start] == '-' ? -v : v;
  }
  absl::StatusOr<HeaderValue> Value() {
    Skip();
    HeaderValue v;
    if (Peek() == '\'' || Peek() == '"') {
      AXE_ASSIGN_OR_RETURN(v.text, String());
      return v;
    }
    for (const auto& [word, flag] : {std::pair{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, std::string_view(word).size()) == word) {
        pos_ += std::string_view(word).size();
        v.kind = HeaderValue::Kind::kBool;
        v.flag = flag;
        return v;
      }
    }
    if (Peek() != '(') return Error("expected a string, True, False or a tuple");
    ++pos_;
    v.kind = HeaderValue::Kind::kInts;
    while (Skip(), Peek() != ')') {
      if (v.ints.size() >= kMaxRank)
        return Error(absl::StrCat("more than ", kMaxRank, " dimensions"));
      AXE_ASSIGN_OR_RETURN(int64_t d, Int());
      v.ints.push_back(d);
      Skip();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ')') {
        return Error("expected ',' or ')'");
      }
    }
    ++pos_;
    return v;
  }

  absl::string_view text_;
  absl::string_view what_;
  size_t pos_ = 0;
};

std::string ShapeText(absl::Span<const int64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

absl::StatusOr<DType> DTypeOfDescr(const std::string& descr, absl::string_view what) {
  for (const Descr& d : kDescrs) {
    if (descr == d.code) return d.dtype;
  }
  if (!descr.empty() && descr[0] == '>') {
    return absl::InvalidArgumentError(absl::StrCat(what, ": big-endian data ('", descr,
                                                   "') is not supported; save it little-endian"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": dtype '", descr,
      "' is not supported (bool, int8..int64, uint8..uint64, float16, bfloat16, float32, "
      "float64)"));
}

uint32_t LittleEndian(absl::string_view bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

}  // namespace

bool LooksLikeNpy(absl::string_view bytes) { return bytes.substr(0, kMagic.size()) == kMagic; }

absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes, absl::string_view what) {
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", why));
  };
  if (!LooksLikeNpy(bytes)) return refuse("not a .npy file (no \\x93NUMPY magic)");
  if (bytes.size() < 10) return refuse("truncated .npy preamble");
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3)
    return refuse(absl::StrCat(".npy version ", major, " is not 1, 2 or 3"));
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) return refuse("truncated .npy preamble");
  const size_t header_len = LittleEndian(bytes.substr(8, len_bytes));
  const size_t start = 8 + len_bytes;
  if (header_len > kMaxNpyHeaderBytes) {
    return refuse(absl::StrCat("the .npy header claims ", header_len, " bytes, more than ",
                               kMaxNpyHeaderBytes));
  }
  if (header_len > bytes.size() - start) {
    return refuse(absl::StrCat("the .npy header claims ", header_len, " bytes but the file has ",
                               bytes.size() - start, " after the preamble"));
  }
  HeaderScanner scanner(bytes.substr(start, header_len), what);
  AXE_ASSIGN_OR_RETURN(auto dict, scanner.Dict());
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (!dict.count(key)) return refuse(absl::StrCat("the .npy header has no '", key, "'"));
  }
  const HeaderValue& descr = dict["descr"];
  const HeaderValue& fortran = dict["fortran_order"];
  const HeaderValue& shape = dict["shape"];
  if (descr.kind != HeaderValue::Kind::kString) return refuse("'descr' is not a string");
  if (fortran.kind != HeaderValue::Kind::kBool) return refuse("'fortran_order' is not a bool");
  if (shape.kind != HeaderValue::Kind::kInts) return refuse("'shape' is not a tuple of integers");
  NpyArray a;
  AXE_ASSIGN_OR_RETURN(a.dtype, DTypeOfDescr(descr.text, what));
  if (fortran.flag) {
    return refuse(
        "fortran_order=True is not supported; save a C-ordered array "
        "(np.ascontiguousarray)");
  }
  std::optional<int64_t> n = int64_t{1};
  for (int64_t d : shape.ints) {
    if (d < 0) return refuse(absl::StrCat("negative dimension in shape ", ShapeText(shape.ints)));
    if (n) n = CheckedMul(*n, d);
  }
  const int64_t item = ByteWidth(a.dtype);
  std::optional<int64_t> need = n ? CheckedMul(*n, item) : std::nullopt;
  const size_t have = bytes.size() - start - header_len;
  if (!need || static_cast<uint64_t>(*need) != have) {
    return refuse(absl::StrCat("shape ", ShapeText(shape.ints), " of ", NumpyName(a.dtype),
                               " needs ", need ? absl::StrCat(*need) : "more than 2^63",
                               " bytes of data, the file has ", have));
  }
  a.shape = shape.ints;
  a.data = std::string(bytes.substr(start + header_len));
  return a;
}

absl::StatusOr<std::string> WriteNpy(DType dtype, absl::Span<const int64_t> shape,
                                     absl::string_view data) {
  const char* code = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.dtype == dtype && code == nullptr) code = d.code;
  }
  if (code == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(".npy cannot hold dtype ", NumpyName(dtype)));
  }
  std::optional<int64_t> n = int64_t{1};
  for (int64_t d : shape) n = n && d >= 0 ? CheckedMul(*n, d) : std::nullopt;
  std::optional<int64_t> need = n ? CheckedMul(*n, ByteWidth(dtype)) : std::nullopt;
  if (!need || static_cast<uint64_t>(*need) != data.size()) {
    return absl::InvalidArgumentError(absl::StrCat("WriteNpy: ", data.size(), " bytes for shape ",
                                                   ShapeText(shape), " of ", NumpyName(dtype)));
  }
  std::string header = absl::StrCat(
      "{'descr': '", code, "', 'fortran_order': False, 'shape': ", ShapeText(shape), ", }");
  // NumPy pads with spaces so that the data starts at a multiple of 64, then a newline.
  const size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(data.data(), data.size());
  return out;
}

namespace {

constexpr size_t kMaxNpzEntries = 4096;

uint64_t ReadLE(absl::string_view bytes, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t k = n; k-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[at + k]);
  return v;
}

// The zip64 extra field's values that replace the 0xFFFFFFFF ones, in the zip's order
// (uncompressed size, compressed size, local header offset).
absl::Status ApplyZip64(absl::string_view extra, std::vector<uint64_t*> fields,
                        absl::string_view what) {
  for (size_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = ReadLE(extra, at, 2), size = ReadLE(extra, at + 2, 2);
    if (at + 4 + size > extra.size()) break;
    if (id == 1) {
      size_t next = at + 4;
      for (uint64_t* f : fields) {
        if (*f != 0xFFFFFFFFu) continue;
        if (next + 8 > at + 4 + size) {
          return absl::InvalidArgumentError(absl::StrCat(what, ": malformed zip64 field"));
        }
        *f = ReadLE(extra, next, 8);
        next += 8;
      }
    }
    at += 4 + size;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<NpzEntry>> ParseNpz(absl::string_view bytes, absl::string_view what) {
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", why));
  };
  // The end of central directory record: the last "PK\5\6" within the final 64 KiB + 22.
  if (bytes.size() < 22) return refuse("not an .npz file (too short for a zip archive)");
  size_t eocd = absl::string_view::npos;
  const size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
  for (size_t at = bytes.size() - 22 + 1; at-- > lowest;) {
    if (bytes.substr(at, 4) == absl::string_view("PK\x05\x06", 4)) {
      eocd = at;
      break;
    }
  }
  if (eocd == absl::string_view::npos) return refuse("not an .npz file (no zip directory)");
  if (ReadLE(bytes, eocd + 4, 2) != 0 || ReadLE(bytes, eocd + 6, 2) != 0) {
    return refuse("split zip archives are not supported");
  }
  const uint64_t count = ReadLE(bytes, eocd + 10, 2);
  const uint64_t dir_size = ReadLE(bytes, eocd + 12, 4);
  const uint64_t dir_offset = ReadLE(bytes, eocd + 16, 4);
  if (count > kMaxNpzEntries) return refuse(absl::StrCat("more than ", kMaxNpzEntries, " entries"));
  if (dir_offset > eocd || dir_size > eocd - dir_offset) {
    return refuse("the zip directory lies outside the file");
  }
  std::vector<NpzEntry> out;
  size_t at = dir_offset;
  for (uint64_t e = 0; e < count; ++e) {
    if (at + 46 > eocd || bytes.substr(at, 4) != absl::string_view("PK\x01\x02", 4)) {
      return refuse(absl::StrCat("zip directory entry ", e, " is malformed"));
    }
    const uint64_t flags = ReadLE(bytes, at + 8, 2), method = ReadLE(bytes, at + 10, 2);
    uint64_t packed = ReadLE(bytes, at + 20, 4), size = ReadLE(bytes, at + 24, 4);
    const uint64_t name_len = ReadLE(bytes, at + 28, 2), extra_len = ReadLE(bytes, at + 30, 2);
    const uint64_t comment_len = ReadLE(bytes, at + 32, 2);
    uint64_t local = ReadLE(bytes, at + 42, 4);
    if (at + 46 + name_len + extra_len + comment_len > eocd) {
      return refuse(absl::StrCat("zip directory entry ", e, " runs past the directory"));
    }
    std::string name(bytes.substr(at + 46, name_len));
    AXE_RETURN_IF_ERROR(
        ApplyZip64(bytes.substr(at + 46 + name_len, extra_len), {&size, &packed, &local}, what));
    at += 46 + name_len + extra_len + comment_len;
    const std::string entry = absl::StrCat(what, " entry '", name, "'");
    if ((flags & 1) != 0) return refuse(absl::StrCat("entry '", name, "' is encrypted"));
    if (method != 0) {
      return refuse(absl::StrCat("entry '", name,
                                 "' is compressed (np.savez_compressed); save with np.savez"));
    }
    if (packed != size) return refuse(absl::StrCat("entry '", name, "' has two sizes"));
    if (local > eocd || eocd - local < 30 ||
        bytes.substr(local, 4) != absl::string_view("PK\x03\x04", 4)) {
      return refuse(absl::StrCat("entry '", name, "' has no local header"));
    }
    const uint64_t data = local + 30 + ReadLE(bytes, local + 26, 2) + ReadLE(bytes, local + 28, 2);
    if (data > eocd || size > eocd - data) {
      return refuse(absl::StrCat("entry '", name, "' runs past the archive"));
    }
    absl::string_view stem = name;
    if (!absl::ConsumeSuffix(&stem, ".npy")) {
      return refuse(absl::StrCat("entry '", name, "' is not an .npy file"));
    }
    AXE_ASSIGN_OR_RETURN(NpyArray a, ParseNpy(bytes.substr(data, size), entry));
    out.push_back(NpzEntry{std::string(stem), std::move(a)});
  }
  return out;
}

}  // namespace axe
