// HloModuleSvg: the picture of examples/hlo/matmul_2d.hlo (JAX's compiled module), checked
// as XML, by its labels, and byte for byte against its golden.
#include <string>

#include "axe/picture/hlo_module_picture.h"
#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"
#include "gmock/gmock.h"
#include "golden.h"
#include "gtest/gtest.h"
#include "xml_check.h"

namespace axe::picture {
namespace hlo_module_picture_test {
namespace {

using testing::CheckXml;
using testing::CompareGolden;
using ::testing::HasSubstr;

std::string ExampleModule() {
  return testing::ReadFileOrEmpty(std::string(AXE_DOCS_PICTURES_DIR) +
                                  "/../../examples/hlo/matmul_2d.hlo");
}

TEST(HloModuleSvg, Matmul2dGolden) {
  const std::string text = ExampleModule();
  ASSERT_FALSE(text.empty());
  absl::StatusOr<sharding::HloModuleText> module = sharding::ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<sharding::HloModuleSummary> summary = sharding::SummarizeHloModule(*module);
  ASSERT_TRUE(summary.ok()) << summary.status();
  absl::StatusOr<std::string> svg = HloModuleSvg(*module, *summary);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr(">ROOT %all-reduce = f32[16,16]{1,0} all-reduce</text>"));
  EXPECT_THAT(*svg, HasSubstr(">replica_groups={{0,1,2,3},{4,5,6,7}}, channel_id=1</text>"));
  EXPECT_THAT(*svg, HasSubstr(">sharding={devices=[2,4]&lt;=[8]}</text>"));
  EXPECT_TRUE(CompareGolden("hlo_matmul_2d.svg", *svg));
}

TEST(HloModuleSvg, LongModulesAreCut) {
  std::string text =
      "HloModule m\n\nENTRY %e (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n";
  for (size_t i = 0; i < kMaxHloPictureRows + 5; ++i) {
    text += "  %n" + std::to_string(i) + " = f32[4]{0} negate(%a)\n";
  }
  text += "  ROOT %out = f32[4]{0} copy(%a)\n}\n";
  absl::StatusOr<sharding::HloModuleText> module = sharding::ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<sharding::HloModuleSummary> summary = sharding::SummarizeHloModule(*module);
  ASSERT_TRUE(summary.ok()) << summary.status();
  absl::StatusOr<std::string> svg = HloModuleSvg(*module, *summary);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr("... 7 more instructions not drawn"));
}

}  // namespace
}  // namespace hlo_module_picture_test
}  // namespace axe::picture
