/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The self-overlap refusal: an operator run by more than one thread whose
 * source on its destination's tensor may overlap the destination (not in
 * place, not apart from it) is refused before any schedule, since the
 * threads would reorder the reads and stores that the reference runs
 * element by element (docs/compiler.md, "A source on its destination's
 * tensor").
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* "str" appended at "n" of "buf" (snprintf-style: the length needed). */
static size_t cat(char *buf, size_t cap, size_t n, const char *str)
{
    int k =
        snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0, "%s", str);
    return n + (size_t)(k > 0 ? k : 0);
}

/* Region "r" as written ("X[8:24, 0:2]"; a dynamic start "e" as
 * "e:e+len"; a view as "a view of X") into "buf". */
static void region_text(const axe_program *p, const ax_ref *r, char *buf,
                        size_t cap)
{
    char num[48];
    size_t n = cat(buf, cap, 0, r->is_view ? "a view of " : "");
    n = cat(buf, cap, n, p->tensors[r->tensor].name);
    if (r->is_view)
        return;
    for (int d = 0; d < r->ndim; d++) {
        const ax_expr *e = r->start[d];
        n = cat(buf, cap, n, d > 0 ? ", " : "[");
        if (e == NULL || e->kind == AX_EX_INT) {
            int64_t lo = e != NULL ? e->value : 0;
            (void)snprintf(num, sizeof num, "%lld:%lld", (long long)lo,
                           (long long)(lo + r->len[d]));
            n = cat(buf, cap, n, num);
            continue;
        }
        n = axe__expr_text(p, e, buf, cap, n);
        n = cat(buf, cap, n, ":");
        n = axe__expr_text(p, e, buf, cap, n);
        (void)snprintf(num, sizeof num, " + %lld", (long long)r->len[d]);
        n = cat(buf, cap, n, num);
    }
    (void)cat(buf, cap, n, "]");
}

/* Whether dim "d"'s ranges [start, start + len) of regions "a" and "b"
 * do not meet: starts that differ by a constant (linear forms). */
static bool dim_apart(const ax_ref *a, const ax_ref *b, int d)
{
    int64_t gap; /* b's start less a's */
    if (!axe__expr_diff(b->start[d], a->start[d], &gap))
        return false;
    return a->len[d] <= gap || b->len[d] <= -gap;
}

/* See compiler_internal.h. */
bool axe__digits_injective(const int64_t *stride, const int64_t *extent, int n,
                           int *order)
{
    int idx[AX_MAX_INJ];
    int64_t reach = 0, step;
    bool shown = n <= AX_MAX_INJ;
    for (int i = 0; i < n && shown; i++) {
        int j = i;
        for (; j > 0 && axe__abs(stride[idx[j - 1]]) > axe__abs(stride[i]); j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
    for (int i = 0; i < n && shown; i++) {
        int64_t s = axe__abs(stride[idx[i]]);
        if (extent[idx[i]] <= 1)
            continue; /* one value: no sum to tell apart */
        shown = s > reach && axe__mul(s, extent[idx[i]] - 1, &step) == AXE_OK &&
                axe__add(reach, step, &reach) == AXE_OK;
    }
    for (int i = 0; order != NULL && i < n && n <= AX_MAX_INJ; i++)
        order[i] = idx[i];
    return shown;
}

/* Whether layout "l" maps distinct elements to distinct addresses: no
 * replica, every iter in memory, and axe__digits_injective of its
 * iters (a swizzle permutes addresses). False when not shown. */
static bool mem_injective(const axe_layout *l)
{
    int64_t st[AXE_LAYOUT_MAX_SHARD], ex[AXE_LAYOUT_MAX_SHARD];
    if (l->nreplica != 0)
        return false;
    for (int i = 0; i < l->nshard; i++) {
        const axe_iter *it = &l->shard[i];
        if (axe__iter_rank_stride(it) != 0 || strcmp(it->axis, "m") != 0)
            return false;
        st[i] = it->stride;
        ex[i] = it->extent;
    }
    return axe__digits_injective(st, ex, l->nshard, NULL);
}

#define AX_REG_ITERS (AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA)

/* Whether register layout "l" gives distinct elements distinct
 * registers of each thread that holds them: its thread iters (replicas
 * too) injective on the CTA's thread rank and its memory iters injective
 * on the registers, so no (thread, register) holds two elements. False
 * when not shown. */
static bool regs_injective(const axe_layout *l)
{
    int64_t ts[AX_REG_ITERS], te[AX_REG_ITERS], ms[AX_REG_ITERS],
        me[AX_REG_ITERS];
    int nt = 0, nm = 0;
    for (int i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        int64_t rs = axe__iter_rank_stride(it);
        if (rs == INT64_MAX)
            return false;
        if (rs != 0) {
            ts[nt] = rs;
            te[nt++] = it->extent;
        } else {
            ms[nm] = it->stride;
            me[nm++] = it->extent;
        }
    }
    return axe__digits_injective(ts, te, nt, NULL) &&
           axe__digits_injective(ms, me, nm, NULL);
}

/* Whether regions "a" and "b" of one tensor (not views) hold disjoint
 * elements (apart in some dim) at distinct addresses (of a register
 * tensor: at distinct registers of each thread). */
static bool regions_apart(const axe_program *p, const ax_ref *a,
                          const ax_ref *b)
{
    const ax_tensor *t = &p->tensors[a->tensor];
    if (a->is_view || b->is_view || a->ndim != b->ndim ||
        !(t->mem == AX_MEM_REGISTER ? regs_injective(&t->layout)
                                    : mem_injective(&t->layout)))
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (dim_apart(a, b, d))
            return true;
    return false;
}

/* Whether starts "a" and "b" are equal for every value of the
 * variables (linear forms: `i * 16` and `16 * i`). */
static bool same_start(const ax_expr *a, const ax_expr *b)
{
    int64_t gap;
    return axe__expr_diff(a, b, &gap) && gap == 0;
}

/* Whether "a" and "b" name the same elements the same way (one region,
 * or one view of one region). */
static bool same_ref(const ax_ref *a, const ax_ref *b)
{
    if (a->tensor != b->tensor || a->ndim != b->ndim ||
        a->is_view != b->is_view || a->bdim != b->bdim || a->any_masked ||
        b->any_masked)
        return false;
    if (a->is_view && (!axe_layout_equal(&a->view, &b->view) ||
                       !same_start(a->view_dyn, b->view_dyn)))
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->len[d] != b->len[d] || !same_start(a->start[d], b->start[d]))
            return false;
    return true;
}

/* Whether the destination of "plan" may store some address twice (its
 * loops' strides not shown injective by axe__digits_injective: a loop of
 * stride 0, or a view such as S[(4,4):(1,1)]): then its stores are not
 * its elements' own. */
static bool dst_repeats(const ax_plan *plan)
{
    int64_t st[AX_MAX_LOOPS], ex[AX_MAX_LOOPS];
    for (int k = 0; k < plan->nloops; k++) {
        st[k] = plan->loops[k].stride[0];
        ex[k] = plan->loops[k].extent;
    }
    return !axe__digits_injective(st, ex, plan->nloops, NULL);
}

/* Whether source "i" of affine "plan" reads, at each element, the
 * address the destination stores at that element (in place), and no
 * two elements of the destination share an address. */
static bool in_place(const axe_program *p, const ax_stmt *s,
                     const ax_plan *plan, int i)
{
    ax_base bd, bs;
    if (!plan->affine[0] || dst_repeats(plan))
        return false;
    if (same_ref(&s->args[0], &s->args[i]))
        return true;
    if (!plan->affine[i] || axe__plan_other_spaces(p, &s->args[0], &s->args[i]))
        return false;
    axe__plan_base(p, &s->args[0], &bd);
    axe__plan_base(p, &s->args[i], &bs);
    if (bd.cst != bs.cst || bd.ndyn != bs.ndyn)
        return false;
    for (int j = 0; j < bd.ndyn; j++)
        if (bd.scale[j] != bs.scale[j] || !axe__expr_same(bd.dyn[j], bs.dyn[j]))
            return false;
    for (int k = 0; k < plan->nloops; k++)
        if (plan->loops[k].stride[0] != plan->loops[k].stride[i])
            return false;
    return true;
}

/* Whether a region or view "r" stores some address twice as its own
 * layout says (outside registers: not mem_injective; a register: an iter
 * in memory of stride 0), when no plan is at hand. */
static bool layout_repeats(const axe_program *p, const ax_ref *r)
{
    const axe_layout *l = r->is_view ? &r->view : &p->tensors[r->tensor].layout;
    if (p->tensors[r->tensor].mem != AX_MEM_REGISTER)
        return !mem_injective(l);
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent > 1 && l->shard[k].stride == 0 &&
            axe__iter_rank_stride(&l->shard[k]) == 0)
            return true;
    return false;
}

/* Whether source "i" of "s", on the destination's tensor, may be
 * reordered against the destination's stores: not apart from it, and
 * not shown disjoint from it or (an update: not reduce, not gemm) in
 * place on the serial walk of the two operands alone (their addresses
 * element by element, whatever the other operands are), or where that
 * walk cannot be built, not the same reference of a destination whose
 * layout stores no address twice. */
static bool may_reorder(const axe_program *p, const ax_stmt *s, int i)
{
    bool update = s->op != AX_OP_REDUCE && s->op != AX_OP_GEMM;
    ax_stmt pair = *s;
    ax_plan plan;
    axe_diag ignored;
    if (regions_apart(p, &s->args[0], &s->args[i]))
        return false;
    pair.op = AX_OP_COPY;
    pair.nargs = 2;
    pair.args[1] = s->args[i];
    if (axe__plan_build(p, &pair, AX_PLAN_SERIAL, -1, &plan, &ignored) !=
        AXE_OK)
        return !update || !same_ref(&s->args[0], &s->args[i]) ||
               layout_repeats(p, &s->args[0]);
    if (!axe__plan_may_overlap(p, &pair, &plan, 1))
        return false;
    return !update || !in_place(p, &pair, &plan, 1);
}

/* The refusal of source "i" of "s", reordered by "how" (the scope's
 * threads, or a schedule). */
static axe_status refuse(const axe_program *p, const ax_stmt *s, int i,
                         const char *how, axe_diag *why)
{
    char src[256], dst[256];
    bool update = s->op != AX_OP_REDUCE && s->op != AX_OP_GEMM;
    region_text(p, &s->args[i], src, sizeof src);
    region_text(p, &s->args[0], dst, sizeof dst);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, s->off,
                     "%s#%d: its source %s may overlap its destination %s, "
                     "and %s would %s; %scopy the source through another "
                     "tensor first",
                     axe__op_name(s->op), s->index, src, dst, how,
                     update ? "reorder its reads and stores (the reference "
                              "runs them element by element)"
                            : "update it while others still read it",
                     update ? "run it at thread scope or " : "");
}

/* Whether source "i" of "s" waits for the schedule: an update of a
 * register tensor, whose elements each thread runs on its own registers
 * (axe__no_reorder_plan). */
static bool per_thread(const axe_program *p, const ax_stmt *s)
{
    return s->op != AX_OP_REDUCE && s->op != AX_OP_GEMM &&
           p->tensors[s->args[0].tensor].mem == AX_MEM_REGISTER;
}

/* See compiler_internal.h. */
axe_status axe__no_reorder(const axe_program *p, const ax_stmt *s,
                           axe_diag *why)
{
    char how[64];
    int64_t n;
    if (s->scope == AX_SCOPE_THREAD || p->core)
        return AXE_OK;
    n = axe__scope_threads(p, s->scope);
    (void)snprintf(how, sizeof how, "the %s's %lld threads",
                   axe__stmt_scope_name(p, s), (long long)n);
    for (int i = 1; i < s->nargs && n > 1; i++)
        if (s->args[i].tensor == s->args[0].tensor && !per_thread(p, s) &&
            may_reorder(p, s, i))
            return refuse(p, s, i, how, why);
    return AXE_OK;
}

/* See compiler_internal.h. */
axe_status axe__no_reorder_plan(const axe_program *p, const ax_stmt *s,
                                axe_diag *why)
{
    char how[64];
    const ax_plan *plan = s->plan;
    if (s->scope == AX_SCOPE_THREAD || p->core || !per_thread(p, s) ||
        axe__scope_threads(p, s->scope) <= 1)
        return AXE_OK;
    if (plan->kind != AX_PLAN_SPLIT && !axe__plan_permuted(plan) &&
        strcmp(s->schedule, "smem") != 0)
        return AXE_OK; /* each thread its own elements, in order */
    (void)snprintf(how, sizeof how, "%s.%s", axe__op_name(s->op), s->schedule);
    for (int i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == s->args[0].tensor && may_reorder(p, s, i))
            return refuse(p, s, i, how, why);
    return AXE_OK;
}
