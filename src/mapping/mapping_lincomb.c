/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The doc-only forms of spec §11. A linear combination `$(e1:n1, ...)` has
 * size 1 + sum (|ek| - 1) nk and relates buffer position s to every
 * t = sum ek.map(sk) with sk < |ek| and s = sum sk nk (sliding windows: a
 * relation, not a function; combinations that reach padding relate to no
 * index). A skewed axis B' = B - A stores the index with B replaced by
 * (B' + A) mod |B|. Invariant: the enumeration visits at most
 * AXE_MAPPING_EVAL_MAX choices, and results are sorted and distinct.
 */
#include <string.h>

#include "mapping_internal.h"

axe_status axe_mapping_lincomb_size(const axe_mapping_lincomb *c, int64_t *out)
{
    int64_t s = 1, t;
    for (int k = 0; k < c->n; k++)
        if (axe__mul(axe_mapping_size(&c->term[k]) - 1, c->scale[k], &t) ||
            axe__add(s, t, &s))
            return AXE_ERR_OVERFLOW;
    *out = s;
    return AXE_OK;
}

typedef struct lsearch {
    const axe_mapping_lincomb *c;
    axe_mapping_cell *out;
    int cap, count;
    int64_t steps;
    axe_diag *diag;
} lsearch;

static int cell_cmp(const axe_mapping_cell *a, const axe_mapping_cell *b)
{
    for (int k = 0; k < AXE_MAPPING_MAX_AXES; k++)
        if (a->coord[k] != b->coord[k])
            return a->coord[k] < b->coord[k] ? -1 : 1;
    return 0;
}

/* Insert "t" into the sorted, distinct result list. */
static axe_status insert(lsearch *s, const axe_mapping_cell *t)
{
    int j = 0;
    while (j < s->count && cell_cmp(&s->out[j], t) < 0)
        j++;
    if (j < s->count && cell_cmp(&s->out[j], t) == 0)
        return AXE_OK;
    if (s->count == s->cap)
        return axe__fail(s->diag, AXE_ERR_CAPACITY, -1,
                         "more than %d related indices", s->cap);
    memmove(&s->out[j + 1], &s->out[j],
            (size_t)(s->count - j) * sizeof *s->out);
    s->out[j] = *t;
    s->count++;
    return AXE_OK;
}

/* Choose s_k for terms k.. with the remaining position "rest". */
static axe_status choose(lsearch *s, int k, int64_t rest,
                         const axe_mapping_cell *acc)
{
    const axe_mapping *e;
    int64_t nk, size;
    if (k == s->c->n)
        return rest == 0 ? insert(s, acc) : AXE_OK;
    e = &s->c->term[k];
    nk = s->c->scale[k];
    size = axe_mapping_size(e);
    for (int64_t sk = 0; sk < size && sk * nk <= rest; sk++) {
        axe_mapping_cell c, next;
        if (++s->steps > AXE_MAPPING_EVAL_MAX)
            return axe__fail(s->diag, AXE_ERR_CAPACITY, -1,
                             "more than %lld choices to enumerate",
                             (long long)AXE_MAPPING_EVAL_MAX);
        AXE_TRY(axe_mapping_map(e, sk, &c, s->diag));
        if (c.kind != AXE_CELL_INDEX)
            continue;
        if (axe_mapping_cell_combine(acc, &c, &next))
            return axe__fail(s->diag, AXE_ERR_OVERFLOW, -1,
                             "coordinate overflows");
        AXE_TRY(choose(s, k + 1, rest - sk * nk, &next));
    }
    return AXE_OK;
}

axe_status axe_mapping_lincomb_map(const axe_mapping_lincomb *c, int64_t s,
                                   axe_mapping_cell *out, int cap, int *count,
                                   axe_diag *diag)
{
    lsearch ls = {c, out, cap, 0, 0, diag};
    axe_mapping_cell zero;
    if (c == NULL || out == NULL || count == NULL || c->n < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty combination");
    axe_mapping_cell_zero(&zero);
    if (s >= 0)
        AXE_TRY(choose(&ls, 0, s, &zero));
    *count = ls.count;
    return AXE_OK;
}

axe_status axe_mapping_cell_unskew(const axe_mapping_axes *axes, int derived,
                                   int base, int by, axe_mapping_cell *cell)
{
    int64_t size, v;
    if (derived < 0 || base < 0 || by < 0 || derived >= axes->n ||
        base >= axes->n || by >= axes->n || derived == base)
        return AXE_ERR_INVALID;
    if (cell->kind != AXE_CELL_INDEX)
        return AXE_OK;
    size = axes->size[base];
    AXE_TRY(axe__add(cell->coord[derived], cell->coord[by], &v));
    AXE_TRY(axe__add(v, cell->coord[base], &v));
    cell->coord[base] = axe__floormod(v, size);
    cell->coord[derived] = 0;
    return AXE_OK;
}
