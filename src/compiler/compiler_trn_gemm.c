/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm.tensor_engine: a core kernel's gemm(C, A, B), C[m,n] += sum_k
 * A[m,k] B[n,k], dispatched to TensorEngine matmul instructions by the
 * Axe paper's Appendix H (docs/compiler.md, "The accelerator model"):
 *   1. group A by (M, K), B by (N, K), C by (M, N) (their declared P/F
 *      layouts), so that each logical dim owns a block of iters;
 *   2. K: the innermost K iter of A and of B lies on P with stride 1 (an
 *      instruction contracts over consecutive partitions), and the
 *      paper's iter intersection of A's and B's K iters on P exists;
 *   3. M: the innermost M iter of A lies on F and of C on P with stride
 *      1; N: the innermost N iters of B and C lie on F;
 *   4. the instruction shape is, per dim, the largest divisor of the two
 *      innermost extents' gcd within the model's limit (and, for K,
 *      within the intersection), so that no instruction carries into an
 *      outer iter; the instructions then run in a loop nest over the
 *      remaining tiles, K innermost, each C tile inside one PSUM bank.
 * Each failure answers the step and the iters. Invariant: a plan's
 * instruction q touches exactly the elements of the logical block at
 * corner[q] of the instruction shape, at the storage addresses its base
 * and strides give (tests/test_compiler_trn.c checks it by brute force).
 */
#include <string.h>

#include "axe/notation.h"
#include "compiler_trn_region.h"

#define AX_TRN_MAX_INST 65536

/* One operand: its role letter, tensor, region (compiler_trn_region.h), and
 * the region's declared layout grouped by its two dims. */
typedef struct mm_side {
    char role;
    const ax_tensor *t;
    const ax_ref *r;
    ax_trn_region reg;
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
} mm_side;

/* The analysis of one gemm: the three operands (0 A, 1 B, 2 C), the
 * K intersection's text, and the instruction shape. */
typedef struct mm_state {
    mm_side op[3];
    char kint[96];
    int64_t ext[3], shape[3], cstride[3];
} mm_state;

static const char *const dim_names[3][2] = {{"M", "K"}, {"N", "K"}, {"M", "N"}};

/* The innermost iter of extent > 1 of dim "d" of "o" (NULL: the dim's
 * iters all have extent 1). */
static const axe_iter *inner_iter(const mm_side *o, int d)
{
    int i;
    for (i = o->seps[d + 1] - 1; i >= o->seps[d]; i--)
        if (o->g.shard[i].extent > 1)
            return &o->g.shard[i];
    return NULL;
}

/* "S[e:s@ax]" of iter "it" ("S[1:1]" for NULL) into "buf". */
static void iter_text(const axe_iter *it, char *buf, size_t cap)
{
    axe_layout l;
    axe_layout_init(&l);
    if (it != NULL) {
        l.shard[0] = *it;
        l.nshard = 1;
    }
    (void)axe_print_layout(&l, buf, cap);
}

/* The largest divisor of "g" that is at most "lim". */
static int64_t divisor_within(int64_t g, int64_t lim)
{
    int64_t d = g < lim ? g : lim;
    while (d > 1 && g % d != 0)
        d--;
    return d < 1 ? 1 : d;
}

/* Step 0: a core kernel's gemm on 2-D regions (not views, not masked),
 * A and B in SBUF, C in PSUM. */
static axe_status check_operands(const axe_program *p, const ax_stmt *s,
                                 axe_diag *why)
{
    static const int arg_of[3] = {1, 2, 0};
    static const char *const role[3] = {"A", "B", "C"};
    int k;
    if (!p->core)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "not a core kernel (TensorEngine runs a core "
                         "kernel's gemm)");
    if (s->tf32)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the tf32 option is not a TensorEngine mode here");
    for (k = 0; k < 3; k++) {
        const ax_ref *r = &s->args[arg_of[k]];
        const ax_tensor *t = &p->tensors[r->tensor];
        if (r->is_view || r->any_masked || r->ndim != 2 || t->ndim != 2)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "step 0: %s ('%s') is not a 2-D region%s "
                             "(TensorEngine takes tiles of 2-D sbuf and psum "
                             "tensors)",
                             role[k], t->name,
                             r->any_masked ? " (it is masked)" : "");
        if (t->space != (k == 2 ? AX_SPACE_PSUM : AX_SPACE_SBUF))
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "step 0: %s ('%s') is not in %s", role[k], t->name,
                             k == 2 ? "PSUM" : "SBUF");
    }
    return AXE_OK;
}

/* Step 0 (regions) and step 1: each operand's region, and its declared
 * layout grouped by the region's two dims. */
static axe_status group_all(const axe_program *p, const ax_stmt *s,
                            mm_state *st, axe_diag *why)
{
    static const int arg_of[3] = {1, 2, 0};
    static const char roles[] = "ABC";
    static const char *const role[3] = {"A", "B", "C"};
    int k;
    for (k = 0; k < 3; k++) {
        mm_side *o = &st->op[k];
        axe_diag d;
        o->role = roles[k];
        o->r = &s->args[arg_of[k]];
        o->t = &p->tensors[o->r->tensor];
        AXE_TRY(axe__trn_region(p, o->r, role[k], &o->reg, why));
        if (axe_layout_group(&o->reg.layout, o->r->len, 2, &o->g, o->seps,
                             &d) != AXE_OK)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "step 1 (groups): %c ('%s') cannot be grouped "
                             "by (%s, %s): %s",
                             roles[k], o->t->name, dim_names[k][0],
                             dim_names[k][1], d.message);
    }
    st->ext[0] = st->op[2].r->len[0];
    st->ext[1] = st->op[2].r->len[1];
    st->ext[2] = st->op[0].r->len[1];
    return AXE_OK;
}

/* Whether "it" (NULL: a dim of extent 1) lies on "axis", with stride 1
 * when "unit"; the reason otherwise. */
static axe_status on_axis(const mm_side *o, int d, const char *axis, bool unit,
                          const char *step, axe_diag *why)
{
    const axe_iter *it = inner_iter(o, d);
    char text[64];
    if (it == NULL || (strcmp(it->axis, axis) == 0 &&
                       (unit ? it->stride == 1 : it->stride > 0)))
        return AXE_OK;
    iter_text(it, text, sizeof text);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "step %s: %s is not on %s%s in %c ('%s'): its innermost "
                     "%s iter is %s",
                     step, dim_names[o->role - 'A'][d], axis,
                     unit ? " with stride 1" : "", o->role, o->t->name,
                     dim_names[o->role - 'A'][d], text);
}

/* The extent of dim "d"'s innermost iter (1 when it has none). */
static int64_t inner_extent(const mm_side *o, int d)
{
    const axe_iter *it = inner_iter(o, d);
    return it != NULL ? it->extent : 1;
}

/* The iters of dim "d" of "o" on axis P as a layout. */
static void p_iters(const mm_side *o, int d, axe_layout *out)
{
    int i;
    axe_layout_init(out);
    for (i = o->seps[d]; i < o->seps[d + 1]; i++)
        if (strcmp(o->g.shard[i].axis, "P") == 0)
            out->shard[out->nshard++] = o->g.shard[i];
}

/* Step 2: K on P in A and B, their K iters' intersection on P, and the
 * instruction's K. */
static axe_status k_step(const axe_trn_model *m, mm_state *st, axe_diag *why)
{
    axe_layout a, b, ik;
    axe_diag d;
    int64_t lim = m->matmul_max_k;
    AXE_TRY(on_axis(&st->op[0], 1, "P", true, "2 (K intersection)", why));
    AXE_TRY(on_axis(&st->op[1], 1, "P", true, "2 (K intersection)", why));
    p_iters(&st->op[0], 1, &a);
    p_iters(&st->op[1], 1, &b);
    if (st->ext[2] > 1) {
        if (axe_layout_intersect(&a, &b, "P", AXE_TARGET_NONE, &ik, &d) !=
            AXE_OK)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "step 2 (K intersection): A's and B's K iters "
                             "on P have no iter intersection: %s",
                             d.message);
        (void)axe_print_layout(&ik, st->kint, sizeof st->kint);
        if (ik.nshard == 1 && ik.shard[0].extent < lim)
            lim = ik.shard[0].extent;
    } else {
        strcpy(st->kint, "S[1:1@P]");
    }
    st->shape[2] = divisor_within(
        axe__gcd(inner_extent(&st->op[0], 1), inner_extent(&st->op[1], 1)),
        lim);
    return AXE_OK;
}

/* Step 3: M on F in A and on P in C, N on F in B and C, and the
 * instruction's M and N. */
static axe_status mn_step(const axe_trn_model *m, mm_state *st, axe_diag *why)
{
    const axe_iter *it;
    AXE_TRY(on_axis(&st->op[0], 0, "F", false, "3 (M intersection)", why));
    AXE_TRY(on_axis(&st->op[2], 0, "P", true, "3 (M intersection)", why));
    AXE_TRY(on_axis(&st->op[1], 0, "F", false, "3 (N intersection)", why));
    AXE_TRY(on_axis(&st->op[2], 1, "F", false, "3 (N intersection)", why));
    st->shape[0] = divisor_within(
        axe__gcd(inner_extent(&st->op[0], 0), inner_extent(&st->op[2], 0)),
        m->matmul_max_m);
    st->shape[1] = divisor_within(
        axe__gcd(inner_extent(&st->op[1], 0), inner_extent(&st->op[2], 1)),
        m->matmul_max_n);
    it = inner_iter(&st->op[0], 0);
    st->cstride[0] = it != NULL ? it->stride : 0;
    it = inner_iter(&st->op[1], 0);
    st->cstride[1] = it != NULL ? it->stride : 0;
    it = inner_iter(&st->op[2], 1);
    st->cstride[2] = it != NULL ? it->stride : 0;
    return AXE_OK;
}

/* The storage address of element (i, j) of the region of "o" relative
 * to the region's first element (at its first start). */
static int64_t address(const mm_side *o, int64_t i, int64_t j)
{
    return axe__trn_address(o->t, o->reg.at[0] + i, o->reg.at[1] + j) -
           o->reg.org;
}

/* Instruction "q" of the loop nest (M, N, K tiles, K innermost): its
 * corner and the base addresses of its tiles (relative to the regions'
 * origins); its C tile inside one PSUM bank of "bank" elements at every
 * origin C's region takes. */
static axe_status instruction(const mm_state *st, int64_t q, int64_t bank,
                              int64_t *corner, int64_t *base, axe_diag *why)
{
    const int64_t *sh = st->shape;
    const mm_side *c = &st->op[2];
    int64_t nk = st->ext[2] / sh[2], nn = st->ext[1] / sh[1], f0, f1;
    int k;
    corner[2] = q % nk * sh[2];
    corner[1] = q / nk % nn * sh[1];
    corner[0] = q / nk / nn * sh[0];
    base[0] = address(&st->op[0], corner[0], corner[2]);
    base[1] = address(&st->op[1], corner[1], corner[2]);
    base[2] = address(c, corner[0], corner[1]);
    for (k = 0; k < c->reg.nres; k++) {
        f0 = (c->reg.res[k] + base[2]) % c->t->fspan;
        f1 = f0 + (sh[1] - 1) * st->cstride[2];
        if (f0 / bank != f1 / bank)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "step 4 (instructions): the instruction at (m, "
                             "n) = (%lld, %lld) writes C's free elements "
                             "%lld..%lld, across a PSUM bank of %lld",
                             (long long)corner[0], (long long)corner[1],
                             (long long)f0, (long long)f1, (long long)bank);
    }
    return AXE_OK;
}

/* Step 4: the loop nest's instruction count within AX_TRN_MAX_INST. */
static axe_status count_step(const mm_state *st, int64_t *n, axe_diag *why)
{
    *n = 1;
    for (int d = 0; d < 3; d++)
        *n *= st->ext[d] / st->shape[d];
    if (*n > AX_TRN_MAX_INST)
        return axe__fail(why, AXE_ERR_CAPACITY, -1,
                         "step 4 (instructions): %lld matmul instructions of "
                         "%lld x %lld x %lld, beyond %d",
                         (long long)*n, (long long)st->shape[0],
                         (long long)st->shape[1], (long long)st->shape[2],
                         AX_TRN_MAX_INST);
    return AXE_OK;
}

/* Whether the region of "o" is its whole tensor. */
static bool whole(const mm_side *o)
{
    return o->reg.origin.n == 0 && o->reg.at[0] == 0 && o->reg.at[1] == 0 &&
           o->r->len[0] == o->t->shape[0] && o->r->len[1] == o->t->shape[1];
}

/* The --explain line of the operands that are regions of their tensors:
 * the region, its start values, and its origin's storage address. */
static void explain_regions(ax_text *t, const axe_program *p,
                            const mm_state *st)
{
    char text[128];
    int k, d, j;
    if (whole(&st->op[0]) && whole(&st->op[1]) && whole(&st->op[2]))
        return;
    axe__text_put(t, "    step 0 regions:");
    for (k = 0; k < 3; k++) {
        const mm_side *o = &st->op[k];
        if (whole(o))
            continue;
        axe__text_put(t, " %c %s", o->role, o->t->name);
        for (d = 0; d < 2; d++) {
            text[0] = '\0';
            if (o->r->start[d] != NULL)
                (void)axe__expr_text(p, o->r->start[d], text, sizeof text, 0);
            axe__text_put(t, "%s%s : +%lld", d ? ", " : "[",
                          text[0] ? text : "0", (long long)o->r->len[d]);
        }
        axe__text_put(t, "] (%lld x %lld starts), origin %lld",
                      (long long)o->reg.nstarts[0],
                      (long long)o->reg.nstarts[1],
                      (long long)o->reg.origin.cst);
        for (j = 0; j < o->reg.origin.n; j++) {
            const ax_trn_origin *g = &o->reg.origin;
            text[0] = '\0';
            (void)axe__expr_text(p, g->start[j], text, sizeof text, 0);
            if (g->at[j] != 0)
                axe__text_put(t, " + %lld * ((%s - %lld) / %lld)",
                              (long long)g->scale[j], text, (long long)g->at[j],
                              (long long)g->step[j]);
            else
                axe__text_put(t, " + %lld * ((%s) / %lld)",
                              (long long)g->scale[j], text,
                              (long long)g->step[j]);
        }
        axe__text_put(t, ";");
    }
    axe__text_put(t, "\n");
}

/* The --explain lines of the analysis "st" with "n" instructions. */
static const char *explain(ax_arena *a, const axe_program *p,
                           const mm_state *st, int64_t n)
{
    const axe_trn_model *m = &p->opts.trn;
    ax_text t;
    int k, d;
    axe__text_init(&t, a);
    explain_regions(&t, p, st);
    axe__text_put(&t, "    step 1 groups:");
    for (k = 0; k < 3; k++)
        for (d = 0; d < 2; d++) {
            char text[64];
            iter_text(inner_iter(&st->op[k], d), text, sizeof text);
            axe__text_put(&t, " %c %s %s%s", st->op[k].role, dim_names[k][d],
                          text, k == 2 && d == 1 ? "\n" : ";");
        }
    axe__text_put(&t,
                  "    step 2 K intersection of A's and B's P iters: %s\n"
                  "    step 3 M from A on F and C on P, N from B and C on F\n"
                  "    step 4 instruction %lld x %lld x %lld (M x N x K; "
                  "limits %lld x %lld x %lld), loop nest M %lld x N %lld x "
                  "K %lld = %lld matmuls, K innermost\n",
                  st->kint, (long long)st->shape[0], (long long)st->shape[1],
                  (long long)st->shape[2], (long long)m->matmul_max_m,
                  (long long)m->matmul_max_n, (long long)m->matmul_max_k,
                  (long long)(st->ext[0] / st->shape[0]),
                  (long long)(st->ext[1] / st->shape[1]),
                  (long long)(st->ext[2] / st->shape[2]), (long long)n);
    return t.buf;
}

/* The plan "mm" of "st" with "n" instructions, in the arena. */
static axe_status keep(axe_program *p, const mm_state *st, int64_t n,
                       ax_trn_mm **out)
{
    const axe_trn_model *m = &p->opts.trn;
    ax_trn_mm *mm = axe__arena_alloc(p->arena, sizeof *mm);
    int64_t q;
    if (mm == NULL)
        return AXE_ERR_NO_MEMORY;
    mm->base = axe__arena_alloc(p->arena, (size_t)n * sizeof *mm->base);
    mm->corner = axe__arena_alloc(p->arena, (size_t)n * sizeof *mm->corner);
    if (mm->base == NULL || mm->corner == NULL)
        return AXE_ERR_NO_MEMORY;
    memcpy(mm->shape, st->shape, sizeof mm->shape);
    memcpy(mm->cstride, st->cstride, sizeof mm->cstride);
    for (q = 0; q < 3; q++) {
        mm->rstride[q] = st->op[q].t->fspan;
        mm->loops[q] = st->ext[q] / st->shape[q];
    }
    mm->ninst = n;
    for (q = 0; q < n; q++)
        AXE_TRY(instruction(st, q, m->psum_bank_bytes / 4, mm->corner[q],
                            mm->base[q], NULL));
    for (q = 0; q < 3; q++)
        mm->origin[q] = st->op[q].reg.origin;
    mm->why = explain(p->arena, p, st, n);
    if (mm->why == NULL)
        return AXE_ERR_NO_MEMORY;
    *out = mm;
    return AXE_OK;
}

axe_status axe__gemm_tensor_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit)
{
    const axe_trn_model *m = &p->opts.trn;
    mm_state st;
    int64_t n, q, corner[3], base[3];
    memset(&st, 0, sizeof st);
    AXE_TRY(check_operands(p, s, why));
    AXE_TRY(group_all(p, s, &st, why));
    AXE_TRY(k_step(m, &st, why));
    AXE_TRY(mn_step(m, &st, why));
    AXE_TRY(count_step(&st, &n, why));
    for (q = 0; q < n; q++)
        AXE_TRY(instruction(&st, q, m->psum_bank_bytes / 4, corner, base, why));
    AXE_TRY(axe__plan_build(p, s, AX_PLAN_SERIAL, -1, plan, why));
    return commit ? keep(p, &st, n, &s->trn) : AXE_OK;
}

void axe__trn_describe(ax_text *t, const ax_stmt *s)
{
    if (s->trn != NULL)
        axe__text_put(t, "%s", s->trn->why);
}
