/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner, part 2: what a digit table means
 * (compiler_dist.h). Owners, holders and the transfer rule of one
 * element; the plan's invariant (devices in the mesh, addresses >= 0,
 * each side injective from (element, replica choice) to (device,
 * address)); bytes per rank.
 * A digit's value contributes its *parts* (axe__dist_cell): its strides
 * times the value, or a tabled digit's cell. Only the *device digits* (a
 * gpuid stride on either side, or tabled) decide who owns and holds an
 * element, so counts enumerate those digits (at most ndev^2 combinations
 * of the stride digits, the invariant bounds each side's by ndev, times
 * the tabled digits' cells) and weigh each by the product of the
 * memory-only digits' extents. The invariant is checked on each side's
 * own sub-iters (a tabled digit contributes that side's pieces of its
 * iters), so it is the same check with or without tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_dist.h"

/* ---- owners, holders, the transfer rule ---------------------------------
 */

/* Sum of r's replica digits (r numbered lexicographically) times strides. */
static int64_t rep_dev(const ax_dist_rep *rep, int n, int64_t r)
{
    int64_t dev = 0;
    int j;
    for (j = n - 1; j >= 0; j--) {
        dev += (r % rep[j].extent) * rep[j].dev;
        r /= rep[j].extent;
    }
    return dev;
}

ax_dist_cell axe__dist_cell(const ax_dist_plan *p, const ax_dist_digit *g,
                            int64_t v)
{
    ax_dist_cell c;
    if (g->tab > 0)
        return p->cell[p->tab[g->tab - 1].cell + v];
    c.src_dev = v * g->src_dev;
    c.src_m = v * g->src_m;
    c.dst_dev = v * g->dst_dev;
    c.dst_m = v * g->dst_m;
    return c;
}

int64_t axe__dist_src_owner(const ax_dist_plan *p, const int64_t *x, int64_t r)
{
    int64_t dev = p->src_dev0;
    int i;
    for (i = 0; i < p->ndigits; i++)
        dev += axe__dist_cell(p, &p->digit[i], x[i]).src_dev;
    return dev + rep_dev(p->src_rep, p->nsrc_rep, r);
}

int64_t axe__dist_src_addr(const ax_dist_plan *p, const int64_t *x)
{
    int64_t m = p->src_m0;
    int i;
    for (i = 0; i < p->ndigits; i++)
        m += axe__dist_cell(p, &p->digit[i], x[i]).src_m;
    return m;
}

int64_t axe__dist_dst_holder(const ax_dist_plan *p, const int64_t *x, int64_t r)
{
    int64_t dev = p->dst_dev0;
    int i;
    for (i = 0; i < p->ndigits; i++)
        dev += axe__dist_cell(p, &p->digit[i], x[i]).dst_dev;
    return dev + rep_dev(p->dst_rep, p->ndst_rep, r);
}

int64_t axe__dist_dst_addr(const ax_dist_plan *p, const int64_t *x)
{
    int64_t m = p->dst_m0;
    int i;
    for (i = 0; i < p->ndigits; i++)
        m += axe__dist_cell(p, &p->digit[i], x[i]).dst_m;
    return m;
}

/* The transfer rule for a holder "h" of x (compiler_dist.h): h itself if
 * it owns x, else the owner whose replica digit j is (h / dev_j) mod
 * extent_j (replica strides are positive: checked). */
static int64_t sender_of(const ax_dist_plan *p, const int64_t *x, int64_t h)
{
    int64_t r, s;
    int j;
    for (r = 0; r < p->nsrc_own; r++)
        if (axe__dist_src_owner(p, x, r) == h)
            return h;
    s = axe__dist_src_owner(p, x, 0);
    for (j = 0; j < p->nsrc_rep; j++)
        s += ((h / p->src_rep[j].dev) % p->src_rep[j].extent) *
             p->src_rep[j].dev;
    return s;
}

int64_t axe__dist_sender(const ax_dist_plan *p, const int64_t *x,
                         int64_t holder)
{
    int64_t r;
    for (r = 0; r < p->ndst_hold; r++)
        if (axe__dist_dst_holder(p, x, r) == holder)
            return sender_of(p, x, holder);
    return -1;
}

/* ---- enumeration of the device digits ------------------------------------
 */

bool axe__dist_is_dev_digit(const ax_dist_digit *g)
{
    return g->tab > 0 || g->src_dev != 0 || g->dst_dev != 0;
}

/* Product of the extents of the digits that are memory digits on both
 * sides and not reduced: each device-digit combination stands for this
 * many elements (reduce: partials). */
static int64_t multiplicity(const ax_dist_plan *p)
{
    int64_t w = 1;
    int i;
    for (i = 0; i < p->ndigits; i++)
        if (!axe__dist_is_dev_digit(&p->digit[i]) && !p->digit[i].reduced)
            w *= p->digit[i].extent;
    return w;
}

bool axe__dist_next_dev_combo(const ax_dist_plan *p, int64_t *x)
{
    int i;
    for (i = p->ndigits - 1; i >= 0; i--) {
        if (!axe__dist_is_dev_digit(&p->digit[i]))
            continue;
        if (++x[i] < p->digit[i].extent)
            return true;
        x[i] = 0;
    }
    return false;
}

typedef struct move_count {
    int64_t rank;                 /* -1: every rank, into *_all */
    int64_t sent, recv;           /* in units (elements or partials) */
    int64_t *sent_all, *recv_all; /* ndev entries each, or NULL */
    bool any;                     /* some holder does not own its element */
    bool overflow;                /* a count overflowed */
} move_count;

static void tally(move_count *c, int64_t s, int64_t h, int64_t w)
{
    if (h == c->rank)
        c->overflow |= axe__add(c->recv, w, &c->recv) != AXE_OK;
    if (s == c->rank)
        c->overflow |= axe__add(c->sent, w, &c->sent) != AXE_OK;
    if (c->sent_all != NULL) {
        c->overflow |= axe__add(c->recv_all[h], w, &c->recv_all[h]) != AXE_OK;
        c->overflow |= axe__add(c->sent_all[s], w, &c->sent_all[s]) != AXE_OK;
    }
}

/* Count the transfers (units) of every device-digit combination. */
static void count_moves(const ax_dist_plan *p, move_count *c)
{
    int64_t x[AX_DIST_MAX_DIGITS] = {0}, w = multiplicity(p), r;
    do {
        for (r = 0; r < p->ndst_hold; r++) {
            int64_t h = axe__dist_dst_holder(p, x, r);
            int64_t s = sender_of(p, x, h);
            if (s == h)
                continue;
            c->any = true;
            tally(c, s, h, w);
        }
    } while (axe__dist_next_dev_combo(p, x));
}

axe_status axe__dist_bytes(const ax_dist_plan *p, int64_t rank,
                           int64_t elem_size, int64_t *sent, int64_t *recv)
{
    move_count c = {rank, 0, 0, NULL, NULL, false, false};
    int64_t s, r;
    if (p == NULL || sent == NULL || recv == NULL || elem_size < 1 ||
        rank < 0 || rank >= p->ndev)
        return AXE_ERR_INVALID;
    count_moves(p, &c);
    if (c.overflow)
        return AXE_ERR_OVERFLOW;
    AXE_TRY(axe__mul(c.sent, elem_size, &s));
    AXE_TRY(axe__mul(c.recv, elem_size, &r));
    *sent = s;
    *recv = r;
    return AXE_OK;
}

axe_status axe__dist_bytes_all(const ax_dist_plan *p, int64_t elem_size,
                               int64_t *sent, int64_t *recv)
{
    int64_t s[AX_DIST_MAX_DEVICES] = {0}, r[AX_DIST_MAX_DEVICES] = {0}, k;
    move_count c = {-1, 0, 0, s, r, false, false};
    if (p == NULL || sent == NULL || recv == NULL || elem_size < 1)
        return AXE_ERR_INVALID;
    count_moves(p, &c);
    for (k = 0; k < p->ndev && !c.overflow; k++)
        c.overflow = axe__mul(s[k], elem_size, &s[k]) != AXE_OK ||
                     axe__mul(r[k], elem_size, &r[k]) != AXE_OK;
    if (c.overflow)
        return AXE_ERR_OVERFLOW;
    memcpy(sent, s, (size_t)p->ndev * sizeof *sent);
    memcpy(recv, r, (size_t)p->ndev * sizeof *recv);
    return AXE_OK;
}

/* ---- the invariant -------------------------------------------------------
 */

/* One side of the plan as sub-iters with plain strides: its stride
 * digits (dst: not the reduced ones) and, for a tabled digit, that side's
 * own pieces of its iters (compiler_dist.h, "Tables"), so the checks
 * below see each layout as it was written. */
#define MAX_SUBS (AX_DIST_MAX_DIGITS + 2 * AXE_LAYOUT_MAX_SHARD)
_Static_assert(MAX_SUBS <= AX_MAX_INJ, "axe__digits_injective takes them");

typedef struct side_view {
    const char *role;
    int64_t dev0, m0;
    const ax_dist_rep *rep;
    int nrep, n;
    int64_t nown; /* replica choices */
    ax_dist_sub sub[MAX_SUBS];
    int32_t dim[MAX_SUBS];
} side_view;

static axe_status view_push(side_view *v, ax_dist_sub u, int32_t dim,
                            axe_diag *diag)
{
    if (v->n == MAX_SUBS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "%s: more than %d sub-iters in the plan", v->role,
                         MAX_SUBS);
    v->dim[v->n] = dim;
    v->sub[v->n++] = u;
    return AXE_OK;
}

static axe_status view_of(const ax_dist_plan *p, bool src, side_view *v,
                          axe_diag *diag)
{
    int i, j, sd = src ? 0 : 1;
    v->role = src ? "src" : "dst";
    v->dev0 = src ? p->src_dev0 : p->dst_dev0;
    v->m0 = src ? p->src_m0 : p->dst_m0;
    v->rep = src ? p->src_rep : p->dst_rep;
    v->nrep = src ? p->nsrc_rep : p->ndst_rep;
    v->nown = src ? p->nsrc_own : p->ndst_hold;
    v->n = 0;
    for (i = 0; i < p->ndigits; i++) {
        const ax_dist_digit *g = &p->digit[i];
        ax_dist_sub u = {g->extent, src ? g->src_dev : g->dst_dev,
                         src ? g->src_m : g->dst_m};
        if (g->tab > 0) {
            const ax_dist_tab *t = &p->tab[g->tab - 1];
            for (j = 0; j < t->nsub[sd]; j++)
                AXE_TRY(view_push(v, t->sub[sd][j], g->dim, diag));
        } else if (src || !g->reduced)
            AXE_TRY(view_push(v, u, g->dim, diag));
    }
    return AXE_OK;
}

/* [lo, hi] of "base" + sum s (0 .. e-1) over (e, s) pairs, checked. */
static axe_status range_add(int64_t e, int64_t s, int64_t *lo, int64_t *hi)
{
    int64_t v;
    AXE_TRY(axe__mul(e - 1, s, &v));
    return v < 0 ? axe__add(*lo, v, lo) : axe__add(*hi, v, hi);
}

/* Devices of "v" in [0, ndev), addresses >= 0. */
static axe_status check_range(const ax_dist_plan *p, const side_view *v,
                              axe_diag *diag)
{
    int64_t dlo = v->dev0, dhi = dlo, mlo = v->m0, mhi = mlo;
    int i;
    bool ok = true;
    for (i = 0; i < v->n && ok; i++)
        ok = range_add(v->sub[i].extent, v->sub[i].dev, &dlo, &dhi) == AXE_OK &&
             range_add(v->sub[i].extent, v->sub[i].m, &mlo, &mhi) == AXE_OK;
    for (i = 0; i < v->nrep && ok; i++)
        ok = range_add(v->rep[i].extent, v->rep[i].dev, &dlo, &dhi) == AXE_OK;
    if (!ok)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "%s: a device id or address overflows", v->role);
    if (dlo < 0 || dhi >= p->ndev)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s: device ids %lld..%lld fall outside the mesh of "
                         "%d devices",
                         v->role, (long long)dlo, (long long)dhi, p->ndev);
    if (mlo < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s: local address %lld is negative", v->role,
                         (long long)mlo);
    return AXE_OK;
}

/* The most combinations of memory sub-iters enumerated when their
 * strides overlap (16 MiB of addresses and numbers). */
#define MAX_ENUM ((int64_t)1 << 20)

typedef struct addr_of {
    int64_t addr, k; /* a combination's address, its number */
} addr_of;

static int addr_cmp(const void *a, const void *b)
{
    const addr_of *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Combination "k" of sub-iters idx[0..n) (the last fastest) as
 * "(v0, v1, ...)", and its address. */
static int64_t combo(const side_view *v, const int *idx, int n, int64_t k,
                     char *buf, size_t cap)
{
    int64_t a = 0, y[MAX_SUBS];
    size_t w = 0;
    int i;
    for (i = n - 1; i >= 0; i--) {
        y[i] = k % v->sub[idx[i]].extent;
        k /= v->sub[idx[i]].extent;
        a += y[i] * v->sub[idx[i]].m;
    }
    for (i = 0; i < n && w < cap; i++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%lld", i ? ", " : "(",
                              (long long)y[i]);
    if (w < cap)
        snprintf(buf + w, cap - w, ")");
    return a;
}

/* The memory sub-iters idx[0..n) of "v", whose strides overlap, one to
 * one: every combination's address, sorted, none twice (up to MAX_ENUM
 * combinations; a capacity error beyond). */
static axe_status enum_mem_injective(const side_view *v, const int *idx, int n,
                                     axe_diag *diag)
{
    char a[160], b[160], ext[160];
    int64_t total = 1, k;
    addr_of *all;
    size_t w = 0;
    int i;
    for (i = 0; i < n && w < sizeof ext; i++)
        w += (size_t)snprintf(ext + w, sizeof ext - w, "%sdim %d: %lld:%lld",
                              i ? ", " : "", v->dim[idx[i]],
                              (long long)v->sub[idx[i]].extent,
                              (long long)v->sub[idx[i]].m);
    for (i = 0; i < n; i++)
        if (axe__mul(total, v->sub[idx[i]].extent, &total) != AXE_OK ||
            total > MAX_ENUM)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "%s: the memory digits (%s) overlap in stride "
                             "and have more than %lld combinations to check "
                             "one by one: the local buffer is not shown "
                             "one-to-one",
                             v->role, ext, (long long)MAX_ENUM);
    all = malloc((size_t)total * sizeof *all);
    if (all == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (k = 0; k < total; k++) {
        all[k].addr = combo(v, idx, n, k, a, 0);
        all[k].k = k;
    }
    qsort(all, (size_t)total, sizeof *all, addr_cmp);
    for (k = 1; k < total && all[k].addr != all[k - 1].addr; k++)
        ;
    if (k < total) {
        int64_t at = combo(v, idx, n, all[k - 1].k, a, sizeof a);
        (void)combo(v, idx, n, all[k].k, b, sizeof b);
        free(all);
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s: the memory digits (%s) put %s and %s at one "
                         "local address %lld: distinct elements share one "
                         "slot",
                         v->role, ext, a, b, (long long)at);
    }
    free(all);
    return AXE_OK;
}

/* Memory sub-iters of "v" injective: axe__digits_injective (the common
 * case); otherwise by enumerating their addresses. */
static axe_status check_mem_injective(const side_view *v, axe_diag *diag)
{
    int sub[MAX_SUBS], order[MAX_SUBS], idx[MAX_SUBS], n = 0, i;
    int64_t m[MAX_SUBS], ext[MAX_SUBS];
    for (i = 0; i < v->n; i++) {
        const ax_dist_sub *u = &v->sub[i];
        if (u->dev != 0)
            continue;
        if (u->m == 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "%s: dim %d has a digit of extent %lld with "
                             "stride 0: distinct elements share one slot",
                             v->role, v->dim[i], (long long)u->extent);
        sub[n] = i;
        m[n] = u->m;
        ext[n++] = u->extent;
    }
    if (axe__digits_injective(m, ext, n, order))
        return AXE_OK;
    for (i = 0; i < n; i++) /* by |stride|, as the message lists them */
        idx[i] = sub[order[i]];
    return enum_mem_injective(v, idx, n, diag);
}

/* Step "y" over the sub-iters of "v" with a device stride; false after
 * the last combination. */
static bool next_dev_sub(const side_view *v, int64_t *y)
{
    int i;
    for (i = v->n - 1; i >= 0; i--) {
        if (v->sub[i].dev == 0)
            continue;
        if (++y[i] < v->sub[i].extent)
            return true;
        y[i] = 0;
    }
    return false;
}

static int64_t view_dev(const side_view *v, const int64_t *y, int64_t r)
{
    int64_t dev = v->dev0 + rep_dev(v->rep, v->nrep, r);
    int i;
    for (i = 0; i < v->n; i++)
        dev += y[i] * v->sub[i].dev;
    return dev;
}

/* Distinct (device sub-iters, replica choice) of "v" on distinct
 * devices: otherwise two elements, or two replicas of one, share a slot
 * (the memory sub-iters being free). */
static axe_status check_dev_injective(const ax_dist_plan *p, const side_view *v,
                                      axe_diag *diag)
{
    int32_t seen[AX_DIST_MAX_DEVICES];
    int64_t y[MAX_SUBS] = {0}, id = 0, r, total = 1;
    int i;
    for (i = 0; i < v->n && total <= p->ndev; i++)
        if (v->sub[i].dev != 0)
            total *= v->sub[i].extent; /* each <= ndev: range checked */
    if (total > p->ndev || total * v->nown > p->ndev)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s: %lld elements times %lld replicas on %d "
                         "devices: two share a device slot",
                         v->role, (long long)total, (long long)v->nown,
                         p->ndev);
    for (i = 0; i < p->ndev; i++)
        seen[i] = -1;
    do {
        for (r = 0; r < v->nown; r++) {
            int64_t d = view_dev(v, y, r);
            if (seen[d] >= 0)
                return axe__fail(diag, AXE_ERR_INVALID, -1,
                                 "%s: two %s land on device %lld at the "
                                 "same local addresses",
                                 v->role,
                                 seen[d] == id ? "replicas of one element"
                                               : "elements",
                                 (long long)d);
            seen[d] = (int32_t)id;
        }
        id++;
    } while (next_dev_sub(v, y));
    return AXE_OK;
}

/* Product of replica extents; each side's replicas, like its device
 * digits, fit in the mesh (checked by the caller through the range). */
static axe_status rep_count(const ax_dist_rep *rep, int n, const char *role,
                            int64_t ndev, int64_t *out, axe_diag *diag)
{
    int64_t c = 1;
    int j;
    for (j = 0; j < n; j++) {
        if (rep[j].dev < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s: replica digit %d has the negative stride "
                             "%lld@gpuid; the transfer rule takes positive "
                             "replica strides",
                             role, j, (long long)rep[j].dev);
        if (rep[j].dev == 0 || axe__mul(c, rep[j].extent, &c) != AXE_OK ||
            c > ndev)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "%s: replica digit %d (extent %lld, stride "
                             "%lld@gpuid) puts replicas of one element on "
                             "one device",
                             role, j, (long long)rep[j].extent,
                             (long long)rep[j].dev);
    }
    *out = c;
    return AXE_OK;
}

/* The invariant on one side (src or dst). */
static axe_status check_side(const ax_dist_plan *p, bool src, axe_diag *diag)
{
    side_view v;
    AXE_TRY(view_of(p, src, &v, diag));
    AXE_TRY(check_range(p, &v, diag));
    AXE_TRY(check_mem_injective(&v, diag));
    return check_dev_injective(p, &v, diag);
}

axe_status axe__dist_check(ax_dist_plan *p, axe_diag *diag)
{
    AXE_TRY(
        rep_count(p->src_rep, p->nsrc_rep, "src", p->ndev, &p->nsrc_own, diag));
    AXE_TRY(rep_count(p->dst_rep, p->ndst_rep, "dst", p->ndev, &p->ndst_hold,
                      diag));
    AXE_TRY(check_side(p, true, diag));
    return check_side(p, false, diag);
}

bool axe__dist_any_move(const ax_dist_plan *p)
{
    move_count c = {-1, 0, 0, NULL, NULL, false, false};
    count_moves(p, &c);
    return c.any;
}
