/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Composition a ∘ b: the layout R, shaped like b with each leaf s:d of b
 * refined into a flat mode of size s, with R(i) = a(b(i)) for i < size(b).
 *
 * a is read as a function on all integers: its leaves coalesced in the
 * extended sense (indices past size(a) continue along its last mode, as
 * eval does) and a(-x) = -a(x) (CuTe's truncating idx2crd). In that form
 * a(x) = sum_j beta_j * floor(x / M_j) over the strictly increasing chain
 * of a's mode boundaries M_0 = 1 | M_1 | ... with beta_j != 0 for j >= 1.
 * A layout of size s is exactly such a sum over a chain of divisors of s,
 * and that representation is unique; so R exists iff (1) for every leaf
 * s:d the sequence i -> a(i*d), i < s, has a divisor chain of s (found
 * exactly: read off the boundaries when they divide d or are multiples of
 * it, CuTe's divisibility walk, in O(log rank + modes made); in O(rank)
 * when every boundary is crossed at a whole multiple of d; otherwise by a
 * scan bounded by the sequence's period), and (2) a adds over b's leaves:
 * a(sum x_k) = sum a(x_k) (proved per boundary when the leaves' residues
 * cannot carry, in O(n log n) for sorted leaves that neither overlap nor
 * straddle a boundary they do not divide, else boundary by boundary;
 * otherwise checked exhaustively, over the residues modulo the largest
 * boundary reached when b's strides have one sign). A scaled-basis stride
 * s@k of b selects mode k of a, so leaves are grouped by basis and (2)
 * holds between groups. Every shortcut decides exactly as the general
 * path it precedes, which runs whenever the shortcut does not apply.
 * The general path of a leaf and of (2) is in cute_compose_exact.c.
 * Invariant: a returned layout satisfies the defining equation; a check
 * that would exceed AXE_CUTE_COMPOSE_BUDGET evaluations answers
 * AXE_ERR_UNSUPPORTED rather than guess.
 */
#include "cute_internal.h"

#define MAXL AXE_CUTE_MAX_LEAVES

typedef axe__cute_fn fn;
typedef axe__cute_pool pool;
typedef axe__cute_cctx ctx;
typedef axe__cute_bleaves group;

/* A subtree of a shape: tokens [tb, te), leaves [lb, le). */
typedef axe__span subtree;

/* ---- a as a function ------------------------------------------------- */

static int comp_of(fn *f, uint32_t code)
{
    if (code == 0)
        return 0;
    for (int k = 1; k < f->ncomp; k++)
        if (f->code[k] == code)
            return k;
    f->code[f->ncomp] = code;
    return f->ncomp++;
}

/* Leaf "i" of "a" as its coalesced modes (a last leaf, kept). */
static void read_leaf(const axe_cute_layout *a, int i, axe__cute_flat *m)
{
    m->n = 1;
    m->shape[0] = a->shape.v[i];
    m->stride[0] = a->stride[i];
    m->basis[0] = a->stride[i] == 0 ? 0 : a->basis[i];
}

/* Read leaves [t->lb, ...) of the subtree "t" of "a" into "f". */
static axe_status fn_init(const axe_cute_layout *a, const subtree *t, fn *f)
{
    int64_t p = 1;
    for (int i = t->lb; i < t->le; i++)
        if (a->shape.v[i] < 1)
            return AXE_ERR_INVALID;
    if (t->le - t->lb == 1)
        read_leaf(a, t->lb, &f->m);
    else
        AXE_TRY(axe__cute_coalesce_leaves(a, t->lb, t->le, true, &f->m));
    f->ncomp = 1;
    f->code[0] = 0;
    for (int j = 0; j < f->m.n; j++) {
        f->prefix[j] = p;
        f->comp[j] = (uint8_t)comp_of(f, f->m.basis[j]);
        if (j + 1 < f->m.n && __builtin_mul_overflow(p, f->m.shape[j], &p)) {
            f->m.n = j + 1;
            break;
        }
    }
    return AXE_OK;
}

/* ---- one leaf of b --------------------------------------------------- */

static axe_status pool_put(pool *p, int64_t s, int64_t d, uint32_t b)
{
    return axe__cute_pool_put(p, s, d, b);
}

/* The last j with M_j <= x (M_0 = 1 <= x), by bisection. */
static int last_at_most(const fn *f, int64_t x)
{
    int base = 0;
    for (int n = f->m.n; n > 1; n -= n / 2)
        base = f->prefix[base + n / 2] <= x ? base + n / 2 : base;
    return base;
}

/* True if the leaf s:d (x = (s-1)*d) meets a's boundaries as in CuTe's
 * divisibility walk: the last M_j <= d divides d (so do all before it),
 * and every M_k in (d, x] is a multiple of d whose quotient divides s.
 * Then d has one nonzero digit, in mode j: *first = a(d) = (d / M_j)
 * stride_j, and *j = j. */
static bool walk_applies(const fn *f, int64_t s, int64_t d, int64_t x, int *j,
                         int64_t *first)
{
    int k = last_at_most(f, d);
    int64_t m;
    *j = k;
    if (!axe__divides(f->prefix[k], d) ||
        __builtin_mul_overflow(axe__quot(d, f->prefix[k]), f->m.stride[k],
                               first))
        return false;
    for (k++; k < f->m.n && (m = f->prefix[k]) <= x; k++)
        if (!axe__divides(d, m) || !axe__divides(axe__quot(m, d), s))
            return false;
    return true;
}

/* The leaf s:d (d > 0, x = (s-1)*d) when walk_applies: a digit of d in
 * mode j only, so a(d) = (d / M_j) stride_j, and each boundary M_k <= x
 * crossed at step M_k / d, where a(M_k) = stride_k. These are the chain
 * and the values leaf_chain and put_step (cute_compose_exact.c) find,
 * without evaluating a; *done = false if the walk does not apply. */
static axe_status leaf_walk(const fn *f, int64_t s, int64_t d, int64_t x,
                            pool *p, bool *done)
{
    int64_t v, prev = 1;
    int j;
    *done = walk_applies(f, s, d, x, &j, &v);
    if (!*done)
        return AXE_OK;
    for (j++; j < f->m.n && f->prefix[j] <= x; j++) {
        int64_t q = axe__quot(f->prefix[j], d);
        AXE_TRY(pool_put(p, axe__quot(q, prev), v, f->m.basis[j - 1]));
        prev = q;
        v = f->m.stride[j];
    }
    return pool_put(p, axe__quot(s, prev), v, f->m.basis[j - 1]);
}

/* Negate the strides of the modes [at, p->n) (a ∘ (s:-d) = -(a ∘ s:d)
 * as a is odd). */
static axe_status negate_from(pool *p, int at)
{
    for (int k = at; k < p->n; k++) {
        if (p->stride[k] == INT64_MIN)
            return AXE_ERR_OVERFLOW;
        p->stride[k] = -p->stride[k];
    }
    return AXE_OK;
}

/* The modes of a ∘ (s:d) for leaf "leaf" of b, into "p", in general. */
static axe_status leaf_general(ctx *c, const fn *f, int leaf, int64_t s,
                               int64_t d, pool *p)
{
    int at = p->n;
    if (s < 1)
        return axe__fail(c->diag, AXE_ERR_INVALID, -1,
                         "b's leaf %d has extent %lld < 1", leaf, (long long)s);
    if (s == 1 || d == 0)
        return pool_put(p, s, 0, 0);
    if (d == INT64_MIN)
        return AXE_ERR_OVERFLOW;
    AXE_TRY(axe__cute_compose_leaf_exact(c, f, leaf, s, d < 0 ? -d : d, p));
    return d < 0 ? negate_from(p, at) : AXE_OK;
}

/* The modes of a ∘ (s:d) for leaf "leaf" of b, into "p": by the walk
 * where it applies (the common case, kept out of the general path's
 * frame), else in general. */
static axe_status compose_leaf(ctx *c, const fn *f, int leaf, int64_t s,
                               int64_t d, pool *p)
{
    int at = p->n;
    int64_t x, ad = d == INT64_MIN ? 0 : d < 0 ? -d : d;
    bool walked = false;
    p->off[leaf] = at;
    if (s > 1 && ad > 0 && !__builtin_mul_overflow(s - 1, ad, &x))
        AXE_TRY(leaf_walk(f, s, ad, x, p, &walked));
    if (walked && d < 0)
        AXE_TRY(negate_from(p, at));
    if (!walked)
        AXE_TRY(leaf_general(c, f, leaf, s, d, p));
    p->cnt[leaf] = p->n - at;
    return AXE_OK;
}

/* ---- a adds over b's leaves ------------------------------------------ */

/* Leaf "i" of the sorted "g" passes adds_sorted's test; *reach += its
 * extent (s-1)*d. */
static bool leaf_adds(const fn *f, const group *g, const int *ord, int i,
                      int64_t *reach)
{
    int64_t s = g->s[ord[i]], d = g->d[ord[i]], x, top;
    int j = last_at_most(f, d);
    if (!axe__divides(f->prefix[j], d) ||
        __builtin_mul_overflow(s - 1, d, &x) ||
        __builtin_add_overflow(*reach, x, reach))
        return false;
    if (i + 1 < g->n &&
        (__builtin_mul_overflow(s, d, &top) || top > g->d[ord[i + 1]]))
        return false;
    if (j + 1 < f->m.n && f->prefix[j + 1] <= x &&
        !axe__divides(d, f->prefix[j + 1]))
        return false;
    j = last_at_most(f, x) + 1;
    return j >= f->m.n || f->prefix[j] > *reach;
}

/*
 * A sufficient test for carry_free (cute_compose_exact.c) in O(n log n):
 * the strides d_k > 0, sorted, do not overlap (s_k d_k <= d_{k+1}); each
 * d_k is a multiple of the boundaries up to it and divides those its leaf
 * crosses; and the reach R_k = sum_{i <= k} (s_i - 1) d_i stays below the
 * first boundary past (s_k - 1) d_k. Then modulo a boundary M the leaves
 * with d >= M have residue 0, and of those below it the last one, L,
 * either crosses M (its residues reach M - d_L, the ones before it
 * R_{L-1} < d_L together) or not (all together R_L < M): no carry, the
 * very sums carry_free finds.
 */
static bool adds_sorted(const fn *f, const group *g)
{
    int ord[MAXL];
    int64_t reach = 0;
    for (int k = 0; k < g->n; k++) {
        if (g->d[k] <= 0)
            return false;
        ord[k] = k;
    }
    axe__cute_sort(g->d, ord, g->n);
    for (int i = 0; i < g->n; i++)
        if (!leaf_adds(f, g, ord, i, &reach))
            return false;
    return true;
}

/* a adds over the leaves of "g" (those of extent > 1, stride != 0): by
 * adds_sorted, else in general. */
static axe_status check_group(ctx *c, const fn *f, const group *g)
{
    if (g->n < 2 || adds_sorted(f, g))
        return AXE_OK;
    return axe__cute_compose_adds_exact(c, f, g);
}

/* ---- the whole of b -------------------------------------------------- */

/* Child "i" of the subtree "t" of "shape" (a leaf's child 0 is itself). */
static bool child(const axe_tuple *shape, const subtree *t, int i, subtree *out)
{
    int tok = t->tb + 1, leaf = t->lb;
    if (shape->tok[t->tb] == 'x') {
        *out = *t;
        return i == 0;
    }
    for (; shape->tok[tok] != ')'; i--) {
        int e = axe__tuple_subtree_end(shape->tok, tok);
        int nl = axe__tuple_count_leaves(shape->tok, tok, e);
        if (i == 0) {
            *out = (subtree){tok, e, leaf, leaf + nl};
            return true;
        }
        leaf += nl;
        tok = e;
    }
    return false;
}

/* The subtree of "a" (within "t") that the basis E<k0,k1,...> selects. */
static axe_status basis_mode(ctx *c, const axe_cute_layout *a, const subtree *t,
                             uint32_t code, subtree *out)
{
    subtree cur = *t;
    for (int lvl = 0; lvl < AXE_CUTE_BASIS_DEPTH(code); lvl++) {
        int k = AXE_CUTE_BASIS_MODE(code, lvl);
        if (!child(&a->shape, &cur, k, &cur))
            return axe__fail(c->diag, AXE_ERR_INCOMPATIBLE, -1,
                             "b's scaled-basis stride selects mode %d of "
                             "a, which has no such mode",
                             k);
    }
    *out = cur;
    return AXE_OK;
}

static bool active(const axe_cute_layout *b, int k)
{
    return b->shape.v[k] > 1 && b->stride[k] != 0;
}

/* True if basis path "x" is a proper or equal prefix of "y". */
static bool path_prefix(uint32_t x, uint32_t y)
{
    int dx = AXE_CUTE_BASIS_DEPTH(x), dy = AXE_CUTE_BASIS_DEPTH(y);
    if (dx > dy)
        return false;
    for (int l = 0; l < dx; l++)
        if (AXE_CUTE_BASIS_MODE(x, l) != AXE_CUTE_BASIS_MODE(y, l))
            return false;
    return true;
}

/* b's active strides are all integers or all scaled bases, and no basis
 * selects a mode that contains another's. */
static axe_status check_bases(ctx *c, const axe_cute_layout *b)
{
    bool any = false;
    for (int k = 0; k < b->shape.nleaf; k++)
        any = any || (active(b, k) && b->basis[k] != 0);
    for (int k = 0; any && k < b->shape.nleaf; k++)
        for (int l = 0; l < b->shape.nleaf; l++) {
            uint32_t x = b->basis[k], y = b->basis[l];
            if (!active(b, k) || !active(b, l) || x == y)
                continue;
            if (x == 0 || y == 0)
                return axe__fail(c->diag, AXE_ERR_UNSUPPORTED, -1,
                                 "b mixes integer and scaled-basis "
                                 "strides (leaves %d and %d)",
                                 k, l);
            if (path_prefix(x, y))
                return axe__fail(c->diag, AXE_ERR_UNSUPPORTED, -1,
                                 "b's leaves %d and %d select nested "
                                 "modes of a",
                                 k, l);
        }
    return AXE_OK;
}

/* Compose the leaves of b with basis "code" (0: integer strides) with the
 * part of a they select (for code 0 "f0" if not NULL, a read already),
 * and check that a adds over them. */
static axe_status compose_group(ctx *c, const axe_cute_layout *a,
                                const subtree *t, const axe_cute_layout *b,
                                uint32_t code, const fn *f0, pool *p)
{
    fn f;
    group g;
    subtree sel;
    if (code != 0 || f0 == NULL) {
        AXE_TRY(basis_mode(c, a, t, code, &sel));
        AXE_TRY(fn_init(a, &sel, &f));
        f0 = &f;
    }
    g.n = 0;
    for (int k = 0; k < b->shape.nleaf; k++) {
        if (!active(b, k) || b->basis[k] != code)
            continue;
        AXE_TRY(compose_leaf(c, f0, k, b->shape.v[k], b->stride[k], p));
        g.leaf[g.n] = k;
        g.s[g.n] = b->shape.v[k];
        g.d[g.n++] = b->stride[k];
    }
    return check_group(c, f0, &g);
}

/* Append the modes of leaf "k" as one element of "out". */
static axe_status put_leaf(const pool *p, int k, axe_cute_layout *out)
{
    int at = p->off[k], n = p->cnt[k];
    if (n == 1)
        return axe__cute_push(out, p->shape[at], p->stride[at], p->basis[at]);
    AXE_TRY(axe__cute_open(out));
    for (int i = at; i < at + n; i++)
        AXE_TRY(axe__cute_push(out, p->shape[i], p->stride[i], p->basis[i]));
    return axe__cute_close(out);
}

/* True if every leaf of b in "sp" has one mode in "p". */
static bool single_modes(const pool *p, const axe__span *sp)
{
    for (int k = sp->lb; k < sp->le; k++)
        if (p->cnt[k] != 1)
            return false;
    return true;
}

/* assemble when every leaf has one mode: b's tokens as they are, the
 * leaves from "p" (AXE_ERR_CAPACITY, as pushing them one by one, when
 * they do not fit). */
static axe_status assemble_single(const axe_cute_layout *b, const pool *p,
                                  const axe__span *sp, axe_cute_layout *out)
{
    int ntok = sp->te - sp->tb, at = out->shape.nleaf;
    if (out->shape.ntok + ntok > AXE_TUPLE_MAX_TOKENS ||
        at + sp->le - sp->lb > AXE_CUTE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    axe__copy(out->shape.tok + out->shape.ntok, b->shape.tok + sp->tb,
              (size_t)ntok,
              axe__room(AXE_TUPLE_MAX_TOKENS, out->shape.ntok, sp->tb, 1));
    for (int k = sp->lb; k < sp->le; k++, at++) {
        int i = p->off[k];
        out->shape.v[at] = p->shape[i];
        out->stride[at] = p->stride[i];
        out->basis[at] = p->basis[i];
    }
    out->shape.ntok = (uint8_t)(out->shape.ntok + ntok);
    out->shape.nleaf = (uint8_t)at;
    return AXE_OK;
}

/* Append R's part shaped like the tokens "sp" of b, from the per-leaf
 * modes in "p". */
static axe_status assemble(const axe_cute_layout *b, const pool *p,
                           const axe__span *sp, axe_cute_layout *out)
{
    int leaf = sp->lb;
    if (single_modes(p, sp))
        return assemble_single(b, p, sp, out);
    for (int i = sp->tb; i < sp->te; i++) {
        char tk = b->shape.tok[i];
        if (tk == '(')
            AXE_TRY(axe__cute_open(out));
        else if (tk == ')')
            AXE_TRY(axe__cute_close(out));
        else
            AXE_TRY(put_leaf(p, leaf++, out));
    }
    return AXE_OK;
}

/* R's modes for b's leaves into "p": each group of leaves with one basis
 * composed with the part of a it selects, each inactive leaf a mode s:0. */
static axe_status compose_pool(ctx *c, const axe_cute_layout *a,
                               const subtree *t, const axe_cute_layout *b,
                               const fn *f0, pool *p)
{
    uint32_t done[MAXL];
    int ndone = 0;
    p->n = 0;
    AXE_TRY(check_bases(c, b));
    for (int k = 0; k < b->shape.nleaf; k++) {
        bool first = active(b, k);
        for (int l = 0; first && l < ndone; l++)
            first = done[l] != b->basis[k];
        if (first) {
            done[ndone++] = b->basis[k];
            AXE_TRY(compose_group(c, a, t, b, b->basis[k], f0, p));
        } else if (!active(b, k)) {
            AXE_TRY(compose_leaf(c, NULL, k, b->shape.v[k], 0, p));
        }
    }
    return AXE_OK;
}

/* The mode of the leaf s:d of an integer b under a linear a (x -> x d0):
 * s : d d0, or s:0 for an inactive leaf; false if a step overflows. With
 * "reach" the sums of (s-1)|d| by sign, as the additivity check adds them
 * up. */
static bool linear_leaf(int64_t s, int64_t d, int64_t d0, uint32_t b0, pool *p,
                        int64_t *reach)
{
    int64_t x, v, ad = d < 0 ? -d : d;
    if (s < 1 || d == INT64_MIN)
        return false;
    if (s == 1 || d == 0)
        return pool_put(p, s, 0, 0) == AXE_OK;
    if (__builtin_mul_overflow(s - 1, ad, &x) ||
        __builtin_add_overflow(reach[d < 0], x, &reach[d < 0]) ||
        __builtin_mul_overflow(ad, d0, &v) || v == INT64_MIN)
        return false;
    return pool_put(p, s, d < 0 ? -v : v, b0) == AXE_OK;
}

/* True if b's active strides are all integers (one group, code 0). */
static bool integer_strides(const axe_cute_layout *b)
{
    for (int k = 0; k < b->shape.nleaf; k++)
        if (b->basis[k] != 0 && active(b, k))
            return false;
    return true;
}

/*
 * R's modes in "p" when a, read as "f", is linear (one mode: a(x) = x d0
 * for every x) and b's strides are integers: a has no boundary, so every
 * leaf s:d of b walks to the one mode s : d d0 (leaf_walk), and a adds
 * over any leaves (carry_free has no boundary to check) once their reach
 * does not overflow. False where a step overflows; the general path then
 * finds the error.
 */
static bool compose_linear(const fn *f, const axe_cute_layout *b, pool *p)
{
    int64_t reach[2] = {0, 0};
    p->n = 0;
    for (int k = 0; k < b->shape.nleaf; k++) {
        p->off[k] = p->n;
        p->cnt[k] = 1;
        if (!linear_leaf(b->shape.v[k], b->stride[k], f->m.stride[0],
                         f->m.basis[0], p, reach))
            return false;
    }
    return true;
}

/* R's modes for b's leaves into "p": when b's strides are integers, a is
 * read once ("f"), and composed directly if it is linear. */
static axe_status compose_modes(ctx *c, const axe_cute_layout *a,
                                const subtree *t, const axe_cute_layout *b,
                                pool *p)
{
    fn f;
    if (!integer_strides(b) || fn_init(a, t, &f) != AXE_OK)
        return compose_pool(c, a, t, b, NULL, p);
    if (f.m.n == 1 && compose_linear(&f, b, p))
        return AXE_OK;
    return compose_pool(c, a, t, b, &f, p);
}

/* Append (subtree "t" of a) ∘ b to "out" as one element; with "rest", the
 * parts shaped like the two spans "halves" of b to "out" and "rest". */
static axe_status compose_view(ctx *c, const axe_cute_layout *a,
                               const subtree *t, const axe_cute_layout *b,
                               const axe__span *halves, axe_cute_layout *out,
                               axe_cute_layout *rest)
{
    pool p;
    axe__span whole = {0, b->shape.ntok, 0, b->shape.nleaf};
    AXE_TRY(compose_modes(c, a, t, b, &p));
    if (rest == NULL)
        return assemble(b, &p, &whole, out);
    AXE_TRY(assemble(b, &p, &halves[0], out));
    return assemble(b, &p, &halves[1], rest);
}

static void ctx_init(ctx *c, axe_diag *diag)
{
    c->diag = diag;
    c->budget = AXE_CUTE_COMPOSE_BUDGET;
}

/* True if R, shaped like b with leaf k refined into p->cnt[k] modes, fits
 * in a layout (p holds at most AXE_CUTE_MAX_LEAVES modes). */
static bool fits(const axe_cute_layout *b, const pool *p)
{
    int ntok = b->shape.ntok;
    for (int k = 0; k < b->shape.nleaf; k++)
        ntok += p->cnt[k] > 1 ? p->cnt[k] + 1 : 0;
    return ntok <= AXE_TUPLE_MAX_TOKENS;
}

axe_status axe_cute_compose(const axe_cute_layout *a, const axe_cute_layout *b,
                            axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout r, *w = out == a || out == b ? &r : out;
    subtree whole = {0, a->shape.ntok, 0, a->shape.nleaf};
    axe__span all = {0, b->shape.ntok, 0, b->shape.nleaf};
    pool p;
    ctx c;
    ctx_init(&c, diag);
    AXE_TRY(compose_modes(&c, a, &whole, b, &p));
    if (!fits(b, &p))
        return AXE_ERR_CAPACITY;
    axe__cute_clear(w);
    AXE_TRY(assemble(b, &p, &all, w));
    axe__cute_copy(out, w);
    return AXE_OK;
}

axe_status axe__cute_compose_append(const axe_cute_layout *a,
                                    const axe__span *sp,
                                    const axe_cute_layout *b,
                                    const axe__span *halves,
                                    axe_cute_layout *out, axe_cute_layout *rest,
                                    axe_diag *diag)
{
    ctx c;
    ctx_init(&c, diag);
    return compose_view(&c, a, sp, b, halves, out, rest);
}

/* ---- tilers ---------------------------------------------------------- */

/* Append the subtree "t" of "l" unchanged. */
static axe_status put_subtree(axe_cute_layout *out, const axe_cute_layout *l,
                              const subtree *t)
{
    return axe__cute_append_span(out, l, t);
}

typedef struct tcursor {
    int tok, elem;
} tcursor;

static axe_status bad_tiler(ctx *c)
{
    return axe__fail(c->diag, AXE_ERR_INVALID, -1, "malformed tiler");
}

/* By-mode composition of subtree "t" of a with the tiler group at the
 * cursor (a '['), appending one element to "out". */
static axe_status tiler_rec(ctx *c, const axe_cute_layout *a, const subtree *t,
                            const axe_cute_tiler *tl, tcursor *cur,
                            axe_cute_layout *out)
{
    if (cur->tok >= tl->ntok || tl->tok[cur->tok++] != '[')
        return bad_tiler(c);
    AXE_TRY(axe__cute_open(out));
    for (int i = 0; cur->tok < tl->ntok && tl->tok[cur->tok] != ']'; i++) {
        char tk = tl->tok[cur->tok];
        subtree m;
        if (!child(&a->shape, t, i, &m))
            return axe__fail(c->diag, AXE_ERR_INCOMPATIBLE, -1,
                             "the tiler has more modes than a (%d)", i);
        if (tk == '[') {
            AXE_TRY(tiler_rec(c, a, &m, tl, cur, out));
            continue;
        }
        cur->tok++;
        if (tk == '_')
            AXE_TRY(put_subtree(out, a, &m));
        else if (tk == 'L' && cur->elem < tl->nelem)
            AXE_TRY(compose_view(c, a, &m, &tl->elem[cur->elem++], NULL, out,
                                 NULL));
        else
            return bad_tiler(c);
    }
    if (cur->tok++ >= tl->ntok)
        return bad_tiler(c);
    return axe__cute_close(out);
}

axe_status axe_cute_compose_tiler(const axe_cute_layout *a,
                                  const axe_cute_tiler *t, axe_cute_layout *out,
                                  axe_diag *diag)
{
    axe_cute_layout r;
    subtree whole = {0, a->shape.ntok, 0, a->shape.nleaf};
    tcursor cur = {0, 0};
    ctx c;
    ctx_init(&c, diag);
    axe__cute_clear(&r);
    AXE_TRY(tiler_rec(&c, a, &whole, t, &cur, &r));
    if (cur.tok != t->ntok)
        return bad_tiler(&c);
    axe__cute_copy(out, &r);
    return AXE_OK;
}

static axe_status tiler_tok(axe_cute_tiler *t, char tk)
{
    if (t->ntok >= AXE_CUTE_TILER_MAX_TOKENS)
        return AXE_ERR_CAPACITY;
    t->tok[t->ntok++] = tk;
    return AXE_OK;
}

/* Append the leaf v of a shape: `_` for the wildcard, else v:1. */
static axe_status tiler_shape_leaf(axe_cute_tiler *t, int64_t v)
{
    if (v == AXE_UNDERSCORE)
        return tiler_tok(t, '_');
    if (v < 1)
        return AXE_ERR_DOMAIN;
    if (t->nelem >= AXE_CUTE_TILER_MAX)
        return AXE_ERR_CAPACITY;
    axe__cute_leaf(v, 1, &t->elem[t->nelem++]);
    return tiler_tok(t, 'L');
}

axe_status axe_cute_tiler_from_shape(const axe_tuple *shape,
                                     axe_cute_tiler *out)
{
    axe_cute_tiler t;
    int leaf = 0;
    bool scalar = axe_tuple_is_scalar(shape);
    t.ntok = 0;
    t.nelem = 0;
    if (scalar)
        AXE_TRY(tiler_tok(&t, '['));
    for (int i = 0; i < shape->ntok; i++) {
        char tk = shape->tok[i];
        if (tk == 'x')
            AXE_TRY(tiler_shape_leaf(&t, shape->v[leaf++]));
        else
            AXE_TRY(tiler_tok(&t, tk == '(' ? '[' : ']'));
    }
    if (scalar)
        AXE_TRY(tiler_tok(&t, ']'));
    *out = t;
    return AXE_OK;
}

axe_status axe_cute_tiler_from_layout(const axe_cute_layout *l,
                                      axe_cute_tiler *out)
{
    out->ntok = 3;
    out->nelem = 1;
    out->tok[0] = '[';
    out->tok[1] = 'L';
    out->tok[2] = ']';
    out->elem[0] = *l;
    return AXE_OK;
}

int axe_cute_tiler_rank(const axe_cute_tiler *t)
{
    int depth = 0, n = 0;
    for (int i = 0; i < t->ntok; i++) {
        char tk = t->tok[i];
        if (depth == 1 && tk != ']')
            n++;
        depth += tk == '[' ? 1 : tk == ']' ? -1 : 0;
    }
    return n;
}
