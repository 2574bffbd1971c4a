/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ldmatrix for a copy from shared memory into registers of 4-, 8- or
 * 16-bit elements (the header's comment; docs/compiler.md "ldmatrix
 * copies"). The copy's plan gives, for thread rank t and the digits of
 * its non-thread loops (enumerated outer first, index u), the register
 * element reg[u] (thread-independent) and the shared tile address
 * addr[t][u] (dynamic start terms at 0: they must be multiples of 16
 * bytes). With u_of[R] the index of register element R, w = 32 / bits
 * the elements of a 32-bit word and E = 128 / bits those of a 16-byte
 * row, the thread's word g is elements w g .. w g + w - 1.
 * ldmatrix.m8n8.x1 gives lane l in its register the b16 pair at bytes
 * 4 (l % 4) of row l / 4, each row 16 bytes from the address lane 8j + r
 * passes for matrix j. So word g of lane l is its ldmatrix register when,
 * in every warp (a[l][R] = addr[l][u_of[R]]),
 *   a[l][w g + e] = a[l][w g] + e                        (e < w),
 *   a[l][w g] = a[l & ~3][w g] + w (l % 4),
 *   a[4r][w g] % E = 0;
 * lane 8j + r then passes the address of lane 4r's word g_j, which the
 * emitted code computes from the rank of lane 4 (laneid % 8) of its own
 * warp. With .trans (16-bit elements only) lane l's register is the b16
 * at column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1, so word g of lane
 * l is its register when
 *   a[l][2g + e] = a[l % 4][2g + e] + l / 4              (e < 2),
 *   a[q][2g + e] % 8 = 0                                 (q < 4);
 * lane 8j + r passes the address of element 2 g_j + r % 2 of lane r / 2.
 * Either way the swizzle must keep aligned runs of E elements (16 bytes)
 * whole, so that the same holds of the swizzled addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_copy_ldsm.h"
#include "compiler_smem.h"

typedef struct ld_ctx {
    const axe_program *p;
    const ax_stmt *s;
    const ax_plan *plan;
    const axe_layout_swizzle *sw;
    int nt[AX_MAX_LOOPS], nnt; /* the non-thread loops, outer first */
    int64_t span, total, cst[2];
    /* element bits, elements per 32-bit word and per 16-byte row */
    int64_t bits, epw, row;
    bool trans;                 /* the .trans conditions (file comment) */
    int64_t *reg, *u_of, *addr; /* addr: 32 lanes x total */
} ld_ctx;

static void fail(ax_ldsm *o, const char *why)
{
    ax_inst_leaf *l = &o->leaf[0];
    if (l->legal)
        (void)snprintf(l->why, sizeof l->why, "%s", why);
    l->legal = false;
}

/* The non-thread digits of enumeration index "u". */
static void digits_of(const ld_ctx *c, int64_t u, int64_t *dg)
{
    for (int k = c->nnt - 1; k >= 0; k--) {
        int64_t e = c->plan->loops[c->nt[k]].extent;
        dg[c->nt[k]] = u % e;
        u /= e;
    }
}

/* Operand "i"'s address at thread rank "t" and enumeration index "u". */
static int64_t addr_at(const ld_ctx *c, int i, int64_t t, int64_t u)
{
    int64_t dg[AX_MAX_LOOPS], a = c->cst[i];
    const ax_plan *pl = c->plan;
    digits_of(c, u, dg);
    for (int k = 0; k < pl->nloops; k++) {
        int64_t d = pl->loops[k].thread
                        ? t / pl->loops[k].rank_div % pl->loops[k].extent
                        : dg[k];
        a += d * pl->loops[k].stride[i];
    }
    return a;
}

/* Whether "s" is a candidate (the header) with an affine plan. */
static bool candidate(const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d, *r;
    int bits;
    if (p->opts.naive || s->kind != AX_ST_OP || s->dead ||
        s->op != AX_OP_COPY || s->plan == NULL || s->stage[0] != NULL ||
        s->mma != NULL || s->nmasks > 0 || s->grid != NULL ||
        (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP &&
         s->scope != AX_SCOPE_CTA))
        return false;
    d = &p->tensors[s->args[0].tensor];
    r = &p->tensors[s->args[1].tensor];
    bits = axe_dtype_bit_width(d->dtype);
    return d->mem == AX_MEM_REGISTER && r->mem == AX_MEM_SHARED &&
           d->dtype == r->dtype && (bits == 4 || bits == 8 || bits == 16);
}

/* Plan conditions checked before any evaluation. */
static void precheck(ld_ctx *c, ax_ldsm *o)
{
    const ax_stmt *s = c->s;
    ax_base b[2];
    int n;
    for (int i = 0; i < 2; i++) {
        for (int d = 0; d < s->args[i].ndim; d++)
            if (s->args[i].masked[d] ||
                axe__expr_load(s->args[i].start[d], &n) != NULL)
                fail(o, "an operand is masked or has a data-dependent start");
        axe__plan_base(c->p, &s->args[i], &b[i]);
        c->cst[i] = b[i].cst;
    }
    if (c->plan->kind != AX_PLAN_BOUND || !c->plan->affine[0] ||
        !c->plan->affine[1])
        fail(o, "the copy's plan is not a per-thread affine loop nest");
    if (b[0].ndyn != 0)
        fail(o, "the register operand has a dynamic start");
    for (int k = 0; k < b[1].ndyn; k++)
        if (axe__expr_gcd(b[1].dyn[k]) * b[1].scale[k] % c->row != 0)
            fail(o, "a dynamic start of the shared operand is not a multiple "
                    "of 16 bytes");
    if (axe__swizzle_run(c->p, &s->args[1]) < c->row)
        fail(o, "the swizzle keeps runs of fewer than 16 bytes whole");
    if (c->plan->nthreads % 32 != 0)
        fail(o, "the scope's threads are not whole warps");
    if (c->span % c->epw != 0 || c->span / c->epw > AX_LDSM_MAX_WORDS)
        fail(o, "the register is not whole 32-bit words (at most 64)");
    if (c->total != c->span)
        fail(o, "the copy does not write each register element once");
}

/* reg[u] and u_of[R]: each register element exactly once. */
static void register_map(ld_ctx *c, ax_ldsm *o)
{
    for (int64_t r = 0; r < c->span; r++)
        c->u_of[r] = -1;
    for (int64_t u = 0; u < c->total; u++) {
        int64_t r = addr_at(c, 0, 0, u);
        c->reg[u] = r;
        if (r < 0 || r >= c->span || c->u_of[r] >= 0) {
            fail(o, "the copy does not write each register element once");
            return;
        }
        c->u_of[r] = u;
    }
}

/* The .trans conditions of the file comment on the current warp's lanes
 * (c->addr). */
static void trans_rows(ld_ctx *c, ax_ldsm *o)
{
    for (int g = 0; o->leaf[0].legal && g < o->words; g++)
        for (int l = 0; o->leaf[0].legal && l < AX_WARP; l++)
            for (int e = 0; e < 2; e++) {
                int64_t u = c->u_of[2 * g + e], a = c->addr[l * c->total + u];
                if (a != c->addr[(l % 4) * c->total + u] + l / 4)
                    fail(o, "a register word is not column l / 4 of rows "
                            "2 (l % 4), 2 (l % 4) + 1 (.trans)");
                if (l < 4 && a % c->row != 0)
                    fail(o, "a row's first element is not on a 16-byte "
                            "boundary");
            }
}

/* The conditions of the file comment on warp "wp"'s lanes. */
static void warp_rows(ld_ctx *c, int64_t wp, ax_ldsm *o)
{
    const ax_inst_leaf *l0 = &o->leaf[0];
    int64_t w = c->epw;
    for (int l = 0; l < AX_WARP; l++)
        for (int64_t u = 0; u < c->total; u++)
            c->addr[l * c->total + u] = addr_at(c, 1, 32 * wp + l, u);
    if (c->trans) {
        trans_rows(c, o);
        return;
    }
    for (int g = 0; l0->legal && g < o->words; g++)
        for (int l = 0; l0->legal && l < AX_WARP; l++) {
            const int64_t *a = &c->addr[l * c->total];
            int64_t a0 = a[c->u_of[w * g]];
            for (int64_t e = 1; e < w; e++)
                if (a[c->u_of[w * g + e]] != a0 + e)
                    fail(o, "a register word is not 4 consecutive bytes of "
                            "the shared tensor");
            if (a0 !=
                c->addr[(l & ~3) * c->total + c->u_of[w * g]] + w * (l % 4))
                fail(o, "a register word is not bytes 4 (l % 4) of the "
                        "16-byte row of lane 4 (l / 4)");
            if (l % 4 == 0 && a0 % c->row != 0)
                fail(o, "a row's first element is not on a 16-byte boundary");
        }
}

/* The lane of its warp and the register element of word "g" whose
 * address row "i" (< 8) of the word's matrix starts at (file comment). */
static int row_lane(const ld_ctx *c, int i) { return c->trans ? i / 2 : 4 * i; }
static int64_t row_elem(const ld_ctx *c, int64_t g, int i)
{
    return c->epw * g + (c->trans ? i % 2 : 0);
}

/* Warp 0's ldmatrix instructions (c->addr holds warp 0). */
static axe_status ldsm_counts(ld_ctx *c, ax_ldsm *o, axe_diag *diag)
{
    int n = o->leaf[0].regs;
    for (int q = 0; q < o->words / n; q++) {
        ax_tile_access a;
        memset(&a, 0, sizeof a);
        a.vec = c->row;
        for (int ln = 0; ln < 8 * n; ln++) {
            int64_t g = q * n + ln / 8;
            a.active[ln] = true;
            a.elem[ln] = c->addr[row_lane(c, ln % 8) * c->total +
                                 c->u_of[row_elem(c, g, ln % 8)]];
        }
        AXE_TRY(axe__inst_leaf_add(&o->leaf[0], &a, 1, c->bits, c->sw, diag));
    }
    return AXE_OK;
}

/* Warp 0's per-thread loads of the plan: one per chunk of plan->vec
 * elements of the innermost non-thread loop. */
static axe_status thread_counts(ld_ctx *c, ax_ldsm *o, axe_diag *diag)
{
    int in = axe__plan_innermost_loop(c->plan);
    int64_t vec = c->plan->vec > 0 ? c->plan->vec : 1;
    o->access_bytes = vec * c->bits >= 8 ? vec * c->bits / 8 : 1;
    for (int64_t u = 0; u < c->total; u++) {
        int64_t dg[AX_MAX_LOOPS];
        ax_tile_access a;
        digits_of(c, u, dg);
        if (in >= 0 && dg[in] % vec != 0)
            continue;
        memset(&a, 0, sizeof a);
        a.vec = vec;
        for (int ln = 0; ln < AX_WARP; ln++) {
            a.active[ln] = true;
            a.elem[ln] = c->addr[ln * c->total + u];
        }
        AXE_TRY(axe__inst_leaf_add(&o->leaf[1], &a, 1, c->bits, c->sw, diag));
    }
    return AXE_OK;
}

/* Legality over every warp (the last warp first, so that c->addr ends
 * with warp 0's), stopping at the first failure; for 16-bit elements
 * that fail, the same with .trans; when legal, warp 0's counts and the
 * choice. */
static axe_status evaluate(ld_ctx *c, ax_ldsm *o, axe_diag *diag)
{
    ax_inst_leaf *l = o->leaf;
    int64_t wp;
    register_map(c, o);
    if (!l[0].legal)
        return AXE_OK;
    for (wp = c->plan->nthreads / 32 - 1; l[0].legal && wp >= 0; wp--)
        warp_rows(c, wp, o);
    if (!l[0].legal && c->bits == 16) {
        char why[sizeof l[0].why];
        memcpy(why, l[0].why, sizeof why);
        c->trans = l[0].legal = true;
        for (wp = c->plan->nthreads / 32 - 1; l[0].legal && wp >= 0; wp--)
            warp_rows(c, wp, o);
        if (!l[0].legal) /* the reason of the plain form */
            memcpy(l[0].why, why, sizeof why);
        c->trans = l[0].legal;
    }
    if (!l[0].legal)
        return AXE_OK;
    o->trans = c->trans;
    AXE_TRY(thread_counts(c, o, diag));
    l[1].cost = (double)(l[1].instructions + l[1].wavefronts);
    for (int g = 0; g < o->words; g++)
        for (int e = 0; e < 2; e++)
            digits_of(c, c->u_of[row_elem(c, g, e)], o->digit[g][e]);
    AXE_TRY(ldsm_counts(c, o, diag));
    l[0].cost = (double)(l[0].instructions + l[0].wavefronts);
    o->chosen = l[0].cost <= l[1].cost;
    return AXE_OK;
}

axe_status axe__ldsm_choose(const axe_program *p, const ax_stmt *s,
                            ax_ldsm *out, axe_diag *diag)
{
    ld_ctx c;
    axe_status st;
    memset(out, 0, sizeof *out);
    if (!candidate(p, s))
        return AXE_ERR_UNSUPPORTED;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.s = s;
    c.plan = s->plan;
    c.sw = s->args[1].is_view ? &s->args[1].view.swizzle
                              : &p->tensors[s->args[1].tensor].layout.swizzle;
    c.sw = c.sw->present ? c.sw : NULL;
    c.span = p->tensors[s->args[0].tensor].span;
    c.bits = axe_dtype_bit_width(p->tensors[s->args[0].tensor].dtype);
    c.epw = 32 / c.bits;
    c.row = 128 / c.bits;
    c.total = 1;
    for (int k = 0; k < c.plan->nloops; k++)
        if (!c.plan->loops[k].thread) {
            c.nt[c.nnt++] = k;
            c.total *= c.plan->loops[k].extent;
        }
    out->leaf[0].legal = out->leaf[1].legal = true;
    out->words = (int)(c.span / c.epw);
    out->leaf[0].regs = axe__ldsm_matrices(out->words);
    precheck(&c, out);
    if (!out->leaf[0].legal)
        return AXE_OK;
    c.reg = calloc((size_t)c.total, sizeof *c.reg);
    c.u_of = calloc((size_t)(c.span > 0 ? c.span : 1), sizeof *c.u_of);
    c.addr = calloc((size_t)c.total * AX_WARP, sizeof *c.addr);
    if (c.reg == NULL || c.u_of == NULL || c.addr == NULL)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, s->off,
                       "ldmatrix choice of a copy into '%s'",
                       p->tensors[s->args[0].tensor].name);
    else
        st = evaluate(&c, out, diag);
    free(c.reg);
    free(c.u_of);
    free(c.addr);
    return st;
}

axe_status axe__ldsm_decide(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    ax_ldsm l, *keep;
    axe_diag d;
    axe_status st;
    char *why;
    if (s->kind != AX_ST_OP || s->plan == NULL)
        return AXE_OK;
    s->plan->ldsm = NULL;
    s->plan->ldsm_why = NULL;
    axe_diag_clear(&d);
    st = axe__ldsm_choose(p, s, &l, &d);
    if (st == AXE_ERR_NO_MEMORY)
        return axe__fail(diag, st, s->off, "%s", d.message);
    /* no candidate, or its accesses not countable: the plan's loads */
    if (st != AXE_OK)
        return AXE_OK;
    if (!l.leaf[0].legal) {
        if ((why = axe__arena_alloc(p->arena, sizeof l.leaf[0].why)) == NULL)
            return AXE_ERR_NO_MEMORY;
        memcpy(why, l.leaf[0].why, sizeof l.leaf[0].why);
        s->plan->ldsm_why = why;
        return AXE_OK;
    }
    keep = axe__arena_alloc(p->arena, sizeof *keep);
    if (keep == NULL)
        return AXE_ERR_NO_MEMORY;
    *keep = l;
    s->plan->ldsm = keep;
    return AXE_OK;
}

const ax_ldsm *axe__ldsm_of(const ax_stmt *s)
{
    return s->plan != NULL ? s->plan->ldsm : NULL;
}

const char *axe__ldsm_why(const ax_stmt *s)
{
    return s->plan != NULL ? s->plan->ldsm_why : NULL;
}
