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
#include "axe/runtime/buffer_layout.h"
#include "axe/runtime/element_type.h"
#include "axe/runtime/relayout_plan.h"
#include "axe/runtime/relayout_reference.h"

#endif  // AXE_AXE_H_
