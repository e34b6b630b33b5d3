#include "axe/base/utf8.h"

#include <string>

#include "axe/base/scanner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace utf8_test {
namespace {

using ::testing::HasSubstr;

const std::string kFffd(kReplacementCharacter);

TEST(Utf8, SequenceLengths) {
  EXPECT_EQ(Utf8SequenceAt("a", 0).length, 1u);
  EXPECT_TRUE(Utf8SequenceAt("a", 0).valid);
  EXPECT_EQ(Utf8SequenceAt("\xC3\xA9", 0).length, 2u);          // é
  EXPECT_EQ(Utf8SequenceAt("\xE2\x82\xAC", 0).length, 3u);      // €
  EXPECT_EQ(Utf8SequenceAt("\xF0\x9F\x98\x80", 0).length, 4u);  // U+1F600
  EXPECT_TRUE(Utf8SequenceAt("\xF0\x9F\x98\x80", 0).valid);
  // Ill-formed: a lone continuation, a byte that never starts one, a truncated character,
  // an overlong form and a surrogate (their maximal subparts).
  for (absl::string_view bad : {"\x80", "\xFF", "\xC0\xAF", "\xE2\x82", "\xE0\x80", "\xED\xA0"}) {
    Utf8Sequence s = Utf8SequenceAt(bad, 0);
    EXPECT_FALSE(s.valid) << bad;
    EXPECT_EQ(s.length, absl::string_view(bad) == "\xE2\x82" ? 2u : 1u) << bad;
  }
}

TEST(Utf8, ToValidUtf8ReplacesMaximalSubparts) {
  EXPECT_EQ(ToValidUtf8("S[\xC3\xA9]"), "S[\xC3\xA9]");
  EXPECT_EQ(ToValidUtf8("S[\xFF]"), "S[" + kFffd + "]");
  EXPECT_EQ(ToValidUtf8("\xE2\x82"), kFffd);          // truncated: one U+FFFD
  EXPECT_EQ(ToValidUtf8("\xE2\x82x"), kFffd + "x");   // cut short by 'x'
  EXPECT_EQ(ToValidUtf8("\xC0\xAF"), kFffd + kFffd);  // C0 never starts one
  EXPECT_EQ(ToValidUtf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_TRUE(IsValidUtf8(ToValidUtf8("\x80\xBF\xFE\xC3")));
  EXPECT_FALSE(IsValidUtf8("\xC3"));
}

TEST(Utf8, SameRepairAsNlohmannReplace) {
  // JSON dumps and ToValidUtf8 repair a string the same way.
  for (const std::string text :
       {"S[\xFF]", "\xE2\x82", "\xC0\xAF x \xED\xA0\x80", "ok \xF0\x9F\x98", "\xF4\x90\x80\x80"}) {
    nlohmann::ordered_json j = text;
    EXPECT_EQ(DumpJson(j), nlohmann::ordered_json(ToValidUtf8(text)).dump()) << text;
  }
  EXPECT_EQ(DumpJson(nlohmann::ordered_json{{"error", "S[\xFF]"}}),
            "{\"error\":\"S[" + kFffd + "]\"}");
}

TEST(Utf8, PrefixAndSuffixKeepWholeCharacters) {
  const std::string text = "ab\xC3\xA9\xE2\x82\xAC";  // a b é €
  EXPECT_EQ(Utf8Prefix(text, 3), "ab");
  EXPECT_EQ(Utf8Prefix(text, 4), "ab\xC3\xA9");
  EXPECT_EQ(Utf8Prefix(text, 6), "ab\xC3\xA9");
  EXPECT_EQ(Utf8Suffix(text, 2), "");
  EXPECT_EQ(Utf8Suffix(text, 4), "\xE2\x82\xAC");
  EXPECT_EQ(Utf8Suffix(text, 5), "\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(Utf8CharStart(text, 3), 2u);
  EXPECT_EQ(Utf8CharStart(text, 6), 4u);
  EXPECT_EQ(Utf8CharStart("\x80\x80", 1), 1u);  // no lead byte: the byte itself
}

TEST(Utf8, ElideForMessageCutsBetweenCharacters) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "\xC3\xA9";  // 200 bytes of é
  const std::string elided = ElideForMessage(text, 43);
  EXPECT_TRUE(IsValidUtf8(elided)) << elided;
  EXPECT_EQ(elided, text.substr(0, 20) + "..." + text.substr(0, 20));
}

TEST(Utf8, ScannerQuotesWholeCharacters) {
  Scanner s("S[\xC3\xA9]");
  s.set_pos(2);
  EXPECT_EQ(s.Error("an iter").message(),
            "position 2: expected an iter, found '\xC3\xA9' in \"S[\xC3\xA9]\"");
  Scanner bad("S[\xFF]");
  bad.set_pos(2);
  EXPECT_THAT(bad.Error("an iter").message(), HasSubstr("found byte 0xff in"));
  // The context window of a long text starts and ends on character boundaries.
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "\xE2\x82\xAC";
  Scanner l(long_text);
  l.set_pos(150);
  const std::string message(l.Error("x").message());
  EXPECT_TRUE(IsValidUtf8(message)) << message;
  EXPECT_THAT(message, HasSubstr("found '\xE2\x82\xAC'"));
}

}  // namespace
}  // namespace utf8_test
}  // namespace axe
