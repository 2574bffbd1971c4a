/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Semantic checks of operator statements: operand shapes (a region's
 * lengths, a view's shard extents) equal the destination's, dtypes agree
 * with the operator, regions and views stay inside their tensors for all
 * values of the ids and loop variables (interval bounds), an operator at
 * scope S reads no id finer than S, and register operands belong to S
 * (per-thread registers at thread scope, distributed ones at their
 * owner's scope). Marks written tensors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler_math.h"

static axe_status ref_shape(const axe_program *p, ax_ref *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int d;
    if (r->is_view) {
        r->ndim = r->view.nshard;
        for (d = 0; d < r->ndim; d++)
            r->len[d] = r->view.shard[d].extent;
        return AXE_OK;
    }
    if (r->ndim == 0 && t->dyn_extent != NULL)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' has a runtime extent: an operand names a "
                         "region of it, e.g. '%s[r : +32, ...]'",
                         t->name, t->name);
    if (r->ndim == 0) {
        r->ndim = t->ndim;
        for (d = 0; d < t->ndim; d++)
            r->len[d] = t->shape[d];
        return AXE_OK;
    }
    if (r->ndim != t->ndim)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' has %d dimensions but the region gives %d",
                         t->name, t->ndim, r->ndim);
    return AXE_OK;
}

/* A region start or view offset is affine in the ids and loop variables
 * (the "affine dynamic starts"; // and % by constants allowed): a
 * product of two run-time values is refused at its operator. */
static axe_status check_affine(const axe_program *p, const ax_expr *e,
                               const char *what, axe_diag *diag)
{
    const ax_expr *m = axe__expr_nonaffine(e);
    char a[64], b[64];
    if (m == NULL)
        return AXE_OK;
    (void)axe__expr_text(p, m->a, a, sizeof a, 0);
    (void)axe__expr_text(p, m->b, b, sizeof b, 0);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, m->off,
                     "%s multiplies two run-time values (%s, %s); it must be "
                     "affine in the ids and loop variables",
                     what, a, b);
}

/* The `!=` condition "g" removed an end of its variable's range (drop_end:
 * its value lies outside the narrowed bounds). */
static bool dropped_end(const axe_program *p, const ax_guard *g)
{
    int v, cmp;
    int64_t a, k, w;
    if (!axe__guard_one_var(g, &v, &a, &k, &cmp) || cmp != 5 ||
        k == INT64_MIN || k % a != 0 || p->var_lo[v] > p->var_hi[v])
        return false;
    w = -(k / a);
    return w < p->var_lo[v] || w > p->var_hi[v];
}

/* After the out-of-bounds diagnostic in "diag" (status "st"), one note
 * per enclosing condition of "g" that gave the proof no fact, with why
 * (axe__guard_no_fact), as the program's complete diagnostic. */
static axe_status note_guards(axe_program *p, const ax_guard *g, axe_status st,
                              const axe_diag *diag)
{
    ax_text full;
    int n = 0;
    if (diag == NULL)
        return st;
    axe__text_init(&full, p->arena);
    axe__text_put(&full, "%s", diag->message);
    for (; g != NULL; g = g->up) {
        const char *why = dropped_end(p, g) ? NULL : axe__guard_no_fact(g);
        char cond[2 * AX_COND_SIDE_MAX + 8];
        if (why == NULL)
            continue;
        axe__cond_text(p, g, 63, cond, sizeof cond);
        axe__text_put(&full, "\nthe condition '%s'%s was not used: %s", cond,
                      g->negate ? " (its else)" : "", why);
        n++;
    }
    if (full.status != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    if (n > 0)
        p->full_diag = full.buf;
    return st;
}

/* The diagnostic for dimension "d" of "r" that no bound proves: with a
 * runtime extent, the expression of the extent and the guard to write. */
static axe_status oob_message(const axe_program *p, const ax_ref *r, int d,
                              int64_t lo, int64_t end, bool below,
                              axe_diag *diag);

/* The diagnostic (oob_message) and the notes on the conditions "g" of
 * the operator that gave no fact (note_guards). */
static axe_status out_of_bounds(axe_program *p, const ax_guard *g,
                                const ax_ref *r, int d, int64_t lo, int64_t end,
                                bool below, axe_diag *diag)
{
    return note_guards(p, g, oob_message(p, r, d, lo, end, below, diag), diag);
}

static axe_status oob_message(const axe_program *p, const ax_ref *r, int d,
                              int64_t lo, int64_t end, bool below,
                              axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    long off = r->start[d] != NULL ? r->start[d]->off : r->off;
    char st[64], ext[64];
    if (d > 0 || t->dyn_extent == NULL)
        return axe__fail(diag, AXE_ERR_DOMAIN, off,
                         "region of '%s' out of bounds: dimension %d "
                         "covers [%lld, %lld) but the extent is %lld",
                         t->name, d, (long long)lo, (long long)end,
                         (long long)t->shape[d]);
    if (r->start[d] == NULL)
        strcpy(st, "0");
    else if (axe__expr_text(p, r->start[d], st, sizeof st, 0) >= sizeof st)
        strcpy(st + sizeof st - 4, "...");
    if (axe__expr_text(p, t->dyn_extent, ext, sizeof ext, 0) >= sizeof ext)
        strcpy(ext + sizeof ext - 4, "...");
    if (below)
        return axe__fail(diag, AXE_ERR_DOMAIN, off,
                         "region of '%s' may be out of bounds: dimension 0 "
                         "starts at %s, which may be negative for some "
                         "values of the runtime scalars; guard it (e.g. "
                         "'if (%s >= 0)')",
                         t->name, st, st);
    return axe__fail(diag, AXE_ERR_DOMAIN, off,
                     "region of '%s' may be out of bounds: dimension 0 "
                     "covers [%s, %s + %lld), which may pass the runtime "
                     "extent %s; guard it (e.g. 'if (%s + %lld <= %s)')",
                     t->name, st, st, (long long)r->len[d], ext, st,
                     (long long)r->len[d], ext);
}

/* A region's lengths are positive and its starts affine; unless "dead"
 * (the operator never runs), it lies inside its tensor for every value of
 * the ids, loop variables and runtime scalars that the enclosing guards
 * allow (interval bounds, else compiler_sema_bound.c). */
static axe_status check_region(axe_program *p, const ax_stmt *s,
                               const ax_ref *r, bool dead, axe_diag *diag);

/* A data-dependent start (`Emb[ids[t] : +1, ...]`) reads one element of
 * an i32 or i8 tensor that the operator's threads can address (global,
 * shared, or a per-thread register at thread scope), at coordinates in
 * bounds; one element per start; copy, fill and elementwise operators
 * only. Its own bounds are checked at run time (compiler_emit_check.c). */
static axe_status check_load(axe_program *p, const ax_stmt *s,
                             const ax_expr *start, bool dead, axe_diag *diag)
{
    int n;
    const ax_expr *ld = axe__expr_load(start, &n);
    const ax_tensor *t = &p->tensors[ld->load->tensor];
    if (n > 1)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, start->off,
                         "a region start reads %d tensor elements; at most "
                         "one is supported",
                         n);
    if (t->dtype != AXE_DTYPE_I32 && t->dtype != AXE_DTYPE_I8)
        return axe__fail(diag, AXE_ERR_INVALID, ld->off,
                         "a data-dependent start reads '%s', which is %s: "
                         "it must be i32 or i8",
                         t->name, axe_dtype_name(t->dtype));
    if (t->mem == AX_MEM_REGISTER &&
        (t->distributed || s->scope != AX_SCOPE_THREAD))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, ld->off,
                         "a data-dependent start reads register '%s': only a "
                         "per-thread register in a thread-scope operator",
                         t->name);
    if (s->op == AX_OP_REDUCE || s->op == AX_OP_GEMM)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, ld->off,
                         "data-dependent starts are supported in copy, fill "
                         "and elementwise operators, not in %s",
                         axe__op_name(s->op));
    if (ld->load->ndim != t->ndim)
        return axe__fail(diag, AXE_ERR_INVALID, ld->off,
                         "'%s' has %d dimensions but the element gives %d",
                         t->name, t->ndim, ld->load->ndim);
    return check_region(p, s, ld->load, dead, diag);
}

/* A masked region (`A[r : +128 masked 0.0, ...]`) is of a global or
 * shared tensor, in a copy, fill or elementwise operator, with a fill
 * value that its dtype can hold (within float's range below f64). */
static axe_status check_masked(const axe_program *p, const ax_stmt *s,
                               const ax_ref *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    if (t->mem == AX_MEM_REGISTER)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' is a register: only regions of global and "
                         "shared tensors may be masked",
                         t->name);
    if (s->op == AX_OP_REDUCE || s->op == AX_OP_GEMM ||
        s->op == AX_OP_ATOMIC_ADD)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                         "masked regions are supported in copy, fill and "
                         "elementwise operators, not in %s",
                         axe__op_name(s->op));
    if (t->dtype != AXE_DTYPE_F64 && !isinf(r->fill) &&
        !(r->fill >= -3.4028234663852886e38 &&
          r->fill <= 3.4028234663852886e38))
        return axe__fail(diag, AXE_ERR_DOMAIN, r->off,
                         "the fill value %g of '%s' is beyond the range of "
                         "float",
                         r->fill, t->name);
    return AXE_OK;
}

static axe_status check_region(axe_program *p, const ax_stmt *s,
                               const ax_ref *r, bool dead, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int d, n;
    if (r->any_masked)
        AXE_TRY(check_masked(p, s, r, diag));
    for (d = 0; d < r->ndim; d++) {
        int64_t lo = 0, hi = 0, end;
        bool dyn = d == 0 && t->dyn_extent != NULL;
        if (r->len[d] <= 0)
            return axe__fail(diag, AXE_ERR_DOMAIN, r->off,
                             "region of '%s': dimension %d has length %lld",
                             t->name, d, (long long)r->len[d]);
        AXE_TRY(check_affine(p, r->start[d], "a region start", diag));
        if (axe__expr_load(r->start[d], &n) != NULL)
            AXE_TRY(check_load(p, s, r->start[d], dead, diag));
        if (r->masked[d]) { /* guarded per element */
            if (r->start[d] != NULL &&
                axe__expr_range(p, r->start[d], &lo, &hi) != AXE_OK)
                return axe__fail(diag, AXE_ERR_OVERFLOW, r->start[d]->off,
                                 "integer overflow in a region start");
            continue;
        }
        if (axe__expr_load(r->start[d], &n) != NULL) {
            if (axe__expr_range(p, r->start[d], &lo, &hi) != AXE_OK)
                return axe__fail(diag, AXE_ERR_OVERFLOW, r->start[d]->off,
                                 "integer overflow in a region start");
            continue; /* checked at run time */
        }
        if (dead)
            continue;
        if (r->start[d] != NULL &&
            axe__expr_range(p, r->start[d], &lo, &hi) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, r->start[d]->off,
                             "integer overflow in a region start");
        if (axe__add(hi, r->len[d], &end) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW,
                             r->start[d] != NULL ? r->start[d]->off : r->off,
                             "region of '%s': dimension %d ends beyond "
                             "2^63 (start up to %lld, length %lld)",
                             t->name, d, (long long)hi, (long long)r->len[d]);
        if (lo < 0 && !axe__bound_proved(p, s->guard, r, d, false))
            return out_of_bounds(p, s->guard, r, d, lo, end, true, diag);
        if ((dyn || end > t->shape[d]) &&
            !axe__bound_proved(p, s->guard, r, d, true))
            return out_of_bounds(p, s->guard, r, d, lo, end, false, diag);
    }
    return AXE_OK;
}

/* A view is of a global or shared tensor, on m, with an affine offset;
 * unless "dead", it stays inside the tensor's buffer. */
static axe_status check_view(const axe_program *p, const ax_ref *r, bool dead,
                             axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const axe_layout *v = &r->view;
    int64_t lo = 0, top = 0, x;
    int i;
    if (t->mem == AX_MEM_REGISTER)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                         "only global and shared tensors can be viewed");
    if (t->dyn_extent != NULL)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                         "'%s' has a runtime extent: views of it are not "
                         "supported (use a region)",
                         t->name);
    if (v->nreplica > 0 || v->nshard == 0 || v->nshard > AX_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                         "a view needs 1 to %d shard iters and no replica",
                         AX_MAX_DIMS);
    for (i = 0; i < v->nshard; i++) {
        if (strcmp(v->shard[i].axis, "m") != 0 || v->shard[i].stride < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                             "a view's iters must have non-negative strides "
                             "on m");
        if (axe__mul(v->shard[i].extent - 1, v->shard[i].stride, &x) ||
            axe__add(top, x, &top))
            return axe__fail(diag, AXE_ERR_OVERFLOW, r->off, "overflow");
    }
    for (i = 0; i < v->noffset; i++)
        if (axe__add(top, v->offset[i].value, &top) ||
            axe__add(lo, v->offset[i].value, &lo))
            return axe__fail(diag, AXE_ERR_OVERFLOW, r->off,
                             "view of '%s': its offset overflows", t->name);
    AXE_TRY(check_affine(p, r->view_dyn, "a view offset", diag));
    if (dead)
        return AXE_OK;
    if (r->view_dyn != NULL) {
        int64_t dl, dh;
        if (axe__expr_range(p, r->view_dyn, &dl, &dh) != AXE_OK ||
            axe__add(lo, dl, &lo) || axe__add(top, dh, &top))
            return axe__fail(diag, AXE_ERR_OVERFLOW, r->off,
                             "view of '%s': its offset overflows", t->name);
    }
    if (v->swizzle.present)
        AXE_TRY(axe__swizzle_view_bounds(p, r, &lo, &top, diag));
    if (lo < 0 || top >= t->span)
        return axe__fail(diag, AXE_ERR_DOMAIN, r->off,
                         "view of '%s' out of bounds: it reaches elements "
                         "[%lld, %lld] of a buffer of %lld",
                         t->name, (long long)lo, (long long)top,
                         (long long)t->span);
    return AXE_OK;
}

static const ax_builtin finer_ids[] = {
    AX_VAR_TX,     AX_VAR_LANEID,    AX_VAR_TID_IN_WG,
    AX_VAR_WARPID, AX_VAR_WID_IN_WG, AX_VAR_WGID,
    AX_VAR_BX,     AX_VAR_BY,        AX_VAR_BZ};
static const char *const finer_names[] = {"tx",     "laneid",    "tid_in_wg",
                                          "warpid", "wid_in_wg", "wgid",
                                          "bx",     "by",        "bz"};

/* The first id finer than "scope" that one of the "n" expressions reads,
 * or NULL. */
static const char *finer_id(ax_scope scope, const ax_expr *const *e, int n)
{
    int k = scope == AX_SCOPE_THREAD      ? 0
            : scope == AX_SCOPE_WARP      ? 3
            : scope == AX_SCOPE_WARPGROUP ? 5
            : scope == AX_SCOPE_CTA       ? 6
                                          : 9;
    int i, j;
    for (i = 0; i < k; i++)
        for (j = 0; j < n; j++)
            if (axe__expr_uses(e[j], (int)finer_ids[i]))
                return finer_names[i];
    return NULL;
}

static axe_status check_ids(const ax_stmt *s, const ax_ref *r, axe_diag *diag)
{
    const ax_expr *e[AX_MAX_DIMS + 1];
    const char *id;
    int d;
    for (d = 0; d < r->ndim; d++)
        e[d] = r->start[d];
    e[r->ndim] = r->view_dyn;
    id = finer_id(s->scope, e, r->ndim + 1);
    if (id != NULL)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "a %s-scope operator cannot use the id '%s' (it "
                         "runs once for the whole %s)",
                         axe__scope_name(s->scope), id,
                         axe__scope_name(s->scope));
    return AXE_OK;
}

/* The conditions of the enclosing ifs are uniform over the op's scope:
 * at kernel scope they read no id at all; at warp, warpgroup and cta
 * scope they have one value on each instance's threads
 * (axe__guard_check_uniform). */
static axe_status check_guard(axe_program *p, const ax_stmt *s, axe_diag *diag)
{
    const ax_guard *g;
    if (s->scope != AX_SCOPE_KERNEL)
        return axe__guard_check_uniform(p, s, diag);
    for (g = s->guard; g != NULL; g = g->up) {
        const ax_expr *e[2] = {g->lhs, g->rhs};
        const char *id = finer_id(s->scope, e, 2);
        if (id != NULL)
            return axe__fail(diag, AXE_ERR_INVALID, s->off,
                             "a kernel-scope operator under an if on the id "
                             "'%s' (it runs once for the whole kernel)",
                             id);
    }
    return AXE_OK;
}

static axe_status check_scope(const axe_program *p, const ax_stmt *s,
                              const ax_ref *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    AXE_TRY(check_ids(s, r, diag));
    if (s->scope == AX_SCOPE_KERNEL &&
        (t->dyn_extent != NULL || p->dgrid[0] || p->dgrid[1] || p->dgrid[2]))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                         "a kernel-scope operator needs compile-time "
                         "extents and grid ('%s'%s)",
                         t->name,
                         t->dyn_extent != NULL ? " has a runtime extent"
                                               : ": the grid is a runtime "
                                                 "value");
    if (s->scope == AX_SCOPE_KERNEL && t->mem != AX_MEM_GLOBAL)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' is %s memory of one CTA; a kernel-scope "
                         "operator takes global tensors only",
                         t->name, axe__mem_name(t->mem));
    if (t->mem != AX_MEM_REGISTER)
        return AXE_OK;
    if (s->scope == AX_SCOPE_THREAD && t->distributed)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' is distributed over the %s's threads; a "
                         "thread-scope operator needs a per-thread register",
                         t->name, axe__scope_name(t->owner));
    if (s->scope != AX_SCOPE_THREAD && !t->distributed)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' is a per-thread register (its layout has no "
                         "thread axis); a %s-scope operator needs a layout "
                         "over the %s's threads",
                         t->name, axe__scope_name(s->scope),
                         axe__scope_name(s->scope));
    if (s->scope != AX_SCOPE_THREAD && t->owner != s->scope)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "'%s' is distributed over a %s, but the operator "
                         "runs at %s scope",
                         t->name, axe__scope_name(t->owner),
                         axe__scope_name(s->scope));
    return AXE_OK;
}

/* The dtype that a gemm's A and B need for a C of dtype "c" when A has
 * "a": f16, bf16, e4m3 and e5m2 accumulate in f32, i8 in i32, as mma.sync
 * does; otherwise C's own. */
static axe_dtype gemm_input_dtype(axe_dtype c, axe_dtype a)
{
    if ((c == AXE_DTYPE_F32 && axe__dtype_is_half(a)) ||
        (c == AXE_DTYPE_I32 && a == AXE_DTYPE_I8))
        return a;
    return c;
}

/* gemm(C, A, B): A and B have one dtype (or are both fp8: e4m3 with e5m2
 * is an mma.sync kind too); C has it too or accumulates it wider
 * (gemm_input_dtype). */
static axe_status check_gemm_types(const axe_program *p, const ax_stmt *s,
                                   axe_diag *diag)
{
    const ax_tensor *c = &p->tensors[s->args[0].tensor],
                    *a = &p->tensors[s->args[1].tensor],
                    *b = &p->tensors[s->args[2].tensor];
    if (s->tf32 && (a->dtype != AXE_DTYPE_F32 || b->dtype != AXE_DTYPE_F32 ||
                    c->dtype != AXE_DTYPE_F32))
        return axe__fail(diag, AXE_ERR_INVALID, s->tf32_off,
                         "tf32 rounds an f32 gemm's inputs (mma.sync "
                         "m16n8k8 .tf32), but '%s' is %s, '%s' %s and '%s' "
                         "%s: C, A and B must be f32",
                         c->name, axe_dtype_name(c->dtype), a->name,
                         axe_dtype_name(a->dtype), b->name,
                         axe_dtype_name(b->dtype));
    if (b->dtype != a->dtype &&
        !(axe__dtype_is_fp8(a->dtype) && axe__dtype_is_fp8(b->dtype)))
        return axe__fail(diag, AXE_ERR_INVALID, s->args[2].off,
                         "'%s' is %s but '%s' is %s: gemm's A and B have "
                         "one dtype, or are e4m3 and e5m2 (use cast)",
                         b->name, axe_dtype_name(b->dtype), a->name,
                         axe_dtype_name(a->dtype));
    if (axe__dtype_is_fp8(a->dtype) && c->dtype != AXE_DTYPE_F32)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[0].off,
                         "'%s' is %s but a gemm of %s inputs accumulates in "
                         "f32 (as mma.sync .%s does)",
                         c->name, axe_dtype_name(c->dtype),
                         axe_dtype_name(a->dtype), axe_dtype_name(a->dtype));
    if (gemm_input_dtype(c->dtype, a->dtype) != a->dtype)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[1].off,
                         "'%s' is %s but the destination is %s: a gemm "
                         "accumulates in its inputs' dtype, f16 and bf16 "
                         "also in f32, i8 also in i32, e4m3 and e5m2 only "
                         "in f32 (use cast)",
                         a->name, axe_dtype_name(a->dtype),
                         axe_dtype_name(c->dtype));
    return AXE_OK;
}

static bool is_float(axe_dtype d)
{
    return d == AXE_DTYPE_F32 || d == AXE_DTYPE_F64 || axe__dtype_is_half(d);
}

static bool is_compare(ax_op op)
{
    return op == AX_OP_LT || op == AX_OP_LE || op == AX_OP_GT ||
           op == AX_OP_GE || op == AX_OP_EQ || op == AX_OP_NE;
}

/* Operators defined on floating-point values only (abs is also integer). */
static bool needs_float(ax_op op)
{
    return op == AX_OP_DIV || (axe__math_is_op(op) && op != AX_OP_ABS);
}

/* The dtype operand "i" of "s" must have (its destination's, or what the
 * operator fixes); false when any dtype will do. */
static bool operand_dtype(const axe_program *p, const ax_stmt *s, int i,
                          axe_dtype *want)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    axe_dtype a1 = p->tensors[s->args[1].tensor].dtype;
    if (s->op == AX_OP_CAST)
        return false;
    if (s->op == AX_OP_SELECT && i == 1)
        *want = AXE_DTYPE_I8;
    else if (is_compare(s->op) ||
             (s->op == AX_OP_REDUCE && axe__red_is_arg(s->rkind)))
        *want = a1; /* the first source fixes the other's */
    else
        *want = d;
    return true;
}

/* What the destination of a comparison or an argmax must be. */
static axe_status check_dst_type(const axe_program *p, const ax_stmt *s,
                                 axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    if (is_compare(s->op) && t->dtype != AXE_DTYPE_I8)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[0].off,
                         "%s writes an i8 predicate (0 or 1); '%s' is %s",
                         axe__op_name(s->op), t->name,
                         axe_dtype_name(t->dtype));
    if (s->op != AX_OP_REDUCE || !axe__red_is_arg(s->rkind))
        return AXE_OK;
    if (t->dtype != AXE_DTYPE_I32)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[0].off,
                         "%s writes an i32 index; '%s' is %s",
                         axe__red_name(s->rkind), t->name,
                         axe_dtype_name(t->dtype));
    if (t->mem != AX_MEM_REGISTER)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[0].off,
                         "%s needs a register destination (it keeps the "
                         "best value beside each index); '%s' is %s memory: "
                         "reduce into a register, then copy",
                         axe__red_name(s->rkind), t->name,
                         axe__mem_name(t->mem));
    return AXE_OK;
}

static axe_status check_types(const axe_program *p, const ax_stmt *s,
                              axe_diag *diag)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype, want;
    int i;
    if (s->op == AX_OP_GEMM)
        return check_gemm_types(p, s, diag);
    AXE_TRY(check_dst_type(p, s, diag));
    for (i = 1; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (!operand_dtype(p, s, i, &want) || t->dtype == want)
            continue;
        if (s->op == AX_OP_SELECT && i == 1)
            return axe__fail(diag, AXE_ERR_INVALID, s->args[i].off,
                             "the predicate '%s' of select is %s; it must "
                             "be i8 (as lt, le, gt, ge, eq, ne write)",
                             t->name, axe_dtype_name(t->dtype));
        return axe__fail(diag, AXE_ERR_INVALID, s->args[i].off,
                         "'%s' is %s but %s %s (use cast)", t->name,
                         axe_dtype_name(t->dtype),
                         want == d && !is_compare(s->op)
                             ? "the destination is"
                             : "the other operand is",
                         axe_dtype_name(want));
    }
    if (needs_float(s->op) && !is_float(d))
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "%s needs a floating-point destination, not %s",
                         axe__op_name(s->op), axe_dtype_name(d));
    return AXE_OK;
}

/* reduce(dst, src, op, rdim): dst has src's shape without rdim; dst then
 * gets the broadcast dim rdim so that both operands share src's shape. */
static axe_status check_reduce(ax_stmt *s, axe_diag *diag)
{
    ax_ref *dst = &s->args[0], *src = &s->args[1];
    int n = axe__ref_ndim(src), d;
    if (n < 2)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "reduce needs a source of at least 2 dimensions, "
                         "not %d",
                         n);
    if (s->rdim >= n)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "reduce over dimension %d of a %d-dimensional "
                         "source",
                         s->rdim, n);
    if (axe__ref_ndim(dst) != n - 1)
        return axe__fail(diag, AXE_ERR_INVALID, dst->off,
                         "the destination of reduce has %d dimensions; it "
                         "needs the source's shape without dimension %d",
                         axe__ref_ndim(dst), s->rdim);
    for (d = 0; d < n - 1; d++)
        if (axe__ref_len(dst, d) != axe__ref_len(src, d + (d >= s->rdim)))
            return axe__fail(diag, AXE_ERR_INVALID, dst->off,
                             "the destination of reduce needs the source's "
                             "shape without dimension %d (dimension %d: "
                             "%lld vs %lld)",
                             s->rdim, d, (long long)axe__ref_len(dst, d),
                             (long long)axe__ref_len(src, d + (d >= s->rdim)));
    dst->bdim = s->rdim;
    dst->bext = axe__ref_len(src, s->rdim);
    return AXE_OK;
}

/* gemm(C, A, B): C[M,N] += A[M,K] B[N,K]^T; every operand gets the dim it
 * lacks as a broadcast, so all share the shape (M, N, K). */
static axe_status check_gemm(ax_stmt *s, axe_diag *diag)
{
    ax_ref *c = &s->args[0], *a = &s->args[1], *b = &s->args[2];
    int i;
    for (i = 0; i < 3; i++)
        if (axe__ref_ndim(&s->args[i]) != 2 || s->args[i].bdim >= 0)
            return axe__fail(diag, AXE_ERR_INVALID, s->args[i].off,
                             "gemm operands are 2-dimensional, not "
                             "broadcast: C (M,N), A (M,K), B (N,K)");
    if (axe__ref_len(a, 0) != axe__ref_len(c, 0) ||
        axe__ref_len(b, 0) != axe__ref_len(c, 1) ||
        axe__ref_len(a, 1) != axe__ref_len(b, 1))
        return axe__fail(
            diag, AXE_ERR_INVALID, s->off,
            "gemm shapes disagree: C (%lld,%lld), A (%lld,%lld), "
            "B (%lld,%lld); want C (M,N), A (M,K), B (N,K)",
            (long long)axe__ref_len(c, 0), (long long)axe__ref_len(c, 1),
            (long long)axe__ref_len(a, 0), (long long)axe__ref_len(a, 1),
            (long long)axe__ref_len(b, 0), (long long)axe__ref_len(b, 1));
    c->bdim = 2;
    c->bext = axe__ref_len(a, 1);
    a->bdim = 1;
    a->bext = axe__ref_len(c, 1);
    b->bdim = 0;
    b->bext = axe__ref_len(c, 0);
    return AXE_OK;
}

/* atomic_add(dst, src): dst is a global f32 or i32 tensor (what atomicAdd
 * updates in place from any thread of the grid). */
static axe_status check_atomic(const axe_program *p, ax_stmt *s, axe_diag *diag)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    if (d->mem != AX_MEM_GLOBAL)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[0].off,
                         "atomic_add updates a global tensor, but '%s' is "
                         "%s memory (combine values inside a CTA with "
                         "reduce or add)",
                         d->name, axe__mem_name(d->mem));
    if (d->dtype != AXE_DTYPE_F32 && d->dtype != AXE_DTYPE_I32)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[0].off,
                         "atomic_add needs an f32 or i32 destination (as "
                         "atomicAdd), not %s ('%s')",
                         axe_dtype_name(d->dtype), d->name);
    s->atomic = true;
    return AXE_OK;
}

static axe_status check_shapes(const ax_stmt *s, axe_diag *diag)
{
    const ax_ref *d0 = &s->args[0];
    int i, d;
    for (i = 1; i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        if (axe__ref_ndim(r) != axe__ref_ndim(d0))
            return axe__fail(diag, AXE_ERR_INVALID, r->off,
                             "operand has %d dimensions, the destination %d",
                             axe__ref_ndim(r), axe__ref_ndim(d0));
        for (d = 0; d < axe__ref_ndim(r); d++)
            if (axe__ref_len(r, d) != axe__ref_len(d0, d))
                return axe__fail(diag, AXE_ERR_INVALID, r->off,
                                 "operand shape differs from the "
                                 "destination's in dimension %d (%lld vs "
                                 "%lld)",
                                 d, (long long)axe__ref_len(r, d),
                                 (long long)axe__ref_len(d0, d));
    }
    return AXE_OK;
}

/* The largest v such that every integer in [-v, v] is a value of "d"
 * (for i8 and i32: their range, [*lo, v]); 2^(mantissa bits + 1) for the
 * floating-point types. */
static int64_t exact_limit(axe_dtype d, int64_t *lo)
{
    int64_t v = 0;
    switch (d) {
    case AXE_DTYPE_I4:
        *lo = -8;
        return 7;
    case AXE_DTYPE_I8:
        *lo = -128;
        return 127;
    case AXE_DTYPE_I32:
        *lo = INT32_MIN;
        return INT32_MAX;
    case AXE_DTYPE_E5M2:
        v = 8;
        break;
    case AXE_DTYPE_E4M3:
        v = 16;
        break;
    case AXE_DTYPE_BF16:
        v = 256;
        break;
    case AXE_DTYPE_F16:
        v = 2048;
        break;
    case AXE_DTYPE_F32:
        v = 16777216;
        break;
    case AXE_DTYPE_F64:
        v = 9007199254740992LL;
        break;
    }
    *lo = -v;
    return v;
}

/* iota's values [lo, top] (interval bounds) pass the integers its
 * destination holds exactly ("below": at the low end), and the enclosing
 * conditions do not prove them inside: the reason, with the guard that
 * would. */
static axe_status iota_refused(const axe_program *p, const ax_stmt *s,
                               bool below, int64_t lo, int64_t top,
                               axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    int64_t min, max = exact_limit(t->dtype, &min);
    int64_t len = axe__ref_len(&s->args[0], s->idim);
    char start[96];
    axe__expr_text(p, s->istart, start, sizeof start, 0);
    return axe__fail(diag, AXE_ERR_DOMAIN, s->istart->off,
                     "iota's values lie in [%lld, %lld], beyond the "
                     "integers that %s holds exactly ([%lld, %lld]), and "
                     "no enclosing condition proves them inside; guard it "
                     "(e.g. 'if (%s %s %lld)')",
                     (long long)lo, (long long)top, axe_dtype_name(t->dtype),
                     (long long)min, (long long)max, start, below ? ">=" : "<=",
                     (long long)(below ? min : max - (len - 1)));
}

/* iota(dst, dim, start): dim is one of dst's, start is affine in ids the
 * scope may read, and every value start + coordinate is exact in dst's
 * dtype (checked over the start's range under the enclosing guards,
 * unless they never hold). */
static axe_status check_iota(const axe_program *p, const ax_stmt *s,
                             axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    const ax_expr *e = s->istart;
    const char *id = finer_id(s->scope, &e, 1);
    int64_t lo, hi, top, len, min, max = exact_limit(t->dtype, &min);
    if (s->idim >= axe__ref_ndim(&s->args[0]))
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "iota along dimension %d of a %d-dimensional "
                         "destination",
                         s->idim, axe__ref_ndim(&s->args[0]));
    AXE_TRY(check_affine(p, e, "iota's start", diag));
    if (id != NULL)
        return axe__fail(diag, AXE_ERR_INVALID, e->off,
                         "a %s-scope operator cannot use the id '%s' (it "
                         "runs once for the whole %s)",
                         axe__scope_name(s->scope), id,
                         axe__scope_name(s->scope));
    if (s->dead)
        return AXE_OK; /* never runs: no values to check */
    len = axe__ref_len(&s->args[0], s->idim);
    if (axe__expr_range(p, e, &lo, &hi) != AXE_OK ||
        axe__add(hi, len - 1, &top) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, e->off,
                         "integer overflow in iota's values");
    if ((lo < min && !axe__claim_proved(p, s->guard, e, -1, min)) ||
        (top > max && !axe__claim_proved(p, s->guard, e, 1, len - 1 - max)))
        return iota_refused(p, s, lo < min, lo, top, diag);
    return AXE_OK;
}

/* No bounds from guards on any variable (var_lo > var_hi). */
static void clear_bounds(axe_program *p)
{
    int v;
    for (v = 0; v < AX_MAX_VARS; v++)
        p->var_lo[v] = 1, p->var_hi[v] = 0;
}

/* The condition "g" as `VAR cmp CONST` (cmp as in ax_guard, else branches
 * negated, `CONST cmp VAR` turned around): false when it has no such
 * form or says `!=`. */
static bool var_cmp_const(const ax_guard *g, int *v, int *cmp, int64_t *c)
{
    static const int negated[] = {3, 2, 1, 0, 5, 4},
                     flipped[] = {2, 3, 0, 1, 4, 5};
    const ax_expr *var = g->lhs, *cst = g->rhs;
    *cmp = g->cmp;
    if (var->kind == AX_EX_INT && cst->kind == AX_EX_VAR) {
        var = g->rhs;
        cst = g->lhs;
        *cmp = flipped[*cmp];
    }
    if (var->kind != AX_EX_VAR || cst->kind != AX_EX_INT)
        return false;
    *v = var->var;
    *c = cst->value;
    if (g->negate)
        *cmp = negated[*cmp];
    return *cmp != 5;
}

/* The first variable that [var_lo, var_hi] leaves no value of its
 * range, with the bounds then dropped (dead code), or -1. */
static int empty_var(axe_program *p)
{
    int v;
    for (v = 0; v < p->nvars; v++) {
        int64_t lo, hi;
        axe__var_range(p, v, &lo, &hi);
        if (p->var_lo[v] > p->var_hi[v] || p->var_lo[v] > hi ||
            p->var_hi[v] < lo)
            break;
    }
    if (v < p->nvars)
        clear_bounds(p);
    return v < p->nvars ? v : -1;
}

/* floor(b / a) and ceil(b / a), a != 0; false on overflow. */
static bool div_round(int64_t b, int64_t a, bool up, int64_t *out)
{
    int64_t q;
    if (a == -1 && b == INT64_MIN)
        return false;
    q = b / a;
    if (b % a != 0 && ((b % a < 0) != (a < 0)) == !up)
        q += up ? 1 : -1;
    *out = q;
    return true;
}

/* v <= hi (upper) or v >= lo into [var_lo, var_hi]. */
static void bound_var(axe_program *p, int v, int64_t c, bool upper)
{
    if (upper && c < p->var_hi[v])
        p->var_hi[v] = c;
    if (!upper && c > p->var_lo[v])
        p->var_lo[v] = c;
}

/* "a v + k cmp 0" (cmp <, <=, >, >=, ==) as bounds of v: a v <= -k - 1
 * for <, a v <= -k for <=, a v >= -k + 1 for >, a v >= -k for >=, both
 * of the latter for ==; then v <= floor(b / a) or v >= ceil(b / a),
 * turned around for a < 0. Nothing on an overflow. */
static void scaled_bounds(axe_program *p, int v, int64_t a, int64_t k, int cmp)
{
    static const int64_t shift[] = {-1, 0, 1, 0, 0};
    int64_t b, q;
    bool le = cmp == 0 || cmp == 1 || cmp == 4, ge = cmp >= 2;
    if (axe__sub(shift[cmp], k, &b) != AXE_OK)
        return;
    if (le && div_round(b, a, a < 0, &q))
        bound_var(p, v, q, a > 0);
    if (ge && div_round(b, a, a > 0, &q))
        bound_var(p, v, q, a < 0);
}

/* An `!=` removes value w from v's range where it is an end of the range
 * narrowed so far (the else of `warpid == 0` is warpid in [1, n)). True
 * if it narrowed. */
static bool drop_end(axe_program *p, const ax_guard *g)
{
    int v, cmp;
    int64_t a, k, lo, hi, w;
    if (!axe__guard_one_var(g, &v, &a, &k, &cmp) || cmp != 5 ||
        k == INT64_MIN || k % a != 0)
        return false;
    w = -(k / a);
    axe__var_range(p, v, &lo, &hi);
    lo = p->var_lo[v] > lo ? p->var_lo[v] : lo;
    hi = p->var_hi[v] < hi ? p->var_hi[v] : hi;
    if (w == lo && w < INT64_MAX)
        p->var_lo[v] = w + 1;
    else if (w == hi && w > INT64_MIN)
        p->var_hi[v] = w - 1;
    else
        return false;
    return true;
}

/* Bounds of the guards of "g" over one variable: `VAR cmp CONST` exactly
 * (v < c is v <= c - 1, v > c is v >= c + 1, computed without overflow:
 * no value is below INT64_MIN or above INT64_MAX), `a * VAR + k cmp
 * CONST` scaled (scaled_bounds), and `!=` at an end of the range
 * (drop_end, repeated while it narrows). Answers the first variable that
 * the bounds leave no value of its range, with the bounds then dropped
 * (dead code), or -1. */
static int narrow(axe_program *p, const ax_guard *g)
{
    const ax_guard *h;
    int v, cmp, pass;
    int64_t c, a, k;
    bool more = true;
    for (v = 0; v < AX_MAX_VARS; v++) {
        p->var_lo[v] = INT64_MIN;
        p->var_hi[v] = INT64_MAX;
    }
    for (h = g; h != NULL; h = h->up) {
        if (!var_cmp_const(h, &v, &cmp, &c)) {
            if (axe__guard_one_var(h, &v, &a, &k, &cmp) && cmp != 5)
                scaled_bounds(p, v, a, k, cmp);
            continue;
        }
        if ((cmp == 0 && c == INT64_MIN) || (cmp == 2 && c == INT64_MAX)) {
            p->var_lo[v] = INT64_MAX; /* v < -2^63, v > 2^63 - 1 */
            p->var_hi[v] = INT64_MIN;
            continue;
        }
        if (cmp == 0)
            c--;
        if (cmp == 2)
            c++;
        if (cmp == 0 || cmp == 1 || cmp == 4)
            bound_var(p, v, c, true);
        if (cmp == 2 || cmp == 3 || cmp == 4)
            bound_var(p, v, c, false);
    }
    for (pass = 0; more && pass < 8; pass++)
        for (more = false, h = g; h != NULL; h = h->up)
            more = drop_end(p, h) || more;
    return empty_var(p);
}

/* A warp (warpgroup) operator runs on whole warps (warpgroups): the CTA's
 * thread count must be a multiple of 32 (128), else the last instance
 * would lack lanes that its layouts and shuffles name. */
static axe_status check_whole_scope(const axe_program *p, const ax_stmt *s,
                                    axe_diag *diag)
{
    int64_t n;
    if (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP)
        return AXE_OK;
    n = axe__scope_threads(p, s->scope);
    if (p->threads % n != 0)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "a %s-scope operator needs a multiple of %lld "
                         "threads per CTA, not %lld",
                         axe__scope_name(s->scope), (long long)n,
                         (long long)p->threads);
    return AXE_OK;
}

/* Dead code: the enclosing conditions leave variable "empty" no value
 * (narrow), or hold for no value at all (axe__guard_never_holds). */
static axe_status mark_dead(axe_program *p, ax_stmt *s, int empty)
{
    char why[160];
    char *keep;
    int64_t lo, hi;
    s->dead = empty >= 0 || axe__guard_never_holds(p, s->guard);
    if (!s->dead)
        return AXE_OK;
    if (empty >= 0) {
        axe__var_range(p, empty, &lo, &hi);
        snprintf(why, sizeof why,
                 "the conditions around it leave '%s' no value in [%lld, "
                 "%lld]",
                 p->vars[empty], (long long)lo, (long long)hi);
    } else {
        snprintf(why, sizeof why,
                 "the conditions around it hold for no thread, CTA and loop "
                 "iteration");
    }
    keep = axe__arena_alloc(p->arena, strlen(why) + 1);
    if (keep == NULL)
        return AXE_ERR_NO_MEMORY;
    strcpy(keep, why);
    s->dead_why = keep;
    return AXE_OK;
}

/* rearrange(dst, src): both operands are registers distributed over the
 * threads of the operator's collective scope (check_scope then checked
 * the owner); the copy goes through a shared scratch (copy.smem). */
static axe_status check_rearrange(const axe_program *p, const ax_stmt *s,
                                  axe_diag *diag)
{
    int i;
    if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "rearrange redistributes registers among the "
                         "threads of a warp, warpgroup or CTA, not at %s "
                         "scope",
                         axe__scope_name(s->scope));
    for (i = 0; i < 2; i++)
        if (p->tensors[s->args[i].tensor].mem != AX_MEM_REGISTER)
            return axe__fail(diag, AXE_ERR_INVALID, s->args[i].off,
                             "'%s' is %s memory: rearrange moves registers "
                             "between two thread-value layouts (a copy to "
                             "or from memory is 'copy')",
                             p->tensors[s->args[i].tensor].name,
                             axe__mem_name(p->tensors[s->args[i].tensor].mem));
    return AXE_OK;
}

/* i4 is a storage dtype (docs/compiler.md): only copy and cast read or
 * write it, and not through a rearrange. */
static axe_status check_i4(const axe_program *p, const ax_stmt *s,
                           axe_diag *diag)
{
    int i;
    for (i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (t->dtype != AXE_DTYPE_I4)
            continue;
        if (s->op != AX_OP_COPY && s->op != AX_OP_CAST)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[i].off,
                             "'%s' is i4, a packed storage dtype: only copy "
                             "and cast read or write it (cast it to f16, "
                             "f32, i8 or i32 for %s)",
                             t->name, axe__op_name(s->op));
        if (s->rearrange)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[i].off,
                             "'%s' is i4: a rearrange of packed i4 "
                             "registers is not supported",
                             t->name);
    }
    return AXE_OK;
}

static axe_status check_op(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    int i;
    AXE_TRY(check_whole_scope(p, s, diag));
    AXE_TRY(mark_dead(p, s, narrow(p, s->guard)));
    for (i = 0; i < s->nargs; i++) {
        ax_ref *r = &s->args[i];
        AXE_TRY(ref_shape(p, r, diag));
        AXE_TRY(r->is_view ? check_view(p, r, s->dead, diag)
                           : check_region(p, s, r, s->dead, diag));
        if (i == 0) /* the destination: an i4 view's swizzle keeps bytes */
            AXE_TRY(axe__swizzle_i4_store(p, r, diag));
        AXE_TRY(check_scope(p, s, r, diag));
    }
    if (s->op == AX_OP_IOTA)
        AXE_TRY(check_iota(p, s, diag));
    if (s->rearrange)
        AXE_TRY(check_rearrange(p, s, diag));
    clear_bounds(p);
    if (s->args[0].bdim >= 0)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[0].off,
                         "a destination cannot be broadcast");
    if (s->op == AX_OP_REDUCE)
        AXE_TRY(check_reduce(s, diag));
    if (s->op == AX_OP_GEMM)
        AXE_TRY(check_gemm(s, diag));
    if (s->op == AX_OP_ATOMIC_ADD)
        AXE_TRY(check_atomic(p, s, diag));
    AXE_TRY(check_shapes(s, diag));
    AXE_TRY(check_i4(p, s, diag));
    p->tensors[s->args[0].tensor].written = true;
    AXE_TRY(axe__sop_check(p, s, diag));
    return check_types(p, s, diag);
}

static axe_status check_block(axe_program *p, ax_stmt *s, axe_diag *diag,
                              bool *has_sync, const ax_guard *guard);

/* Both sides of an if's condition are 64-bit integers for every value of
 * the ids and loop variables (not only those the enclosing ifs allow:
 * the reference and the uniformity and dead-code checks evaluate a chain
 * of conditions as a whole). */
static axe_status check_cond(const axe_program *p, const ax_guard *c,
                             axe_diag *diag)
{
    int64_t lo, hi;
    if (axe__expr_range(p, c->lhs, &lo, &hi) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, c->lhs->off,
                         "integer overflow in the condition of this if, for "
                         "some value of its ids and loop variables");
    if (axe__expr_range(p, c->rhs, &lo, &hi) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, c->rhs->off,
                         "integer overflow in the condition of this if, for "
                         "some value of its ids and loop variables");
    return AXE_OK;
}

/* An `if` (and its `else`); a `sync` may be inside only when the
 * conditions around it read no thread id, so that every thread of a CTA
 * reaches the barrier or none does (bx, by, bz, loop variables, runtime
 * scalars); "has_sync" is set when one is. */
static axe_status check_if(axe_program *p, ax_stmt *s, axe_diag *diag,
                           const ax_guard *guard, bool *has_sync)
{
    ax_guard *neg = axe__arena_alloc(p->arena, sizeof *neg);
    bool sync = false;
    if (neg == NULL)
        return AXE_ERR_NO_MEMORY;
    AXE_TRY(check_cond(p, &s->cond, diag));
    s->cond.up = guard;
    *neg = s->cond;
    neg->negate = true;
    AXE_TRY(check_block(p, s->body, diag, &sync, &s->cond));
    AXE_TRY(check_block(p, s->else_body, diag, &sync, neg));
    if (sync && axe__guard_reads_thread_id(&s->cond))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "a sync inside an if whose conditions read a "
                         "thread id: not every thread of the CTA would "
                         "reach the barrier (a condition on bx, by, bz, "
                         "loop variables and runtime scalars may hold a "
                         "sync)");
    *has_sync = *has_sync || sync;
    return AXE_OK;
}

static axe_status check_block(axe_program *p, ax_stmt *s, axe_diag *diag,
                              bool *has_sync, const ax_guard *guard)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP) {
            s->guard = guard;
            AXE_TRY(check_op(p, s, diag));
            if (!s->dead)
                AXE_TRY(check_guard(p, s, diag));
        } else if (s->kind == AX_ST_SYNC) {
            s->guard = guard;
            *has_sync = true;
        } else if (s->kind == AX_ST_IF) {
            AXE_TRY(check_if(p, s, diag, guard, has_sync));
        } else if (s->kind == AX_ST_FOR) {
            AXE_TRY(check_block(p, s->body, diag, &s->has_sync, guard));
            *has_sync = *has_sync || s->has_sync;
        }
    }
    return AXE_OK;
}

/* Check every statement of the body. */
axe_status axe__sema_ops(axe_program *p, axe_diag *diag)
{
    bool has_sync = false;
    return check_block(p, p->body, diag, &has_sync, NULL);
}
