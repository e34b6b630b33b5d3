#include "axe/explorer/connections.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace axe::explorer {
namespace connections_test {
namespace {

TEST(ClientConnectionsTest, RefusesPastTheLimitPerClient) {
  ClientConnections open(2);
  ClientConnections::Slot a = open.TryOpen("127.0.0.1");
  ClientConnections::Slot b = open.TryOpen("127.0.0.1");
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
  EXPECT_FALSE(open.TryOpen("127.0.0.1"));
  EXPECT_EQ(open.OpenCount("127.0.0.1"), 2);
  // Another client has its own count.
  ClientConnections::Slot other = open.TryOpen("::1");
  EXPECT_TRUE(other);
  EXPECT_EQ(open.OpenCount("::1"), 1);
}

TEST(ClientConnectionsTest, ASlotGivesItsPlaceBackWhenDestroyedOrMovedOver) {
  ClientConnections open(1);
  {
    ClientConnections::Slot a = open.TryOpen("10.0.0.1");
    EXPECT_TRUE(a);
    EXPECT_FALSE(open.TryOpen("10.0.0.1"));
    ClientConnections::Slot moved = std::move(a);
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from slot is empty
    EXPECT_TRUE(moved);
    EXPECT_EQ(open.OpenCount("10.0.0.1"), 1);
  }
  EXPECT_EQ(open.OpenCount("10.0.0.1"), 0);
  ClientConnections::Slot b = open.TryOpen("10.0.0.1");
  EXPECT_TRUE(b);
  b = ClientConnections::Slot();
  EXPECT_EQ(open.OpenCount("10.0.0.1"), 0);
  EXPECT_TRUE(open.TryOpen("10.0.0.1"));
}

TEST(ClientConnectionsTest, ManyTriesOpenOnlyTheLimit) {
  ClientConnections open(3);
  std::vector<ClientConnections::Slot> held;
  for (int i = 0; i < 10; ++i) {
    ClientConnections::Slot slot = open.TryOpen("c");
    if (slot) held.push_back(std::move(slot));
  }
  EXPECT_EQ(held.size(), 3u);
  held.clear();
  EXPECT_EQ(open.OpenCount("c"), 0);
}

}  // namespace
}  // namespace connections_test
}  // namespace axe::explorer
