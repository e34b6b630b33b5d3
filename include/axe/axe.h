// Umbrella header: everything axe offers.
#ifndef AXE_AXE_H_
#define AXE_AXE_H_

#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/base/thread_pool.h"
#include "axe/layout/apply.h"
#include "axe/layout/axis.h"
#include "axe/layout/canonical.h"
#include "axe/layout/coord.h"
#include "axe/layout/group.h"
#include "axe/layout/inverse.h"
#include "axe/layout/iter.h"
#include "axe/layout/layout.h"
#include "axe/layout/properties.h"
#include "axe/layout/render.h"
// The layout algebra and the layouts of real hardware.
#include "axe/layout/broadcast.h"
#include "axe/layout/direct_sum.h"
#include "axe/layout/maybe_layout.h"
#include "axe/layout/mesh.h"
#include "axe/layout/nvidia.h"
#include "axe/layout/pack.h"
#include "axe/layout/permute.h"
#include "axe/layout/slice.h"
#include "axe/layout/swizzle.h"
#include "axe/layout/tile.h"
#include "axe/layout/tile_of.h"
#include "axe/layout/tmem.h"
#include "axe/layout/trainium.h"

#endif  // AXE_AXE_H_
