/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copy.dma and copy.vector of a core kernel (docs/compiler.md, "The
 * accelerator model"): a copy between HBM and SBUF (or across SBUF
 * partitions) as DMA descriptors, a copy between scratchpads that keeps
 * every element's partition as vector-engine moves. Both derive their
 * descriptors from the layouts: every element pair of the copy (the
 * storage addresses of the source and destination elements at the same
 * logical index, a scratchpad address split into partition and free
 * element) in the copy's row-major order, compressed greedily into
 * affine nests: consecutive items of the same shape whose bases differ
 * by one step become one item with that step as a new outer level, until
 * no two merge or an item has AX_TRN_LEVELS levels. A level that moves a
 * scratchpad side's partition keeps its free element and is that side's
 * only such level (a descriptor's partition start, count and stride).
 * Each failure names the tensor and the rule. Invariant: the descriptors
 * enumerate exactly the copy's element pairs, each once.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"

/* The element pairs a copy's descriptors may visit at compile time, over
 * every value of its loops. */
#define AX_TRN_MAX_VISITS ((int64_t)1 << 24)

/* Pass 1 keeps at most this many runs (each a descriptor-sized item). */
#define AX_TRN_MAX_RUNS ((int64_t)1 << 18)

/* A growing array of items. */
typedef struct items {
    ax_trn_desc *it;
    int64_t n, cap;
} items;

/* Room for one more item; false when out of memory. */
static bool grow(items *v)
{
    ax_trn_desc *m;
    int64_t cap;
    if (v->n < v->cap)
        return true;
    cap = v->cap > 0 ? 2 * v->cap : 256;
    m = realloc(v->it, (size_t)cap * sizeof *m);
    if (m == NULL)
        return false;
    v->it = m;
    v->cap = cap;
    return true;
}

static const char *space_name(const ax_tensor *t)
{
    return t->space == AX_SPACE_SBUF   ? "SBUF"
           : t->space == AX_SPACE_PSUM ? "PSUM"
                                       : "HBM";
}

/* The region "r" of the copy: not masked or broadcast, and a view only
 * without swizzle (sema refuses views of scratchpads). */
static axe_status plain_region(const axe_program *p, const ax_ref *r,
                               const char *role, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    if (r->any_masked || r->bdim >= 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the %s ('%s') is masked or broadcast "
                         "(descriptors take regions and views)",
                         role, t->name);
    if (r->is_view && r->view.swizzle.present)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the %s ('%s') is a swizzled view (descriptors "
                         "take affine runs)",
                         role, t->name);
    return AXE_OK;
}

/* The point (0, address) of element "c" (view coordinates) of view "r"
 * of an HBM tensor: its shard strides, offsets and run-time offset at
 * the variables "env" (compiler_ref.c's locate). */
static void view_point(const ax_ref *r, const int64_t *c, const int64_t *env,
                       int64_t *pt)
{
    int64_t x = 0;
    int d;
    for (d = 0; d < r->ndim; d++)
        x += c[d] * r->view.shard[d].stride;
    for (d = 0; d < r->view.noffset; d++)
        x += r->view.offset[d].value;
    x += r->view_dyn != NULL ? axe__expr_eval(r->view_dyn, env) : 0;
    pt[0] = 0;
    pt[1] = x;
}

axe_status axe__trn_point(const ax_tensor *t, const int64_t *c, int64_t *pt)
{
    axe_point q;
    int64_t lin = 0, a = 0;
    int d;
    for (d = 0; d < t->ndim; d++)
        lin = lin * t->shape[d] + c[d];
    AXE_TRY(axe_layout_apply_base(&t->layout, lin, &q, NULL));
    for (d = 0; d < q.n; d++)
        a += strcmp(q.axis[d], "m") == 0 ? q.v[d] : 0;
    pt[0] = t->space != AX_SPACE_NONE ? a / t->fspan : 0;
    pt[1] = t->space != AX_SPACE_NONE ? a % t->fspan : a;
    return AXE_OK;
}

/* Whether step "st" may become a new level of "d": on each scratchpad
 * side, a step that moves the partition keeps the free element and is
 * the side's only partition level. */
static bool level_ok(const ax_trn_desc *d, const int64_t *st)
{
    int side, l;
    for (side = 0; side < 2; side++) {
        if (st[2 * side] == 0)
            continue;
        if (st[2 * side + 1] != 0)
            return false;
        for (l = 0; l < d->nlev; l++)
            if (d->step[l][2 * side] != 0)
                return false;
    }
    return true;
}

static bool same_shape(const ax_trn_desc *a, const ax_trn_desc *b)
{
    return a->nlev == b->nlev &&
           memcmp(a->n, b->n, (size_t)a->nlev * sizeof a->n[0]) == 0 &&
           memcmp(a->step, b->step, (size_t)a->nlev * sizeof a->step[0]) == 0;
}

/* The difference of the bases of "b" and "a" into "st". */
static void base_diff(const ax_trn_desc *a, const ax_trn_desc *b, int64_t *st)
{
    for (int k = 0; k < 4; k++)
        st[k] = b->base[k] - a->base[k];
}

/* "d" with step "st" of count "n" as its new outermost level. */
static void add_level(ax_trn_desc *d, int64_t n, const int64_t *st)
{
    memmove(&d->n[1], &d->n[0], (size_t)d->nlev * sizeof d->n[0]);
    memmove(&d->step[1], &d->step[0], (size_t)d->nlev * sizeof d->step[0]);
    d->n[0] = n;
    memcpy(d->step[0], st, sizeof d->step[0]);
    d->nlev++;
}

/* One merge pass over items[0, *n): runs of the same shape at one step
 * become one item each. Returns whether any merged. */
static bool merge_pass(ax_trn_desc *it, int64_t *n)
{
    int64_t i = 0, out = 0, j;
    int64_t st[4], st2[4];
    while (i < *n) {
        j = i + 1;
        if (j < *n && it[i].nlev < AX_TRN_LEVELS && same_shape(&it[i], &it[j]))
            base_diff(&it[i], &it[j], st);
        if (j < *n && it[i].nlev < AX_TRN_LEVELS &&
            same_shape(&it[i], &it[j]) && level_ok(&it[i], st)) {
            for (j = i + 2; j < *n && same_shape(&it[i], &it[j]); j++) {
                base_diff(&it[j - 1], &it[j], st2);
                if (memcmp(st, st2, sizeof st) != 0)
                    break;
            }
        }
        it[out] = it[i];
        if (j - i >= 2)
            add_level(&it[out], j - i, st);
        out++;
        i = j;
    }
    j = *n;
    *n = out;
    return out < j;
}

/* The copy's element pairs as runs (pass 1, streamed): items of one
 * level or single points, in row-major order of the regions. */
static axe_status runs(const axe_program *p, const ax_stmt *s,
                       const int64_t *env, bool vector, items *v, axe_diag *why)
{
    const ax_ref *r[2] = {&s->args[1], &s->args[0]};
    const ax_tensor *t[2] = {&p->tensors[r[0]->tensor],
                             &p->tensors[r[1]->tensor]};
    int64_t idx[AX_MAX_DIMS] = {0}, c[AX_MAX_DIMS], pt[4], st[4], total = 1;
    int64_t e, k;
    int d, side;
    for (d = 0; d < r[1]->ndim; d++)
        total *= r[1]->len[d];
    for (e = 0; e < total; e++) {
        ax_trn_desc *cur = v->n > 0 ? &v->it[v->n - 1] : NULL;
        for (side = 0; side < 2; side++) {
            for (d = 0; d < r[side]->ndim; d++)
                c[d] = (r[side]->start[d] != NULL
                            ? axe__expr_eval(r[side]->start[d], env)
                            : 0) +
                       idx[d];
            if (r[side]->is_view)
                view_point(r[side], c, env, &pt[2 * side]);
            else if (axe__trn_point(t[side], c, &pt[2 * side]) != AXE_OK)
                return axe__fail(why, AXE_ERR_INVALID, -1,
                                 "element %lld of '%s' has no storage "
                                 "address",
                                 (long long)e, t[side]->name);
        }
        if (vector && pt[0] != pt[2])
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "element %lld moves from partition %lld of '%s' "
                             "to partition %lld of '%s' (the vector engine "
                             "keeps partitions; DMA moves across them)",
                             (long long)e, (long long)pt[0], t[0]->name,
                             (long long)pt[2], t[1]->name);
        for (k = 0; k < 4 && cur != NULL; k++)
            st[k] =
                pt[k] - (cur->base[k] + (cur->nlev ? cur->n[0] - 1 : 0) *
                                            (cur->nlev ? cur->step[0][k] : 0));
        if (cur != NULL &&
            ((cur->nlev == 0 && level_ok(cur, st)) ||
             (cur->nlev == 1 && memcmp(st, cur->step[0], sizeof st) == 0))) {
            if (cur->nlev == 0)
                add_level(cur, 2, st);
            else
                cur->n[0]++;
        } else {
            if (v->n == AX_TRN_MAX_RUNS)
                return axe__fail(why, AXE_ERR_CAPACITY, -1,
                                 "more than %lld contiguous runs",
                                 (long long)AX_TRN_MAX_RUNS);
            if (!grow(v))
                return axe__fail(why, AXE_ERR_NO_MEMORY, -1, "out of memory");
            memset(&v->it[v->n], 0, sizeof v->it[v->n]);
            memcpy(v->it[v->n].base, pt, sizeof pt);
            v->n++;
        }
        for (d = r[1]->ndim - 1; d >= 0 && ++idx[d] == r[1]->len[d]; d--)
            idx[d] = 0;
    }
    return AXE_OK;
}

axe_status axe__trn_copy_descs(const axe_program *p, const ax_stmt *s,
                               const int64_t *env, bool vector,
                               ax_trn_desc **out, int64_t *nout, axe_diag *why)
{
    const ax_ref *dst = &s->args[0], *src = &s->args[1];
    items v = {NULL, 0, 0};
    int d;
    axe_status st;
    *out = NULL;
    *nout = 0;
    AXE_TRY(plain_region(p, src, "source", why));
    AXE_TRY(plain_region(p, dst, "destination", why));
    if (src->ndim != dst->ndim)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the regions have %d and %d dims", src->ndim,
                         dst->ndim);
    for (d = 0; d < dst->ndim; d++)
        if (src->len[d] != dst->len[d])
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the regions differ in dim %d (%lld, %lld)", d,
                             (long long)src->len[d], (long long)dst->len[d]);
    st = runs(p, s, env, vector, &v, why);
    while (st == AXE_OK && merge_pass(v.it, &v.n))
        ;
    if (st == AXE_OK && v.n > AX_TRN_MAX_DESC)
        st = axe__fail(why, AXE_ERR_CAPACITY, -1, "%lld descriptors, beyond %d",
                       (long long)v.n, AX_TRN_MAX_DESC);
    if (st != AXE_OK) {
        free(v.it);
        return st;
    }
    *out = v.it;
    *nout = v.n;
    return AXE_OK;
}

/* Operand "k" (0 source, 1 destination) of a copy. */
static const ax_tensor *side(const axe_program *p, const ax_stmt *s, int k)
{
    return &p->tensors[s->args[1 - k].tensor];
}

/* One side of descriptor "d" for --explain: "a P 0:128:1 F 0
 * [[1,128]]" or "A m 0 [[256,128],[1,128]]". */
static void side_text(ax_text *t, const ax_tensor *x, const ax_trn_desc *d,
                      int k)
{
    int l, pl = -1;
    for (l = 0; l < d->nlev; l++)
        if (d->step[l][2 * k] != 0)
            pl = l;
    if (x->space == AX_SPACE_NONE)
        axe__text_put(t, "%s m %lld [", x->name, (long long)d->base[2 * k + 1]);
    else
        axe__text_put(t, "%s P %lld:%lld:%lld F %lld [", x->name,
                      (long long)d->base[2 * k],
                      (long long)(pl >= 0 ? d->n[pl] : 1),
                      (long long)(pl >= 0 ? d->step[pl][2 * k] : 1),
                      (long long)d->base[2 * k + 1]);
    for (l = 0; l < d->nlev; l++)
        if (l == pl)
            axe__text_put(t, "%sP", l ? "," : "");
        else
            axe__text_put(t, "%s[%lld,%lld]", l ? "," : "",
                          (long long)d->step[l][2 * k + 1], (long long)d->n[l]);
    axe__text_put(t, "]");
}

/* " at (ki, mi) = (0, 0) (a list per value: 4 values, 16 in all)" for
 * a copy with loops. */
static void loops_text(ax_text *t, const axe_program *p, const ax_trn_copy *c)
{
    int k;
    if (c->nloop == 0)
        return;
    axe__text_put(t, " at (");
    for (k = 0; k < c->nloop; k++)
        axe__text_put(t, "%s%s", k ? ", " : "", p->vars[c->loop_var[k]]);
    axe__text_put(t, ") = (");
    for (k = 0; k < c->nloop; k++)
        axe__text_put(t, "%s0", k ? ", " : "");
    axe__text_put(t, ") (a list per value: %lld values, %lld in all)",
                  (long long)c->ncombo, (long long)c->ndesc);
}

/* The --explain lines of copy "s" with descriptors "c" (those of the
 * loops' first values). */
static const char *explain(const axe_program *p, const ax_stmt *s,
                           const ax_trn_copy *c)
{
    const ax_tensor *x = side(p, s, 0), *y = side(p, s, 1);
    int64_t q, bytes = 0, esz = axe_dtype_size(x->dtype), n = c->off[1];
    ax_text t;
    for (q = 0; q < n; q++) {
        int64_t e = 1;
        for (int l = 0; l < c->d[q].nlev; l++)
            e *= c->d[q].n[l];
        bytes += e * esz;
    }
    axe__text_init(&t, p->arena);
    axe__text_put(&t, "    %lld %s %s -> %s, %lld bytes", (long long)n,
                  c->transpose ? "TensorE transposes (matmuls against the "
                                 "identity)"
                  : c->dma     ? "DMA descriptors"
                               : "vector-engine moves",
                  space_name(x), space_name(y), (long long)bytes);
    loops_text(&t, p, c);
    axe__text_put(&t, "; each: source -> destination, P start:count:stride, "
                      "F start, [[stride,count],...] outermost first (P: "
                      "the partition level)\n");
    for (q = 0; q < n && q < 8; q++) {
        axe__text_put(&t, "    %s %lld: ",
                      c->transpose ? "transpose"
                      : c->dma     ? "dma"
                                   : "move",
                      (long long)q);
        side_text(&t, x, &c->d[q], 0);
        axe__text_put(&t, " -> ");
        side_text(&t, y, &c->d[q], 1);
        axe__text_put(&t, "\n");
    }
    if (n > 8)
        axe__text_put(&t, "    ... %lld more\n", (long long)(n - 8));
    return t.status == AXE_OK ? t.buf : NULL;
}

/* The common checks of both schedules: a core kernel's copy of one
 * dtype. */
static axe_status core_copy(const axe_program *p, const ax_stmt *s,
                            axe_diag *why)
{
    if (!p->core)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "not a core kernel (the engines run a core "
                         "kernel's copies)");
    if (side(p, s, 0)->dtype != side(p, s, 1)->dtype)
        return axe__fail(
            why, AXE_ERR_UNSUPPORTED, -1,
            "'%s' is %s and '%s' %s (the engines move bytes "
            "here; no conversion yet)",
            side(p, s, 0)->name, axe_dtype_name(side(p, s, 0)->dtype),
            side(p, s, 1)->name, axe_dtype_name(side(p, s, 1)->dtype));
    return AXE_OK;
}

/* Whether "b" (a block) contains "s"; the for statements around it
 * onto "stack" (outermost first, *depth of them). */
static bool enclosing(const ax_stmt *b, const ax_stmt *s, const ax_stmt **stack,
                      int *depth)
{
    for (; b != NULL; b = b->next) {
        if (b == s)
            return true;
        if (b->kind == AX_ST_FOR && *depth < AX_MAX_VARS) {
            stack[(*depth)++] = b;
            if (enclosing(b->body, s, stack, depth))
                return true;
            (*depth)--;
        } else if (b->kind == AX_ST_IF &&
                   (enclosing(b->body, s, stack, depth) ||
                    enclosing(b->else_body, s, stack, depth))) {
            return true;
        }
    }
    return false;
}

/* The first variable of "e" that is neither a builtin id (0 in a core
 * kernel) nor one of c's loops (-1: none; -2: "e" reads a tensor). */
static int stray_var(const ax_expr *e, const ax_trn_copy *c)
{
    int k, v;
    if (e == NULL)
        return -1;
    if (e->kind == AX_EX_LOAD)
        return -2;
    if (e->kind == AX_EX_VAR) {
        for (k = 0; k < c->nloop; k++)
            if (c->loop_var[k] == e->var)
                return -1;
        return e->var < AX_VAR_NBUILTIN ? -1 : e->var;
    }
    v = stray_var(e->a, c);
    return v != -1 ? v : stray_var(e->b, c);
}

axe_status axe__trn_loops(const axe_program *p, const ax_stmt *s,
                          ax_trn_copy *c, axe_diag *why)
{
    const ax_stmt *stack[AX_MAX_VARS];
    int depth = 0, k, a, d, v;
    c->nloop = 0;
    c->ncombo = 1;
    if (!enclosing(p->body, s, stack, &depth))
        depth = 0;
    for (k = 0; k < depth; k++) {
        bool used = false;
        for (a = 0; a < s->nargs; a++) {
            for (d = 0; d < s->args[a].ndim; d++)
                used = used ||
                       (s->args[a].start[d] != NULL &&
                        axe__expr_uses(s->args[a].start[d], stack[k]->var));
            used = used || (s->args[a].view_dyn != NULL &&
                            axe__expr_uses(s->args[a].view_dyn, stack[k]->var));
        }
        if (!used || stack[k]->dtrip != NULL)
            continue;
        if (c->nloop == AX_TRN_MAX_LOOPS ||
            c->ncombo * stack[k]->trip > AX_TRN_MAX_COMBOS)
            return axe__fail(why, AXE_ERR_CAPACITY, -1,
                             "the region starts read more loops than %d, or "
                             "of more than %d values together (a "
                             "descriptor list per value)",
                             AX_TRN_MAX_LOOPS, AX_TRN_MAX_COMBOS);
        c->loop_var[c->nloop] = stack[k]->var;
        c->loop_trip[c->nloop++] = stack[k]->trip;
        c->ncombo *= stack[k]->trip;
    }
    for (a = 0; a < s->nargs; a++) {
        if ((v = stray_var(s->args[a].view_dyn, c)) != -1)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the view offset of '%s' reads %s%s%s "
                             "(descriptors are derived at compile time: "
                             "constants and loop variables of constant "
                             "trip counts)",
                             p->tensors[s->args[a].tensor].name,
                             v == -2 ? "a tensor element" : "'",
                             v == -2 ? "" : p->vars[v], v == -2 ? "" : "'");
        for (d = 0; d < s->args[a].ndim; d++)
            if ((v = stray_var(s->args[a].start[d], c)) != -1)
                return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                                 "the start of dim %d of '%s' reads %s%s%s "
                                 "(descriptors are derived at compile time: "
                                 "constants and loop variables of constant "
                                 "trip counts)",
                                 d, p->tensors[s->args[a].tensor].name,
                                 v == -2 ? "a tensor element" : "'",
                                 v == -2 ? "" : p->vars[v], v == -2 ? "" : "'");
    }
    return AXE_OK;
}

void axe__trn_combo_env(const ax_trn_copy *c, int64_t q, int64_t *env)
{
    for (int k = c->nloop - 1; k >= 0; k--) {
        env[c->loop_var[k]] = q % c->loop_trip[k];
        q /= c->loop_trip[k];
    }
}

/* The engine of copy "c" in a reason. */
static const char *engine_of(const ax_trn_copy *c)
{
    return c->transpose ? "TensorE transpose"
           : c->dma     ? "DMA"
                        : "vector engine";
}

/* Every combination's descriptors into c->d and c->off (malloc'ed). */
static axe_status all_descs(const axe_program *p, const ax_stmt *s,
                            ax_trn_copy *c, axe_diag *why)
{
    int64_t env[AX_MAX_VARS] = {0}, q, n, elems = 1;
    ax_trn_desc *d, *m;
    axe_diag w;
    axe_status st;
    int k;
    c->d = NULL;
    c->ndesc = 0;
    for (k = 0; k < s->args[0].ndim; k++)
        elems *= s->args[0].len[k];
    if (elems > AX_TRN_MAX_VISITS / c->ncombo)
        return axe__fail(why, AXE_ERR_CAPACITY, -1,
                         "%lld elements at each of %lld values of the loops: "
                         "deriving the descriptors would visit more than "
                         "2^24 element pairs",
                         (long long)elems, (long long)c->ncombo);
    if ((c->off = calloc((size_t)c->ncombo + 1, sizeof *c->off)) == NULL)
        return axe__fail(why, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (q = 0; q < c->ncombo; q++) {
        axe__trn_combo_env(c, q, env);
        st = axe__trn_copy_descs(p, s, env, !c->dma && !c->transpose, &d, &n,
                                 &w);
        if (st == AXE_OK && c->ndesc + n > AX_TRN_MAX_DESC)
            st = axe__fail(&w, AXE_ERR_CAPACITY, -1,
                           "%lld descriptors over the loops' values, beyond "
                           "%d",
                           (long long)(c->ndesc + n), AX_TRN_MAX_DESC);
        m = st == AXE_OK ? realloc(c->d, (size_t)(c->ndesc + n + 1) * sizeof *m)
                         : NULL;
        if (st == AXE_OK && m == NULL)
            st = axe__fail(&w, AXE_ERR_NO_MEMORY, -1, "out of memory");
        if (st != AXE_OK) {
            free(d);
            return axe__fail(
                why, st, -1, "%s ('%s' -> '%s')%s%s: %s", engine_of(c),
                side(p, s, 0)->name, side(p, s, 1)->name,
                c->nloop > 0 ? " at the loops' value " : "",
                c->nloop > 0 ? "shown by --explain" : "", w.message);
        }
        c->d = m;
        memcpy(c->d + c->ndesc, d, (size_t)n * sizeof *d);
        free(d);
        c->ndesc += n;
        c->off[q + 1] = c->ndesc;
    }
    return AXE_OK;
}

/* "c" (malloc'ed tables) into the arena as s->tcopy. */
static axe_status keep(axe_program *p, ax_stmt *s, const ax_trn_copy *c)
{
    ax_trn_copy *k = axe__arena_alloc(p->arena, sizeof *k);
    if (k == NULL)
        return AXE_ERR_NO_MEMORY;
    *k = *c;
    k->d = axe__arena_alloc(p->arena, (size_t)c->ndesc * sizeof *c->d + 1);
    k->off =
        axe__arena_alloc(p->arena, (size_t)(c->ncombo + 1) * sizeof *c->off);
    if (k->d == NULL || k->off == NULL)
        return AXE_ERR_NO_MEMORY;
    memcpy(k->d, c->d, (size_t)c->ndesc * sizeof *c->d);
    memcpy(k->off, c->off, (size_t)(c->ncombo + 1) * sizeof *c->off);
    if ((k->why = explain(p, s, k)) == NULL)
        return AXE_ERR_NO_MEMORY;
    s->tcopy = k;
    return AXE_OK;
}

/* The kinds of copy: vector-engine moves, DMA descriptors, TensorE
 * transposes. */
enum { KIND_VECTOR, KIND_DMA, KIND_TRANSPOSE };

/* The K and M levels of transpose descriptor "d" (-1: none): K moves the
 * source's partition by 1 and keeps the destination's, M moves the
 * destination's by 1 and keeps the source's. */
static bool tile_levels(const ax_trn_desc *d, int *kl, int *ml)
{
    int l;
    *kl = *ml = -1;
    for (l = 0; l < d->nlev; l++)
        if (d->step[l][0] == 1 && d->step[l][2] == 0 && *kl < 0)
            *kl = l;
        else if (d->step[l][2] == 1 && d->step[l][0] == 0 && *ml < 0)
            *ml = l;
        else
            return false;
    return true;
}

/* Descriptor "d" is one TensorE transpose (a matmul of the source tile,
 * K partitions x M free elements, against the K x K identity into an M x
 * K tile of PSUM): its levels a K and an M level, K within matmul_max_k
 * and matmul_max_n, M within matmul_max_m, and each destination row (K
 * elements) inside one PSUM bank. */
static axe_status transpose_tile(const axe_program *p, const ax_stmt *s,
                                 const ax_trn_desc *d, axe_diag *why)
{
    const axe_trn_model *m = &p->opts.trn;
    int kl, ml;
    int64_t k, mm, f0, f1, bank = m->psum_bank_bytes / 4;
    if (!tile_levels(d, &kl, &ml))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' -> '%s' is no transpose: each step must move "
                         "one side's partition by 1 and the other side's "
                         "free element (the partitions of '%s' become the "
                         "free elements of '%s')",
                         side(p, s, 0)->name, side(p, s, 1)->name,
                         side(p, s, 0)->name, side(p, s, 1)->name);
    k = kl >= 0 ? d->n[kl] : 1;
    mm = ml >= 0 ? d->n[ml] : 1;
    if (k > m->matmul_max_k || k > m->matmul_max_n || mm > m->matmul_max_m)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a transpose of %lld partitions x %lld free "
                         "elements of '%s': the model's matmul takes at "
                         "most %lld x %lld (K x M, K also at most N = "
                         "%lld)",
                         (long long)k, (long long)mm, side(p, s, 0)->name,
                         (long long)m->matmul_max_k, (long long)m->matmul_max_m,
                         (long long)m->matmul_max_n);
    f0 = d->base[3];
    f1 = f0 + (k - 1) * (kl >= 0 ? d->step[kl][3] : 0);
    if ((f0 < f1 ? f0 : f1) / bank != (f0 < f1 ? f1 : f0) / bank)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a transpose writes free elements %lld..%lld of "
                         "'%s', across a PSUM bank of %lld",
                         (long long)(f0 < f1 ? f0 : f1),
                         (long long)(f0 < f1 ? f1 : f0), side(p, s, 1)->name,
                         (long long)bank);
    return AXE_OK;
}

/* The descriptors, kept with the plan when "commit". */
static axe_status finish(axe_program *p, ax_stmt *s, int kind, ax_plan *plan,
                         axe_diag *why, bool commit)
{
    ax_trn_copy c;
    axe_status st;
    int64_t q;
    memset(&c, 0, sizeof c);
    c.dma = kind == KIND_DMA;
    c.transpose = kind == KIND_TRANSPOSE;
    c.hbm[0] = side(p, s, 0)->space == AX_SPACE_NONE;
    c.hbm[1] = side(p, s, 1)->space == AX_SPACE_NONE;
    st = axe__trn_loops(p, s, &c, why);
    if (st == AXE_OK)
        st = all_descs(p, s, &c, why);
    for (q = 0; st == AXE_OK && c.transpose && q < c.ndesc; q++)
        st = transpose_tile(p, s, &c.d[q], why);
    if (st == AXE_OK && commit)
        st = keep(p, s, &c);
    free(c.d);
    free(c.off);
    AXE_TRY(st);
    return axe__plan_build(p, s, AX_PLAN_SERIAL, -1, plan, why);
}

axe_status axe__copy_dma(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit)
{
    const ax_tensor *x, *y;
    axe_diag w;
    AXE_TRY(core_copy(p, s, why));
    x = side(p, s, 0);
    y = side(p, s, 1);
    if (x->space == AX_SPACE_PSUM || y->space == AX_SPACE_PSUM)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is in PSUM (DMA queues reach HBM and SBUF; "
                         "the vector engine reaches PSUM)",
                         x->space == AX_SPACE_PSUM ? x->name : y->name);
    if (x->space == AX_SPACE_NONE && y->space == AX_SPACE_NONE)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' and '%s' are both in HBM (a core kernel "
                         "moves HBM through SBUF)",
                         x->name, y->name);
    if (x->space != AX_SPACE_NONE && y->space != AX_SPACE_NONE &&
        axe__copy_vector_engine(p, s, plan, &w, false) == AXE_OK)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' -> '%s' keeps every partition: copy.vector "
                         "moves it (DMA moves SBUF across partitions)",
                         x->name, y->name);
    return finish(p, s, KIND_DMA, plan, why, commit);
}

axe_status axe__copy_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit)
{
    const ax_tensor *x, *y;
    AXE_TRY(core_copy(p, s, why));
    x = side(p, s, 0);
    y = side(p, s, 1);
    if (x->space == AX_SPACE_NONE || y->space == AX_SPACE_NONE)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is in HBM (the vector engine moves between "
                         "scratchpads; DMA reaches HBM)",
                         x->space == AX_SPACE_NONE ? x->name : y->name);
    return finish(p, s, KIND_VECTOR, plan, why, commit);
}

axe_status axe__copy_transpose(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit)
{
    const ax_tensor *x, *y;
    AXE_TRY(core_copy(p, s, why));
    x = side(p, s, 0);
    y = side(p, s, 1);
    if (x->space != AX_SPACE_SBUF || y->space != AX_SPACE_PSUM)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is in %s and '%s' in %s (a transpose is a "
                         "TensorE matmul against the identity: SBUF into "
                         "PSUM)",
                         x->name, space_name(x), y->name, space_name(y));
    return finish(p, s, KIND_TRANSPOSE, plan, why, commit);
}

void axe__trn_copy_describe(ax_text *t, const ax_stmt *s)
{
    if (s->tcopy != NULL)
        axe__text_put(t, "%s", s->tcopy->why);
}
