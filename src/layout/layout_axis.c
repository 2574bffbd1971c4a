/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The axis registry: TIRx's built-in axes (spec §2, values as TIRx has
 * them, bx/by/bz included), the Axe paper's names (lane, warp: other
 * spellings of the axes laneid, warpid, see axe__axis_id; reg, Col, Lane:
 * memory; gpuid, device: device axes)
 * and a fixed table of user declarations. Names nobody registered are
 * memory axes with registered = false. Invariant: declared entries are
 * immutable once published; a writer fills entry k under a spinlock and
 * then publishes it by storing k + 1 into the count with release order, so
 * readers scan [0, count) without taking the lock.
 */
#include <stdatomic.h>

#include "layout_internal.h"

typedef struct builtin_axis {
    char name[AXE_AXIS_NAME_MAX];
    axe_axis_kind kind;
    axe_scope scope;
    axe_scope subscope;
} builtin_axis;

#define THREAD(n, sc, sub)                                                     \
    {                                                                          \
        n, AXE_AXIS_THREAD, AXE_SCOPE_##sc, AXE_SCOPE_##sub                    \
    }
#define MEMORY(n)                                                              \
    {                                                                          \
        n, AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE                     \
    }
#define DEVICE(n)                                                              \
    {                                                                          \
        n, AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE                     \
    }

static const builtin_axis builtins[] = {
    THREAD("bx", THREAD, CTA),
    THREAD("by", THREAD, CTA),
    THREAD("bz", THREAD, CTA),
    THREAD("cbx", CLUSTER, CTA),
    THREAD("cby", CLUSTER, CTA),
    THREAD("cbz", CLUSTER, CTA),
    THREAD("tx", CTA, THREAD),
    THREAD("warpid", CTA, WARP),
    THREAD("laneid", WARP, THREAD),
    THREAD("wgid", CTA, WARPGROUP),
    THREAD("tid_in_wg", WARPGROUP, THREAD),
    THREAD("wid_in_wg", WARPGROUP, WARP),
    THREAD("lane", WARP, THREAD),
    THREAD("warp", CTA, WARP),
    MEMORY("m"),
    MEMORY("P"),
    MEMORY("F"),
    MEMORY("Bank"),
    MEMORY("TCol"),
    MEMORY("TLane"),
    MEMORY("reg"),
    MEMORY("Col"),
    MEMORY("Lane"),
    DEVICE("gpuid"),
    DEVICE("device"),
};

#define NBUILTIN ((int)(sizeof builtins / sizeof builtins[0]))

const axe__name axe__name_m = {{'m'}};
const axe__name axe__name_laneid = {"laneid"}, axe__name_warpid = {"warpid"};

static axe_axis_info declared[AXE_AXIS_DECLARED_MAX];
static atomic_int ndeclared;
static atomic_flag declare_lock = ATOMIC_FLAG_INIT;

static bool is_name_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

bool axe__axis_name_valid(const char *s, size_t len)
{
    if (len == 0 || len >= AXE_AXIS_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_name_char((unsigned char)s[i]))
            return false;
    return true;
}

axe_status axe__axis_name(const char *s, char *out, axe_diag *diag)
{
    size_t len = 0;
    while (s != NULL && len < AXE_AXIS_NAME_MAX && s[len] != '\0')
        len++;
    if (s == NULL || !axe__axis_name_valid(s, len))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "invalid axis name: 1 to %d bytes of [A-Za-z0-9_]",
                         AXE_AXIS_NAME_MAX - 1);
    memset(out, 0, AXE_AXIS_NAME_MAX);
    memcpy(out, s, len);
    return AXE_OK;
}

/* The built-in entry of padded "name", or NULL. */
static const builtin_axis *find_builtin(const char *name)
{
    for (int i = 0; i < NBUILTIN; i++)
        if (axe__axis_eq(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

/* The published declaration of padded "name", or NULL. */
static const axe_axis_info *find_declared(const char *name)
{
    int n = atomic_load_explicit(&ndeclared, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (axe__axis_eq(declared[i].name, name))
            return &declared[i];
    return NULL;
}

void axe__axis_info(const char *name, axe_axis_info *out)
{
    const builtin_axis *b = find_builtin(name);
    const axe_axis_info *d;
    memcpy(out->name, name, AXE_AXIS_NAME_MAX);
    out->kind = AXE_AXIS_MEMORY;
    out->scope = AXE_SCOPE_NONE;
    out->subscope = AXE_SCOPE_NONE;
    out->registered = false;
    if (b != NULL) {
        out->kind = b->kind;
        out->scope = b->scope;
        out->subscope = b->subscope;
        out->registered = true;
    } else if ((d = find_declared(name)) != NULL) {
        *out = *d;
    }
}

bool axe__is_memory_axis(const char *name)
{
    axe_axis_info info;
    if (name[0] == 'm' && name[1] == '\0')
        return true;
    axe__axis_info(name, &info);
    return info.kind == AXE_AXIS_MEMORY;
}

bool axe__is_thread_axis(const char *name)
{
    axe_axis_info info;
    axe__axis_info(name, &info);
    return info.kind == AXE_AXIS_THREAD;
}

axe_status axe_axis_lookup(const char *name, axe_axis_info *out, axe_diag *diag)
{
    char padded[AXE_AXIS_NAME_MAX];
    AXE_TRY(axe__axis_name(name, padded, diag));
    axe__axis_info(padded, out);
    return AXE_OK;
}

static bool is_thread_scope(axe_scope s)
{
    return s >= AXE_SCOPE_CLUSTER && s <= AXE_SCOPE_THREAD;
}

/* The entry a declaration asks for, or INVALID with the reason. */
static axe_status declaration(const char *padded, axe_axis_kind kind,
                              axe_scope subscope, axe_scope scope,
                              axe_axis_info *out, axe_diag *diag)
{
    memcpy(out->name, padded, AXE_AXIS_NAME_MAX);
    out->kind = kind;
    out->registered = true;
    out->scope = AXE_SCOPE_NONE;
    out->subscope = AXE_SCOPE_NONE;
    if (kind == AXE_AXIS_MEMORY || kind == AXE_AXIS_DEVICE)
        return AXE_OK;
    if (kind != AXE_AXIS_THREAD)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "unknown axis kind %d",
                         (int)kind);
    if (!is_thread_scope(subscope) || !is_thread_scope(scope) ||
        scope >= subscope)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "thread axis %s needs a scope wider than its "
                         "subscope (cluster > cta > warpgroup > warp > "
                         "thread)",
                         padded);
    out->scope = scope;
    out->subscope = subscope;
    return AXE_OK;
}

static bool same_info(const axe_axis_info *a, const axe_axis_info *b)
{
    return a->kind == b->kind && a->scope == b->scope &&
           a->subscope == b->subscope;
}

/* Publish "want" unless declared already (same: fine, else INVALID). */
static axe_status publish(const axe_axis_info *want, axe_diag *diag)
{
    const axe_axis_info *have = find_declared(want->name);
    int n;
    if (have != NULL)
        return same_info(have, want)
                   ? AXE_OK
                   : axe__fail(diag, AXE_ERR_INVALID, -1,
                               "axis %s is already declared differently",
                               want->name);
    n = atomic_load_explicit(&ndeclared, memory_order_relaxed);
    if (n >= AXE_AXIS_DECLARED_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "at most %d axes can be declared",
                         AXE_AXIS_DECLARED_MAX);
    declared[n] = *want;
    atomic_store_explicit(&ndeclared, n + 1, memory_order_release);
    return AXE_OK;
}

axe_status axe_axis_declare(const char *name, axe_axis_kind kind,
                            axe_scope subscope, axe_scope scope, axe_diag *diag)
{
    char padded[AXE_AXIS_NAME_MAX];
    axe_axis_info want, have;
    axe_status st;
    AXE_TRY(axe__axis_name(name, padded, diag));
    AXE_TRY(declaration(padded, kind, subscope, scope, &want, diag));
    if (find_builtin(padded) != NULL) {
        axe__axis_info(padded, &have);
        return same_info(&have, &want)
                   ? AXE_OK
                   : axe__fail(diag, AXE_ERR_INVALID, -1,
                               "axis %s is built in and cannot be redeclared",
                               padded);
    }
    while (
        atomic_flag_test_and_set_explicit(&declare_lock, memory_order_acquire))
        ;
    st = publish(&want, diag);
    atomic_flag_clear_explicit(&declare_lock, memory_order_release);
    return st;
}

const char *axe_scope_name(axe_scope scope)
{
    switch (scope) {
    case AXE_SCOPE_NONE:
        return "none";
    case AXE_SCOPE_KERNEL:
        return "kernel";
    case AXE_SCOPE_CLUSTER:
        return "cluster";
    case AXE_SCOPE_CTA:
        return "cta";
    case AXE_SCOPE_WARPGROUP:
        return "warpgroup";
    case AXE_SCOPE_WARP:
        return "warp";
    case AXE_SCOPE_THREAD:
        return "thread";
    }
    return "none";
}

const char *axe_axis_kind_name(axe_axis_kind kind)
{
    switch (kind) {
    case AXE_AXIS_MEMORY:
        return "memory";
    case AXE_AXIS_THREAD:
        return "thread";
    case AXE_AXIS_DEVICE:
        return "device";
    }
    return "memory";
}
