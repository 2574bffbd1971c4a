/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Named hardware axes of Axe layouts: thread axes (with the scope pair
 * subscope -> scope they index, e.g. laneid: thread -> warp), memory axes
 * (m, P, F, Bank, TCol, TLane, reg, Col, Lane) and device axes of a mesh
 * (gpuid, device, and any axis a user declares as one). The built-in table
 * is TIRx's registry plus the Axe paper's names; names nobody registered are
 * memory axes. Declarations go to a small process-wide table guarded by a
 * lock; lookups copy the answer out, so layout values never depend on it.
 */
#ifndef AXE_AXIS_H
#define AXE_AXIS_H

#include <stdbool.h>
#include <stdint.h>

#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Axis names are 1 to 15 bytes of [A-Za-z0-9_] (digit names such as "0",
 * "1" are the coordinate axes of CuTe scaled-basis strides). */
#define AXE_AXIS_NAME_MAX 16
#define AXE_AXIS_DECLARED_MAX 64

typedef enum axe_axis_kind {
    AXE_AXIS_MEMORY,
    AXE_AXIS_THREAD,
    AXE_AXIS_DEVICE
} axe_axis_kind;

/* Scope ranks as TIRx's (smaller = wider); NONE for memory/device axes. */
typedef enum axe_scope {
    AXE_SCOPE_NONE = -2,
    AXE_SCOPE_KERNEL = -1,
    AXE_SCOPE_CLUSTER = 2,
    AXE_SCOPE_CTA = 3,
    AXE_SCOPE_WARPGROUP = 4,
    AXE_SCOPE_WARP = 5,
    AXE_SCOPE_THREAD = 6
} axe_scope;

typedef struct axe_axis_info {
    char name[AXE_AXIS_NAME_MAX];
    axe_axis_kind kind;
    axe_scope scope;    /* outer: the scope the axis enumerates within */
    axe_scope subscope; /* inner: the unit one step of the axis moves */
    bool registered; /* built in or declared (else: an unknown memory axis) */
} axe_axis_info;

/* What "name" is; unknown valid names are memory axes (registered false).
 * AXE_ERR_INVALID for a name that is not an identifier or is too long. */
AXE_NODISCARD AXE_API axe_status axe_axis_lookup(const char *name,
                                                 axe_axis_info *out,
                                                 axe_diag *diag);
/* Declare "name" (not built in) as a device or memory axis, or as a thread
 * axis with the pair "subscope" -> "scope". Redeclaring it the same way is
 * fine; differently is AXE_ERR_INVALID. Thread-safe. */
AXE_NODISCARD AXE_API axe_status axe_axis_declare(const char *name,
                                                  axe_axis_kind kind,
                                                  axe_scope subscope,
                                                  axe_scope scope,
                                                  axe_diag *diag);
/* "thread", "warp", ... ; "none" for AXE_SCOPE_NONE. */
AXE_API const char *axe_scope_name(axe_scope scope);
/* "memory", "thread", "device". */
AXE_API const char *axe_axis_kind_name(axe_axis_kind kind);

#ifdef __cplusplus
}
#endif

#endif
