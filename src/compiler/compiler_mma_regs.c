/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register operand of gemm.mma_reg_a (A) and gemm.mma_reg_b (B) by
 * evaluation: where each value of each atom tile sits. A register tile of
 * the atom's fragment in the sense of axe_layout_is_tile_inner keeps each
 * atom tile's values at consecutive registers in the atom's order; a
 * dequantized operand does not (an i4 register loaded by ldmatrix in the
 * m16n8k16 B fragment's nibble order, k and k + 1 four nibbles apart, cast
 * to f16 in the same order). What the schedule needs is weaker, and is
 * what this file checks element by element: every element of the operand
 * is on the lane the fragment names, in every warp that holds its atom
 * tile (the same warps for the whole tile), and value v of atom tile
 * (i, k) is at one register on every lane and in every such warp, so that
 * each lane packs its fragment from registers known at compile time. The
 * invariant of the result: regs[(i * KI + k) * nvals + v] is that
 * register, held[i * KI + k] the warps (bit w: warp w).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* The largest register operand checked element by element. */
#define AX_REGS_MAX_ELEMS ((int64_t)1 << 20)

typedef struct regs_ctx {
    const ax_tensor *t;
    const ax_frag *f;
    const char *warp; /* the scope's warp axis (NULL: one warp) */
    char op;          /* 'A' or 'B' */
    int64_t tiles[2]; /* atom tiles along rows and K */
    int64_t *regs;    /* -1: not seen yet */
    int64_t *reg_at;  /* the element that set regs[x], for the reason */
    uint64_t *held;
    int64_t *held_at; /* the element that set held[x] (-1: none yet) */
} regs_ctx;

/* The lane, warp and register of point "pt"; false (the axis in *bad)
 * when it has another axis with a nonzero value. */
static bool point_of(const regs_ctx *c, const axe_point *pt, int64_t *lane,
                     int64_t *warp, int64_t *reg, const char **bad)
{
    int k;
    *lane = *warp = *reg = 0;
    for (k = 0; k < pt->n; k++) {
        if (strcmp(pt->axis[k], "laneid") == 0)
            *lane = pt->v[k];
        else if (strcmp(pt->axis[k], "m") == 0)
            *reg = pt->v[k];
        else if (c->warp != NULL && strcmp(pt->axis[k], c->warp) == 0)
            *warp = pt->v[k];
        else if (pt->v[k] != 0) {
            *bad = pt->axis[k];
            return false;
        }
    }
    return true;
}

/* Row and column of element "x" (row-major in the operand's shape). */
static void rc_of(const regs_ctx *c, int64_t x, int64_t *r, int64_t *col)
{
    *r = x / c->t->shape[1];
    *col = x % c->t->shape[1];
}

/* Register "reg" of value "v" of tile "tile" at element "x" on lane
 * "lane": the first such element sets it, every other must agree. */
static axe_status one_reg(regs_ctx *c, int64_t x, int64_t tile, int64_t v,
                          int64_t lane, int64_t reg, axe_diag *why)
{
    int64_t *at = &c->regs[tile * c->f->nvals + v], r0, c0, r1, c1;
    if (*at < 0) {
        *at = reg;
        c->reg_at[tile * c->f->nvals + v] = x;
        return AXE_OK;
    }
    if (*at == reg)
        return AXE_OK;
    rc_of(c, c->reg_at[tile * c->f->nvals + v], &r0, &c0);
    rc_of(c, x, &r1, &c1);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "value %lld of atom tile (%lld, %lld) is register "
                     "%lld at element (%lld, %lld) but register %lld at "
                     "element (%lld, %lld) (lane %lld): each lane packs its "
                     "fragment from the same registers",
                     (long long)v, (long long)(tile / c->tiles[1]),
                     (long long)(tile % c->tiles[1]), (long long)*at,
                     (long long)r0, (long long)c0, (long long)reg,
                     (long long)r1, (long long)c1, (long long)lane);
}

/* The warps "h" of element "x" against those of its tile "tile". */
static axe_status one_held(regs_ctx *c, int64_t x, int64_t tile, uint64_t h,
                           axe_diag *why)
{
    int64_t r0, c0, r1, c1;
    if (c->held_at[tile] < 0) {
        c->held[tile] = h;
        c->held_at[tile] = x;
        return AXE_OK;
    }
    if (c->held[tile] == h)
        return AXE_OK;
    rc_of(c, c->held_at[tile], &r0, &c0);
    rc_of(c, x, &r1, &c1);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "elements (%lld, %lld) and (%lld, %lld) of atom tile "
                     "(%lld, %lld) are held by different warps: a warp "
                     "holds whole atom tiles",
                     (long long)r0, (long long)c0, (long long)r1, (long long)c1,
                     (long long)(tile / c->tiles[1]),
                     (long long)(tile % c->tiles[1]));
}

/* Element "x": its points (replicas included) against the fragment. */
static axe_status one_elem(regs_ctx *c, int64_t x, axe_diag *why)
{
    axe_point pts[AX_MMA_MAX_POINTS];
    int64_t r, col, fr = c->f->shape[0], fk = c->f->shape[1], tile, e;
    int cnt, i;
    uint64_t h = 0;
    axe_status st;
    rc_of(c, x, &r, &col);
    tile = (r / fr) * c->tiles[1] + col / fk;
    e = (r % fr) * fk + col % fk;
    st = axe_layout_apply_set(&c->t->layout, &x, NULL, 1, pts,
                              AX_MMA_MAX_POINTS, &cnt, NULL);
    AXE_TRY(st); /* AXE_ERR_CAPACITY: on more than AX_MMA_MAX_POINTS */
    for (i = 0; i < cnt; i++) {
        int64_t lane, warp, reg;
        const char *bad = NULL;
        if (!point_of(c, &pts[i], &lane, &warp, &reg, &bad))
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "element (%lld, %lld) is placed on the axis "
                             "'%s' (a register operand lies on laneid%s%s "
                             "and m)",
                             (long long)r, (long long)col, bad,
                             c->warp != NULL ? ", " : "",
                             c->warp != NULL ? c->warp : "");
        if (lane != c->f->lane[e])
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "element (%lld, %lld) is on lane %lld, but the "
                             "%c fragment puts it on lane %d (value %d of "
                             "atom tile (%lld, %lld))",
                             (long long)r, (long long)col, (long long)lane,
                             c->op, (int)c->f->lane[e], (int)c->f->val[e],
                             (long long)(tile / c->tiles[1]),
                             (long long)(tile % c->tiles[1]));
        if (warp < 0 || warp >= AX_MMA_MAX_WARPS)
            return AXE_ERR_CAPACITY;
        h |= (uint64_t)1 << warp;
        AXE_TRY(one_reg(c, x, tile, c->f->val[e], lane, reg, why));
    }
    return one_held(c, x, tile, h, why);
}

static void *zalloc(ax_arena *ar, int64_t n, size_t size, int fill)
{
    void *x = axe__arena_alloc(ar, (size_t)n * size);
    if (x != NULL)
        memset(x, fill, (size_t)n * size);
    return x;
}

/* The register operand "t" (operand 'A' or 'B': "op") over the atom
 * fragment "f" with the scope's warp axis "warp" (see the file comment):
 * *regs and *held for its KI = shape[1] / f's K atom tiles per row of
 * tiles, or AXE_ERR_UNSUPPORTED with the first element that breaks the
 * rule; AXE_ERR_CAPACITY for a warp past AX_MMA_MAX_WARPS (sema bounds
 * warps below it) or an element on more than AX_MMA_MAX_POINTS points. */
axe_status axe__mma_reg_values(ax_arena *ar, const ax_tensor *t,
                               const ax_frag *f, const char *warp, char op,
                               int64_t **regs, uint64_t **held, axe_diag *why)
{
    regs_ctx c;
    int64_t n = t->shape[0] * t->shape[1], x, nt;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.f = f;
    c.warp = warp;
    c.op = op;
    if (t->shape[0] % f->shape[0] != 0 || t->shape[1] % f->shape[1] != 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "its shape [%lld, %lld] is not a multiple of the "
                         "fragment's",
                         (long long)t->shape[0], (long long)t->shape[1]);
    if (n > AX_REGS_MAX_ELEMS)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "%lld elements, more than the %lld checked one by "
                         "one",
                         (long long)n, (long long)AX_REGS_MAX_ELEMS);
    c.tiles[0] = t->shape[0] / f->shape[0];
    c.tiles[1] = t->shape[1] / f->shape[1];
    nt = c.tiles[0] * c.tiles[1];
    c.regs = zalloc(ar, nt * f->nvals, sizeof(int64_t), 0xff);
    c.reg_at = zalloc(ar, nt * f->nvals, sizeof(int64_t), 0);
    c.held = zalloc(ar, nt, sizeof(uint64_t), 0);
    c.held_at = zalloc(ar, nt, sizeof(int64_t), 0xff);
    if (c.regs == NULL || c.reg_at == NULL || c.held == NULL ||
        c.held_at == NULL)
        return AXE_ERR_NO_MEMORY;
    for (x = 0; x < n; x++)
        AXE_TRY(one_elem(&c, x, why));
    *regs = c.regs;
    *held = c.held;
    return AXE_OK;
}

void axe__mma_describe_regs(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_mma *m = s->mma;
    int o = m->reg - 1;
    int64_t v;
    axe__text_put(t,
                  "    %c: the %c fragment's lanes and warps, its registers "
                  "in another order than the atom's (checked element by "
                  "element): atom tile (0, 0)'s values 0..%lld at registers ",
                  "AB"[o], "AB"[o], (long long)(m->frag[o].nvals - 1));
    for (v = 0; v < m->frag[o].nvals; v++)
        axe__text_put(t, "%s%lld", v > 0 ? ", " : "", (long long)m->regs[o][v]);
    axe__text_put(t,
                  "; %c's fragments from the registers of the warp's "
                  "lanes ('%s')\n",
                  "AB"[o], p -> tensors[s->args[o + 1].tensor].name);
}
