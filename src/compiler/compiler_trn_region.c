/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operand regions of the accelerator's engine schedules (compiler_trn_region.h,
 * docs/compiler.md "The accelerator model"): a region a[s0 : +l0, s1 :
 * +l1] of a 2-D scratchpad tensor whose starts are constants or affine in
 * the kernel's loop variables (a tile of a multi-buffered sbuf tensor,
 * a[k % 2 * 128 : +128, 0 : 128]). An instruction table is computed once,
 * so it must hold for every value the starts take: the values are
 * enumerated from the loop variables' trip counts (an over-approximation
 * of the iterations, which only makes the checks stricter), and for each
 * the region's storage addresses must be a translate of those at the
 * first start, by an origin that is affine in each start's step number
 * (start - least) / gcd of the differences. Invariant: the storage
 * layout is grouped by the tensor's shape (sema), so an address is a sum
 * over the dims, a + H0(x0) + H1(x1), and the per-dim checks below imply
 * the two-dim statement of compiler_trn_region.h.
 */
#include <string.h>

#include "compiler_trn_region.h"

/* Loop-variable assignments enumerated per start, at most. */
#define AX_TRN_MAX_ASSIGN ((int64_t)1 << 16)

int64_t axe__trn_address(const ax_tensor *t, int64_t i, int64_t j)
{
    axe_point pt;
    int64_t a = 0;
    int k;
    if (axe_layout_apply_base(&t->layout, i * t->shape[1] + j, &pt, NULL) !=
        AXE_OK)
        return -1;
    for (k = 0; k < pt.n; k++)
        a += strcmp(pt.axis[k], "m") == 0 ? pt.v[k] : 0;
    return a;
}

/* The variables "e" reads into "vars" (distinct, "*n" of them); false
 * when it reads a tensor element. */
static bool vars_of(const ax_expr *e, int *vars, int *n)
{
    int i;
    if (e == NULL)
        return true;
    if (e->kind == AX_EX_LOAD)
        return false;
    if (e->kind == AX_EX_VAR) {
        for (i = 0; i < *n && vars[i] != e->var; i++)
            ;
        if (i == *n && *n < AX_MAX_VARS)
            vars[(*n)++] = e->var;
        return true;
    }
    return vars_of(e->a, vars, n) && vars_of(e->b, vars, n);
}

/* "v" into the sorted distinct values "vals" ("*n" of them); false when
 * it would be the AX_TRN_MAX_STARTS + 1st. */
static bool insert(int64_t *vals, int64_t *n, int64_t v)
{
    int64_t i = 0, j;
    while (i < *n && vals[i] < v)
        i++;
    if (i < *n && vals[i] == v)
        return true;
    if (*n == AX_TRN_MAX_STARTS)
        return false;
    for (j = *n; j > i; j--)
        vals[j] = vals[j - 1];
    vals[i] = v;
    (*n)++;
    return true;
}

/* A reason about start "e" of "role" ('t'). */
static axe_status start_fail(const axe_program *p, const char *role,
                             const ax_tensor *t, const ax_expr *e,
                             const char *what, axe_diag *why)
{
    char text[96];
    text[0] = '\0';
    (void)axe__expr_text(p, e, text, sizeof text, 0);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "step 0: %s ('%s') has the region start %s, which %s",
                     role, t->name, text, what);
}

/* The sorted distinct values of start "e" (NULL: 0) over all values of
 * the loop variables it reads. */
static axe_status start_values(const axe_program *p, const char *role,
                               const ax_tensor *t, const ax_expr *e,
                               int64_t *vals, int64_t *n, axe_diag *why)
{
    int vars[AX_MAX_VARS], nv = 0, i;
    int64_t env[AX_MAX_VARS], total = 1, q;
    *n = 0;
    if (!vars_of(e, vars, &nv))
        return start_fail(p, role, t, e, "reads a tensor element", why);
    for (i = 0; i < nv; i++) {
        if (p->var_scalar[vars[i]] != 0 || p->var_dtrip[vars[i]] != NULL)
            return start_fail(p, role, t, e,
                              "reads a runtime value (the engine's "
                              "instruction table is fixed at compile time)",
                              why);
        total *= axe__var_extent(p, vars[i]);
        if (total > AX_TRN_MAX_ASSIGN)
            return start_fail(p, role, t, e,
                              "takes more than 65536 loop-variable values "
                              "to check",
                              why);
    }
    memset(env, 0, sizeof env);
    for (q = 0; q < total; q++) {
        int64_t r = q;
        for (i = 0; i < nv; i++) {
            int64_t x = axe__var_extent(p, vars[i]);
            env[vars[i]] = r % x;
            r /= x;
        }
        if (!insert(vals, n, e != NULL ? axe__expr_eval(e, env) : 0))
            return start_fail(p, role, t, e, "takes more than 256 values", why);
    }
    return AXE_OK;
}

/* The storage offset of coordinate "x" of dim "d" (the other dim 0). */
static int64_t dim_address(const ax_tensor *t, int d, int64_t x)
{
    return d == 0 ? axe__trn_address(t, x, 0) : axe__trn_address(t, 0, x);
}

/* Dim "d" of the region: at every start in "vals" (sorted, "n" of them)
 * the "len" storage offsets are a translate of those at vals[0], by "*a"
 * per step of "*step" (the gcd of the values' differences; 1 for one
 * value) of the start: the origin is affine in the step number. */
static axe_status dim_check(const axe_program *p, const char *role,
                            const ax_ref *r, int d, const int64_t *vals,
                            int64_t n, int64_t *a, int64_t *step, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int64_t v0 = vals[0], h0 = dim_address(t, d, v0), i, u;
    *a = 0;
    *step = 0;
    for (i = 1; i < n; i++)
        *step = axe__gcd(vals[i] - v0, *step);
    if (n > 1)
        *a = dim_address(t, d, v0 + *step) - h0;
    *step = n > 1 ? *step : 1;
    for (i = 0; i < n; i++) {
        int64_t h = dim_address(t, d, vals[i]);
        if (vals[i] < 0 || vals[i] + r->len[d] > t->shape[d])
            return start_fail(p, role, t, r->start[d],
                              "leaves the tensor at some loop value", why);
        if (h != h0 + *a * ((vals[i] - v0) / *step))
            return start_fail(p, role, t, r->start[d],
                              "moves the region's origin non-affinely", why);
        for (u = 1; u < r->len[d]; u++)
            if (dim_address(t, d, vals[i] + u) - h !=
                dim_address(t, d, v0 + u) - h0)
                return start_fail(p, role, t, r->start[d],
                                  "changes the region's layout from one "
                                  "start to another",
                                  why);
    }
    return AXE_OK;
}

/* The declared layout of the region at "out->at", offset dropped. */
static axe_status region_layout(const ax_tensor *t, const ax_ref *r,
                                const char *role, ax_trn_region *out,
                                axe_diag *why)
{
    int64_t end[2] = {out->at[0] + r->len[0], out->at[1] + r->len[1]};
    bool found = false;
    axe_diag d;
    axe_diag_clear(&d);
    if (axe_layout_slice(&t->playout, t->shape, out->at, end, 2,
                         AXE_TARGET_NONE, &out->layout, &found, &d) != AXE_OK ||
        !found)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "step 0: %s ('%s'): the region [%lld:%lld, "
                         "%lld:%lld] has no layout: %s",
                         role, t->name, (long long)out->at[0],
                         (long long)end[0], (long long)out->at[1],
                         (long long)end[1], d.message);
    out->layout.noffset = 0;
    return AXE_OK;
}

/* The origin's residues modulo the free span over all start pairs (a
 * psum tensor's: where its instructions' tiles lie within a bank). */
static axe_status residues(const ax_tensor *t, const char *role,
                           int64_t (*vals)[AX_TRN_MAX_STARTS], const int64_t *a,
                           const int64_t *step, ax_trn_region *out,
                           axe_diag *why)
{
    int64_t i, j, k;
    out->nres = 0;
    for (i = 0; i < out->nstarts[0]; i++)
        for (j = 0; j < out->nstarts[1]; j++) {
            int64_t o = out->org +
                        a[0] * ((vals[0][i] - out->at[0]) / step[0]) +
                        a[1] * ((vals[1][j] - out->at[1]) / step[1]);
            int64_t f = o % t->fspan;
            for (k = 0; k < out->nres && out->res[k] != f; k++)
                ;
            if (k < out->nres)
                continue;
            if (out->nres == AX_TRN_MAX_RESIDUES)
                return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                                 "step 0: %s ('%s') starts at more than %d "
                                 "free offsets",
                                 role, t->name, AX_TRN_MAX_RESIDUES);
            out->res[out->nres++] = f;
        }
    return AXE_OK;
}

void axe__trn_origin_print_c(ax_text *t, const axe_program *p,
                             const ax_trn_origin *o)
{
    int j;
    axe__text_put(t, "%lldL", (long long)o->cst);
    for (j = 0; j < o->n; j++) {
        axe__text_put(t, " + (");
        axe__expr_print_c(t, p, o->start[j]);
        axe__text_put(t, " - %lldL) / %lldL * %lldL", (long long)o->at[j],
                      (long long)o->step[j], (long long)o->scale[j]);
    }
}

axe_status axe__trn_region(const axe_program *p, const ax_ref *r,
                           const char *role, ax_trn_region *out, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int64_t vals[2][AX_TRN_MAX_STARTS], a[2], step[2];
    ax_trn_origin *o = &out->origin;
    int d;
    memset(out, 0, sizeof *out);
    for (d = 0; d < 2; d++) {
        AXE_TRY(start_values(p, role, t, r->start[d], vals[d], &out->nstarts[d],
                             why));
        AXE_TRY(dim_check(p, role, r, d, vals[d], out->nstarts[d], &a[d],
                          &step[d], why));
        out->at[d] = vals[d][0];
    }
    out->org = axe__trn_address(t, out->at[0], out->at[1]);
    o->cst = out->org;
    for (d = 0; d < 2; d++)
        if (a[d] != 0) {
            o->start[o->n] = r->start[d];
            o->at[o->n] = out->at[d];
            o->step[o->n] = step[d];
            o->scale[o->n++] = a[d];
        }
    if (t->space == AX_SPACE_PSUM)
        AXE_TRY(residues(t, role, vals, a, step, out, why));
    return region_layout(t, r, role, out, why);
}
