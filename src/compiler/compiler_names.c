/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names of the kernel language's enumerations (operators, scopes, memory
 * kinds, dtypes), their C spellings, and the options of axe_program_compile.
 * Invariant: every table has one entry per enumerator, in order.
 */
#include <string.h>

#include "compiler_internal.h"

static const char *const op_names[] = {
    "copy",   "fill", "add",       "sub",        "mul",  "div",
    "max",    "min",  "neg",       "relu",       "exp",  "cast",
    "reduce", "sqrt", "gemm",      "atomic_add", "log",  "log2",
    "exp2",   "tanh", "erf",       "rsqrt",      "abs",  "sigmoid",
    "silu",   "gelu", "gelu_tanh", "pow",        "iota", "lt",
    "le",     "gt",   "ge",        "eq",         "ne",   "select"};
static const char *const red_names[] = {"sum", "max", "min", "argmax",
                                        "argmin"};
static const char *const scope_names[] = {"kernel", "cta", "warpgroup", "warp",
                                          "thread"};
static const char *const mem_names[] = {"global", "shared", "register"};
static const char *const dtype_names[] = {"f16", "bf16", "f32",  "f64", "i8",
                                          "i32", "e4m3", "e5m2", "i4"};
static const char *const dtype_ctypes[] = {"uint16_t", "uint16_t", "float",
                                           "double",   "int8_t",   "int32_t",
                                           "uint8_t",  "uint8_t",  "uint8_t"};
static const int dtype_sizes[] = {2, 2, 4, 8, 1, 4, 1, 1, 1};

/* "copy", "add", ... */
const char *axe__op_name(ax_op op) { return op_names[op]; }
/* "sum", "max", "min", "argmax", "argmin". */
const char *axe__red_name(ax_red r) { return red_names[r]; }
/* "cta", "warp", ... */
const char *axe__scope_name(ax_scope s) { return scope_names[s]; }
/* The scope "s" is written at: "core" in a core kernel (whose core is
 * the CTA), else its scope's name. */
const char *axe__stmt_scope_name(const axe_program *p, const ax_stmt *s)
{
    return p->core ? "core" : scope_names[s->scope];
}
/* "global", "shared", "register". */
const char *axe__mem_name(ax_mem m) { return mem_names[m]; }
/* The C99 type holding one element. */
const char *axe__dtype_ctype(axe_dtype t) { return dtype_ctypes[t]; }

/* "f32", ... */
const char *axe_dtype_name(axe_dtype t) { return dtype_names[t]; }
/* Bytes per element (i4: the byte that holds it). */
int axe_dtype_size(axe_dtype t) { return dtype_sizes[t]; }
/* Bits per element. */
int axe_dtype_bit_width(axe_dtype t)
{
    return t == AXE_DTYPE_I4 ? 4 : 8 * dtype_sizes[t];
}
/* Bytes of "n" elements from element 0 (header). */
int64_t axe_dtype_storage(axe_dtype t, int64_t n)
{
    if (n < 0)
        return -1;
    if (t == AXE_DTYPE_I4)
        return n / 2 + n % 2;
    if (n > INT64_MAX / dtype_sizes[t])
        return -1;
    return n * dtype_sizes[t];
}

/* The check's normwise tolerances (atol, rtol) per dtype: f16 about 5
 * ulps of R, bf16 likewise for its 8 bits, f32 and f64 a few ulps of a
 * reordered sum; integers exact; e4m3 and e5m2 one ulp of 1 (2^-3, 2^-2)
 * plus one of R. */
static const double dtype_tolerances[][2] = {
    [AXE_DTYPE_F16] = {5e-3, 5e-3},
    [AXE_DTYPE_BF16] = {4e-2, 4e-2},
    [AXE_DTYPE_F32] = {1e-6, 1e-5},
    [AXE_DTYPE_F64] = {1e-12, 1e-12},
    [AXE_DTYPE_I8] = {0, 0},
    [AXE_DTYPE_I32] = {0, 0},
    [AXE_DTYPE_E4M3] = {1.25e-1, 1.25e-1},
    [AXE_DTYPE_E5M2] = {2.5e-1, 2.5e-1},
    [AXE_DTYPE_I4] = {0, 0}};

axe_status axe_dtype_tolerance(axe_dtype t, double *atol, double *rtol)
{
    int n = (int)(sizeof dtype_tolerances / sizeof dtype_tolerances[0]);
    if ((int)t < 0 || (int)t >= n || atol == NULL || rtol == NULL)
        return AXE_ERR_INVALID;
    *atol = dtype_tolerances[t][0];
    *rtol = dtype_tolerances[t][1];
    return AXE_OK;
}

/* Threads in one instance of "s": the grid's (INT64_MAX if that
 * overflows), the CTA's, 128, 32 or 1. */
int64_t axe__scope_threads(const axe_program *p, ax_scope s)
{
    int64_t n = p->threads;
    int d;
    switch (s) {
    case AX_SCOPE_KERNEL:
        for (d = 0; d < 3; d++)
            if (axe__mul(n, p->grid[d], &n) != AXE_OK)
                return INT64_MAX;
        return n;
    case AX_SCOPE_CTA:
        return p->threads;
    case AX_SCOPE_WARPGROUP:
        return 128;
    case AX_SCOPE_WARP:
        return 32;
    case AX_SCOPE_THREAD:
        break;
    }
    return 1;
}

/* No defines, no forced schedules, the default accelerator model. */
void axe_kernel_options_init(axe_kernel_options *o)
{
    memset(o, 0, sizeof *o);
    axe_trn_model_default(&o->trn);
}

static bool name_fits(const char *s)
{
    return s != NULL && s[0] != '\0' && strlen(s) < AXE_KERNEL_NAME_MAX;
}

/* Record `-D name=value`; a later define of the same name wins. */
axe_status axe_kernel_options_define(axe_kernel_options *o, const char *name,
                                     int64_t value)
{
    int i;
    if (!name_fits(name))
        return AXE_ERR_INVALID;
    for (i = 0; i < o->ndefines; i++)
        if (strcmp(o->define_name[i], name) == 0)
            break;
    if (i == AXE_KERNEL_MAX_DEFINES)
        return AXE_ERR_CAPACITY;
    strcpy(o->define_name[i], name);
    o->define_value[i] = value;
    if (i == o->ndefines)
        o->ndefines++;
    return AXE_OK;
}

/* Record `--schedule op=schedule` (checked as
 * axe_kernel_options_check_force does). */
axe_status axe_kernel_options_force(axe_kernel_options *o, const char *op,
                                    const char *schedule)
{
    axe_diag why;
    if (!name_fits(op) || !name_fits(schedule) ||
        axe_kernel_options_check_force(o, op, schedule, &why) != AXE_OK)
        return AXE_ERR_INVALID;
    if (o->nforced == AXE_KERNEL_MAX_FORCED)
        return AXE_ERR_CAPACITY;
    strcpy(o->forced_op[o->nforced], op);
    strcpy(o->forced_schedule[o->nforced], schedule);
    o->nforced++;
    return AXE_OK;
}
