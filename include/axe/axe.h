/* SPDX-License-Identifier: Apache-2.0 */
/* The umbrella header: everything libaxe exports. */
#ifndef AXE_AXE_H
#define AXE_AXE_H

#include "axe/axis.h"
#include "axe/cute.h"
#include "axe/kernel.h"
#include "axe/layout.h"
#include "axe/linear.h"
#include "axe/mapping.h"
#include "axe/notation.h"
#include "axe/notation_mapping.h"
#include "axe/sharding.h"
#include "axe/status.h"
#include "axe/swizzle.h"
#include "axe/tuple.h"
#include "axe/version.h"

#endif
