/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mapping expressions to Axe layouts (spec §10). After normalization an
 * expression that is affine per axis is a list of factors: digits
 * (X div mu) mod n of an axis X and broadcasts. Factor f sits at buffer
 * stride sigma_f = scale * (product of the sizes right of f); a digit
 * becomes the shard mode n:sigma_f and a broadcast the replica mode
 * n:sigma_f, both on the part's hardware axis. Per tensor axis the digits,
 * sorted by mu, must tile the axis exactly (mu = 1, then mu' = mu n, up to
 * the axis size); the shard lists them axis by axis in tensor order, most
 * significant first, so the lexicographic unflattening of the tensor index
 * recovers them. With "holes", a padding `L # n` lays L's factors out inside
 * a block of n cells (a layout whose span has holes), and so does a resize
 * `L = n` whose cut cells of L are all padding (`[B # 8] = 6`). Invariant: a
 * layout is returned only when every live position of every part holds exactly
 * the tensor indices the layout maps to it.
 */
#include <string.h>

#include "mapping_internal.h"

#define DIGITS_MAX (2 * AXE_LAYOUT_MAX_SHARD)
#define PARTS_MAX 8

typedef struct digit {
    int tensor;
    int64_t mu, n, sigma;
    const char *axis;
} digit;

typedef struct digits {
    int n;
    digit d[DIGITS_MAX];
    axe_layout layout; /* replicas collected here */
} digits;

static axe_status other_reason(const axe_mapping *m, int node, axe_diag *diag)
{
    switch ((axe_mapping_op)m->node[node].op) {
    case AXE_MAPPING_PADDING:
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "padding (# %lld): padded cells hold no tensor "
                         "index, so no Axe layout exists",
                         (long long)m->node[node].n);
    case AXE_MAPPING_RESIZE:
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "resize (= %lld) keeps part of its operand: not "
                         "every tensor index is stored the same number of "
                         "times (partial cover)",
                         (long long)m->node[node].n);
    case AXE_MAPPING_SYMBOL:
    case AXE_MAPPING_BROADCAST:
    case AXE_MAPPING_PAIR:
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
        break;
    }
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "a / or %% over a composite operand is not affine per "
                     "axis: no Axe layout");
}

static int tensor_of(const char *name, const char *const *tensor, int nt)
{
    for (int t = 0; t < nt; t++)
        if (strcmp(tensor[t], name) == 0)
            return t;
    return -1;
}

typedef struct walk {
    const axe_mapping_part *part;
    const axe_mapping *norm;
    const char *const *tensor;
    int nt;
    digits *ds;
    axe_diag *diag;
} walk;

static axe_status add_digit(const walk *w, const axe__factor *f, int64_t sigma)
{
    digit d = {-1, f->mu, f->n, sigma, w->part->axis};
    const char *name = w->norm->axes.name[f->axis];
    d.tensor = tensor_of(name, w->tensor, w->nt);
    if (d.tensor < 0)
        return axe__fail(w->diag, AXE_ERR_INVALID, -1,
                         "axis %s is not among the tensor axes", name);
    if (w->ds->n == DIGITS_MAX)
        return axe__fail(w->diag, AXE_ERR_CAPACITY, -1, "more than %d digits",
                         DIGITS_MAX);
    w->ds->d[w->ds->n++] = d;
    return AXE_OK;
}

/* One more than the last position of "node" of "m" that can be live (its
 * size when not known better): a padding's live cells are its operand's,
 * a pair's last live cell pairs the last live cells of its sides. */
static int64_t live_end(const axe_mapping *m, int node)
{
    const axe_mapping_node *x = &m->node[node];
    int64_t l, r;
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_PADDING:
        return live_end(m, x->a);
    case AXE_MAPPING_RESIZE:
        l = live_end(m, x->a);
        return l < x->size ? l : x->size;
    case AXE_MAPPING_PAIR:
        l = live_end(m, x->a);
        r = live_end(m, x->b);
        return (l - 1) * m->node[x->b].size + r;
    case AXE_MAPPING_SYMBOL:
    case AXE_MAPPING_BROADCAST:
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
        break;
    }
    return x->size;
}

/* Whether, with holes, factor node "x" lays its operand out inside its
 * block: a padding, or a resize that cuts only padded cells. */
static bool holds_operand(const walk *w, const axe_mapping_node *x)
{
    if (!w->part->holes)
        return false;
    return x->op == AXE_MAPPING_PADDING ||
           (x->op == AXE_MAPPING_RESIZE && live_end(w->norm, x->a) <= x->n);
}

/* The digits and replicas of the factors under "root", the last at buffer
 * stride "sigma"; with holes, a padding's operand is laid out inside the
 * padded block, and so is a resize's when it cuts only padded cells. */
static axe_status node_digits(const walk *w, int root, int64_t sigma)
{
    static const axe__factors empty;
    axe__factors fs = empty;
    axe__mapping_factors(w->norm, root, &fs);
    for (int k = fs.n - 1; k >= 0; k--) {
        const axe__factor *f = &fs.f[k];
        const axe_mapping_node *x = &w->norm->node[f->node];
        if (f->kind == AXE__FACTOR_OTHER && holds_operand(w, x))
            AXE_TRY(node_digits(w, x->a, sigma));
        else if (f->kind == AXE__FACTOR_OTHER)
            return other_reason(w->norm, f->node, w->diag);
        else if (f->kind == AXE__FACTOR_DIGIT && f->n > 1)
            AXE_TRY(add_digit(w, f, sigma));
        else if (f->kind == AXE__FACTOR_BROADCAST && f->n > 1)
            AXE_TRY(axe_layout_push_replica(&w->ds->layout, f->n, sigma,
                                            w->part->axis));
        if (axe__mul(sigma, f->n, &sigma))
            return axe__fail(w->diag, AXE_ERR_OVERFLOW, -1,
                             "buffer stride overflows");
    }
    return AXE_OK;
}

/* The digits and replicas of one part. */
static axe_status part_digits(const axe_mapping_part *part,
                              const char *const *tensor, int nt, digits *ds,
                              axe_diag *diag)
{
    axe_mapping norm;
    walk w = {part, &norm, tensor, nt, ds, diag};
    AXE_TRY(axe_mapping_normalize(part->expr, &norm, diag));
    return node_digits(&w, axe_mapping_root(&norm), part->scale);
}

/* The size of tensor axis "name" in the parts' tables; -1 if unknown. */
static int64_t axis_size(const axe_mapping_part *parts, int np,
                         const char *name)
{
    for (int p = 0; p < np; p++) {
        const axe_mapping_axes *a = &parts[p].expr->axes;
        int k = axe_mapping_axes_find(a, name, strlen(name));
        if (k >= 0)
            return a->size[k];
    }
    return -1;
}

/* Sort the digits of tensor axis "t" by mu descending into "out". */
static int axis_digits(const digits *ds, int t, digit *out)
{
    int n = 0;
    for (int k = 0; k < ds->n; k++) {
        int j;
        if (ds->d[k].tensor != t)
            continue;
        j = n++;
        while (j > 0 && out[j - 1].mu < ds->d[k].mu) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = ds->d[k];
    }
    return n;
}

/* Digits out[0..n) (mu descending) tile [0, size) exactly. */
static axe_status check_tiling(const digit *d, int n, const char *name,
                               int64_t size, axe_diag *diag)
{
    int64_t mu = 1;
    for (int k = n - 1; k >= 0; k--) {
        if (d[k].mu < mu)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "coordinates of %s overshoot: two digits of %s "
                             "overlap at stride %lld",
                             name, name, (long long)d[k].mu);
        if (d[k].mu > mu)
            break;
        mu *= d[k].n;
    }
    if (mu != size)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "partial cover: the digits of %s (size %lld) "
                         "cover only its multiples below %lld, so not every "
                         "tensor index is stored the same number of times",
                         name, (long long)size, (long long)mu);
    return AXE_OK;
}

static axe_status build(const axe_mapping_part *parts, int np,
                        const char *const *tensor, int nt, digits *ds,
                        axe_layout *out, axe_diag *diag)
{
    digit d[DIGITS_MAX];
    for (int t = 0; t < nt; t++) {
        int64_t size = axis_size(parts, np, tensor[t]);
        int n = axis_digits(ds, t, d);
        if (size < 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "unknown tensor axis %s", tensor[t]);
        AXE_TRY(check_tiling(d, n, tensor[t], size, diag));
        for (int k = 0; k < n; k++)
            if (axe_layout_push_shard(out, d[k].n, d[k].sigma, d[k].axis))
                return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                                 "more than %d shard modes (or a bad "
                                 "hardware axis name %s)",
                                 AXE_LAYOUT_MAX_SHARD, d[k].axis);
    }
    for (int r = 0; r < ds->layout.nreplica; r++)
        AXE_TRY(axe_layout_push_replica(out, ds->layout.replica[r].extent,
                                        ds->layout.replica[r].stride,
                                        ds->layout.replica[r].axis));
    return AXE_OK;
}

/* INVALID naming the first tensor axis that "tensor" lists twice. */
static axe_status check_distinct(const char *const *tensor, int n,
                                 axe_diag *diag)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (tensor[i] != NULL && tensor[j] != NULL &&
                strcmp(tensor[i], tensor[j]) == 0)
                return axe__fail(diag, AXE_ERR_INVALID, -1,
                                 "the tensor axes name %s twice", tensor[i]);
    return AXE_OK;
}

axe_status axe_mapping_to_layout(const axe_mapping_part *parts, int nparts,
                                 const char *const *tensor, int ntensor,
                                 axe_layout *out, axe_diag *diag)
{
    static const digits empty;
    digits ds = empty;
    axe_layout l;
    if (parts == NULL || out == NULL || nparts < 1 || nparts > PARTS_MAX ||
        ntensor < 0 || (ntensor > 0 && tensor == NULL))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "1 to %d parts and a tensor axis list", PARTS_MAX);
    AXE_TRY(check_distinct(tensor, ntensor, diag));
    axe_layout_init(&ds.layout);
    for (int p = 0; p < nparts; p++) {
        if (parts[p].expr == NULL || parts[p].expr->nnodes == 0 ||
            parts[p].scale < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "part %d is empty or has a scale below 1", p);
        AXE_TRY(part_digits(&parts[p], tensor, ntensor, &ds, diag));
    }
    axe_layout_init(&l);
    AXE_TRY(build(parts, nparts, tensor, ntensor, &ds, &l, diag));
    return axe_layout_canonicalize(&l, AXE_TARGET_NONE, out, diag);
}
