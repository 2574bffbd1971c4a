/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner, part 3: the kind of collective a checked digit
 * table amounts to, and its explanation from the digits (never from
 * tensor names). Digits that are device digits with the same gpuid stride
 * on both sides split the mesh into independent groups (each group keeps
 * one value of them); the kind is then the collective inside every group
 * (docs/compiler.md, "The exchange plan", the table of kinds).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_dist.h"

/* ---- the kind ------------------------------------------------------------
 */

static const char *const kind_names[] = {
    "local",      "all-gather",     "broadcast",  "scatter", "gather",
    "all-to-all", "reduce-scatter", "all-reduce", "reduce",  "exchange"};

const char *axe__dist_kind_name(ax_coll k) { return kind_names[k]; }

typedef struct facts {
    int64_t groups;           /* independent groups (1: the whole mesh) */
    int64_t P;                /* devices per group */
    int64_t sdev, ddev, kdev; /* products of device digits outside the
                                 group digits: src, dst, reduced (src) */
    bool has_sd;              /* such a digit on gpuid on both sides */
    bool moves;               /* some holder does not own its element */
    bool tabled;              /* some digit is tabled */
} facts;

/* Whether side "sd" (0 src, 1 dst) of tabled digit "g" has a device
 * piece. */
static bool tab_dev(const ax_dist_plan *p, const ax_dist_digit *g, int sd)
{
    const ax_dist_tab *t = &p->tab[g->tab - 1];
    int j;
    for (j = 0; j < t->nsub[sd]; j++)
        if (t->sub[sd][j].dev != 0)
            return true;
    return false;
}

/* A digit on gpuid with one stride on both sides: a group digit. */
static bool is_group_digit(const ax_dist_digit *g)
{
    return !g->reduced && g->src_dev != 0 && g->src_dev == g->dst_dev;
}

/* Record group "gid" for device "d" in "grp"; false on a conflict. */
static bool mark(int32_t *grp, int64_t d, int32_t gid)
{
    if (grp[d] >= 0 && grp[d] != gid)
        return false;
    grp[d] = gid;
    return true;
}

/* Whether every device lies in one group on both sides: the group of an
 * element is its group digits' values, and a device's src and dst
 * elements all have one group (so elements move within groups only). */
static bool groups_consistent(const ax_dist_plan *p)
{
    int32_t gs[AX_DIST_MAX_DEVICES], gd[AX_DIST_MAX_DEVICES];
    int64_t x[AX_DIST_MAX_DIGITS] = {0}, r;
    int i;
    for (i = 0; i < p->ndev; i++)
        gs[i] = gd[i] = -1;
    do {
        int32_t gid = 0;
        for (i = 0; i < p->ndigits; i++)
            if (is_group_digit(&p->digit[i]))
                gid = gid * (int32_t)p->digit[i].extent + (int32_t)x[i];
        for (r = 0; r < p->nsrc_own; r++)
            if (!mark(gs, axe__dist_src_owner(p, x, r), gid))
                return false;
        for (r = 0; r < p->ndst_hold; r++)
            if (!mark(gd, axe__dist_dst_holder(p, x, r), gid))
                return false;
    } while (axe__dist_next_dev_combo(p, x));
    for (i = 0; i < p->ndev; i++)
        if (gs[i] >= 0 && gd[i] >= 0 && gs[i] != gd[i])
            return false;
    return true;
}

/* The products of device digits, outside the group digits when "grouped". */
static void count_digits(const ax_dist_plan *p, bool grouped, facts *f)
{
    int i;
    f->groups = 1;
    f->sdev = f->ddev = f->kdev = 1;
    f->has_sd = false;
    f->tabled = false;
    for (i = 0; i < p->ndigits; i++) {
        const ax_dist_digit *g = &p->digit[i];
        if (grouped && is_group_digit(g)) {
            f->groups *= g->extent;
            continue;
        }
        if (g->tab > 0) { /* its kind is an exchange: only "lives on one
                             device" reads these */
            f->tabled = true;
            f->sdev *= tab_dev(p, g, 0) ? g->extent : 1;
            f->ddev *= tab_dev(p, g, 1) ? g->extent : 1;
            continue;
        }
        if (g->src_dev != 0)
            f->sdev *= g->extent;
        if (g->dst_dev != 0)
            f->ddev *= g->extent;
        if (g->src_dev != 0 && g->reduced)
            f->kdev *= g->extent;
        f->has_sd |= g->src_dev != 0 && g->dst_dev != 0;
    }
    f->P = p->ndev / f->groups;
}

static void gather_facts(const ax_dist_plan *p, facts *f)
{
    count_digits(p, true, f);
    if (f->groups > 1 && (p->ndev % f->groups != 0 || !groups_consistent(p)))
        count_digits(p, false, f);
    f->moves = axe__dist_any_move(p);
}

/* The copy kinds inside each group (docs/compiler.md, "The exchange
 * plan"). */
static ax_coll copy_kind(const ax_dist_plan *p, const facts *f)
{
    int64_t P = f->P;
    bool src_root = f->sdev == 1 && p->nsrc_own == 1;
    bool dst_root = f->ddev == 1 && p->ndst_hold == 1;
    bool src_spans = p->nsrc_own == 1 && f->sdev == P;
    bool dst_spans = p->ndst_hold == 1 && f->ddev == P;
    if (!f->moves)
        return AX_COLL_LOCAL;
    if (f->tabled)
        return AX_COLL_EXCHANGE;
    if (src_root && p->ndst_hold == P)
        return AX_COLL_BROADCAST;
    if (src_root && dst_spans)
        return AX_COLL_SCATTER;
    if (dst_root && src_spans)
        return AX_COLL_GATHER;
    if (src_spans && p->ndst_hold == P)
        return AX_COLL_ALLGATHER;
    if (src_spans && dst_spans && !f->has_sd)
        return AX_COLL_ALLTOALL;
    return AX_COLL_EXCHANGE;
}

/* The reduce kinds: inside each group, every device owns one partial of
 * every element (src's other device digits are the reduced dim's). */
static ax_coll reduce_kind(const ax_dist_plan *p, const facts *f)
{
    int64_t P = f->P;
    bool partials = p->nsrc_own == 1 && f->kdev == P && f->sdev == P;
    if (!f->moves)
        return AX_COLL_LOCAL;
    if (f->tabled)
        return AX_COLL_EXCHANGE;
    if (partials && p->ndst_hold == 1 && f->ddev == P)
        return AX_COLL_REDUCE_SCATTER;
    if (partials && p->ndst_hold == P)
        return AX_COLL_ALLREDUCE;
    if (partials && p->ndst_hold == 1 && f->ddev == 1)
        return AX_COLL_REDUCE;
    return AX_COLL_EXCHANGE;
}

/* Whether reduce plan "p" combines anything: a reduced digit (the reduced
 * dim of extent 1 has none). Without one every element has one partial,
 * the source element itself, and the reduce is a copy of it: the copy
 * kinds name it (the runtimes choose from the same schedule). */
static bool combines(const ax_dist_plan *p)
{
    int i;
    for (i = 0; i < p->ndigits; i++)
        if (p->digit[i].reduced)
            return true;
    return false;
}

/* ---- the explanation -----------------------------------------------------
 */

typedef struct expl {
    char *buf;
    size_t cap, len;
    int clauses;
} expl;

static void put(expl *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(expl *e, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (e->len + 1 >= e->cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(e->buf + e->len, e->cap - e->len, fmt, ap);
    va_end(ap);
    e->len = n < 0 ? e->cap : e->len + (size_t)n;
    if (e->len >= e->cap) /* truncated: end with "..." */
        memcpy(e->buf + e->cap - 4, "...", 4);
}

/* Digit classes of the explanation (tabled digits: tab_clauses). */
enum { GROUP, SRC_ONLY, DST_ONLY, BOTH, KDEV, KMEM };

static bool in_class(const ax_dist_plan *p, const ax_dist_digit *g, int cls)
{
    if (p->groups > 1 && is_group_digit(g))
        return cls == GROUP;
    switch (cls) {
    case GROUP:
        return false;
    case SRC_ONLY:
        return !g->reduced && g->src_dev != 0 && g->dst_dev == 0;
    case DST_ONLY:
        return !g->reduced && g->src_dev == 0 && g->dst_dev != 0;
    case BOTH:
        return g->src_dev != 0 && g->dst_dev != 0;
    case KDEV:
        return g->reduced && g->src_dev != 0;
    default:
        return g->reduced && g->src_dev == 0;
    }
}

/* One clause "<head> the digit(s) (dim d, extent e), ... <tail>" when
 * class "cls" is not empty. */
static void clause(expl *e, const ax_dist_plan *p, int cls, const char *head,
                   const char *tail)
{
    int i, n = 0;
    for (i = 0; i < p->ndigits; i++)
        n += in_class(p, &p->digit[i], cls);
    if (n == 0)
        return;
    put(e, "%s%s the digit%s", e->clauses++ ? "; " : "", head,
        n > 1 ? "s" : "");
    for (i = 0, n = 0; i < p->ndigits; i++) {
        const ax_dist_digit *g = &p->digit[i];
        if (!in_class(p, g, cls))
            continue;
        put(e, "%s (dim %d, extent %lld", n++ ? "," : "", g->dim,
            (long long)g->extent);
        if (cls == BOTH)
            put(e, ", gpuid stride %lld -> %lld", (long long)g->src_dev,
                (long long)g->dst_dev);
        put(e, ")");
    }
    put(e, "%s", tail);
}

/* " 2:1@gpuid 3:1@m": side "sd"'s pieces of table "t". */
static void put_subs(expl *e, const ax_dist_tab *t, int sd)
{
    int j;
    for (j = 0; j < t->nsub[sd]; j++) {
        const ax_dist_sub *u = &t->sub[sd][j];
        put(e, " %lld:%lld@%s", (long long)u->extent,
            (long long)(u->dev != 0 ? u->dev : u->m),
            u->dev != 0 ? "gpuid" : "m");
    }
}

/* Per tabled digit: why it is tabled, from both sides' pieces. */
static void tab_clauses(expl *e, const ax_dist_plan *p)
{
    int i;
    for (i = 0; i < p->ndigits; i++) {
        const ax_dist_digit *g = &p->digit[i];
        if (g->tab == 0)
            continue;
        put(e,
            "%sthe iters of src and dst have no common refinement in the "
            "digit (dim %d, extent %lld): tabled (src",
            e->clauses++ ? "; " : "", g->dim, (long long)g->extent);
        put_subs(e, &p->tab[g->tab - 1], 0);
        put(e, ", dst");
        put_subs(e, &p->tab[g->tab - 1], 1);
        put(e, "), its elements go point to point");
    }
}

static void side_clauses(expl *e, const ax_dist_plan *p, const facts *f)
{
    const char *where = p->groups > 1 ? "one device per group" : "device";
    if (p->nsrc_own > 1)
        put(e, "%ssrc replicates over gpuid (%lld copies)",
            e->clauses++ ? "; " : "", (long long)p->nsrc_own);
    if (p->ndst_hold > 1)
        put(e, "%sdst replicates over gpuid (%lld copies)",
            e->clauses++ ? "; " : "", (long long)p->ndst_hold);
    if (f->P > 1 && f->sdev == 1 && p->nsrc_own == 1) {
        put(e, "%ssrc lives on %s", e->clauses++ ? "; " : "", where);
        if (p->groups == 1)
            put(e, " %lld only", (long long)p->src_dev0);
    }
    if (f->P > 1 && f->ddev == 1 && p->ndst_hold == 1) {
        put(e, "%sdst lives on %s", e->clauses++ ? "; " : "", where);
        if (p->groups == 1)
            put(e, " %lld only", (long long)p->dst_dev0);
    }
}

static void explain(ax_dist_plan *p, const facts *f)
{
    expl e = {p->explain, sizeof p->explain, 0, 0};
    put(&e, "%s", kind_names[p->kind]);
    if (p->groups > 1)
        put(&e, " in %d groups of %lld devices", p->groups, (long long)f->P);
    put(&e, ": ");
    if (p->kind == AX_COLL_LOCAL) {
        put(&e, "every dst holder owns its %s in src",
            p->reduce ? "partials" : "elements");
        e.clauses++;
    }
    clause(&e, p, GROUP, "the groups split", " alike on both sides");
    clause(&e, p, SRC_ONLY, "src shards on gpuid", " that dst keeps in memory");
    clause(&e, p, DST_ONLY, "dst shards on gpuid", " that src keeps in memory");
    clause(&e, p, BOTH, "src and dst shard on gpuid", "");
    clause(&e, p, KDEV, "src shards on gpuid", " of the reduced dim");
    clause(&e, p, KMEM, "each owner first combines",
           " of the reduced dim it keeps in memory");
    tab_clauses(&e, p);
    side_clauses(&e, p, f);
}

/* ---- finishing a plan ----------------------------------------------------
 */

axe_status axe__dist_finish(ax_dist_plan *p, axe_diag *diag)
{
    facts f;
    AXE_TRY(axe__dist_check(p, diag));
    gather_facts(p, &f);
    p->kind = (int32_t)(p->reduce && combines(p) ? reduce_kind(p, &f)
                                                 : copy_kind(p, &f));
    if (p->kind == AX_COLL_LOCAL)
        count_digits(p, false, &f);
    p->groups = (int32_t)f.groups;
    if (p->groups == 1 &&
        (p->kind == AX_COLL_BROADCAST || p->kind == AX_COLL_SCATTER))
        p->root = (int32_t)p->src_dev0;
    if (p->groups == 1 &&
        (p->kind == AX_COLL_GATHER || p->kind == AX_COLL_REDUCE))
        p->root = (int32_t)p->dst_dev0;
    explain(p, &f);
    return AXE_OK;
}
