/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Normalization of mapping expressions: a rebuild, bottom-up, that keeps
 * the decoded map at every position (spec §8's identities read as rewrite
 * rules). Pairs are flattened into right-nested lists without identity
 * items; trivial resize and padding are dropped, a resize over a padding
 * or resize keeps only what it reaches (`X # 5 = 3` is X when |X| = 3, `X
 * # 8 = 6` is `X # 6` when |X| <= 6); a chain or resize of size 1 is the
 * identity `1` (it reads position 0, the zero index); a chain over an axis
 * becomes `X / mu % n` with trivial parts left out (`1` when n = 1); adjacent
 * digits of one operand `X / (mu n2) % n1, X / mu % n2` merge into `X / mu %
 * (n1 n2)`; a chain covering a composite operand whole (mu = 1, n = |X|)
 * becomes the operand when that operand occurs in no other chain, holds no
 * chain over a composite and names each axis at most once (so no positions
 * sum differently and decoding it alone never overshoots); a chain over a
 * pair that lies inside one side becomes a chain over that side (pair
 * projection); the chains over a composite whose factors are digits and
 * broadcasts become chains over those factors when each lies inside one
 * factor and they do not overlap (factor split: `[A, B] % 512, [A, B] /
 * 512` is `B, A` for |B| = 512). Chains over composites are otherwise
 * copied verbatim, since
 * their operand is compared as a tree. Passes repeat until nothing changes,
 * which makes the result idempotent. Invariant: every pass's output has the
 * same size and map.
 */
#include "mapping_internal.h"

#define PASSES_MAX 16

typedef struct npass {
    const axe_mapping *in;
    axe_mapping *out;
    axe_diag *diag;
} npass;

static axe_status norm(npass *p, int node, int *id);

static axe_status push(npass *p, axe_mapping_op op, int a, int b, int64_t n,
                       axe_padding_kind k, int *id)
{
    return axe_mapping_push(p->out, op, a, b, n, k, id, p->diag);
}

/* `X / mu % n` over the output node "x" of size "size". */
static axe_status put_chain(npass *p, int x, int64_t size, int64_t mu,
                            int64_t n, int *id)
{
    *id = x;
    if (mu > 1 ||
        (mu == 1 && n == size && p->out->node[x].op != AXE_MAPPING_SYMBOL))
        AXE_TRY(push(p, AXE_MAPPING_STRIDE, *id, -1, mu, AXE_PADDING_TOP, id));
    if (n != size / mu)
        AXE_TRY(push(p, AXE_MAPPING_MODULO, *id, -1, n, AXE_PADDING_TOP, id));
    return AXE_OK;
}

/* Chains of "m" whose operand is the tree "atom" (of "m"). */
static int chains_over(const axe_mapping *m, int atom)
{
    int count = 0, a;
    int64_t mu;
    for (int k = 0; k < m->nnodes; k++) {
        bool top = true;
        for (int j = k + 1; j < m->nnodes; j++)
            if (m->node[j].a == k && (m->node[j].op == AXE_MAPPING_STRIDE ||
                                      m->node[j].op == AXE_MAPPING_MODULO))
                top = false;
        if (top && axe__mapping_chain(m, k, &a, &mu) &&
            axe_mapping_same_tree(m, a, m, atom))
            count++;
    }
    return count;
}

/* Whether some chain inside "node" has a composite operand. */
static bool has_composite_chain(const axe_mapping *m, int node)
{
    const axe_mapping_node *x = &m->node[node];
    int a;
    int64_t mu;
    if (axe__mapping_chain(m, node, &a, &mu))
        return m->node[a].op != AXE_MAPPING_SYMBOL;
    if (x->op == AXE_MAPPING_PAIR)
        return has_composite_chain(m, x->a) || has_composite_chain(m, x->b);
    if (x->op == AXE_MAPPING_RESIZE || x->op == AXE_MAPPING_PADDING)
        return has_composite_chain(m, x->a);
    return false;
}

/* Add the symbol leaves under "node" to "count" (per axis). */
static void count_symbols(const axe_mapping *m, int node, int *count)
{
    const axe_mapping_node *x = &m->node[node];
    if (x->op == AXE_MAPPING_SYMBOL)
        count[x->n]++;
    else if (x->op != AXE_MAPPING_BROADCAST)
        count_symbols(m, x->a, count);
    if (x->op == AXE_MAPPING_PAIR)
        count_symbols(m, x->b, count);
}

/* Whether "node" can stand inline for its chain: no composite chain inside
 * and every axis at most once (so decoding it alone never overshoots). */
static bool unwrappable(const axe_mapping *m, int node)
{
    int count[AXE_MAPPING_MAX_AXES] = {0};
    if (has_composite_chain(m, node))
        return false;
    count_symbols(m, node, count);
    for (int k = 0; k < m->axes.n; k++)
        if (count[k] > 1)
            return false;
    return true;
}

/* Subtrees of "m" that are the same tree as "node" (itself included). */
static int occurrences(const axe_mapping *m, int node)
{
    int count = 0;
    for (int k = 0; k < m->nnodes; k++)
        count += axe_mapping_same_tree(m, k, m, node);
    return count;
}

/* Pair projection (spec §8.3) on a chain `[L, R] / mu % n` that is the
 * only chain over its operand: inside R (mu n divides |R|) it is `R / mu %
 * n`, above R (|R| divides mu) it is `L / (mu / |R|) % n`, since the
 * operand decoded at a position below |R| is L's zero plus R there, and at
 * a multiple of |R| it is L there plus R's zero. The kept side must not be
 * a chain's operand anywhere else (positions would sum with it; so it
 * occurs once, copied verbatim as composite operands are) and the
 * dropped side holds no composite chain (the order of decoded operands
 * stays). *id is -1 when the rule does not apply. */
static axe_status project_pair(npass *p, int atom, int64_t mu, int64_t n,
                               int *id)
{
    const axe_mapping *in = p->in;
    const axe_mapping_node *x = &in->node[atom];
    int64_t r = x->op == AXE_MAPPING_PAIR ? in->node[x->b].size : 0;
    int keep = -1, drop = -1, y;
    *id = -1;
    if (r == 0 || chains_over(in, atom) != 1)
        return AXE_OK;
    if (r % mu == 0 && (r / mu) % n == 0) {
        keep = x->b;
        drop = x->a;
    } else if (mu % r == 0) {
        keep = x->a;
        drop = x->b;
        mu /= r;
    } else {
        return AXE_OK;
    }
    if (has_composite_chain(in, drop) ||
        (in->node[keep].op != AXE_MAPPING_SYMBOL && occurrences(in, keep) > 1))
        return AXE_OK;
    AXE_TRY(axe_mapping_copy_subtree(p->out, in, keep, &y));
    return put_chain(p, y, in->node[keep].size, mu, n, id);
}

/* ---- factor split ------------------------------------------------ */

#define SPLIT_MAX 32

/* The digits (mu, n) of the top chains over the tree "atom" of "m" into
 * mu[], n[] (sorted by mu); false if more than SPLIT_MAX. */
static bool chain_digits(const axe_mapping *m, int atom, int64_t *mu,
                         int64_t *n, int *count)
{
    *count = 0;
    for (int k = 0; k < m->nnodes; k++) {
        bool top = true;
        int a, j;
        int64_t u;
        for (int i = k + 1; i < m->nnodes && top; i++)
            top = !(m->node[i].a == k && (m->node[i].op == AXE_MAPPING_STRIDE ||
                                          m->node[i].op == AXE_MAPPING_MODULO));
        if (!top || !axe__mapping_chain(m, k, &a, &u) ||
            !axe_mapping_same_tree(m, a, m, atom))
            continue;
        if (*count == SPLIT_MAX)
            return false;
        for (j = (*count)++; j > 0 && mu[j - 1] > u; j--) {
            mu[j] = mu[j - 1];
            n[j] = n[j - 1];
        }
        mu[j] = u;
        n[j] = m->node[k].size;
    }
    return true;
}

/* The factor of "fs" (position strides "w") that holds the digit "mu",
 * "n" whole, as `f / (mu / w) % n` is valid; -1 if none. */
static int factor_holding(const axe__factors *fs, const int64_t *w, int64_t mu,
                          int64_t n)
{
    for (int j = 0; j < fs->n; j++) {
        int64_t q;
        if (mu % w[j] != 0)
            continue;
        q = mu / w[j];
        if (fs->f[j].n % q == 0 && (fs->f[j].n / q) % n == 0)
            return j;
    }
    return -1;
}

/* The digit (mu, n) cut at the factor boundaries w_j inside it into
 * pieces pmu[], pn[] (ascending), each held by one factor; false if a
 * boundary is not a multiple of mu dividing mu n, or a piece is not held
 * (`X / mu % n` is then no pair of chains over single factors). */
static bool cut_digit(const axe__factors *fs, const int64_t *w, int64_t mu,
                      int64_t n, int64_t *pmu, int64_t *pn, int *np)
{
    int64_t lo = mu, end = mu * n;
    *np = 0;
    for (int j = fs->n - 1; j >= 0; j--) {
        int64_t top = w[j] * fs->f[j].n;
        if (top <= lo)
            continue;
        if (top > end)
            top = end;
        if (top % lo != 0 || end % top != 0 ||
            factor_holding(fs, w, lo, top / lo) != j)
            return false;
        pmu[*np] = lo;
        pn[(*np)++] = top / lo;
        lo = top;
        if (lo == end)
            return true;
    }
    return false;
}

/* Whether every chain over the composite "atom" of "in" cuts into pieces
 * at factor boundaries (cut_digit) and no two overlap (mu_{k+1} >= mu_k
 * n_k): the positions they sum into "atom" then carry into no other
 * factor, so each factor reads its own digits. The factors must be digits
 * or broadcasts, whose maps are linear in the position (summing positions
 * sums indices). */
static bool splittable(const axe_mapping *in, int atom, const axe__factors *fs,
                       const int64_t *w)
{
    int64_t mu[SPLIT_MAX], n[SPLIT_MAX], end = 1;
    int count;
    for (int j = 0; j < fs->n; j++)
        if (fs->f[j].kind == AXE__FACTOR_OTHER)
            return false;
    if (!chain_digits(in, atom, mu, n, &count))
        return false;
    for (int k = 0; k < count; k++) {
        int64_t pmu[AXE__FACTORS_MAX], pn[AXE__FACTORS_MAX];
        int np;
        if (mu[k] < end || !cut_digit(fs, w, mu[k], n[k], pmu, pn, &np))
            return false;
        end = mu[k] * n[k];
    }
    return true;
}

/* The piece (mu, n) of factor "f" (at position stride "w") as a node. */
static axe_status push_piece(npass *p, const axe__factor *f, int64_t w,
                             int64_t mu, int64_t n, int *id)
{
    if (f->kind == AXE__FACTOR_BROADCAST)
        return push(p, AXE_MAPPING_BROADCAST, -1, -1, n, AXE_PADDING_TOP, id);
    return axe__mapping_push_digit(p->out, f->axis, f->mu * (mu / w), n, id);
}

/* Factor split: the chain `X / mu % n` over the pair X of digits and
 * broadcasts, cut at X's factor boundaries (the stride-modulo identity),
 * is the pair of its pieces, major first; a piece (mu, n) inside factor
 * j is the digit (mu / w_j, n) of that factor, w_j the product of the
 * sizes of the factors after j. Applies when every chain over X is
 * splittable; *id is -1 otherwise. */
static axe_status split_factors(npass *p, int atom, int64_t mu, int64_t n,
                                int *id)
{
    static const axe__factors empty;
    axe__factors fs = empty;
    int64_t w[AXE__FACTORS_MAX], pmu[AXE__FACTORS_MAX], pn[AXE__FACTORS_MAX];
    int ids[AXE__FACTORS_MAX], np;
    *id = -1;
    if (p->in->node[atom].op != AXE_MAPPING_PAIR)
        return AXE_OK;
    axe__mapping_factors(p->in, atom, &fs);
    w[fs.n - 1] = 1;
    for (int k = fs.n - 2; k >= 0; k--)
        w[k] = w[k + 1] * fs.f[k + 1].n;
    if (!splittable(p->in, atom, &fs, w) ||
        !cut_digit(&fs, w, mu, n, pmu, pn, &np))
        return AXE_OK;
    for (int k = 0; k < np; k++) {
        int j = factor_holding(&fs, w, pmu[k], pn[k]);
        AXE_TRY(push_piece(p, &fs.f[j], w[j], pmu[k], pn[k], &ids[np - 1 - k]));
    }
    return axe__mapping_push_list(p->out, ids, np, id);
}

static axe_status norm_chain(npass *p, int node, int *id)
{
    const axe_mapping *in = p->in;
    int atom, x;
    int64_t mu, n = in->node[node].size;
    (void)axe__mapping_chain(in, node, &atom, &mu);
    if (n == 1)
        return push(p, AXE_MAPPING_BROADCAST, -1, -1, 1, AXE_PADDING_TOP, id);
    if (in->node[atom].op == AXE_MAPPING_SYMBOL) {
        AXE_TRY(axe_mapping_copy_subtree(p->out, in, atom, &x));
        return put_chain(p, x, in->node[atom].size, mu, n, id);
    }
    if (mu == 1 && n == in->node[atom].size && chains_over(in, atom) == 1 &&
        unwrappable(in, atom))
        return norm(p, atom, id);
    AXE_TRY(project_pair(p, atom, mu, n, id));
    if (*id >= 0)
        return AXE_OK;
    AXE_TRY(split_factors(p, atom, mu, n, id));
    if (*id >= 0)
        return AXE_OK;
    return axe_mapping_copy_subtree(p->out, in, node, id);
}

/* ---- pairs ------------------------------------------------------- */

typedef struct items {
    int n;
    int id[AXE_MAPPING_MAX_NODES];
} items;

static void collect(const axe_mapping *m, int node, items *it)
{
    const axe_mapping_node *x = &m->node[node];
    if (x->op == AXE_MAPPING_PAIR) {
        collect(m, x->a, it);
        collect(m, x->b, it);
    } else if (!(x->op == AXE_MAPPING_BROADCAST && x->n == 1)) {
        it->id[it->n++] = node;
    }
}

/* Merge items k and k+1 of the output when they are adjacent digits of
 * one operand. */
static axe_status try_merge(npass *p, items *it, int k, bool *merged)
{
    const axe_mapping *o = p->out;
    int a1, a2;
    int64_t m1, m2, n1 = o->node[it->id[k]].size,
                    n2 = o->node[it->id[k + 1]].size;
    bool c1 = axe__mapping_chain(o, it->id[k], &a1, &m1);
    bool c2 = axe__mapping_chain(o, it->id[k + 1], &a2, &m2);
    *merged = false;
    if (!c1) {
        a1 = it->id[k];
        m1 = 1;
    }
    if (!c2) {
        a2 = it->id[k + 1];
        m2 = 1;
    }
    if ((!c1 && o->node[a1].op != AXE_MAPPING_SYMBOL) ||
        (!c2 && o->node[a2].op != AXE_MAPPING_SYMBOL) ||
        !axe_mapping_same_tree(o, a1, o, a2) || m1 != m2 * n2)
        return AXE_OK;
    AXE_TRY(put_chain(p, a2, o->node[a2].size, m2, n1 * n2, &it->id[k]));
    for (int j = k + 1; j + 1 < it->n; j++)
        it->id[j] = it->id[j + 1];
    it->n--;
    *merged = true;
    return AXE_OK;
}

static axe_status norm_pair(npass *p, int node, int *id)
{
    const axe_mapping_node *x = &p->in->node[node];
    items it = {0, {0}};
    int a, b;
    AXE_TRY(norm(p, x->a, &a));
    AXE_TRY(norm(p, x->b, &b));
    collect(p->out, a, &it);
    collect(p->out, b, &it);
    for (int k = 0; k + 1 < it.n;) {
        bool merged;
        AXE_TRY(try_merge(p, &it, k, &merged));
        k += !merged;
    }
    if (it.n == 0)
        return push(p, AXE_MAPPING_BROADCAST, -1, -1, 1, AXE_PADDING_TOP, id);
    *id = it.id[it.n - 1];
    for (int k = it.n - 2; k >= 0; k--)
        AXE_TRY(
            push(p, AXE_MAPPING_PAIR, it.id[k], *id, 0, AXE_PADDING_TOP, id));
    return AXE_OK;
}

/* `Y = n` over the output node "y": a resize keeps the first n cells, so
 * under a padding or a resize whose operand X has n cells or more it is
 * `X = n` (no padded cell is kept), over a padding of X with n > |X| it is
 * `X # n` of the same kind, of size |Y| it is Y, and of size 1 it is the
 * identity `1` (position 0 of any expression is the zero index, live). */
static axe_status norm_resize(npass *p, int y, int64_t n, int *id)
{
    const axe_mapping_node *x = &p->out->node[y];
    if (n == 1)
        return push(p, AXE_MAPPING_BROADCAST, -1, -1, 1, AXE_PADDING_TOP, id);
    while ((x->op == AXE_MAPPING_RESIZE || x->op == AXE_MAPPING_PADDING) &&
           n <= p->out->node[x->a].size) {
        y = x->a;
        x = &p->out->node[y];
    }
    if (x->op == AXE_MAPPING_PADDING)
        return push(p, AXE_MAPPING_PADDING, x->a, -1, n,
                    (axe_padding_kind)x->kind, id);
    if (x->size == n) {
        *id = y;
        return AXE_OK;
    }
    return push(p, AXE_MAPPING_RESIZE, y, -1, n, AXE_PADDING_TOP, id);
}

static axe_status norm(npass *p, int node, int *id)
{
    const axe_mapping_node *x = &p->in->node[node];
    int a;
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_SYMBOL:
    case AXE_MAPPING_BROADCAST:
        return axe_mapping_copy_subtree(p->out, p->in, node, id);
    case AXE_MAPPING_PAIR:
        return norm_pair(p, node, id);
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
        return norm_chain(p, node, id);
    case AXE_MAPPING_RESIZE:
        AXE_TRY(norm(p, x->a, &a));
        return norm_resize(p, a, x->n, id);
    case AXE_MAPPING_PADDING:
        AXE_TRY(norm(p, x->a, &a));
        if (p->out->node[a].size == x->n) {
            *id = a;
            return AXE_OK;
        }
        return push(p, (axe_mapping_op)x->op, a, -1, x->n,
                    (axe_padding_kind)x->kind, id);
    }
    return AXE_ERR_INVALID;
}

/* "in" rebuilt into a compact "out" (only the nodes reachable from the
 * root). */
static axe_status one_pass(const axe_mapping *in, axe_mapping *out,
                           axe_diag *diag)
{
    axe_mapping tmp;
    npass p = {in, &tmp, diag};
    int id;
    axe_mapping_init(&tmp, &in->axes);
    AXE_TRY(norm(&p, axe_mapping_root(in), &id));
    axe_mapping_init(out, &in->axes);
    return axe_mapping_copy_subtree(out, &tmp, id, &id);
}

axe_status axe_mapping_normalize(const axe_mapping *m, axe_mapping *out,
                                 axe_diag *diag)
{
    axe_mapping a, b;
    if (m == NULL || out == NULL || m->nnodes == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty expression");
    AXE_TRY(one_pass(m, &a, diag));
    for (int k = 0; k < PASSES_MAX; k++) {
        AXE_TRY(one_pass(&a, &b, diag));
        if (axe_mapping_same_tree(&a, axe_mapping_root(&a), &b,
                                  axe_mapping_root(&b))) {
            *out = b;
            return AXE_OK;
        }
        a = b;
    }
    return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                     "normalization did not settle in %d passes", PASSES_MAX);
}
