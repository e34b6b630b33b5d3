// The picture of a whole HLO module (`axe hlo summary --svg`): the entry computation's
// instructions top to bottom in schedule order, each a row with its name, opcode and shape;
// a sharded instruction shows its sharding and a strip of its tiles coloured by device
// group; a collective is drawn in its opcode's colour with its device groups or pairs. At
// most kMaxHloPictureRows rows (a note says how many are left out).
#ifndef AXE_PICTURE_HLO_MODULE_PICTURE_H_
#define AXE_PICTURE_HLO_MODULE_PICTURE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"

namespace axe::picture {

inline constexpr size_t kMaxHloPictureRows = 400;

// Errors: a module without an ENTRY computation.
absl::StatusOr<std::string> HloModuleSvg(const sharding::HloModuleText& module,
                                         const sharding::HloModuleSummary& summary);

}  // namespace axe::picture

#endif  // AXE_PICTURE_HLO_MODULE_PICTURE_H_
