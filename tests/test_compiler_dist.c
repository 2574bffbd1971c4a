/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner (src/compiler/compiler_dist*.c) against brute
 * force over the layout library: for random meshes of 1-8 devices,
 * random shapes and random distributed layouts (shard on any dim or
 * sub-iter, block and cyclic, replicas, offsets), every logical coordinate
 * is mapped with axe_layout_apply_set and the plan is simulated: (1) every
 * holder ends with the source value at the address dst gives, (2) a holder
 * that owns an element never receives it, (3) bytes received per rank =
 * the minimum from the two layouts' owner and holder sets, bytes sent =
 * the simulated transfers, (4) the kind of the standard cases (built
 * here, not read from the plan); reduce: every dst element equals the
 * brute-force reduction. The same for regions of such tensors (device
 * operators on regions): the plan built from the layouts sliced to the
 * regions, as sema slices them, against apply_set of the tensors' own
 * layouts at the regions' coordinates. Then table rows (the paper's
 * examples) and refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist.h"
#include "testlib.h"

#define MAXPTS 16

/* ---- layouts ------------------------------------------------------------ */

static axe_layout lay(const char *s)
{
    axe_layout l;
    axe_diag d;
    if (axe_parse_layout(s, strlen(s), &l, &d) != AXE_OK) {
        fprintf(stderr, "bad layout in test: %s (%s)\n", s, d.message);
        exit(2);
    }
    return l;
}

static const char *lay_text(const axe_layout *l)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    axe_print_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

static void push(axe_layout *l, int64_t e, int64_t s, const char *axis)
{
    if (axe_layout_push_shard(l, e, s, axis) != AXE_OK)
        exit(2);
}

/* A random divisor > 1 of "v" (v > 1). */
static int64_t rand_divisor(int64_t v)
{
    int64_t d[64], n = 0, i;
    for (i = 2; i <= v; i++)
        if (v % i == 0)
            d[n++] = i;
    return d[tl_range(0, n - 1)];
}

typedef struct gen_item {
    int64_t extent, stride;
    int kind; /* 0 m, 1 gpuid, 2 replica, 3 unused devices (offset) */
} gen_item;

/* Mixed-radix strides over "it" in a random order (of "which" kind(s)). */
static void assign_strides(gen_item *it, int n, int kind_lo, int kind_hi)
{
    int idx[64], m = 0, i;
    int64_t s = 1;
    for (i = 0; i < n; i++)
        if (it[i].kind >= kind_lo && it[i].kind <= kind_hi)
            idx[m++] = i;
    for (i = m - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    for (i = m - 1; i >= 0; i--) {
        it[idx[i]].stride = s;
        s *= it[idx[i]].extent;
    }
}

/* Push shard item "it" (memory strides times "v"); one in five runs
 * backwards, its offset moved to keep device ids and addresses >= 0. */
static void push_iter(axe_layout *l, const gen_item *it, int64_t v)
{
    const char *axis = it->kind ? "gpuid" : "m";
    int64_t s = it->kind ? it->stride : it->stride * v;
    if (tl_range(0, 4) == 0) {
        if (axe_layout_add_offset(l, axis, (it->extent - 1) * s) != AXE_OK)
            exit(2);
        s = -s;
    }
    push(l, it->extent, s, axis);
}

/* A random distributed layout of "shape" over "P" devices: each dim split
 * into 1-3 factors, some on gpuid (their product divides P), replicas
 * over part of the rest, the remaining devices left out by an offset. */
static axe_layout gen_layout(const int64_t *shape, int n, int64_t P,
                             bool replicas)
{
    gen_item it[64];
    int nit = 0, d, i, nf[8];
    int64_t budget = P, v;
    axe_layout l;
    for (d = 0; d < n; d++) {
        int64_t rem = shape[d];
        nf[d] = 0;
        while (rem > 1) {
            int64_t f = nf[d] == 2 ? rem : rand_divisor(rem);
            it[nit].extent = f;
            it[nit].kind = budget % f == 0 && tl_range(0, 1) ? 1 : 0;
            if (it[nit].kind == 1)
                budget /= f;
            rem /= f;
            nit++;
            nf[d]++;
        }
    }
    axe_layout_init(&l);
    if (replicas && budget > 1 && tl_range(0, 1)) {
        int64_t r = rand_divisor(budget);
        it[nit++] = (gen_item){r, 0, 2};
        budget /= r;
    }
    if (budget > 1)
        it[nit++] = (gen_item){budget, 0, 3};
    assign_strides(it, nit, 1, 3);
    assign_strides(it, nit, 0, 0);
    v = tl_range(0, 3) == 0 ? 2 : 1;
    for (d = 0, i = 0; d < n; d++) {
        int k;
        for (k = 0; k < nf[d]; k++, i++)
            push_iter(&l, &it[i], v);
    }
    if (l.nshard == 0)
        push(&l, 1, 0, "m");
    for (; i < nit; i++) {
        if (it[i].kind == 2 &&
            axe_layout_push_replica(&l, it[i].extent, it[i].stride, "gpuid") !=
                AXE_OK)
            exit(2);
        if (it[i].kind == 3 &&
            axe_layout_add_offset(
                &l, "gpuid", tl_range(0, it[i].extent - 1) * it[i].stride) !=
                AXE_OK)
            exit(2);
    }
    if (tl_range(0, 3) == 0 && axe_layout_add_offset(&l, "m", tl_range(1, 3)))
        exit(2);
    return l;
}

/* ---- brute force over the layout library -------------------------------- */

static int64_t pt_get(const axe_point *p, const char *axis)
{
    int64_t v = 0;
    int i;
    for (i = 0; i < p->n; i++)
        if (strcmp(p->axis[i], axis) == 0)
            v += p->v[i];
    return v;
}

typedef struct slots {
    int n;
    int64_t dev[MAXPTS], addr[MAXPTS];
} slots;

static void slots_of(const axe_layout *l, const int64_t *c,
                     const int64_t *shape, int n, slots *s)
{
    axe_point pts[MAXPTS];
    int i;
    if (axe_layout_apply_set(l, c, shape, n, pts, MAXPTS, &s->n, NULL) !=
        AXE_OK) {
        fprintf(stderr, "apply_set failed on %s\n", lay_text(l));
        exit(2);
    }
    for (i = 0; i < s->n; i++) {
        s->dev[i] = pt_get(&pts[i], "gpuid");
        s->addr[i] = pt_get(&pts[i], "m");
    }
}

/* Regions (device operators on regions, compiler_sema_dist.c): the plan
 * is built from the tensors' layouts sliced to the regions, the brute
 * force reads the tensors' own layouts: element c of a region is the
 * tensor's c + begin (tensor shape "base"). NULL: whole tensors. */
typedef struct regions {
    const int64_t *sbase, *sbegin, *dbase, *dbegin;
} regions;

/* slots_of element "c" of a region at "begin" of a tensor of shape
 * "base" (NULL begin: of the whole tensor of shape "shape"). */
static void slots_at(const axe_layout *l, const int64_t *c,
                     const int64_t *shape, int n, const int64_t *base,
                     const int64_t *begin, slots *s)
{
    int64_t cc[AX_MAX_DIMS];
    int d;
    if (begin == NULL) {
        slots_of(l, c, shape, n, s);
        return;
    }
    for (d = 0; d < n; d++)
        cc[d] = c[d] + begin[d];
    slots_of(l, cc, base, n, s);
}

static void src_slots(const regions *rg, const axe_layout *l, const int64_t *c,
                      const int64_t *shape, int n, slots *s)
{
    slots_at(l, c, shape, n, rg ? rg->sbase : NULL, rg ? rg->sbegin : NULL, s);
}

static void dst_slots(const regions *rg, const axe_layout *l, const int64_t *c,
                      const int64_t *shape, int n, slots *s)
{
    slots_at(l, c, shape, n, rg ? rg->dbase : NULL, rg ? rg->dbegin : NULL, s);
}

static bool slots_have_dev(const slots *s, int64_t dev)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->dev[i] == dev)
            return true;
    return false;
}

/* The plan's digits of coordinate "c" (src dims). */
static void digits_of(const ax_dist_plan *p, const int64_t *c, int64_t *x)
{
    int i;
    int64_t w[AX_MAX_DIMS];
    for (i = 0; i < AX_MAX_DIMS; i++)
        w[i] = 1;
    for (i = p->ndigits - 1; i >= 0; i--) {
        x[i] = (c[p->digit[i].dim] / w[p->digit[i].dim]) % p->digit[i].extent;
        w[p->digit[i].dim] *= p->digit[i].extent;
    }
}

static bool next_coord(const int64_t *shape, int n, int64_t *c)
{
    int d;
    for (d = n - 1; d >= 0; d--) {
        if (++c[d] < shape[d])
            return true;
        c[d] = 0;
    }
    return false;
}

/* The plan's owners (holders) of "x" are exactly the library's slots. */
static bool same_slots(const ax_dist_plan *p, const int64_t *x, const slots *s,
                       bool src)
{
    int64_t nr = src ? p->nsrc_own : p->ndst_hold, r;
    int64_t a = src ? axe__dist_src_addr(p, x) : axe__dist_dst_addr(p, x);
    int i;
    if (nr != s->n)
        return false;
    for (r = 0; r < nr; r++) {
        int64_t dev =
            src ? axe__dist_src_owner(p, x, r) : axe__dist_dst_holder(p, x, r);
        bool hit = false;
        for (i = 0; i < s->n; i++)
            hit |= s->dev[i] == dev && s->addr[i] == a;
        if (!hit)
            return false;
    }
    return true;
}

typedef struct sim {
    int64_t P, span;
    int64_t *src, *dst;               /* P x span buffers */
    int64_t sent[8], recv[8], min[8]; /* units */
    int64_t sent_min[8];              /* single-owner src: per owner */
} sim;

static void sim_init(sim *s, int64_t P)
{
    memset(s, 0, sizeof *s);
    s->P = P;
    s->span = 16384;
    s->src = calloc((size_t)(P * s->span), sizeof *s->src);
    s->dst = calloc((size_t)(P * s->span), sizeof *s->dst);
    if (s->src == NULL || s->dst == NULL)
        exit(2);
}

static void sim_free(sim *s)
{
    free(s->src);
    free(s->dst);
}

static int64_t *at(sim *s, int64_t *buf, int64_t dev, int64_t addr)
{
    if (dev < 0 || dev >= s->P || addr < 0 || addr >= s->span) {
        fprintf(stderr, "slot (%lld, %lld) outside the simulation\n",
                (long long)dev, (long long)addr);
        exit(2);
    }
    return &buf[dev * s->span + addr];
}

/* ---- laws of a copy plan ------------------------------------------------ */

/* The transfer rule from the layout: the owner (apply_set lists them in
 * lexicographic order of the replica digits) whose replica digit j is
 * (h / stride_j) mod extent_j. */
static int64_t rule_sender(const axe_layout *src, const slots *so, int64_t h)
{
    int64_t idx = 0;
    int j;
    for (j = 0; j < src->nreplica; j++)
        idx = idx * src->replica[j].extent +
              (h / src->replica[j].stride) % src->replica[j].extent;
    return so->dev[idx];
}

/* Move element "c" (value "id") to every holder by the plan; count the
 * transfers and the minimum from the library's sets. */
static void copy_element(const ax_dist_plan *p, const axe_layout *src,
                         const int64_t *c, const slots *so, const slots *sh,
                         int64_t id, sim *s, const char *what)
{
    int64_t x[AX_DIST_MAX_DIGITS];
    int i;
    digits_of(p, c, x);
    TL_CHECK(same_slots(p, x, so, true), "%s: owners of element %lld differ",
             what, (long long)id);
    TL_CHECK(same_slots(p, x, sh, false), "%s: holders of element %lld differ",
             what, (long long)id);
    for (i = 0; i < sh->n; i++) {
        int64_t h = sh->dev[i], snd = axe__dist_sender(p, x, h);
        bool own = slots_have_dev(so, h);
        TL_CHECK(slots_have_dev(so, snd),
                 "%s: sender %lld of element %lld "
                 "to %lld is no owner",
                 what, (long long)snd, (long long)id, (long long)h);
        if (!slots_have_dev(so, snd))
            continue;
        TL_CHECK(!own || snd == h,
                 "%s: holder %lld owns element %lld but "
                 "receives it from %lld",
                 what, (long long)h, (long long)id, (long long)snd);
        *at(s, s->dst, h, axe__dist_dst_addr(p, x)) =
            *at(s, s->src, snd, axe__dist_src_addr(p, x));
        if (own)
            continue;
        TL_CHECK(snd == rule_sender(src, so, h),
                 "%s: element %lld goes to "
                 "%lld from %lld, the rule says %lld",
                 what, (long long)id, (long long)h, (long long)snd,
                 (long long)rule_sender(src, so, h));
        s->min[h]++;
        s->recv[h]++;
        s->sent[snd]++;
        if (so->n == 1)
            s->sent_min[so->dev[0]]++;
    }
}

/* A device that does not hold "c" gets -1 from the sender rule. */
static void check_non_holder(const ax_dist_plan *p, const int64_t *c,
                             const slots *sh, const char *what)
{
    int64_t x[AX_DIST_MAX_DIGITS], h;
    digits_of(p, c, x);
    for (h = 0; h < p->ndev; h++)
        if (!slots_have_dev(sh, h))
            TL_CHECK(axe__dist_sender(p, x, h) == -1,
                     "%s: device %lld is no holder yet has a sender", what,
                     (long long)h);
}

static void check_bytes(const ax_dist_plan *p, sim *s, bool single_owner,
                        const char *what)
{
    int64_t r, es = 4, tot_s = 0, tot_r = 0, all_s[8], all_r[8];
    TL_CHECK(axe__dist_bytes_all(p, es, all_s, all_r) == AXE_OK,
             "%s: bytes of all ranks", what);
    for (r = 0; r < p->ndev; r++) {
        int64_t sent = -1, recv = -1;
        TL_CHECK(axe__dist_bytes(p, r, es, &sent, &recv) == AXE_OK,
                 "%s: bytes of rank %lld", what, (long long)r);
        TL_CHECK(recv == s->min[r] * es,
                 "%s: rank %lld receives %lld bytes, "
                 "the minimum is %lld",
                 what, (long long)r, (long long)recv,
                 (long long)(s->min[r] * es));
        TL_CHECK(sent == s->sent[r] * es,
                 "%s: rank %lld sends %lld bytes, "
                 "the simulation %lld",
                 what, (long long)r, (long long)sent,
                 (long long)(s->sent[r] * es));
        if (single_owner)
            TL_CHECK(sent == s->sent_min[r] * es,
                     "%s: rank %lld sends %lld "
                     "bytes, its elements' other holders need %lld",
                     what, (long long)r, (long long)sent,
                     (long long)(s->sent_min[r] * es));
        TL_CHECK(all_s[r] == sent && all_r[r] == recv,
                 "%s: rank %lld: all ranks at once say %lld and %lld bytes, "
                 "one rank %lld and %lld",
                 what, (long long)r, (long long)all_s[r], (long long)all_r[r],
                 (long long)sent, (long long)recv);
        tot_s += sent;
        tot_r += recv;
    }
    TL_CHECK(tot_s == tot_r, "%s: %lld bytes sent, %lld received", what,
             (long long)tot_s, (long long)tot_r);
    TL_CHECK((p->kind == AX_COLL_LOCAL) == (tot_r == 0),
             "%s: kind %s, yet %lld bytes move", what,
             axe__dist_kind_name((ax_coll)p->kind), (long long)tot_r);
}

/* Laws (1)-(3) of copy(dst, src) planned as "p" (of regions "rg" of
 * tensors laid out by "src" and "dst", or of the whole tensors). */
static void copy_laws_at(const ax_dist_plan *p, const int64_t *shape, int n,
                         const axe_layout *src, const axe_layout *dst,
                         const regions *rg, const char *what)
{
    int64_t c[AX_MAX_DIMS] = {0}, id = 1;
    bool single = true;
    slots so, sh;
    sim s;
    int i;
    sim_init(&s, p->ndev);
    do {
        src_slots(rg, src, c, shape, n, &so);
        for (i = 0; i < so.n; i++)
            *at(&s, s.src, so.dev[i], so.addr[i]) = id;
        single &= so.n == 1;
        id++;
    } while (next_coord(shape, n, c));
    id = 1;
    do {
        src_slots(rg, src, c, shape, n, &so);
        dst_slots(rg, dst, c, shape, n, &sh);
        copy_element(p, src, c, &so, &sh, id, &s, what);
        if (id % 7 == 1)
            check_non_holder(p, c, &sh, what);
        id++;
    } while (next_coord(shape, n, c));
    id = 1;
    do {
        dst_slots(rg, dst, c, shape, n, &sh);
        for (i = 0; i < sh.n; i++)
            TL_CHECK(*at(&s, s.dst, sh.dev[i], sh.addr[i]) == id,
                     "%s: device %lld address %lld holds %lld, not element "
                     "%lld",
                     what, (long long)sh.dev[i], (long long)sh.addr[i],
                     (long long)*at(&s, s.dst, sh.dev[i], sh.addr[i]),
                     (long long)id);
        id++;
    } while (next_coord(shape, n, c));
    check_bytes(p, &s, single, what);
    sim_free(&s);
}

static void copy_laws(const ax_dist_plan *p, const int64_t *shape, int n,
                      const axe_layout *src, const axe_layout *dst,
                      const char *what)
{
    copy_laws_at(p, shape, n, src, dst, NULL, what);
}

/* ---- laws of a reduce plan ---------------------------------------------- */

static int64_t value_of(int64_t id) { return (id * 7919) % 101 - 50; }

static int64_t combine(ax_red op, int64_t a, int64_t b)
{
    if (op == AX_RED_MAX)
        return a > b ? a : b;
    if (op == AX_RED_MIN)
        return a < b ? a : b;
    return a + b;
}

static int64_t lin(const int64_t *shape, int n, const int64_t *c)
{
    int64_t v = 0;
    int d;
    for (d = 0; d < n; d++)
        v = v * shape[d] + c[d];
    return v;
}

typedef struct red_case {
    const int64_t *shape;
    int n, k;
    ax_red op;
    const axe_layout *src, *dst;
    const char *what;
    const regions *rg; /* NULL: whole tensors */
} red_case;

/* Holder "h" of output "y" combines, in order of k, what the plan sends
 * it; the partials (groups of k with one owner set) count as transfers. */
static void reduce_holder(const ax_dist_plan *p, const red_case *rc,
                          const int64_t *y, int64_t h, int64_t haddr, sim *s)
{
    int64_t c[AX_MAX_DIMS], x[AX_DIST_MAX_DIGITS], kk, acc = 0, want = 0;
    int64_t group_sender[8];
    slots so;
    int d;
    for (d = 0; d < 8; d++)
        group_sender[d] = -1;
    for (kk = 0; kk < rc->shape[rc->k]; kk++) {
        int64_t snd, key, v;
        for (d = 0; d < rc->n; d++)
            c[d] = d < rc->k ? y[d] : d == rc->k ? kk : y[d - 1];
        src_slots(rc->rg, rc->src, c, rc->shape, rc->n, &so);
        digits_of(p, c, x);
        TL_CHECK(same_slots(p, x, &so, true), "%s: owners differ", rc->what);
        TL_CHECK(axe__dist_dst_addr(p, x) == haddr,
                 "%s: dst address %lld, "
                 "the layout's %lld",
                 rc->what, (long long)axe__dist_dst_addr(p, x),
                 (long long)haddr);
        snd = axe__dist_sender(p, x, h);
        TL_CHECK(slots_have_dev(&so, snd), "%s: sender %lld is no owner",
                 rc->what, (long long)snd);
        if (!slots_have_dev(&so, snd))
            return;
        TL_CHECK(!slots_have_dev(&so, h) || snd == h,
                 "%s: holder %lld owns "
                 "a partial but receives it",
                 rc->what, (long long)h);
        v = *at(s, s->src, snd, axe__dist_src_addr(p, x));
        acc = kk == 0 ? v : combine(rc->op, acc, v);
        v = value_of(lin(rc->shape, rc->n, c) + 1);
        want = kk == 0 ? v : combine(rc->op, want, v);
        key = so.dev[0];
        for (d = 1; d < so.n; d++)
            key = so.dev[d] < key ? so.dev[d] : key;
        if (group_sender[key] < 0 && !slots_have_dev(&so, h)) {
            s->min[h]++;
            s->sent[snd]++;
            if (so.n == 1)
                s->sent_min[snd]++;
            s->recv[h]++;
        }
        TL_CHECK(group_sender[key] < 0 || group_sender[key] == snd,
                 "%s: one partial from two senders", rc->what);
        group_sender[key] = snd;
    }
    TL_CHECK(acc == want, "%s: device %lld gets %lld, the reduction is %lld",
             rc->what, (long long)h, (long long)acc, (long long)want);
}

static void reduce_laws(const ax_dist_plan *p, const red_case *rc)
{
    int64_t c[AX_MAX_DIMS] = {0}, y[AX_MAX_DIMS] = {0}, dshape[AX_MAX_DIMS];
    bool single = true;
    slots so, sh;
    sim s;
    int i, d;
    sim_init(&s, p->ndev);
    do {
        src_slots(rc->rg, rc->src, c, rc->shape, rc->n, &so);
        for (i = 0; i < so.n; i++)
            *at(&s, s.src, so.dev[i], so.addr[i]) =
                value_of(lin(rc->shape, rc->n, c) + 1);
        single &= so.n == 1;
    } while (next_coord(rc->shape, rc->n, c));
    for (d = 0; d < rc->n; d++)
        if (d != rc->k)
            dshape[d - (d > rc->k)] = rc->shape[d];
    do {
        dst_slots(rc->rg, rc->dst, y, dshape, rc->n - 1, &sh);
        for (i = 0; i < sh.n; i++)
            reduce_holder(p, rc, y, sh.dev[i], sh.addr[i], &s);
    } while (next_coord(dshape, rc->n - 1, y));
    check_bytes(p, &s, single, rc->what);
    sim_free(&s);
}

/* ---- random cases ------------------------------------------------------- */

/* Whether the inner products of dim "da" of "a" (grouped by "sa") and dim
 * "db" of "b" (by "sb") form a divisibility chain. */
static bool dim_chain(const axe_layout *a, const int64_t *sa, int na, int da,
                      const axe_layout *b, const int64_t *sb, int nb, int db)
{
    axe_layout g[2];
    int seps[2][AXE_LAYOUT_MAX_SHARD + 1], i, j, k, nv = 0;
    int64_t v[2 * AXE_LAYOUT_MAX_SHARD];
    if (axe_layout_group(a, sa, na, &g[0], seps[0], NULL) != AXE_OK ||
        axe_layout_group(b, sb, nb, &g[1], seps[1], NULL) != AXE_OK)
        exit(2);
    for (k = 0; k < 2; k++) {
        int d = k ? db : da;
        int64_t prod = 1;
        for (i = seps[k][d + 1] - 1; i >= seps[k][d]; i--)
            v[nv++] = prod *= g[k].shard[i].extent;
    }
    for (i = 0; i < nv; i++)
        for (j = 0; j < nv; j++)
            if (v[i] <= v[j] && v[j] % v[i] != 0)
                return false;
    return true;
}

/* Random pairs whose dims do not form a chain (planned with tables). */
static int n_tabled;

static int tabled_digits(const ax_dist_plan *p)
{
    int i, n = 0;
    for (i = 0; i < p->ndigits; i++)
        n += p->digit[i].tab > 0;
    return n;
}

static void random_shape(int64_t *shape, int n, int64_t maxsize)
{
    static const int64_t ext[] = {1, 2, 4, 8, 16, 3, 6, 12, 2, 4};
    int64_t size;
    int d;
    do {
        size = 1;
        for (d = 0; d < n; d++)
            size *= shape[d] = ext[tl_range(0, 9)];
    } while (size > maxsize);
}

/* "tabled": draw pairs until one is not a chain (at most 50 draws). */
static void random_copy(int t, bool tabled)
{
    int64_t shape[3], P = tl_range(1, 8);
    int n = (int)tl_range(1, 3), d;
    bool chain = true;
    axe_layout src, dst;
    ax_dist_plan p;
    axe_diag why;
    char what[1200];
    int draws = 0;
    do {
        random_shape(shape, n, 512);
        src = gen_layout(shape, n, P, true);
        dst = gen_layout(shape, n, P, true);
        for (d = 0, chain = true; d < n; d++)
            chain &= dim_chain(&src, shape, n, d, &dst, shape, n, d);
    } while (tabled && chain && ++draws < 50);
    snprintf(what, sizeof what, "copy #%d P=%lld %s -> %s", t, (long long)P,
             lay_text(&src), lay_text(&dst));
    if (axe__dist_plan_copy(shape, n, &src, &dst, P, &p, &why) != AXE_OK) {
        TL_CHECK(false, "%s: refused: %s", what, why.message);
        return;
    }
    TL_CHECK(chain == (tabled_digits(&p) == 0),
             "%s: %d tabled digits, the dims %s a chain", what,
             tabled_digits(&p), chain ? "form" : "do not form");
    n_tabled += !chain;
    copy_laws(&p, shape, n, &src, &dst, what);
}

static void random_reduce(int t, bool tabled)
{
    static const ax_red ops[] = {AX_RED_SUM, AX_RED_MAX, AX_RED_MIN};
    int64_t shape[3], dshape[3], P = tl_range(1, 8);
    int n = (int)tl_range(2, 3), k = (int)tl_range(0, n - 1), d;
    bool chain = true;
    axe_layout src, dst;
    ax_dist_plan p;
    axe_diag why;
    char what[1200];
    red_case rc;
    int draws = 0;
    do {
        random_shape(shape, n, 256);
        for (d = 0; d < n; d++)
            if (d != k)
                dshape[d - (d > k)] = shape[d];
        src = gen_layout(shape, n, P, true);
        dst = gen_layout(dshape, n - 1, P, true);
        for (d = 0, chain = true; d < n; d++)
            if (d != k)
                chain &= dim_chain(&src, shape, n, d, &dst, dshape, n - 1,
                                   d - (d > k));
    } while (tabled && chain && ++draws < 50);
    rc = (red_case){shape, n, k, ops[tl_range(0, 2)], &src, &dst, what, NULL};
    snprintf(what, sizeof what, "reduce #%d P=%lld k=%d %s -> %s", t,
             (long long)P, k, lay_text(&src), lay_text(&dst));
    if (axe__dist_plan_reduce(shape, n, &src, &dst, k, rc.op, P, &p, &why) !=
        AXE_OK) {
        TL_CHECK(false, "%s: refused: %s", what, why.message);
        return;
    }
    TL_CHECK(chain == (tabled_digits(&p) == 0),
             "%s: %d tabled digits, the dims %s a chain", what,
             tabled_digits(&p), chain ? "form" : "do not form");
    n_tabled += !chain;
    reduce_laws(&p, &rc);
}

/* ---- regions ------------------------------------------------------------- */

/* Random region lengths "len" of "shape" (n dims), each at most
 * "cap[d]", half the time a divisor of the extent. */
static void random_lengths(const int64_t *shape, const int64_t *cap, int n,
                           int64_t *len)
{
    int d;
    for (d = 0; d < n; d++) {
        int64_t c = cap[d] < shape[d] ? cap[d] : shape[d];
        if (tl_range(0, 1) && shape[d] > 1 && shape[d] <= c)
            len[d] = shape[d] / rand_divisor(shape[d]);
        else
            len[d] = tl_range(1, c);
    }
}

/* A random origin of a region of lengths "len" in "shape": half the time
 * a multiple of the length where it divides the extent. */
static void random_origin(const int64_t *shape, const int64_t *len, int n,
                          int64_t *begin)
{
    int d;
    for (d = 0; d < n; d++)
        begin[d] = shape[d] % len[d] == 0 && tl_range(0, 1)
                       ? len[d] * tl_range(0, shape[d] / len[d] - 1)
                       : tl_range(0, shape[d] - len[d]);
}

/* The layout of the region [begin, begin + len) of "l" over "shape", as
 * sema makes a device operand's (compiler_sema_dist.c: axe_layout_slice
 * with no target); false when the region has none. */
static bool region_layout(const axe_layout *l, const int64_t *shape, int n,
                          const int64_t *begin, const int64_t *len,
                          axe_layout *out)
{
    int64_t end[AX_MAX_DIMS];
    bool found = false;
    axe_diag why;
    int d;
    for (d = 0; d < n; d++)
        end[d] = begin[d] + len[d];
    if (axe_layout_slice(l, shape, begin, end, n, AXE_TARGET_NONE, out, &found,
                         &why) != AXE_OK) {
        TL_CHECK(false, "slice of %s: %s", lay_text(l), why.message);
        return false;
    }
    return found;
}

static int n_regions;      /* random region pairs planned */
static int n_region_cases; /* random region pairs that had layouts */

static void region_text(char *buf, size_t cap, const int64_t *begin,
                        const int64_t *len, int n)
{
    size_t k = 0;
    int d;
    for (d = 0; d < n && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld:+%lld", d ? "," : "[",
                              (long long)begin[d], (long long)len[d]);
    snprintf(buf + k, cap - k, "]");
}

/* copy(dst region, src region) of equal lengths, the plan from the
 * sliced layouts, the laws against the tensors' own layouts. */
static void random_region_copy(int t)
{
    int64_t sb[3], db[3], len[3], sbeg[3], dbeg[3], P = tl_range(1, 8);
    int n = (int)tl_range(1, 3);
    regions rg = {sb, sbeg, db, dbeg};
    axe_layout src, dst, rs, rd;
    ax_dist_plan p;
    axe_diag why;
    char what[1400], ts[80], td[80];
    random_shape(sb, n, 512);
    random_shape(db, n, 512);
    random_lengths(sb, db, n, len);
    random_origin(sb, len, n, sbeg);
    random_origin(db, len, n, dbeg);
    src = gen_layout(sb, n, P, true);
    dst = gen_layout(db, n, P, true);
    if (!region_layout(&src, sb, n, sbeg, len, &rs) ||
        !region_layout(&dst, db, n, dbeg, len, &rd))
        return;
    region_text(ts, sizeof ts, sbeg, len, n);
    region_text(td, sizeof td, dbeg, len, n);
    snprintf(what, sizeof what, "region copy #%d P=%lld %s%s -> %s%s", t,
             (long long)P, lay_text(&src), ts, lay_text(&dst), td);
    n_region_cases++;
    if (axe__dist_plan_copy(len, n, &rs, &rd, P, &p, &why) != AXE_OK) {
        TL_CHECK(false, "%s: refused: %s", what, why.message);
        return;
    }
    n_regions++;
    copy_laws_at(&p, len, n, &src, &dst, &rg, what);
}

/* reduce(dst region, src region, op, k) likewise. */
static void random_region_reduce(int t)
{
    static const ax_red ops[] = {AX_RED_SUM, AX_RED_MAX, AX_RED_MIN};
    int64_t sb[3], db[3], len[3], dlen[3], sbeg[3], dbeg[3], P = tl_range(1, 8);
    int n = (int)tl_range(2, 3), k = (int)tl_range(0, n - 1), d;
    regions rg = {sb, sbeg, db, dbeg};
    axe_layout src, dst, rs, rd;
    ax_dist_plan p;
    axe_diag why;
    red_case rc;
    char what[1400], ts[80], td[80];
    random_shape(sb, n, 256);
    random_lengths(sb, sb, n, len);
    random_origin(sb, len, n, sbeg);
    for (d = 0; d < n; d++)
        if (d != k) {
            db[d - (d > k)] = sb[d];
            dlen[d - (d > k)] = len[d];
        }
    random_origin(db, dlen, n - 1, dbeg);
    src = gen_layout(sb, n, P, true);
    dst = gen_layout(db, n - 1, P, true);
    if (!region_layout(&src, sb, n, sbeg, len, &rs) ||
        !region_layout(&dst, db, n - 1, dbeg, dlen, &rd))
        return;
    region_text(ts, sizeof ts, sbeg, len, n);
    region_text(td, sizeof td, dbeg, dlen, n - 1);
    rc = (red_case){len, n, k, ops[tl_range(0, 2)], &src, &dst, what, &rg};
    snprintf(what, sizeof what, "region reduce #%d P=%lld k=%d %s%s -> %s%s", t,
             (long long)P, k, lay_text(&src), ts, lay_text(&dst), td);
    n_region_cases++;
    if (axe__dist_plan_reduce(len, n, &rs, &rd, k, rc.op, P, &p, &why) !=
        AXE_OK) {
        TL_CHECK(false, "%s: refused: %s", what, why.message);
        return;
    }
    n_regions++;
    reduce_laws(&p, &rc);
}

/* ---- the kinds of the standard cases ------------------------------------ */

typedef struct kind_case {
    const char *src, *dst;
    ax_coll kind;
    int root;   /* -1: none */
    int groups; /* 0: 1 */
} kind_case;

static void check_kind(const int64_t *shape, int n, int64_t P,
                       const kind_case *kc, int k, ax_red op)
{
    axe_layout src = lay(kc->src), dst = lay(kc->dst);
    ax_dist_plan p;
    axe_diag why;
    char what[600];
    axe_status st;
    snprintf(what, sizeof what, "P=%lld %s -> %s%s", (long long)P, kc->src,
             kc->dst, k >= 0 ? " (reduce)" : "");
    st = k >= 0
             ? axe__dist_plan_reduce(shape, n, &src, &dst, k, op, P, &p, &why)
             : axe__dist_plan_copy(shape, n, &src, &dst, P, &p, &why);
    TL_CHECK(st == AXE_OK, "%s: refused: %s", what, why.message);
    if (st != AXE_OK)
        return;
    TL_CHECK(p.kind == (int32_t)kc->kind && p.root == kc->root &&
                 p.groups == (kc->groups ? kc->groups : 1),
             "%s: kind %s root %d groups %d, want %s root %d groups %d (%s)",
             what, axe__dist_kind_name((ax_coll)p.kind), p.root, p.groups,
             axe__dist_kind_name(kc->kind), kc->root,
             kc->groups ? kc->groups : 1, p.explain);
    if (k >= 0) {
        red_case rc = {shape, n, k, op, &src, &dst, what, NULL};
        reduce_laws(&p, &rc);
    } else {
        copy_laws(&p, shape, n, &src, &dst, what);
    }
}

/* Dim 0 sharded over (2, P/2) devices, then over the same digits with
 * other device strides: a permutation of devices, no all-to-all. */
static void swap_kind(const int64_t *shape, int64_t P, int64_t qa, int64_t b)
{
    char s[160], d[160];
    kind_case kc;
    snprintf(s, sizeof s, "S[(2,%lld,%lld,%lld):(%lld@gpuid,1@gpuid,%lld,1)]",
             (long long)(P / 2), (long long)qa, (long long)b,
             (long long)(P / 2), (long long)b);
    snprintf(d, sizeof d, "S[(2,%lld,%lld,%lld):(1@gpuid,2@gpuid,%lld,1)]",
             (long long)(P / 2), (long long)qa, (long long)b, (long long)b);
    kc = (kind_case){s, d, AX_COLL_EXCHANGE, -1, 1};
    check_kind(shape, 2, P, &kc, -1, AX_RED_SUM);
}

/* A mesh of g x q devices (g, q >= 2): (a, b) = (g qa, q qb), sharded on
 * both dims or on rows only, replicated over the second mesh axis; the
 * collectives run in the g groups of one row of the mesh. */
static void group_kinds(void)
{
    static const int64_t gq[][2] = {{2, 2}, {2, 3}, {3, 2}, {2, 4}, {4, 2}};
    int t = (int)tl_range(0, 4), i;
    int64_t g = gq[t][0], q = gq[t][1], P = g * q;
    int64_t qa = q * tl_range(1, 2), qb = tl_range(1, 3), a = g * qa,
            b = q * qb;
    int64_t shape[2] = {a, b};
    char full[160], rows[256], rows1[160], rrep[160], rrs[160];
    snprintf(full, sizeof full,
             "S[(%lld,%lld,%lld,%lld):(%lld@gpuid,%lld,1@gpuid,1)]",
             (long long)g, (long long)qa, (long long)q, (long long)qb,
             (long long)q, (long long)qb);
    snprintf(rows1, sizeof rows1, "S[(%lld,%lld,%lld):(%lld@gpuid,%lld,1)]",
             (long long)g, (long long)qa, (long long)b, (long long)q,
             (long long)b);
    snprintf(rows, sizeof rows, "%s + R[%lld:1@gpuid]", rows1, (long long)q);
    snprintf(rrep, sizeof rrep,
             "S[(%lld,%lld):(%lld@gpuid,1)] + R[%lld:1@gpuid]", (long long)g,
             (long long)qa, (long long)q, (long long)q);
    snprintf(rrs, sizeof rrs, "S[(%lld,%lld,%lld):(%lld@gpuid,1@gpuid,1)]",
             (long long)g, (long long)q, (long long)(qa / q), (long long)q);
    {
        const kind_case copies[] = {
            {full, rows, AX_COLL_ALLGATHER, -1, (int)g},
            {rows, full, AX_COLL_LOCAL, -1, 1},
            {full, rows1, AX_COLL_GATHER, -1, (int)g},
            {rows1, rows, AX_COLL_BROADCAST, -1, (int)g},
        };
        const kind_case reduces[] = {
            {full, rrep, AX_COLL_ALLREDUCE, -1, (int)g},
            {full, rrs, AX_COLL_REDUCE_SCATTER, -1, (int)g},
        };
        for (i = 0; i < (int)(sizeof copies / sizeof copies[0]); i++)
            check_kind(shape, 2, P, &copies[i], -1, AX_RED_SUM);
        for (i = 0; i < (int)(sizeof reduces / sizeof reduces[0]); i++)
            check_kind(shape, 2, P, &reduces[i], 1, AX_RED_SUM);
    }
}

/* Standard cases on (a, b) = (P qa, P qb) over P >= 2 devices. */
static void standard_kinds(void)
{
    int64_t P = tl_range(2, 8), qa = P * tl_range(1, 2), qb = tl_range(1, 3);
    int64_t a = P * qa, b = P * qb, shape[2] = {a, b}, rshape[1] = {b};
    int kr = (int)tl_range(0, P - 1), kj = (int)((kr + 1) % P), i;
    char rm[128], repl[160], one[160], other[160], s0[128], s0c[128], s1[128];
    char r1[64], r1rep[128], r1one[128], r1s[128];
    snprintf(rm, sizeof rm, "S[(%lld,%lld):(%lld,1)]", (long long)a,
             (long long)b, (long long)b);
    snprintf(repl, sizeof repl, "%s + R[%lld:1@gpuid]", rm, (long long)P);
    snprintf(one, sizeof one, "%s + %d@gpuid", rm, kr);
    snprintf(other, sizeof other, "%s + %d@gpuid", rm, kj);
    snprintf(s0, sizeof s0, "S[(%lld,%lld,%lld):(1@gpuid,%lld,1)]",
             (long long)P, (long long)qa, (long long)b, (long long)b);
    snprintf(s0c, sizeof s0c, "S[(%lld,%lld,%lld):(%lld,1@gpuid,1)]",
             (long long)qa, (long long)P, (long long)b, (long long)b);
    snprintf(s1, sizeof s1, "S[(%lld,%lld,%lld):(%lld,1@gpuid,1)]",
             (long long)a, (long long)P, (long long)qb, (long long)qb);
    snprintf(r1, sizeof r1, "S[%lld:1]", (long long)b);
    snprintf(r1rep, sizeof r1rep, "%s + R[%lld:1@gpuid]", r1, (long long)P);
    snprintf(r1one, sizeof r1one, "%s + %d@gpuid", r1, kj);
    snprintf(r1s, sizeof r1s, "S[(%lld,%lld):(1@gpuid,1)]", (long long)P,
             (long long)qb);
    {
        const kind_case copies[] = {
            {s0, repl, AX_COLL_ALLGATHER, -1, 1},
            {repl, s1, AX_COLL_LOCAL, -1, 1},
            {one, repl, AX_COLL_BROADCAST, kr, 1},
            {one, s0, AX_COLL_SCATTER, kr, 1},
            {s1, one, AX_COLL_GATHER, kr, 1},
            {s0, s1, AX_COLL_ALLTOALL, -1, 1},
            {s0, s0c, AX_COLL_ALLTOALL, -1, 1},
            {s0, s0, AX_COLL_LOCAL, -1, 1},
            {one, other, AX_COLL_EXCHANGE, -1, 1},
        };
        const kind_case reduces[] = {
            {s0, r1s, AX_COLL_REDUCE_SCATTER, -1, 1},
            {s0, r1rep, AX_COLL_ALLREDUCE, -1, 1},
            {s0, r1one, AX_COLL_REDUCE, kj, 1},
            {s1, r1s, AX_COLL_LOCAL, -1, 1},
        };
        /* A reduce over a dim of extent 1 combines nothing: a copy of
         * its one partial, named by the copy kinds. */
        const int64_t shape1[2] = {1, b};
        char one1[160], s1r[128];
        kind_case ones[2];
        snprintf(one1, sizeof one1, "S[(1,%lld):(%lld,1)] + %d@gpuid",
                 (long long)b, (long long)b, kr);
        snprintf(s1r, sizeof s1r, "S[(1,%lld,%lld):(%lld,1@gpuid,1)]",
                 (long long)P, (long long)qb, (long long)qb);
        ones[0] = (kind_case){one1, r1rep, AX_COLL_BROADCAST, kr, 1};
        ones[1] = (kind_case){s1r, r1rep, AX_COLL_ALLGATHER, -1, 1};
        for (i = 0; i < 2; i++)
            check_kind(shape1, 2, P, &ones[i], 0,
                       i % 2 ? AX_RED_MAX : AX_RED_SUM);
        if (P % 2 == 0 && P >= 4)
            swap_kind(shape, P, qa, b);
        for (i = 0; i < (int)(sizeof copies / sizeof copies[0]); i++)
            check_kind(shape, 2, P, &copies[i], -1, AX_RED_SUM);
        for (i = 0; i < (int)(sizeof reduces / sizeof reduces[0]); i++)
            check_kind(shape, 2, P, &reduces[i], 0,
                       i % 2 ? AX_RED_MAX : AX_RED_SUM);
    }
    (void)rshape;
}

/* ---- table rows: the paper's examples ----------------------------------- */

typedef struct plan_row {
    const char *what;
    int64_t shape[3];
    int n, k; /* k < 0: copy */
    const char *src, *dst;
    int64_t ndev;
    ax_coll kind;
    int64_t sent, recv; /* bytes of rank 0, f32 */
    const char *explain;
} plan_row;

static const plan_row rows[] = {
    {"64x128 on a 2x2 mesh, sharded -> replicated",
     {64, 128},
     2,
     -1,
     "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]",
     "S[(64,128):(128,1)] + R[4:1@gpuid]",
     4,
     AX_COLL_ALLGATHER,
     3 * 32 * 64 * 4,
     3 * 32 * 64 * 4,
     "all-gather: src shards on gpuid the digits (dim 0, extent 2), (dim 1, "
     "extent 2) that dst keeps in memory; dst replicates over gpuid (4 "
     "copies)"},
    {"64x128 on a 2x2 mesh, sharded with replication -> sharded",
     {64, 128},
     2,
     -1,
     "S[(2,32,128):(2@gpuid,128,1)] + R[2:1@gpuid]",
     "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]",
     4,
     AX_COLL_LOCAL,
     0,
     0,
     "local: every dst holder owns its elements in src; dst shards on gpuid "
     "the digit (dim 1, extent 2) that src keeps in memory; src and dst "
     "shard on gpuid the digit (dim 0, extent 2, gpuid stride 2 -> 2); src "
     "replicates over gpuid (2 copies)"},
    {"64x128 on a 2x2 mesh, sharded -> sharded with replication",
     {64, 128},
     2,
     -1,
     "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]",
     "S[(2,32,128):(2@gpuid,128,1)] + R[2:1@gpuid]",
     4,
     AX_COLL_ALLGATHER,
     32 * 64 * 4,
     32 * 64 * 4,
     "all-gather in 2 groups of 2 devices: the groups split the digit (dim "
     "0, extent 2) alike on both sides; src shards on gpuid the digit (dim "
     "1, extent 2) that dst keeps in memory; dst replicates over gpuid (2 "
     "copies)"},
    {"64x128 rows sharded -> columns sharded",
     {64, 128},
     2,
     -1,
     "S[(4,16,128):(1@gpuid,128,1)]",
     "S[(64,4,32):(32,1@gpuid,1)]",
     4,
     AX_COLL_ALLTOALL,
     3 * 16 * 32 * 4,
     3 * 16 * 32 * 4,
     "all-to-all: src shards on gpuid the digit (dim 0, extent 4) that dst "
     "keeps in memory; dst shards on gpuid the digit (dim 1, extent 4) that "
     "src keeps in memory"},
    {"Figure 8: sum over the sharded dim 0, result sharded on dim 0",
     {4, 64, 64},
     3,
     0,
     "S[(4,64,64):(1@gpuid,64,1)]",
     "S[(4,16,64):(1@gpuid,64,1)]",
     4,
     AX_COLL_REDUCE_SCATTER,
     3 * 16 * 64 * 4,
     3 * 16 * 64 * 4,
     "reduce-scatter: dst shards on gpuid the digit (dim 1, extent 4) that "
     "src keeps in memory; src shards on gpuid the digit (dim 0, extent 4) "
     "of the reduced dim"},
    {"64x128 on device 2 -> replicated",
     {64, 128},
     2,
     -1,
     "S[(64,128):(128,1)] + 2@gpuid",
     "S[(64,128):(128,1)] + R[4:1@gpuid]",
     4,
     AX_COLL_BROADCAST,
     0,
     64 * 128 * 4,
     "broadcast: dst replicates over gpuid (4 copies); src lives on device 2 "
     "only"},
    {"f32[6] (2,3) -> (3,2): tabled",
     {6},
     1,
     -1,
     "S[(2,3):(1@gpuid,1)]",
     "S[(3,2):(1,1@gpuid)]",
     2,
     AX_COLL_EXCHANGE,
     4,
     4,
     "exchange: the iters of src and dst have no common refinement in the "
     "digit (dim 0, extent 6): tabled (src 2:1@gpuid 3:1@m, dst 3:1@m "
     "2:1@gpuid), its elements go point to point"},
    {"f32[12] blocks of 4 on 3 devices -> blocks of 3 on 4: tabled",
     {12},
     1,
     -1,
     "S[(3,4):(1@gpuid,1)]",
     "S[(4,3):(1@gpuid,1)]",
     4,
     AX_COLL_EXCHANGE,
     4,
     0,
     "exchange: the iters of src and dst have no common refinement in the "
     "digit (dim 0, extent 12): tabled (src 3:1@gpuid 4:1@m, dst 4:1@gpuid "
     "3:1@m), its elements go point to point"},
    {"f32[12] blocks of 6 -> blocks of 4: a digit of 2, then tabled",
     {12},
     1,
     -1,
     "S[(2,6):(1@gpuid,1)]",
     "S[(3,4):(1@gpuid,1)]",
     3,
     AX_COLL_EXCHANGE,
     8,
     0,
     "exchange: the iters of src and dst have no common refinement in the "
     "digit (dim 0, extent 6): tabled (src 2:1@gpuid 3:2@m, dst 3:1@gpuid "
     "2:2@m), its elements go point to point"},
    {"f32[6] re-tiled in memory on one device: tabled, nothing moves",
     {6},
     1,
     -1,
     "S[(2,3):(3,1)]",
     "S[(3,2):(2,1)]",
     1,
     AX_COLL_LOCAL,
     0,
     0,
     "local: every dst holder owns its elements in src; the iters of src and "
     "dst have no common refinement in the digit (dim 0, extent 6): tabled "
     "(src 2:3@m 3:1@m, dst 3:2@m 2:1@m), its elements go point to point"},
    {"sum over dim 0 on gpuid, dim 1 tabled, result replicated",
     {2, 6},
     2,
     0,
     "S[(2,2,3):(2@gpuid,1@gpuid,1)]",
     "S[(3,2):(1,1@gpuid)] + R[2:2@gpuid]",
     4,
     AX_COLL_EXCHANGE,
     16,
     16,
     "exchange: src shards on gpuid the digit (dim 0, extent 2) of the "
     "reduced dim; the iters of src and dst have no common refinement in the "
     "digit (dim 1, extent 6): tabled (src 2:1@gpuid 3:1@m, dst 3:1@m "
     "2:1@gpuid), its elements go point to point; dst replicates over gpuid "
     "(2 copies)"},
    {"sum over a dim kept in memory and one on gpuid, result replicated",
     {8, 16},
     2,
     1,
     "S[(8,2,8):(8,1@gpuid,1)]",
     "S[8:1] + R[2:1@gpuid]",
     2,
     AX_COLL_ALLREDUCE,
     8 * 4,
     8 * 4,
     "all-reduce: src shards on gpuid the digit (dim 1, extent 2) of the "
     "reduced dim; each owner first combines the digit (dim 1, extent 8) of "
     "the reduced dim it keeps in memory; dst replicates over gpuid (2 "
     "copies)"},
};

static void table_rows(void)
{
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const plan_row *r = &rows[i];
        axe_layout src = lay(r->src), dst = lay(r->dst);
        ax_dist_plan p;
        axe_diag why;
        int64_t sent = -1, recv = -1;
        axe_status st =
            r->k >= 0 ? axe__dist_plan_reduce(r->shape, r->n, &src, &dst, r->k,
                                              AX_RED_SUM, r->ndev, &p, &why)
                      : axe__dist_plan_copy(r->shape, r->n, &src, &dst, r->ndev,
                                            &p, &why);
        TL_CHECK(st == AXE_OK, "%s: refused: %s", r->what, why.message);
        if (st != AXE_OK)
            continue;
        TL_CHECK(p.kind == (int32_t)r->kind, "%s: kind %s, want %s", r->what,
                 axe__dist_kind_name((ax_coll)p.kind),
                 axe__dist_kind_name(r->kind));
        TL_CHECK(axe__dist_bytes(&p, 0, 4, &sent, &recv) == AXE_OK &&
                     sent == r->sent && recv == r->recv,
                 "%s: rank 0 sends %lld and receives %lld bytes, want %lld "
                 "and %lld",
                 r->what, (long long)sent, (long long)recv, (long long)r->sent,
                 (long long)r->recv);
        TL_CHECK(strcmp(p.explain, r->explain) == 0,
                 "%s: explain\n  %s\nwant\n  %s", r->what, p.explain,
                 r->explain);
        if (r->k >= 0) {
            red_case rc = {r->shape, r->n, r->k,    AX_RED_SUM,
                           &src,     &dst, r->what, NULL};
            reduce_laws(&p, &rc);
        } else {
            copy_laws(&p, r->shape, r->n, &src, &dst, r->what);
        }
    }
}

/* ---- refusals ------------------------------------------------------------ */

typedef struct refusal {
    int64_t shape[3];
    int n, k;
    const char *src, *dst;
    int64_t ndev;
    axe_status status;
    const char *reason; /* a substring of the message */
} refusal;

static const refusal refusals[] = {
    {{2, 8},
     2,
     -1,
     "S[(2,8):(8,1)] + R[2:-1@gpuid] + 1@gpuid",
     "S[(2,8):(8,1)]",
     2,
     AXE_ERR_UNSUPPORTED,
     "src: replica digit 0 has the negative stride -1@gpuid"},
    {{4098},
     1,
     -1,
     "S[(2,2049):(1@gpuid,1)]",
     "S[(2049,2):(1,1@gpuid)]",
     2,
     AXE_ERR_UNSUPPORTED,
     "dim 0: the iters of src and dst have no common refinement between "
     "weights 1 and 4098; no plan by digits exists (a tabled digit of extent "
     "4098, times the plan's other tabled digits' 1, is beyond the table "
     "bound 4096)"},
    {{66, 66},
     2,
     -1,
     "S[(2,33,2,33):(2@gpuid,33,1@gpuid,1)]",
     "S[(33,2,33,2):(33,2@gpuid,1,1@gpuid)]",
     4,
     AXE_ERR_UNSUPPORTED,
     "dim 1: the iters of src and dst have no common refinement between "
     "weights 1 and 66; no plan by digits exists (a tabled digit of extent "
     "66, times the plan's other tabled digits' 66, is beyond the table "
     "bound 4096)"},
    {{8, 4},
     2,
     -1,
     "S[(8,4):(1@gpuid,1)]",
     "S[(8,4):(4,1)] + R[4:1@gpuid]",
     4,
     AXE_ERR_INVALID,
     "src: device ids 0..7 fall outside the mesh of 4"},
    {{8, 4},
     2,
     -1,
     "S[(4,2,4):(1@warpid,4,1)]",
     "S[(8,4):(4,1)]",
     4,
     AXE_ERR_UNSUPPORTED,
     "src: shard iter 0 is on axis 'warpid'"},
    {{4, 8},
     2,
     -1,
     "S[(4,8):(8,1)]",
     "S[(4,8):(1@gpuid,0)]",
     4,
     AXE_ERR_INVALID,
     "dst: dim 1 has a digit of extent 8 with stride 0"},
    {{2, 8},
     2,
     -1,
     "S[(2,8):(8,1)]",
     "S[(2,8):(1@gpuid,1)] + R[2:1@gpuid]",
     4,
     AXE_ERR_INVALID,
     "dst: two elements land on device 1"},
    {{2, 8},
     2,
     -1,
     "S[(2,8):(8,1)]",
     "S[(2,8):(8,1)] + R[2:0@gpuid]",
     4,
     AXE_ERR_INVALID,
     "dst: replica digit 0 (extent 2, stride 0@gpuid)"},
    {{2, 8},
     2,
     -1,
     "S[(2,8):(8,1)]",
     "S[(2,8):(8,1)] + R[2:1@gpuid]",
     2000,
     AXE_ERR_CAPACITY,
     "the mesh has 2000 devices; the planner takes 1 to"},
    {{2, 8},
     2,
     -1,
     "S[(2,4):(4,1)]",
     "S[(2,8):(8,1)]",
     2,
     AXE_ERR_UNSUPPORTED,
     "src: "},
    {{2, 8},
     2,
     -1,
     "S[(2,8):(8,-1)] + 3",
     "S[(2,8):(8,1)]",
     2,
     AXE_ERR_INVALID,
     "src: local address -4 is negative"},
    {{2, 8},
     2,
     2,
     "S[(2,8):(8,1)]",
     "S[2:1]",
     2,
     AXE_ERR_INVALID,
     "reduced dim 2 is not a dim of src (2 dims)"},
};

static void refusal_rows(void)
{
    size_t i;
    for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *r = &refusals[i];
        axe_layout src = lay(r->src), dst = lay(r->dst);
        ax_dist_plan p;
        axe_diag why = {0, {0}};
        axe_status st =
            r->k >= 0 ? axe__dist_plan_reduce(r->shape, r->n, &src, &dst, r->k,
                                              AX_RED_SUM, r->ndev, &p, &why)
                      : axe__dist_plan_copy(r->shape, r->n, &src, &dst, r->ndev,
                                            &p, &why);
        TL_CHECK(st == r->status && strstr(why.message, r->reason) != NULL,
                 "%s -> %s: status %d (%s), want %d with \"%s\"", r->src,
                 r->dst, (int)st, why.message, (int)r->status, r->reason);
    }
    {
        axe_layout a = lay("S[(2,8):(8,1)]"), b = lay("S[2:1]");
        ax_dist_plan p;
        axe_diag why = {0, {0}};
        int64_t shape[2] = {2, 8};
        TL_CHECK(axe__dist_plan_reduce(shape, 2, &a, &b, 1, AX_RED_ARGMAX, 1,
                                       &p, &why) == AXE_ERR_UNSUPPORTED &&
                     strstr(why.message, "not argmax"),
                 "argmax refused: %s", why.message);
    }
}

/* A local buffer whose memory strides overlap (sorted, 3 does not pass
 * the reach 4 of stride 2) is one-to-one by enumeration: planned, the
 * laws hold; one that is not is refused naming two digit values and
 * their address; past 2^20 combinations, a capacity error. */
static void mem_enum_rows(void)
{
    int64_t shape[2] = {3, 4}, big[2] = {2048, 1024};
    axe_layout src = lay("S[(3,2,2):(2,3,1@gpuid)]"),
               dst = lay("S[(3,4):(4,1)] + R[2:1@gpuid]"),
               bad = lay("S[(3,2,2):(2,2,1@gpuid)]"),
               wide = lay("S[(2048,1024):(1,2047)] + R[2:1@gpuid]"),
               wdst = lay("S[(2048,1024):(1024,1)] + R[2:1@gpuid]");
    ax_dist_plan p;
    axe_diag why = {0, {0}};
    axe_status st = axe__dist_plan_copy(shape, 2, &src, &dst, 2, &p, &why);
    TL_CHECK(st == AXE_OK, "S[(3,2,2):(2,3,1@gpuid)] refused: %s", why.message);
    if (st == AXE_OK)
        copy_laws(&p, shape, 2, &src, &dst, "S[(3,2,2):(2,3,1@gpuid)]");
    st = axe__dist_plan_copy(shape, 2, &src, &bad, 2, &p, &why);
    TL_CHECK(st == AXE_ERR_INVALID &&
                 strstr(why.message, "dst: the memory digits (dim 0: 3:2, "
                                     "dim 1: 2:2) put (0, 1) and (1, 0) at "
                                     "one local address 2: distinct elements "
                                     "share one slot") != NULL,
             "S[(3,2,2):(2,2,1@gpuid)]: %d %s", (int)st, why.message);
    st = axe__dist_plan_copy(big, 2, &wide, &wdst, 2, &p, &why);
    TL_CHECK(st == AXE_ERR_CAPACITY &&
                 strstr(why.message, "more than 1048576 combinations") != NULL,
             "2048 x 1024 overlapping: %d %s", (int)st, why.message);
}

/* axe__digits_injective, the sorting test both the planner's memory
 * digits and the self-overlap refusal's layouts ask: whatever it shows
 * one-to-one is (brute force over random digits), "order" is by |stride|
 * and stable, and a digit of extent 1 never spoils it ({1:1} beside 2:1
 * holds two addresses). */
static void digits_injective_rows(void)
{
    int64_t st1[2] = {1, 1}, ex1[2] = {2, 1}, st0[1] = {0}, ex0[1] = {2};
    int shown = 0;
    TL_CHECK(axe__digits_injective(st1, ex1, 2, NULL),
             "(2, 1):(1, 1) not shown one-to-one");
    TL_CHECK(!axe__digits_injective(st0, ex0, 1, NULL), "2:0 shown one-to-one");
    for (int t = 0; t < 400; t++) {
        int64_t st[4], ex[4], sums[256];
        int n = (int)tl_range(1, 4), order[4], total = 1;
        bool inj = true;
        for (int i = 0; i < n; i++) {
            st[i] = tl_range(-6, 6);
            ex[i] = tl_range(1, 4);
            total *= (int)ex[i];
        }
        for (int k = 0; k < total; k++) {
            int64_t r = k, sum = 0;
            for (int i = 0; i < n; i++, r /= ex[i - 1])
                sum += r % ex[i] * st[i];
            sums[k] = sum;
            for (int j = 0; j < k && inj; j++)
                inj = sums[j] != sum;
        }
        bool got = axe__digits_injective(st, ex, n, order);
        shown += got;
        TL_CHECK(inj || !got, "digits #%d shown one-to-one, but are not", t);
        for (int i = 1; i < n; i++)
            TL_CHECK(
                axe__abs(st[order[i - 1]]) < axe__abs(st[order[i]]) ||
                    (axe__abs(st[order[i - 1]]) == axe__abs(st[order[i]]) &&
                     order[i - 1] < order[i]),
                "digits #%d: order %d before %d", t, order[i - 1], order[i]);
    }
    TL_CHECK(shown >= 40, "only %d of 400 random digits shown one-to-one",
             shown);
}

/* Random memory strides (a,b):(s1,s2) beside a gpuid digit: planned, the
 * laws holding, exactly when the a*b addresses are distinct (brute
 * force); else refused as sharing a slot. Returns whether it planned. */
static bool random_mem_enum(int t)
{
    int64_t a = tl_range(1, 6), b = tl_range(1, 6), s1 = tl_range(1, 9),
            s2 = tl_range(1, 9), shape[2] = {a, 2 * b}, i, j, k, l;
    bool inj = true;
    char ts[96], td[96], what[256];
    axe_layout src, dst;
    ax_dist_plan p;
    axe_diag why = {0, {0}};
    axe_status st;
    snprintf(ts, sizeof ts, "S[(%lld,%lld,2):(%lld,%lld,1@gpuid)]",
             (long long)a, (long long)b, (long long)s1, (long long)s2);
    snprintf(td, sizeof td, "S[(%lld,%lld):(%lld,1)] + R[2:1@gpuid]",
             (long long)a, (long long)(2 * b), (long long)(2 * b));
    src = lay(ts);
    dst = lay(td);
    for (i = 0; i < a * b && inj; i++)
        for (j = i + 1; j < a * b && inj; j++) {
            k = i / b * s1 + i % b * s2;
            l = j / b * s1 + j % b * s2;
            inj = k != l;
        }
    snprintf(what, sizeof what, "mem enum #%d %s -> %s", t, ts, td);
    st = axe__dist_plan_copy(shape, 2, &src, &dst, 2, &p, &why);
    if (inj && st == AXE_OK)
        copy_laws(&p, shape, 2, &src, &dst, what);
    TL_CHECK(inj ? st == AXE_OK
                 : st == AXE_ERR_INVALID &&
                       strstr(why.message, "share one slot") != NULL,
             "%s: one-to-one %d, status %d (%s)", what, (int)inj, (int)st,
             why.message);
    return inj && st == AXE_OK;
}

/* The digits of a tabled plan: the gcd cut keeps an inner stride digit. */
static void tabled_shape(void)
{
    axe_layout src = lay("S[(2,6):(1@gpuid,1)]"),
               dst = lay("S[(3,4):(1@gpuid,1)]");
    int64_t shape[1] = {12};
    ax_dist_plan p;
    axe_diag why;
    TL_CHECK(axe__dist_plan_copy(shape, 1, &src, &dst, 3, &p, &why) == AXE_OK &&
                 p.ndigits == 2 && p.digit[0].tab == 1 &&
                 p.digit[0].extent == 6 && p.digit[1].tab == 0 &&
                 p.digit[1].extent == 2 && p.digit[1].src_m == 1 &&
                 p.digit[1].dst_m == 1 && p.ncell == 6,
             "(2,6) -> (3,4): want a tabled digit of 6 over a stride digit of "
             "2");
}

/* ---- device gemm copying both operands --------------------------------- */

static int n_gemm_both; /* random device gemms that copied both operands */

/* Operand "name" ([rows, K], rows a multiple of 2P) on device "dev" (a
 * random one where dev < 0) or, only where dev < 0, as a region, on part of the
 * mesh at a gpuid offset: the upper half of a tensor whose rows are sharded
 * over every device ("rows sharded") or over the two halves and replicated
 * within each ("rows replicated"). */
static void both_operand(char *decl, size_t dcap, char *use, size_t ucap,
                         const char *name, int64_t nrows, int64_t K, int64_t P,
                         int64_t dev)
{
    int kind = P > 1 && dev < 0 ? (int)tl_range(0, 2) : 0;
    if (kind == 0) {
        snprintf(
            decl, dcap,
            "%s: f32[%lld,%lld] layout S[(%lld,%lld):(%lld,1)] + %lld@gpuid",
            name, (long long)nrows, (long long)K, (long long)nrows,
            (long long)K, (long long)K,
            (long long)(dev >= 0 ? dev : tl_range(0, P - 1)));
        snprintf(use, ucap, "%s", name);
        return;
    }
    if (kind == 1)
        snprintf(
            decl, dcap,
            "%s: f32[%lld,%lld] layout S[(%lld,%lld,%lld):(1@gpuid,%lld,1)]",
            name, (long long)(2 * nrows), (long long)K, (long long)P,
            (long long)(2 * nrows / P), (long long)K, (long long)K);
    else
        snprintf(
            decl, dcap,
            "%s: f32[%lld,%lld] layout S[(2,%lld,%lld):(%lld@gpuid,%lld,1)] "
            "+ R[%lld:1@gpuid]",
            name, (long long)(2 * nrows), (long long)K, (long long)nrows,
            (long long)K, (long long)(P / 2), (long long)K, (long long)(P / 2));
    snprintf(use, ucap, "%s[%lld:+%lld, 0:+%lld]", name, (long long)nrows,
             (long long)nrows, (long long)K);
}

/* Device d holds some k of row r of "x" exactly when it holds an
 * element of row r of C's dim "dim" ("cs": the shape of C's region at
 * the origin of C, "cbase" C's shape; "c" C's own layout), and of the
 * holders of each C element of that row, 1 in "q" holds each [r, k] of
 * "x" (q = 1: K whole on each; q = C's replicas: K split over them). */
static void both_rows(const axe_layout *x, const int64_t *xs,
                      const axe_layout *c, const int64_t *cs,
                      const int64_t *cbase, int dim, int64_t q, int64_t P,
                      const char *what)
{
    static const int64_t origin[2] = {0, 0};
    int64_t r, d, e[2], k, i, n, have;
    slots sx, sc;
    for (r = 0; r < xs[0]; r++)
        for (d = 0; d < P; d++) {
            bool want = false, any = false;
            for (e[dim] = r, e[1 - dim] = 0; e[1 - dim] < cs[1 - dim];
                 e[1 - dim]++) {
                slots_at(c, e, cs, 2, cbase, origin, &sc);
                want = want || slots_have_dev(&sc, d);
            }
            for (e[0] = r, e[1] = 0; e[1] < xs[1]; e[1]++) {
                slots_of(x, e, xs, 2, &sx);
                any = any || slots_have_dev(&sx, d);
            }
            TL_CHECK(any == want || (any == false && q > 1),
                     "%s: device %lld %s row %lld of the copy of %s, %s C's "
                     "%s %lld",
                     what, (long long)d, any ? "holds" : "lacks", (long long)r,
                     dim ? "B" : "A", want ? "holding" : "holding nothing of",
                     dim ? "column" : "row", (long long)r);
        }
    for (r = 0; r < xs[0]; r++)
        for (k = 0; k < xs[1]; k++) {
            e[0] = r, e[1] = k;
            slots_of(x, e, xs, 2, &sx);
            for (e[dim] = r, e[1 - dim] = 0; e[1 - dim] < cs[1 - dim];
                 e[1 - dim]++) {
                slots_at(c, e, cs, 2, cbase, origin, &sc);
                for (i = 0, n = 0, have = 0; i < sc.n; i++) {
                    n++;
                    have += slots_have_dev(&sx, sc.dev[i]);
                }
                TL_CHECK(have * q == n,
                         "%s: %lld of the %lld holders of C's element %lld "
                         "of %s %lld hold [%lld, %lld] of the copy of %s (K "
                         "in %lld slices)",
                         what, (long long)have, (long long)n,
                         (long long)e[1 - dim], dim ? "column" : "row",
                         (long long)r, (long long)r, (long long)k,
                         dim ? "B" : "A", (long long)q);
            }
        }
}

/* ---- the local GEMM's work per device ---------------------------------- */

static int n_gemm_idle; /* device gemms where some device skips its GEMM */

/* held[d * K + k] += the rows of operand "w" (1: A, 2: B) of device
 * gemm "st" that device d holds at k: of its copy where plan "g" copies
 * it first, else of its tensor's own layout at the region's coordinates
 * (not the sliced layout the plan reads). */
static void held_rows(const axe_program *pr, const ax_stmt *st,
                      const ax_dist_gemm *g, int w, int64_t P, int64_t *held)
{
    const ax_tensor *t = &pr->tensors[st->args[w].tensor];
    const ax_tensor *x = axe__devop_tensor(pr, st, w);
    const axe_layout *l =
        g->copied & w ? &g->moved[w - 1].glayout : &t->glayout;
    int64_t K = x->gshape[1], begin[2] = {0, 0}, e[2], d;
    slots sl;
    int i, j, dim;
    bool region = !(g->copied & w) && st->args[w].ndim > 0;
    for (dim = 0; region && dim < 2; dim++)
        if (st->args[w].start[dim] != NULL)
            begin[dim] = st->args[w].start[dim]->value;
    for (e[0] = 0; e[0] < x->gshape[0]; e[0]++)
        for (e[1] = 0; e[1] < K; e[1]++) {
            slots_at(l, e, x->gshape, 2, region ? t->gshape : NULL,
                     region ? begin : NULL, &sl);
            for (i = 0; i < sl.n; i++) {
                for (j = 0; j < i && sl.dev[j] != sl.dev[i]; j++)
                    ;
                d = sl.dev[i];
                if (j == i && d >= 0 && d < P)
                    held[d * K + e[1]]++;
            }
        }
}

/* Law: the local GEMM work of every device (axe__dist_gemm_work, which
 * the backends' guards read) is the multiply-adds of the rows of A and B
 * it holds at each k, sum over k of (rows of A) * (rows of B), counted
 * from the layouts: 0 on a device holding no part of K for C (outside
 * A's and B's devices), which skips its local GEMM. */
static void gemm_work_law(const axe_program *pr, const ax_stmt *st,
                          const ax_dist_gemm *g, int64_t P, const char *what)
{
    int64_t K = axe__devop_tensor(pr, st, 1)->gshape[1], d, k, want;
    int64_t *ha = calloc((size_t)(P * K), sizeof *ha);
    int64_t *hb = calloc((size_t)(P * K), sizeof *hb);
    bool idle = false;
    if (ha == NULL || hb == NULL) {
        TL_CHECK(false, "%s: out of memory", what);
        free(ha), free(hb);
        return;
    }
    held_rows(pr, st, g, 1, P, ha);
    held_rows(pr, st, g, 2, P, hb);
    for (d = 0; d < P; d++) {
        for (k = 0, want = 0; k < K; k++)
            want += ha[d * K + k] * hb[d * K + k];
        idle = idle || want == 0;
        TL_CHECK(axe__dist_gemm_work(g, d) == want,
                 "%s: device %lld's local GEMM does %lld multiply-adds, its "
                 "rows of A and B make %lld",
                 what, (long long)d, (long long)axe__dist_gemm_work(g, d),
                 (long long)want);
    }
    TL_CHECK(axe__dist_gemm_idle(g, P) == idle, "%s: idle %d, want %d", what,
             (int)axe__dist_gemm_idle(g, P), (int)idle);
    n_gemm_idle += idle;
    free(ha);
    free(hb);
}

/* The local GEMMs of a kernel's device gemm "k" (P = its mesh) run on
 * the devices of "busy" ('1' at each gpuid, written from the layouts
 * by hand) and obey the law above. */
static void gemm_busy_row(const char *src, int k, const char *busy)
{
    axe_program *pr = NULL;
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d = {0, {0}};
    char got[64] = "";
    int64_t i;
    if (g == NULL ||
        axe_program_compile(src, strlen(src), NULL, NULL, &pr, &d) != AXE_OK ||
        axe__dist_gemm(pr, pr->devops[k], g, &d) != AXE_OK) {
        TL_CHECK(false, "%s: %s", src, d.message);
        axe_program_free(pr);
        free(g);
        return;
    }
    for (i = 0; i < pr->ndev && i < 63; i++)
        got[i] = axe__dist_gemm_work(g, i) > 0 ? '1' : '0';
    TL_CHECK(strcmp(got, busy) == 0, "%s\ndevice op %d: busy %s, want %s", src,
             k, got, busy);
    gemm_work_law(pr, pr->devops[k], g, pr->ndev, src);
    axe_program_free(pr);
    free(g);
}

/* Hand rows: tests/kernels/dist/gemm_gap.axe (regions on devices 0, 1,
 * 4, 5 of 8, as placed); A and B both on device 2 (as placed: device 2
 * alone); regions of both on the upper half of the mesh (as placed:
 * devices 2, 3; B's rows replicated there); a region of C on devices 0-3 of 8,
 * A and B on single devices (both copied there); K sharded over the whole mesh
 * (all). */
static void gemm_busy_rows(void)
{
    static const char gap[] =
        "mesh(8);\nkernel k(A: f32[4,4] layout S[(2,2,4):(2@gpuid,4,1)] + "
        "R[(2,2):(1@gpuid,4@gpuid)],\n  B: f32[4,4] layout "
        "S[(2,2,4):(2@gpuid,4,1)] + R[(2,2):(1@gpuid,4@gpuid)],\n  C: "
        "f32[2,2] layout S[(2,2):(2,1)] + R[8:1@gpuid]) grid(1) threads(1) "
        "{\n    device gemm(C, A[0:+2, 0:+4], B[0:+2, 0:+4]);\n}\n";
    static const char one[] =
        "mesh(4);\nkernel k(A: f32[4,3] layout S[(4,3):(3,1)] + 2@gpuid,\n  "
        "B: f32[2,3] layout S[(2,3):(3,1)] + 2@gpuid,\n  C: f32[4,2] layout "
        "S[(4,2):(2,1)] + R[4:1@gpuid]) grid(1) threads(1) {\n    device "
        "gemm(C, A, B);\n}\n";
    static const char half[] =
        "mesh(4);\nkernel k(A: f32[8,3] layout S[(4,2,3):(1@gpuid,3,1)],\n  "
        "B: f32[4,3] layout S[(2,2,3):(2@gpuid,3,1)] + R[2:1@gpuid],\n  C: "
        "f32[4,2] layout S[(4,2):(2,1)] + R[4:1@gpuid]) grid(1) threads(1) "
        "{\n    device gemm(C, A[4:+4, 0:+3], B[2:+2, 0:+3]);\n}\n";
    static const char both[] =
        "mesh(8);\nkernel k(C: f32[8,4] layout S[(2,4,4):(4@gpuid,4,1)] + "
        "R[4:1@gpuid],\n  A: f32[4,3] layout S[(4,3):(3,1)] + 6@gpuid,\n  B: "
        "f32[4,3] layout S[(4,3):(3,1)] + 1@gpuid) grid(1) threads(1) {\n    "
        "device gemm(C[0:+4, 0:+4], A, B);\n}\n";
    static const char all[] =
        "mesh(4);\nkernel k(A: f32[4,8] layout S[(4,4,2):(2,1@gpuid,1)],\n  "
        "B: f32[4,8] layout S[(4,4,2):(2,1@gpuid,1)],\n  C: f32[4,4] layout "
        "S[(4,4):(4,1)] + R[4:1@gpuid]) grid(1) threads(1) {\n    device "
        "gemm(C, A, B);\n}\n";
    gemm_busy_row(gap, 0, "11001100");
    gemm_busy_row(one, 0, "0010");
    gemm_busy_row(half, 0, "0011");
    gemm_busy_row(both, 0, "11110000");
    gemm_busy_row(all, 0, "1111");
}

/* The replicas (r, a power of 2) of a partial sum that still compute
 * it where the local M, N and K are "a", "b", "c", each one memory run:
 * 1 where r divides one of them (split 1 to 3), else r over the most
 * of r's factors 2 that divide them, M, N and K taking some each (split
 * 4). */
static int64_t rep_dup(int64_t r, int64_t a, int64_t b, int64_t c, bool *mixed)
{
    int64_t x[3] = {a, b, c}, top = 1;
    int i;
    *mixed = false;
    if (r <= 1 || a % r == 0 || b % r == 0 || c % r == 0)
        return 1;
    for (i = 0; i < 3; i++)
        for (; x[i] % 2 == 0 && top < r; x[i] /= 2)
            top *= 2;
    *mixed = top > 1;
    return r / top;
}

static int n_gemm_split; /* of those, K split over C's replicas */
static int n_gemm_rep;   /* device gemms splitting a replicated partial */
static int n_gemm_mixed; /* of those, over prime factors (split 4) */

/* Law: no two devices compute the same partial sums. The local GEMMs'
 * multiply-adds (axe__dist_gemm_work) sum to the gemm's "total" M N K
 * once, or "dup" times where the "dup" replicas of the partial sums
 * divide none of the local M, N and K (every replica computes all). */
static void gemm_once_law(const ax_dist_gemm *g, int64_t P, int64_t total,
                          int64_t dup, const char *what)
{
    int64_t d, sum = 0;
    for (d = 0; d < P; d++)
        sum += axe__dist_gemm_work(g, d);
    TL_CHECK(sum == total * dup,
             "%s: the local GEMMs do %lld multiply-adds, the gemm %lld (%lld "
             "times)",
             what, (long long)sum, (long long)total, (long long)dup);
    n_gemm_rep += g->split > 0;
    n_gemm_mixed += g->split == 4;
}

/* The slices of K of both copies to C's placement (docs/compiler.md):
 * C's r holders of an element where r divides K and r Mloc Nloc <=
 * (Mloc + Nloc) K (the all-reduce of the partial sums moves no more
 * than the split copies save), else 1; counted from C's layout "c"
 * (region "cs" at the origin of shape "cbase"): r the holders of C's
 * [0, 0], Mloc and Nloc the rows and columns the first of them holds. */
static int64_t split_want(const axe_layout *c, const int64_t *cs,
                          const int64_t *cbase, int64_t K, int64_t *dup,
                          bool *mixed)
{
    static const int64_t origin[2] = {0, 0};
    int64_t e[2] = {0, 0}, r, d, m = 0, n = 0, i, j;
    slots sc;
    slots_at(c, e, cs, 2, cbase, origin, &sc);
    r = sc.n, d = sc.dev[0];
    for (i = 0; i < cs[0]; i++) {
        bool row = false;
        for (j = 0; j < cs[1]; j++) {
            e[0] = i, e[1] = j;
            slots_at(c, e, cs, 2, cbase, origin, &sc);
            row = row || slots_have_dev(&sc, d);
            n += i == 0 && slots_have_dev(&sc, d);
        }
        m += row;
    }
    /* n: the columns of row 0 it holds (it holds [0, 0]: a block). Where
     * K stays whole, the r replicas split M, N or K where r divides one
     * ("dup" 1), else M, N and K over r's factors 2 that divide them
     * (rep_dup, "mixed"), else each computes its whole block ("dup" r). */
    *dup = rep_dup(r, m, n, K, mixed);
    return r > 1 && K % r == 0 && r * m * n <= (m + n) * K ? r : 1;
}

/* Compiles "src" (a device gemm into C[0:+cs[0], 0:+cs[1]] of C:
 * f32[cbase] layout "lc", mesh of P) and, where both operands were
 * copied to C's placement, checks the laws below ("shape": A's and B's
 * shapes). A compile failure fails the test unless "twin" (the program
 * declaring C alone) fails too: C's layout may leave devices out. */
static void gemm_both_case(const char *src, const char *twin,
                           const axe_layout *lc, const int64_t *cbase,
                           const int64_t *cs, int64_t shape[2][2], int64_t P,
                           const char *what)
{
    axe_program *pr = NULL;
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *pl = malloc(sizeof *pl);
    const ax_stmt *st;
    axe_diag d, dt;
    int w;
    if (g == NULL || pl == NULL) {
        TL_CHECK(false, "%s: out of memory", what);
        free(g), free(pl);
        return;
    }
    if (axe_program_compile(src, strlen(src), NULL, NULL, &pr, &d) != AXE_OK) {
        axe_program *tw = NULL;
        bool twin_ok = axe_program_compile(twin, strlen(twin), NULL, NULL, &tw,
                                           &dt) == AXE_OK;
        TL_CHECK(!twin_ok, "%s: refused (%s), but C alone compiles", what,
                 d.message);
        axe_program_free(tw);
        free(g), free(pl);
        return;
    }
    st = pr->devops[0];
    TL_CHECK(axe__dist_gemm(pr, st, g, &d) == AXE_OK, "%s: %s", what,
             d.message);
    gemm_work_law(pr, st, g, P, what);
    if (g->fit == 3) {
        bool mixed;
        int64_t dup, q = split_want(lc, cs, cbase, shape[0][1], &dup, &mixed);
        n_gemm_both++;
        n_gemm_split += q > 1;
        TL_CHECK(q > 1 ? g->q == q && g->split == 0
                       : (g->split > 0) == (g->rep_r > 1 && dup < g->rep_r) &&
                             (g->split == 4) == mixed,
                 "%s: K in %lld slices, want %lld; split %d over %lld", what,
                 (long long)g->q, (long long)q, g->split, (long long)g->rep_r);
        gemm_once_law(g, P, cs[0] * cs[1] * shape[0][1], dup, what);
        for (w = 1; w <= 2; w++) {
            const ax_tensor *x = axe__devop_tensor(pr, st, w);
            both_rows(&g->moved[w - 1].glayout, shape[w - 1], lc, cs, cbase,
                      w - 1,
                      g->q > 1        ? g->q
                      : g->split == 4 ? g->split_r[w - 1] * g->split_r[2]
                      : g->split == w ? g->rep_r
                                      : 1,
                      P, what);
            TL_CHECK(axe__dist_gemm_copy_plan(pr, st, g, w, pl, &d) == AXE_OK,
                     "%s: copy plan: %s", what, d.message);
            copy_laws(pl, shape[w - 1], 2, &x->glayout,
                      &g->moved[w - 1].glayout, what);
        }
        TL_CHECK(axe__dist_plan_reduce(g->part.gshape, 3, &g->part.glayout,
                                       &axe__devop_tensor(pr, st, 0)->glayout,
                                       0, AX_RED_SUM, P, pl, &d) == AXE_OK,
                 "%s: the partial sums' reduce: %s", what, d.message);
        /* split: an all-reduce or all-gather, or an exchange where C's
         * holders are part of the mesh */
        TL_CHECK((pl->kind == AX_COLL_LOCAL) == (g->split == 0 && g->q == 1),
                 "%s: the partial sums' reduce in %lld slices is %s", what,
                 (long long)g->q, pl->explain);
    }
    axe_program_free(pr);
    free(g);
    free(pl);
}

/* A and B on one device each or on part of the mesh at a gpuid offset, C
 * a random layout of 1-8 devices, written whole or (odd cases) its upper
 * half of rows, a region that may leave devices out anywhere in the mesh
 * (compiler_dist_gemm.c): where neither operand holds a copy of the other
 * and their placements fit no local GEMM, both are copied to C's
 * placement. Laws: each copy is minimal (device d holds k's of row r
 * of A's copy exactly when it holds an element of C's row r; B's likewise
 * with C's column r: none where it holds nothing of C), K is split over
 * C's replicas exactly where split_want says (of the holders of a C
 * element, one holds each k of its rows; all of them where K is whole),
 * and the copy's plan obeys laws (1)-(3) (every holder gets the value;
 * bytes received = the layouts' minimum); the partial sums are placed as
 * C (nothing moves into C), or all-reduce into C where K is split. */
static void random_gemm_both(int t)
{
    int64_t P = (int64_t)1 << tl_range(1, 3),
            K = tl_range(1, 5) * (t % 3 == 1 ? 16 : 1);
    int64_t cs[2] = {2 * P * tl_range(1, 2), 2 * P};
    int64_t cbase[2] = {cs[0] * (t % 2 + 1), cs[1]};
    int64_t shape[2][2];
    axe_layout lc = gen_layout(cbase, 2, P, true);
    char src[2048], twin[1024], cuse[64], da[256], db[256], ua[64], ub[64],
        what[2400];
    if (t % 3 == 0) {
        /* C replicated over the mesh (r = P, m = 2 P a, n = 2 P); K = P
         * ceil(2 P a / (a + 1)) (three in four) passes the K-split rule
         * (r m n = 4 P^3 a <= (m + n) K = 2 P (a + 1) K) at the least K,
         * else K < P stays whole and M splits. */
        int64_t a = cs[0] / (2 * P);
        char cl[128];
        snprintf(cl, sizeof cl, "S[(%lld,%lld):(%lld,1)] + R[%lld:1@gpuid]",
                 (long long)cbase[0], (long long)cbase[1], (long long)cbase[1],
                 (long long)P);
        lc = lay(cl);
        K = t / 3 % 4 != 3 ? P * ((2 * P * a + a) / (a + 1))
                           : tl_range(1, P - 1);
    }
    shape[0][0] = cs[0], shape[0][1] = K, shape[1][0] = cs[1], shape[1][1] = K;
    /* C replicated: A and B on two devices (both copied to C) */
    both_operand(da, sizeof da, ua, sizeof ua, "A", cs[0], K, P,
                 t % 3 == 0 ? 0 : -1);
    both_operand(db, sizeof db, ub, sizeof ub, "B", cs[1], K, P,
                 t % 3 == 0 ? P - 1 : -1);
    if (t % 2 == 1)
        snprintf(cuse, sizeof cuse, "C[0:+%lld, 0:+%lld]", (long long)cs[0],
                 (long long)cs[1]);
    else
        snprintf(cuse, sizeof cuse, "C");
    snprintf(src, sizeof src,
             "mesh(%lld);\nkernel k(C: f32[%lld,%lld] layout %s,\n  %s,\n  "
             "%s) grid(1) threads(1) {\n    device gemm(%s, %s, %s);\n}\n",
             (long long)P, (long long)cbase[0], (long long)cbase[1],
             lay_text(&lc), da, db, cuse, ua, ub);
    snprintf(twin, sizeof twin,
             "mesh(%lld);\nkernel k(C: f32[%lld,%lld] layout %s) grid(1) "
             "threads(1) {\n}\n",
             (long long)P, (long long)cbase[0], (long long)cbase[1],
             lay_text(&lc));
    snprintf(what, sizeof what, "case %d:\n%s", t, src);
    gemm_both_case(src, twin, &lc, cbase, cs, shape, P, what);
}

static int n_rep_placed; /* random gemms whose partial, as placed,
                          * replicas split */

/* Operand "x" of a random replicated gemm: its rows "loc" in memory
 * after the digits of role "mine" (outer first), K "ka" in memory after
 * those of role 0, replicated over those of role "other" and 3; stored
 * row-major, or column-major where "col". */
static axe_layout rep_operand(const int *role, int np, int mine, int other,
                              int64_t loc, int64_t ka, bool col)
{
    axe_layout l;
    int i;
    axe_layout_init(&l);
    for (i = np - 1; i >= 0; i--)
        if (role[i] == mine)
            push(&l, 2, (int64_t)1 << i, "gpuid");
    push(&l, loc, col ? 1 : ka, "m");
    for (i = np - 1; i >= 0; i--)
        if (role[i] == 0)
            push(&l, 2, (int64_t)1 << i, "gpuid");
    push(&l, ka, col ? loc : 1, "m");
    for (i = np - 1; i >= 0; i--)
        if ((role[i] == other || role[i] == 3) &&
            axe_layout_push_replica(&l, 2, (int64_t)1 << i, "gpuid") != AXE_OK)
            exit(2);
    return l;
}

/* A and B fit a local GEMM as placed: each gpuid digit (2:1, 2:2, 2:4 of
 * a mesh of 2 to 8) a digit of K in both, of A's rows and a replica of
 * B, of B's rows and a replica of A, or (one in two) a replica of both;
 * local extents from {1, 2, 3, 4, 6, 8}; C a random layout. Laws: no
 * copy to fit; the work law; where A and B both replicate digits of
 * product r > 1, the replicas split M, N or K exactly where r divides
 * the local M, N or K, and then no two devices compute the same partial
 * sums (gemm_once_law), else each computes all of its block. */
static void random_gemm_rep(int t)
{
    static const int64_t ext[6] = {1, 2, 3, 4, 6, 8};
    int np = (int)tl_range(1, 3), role[3], i, w;
    int64_t P = (int64_t)1 << np, r = 1, sz[3], M, N, K, cs[2];
    axe_layout la, lb, lc;
    char src[2048], twin[1024];
    axe_program *pr = NULL;
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *pl = malloc(sizeof *pl);
    axe_diag d;
    for (i = 0; i < 3; i++)
        sz[i] = ext[tl_range(0, 5)];
    M = sz[0], N = sz[1], K = sz[2];
    for (i = 0; i < np; i++) {
        role[i] = (int)tl_range(0, 5);
        role[i] = role[i] > 3 ? 3 : role[i];
        r *= role[i] == 3 ? 2 : 1;
        M *= role[i] == 1 ? 2 : 1;
        N *= role[i] == 2 ? 2 : 1;
        K *= role[i] == 0 ? 2 : 1;
    }
    la = rep_operand(role, np, 1, 2, sz[0], sz[2], t % 2 == 1);
    lb = rep_operand(role, np, 2, 1, sz[1], sz[2], t % 4 == 2);
    cs[0] = M, cs[1] = N;
    lc = gen_layout(cs, 2, P, true);
    snprintf(src, sizeof src,
             "mesh(%lld);\nkernel k(C: f32[%lld,%lld] layout %s,\n  A: "
             "f32[%lld,%lld] layout %s,\n  B: f32[%lld,%lld] layout %s) "
             "grid(1) threads(1) {\n    device gemm(C, A, B);\n}\n",
             (long long)P, (long long)M, (long long)N, lay_text(&lc),
             (long long)M, (long long)K, lay_text(&la), (long long)N,
             (long long)K, lay_text(&lb));
    snprintf(twin, sizeof twin,
             "mesh(%lld);\nkernel k(C: f32[%lld,%lld] layout %s) grid(1) "
             "threads(1) {\n}\n",
             (long long)P, (long long)M, (long long)N, lay_text(&lc));
    if (g == NULL || pl == NULL ||
        axe_program_compile(src, strlen(src), NULL, NULL, &pr, &d) != AXE_OK) {
        axe_program *tw = NULL;
        TL_CHECK(g == NULL || pl == NULL ||
                     axe_program_compile(twin, strlen(twin), NULL, NULL, &tw,
                                         &d) != AXE_OK,
                 "%s: refused, but C alone compiles", src);
        axe_program_free(tw);
    } else if (axe__dist_gemm(pr, pr->devops[0], g, &d) != AXE_OK)
        TL_CHECK(false, "%s: %s", src, d.message);
    else {
        bool mixed;
        int64_t dup = rep_dup(r, sz[0], sz[1], sz[2], &mixed);
        TL_CHECK(g->fit == 0 && (g->split > 0) == (r > 1 && dup < r) &&
                     (g->split == 4) == mixed,
                 "%s: copies to fit %d, split %d (replicas %lld)", src, g->fit,
                 g->split, (long long)r);
        gemm_work_law(pr, pr->devops[0], g, P, src);
        gemm_once_law(g, P, M * N * K, dup, src);
        n_rep_placed += g->split > 0;
        for (w = 1; w <= 2; w++)
            if (g->copied & w) {
                const ax_tensor *x = axe__devop_tensor(pr, pr->devops[0], w);
                TL_CHECK(axe__dist_gemm_copy_plan(pr, pr->devops[0], g, w, pl,
                                                  &d) == AXE_OK,
                         "%s: copy plan: %s", src, d.message);
                copy_laws(pl, x->gshape, 2, &x->glayout,
                          &g->moved[w - 1].glayout, src);
            }
    }
    axe_program_free(pr);
    free(g);
    free(pl);
}

/* C's upper rows on devices 0, 1, 4, 5 of 8 (a gap at gpuid digit 2):
 * A's and B's copies go there only, not to all 8 devices. */
static void gemm_both_gap(void)
{
    static const char src[] =
        "mesh(8);\nkernel k(C: f32[4,4] layout "
        "S[(2,2,2,2):(2@gpuid,1@gpuid,4@gpuid,1)],\n  A: f32[2,3] layout "
        "S[(2,3):(3,1)] + 3@gpuid,\n  B: f32[4,3] layout S[(4,3):(3,1)] + "
        "7@gpuid) grid(1) threads(1) {\n    device gemm(C[0:+2, 0:+4], A, "
        "B);\n}\n";
    static const char twin[] =
        "mesh(8);\nkernel k(C: f32[4,4] layout "
        "S[(2,2,2,2):(2@gpuid,1@gpuid,4@gpuid,1)]) grid(1) threads(1) {\n}\n";
    axe_layout lc = lay("S[(2,2,2,2):(2@gpuid,1@gpuid,4@gpuid,1)]");
    int64_t cbase[2] = {4, 4}, cs[2] = {2, 4};
    int64_t shape[2][2] = {{2, 3}, {4, 3}};
    int before = n_gemm_both;
    gemm_both_case(src, twin, &lc, cbase, cs, shape, 8, src);
    TL_CHECK(n_gemm_both == before + 1, "C with a gap: both not copied");
}

/* A on device 0, B on device 3, C replicated over the 4 devices: with K
 * = 64 (4 * 4 * 4 <= (4 + 4) * 64) both copies split K over C's
 * replicas and the partial sums all-reduce; with K = 2 (64 > 16) K stays
 * whole, and the 4 replicas split M instead (A's rows one to a device,
 * B whole): a device receives at most 2 elements of A's copy, 8 of B's
 * and 12 in the all-gather, 22 as splitting N would; 4 does not divide
 * K = 2. The copies' layouts and the counts written by hand. */
static void gemm_split_rows(void)
{
    static const char *const src[2] = {
        "mesh(4);\nkernel k(A: f32[4,64] layout S[(4,64):(64,1)] + 0@gpuid,\n"
        "  B: f32[4,64] layout S[(4,64):(64,1)] + 3@gpuid,\n  C: f32[4,4] "
        "layout S[(4,4):(4,1)] + R[4:1@gpuid]) grid(1) threads(1) {\n    "
        "device gemm(C, A, B);\n}\n",
        "mesh(4);\nkernel k(A: f32[4,2] layout S[(4,2):(2,1)] + 0@gpuid,\n  "
        "B: f32[4,2] layout S[(4,2):(2,1)] + 3@gpuid,\n  C: f32[4,4] layout "
        "S[(4,4):(4,1)] + R[4:1@gpuid]) grid(1) threads(1) {\n    device "
        "gemm(C, A, B);\n}\n"};
    static const char *const want[2][2] = {
        {"S[(4,4,16):(16,1@gpuid,1)]", "S[(4,4,16):(16,1@gpuid,1)]"},
        {"S[(4,2):(1@gpuid,1)]", "S[(4,2):(2,1)] + R[4:1@gpuid]"}};
    static const int64_t q[2] = {4, 1},
                         cost[2][3] = {{-1, -1, -1}, {22, 22, -1}};
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d = {0, {0}};
    char got[2][256];
    int i, w;
    for (i = 0; i < 2 && g != NULL; i++) {
        axe_program *pr = NULL;
        bool ok = axe_program_compile(src[i], strlen(src[i]), NULL, NULL, &pr,
                                      &d) == AXE_OK &&
                  axe__dist_gemm(pr, pr->devops[0], g, &d) == AXE_OK &&
                  g->copied == 3;
        for (w = 0; w < 2; w++)
            if (!ok || axe_print_layout(&g->moved[w].glayout, got[w],
                                        sizeof got[w]) >= sizeof got[w])
                strcpy(got[w], "?");
        TL_CHECK(ok && g->q == q[i] && strcmp(got[0], want[i][0]) == 0 &&
                     strcmp(got[1], want[i][1]) == 0 &&
                     memcmp(g->cost, cost[i], sizeof cost[i]) == 0,
                 "%s\nK in %lld slices (want %lld), copies %s and %s (want "
                 "%s and %s), costs %lld %lld %lld: %s",
                 src[i], ok ? (long long)g->q : -1LL, (long long)q[i], got[0],
                 got[1], want[i][0], want[i][1], (long long)g->cost[0],
                 (long long)g->cost[1], (long long)g->cost[2], d.message);
        if (ok) {
            gemm_work_law(pr, pr->devops[0], g, 4, src[i]);
            gemm_once_law(g, 4, 4 * 4 * (i == 0 ? 64 : 2), 1, src[i]);
        }
        axe_program_free(pr);
    }
    free(g);
}

/* gemm_split_k.axe's third gemm at P = 8: A [4,2] on device 1, B [4,2]
 * on device 0, C replicated over the 8 devices. K = 2 stays whole, and 8
 * divides none of M = 4, N = 4, K = 2: the replicas' factors split M
 * over 4 and N over 2 (split 4), so each product is computed once (was:
 * every device computed all of C). With M = N = 2, K = 3 only 4 of the 8
 * divide (M and N over 2 each): each product on 2 devices (was 8).
 * mesh(6), M = 3, N = 2, K = 1: only M taking the innermost factors (2:1,
 * then 3:2) is tried, so N over 2:1 (each product on 3 devices), not M
 * over 3:2 and N over 2:1 (docs/compiler.md: the restriction). */
static void gemm_split_mixed(void)
{
    static const char *const src[3] = {
        "mesh(8);\nkernel k(A: f32[4,2] layout S[(4,2):(2,1)] + 1@gpuid,\n"
        "  B: f32[4,2] layout S[(4,2):(2,1)] + 0@gpuid,\n  C: f32[4,4] "
        "layout S[(4,4):(4,1)] + R[8:1@gpuid]) grid(1) threads(1) {\n    "
        "device gemm(C, A, B);\n}\n",
        "mesh(8);\nkernel k(A: f32[2,3] layout S[(2,3):(3,1)] + 1@gpuid,\n"
        "  B: f32[2,3] layout S[(2,3):(3,1)] + 0@gpuid,\n  C: f32[2,2] "
        "layout S[(2,2):(2,1)] + R[8:1@gpuid]) grid(1) threads(1) {\n    "
        "device gemm(C, A, B);\n}\n",
        "mesh(6);\nkernel k(A: f32[3,1] layout S[(3,1):(1,1)] + 1@gpuid,\n"
        "  B: f32[2,1] layout S[(2,1):(1,1)] + 0@gpuid,\n  C: f32[3,2] "
        "layout S[(3,2):(2,1)] + R[6:1@gpuid]) grid(1) threads(1) {\n    "
        "device gemm(C, A, B);\n}\n"};
    static const int64_t want[3][3] = {{4, 2, 1}, {2, 2, 1}, {1, 2, 1}},
                         total[3] = {32, 12, 6}, dup[3] = {1, 2, 3},
                         rep[3] = {8, 8, 6};
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d = {0, {0}};
    int i;
    for (i = 0; i < 3 && g != NULL; i++) {
        axe_program *pr = NULL;
        bool ok = axe_program_compile(src[i], strlen(src[i]), NULL, NULL, &pr,
                                      &d) == AXE_OK &&
                  axe__dist_gemm(pr, pr->devops[0], g, &d) == AXE_OK;
        TL_CHECK(ok && g->split == 4 && g->rep_r == rep[i] &&
                     memcmp(g->split_r, want[i], sizeof want[i]) == 0,
                 "%s\nsplit %d over %lld: M %lld, N %lld, K %lld (want 4: "
                 "%lld, %lld, %lld): %s",
                 src[i], ok ? g->split : -1, ok ? (long long)g->rep_r : -1LL,
                 ok ? (long long)g->split_r[0] : -1LL,
                 ok ? (long long)g->split_r[1] : -1LL,
                 ok ? (long long)g->split_r[2] : -1LL, (long long)want[i][0],
                 (long long)want[i][1], (long long)want[i][2], d.message);
        if (ok) {
            gemm_work_law(pr, pr->devops[0], g, rep[i], src[i]);
            gemm_once_law(g, rep[i], total[i], dup[i], src[i]);
        }
        axe_program_free(pr);
    }
    free(g);
}

/* A and B on single devices, C's columns on 9 gpuid digits of 1024 that
 * do not merge: A's copy to C's placement needs 9 replica iters. The
 * refusal is the copy's capacity, said first, then why as placed fails
 * (was: the as-placed message under AXE_ERR_CAPACITY). */
static void gemm_copy_capacity(void)
{
    static const char src[] =
        "mesh(1024);\nkernel k(C: f32[2,512] layout "
        "S[(2,2,2,2,2,2,2,2,2,2):(512@gpuid,1@gpuid,2@gpuid,4@gpuid,8@gpuid,"
        "16@gpuid,32@gpuid,64@gpuid,128@gpuid,256@gpuid)],\n  A: f32[2,3] "
        "layout S[(2,3):(3,1)] + 3@gpuid,\n  B: f32[512,3] layout "
        "S[(512,3):(3,1)] + 7@gpuid) grid(1) threads(1) {\n    device "
        "gemm(C, A, B);\n}\n";
    axe_program *pr = NULL;
    axe_diag d = {0, {0}};
    axe_status st =
        axe_program_compile(src, sizeof src - 1, NULL, NULL, &pr, &d);
    TL_CHECK(st == AXE_ERR_CAPACITY &&
                 strstr(d.message,
                        "device gemm (line 5): the copy of 'A' to C's "
                        "placement needs more than 32 shard or 8 replica "
                        "iters; as placed: 'A' lives on device 3 only") ==
                     d.message,
             "copy over capacity: %d %s", (int)st, d.message);
    axe_program_free(pr);
}

/* Where A and B live, as the refusal of A and B as placed says it (the
 * words --explain uses too): a region at a gpuid offset, a tensor on the
 * mesh from device 0 (A is then copied to fit B); a region at offset 0
 * on devices 0-1 of 8, not the whole mesh, beside one on devices 2-3 (B
 * is then copied to fit A). */
static void gemm_where_words(void)
{
    static const char src[] =
        "mesh(4);\nkernel k(C: f32[4,8] layout S[(4,8):(8,1)] + "
        "R[4:1@gpuid],\n  A: f32[8,4] layout S[(4,2,4):(1@gpuid,4,1)],\n  B: "
        "f32[8,4] layout S[(4,2,4):(1@gpuid,4,1)]) grid(1) threads(1) {\n    "
        "device gemm(C, A[4:+4, 0:+4], B);\n}\n";
    static const char part[] =
        "mesh(8);\nkernel k(C: f32[4,4] layout S[(4,4):(4,1)] + "
        "R[8:1@gpuid],\n  A: f32[16,4] layout S[(8,2,4):(1@gpuid,4,1)],\n  "
        "B: f32[16,4] layout S[(8,2,4):(1@gpuid,4,1)]) grid(1) threads(1) "
        "{\n    device gemm(C, A[0:+4, 0:+4], B[4:+4, 0:+4]);\n}\n";
    axe_program *pr = NULL;
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d = {0, {0}};
    TL_CHECK(g != NULL &&
                 axe_program_compile(src, sizeof src - 1, NULL, NULL, &pr,
                                     &d) == AXE_OK &&
                 axe__dist_gemm(pr, pr->devops[0], g, &d) == AXE_OK &&
                 g->copied == 1 &&
                 strcmp(g->why.message,
                        "'A[4:8, 0:4]' lives on part of "
                        "the mesh from device 2 (a gpuid offset), 'B' on the "
                        "mesh from device 0: the local GEMMs need A's and B's "
                        "parts on the same devices (device copy one to the "
                        "other's devices first)") == 0,
             "where A and B live: %s / %s", d.message,
             g != NULL ? g->why.message : "");
    axe_program_free(pr);
    pr = NULL;
    TL_CHECK(g != NULL &&
                 axe_program_compile(part, sizeof part - 1, NULL, NULL, &pr,
                                     &d) == AXE_OK &&
                 axe__dist_gemm(pr, pr->devops[0], g, &d) == AXE_OK &&
                 g->copied == 2 &&
                 strcmp(g->why.message,
                        "'A[0:4, 0:4]' lives on part of the mesh from device "
                        "0, 'B[4:8, 0:4]' on part of the mesh from device 2 "
                        "(a gpuid offset): the local GEMMs need A's and B's "
                        "parts on the same devices (device copy one to the "
                        "other's devices first)") == 0,
             "where A and B live (A on devices 0-1 of 8): %s / %s", d.message,
             g != NULL ? g->why.message : "");
    axe_program_free(pr);
    free(g);
}

/* Whether two plans of one device gemm agree: its sizes, copies, split
 * and reason. */
static bool same_gemm(const ax_dist_gemm *a, const ax_dist_gemm *b)
{
    return a->q == b->q && a->mloc == b->mloc && a->nloc == b->nloc &&
           a->kloc == b->kloc && a->copied == b->copied && a->fit == b->fit &&
           a->split == b->split && strcmp(a->why.message, b->why.message) == 0;
}

/* The plan kept per statement (axe__dist_gemm): a second call gives the
 * same plan and diag as a statement planned afresh (a copy of it, which
 * is not the program's operator and so is never kept); a copy with A
 * and B swapped gets its own plan, not the original's; and a plan made
 * before sema (the operands not yet resolved: whole A and B) is dropped
 * by sema. */
static void gemm_memo(void)
{
    static const char src[] =
        "mesh(8);\nkernel k(C: f32[4,4] layout S[(4,4):(4,1)] + "
        "R[8:1@gpuid],\n  A: f32[16,4] layout S[(8,2,4):(1@gpuid,4,1)],\n  "
        "B: f32[16,4] layout S[(8,2,4):(1@gpuid,4,1)]) grid(1) threads(1) "
        "{\n    device gemm(C, A[0:+4, 0:+4], B[4:+4, 0:+4]);\n}\n";
    axe_program *pr = NULL;
    ax_dist_gemm *g = malloc(4 * sizeof *g);
    axe_diag d[3] = {{0, {0}}, {0, {0}}, {0, {0}}};
    ax_stmt each;
    if (g == NULL ||
        axe__program_new(src, sizeof src - 1, NULL, NULL, &pr) != AXE_OK ||
        axe__program_parse(pr, &d[0]) != AXE_OK) {
        TL_CHECK(false, "memo: %s", d[0].message);
        axe_program_free(pr);
        free(g);
        return;
    }
    if (axe__dist_gemm(pr, pr->devops[0], &g[0], &d[0]) != AXE_OK)
        axe_diag_clear(&d[0]); /* before sema: any plan or refusal */
    TL_CHECK(axe__program_check(pr, &d[0]) == AXE_OK, "memo: %s", d[0].message);
    each = *pr->devops[0];
    TL_CHECK(axe__dist_gemm(pr, pr->devops[0], &g[0], &d[0]) == AXE_OK &&
                 axe__dist_gemm(pr, pr->devops[0], &g[1], &d[1]) == AXE_OK &&
                 axe__dist_gemm(pr, &each, &g[2], &d[2]) == AXE_OK &&
                 same_gemm(&g[0], &g[1]) && same_gemm(&g[0], &g[2]) &&
                 g[0].copied == 2 && strcmp(d[0].message, d[1].message) == 0 &&
                 strcmp(d[0].message, d[2].message) == 0,
             "memo: kept %d / again %d / afresh %d copies; diags '%s' / '%s' "
             "/ '%s'",
             g[0].copied, g[1].copied, g[2].copied, d[0].message, d[1].message,
             d[2].message);
    each.args[1] = pr->devops[0]->args[2];
    each.args[2] = pr->devops[0]->args[1];
    each.dop[1] = pr->devops[0]->dop[2];
    each.dop[2] = pr->devops[0]->dop[1];
    each.dtext[1] = pr->devops[0]->dtext[2];
    each.dtext[2] = pr->devops[0]->dtext[1];
    TL_CHECK(axe__dist_gemm(pr, &each, &g[3], &d[2]) == AXE_OK &&
                 strncmp(g[3].why.message, "'B[4:8, 0:4]' lives", 19) == 0,
             "memo: A and B swapped in a copy: '%s'", g[3].why.message);
    axe_program_free(pr);
    free(g);
}

int main(void)
{
    int t, n;
    tl_seed("test_compiler_dist", 14);
    for (t = 0; t < 300; t++)
        random_copy(t, t % 2 == 1);
    for (t = 0; t < 200; t++)
        random_reduce(t, t % 2 == 1);
    TL_CHECK(n_tabled >= 200, "only %d random pairs were planned with tables",
             n_tabled);
    for (t = 0; t < 300; t++) {
        random_region_copy(t);
        random_region_reduce(t);
    }
    /* Every slice of a one-to-one layout is one-to-one: each region pair
     * with layouts is planned (the planner's one-to-one test of a local
     * buffer is exact: enumerated where the strides overlap). */
    TL_CHECK(n_regions == n_region_cases && n_regions >= 400,
             "%d of %d random region pairs with layouts planned", n_regions,
             n_region_cases);
    mem_enum_rows();
    digits_injective_rows();
    for (t = 0, n = 0; t < 300; t++)
        n += random_mem_enum(t);
    TL_CHECK(n >= 100 && n < 300, "%d of 300 random strides one-to-one", n);
    tabled_shape();
    for (t = 0; t < 20; t++) {
        standard_kinds();
        group_kinds();
    }
    table_rows();
    refusal_rows();
    gemm_both_gap();
    gemm_copy_capacity();
    gemm_where_words();
    gemm_memo();
    gemm_busy_rows();
    gemm_split_rows();
    gemm_split_mixed();
    n_gemm_idle = 0;
    for (t = 0; t < 300; t++)
        random_gemm_both(t);
    TL_CHECK(n_gemm_both >= 40, "only %d random device gemms copied both",
             n_gemm_both);
    TL_CHECK(n_gemm_idle >= 40,
             "only %d random device gemms left a device without work",
             n_gemm_idle);
    TL_CHECK(n_gemm_split >= 50,
             "only %d random device gemms split K over C's replicas",
             n_gemm_split);
    for (t = 0; t < 300; t++)
        random_gemm_rep(t);
    TL_CHECK(n_rep_placed >= 50,
             "only %d random device gemms split replicated partial sums as "
             "placed",
             n_rep_placed);
    TL_CHECK(n_gemm_rep >= 80,
             "only %d random device gemms split replicated partial sums",
             n_gemm_rep);
    TL_CHECK(n_gemm_mixed >= 5,
             "only %d device gemms split M, N and K over factors of the "
             "replicas",
             n_gemm_mixed);
    return tl_finish();
}
