/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Why copy.vector gets no vector on a laid-out plan (compiler_plan_vec.c
 * checks, this file says why): the first condition that the narrowest
 * width (2 elements, 8 for packed i4) fails, in the order the checks run
 * (max_common_vector, the innermost loop's length and stride, each
 * operand's start, the other loops' strides, the swizzles' runs). Every
 * wider width is a multiple of the narrowest, so a width that fails one
 * of the divisibility conditions at the narrowest fails it at every
 * width; the swizzle's (w at most its run) is the one condition that
 * holds for narrower widths, and is named last, when every other holds.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* The sizes of the vector accesses of "d" elements vector_width tries
 * ("2/4/8/16-byte": 2 elements, 8 of i4, up to 16 bytes) into "buf". */
static void access_sizes(axe_dtype d, char *buf, size_t cap)
{
    int64_t b = d == AXE_DTYPE_I4 ? 4 : 2 * axe_dtype_size(d);
    size_t n = 0;
    buf[0] = '\0';
    for (; b <= 16 && n < cap; b *= 2)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", n ? "/" : "",
                              (long long)b);
}

/* Why a swizzled operand "i" stops the vector: its swizzle keeps only
 * aligned runs of 2^M elements contiguous. */
static axe_status swizzle_refusal(const axe_program *p, const ax_stmt *s, int i,
                                  int64_t v, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[s->args[i].tensor];
    char sw[64], sizes[16];
    int64_t run = axe__swizzle_run(p, &s->args[i]);
    axe__swizzle_text(p, &s->args[i], sw, sizeof sw);
    access_sizes(p->tensors[s->args[0].tensor].dtype, sizes, sizeof sizes);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "max_common_vector of the per-thread layouts is %lld, "
                     "but '%s' is swizzled by %s, which keeps aligned runs "
                     "of only %lld element%s contiguous (max_common_vector "
                     "of the swizzled layouts: %lld, no %s-byte access)",
                     (long long)v, t->name, sw, (long long)run,
                     run == 1 ? "" : "s", (long long)(run < v ? run : v),
                     sizes);
}

/* Whether operand "i"'s start is not a multiple of "w", and why into
 * "buf". */
static bool base_cause(const axe_program *p, const ax_stmt *s, int i, int64_t w,
                       char *buf, size_t cap)
{
    const char *name = p->tensors[s->args[i].tensor].name;
    char e[48];
    ax_base b;
    axe__plan_base(p, &s->args[i], &b);
    if (b.cst % w != 0) {
        snprintf(buf, cap,
                 "'%s' starts at element %lld, not a multiple of %lld", name,
                 (long long)b.cst, (long long)w);
        return true;
    }
    for (int j = 0; j < b.ndyn; j++)
        if ((axe__expr_gcd(b.dyn[j]) * b.scale[j]) % w != 0) {
            if (axe__expr_text(p, b.dyn[j], e, sizeof e, 0) >= sizeof e)
                strcpy(e + sizeof e - 4, "...");
            snprintf(buf, cap,
                     "'%s' starts at (%s)*%lld, not known to be a multiple "
                     "of %lld",
                     name, e, (long long)b.scale[j], (long long)w);
            return true;
        }
    return false;
}

/* Whether loop "k" of "plan" in operand "i" stops a vector of "w" (the
 * innermost loop "kin" must step 1, the others a multiple of w), and
 * why into "buf". */
static bool stride_cause(const axe_program *p, const ax_stmt *s,
                         const ax_plan *plan, int kin, int k, int i, int64_t w,
                         char *buf, size_t cap)
{
    const ax_loop *lp = &plan->loops[k];
    const char *name = p->tensors[s->args[i].tensor].name;
    if (k == kin ? lp->stride[i] == 1 : lp->stride[i] % w == 0)
        return false;
    if (k == kin)
        snprintf(buf, cap,
                 "the innermost loop steps %lld elements in '%s', "
                 "not 1",
                 (long long)lp->stride[i], name);
    else
        snprintf(buf, cap,
                 "a loop of %lld (dim %d) steps %lld elements in "
                 "'%s', not a multiple of %lld",
                 (long long)lp->extent, lp->dim, (long long)lp->stride[i], name,
                 (long long)w);
    return true;
}

/* The first check of vector_width that the narrowest width "w" fails
 * on "plan" (every width is a multiple of it, so each fails it too),
 * its cause into "buf", and its ax_vec_at value; AX_VEC_AT_SWIZZLE if none
 * fails. */
static int width_cause(const axe_program *p, const ax_stmt *s,
                       const ax_plan *plan, int kin, int64_t v, int64_t w,
                       char *buf, size_t cap)
{
    const ax_loop *in = &plan->loops[kin];
    int i, k;
    if (v % w != 0) {
        snprintf(buf, cap, "max_common_vector is %lld, not a multiple of %lld",
                 (long long)v, (long long)w);
        return AX_VEC_AT_COMMON;
    }
    if (in->extent % w != 0) {
        snprintf(buf, cap,
                 "the innermost loop (dim %d) has %lld elements, "
                 "not a multiple of %lld",
                 in->dim, (long long)in->extent, (long long)w);
        return AX_VEC_AT_EXTENT;
    }
    for (i = 0; i < 2; i++)
        if (stride_cause(p, s, plan, kin, kin, i, w, buf, cap))
            return AX_VEC_AT_STRIDE1;
    for (i = 0; i < s->nargs; i++)
        if (base_cause(p, s, i, w, buf, cap))
            return AX_VEC_AT_BASE;
    for (i = 0; i < s->nargs; i++)
        for (k = 0; k < plan->nloops; k++)
            if (stride_cause(p, s, plan, kin, k, i, w, buf, cap))
                return AX_VEC_AT_STRIDES;
    return AX_VEC_AT_SWIZZLE;
}

/* See compiler_internal.h. */
axe_status axe__plan_no_vector(const axe_program *p, const ax_stmt *s,
                               const ax_plan *plan, int64_t v, int *at,
                               axe_diag *why)
{
    int kin = axe__plan_innermost_loop(plan);
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    char cause[200], sizes[16];
    bool i4 = t->dtype == AXE_DTYPE_I4;
    *at = width_cause(p, s, plan, kin, v, i4 ? 8 : 2, cause, sizeof cause);
    if (*at == AX_VEC_AT_SWIZZLE)
        return swizzle_refusal(p, s,
                               axe__swizzle_run(p, &s->args[0]) <
                                       axe__swizzle_run(p, &s->args[1])
                                   ? 0
                                   : 1,
                               v, why);
    if (i4)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is packed i4, whose vectors move 8, 16 or 32 "
                         "elements (4, 8 or 16 whole bytes), but %s",
                         t->name, cause);
    if (*at == AX_VEC_AT_COMMON)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "max_common_vector of the per-thread layouts is "
                         "%lld%s",
                         (long long)v, v > 1 ? ", not a multiple of 2" : "");
    access_sizes(t->dtype, sizes, sizeof sizes);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "max_common_vector is %lld but no %s-byte access of "
                     "%lld-byte elements applies: %s",
                     (long long)v, sizes, (long long)axe_dtype_size(t->dtype),
                     cause);
}
