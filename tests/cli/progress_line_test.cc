// The progress line's decisions and drawing, without a terminal: the "is a TTY" decision is
// an argument and the clock a fake one advanced by hand; Tick is called by the test (no
// ticker thread), so nothing depends on real time.
#include "progress.h"

#include <iostream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe::cli {
namespace {

TEST(ProgressWanted, OnlyOnATerminalWithoutJsonQuietOrTheEnvironmentSwitch) {
  EXPECT_TRUE(ProgressWanted(true, false, false, nullptr));
  EXPECT_FALSE(ProgressWanted(false, false, false, nullptr));  // piped or captured
  EXPECT_FALSE(ProgressWanted(true, true, false, nullptr));    // --json
  EXPECT_FALSE(ProgressWanted(true, false, true, nullptr));    // --quiet
  EXPECT_FALSE(ProgressWanted(true, false, false, "1"));       // AXE_NO_PROGRESS=1
  EXPECT_FALSE(ProgressWanted(true, false, false, "yes"));
  EXPECT_TRUE(ProgressWanted(true, false, false, ""));
  EXPECT_TRUE(ProgressWanted(true, false, false, "0"));
}

TEST(ProgressText, ElapsedAndWhereKnownRunsAndTimeLeft) {
  EXPECT_EQ(ProgressText("ir run", 1.5, 0, 0), "axe ir run: 1.5 s");
  EXPECT_EQ(ProgressText("relayout", 4.2, 0, 10), "axe relayout: run 0 of 10, 4.2 s");
  EXPECT_EQ(ProgressText("relayout", 4.0, 2, 10, 16.0),
            "axe relayout: run 2 of 10, 4.0 s, about 16.0 s left");
  EXPECT_EQ(ProgressText("reshard", 9.0, 10, 10), "axe reshard: run 10 of 10, 9.0 s");
  EXPECT_EQ(ProgressText("hlo summary", 125, 0, 0), "axe hlo summary: 2m05s");
  EXPECT_EQ(ProgressText("collective", 30, 1, 5, 120.0),
            "axe collective: run 1 of 5, 30.0 s, about 2m00s left");
}

TEST(ProgressTimeLeft, AtThePaceSinceTheFirstReport) {
  // Started at 10; setup took 3 s, the first report (run 1) came at 13, run 3 at 15: 1 s a
  // run, 7 runs left.
  EXPECT_EQ(ProgressTimeLeft(15, 10, 13, 1, 3, 10), 7.0);
  // One report so far: elapsed / done.
  EXPECT_EQ(ProgressTimeLeft(14, 10, 14, 2, 2, 10), 16.0);
  EXPECT_EQ(ProgressTimeLeft(14, 10, 14, 0, 0, 10), std::nullopt);   // nothing done yet
  EXPECT_EQ(ProgressTimeLeft(14, 10, 12, 1, 10, 10), std::nullopt);  // all done
  EXPECT_EQ(ProgressTimeLeft(14, 10, 12, 1, 5, 0), std::nullopt);    // no total
}

struct FakeTerminal {
  double now = 0;
  std::ostringstream out;
  ProgressLine::Options Options(bool show) {
    ProgressLine::Options o;
    o.show = show;
    o.clock = [this] { return now; };
    o.out = &out;
    o.ticker = false;
    return o;
  }
};

TEST(ProgressLine, DrawsAfterTheDelayInPlaceAndClearsAtTheEnd) {
  FakeTerminal t;
  {
    ProgressLine line("relayout", t.Options(true));
    t.now += 0.5;
    EXPECT_FALSE(line.Tick());  // under a second: nothing
    EXPECT_EQ(t.out.str(), "");
    t.now += 1.0;
    EXPECT_TRUE(line.Tick());
    ReportProgress(1, 4);  // the library's callback reaches the live line
    t.now += 1.0;
    EXPECT_TRUE(line.Tick());
    ReportProgress(3, 4);  // two runs in 1 s since the first report: 0.5 s a run
    EXPECT_TRUE(line.Tick());
  }
  EXPECT_EQ(t.out.str(),
            "\raxe relayout: 1.5 s\033[K"
            "\raxe relayout: run 1 of 4, 2.5 s, about 7.5 s left\033[K"
            "\raxe relayout: run 3 of 4, 2.5 s, about 0.5 s left\033[K"
            "\r\033[K");
}

TEST(ProgressLine, SilentWhenNotShownAndNothingToClearWhenQuick) {
  FakeTerminal hidden;
  {
    ProgressLine line("reshard", hidden.Options(false));
    hidden.now += 30;
    EXPECT_FALSE(line.Tick());
  }
  EXPECT_EQ(hidden.out.str(), "");
  FakeTerminal quick;
  {
    ProgressLine line("reshard", quick.Options(true));
    quick.now += 0.2;
    EXPECT_FALSE(line.Tick());
  }
  EXPECT_EQ(quick.out.str(), "");  // never drawn, so no clearing either
}

TEST(ProgressLine, NoDrawingAfterStop) {
  FakeTerminal t;
  ProgressLine line("ir run", t.Options(true));
  t.now += 2;
  EXPECT_TRUE(line.Tick());
  line.Stop();
  t.now += 2;
  EXPECT_FALSE(line.Tick());
  line.Stop();  // idempotent: cleared once
  EXPECT_EQ(t.out.str(), "\raxe ir run: 2.0 s\033[K\r\033[K");
}

// On the real streams the line gives way to output: the first write to std::cout clears it
// before the text, and it stays away; the streams get their own buffers back at the end.
TEST(ProgressLine, ClearedBeforeTheFirstOutputAndNotDrawnAgain) {
  std::ostringstream out, err;
  std::streambuf* cout_buffer = std::cout.rdbuf(out.rdbuf());
  std::streambuf* cerr_buffer = std::cerr.rdbuf(err.rdbuf());
  double now = 0;
  {
    ProgressLine::Options options;
    options.show = true;
    options.clock = [&now] { return now; };
    options.ticker = false;
    ProgressLine line("ir run", options);
    now = 2;
    EXPECT_TRUE(line.Tick());
    std::cout << "f32[2] [12.0, 16.0]\n";
    EXPECT_EQ(err.str(), "\raxe ir run: 2.0 s\033[K\r\033[K");
    now = 3;
    EXPECT_FALSE(line.Tick());
    std::cerr << "a message\n";
  }
  EXPECT_EQ(std::cout.rdbuf(), out.rdbuf());
  EXPECT_EQ(std::cerr.rdbuf(), err.rdbuf());
  std::cout.rdbuf(cout_buffer);
  std::cerr.rdbuf(cerr_buffer);
  EXPECT_EQ(out.str(), "f32[2] [12.0, 16.0]\n");
  EXPECT_EQ(err.str(), "\raxe ir run: 2.0 s\033[K\r\033[Ka message\n");
}

// On the command's own streams (Selected::out and err, here string streams): the same, and
// the process's std::cout and std::cerr are left alone.
TEST(ProgressLine, GivesWayToTheCommandsStreams) {
  std::ostringstream out, err;
  std::streambuf* const cout_buffer = std::cout.rdbuf();
  std::streambuf* const cerr_buffer = std::cerr.rdbuf();
  double now = 0;
  {
    ProgressLine::Options options;
    options.show = true;
    options.clock = [&now] { return now; };
    options.ticker = false;
    options.output = &out;
    options.err = &err;
    ProgressLine line("hlo summary", options);
    EXPECT_EQ(std::cout.rdbuf(), cout_buffer);
    EXPECT_EQ(std::cerr.rdbuf(), cerr_buffer);
    now = 2;
    EXPECT_TRUE(line.Tick());
    EXPECT_EQ(err.str(), "\raxe hlo summary: 2.0 s\033[K");
    out << "module m\n";
    EXPECT_EQ(err.str(), "\raxe hlo summary: 2.0 s\033[K\r\033[K");
    now = 3;
    EXPECT_FALSE(line.Tick());
  }
  EXPECT_EQ(out.str(), "module m\n");
  out << "after\n";  // its own buffer again
  EXPECT_EQ(out.str(), "module m\nafter\n");
  EXPECT_EQ(err.str(), "\raxe hlo summary: 2.0 s\033[K\r\033[K");
}

TEST(ProgressLine, ReportsReachOnlyTheLiveLine) {
  FakeTerminal t;
  { ProgressLine earlier("relayout", t.Options(true)); }
  ReportProgress(3, 10);  // no live line: dropped
  ProgressLine line("reshard", t.Options(true));
  t.now += 2;
  EXPECT_TRUE(line.Tick());
  EXPECT_EQ(t.out.str(), "\raxe reshard: 2.0 s\033[K");
}

}  // namespace
}  // namespace axe::cli
