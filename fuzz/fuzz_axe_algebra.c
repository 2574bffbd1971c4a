/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the Axe layout algebra (axe/layout.h). Operands
 * come from the bytes: either NUL-separated texts `A \0 B [\0 P]` (A, B in
 * the Axe notation; P integer lists "[a shape] [b shape] [begin] [end]"
 * and the word "cuda" for the CUDA target), or, when there is no NUL, a
 * byte-driven generator of small layouts over 1 to 3 dims (shard iters
 * per dim on memory, thread and device axes, replicas, offsets, now and
 * then a swizzle). canonicalize, normalize, equivalent, group, tile,
 * is_tile_inner/outer, slice, direct_sum and its recoveries, apply_base,
 * apply_set and backward run on them. A non-OK status is always fine; an
 * OK result must satisfy its defining law, checked by evaluating both
 * sides with an independent brute force of L(x) = { D(x) + r + O } (the
 * swizzle applied to m) on every index of domains of at most DOMAIN_MAX
 * points. Laws that rename axes (the CUDA target) are checked
 * structurally (idempotence, re-tiling). A violation prints the law, the
 * operands and the result to stderr and traps. Invariant: no law is
 * checked that the header of the operation does not state.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/notation.h"

#define DOMAIN_MAX 4096
#define PTS_MAX 64 /* replica combinations of one index */
#define NAX 16     /* distinct axes of one input */
#define MAXD AXE_LAYOUT_MAX_DIMS
#define TEXT_MAX 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The operands of one input: layouts "a" and "b" over shapes "as" and "bs"
 * of "n" dims, a region [begin, end) of "as", the target for the runs
 * whose results are compared structurally. */
typedef struct operands {
    axe_layout a, b;
    int n;
    int64_t as[MAXD], bs[MAXD];
    int64_t begin[MAXD], end[MAXD];
    axe_target target;
} operands;

static const operands *cur;

/* ---- reporting ----------------------------------------------------------- */

static const char *lstr(const axe_layout *l)
{
    static char buf[4][TEXT_MAX];
    static int k;
    k = (k + 1) % 4;
    if (l == NULL)
        return "-";
    axe_print_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

static const char *vstr(const int64_t *v, int n)
{
    static char buf[4][256];
    static int k;
    size_t len = 0;
    k = (k + 1) % 4;
    buf[k][0] = '\0';
    for (int d = 0; d < n && len + 24 < sizeof buf[k]; d++)
        len += (size_t)snprintf(buf[k] + len, sizeof buf[k] - len, "%s%" PRId64,
                                d ? "," : "[", v[d]);
    snprintf(buf[k] + len, sizeof buf[k] - len, n > 0 ? "]" : "[]");
    return buf[k];
}

/* Report the violated "law" with the operands and the result "r". */
static void violated(const char *law, const axe_layout *r)
{
    fprintf(stderr,
            "fuzz_axe_algebra: law violated: %s\n  a = %s over %s\n"
            "  b = %s over %s\n  region = %s .. %s, target %s\n"
            "  result = %s\n",
            law, lstr(&cur->a), vstr(cur->as, cur->n), lstr(&cur->b),
            vstr(cur->bs, cur->n), vstr(cur->begin, cur->n),
            vstr(cur->end, cur->n),
            cur->target == AXE_TARGET_CUDA ? "cuda" : "none", lstr(r));
    __builtin_trap();
}

#define LAW(cond, law, r)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            violated(law, r);                                                  \
    } while (0)

/* ---- the brute force: L(x) as a sorted multiset of points --------------- */

/* A point over the axes of the input (axis k is names[k]). */
typedef struct bpt {
    int64_t v[NAX];
} bpt;

static char names[NAX][AXE_AXIS_NAME_MAX];
static int nnames;

static bool name_eq(const char *x, const char *y)
{
    uint64_t a[2], b[2];
    memcpy(a, x, sizeof a);
    memcpy(b, y, sizeof b);
    return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

/* The axis a padded name denotes: the paper's lane and warp are TIRx's
 * laneid and warpid (axis.h). */
static const char *spelled(const char *axis)
{
    static const char laneid[AXE_AXIS_NAME_MAX] = "laneid",
                      warpid[AXE_AXIS_NAME_MAX] = "warpid";
    if (strcmp(axis, "lane") == 0)
        return laneid;
    return strcmp(axis, "warp") == 0 ? warpid : axis;
}

/* The index of "axis" (a padded name), added if new; -1 when full. */
static int axis_id(const char *axis)
{
    axis = spelled(axis);
    for (int i = 0; i < nnames; i++)
        if (name_eq(names[i], axis))
            return i;
    if (nnames == NAX)
        return -1;
    memcpy(names[nnames], axis, AXE_AXIS_NAME_MAX);
    return nnames++;
}

static bool add_on(bpt *p, const char *axis, int64_t v)
{
    int k = axis_id(axis);
    return k >= 0 && !__builtin_add_overflow(p->v[k], v, &p->v[k]);
}

static const char name_m[AXE_AXIS_NAME_MAX] = "m";

static bool is_m(const char *axis) { return name_eq(axis, name_m); }

/* Size of "l"; false above "max" or on overflow. */
static bool lsize(const axe_layout *l, int64_t max, int64_t *size)
{
    int64_t s = 1;
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent < 1 ||
            __builtin_mul_overflow(s, l->shard[k].extent, &s) || s > max)
            return false;
    *size = s;
    return true;
}

static bool prod(const int64_t *v, int n, int64_t max, int64_t *out)
{
    int64_t p = 1;
    for (int d = 0; d < n; d++)
        if (v[d] < 1 || __builtin_mul_overflow(p, v[d], &p) || p > max)
            return false;
    *out = p;
    return true;
}

/* Order of points (axes past nnames are 0 in every point). */
static int bpt_cmp(const void *x, const void *y)
{
    const bpt *a = x, *b = y;
    for (int i = 0; i < nnames; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

/* Sort p[0 .. n) by bpt_cmp (insertion sort: n is small, and qsort's
 * merge sort allocates). */
static void sort_pts(bpt *p, int n)
{
    for (int i = 1; i < n; i++) {
        bpt t = p[i];
        int j = i;
        for (; j > 0 && bpt_cmp(&p[j - 1], &t) > 0; j--)
            p[j] = p[j - 1];
        p[j] = t;
    }
}

/* The swizzle address of spec §11 (valid parameters only). */
static bool swz_addr(const axe_layout_swizzle *sw, int64_t m, int64_t *out)
{
    int64_t unit, q, r, mask, f;
    if (!sw->present || sw->len == 0) {
        *out = m;
        return true;
    }
    if (sw->per_element < 0 || sw->len < 0 || sw->atom < sw->len ||
        sw->per_element > 62 || sw->atom + sw->len > 62)
        return false;
    unit = (int64_t)1 << sw->per_element;
    q = m / unit - (m % unit < 0);
    r = m - q * unit;
    mask = ((int64_t)1 << sw->len) - 1;
    f = sw->inner ? q ^ ((q & (mask << sw->atom)) >> sw->atom)
                  : q ^ ((q & mask) << sw->atom);
    return !__builtin_mul_overflow(f, unit, &f) &&
           !__builtin_add_overflow(f, r, out);
}

/* A layout ready for evaluation: the axis index of every shard iter, the
 * offset O and the points O + r for every replica combination r ("rest",
 * sorted: L(x) = D(x) + rest is then sorted too, translation keeping the
 * order, unless a swizzle follows). "ok" false when it cannot be
 * evaluated (too many axes or points, an extent < 1, an overflow, a
 * swizzled layout naming an axis other than m: the library asks a
 * swizzled point to lie on m only). */
typedef struct lay {
    const axe_layout *l;
    int sid[AXE_LAYOUT_MAX_SHARD];
    int64_t combos;
    int km;
    bool ok;
    bpt off;
    bpt rest[PTS_MAX];
} lay;

/* The replica points O + r into p->rest; false on overflow. */
static bool prep_rest(lay *p, const int *rid)
{
    const axe_layout *l = p->l;
    for (int64_t r = 0; r < p->combos; r++) {
        bpt q = p->off;
        int64_t j = r, t;
        for (int k = l->nreplica - 1; k >= 0; k--) {
            int64_t e = l->replica[k].extent;
            if (__builtin_mul_overflow(j % e, l->replica[k].stride, &t) ||
                __builtin_add_overflow(q.v[rid[k]], t, &q.v[rid[k]]))
                return false;
            j /= e;
        }
        p->rest[r] = q;
    }
    if (!l->swizzle.present)
        sort_pts(p->rest, (int)p->combos);
    return true;
}

static bool prep(const axe_layout *l, lay *p)
{
    int rid[AXE_LAYOUT_MAX_REPLICA];
    bool m_only = true;
    p->l = l;
    p->combos = 1;
    p->ok = false;
    memset(&p->off, 0, sizeof p->off);
    if (l->nshard > AXE_LAYOUT_MAX_SHARD ||
        l->nreplica > AXE_LAYOUT_MAX_REPLICA ||
        l->noffset > AXE_LAYOUT_MAX_OFFSET)
        return false;
    for (int k = 0; k < l->nshard; k++) {
        p->sid[k] = axis_id(l->shard[k].axis);
        m_only = m_only && is_m(l->shard[k].axis);
        if (p->sid[k] < 0 || l->shard[k].extent < 1)
            return false;
    }
    for (int k = 0; k < l->nreplica; k++) {
        rid[k] = axis_id(l->replica[k].axis);
        m_only = m_only && is_m(l->replica[k].axis);
        if (rid[k] < 0 || l->replica[k].extent < 1 ||
            __builtin_mul_overflow(p->combos, l->replica[k].extent,
                                   &p->combos) ||
            p->combos > PTS_MAX)
            return false;
    }
    for (int i = 0; i < l->noffset; i++) {
        int a = axis_id(l->offset[i].axis);
        m_only = m_only && is_m(l->offset[i].axis);
        if (a < 0 || __builtin_add_overflow(p->off.v[a], l->offset[i].value,
                                            &p->off.v[a]))
            return false;
    }
    p->km = axis_id(name_m);
    p->ok = p->km >= 0 && (!l->swizzle.present || m_only) && prep_rest(p, rid);
    return p->ok;
}

/* D(x) of "p" for 0 <= x (digits lexicographic, last iter fastest, the
 * outermost taking what is left); false on overflow. */
static bool bf_shard(const lay *p, int64_t x, bpt *d)
{
    const axe_layout *l = p->l;
    memset(d, 0, sizeof *d);
    for (int k = l->nshard - 1; k >= 0; k--) {
        int64_t e = l->shard[k].extent, c = k > 0 ? x % e : x, t;
        x /= e;
        if (__builtin_mul_overflow(c, l->shard[k].stride, &t) ||
            __builtin_add_overflow(d->v[p->sid[k]], t, &d->v[p->sid[k]]))
            return false;
    }
    return true;
}

/* The multiset { d + r + O : r in R } of "p" (with "reps", else the
 * point d + O) with the swizzle applied, sorted, into out[0 .. *n); false
 * on overflow. */
static bool bf_rest(const lay *p, bool reps, const bpt *d, bpt *out, int *n)
{
    const axe_layout *l = p->l;
    const bpt *src = reps ? p->rest : &p->off;
    int k = reps ? (int)p->combos : 1;
    for (int r = 0; r < k; r++) {
        for (int i = 0; i < nnames; i++)
            if (__builtin_add_overflow(d->v[i], src[r].v[i], &out[r].v[i]))
                return false;
        for (int i = nnames; i < NAX; i++)
            out[r].v[i] = 0;
        if (l->swizzle.present &&
            !swz_addr(&l->swizzle, out[r].v[p->km], &out[r].v[p->km]))
            return false;
    }
    if (l->swizzle.present)
        sort_pts(out, k);
    *n = k;
    return true;
}

/* The multiset L(x) of "p", sorted; false when it cannot be evaluated. */
static bool bf_set(const lay *p, int64_t x, bpt *out, int *n)
{
    bpt d;
    return p->ok && bf_shard(p, x, &d) && bf_rest(p, true, &d, out, n);
}

/* The base point D(x) + O of "p", swizzled (no replica). */
static bool bf_base(const lay *p, int64_t x, bpt *out)
{
    bpt d;
    int n;
    return p->ok && bf_shard(p, x, &d) && bf_rest(p, false, &d, out, &n);
}

static bool same_set(const bpt *a, int na, const bpt *b, int nb)
{
    return na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0;
}

/* The distinct points of sorted p[0 .. n), in place; their number. */
static int distinct(bpt *p, int n)
{
    int u = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || bpt_cmp(&p[i], &p[i - 1]) != 0)
            p[u++] = p[i];
    return u;
}

/* Unswizzled "p" and "q" with equal O + R: then L_p(x) == L_q(x) exactly
 * when D_p(x) == D_q(x) (a finite set is no translate of itself). */
static bool same_rest(const lay *p, const lay *q)
{
    return !p->l->swizzle.present && !q->l->swizzle.present &&
           p->combos == q->combos &&
           memcmp(p->rest, q->rest, (size_t)p->combos * sizeof p->rest[0]) == 0;
}

/* "l" and "r" have one size and L_l(x) == L_r(x) as multisets wherever
 * both evaluate (as sets when "sets"), on the first DOMAIN_MAX indices. */
static bool bf_same(const axe_layout *l, const axe_layout *r, bool sets)
{
    static bpt p[PTS_MAX], q[PTS_MAX];
    static lay pl, pr;
    int64_t sl, sr;
    bool fast;
    if (!lsize(l, INT64_MAX, &sl) || !lsize(r, INT64_MAX, &sr))
        return true;
    if (sl != sr)
        return false;
    if (!prep(l, &pl) || !prep(r, &pr))
        return true;
    fast = same_rest(&pl, &pr);
    for (int64_t x = 0; x < sl && x < DOMAIN_MAX; x++) {
        if (fast) {
            if (bf_shard(&pl, x, &p[0]) && bf_shard(&pr, x, &q[0]) &&
                bpt_cmp(&p[0], &q[0]) != 0)
                return false;
            continue;
        }
        int np, nq;
        if (!bf_set(&pl, x, p, &np) || !bf_set(&pr, x, q, &nq))
            continue;
        if (sets) {
            np = distinct(p, np);
            nq = distinct(q, nq);
        }
        if (!same_set(p, np, q, nq))
            return false;
    }
    return true;
}

/* A library point as a bpt; false if an axis does not fit. */
static bool from_point(const axe_point *pt, bpt *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < pt->n; i++)
        if (!add_on(p, pt->axis[i], pt->v[i]))
            return false;
    return true;
}

/* ---- coordinates -----------------------------------------------------------
 */

static void unflatten(int64_t x, const int64_t *shape, int n, int64_t *c)
{
    for (int d = n - 1; d >= 0; d--) {
        c[d] = x % shape[d];
        x /= shape[d];
    }
}

static int64_t flatten(const int64_t *c, const int64_t *shape, int n)
{
    int64_t x = 0;
    for (int d = 0; d < n; d++)
        x = x * shape[d] + c[d];
    return x;
}

/* ---- apply, apply_set, backward ------------------------------------------ */

/* The smallest y < size whose base point (or, "reps", a point of L(y))
 * is "want"; -1 if none. */
static int64_t first_index(const lay *l, int64_t size, const bpt *want,
                           bool reps)
{
    static bpt pts[PTS_MAX];
    for (int64_t y = 0; y < size; y++) {
        int np = 1;
        if (reps ? !bf_set(l, y, pts, &np) : !bf_base(l, y, &pts[0]))
            return -2;
        for (int i = 0; i < np; i++)
            if (bpt_cmp(&pts[i], want) == 0)
                return y;
    }
    return -1;
}

/* backward(p) of index x: the smallest index with that point. */
static void law_backward(const lay *l, int64_t size, int64_t x,
                         const axe_point *p, bool reps)
{
    int64_t y, want;
    bool found;
    bpt q;
    if (axe_layout_backward(l->l, p, reps, &y, &found, NULL) != AXE_OK ||
        !from_point(p, &q))
        return;
    want = first_index(l, size, &q, reps);
    if (want == -2)
        return;
    LAW(want >= 0 && want <= x, "brute force: the point is x's", l->l);
    LAW(found && y == want,
        reps ? "backward with replicas: the smallest index"
             : "backward: the smallest index",
        l->l);
}

static void law_apply(const axe_layout *l)
{
    static axe_point set[PTS_MAX];
    static bpt want[PTS_MAX], got[PTS_MAX];
    int64_t size;
    lay pl;
    if (!lsize(l, DOMAIN_MAX, &size) || !prep(l, &pl))
        return;
    for (int64_t x = 0; x < size; x++) {
        axe_point p;
        bpt q;
        int nw, ng;
        if (axe_layout_apply_base(l, x, &p, NULL) == AXE_OK &&
            bf_base(&pl, x, &want[0]))
            LAW(from_point(&p, &q) && bpt_cmp(&q, &want[0]) == 0,
                "apply_base(x) == D(x) + O", l);
        if (axe_layout_apply_set(l, &x, NULL, 1, set, PTS_MAX, &ng, NULL) !=
                AXE_OK ||
            !bf_set(&pl, x, want, &nw))
            continue;
        for (int i = 0; i < ng; i++)
            LAW(from_point(&set[i], &got[i]), "apply_set: axes", l);
        sort_pts(got, ng);
        LAW(same_set(got, ng, want, nw), "apply_set(x) == L(x)", l);
    }
    for (int64_t x = size - 1, k = 0; x >= 0 && k < 3; x = x / 2 - 1, k++) {
        axe_point p;
        int ng;
        if (axe_layout_apply_base(l, x, &p, NULL) == AXE_OK)
            law_backward(&pl, size, x, &p, false);
        if (axe_layout_apply_set(l, &x, NULL, 1, set, PTS_MAX, &ng, NULL) ==
                AXE_OK &&
            ng > 0)
            law_backward(&pl, size, x, &set[ng - 1], true);
    }
}

/* ---- canonicalize, normalize, group ------------------------------------ */

static void law_canon(const axe_layout *l)
{
    axe_layout c, c2, nf;
    bool eq;
    if (axe_layout_canonicalize(l, AXE_TARGET_NONE, &c, NULL) == AXE_OK) {
        LAW(bf_same(l, &c, false), "canonicalize: L(x) kept", &c);
        LAW(axe_layout_canonicalize(&c, AXE_TARGET_NONE, &c2, NULL) == AXE_OK &&
                axe_layout_equal(&c, &c2),
            "canonicalize: idempotent", &c);
        if (axe_layout_equivalent(l, &c, &eq, NULL) == AXE_OK)
            LAW(eq, "equivalent(l, canonicalize(l))", &c);
    }
    if (axe_layout_canonicalize(l, AXE_TARGET_CUDA, &c, NULL) == AXE_OK)
        LAW(axe_layout_canonicalize(&c, AXE_TARGET_CUDA, &c2, NULL) == AXE_OK &&
                axe_layout_equal(&c, &c2),
            "canonicalize (cuda): idempotent", &c);
    if (axe_layout_normalize(l, &nf, NULL) == AXE_OK)
        LAW(bf_same(l, &nf, true), "normalize: L(x) kept as sets", &nf);
}

static void law_group(const axe_layout *l, const int64_t *shape, int n)
{
    int seps[AXE_LAYOUT_MAX_SHARD + 1];
    axe_layout g;
    if (n > AXE_LAYOUT_MAX_SHARD ||
        axe_layout_group(l, shape, n, &g, seps, NULL) != AXE_OK)
        return;
    LAW(seps[0] == 0 && seps[n] == g.nshard, "group: seps span the shard", &g);
    for (int d = 0; d < n; d++) {
        int64_t p = 1;
        LAW(seps[d] <= seps[d + 1], "group: seps nondecreasing", &g);
        for (int k = seps[d]; k < seps[d + 1]; k++)
            p *= g.shard[k].extent;
        LAW(p == shape[d], "group: dim d's block has extent shape[d]", &g);
    }
    LAW(g.nreplica == l->nreplica && g.noffset == l->noffset,
        "group: replica and offset kept", &g);
    LAW(bf_same(l, &g, false), "group: L(x) kept", &g);
}

/* ---- tile and direct sum --------------------------------------------------
 */

static bool memory_axis(const char *axis)
{
    axe_axis_info info;
    return axe_axis_lookup(axis, &info, NULL) == AXE_OK &&
           info.kind == AXE_AXIS_MEMORY;
}

/* The tile of "l" by spec §11: the layout without its swizzle, or, for a
 * swizzled layout whose tile is trivial (at most one shard iter, on a
 * memory axis with stride 1, no replica, no nonzero offset), the identity
 * S[prod(shape):1] over "shape". False when the identity overflows. */
static bool plain_tile(const axe_layout *l, const int64_t *shape, int n,
                       axe_layout *out)
{
    bool trivial = l->nshard <= 1 && l->nreplica == 0;
    int64_t size;
    for (int i = 0; i < l->noffset; i++)
        trivial = trivial && l->offset[i].value == 0;
    if (l->nshard == 1)
        trivial =
            trivial && l->shard[0].stride == 1 && memory_axis(l->shard[0].axis);
    *out = *l;
    memset(&out->swizzle, 0, sizeof out->swizzle);
    if (!l->swizzle.present || !trivial)
        return true;
    if (!prod(shape, n, INT64_MAX, &size))
        return false;
    axe_layout_init(out);
    return axe_layout_push_shard(out, size, 1, "m") == AXE_OK;
}

/* span(B, a) on the axes TIRx scales: those of B's canonical shard (iters
 * of extent > 1; the first iter's axis when all are units). */
static bool scale_of(const axe_layout *b, int64_t *span, bool *on)
{
    bool any = false;
    for (int i = 0; i < NAX; i++) {
        span[i] = 1;
        on[i] = false;
    }
    for (int k = 0; k < b->nshard; k++) {
        int a = axis_id(b->shard[k].axis);
        int64_t t;
        if (a < 0 ||
            __builtin_mul_overflow(b->shard[k].extent - 1, b->shard[k].stride,
                                   &t) ||
            __builtin_add_overflow(span[a], t, &span[a]))
            return false;
        if (b->shard[k].extent > 1)
            on[a] = any = true;
    }
    if (!any && b->nshard > 0)
        on[axis_id(b->shard[0].axis)] = true;
    for (int k = 0; k < b->nreplica; k++) {
        int a = axis_id(b->replica[k].axis);
        int64_t t;
        if (a < 0 ||
            __builtin_mul_overflow(b->replica[k].extent - 1,
                                   b->replica[k].stride, &t) ||
            __builtin_add_overflow(span[a], t, &span[a]))
            return false;
    }
    for (int k = 0; k < b->noffset; k++) {
        int a = axis_id(b->offset[k].axis);
        if (a < 0 ||
            __builtin_add_overflow(span[a], b->offset[k].value, &span[a]))
            return false;
    }
    return true;
}

/* The paper's span(B, a) (Lemma C.1) on every axis: 1 + sum |s| (e-1)
 * over B's shard and replica iters on a, offset excluded. */
static bool scale_paper(const axe_layout *b, int64_t *span, bool *on)
{
    for (int i = 0; i < NAX; i++) {
        span[i] = 1;
        on[i] = true;
    }
    for (int k = 0; k < b->nshard + b->nreplica; k++) {
        const axe_iter *it =
            k < b->nshard ? &b->shard[k] : &b->replica[k - b->nshard];
        int a = axis_id(it->axis);
        int64_t t;
        if (a < 0 || it->stride == INT64_MIN ||
            __builtin_mul_overflow(it->extent - 1,
                                   it->stride < 0 ? -it->stride : it->stride,
                                   &t) ||
            __builtin_add_overflow(span[a], t, &span[a]))
            return false;
    }
    return true;
}

/* The right side at (x, y): TIRx's { D_A(x) ⊙ span(B) + r + O_A + q : r in
 * R_A, q in L_B(y) } or the paper's { (D_A(x) + r + O_A) ⊙ span(B) + q }
 * ("paper") for the tile, { p + q : p in L_A(x), q in L_B(y) } for the
 * direct sum; sorted into out; false when it cannot be evaluated. */
static bool rhs(const lay *a, int64_t x, const lay *b, int64_t y,
                const int64_t *span, const bool *on, bool sum, bool paper,
                bpt *out, int *n)
{
    static bpt pa[PTS_MAX], pb[PTS_MAX];
    int na, nb, m = 0;
    bpt d;
    if (!bf_set(b, y, pb, &nb) || !bf_shard(a, x, &d))
        return false;
    for (int i = 0; i < NAX && !sum && !paper; i++)
        if (on[i] && __builtin_mul_overflow(d.v[i], span[i], &d.v[i]))
            return false;
    if (!bf_rest(a, true, &d, pa, &na))
        return false;
    for (int j = 0; j < na && !sum && paper; j++)
        for (int i = 0; i < NAX; i++)
            if (__builtin_mul_overflow(pa[j].v[i], span[i], &pa[j].v[i]))
                return false;
    if (na * nb > PTS_MAX)
        return false;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            for (int k = 0; k < NAX; k++)
                if (__builtin_add_overflow(pa[i].v[k], pb[j].v[k],
                                           &out[m].v[k]))
                    return false;
            m++;
        }
    sort_pts(out, m);
    *n = m;
    return true;
}

/* f_T(x || y) == rhs(x, y) over the interleaved domain (tile or sum) of
 * the plain layouts t, a, b. */
static bool law_holds(const axe_layout *t, const axe_layout *a,
                      const int64_t *as, const axe_layout *b, const int64_t *bs,
                      int n, bool sum, bool paper)
{
    static bpt lhs[PTS_MAX], r[PTS_MAX];
    int64_t ts[2 * MAXD], ca[MAXD], cb[MAXD], c[2 * MAXD], na, nb, st;
    int64_t span[NAX];
    bool on[NAX];
    static lay pt, pa, pb;
    if (!prod(as, n, DOMAIN_MAX, &na) || !prod(bs, n, DOMAIN_MAX / na, &nb) ||
        !lsize(t, INT64_MAX, &st))
        return true;
    if (st != na * nb)
        return false;
    if (!prep(t, &pt) || !prep(a, &pa) || !prep(b, &pb) ||
        !(paper ? scale_paper(b, span, on) : scale_of(b, span, on)))
        return true;
    for (int d = 0; d < n; d++) {
        ts[2 * d] = as[d];
        ts[2 * d + 1] = bs[d];
    }
    for (int64_t x = 0; x < na; x++)
        for (int64_t y = 0; y < nb; y++) {
            int nl, nr;
            unflatten(x, as, n, ca);
            unflatten(y, bs, n, cb);
            for (int d = 0; d < n; d++) {
                c[2 * d] = ca[d];
                c[2 * d + 1] = cb[d];
            }
            if (!bf_set(&pt, flatten(c, ts, 2 * n), lhs, &nl) ||
                !rhs(&pa, x, &pb, y, span, on, sum, paper, r, &nr))
                continue;
            if (!same_set(lhs, nl, r, nr))
                return false;
        }
    return true;
}

static bool swizzle_eq(const axe_layout_swizzle *x, const axe_layout_swizzle *y)
{
    if (!x->present || !y->present)
        return x->present == y->present;
    return x->inner == y->inner && x->per_element == y->per_element &&
           x->len == y->len && x->atom == y->atom;
}

/* "t" = a (x) b or a + b: the law on the plain tiles (spec §11), and the
 * result carries b's swizzle. */
static void law_product(const axe_layout *t, const axe_layout *a,
                        const int64_t *as, const axe_layout *b,
                        const int64_t *bs, int n, bool sum, bool paper)
{
    axe_layout tp = *t, bp;
    const char *law = sum     ? "direct_sum: f(a0,b0,..) = A(a) + B(b)"
                      : paper ? "tile: f(x||y) = (D_A(x) + R_A + O_A) "
                                "span(B) + B(y)"
                              : "tirx tile: f(x||y) = D_A(x) span(B) + R_A + "
                                "O_A + B(y)";
    LAW(swizzle_eq(&t->swizzle, &b->swizzle), "the result has b's swizzle", t);
    if (!plain_tile(b, bs, n, &bp))
        return;
    memset(&tp.swizzle, 0, sizeof tp.swizzle);
    LAW(law_holds(&tp, a, as, &bp, bs, n, sum, paper), law, t);
}

/* "l" over "shape" as the algebra reads it (spec §11): a swizzled layout
 * with a trivial tile is its swizzle over the identity of the shape. */
static bool shape_view(const axe_layout *l, const int64_t *shape, int n,
                       axe_layout *out)
{
    if (!plain_tile(l, shape, n, out))
        return false;
    out->swizzle = l->swizzle;
    return true;
}

/* is_tile_inner / is_tile_outer of "t" (shape ts) by the known factor:
 * a found factor tiles back to t over ts (as functions; structurally for
 * CUDA). */
static void law_recover(const axe_layout *t, const int64_t *ts,
                        const axe_layout *k, const int64_t *ks, int n,
                        bool inner, axe_target target)
{
    int64_t cs[MAXD];
    axe_layout f, t2, tc, tv;
    bool found;
    axe_status st;
    for (int d = 0; d < n; d++) {
        if (ks[d] < 1 || ts[d] % ks[d] != 0)
            return;
        cs[d] = ts[d] / ks[d];
    }
    if (!shape_view(t, ts, n, &tv))
        return;
    st = inner ? axe_layout_is_tile_inner(k, t, ts, ks, n, target, &f, &found,
                                          NULL)
               : axe_layout_is_tile_outer(k, t, ts, ks, n, target, &f, &found,
                                          NULL);
    if (st != AXE_OK || !found)
        return;
    st = inner ? axe_layout_tile(&f, cs, k, ks, n, target, &t2, NULL)
               : axe_layout_tile(k, ks, &f, cs, n, target, &t2, NULL);
    if (st == AXE_ERR_OVERFLOW)
        return;
    LAW(st == AXE_OK,
        inner ? "is_tile_inner: the factor tiles"
              : "is_tile_outer: the factor tiles",
        &f);
    if (target == AXE_TARGET_NONE) {
        LAW(bf_same(&t2, &tv, false),
            inner ? "is_tile_inner: C (x) B == T"
                  : "is_tile_outer: A (x) C "
                    "== T",
            &f);
        return;
    }
    if (t->swizzle.present ||
        axe_layout_canonicalize(t, target, &tc, NULL) != AXE_OK)
        return;
    LAW(axe_layout_equal(&t2, &tc),
        inner ? "is_tile_inner (cuda): C (x) B == canonical T"
              : "is_tile_outer (cuda): A (x) C == canonical T",
        &f);
}

static void law_tile(const operands *o)
{
    int64_t ts[MAXD];
    axe_layout t;
    for (int d = 0; d < o->n; d++)
        if (__builtin_mul_overflow(o->as[d], o->bs[d], &ts[d]))
            return;
    if (axe_layout_tile(&o->a, o->as, &o->b, o->bs, o->n, AXE_TARGET_NONE, &t,
                        NULL) == AXE_OK) {
        law_product(&t, &o->a, o->as, &o->b, o->bs, o->n, false, true);
        law_recover(&t, ts, &o->b, o->bs, o->n, true, AXE_TARGET_NONE);
        law_recover(&t, ts, &o->a, o->as, o->n, false, AXE_TARGET_NONE);
    }
    if (axe_layout_tile_rule(&o->a, o->as, &o->b, o->bs, o->n, AXE_TARGET_NONE,
                             AXE_RULE_TIRX, &t, NULL) == AXE_OK)
        law_product(&t, &o->a, o->as, &o->b, o->bs, o->n, false, false);
    if (o->target == AXE_TARGET_CUDA &&
        axe_layout_tile(&o->a, o->as, &o->b, o->bs, o->n, AXE_TARGET_CUDA, &t,
                        NULL) == AXE_OK) {
        law_recover(&t, ts, &o->b, o->bs, o->n, true, AXE_TARGET_CUDA);
        law_recover(&t, ts, &o->a, o->as, o->n, false, AXE_TARGET_CUDA);
    }
    /* a itself as the tiled layout: soundness off the image of tile. */
    law_recover(&o->a, o->as, &o->b, o->bs, o->n, true, o->target);
    law_recover(&o->a, o->as, &o->b, o->bs, o->n, false, o->target);
}

/* V(D) of "l" (plain, its shard only) into out[0 .. *n), sorted and
 * distinct; false when it cannot be enumerated (over SET_MAX). */
#define SET_MAX 128
static bool shard_values(const axe_layout *l, bpt *out, int *n)
{
    static lay p;
    int64_t size;
    int m = 0;
    if (!lsize(l, SET_MAX, &size) || !prep(l, &p))
        return false;
    for (int64_t x = 0; x < size; x++)
        if (!bf_shard(&p, x, &out[m++]))
            return false;
    sort_pts(out, m);
    *n = 0;
    for (int i = 0; i < m; i++)
        if (*n == 0 || bpt_cmp(&out[*n - 1], &out[i]) != 0)
            out[(*n)++] = out[i];
    return true;
}

/* The paper's iter intersection of the operands' shards: an answer is one
 * iter whose values are exactly those both shards produce. */
static void law_iter_intersection(const operands *o)
{
    static bpt va[SET_MAX], vb[SET_MAX], vr[SET_MAX], w[SET_MAX];
    axe_layout a = o->a, b = o->b, r;
    int na, nb, nr, nw = 0;
    int64_t sa, sb;
    if (!lsize(&a, SET_MAX, &sa) || !lsize(&b, SET_MAX, &sb))
        return;
    a.nreplica = b.nreplica = 0;
    a.noffset = b.noffset = 0;
    memset(&a.swizzle, 0, sizeof a.swizzle);
    memset(&b.swizzle, 0, sizeof b.swizzle);
    if (axe_layout_intersect(&a, &b, NULL, AXE_TARGET_NONE, &r, NULL) !=
            AXE_OK ||
        !shard_values(&a, va, &na) || !shard_values(&b, vb, &nb) ||
        !shard_values(&r, vr, &nr))
        return;
    for (int i = 0, j = 0; i < na && j < nb;) {
        int c = bpt_cmp(&va[i], &vb[j]);
        if (c == 0)
            w[nw++] = va[i];
        i += c <= 0;
        j += c >= 0;
    }
    LAW(r.nshard == 1, "intersect: the answer is one iter", &r);
    LAW(same_set(vr, nr, w, nw),
        "intersect: the iter produces exactly the common values", &r);
}

static void law_sum(const operands *o)
{
    int64_t inter[2 * MAXD];
    axe_layout s, f, s2;
    bool found;
    if (axe_layout_direct_sum(&o->a, o->as, &o->b, o->bs, o->n, &s, NULL) !=
        AXE_OK)
        return;
    law_product(&s, &o->a, o->as, &o->b, o->bs, o->n, true, false);
    for (int d = 0; d < o->n; d++) {
        inter[2 * d] = o->as[d];
        inter[2 * d + 1] = o->bs[d];
    }
    if (axe_layout_is_direct_sum_right(&o->b, &s, inter, o->bs, o->n, &f,
                                       &found, NULL) == AXE_OK &&
        found &&
        axe_layout_direct_sum(&f, o->as, &o->b, o->bs, o->n, &s2, NULL) ==
            AXE_OK)
        LAW(bf_same(&s2, &s, false), "is_direct_sum_right: A + B == S", &f);
    if (axe_layout_is_direct_sum_left(&o->a, &s, inter, o->as, o->n, &f, &found,
                                      NULL) == AXE_OK &&
        found &&
        axe_layout_direct_sum(&o->a, o->as, &f, o->bs, o->n, &s2, NULL) ==
            AXE_OK)
        LAW(bf_same(&s2, &s, false), "is_direct_sum_left: A + B == S", &f);
}

/* ---- slice ------------------------------------------------------------------
 */

/* f_S(u) == f_L(u + begin) for u in the region (L over "as"). */
static void law_slice(const operands *o)
{
    static bpt p[PTS_MAX], q[PTS_MAX];
    int64_t rs[MAXD], u[MAXD], v[MAXD], nr, size, ss;
    axe_layout s;
    lay ps, pa;
    bool found;
    if (axe_layout_slice(&o->a, o->as, o->begin, o->end, o->n, AXE_TARGET_NONE,
                         &s, &found, NULL) != AXE_OK ||
        !found)
        return;
    for (int d = 0; d < o->n; d++)
        rs[d] = o->end[d] - o->begin[d];
    LAW(swizzle_eq(&s.swizzle, &o->a.swizzle), "slice: the swizzle is kept",
        &s);
    if (!prod(rs, o->n, DOMAIN_MAX, &nr) || !lsize(&o->a, INT64_MAX, &size) ||
        !prod(o->as, o->n, INT64_MAX, &ss) || size != ss)
        return;
    LAW(lsize(&s, INT64_MAX, &ss) && ss == nr, "slice: size of the region", &s);
    if (!prep(&s, &ps) || !prep(&o->a, &pa))
        return;
    for (int64_t x = 0; x < nr; x++) {
        int np, nq;
        unflatten(x, rs, o->n, u);
        for (int d = 0; d < o->n; d++)
            v[d] = u[d] + o->begin[d];
        if (!bf_set(&ps, x, p, &np) ||
            !bf_set(&pa, flatten(v, o->as, o->n), q, &nq))
            continue;
        LAW(same_set(p, np, q, nq), "slice: f_S(u) == f_L(u + begin)", &s);
    }
}

/* ---- operands from the bytes
 * ------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned next(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* A layout of "n" dims: 1 to 3 shard iters per dim (extent 1..4), shape[d]
 * the product of dim d's extents; up to 2 replica iters and 2 offsets; a
 * swizzle on m now and then when "swizzle". */
static void gen_layout(reader *r, int n, bool swizzle, axe_layout *l,
                       int64_t *shape)
{
    static const char *const axes[] = {
        "m", "m", "m", "P", "tx", "laneid", "warpid", "gpuid", "lane", "warp"};
    bool on_m = swizzle && next(r) % 4 == 0;
    axe_layout_init(l);
    for (int d = 0; d < n; d++) {
        int k = 1 + (int)(next(r) % 3);
        shape[d] = 1;
        for (int i = 0; i < k; i++) {
            int64_t e = 1 + next(r) % 4, s = (int64_t)(next(r) % 19) - 6;
            const char *a = on_m ? "m" : axes[next(r) % 10];
            if (axe_layout_push_shard(l, e, s, a) == AXE_OK)
                shape[d] *= e;
        }
    }
    for (int i = (int)(next(r) % 5); i < 2; i++)
        if (axe_layout_push_replica(l, 1 + next(r) % 3,
                                    (int64_t)(next(r) % 9) - 4,
                                    on_m ? "m" : axes[next(r) % 10]) != AXE_OK)
            break;
    for (int i = (int)(next(r) % 5); i < 2; i++)
        if (axe_layout_add_offset(l, on_m ? "m" : axes[next(r) % 10],
                                  (int64_t)(next(r) % 17) - 8) != AXE_OK)
            break;
    if (on_m) {
        int b = (int)(next(r) % 3);
        l->swizzle =
            (axe_layout_swizzle){true, next(r) % 2 == 0, (int32_t)(next(r) % 3),
                                 b, b + (int32_t)(next(r) % 3)};
    }
}

/* A region of "shape" from the bytes. */
static void gen_region(reader *r, operands *o)
{
    for (int d = 0; d < o->n; d++) {
        o->begin[d] = (int64_t)next(r) % o->as[d];
        o->end[d] =
            o->begin[d] + 1 + (int64_t)next(r) % (o->as[d] - o->begin[d]);
    }
}

static void generate(const uint8_t *data, size_t size, operands *o)
{
    reader r = {data, size};
    o->n = 1 + (int)(next(&r) % 3);
    o->target = next(&r) % 4 == 0 ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
    gen_layout(&r, o->n, false, &o->a, o->as);
    gen_layout(&r, o->n, true, &o->b, o->bs);
    gen_region(&r, o);
}

/* Integer lists "[1,2] [3,4]" of "text" into lists[k] (lengths in len[k]),
 * at most 4 of them; "cuda" anywhere sets the target. */
static int parse_lists(const char *s, int64_t (*lists)[MAXD], int *len,
                       axe_target *target)
{
    int k = 0;
    *target = strstr(s, "cuda") != NULL ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
    while (k < 4 && (s = strchr(s, '[')) != NULL) {
        len[k] = 0;
        s++;
        while (*s != ']' && *s != '\0' && len[k] < MAXD) {
            char *end;
            long long v = strtoll(s, &end, 10);
            if (end == s)
                break;
            lists[k][len[k]++] = (int64_t)v;
            s = *end == ',' ? end + 1 : end;
        }
        k++;
    }
    return k;
}

/* The region of the texts' mode when the lists give none: a hash of the
 * input picks it. */
static void hash_region(const uint8_t *data, size_t size, operands *o)
{
    uint8_t h[2 * MAXD] = {0};
    reader r = {h, sizeof h};
    for (size_t i = 0; i < size; i++)
        h[i % sizeof h] = (uint8_t)(h[i % sizeof h] * 31 + data[i]);
    gen_region(&r, o);
}

/* Shapes and region from the lists, else 1-D shapes [size(a)] and
 * [size(b)] (b's size as the last dim of a shape of a's rank): -1 when
 * there are no valid shapes, 0 without a region, 1 with one. */
static int from_lists(int64_t (*lists)[MAXD], const int *len, int k,
                      operands *o)
{
    o->n = k >= 1 && len[0] >= 1 ? len[0] : 1;
    if (k >= 1 && len[0] >= 1)
        memcpy(o->as, lists[0], (size_t)o->n * sizeof o->as[0]);
    else if (!lsize(&o->a, INT64_MAX, &o->as[0]))
        return -1;
    if (k >= 2 && len[1] == o->n) {
        memcpy(o->bs, lists[1], (size_t)o->n * sizeof o->bs[0]);
    } else {
        for (int d = 0; d < o->n; d++)
            o->bs[d] = 1;
        if (!lsize(&o->b, INT64_MAX, &o->bs[o->n - 1]))
            return -1;
    }
    for (int d = 0; d < o->n; d++)
        if (o->as[d] < 1 || o->bs[d] < 1)
            return -1;
    if (k >= 4 && len[2] == o->n && len[3] == o->n) {
        memcpy(o->begin, lists[2], (size_t)o->n * sizeof o->begin[0]);
        memcpy(o->end, lists[3], (size_t)o->n * sizeof o->end[0]);
        return 1;
    }
    return 0;
}

/* Texts `A \0 B [\0 P]`; false when A does not parse. */
static bool from_texts(const uint8_t *data, size_t size, operands *o)
{
    static int64_t lists[4][MAXD];
    static char p[TEXT_MAX];
    const char *s = (const char *)data;
    const char *z1 = memchr(s, '\0', size), *z2;
    size_t la = (size_t)(z1 - s), lb, lp;
    int len[4], k;
    z2 = memchr(z1 + 1, '\0', size - la - 1);
    lb = z2 != NULL ? (size_t)(z2 - z1 - 1) : size - la - 1;
    lp = z2 != NULL ? size - la - lb - 2 : 0;
    if (axe_parse_layout(s, la, &o->a, NULL) != AXE_OK)
        return false;
    if (lb == 0 || axe_parse_layout(z1 + 1, lb, &o->b, NULL) != AXE_OK)
        o->b = o->a;
    if (lp >= sizeof p)
        lp = sizeof p - 1;
    if (lp > 0)
        memcpy(p, z2 + 1, lp);
    p[lp] = '\0';
    k = parse_lists(p, lists, len, &o->target);
    switch (from_lists(lists, len, k, o)) {
    case -1:
        return false;
    case 0:
        hash_region(data, size, o);
        return true;
    default:
        return true;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static operands o;
    memset(&o, 0, sizeof o);
    nnames = 0;
    if (memchr(data, '\0', size) != NULL) {
        if (!from_texts(data, size, &o))
            return 0;
    } else {
        generate(data, size, &o);
    }
    cur = &o;
    law_apply(&o.a);
    law_canon(&o.a);
    law_group(&o.a, o.as, o.n);
    law_tile(&o);
    law_sum(&o);
    law_iter_intersection(&o);
    law_slice(&o);
    return 0;
}
