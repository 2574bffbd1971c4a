/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared-memory bank view: each logical element's address a (on the
 * memory axis m, after any swizzle), its bank (a * bytes / 4) mod 32 (32
 * banks of 4 bytes) and the thread of one warp that reads it. Thread t <
 * 32 reads the element at logical index access(t) (default t, for the
 * first min(32, elements) threads); a bank
 * that serves k > 1 different 4-byte words to the warp is a k-way
 * conflict: its cells are marked and listed under the grid. Elements of 1,
 * 2 or 4 bytes only (so an element lies in one word). Invariant: the
 * address of every cell is axe_layout_apply_set of its element.
 */
#include <string.h>

#include "render_internal.h"

#define BANKS 32
#define WARP 32

/* The single address on `m` of cell "k", or UNSUPPORTED with the reason. */
static axe_status address_of(const axe_render_options *o, const axe_layout *l,
                             const axe__render_model *m, int64_t k,
                             int64_t *addr, axe_diag *diag)
{
    axe_point pts[2];
    int64_t bytes;
    int n = 0;
    AXE_TRY(axe__render_apply_cell(m, l, k, pts, 2, &n, diag));
    *addr = 0;
    if (n != 1)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the bank view needs one address per element; this "
                         "layout has replicas (try --as physical)");
    for (int i = 0; i < pts[0].n; i++) {
        if (strcmp(pts[0].axis[i], "m") == 0)
            *addr = pts[0].v[i];
        else if (pts[0].v[i] != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "the bank view needs a layout on the memory "
                             "axis m alone; this one uses '%.15s' (try --as "
                             "physical)",
                             pts[0].axis[i]);
    }
    if (axe__mul(*addr, o->elem_bytes, &bytes) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "address %lld in bytes overflows", (long long)*addr);
    return AXE_OK;
}

/* The cell that thread "t" reads. */
static axe_status cell_of_thread(const axe_render_options *o,
                                 const axe__render_model *m, int64_t t,
                                 int64_t *k, axe_diag *diag)
{
    int64_t idx = t, cells = m->rows * m->cols;
    if (o->has_access)
        AXE_TRY(axe_cute_eval(&o->access, t, &idx));
    if (idx < 0 || idx >= cells)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "thread %lld reads index %lld, outside the %lld "
                         "elements",
                         (long long)t, (long long)idx, (long long)cells);
    *k = o->colex && o->ndims > 1 ? (idx % m->rows) * m->cols + idx / m->rows
                                  : idx;
    return AXE_OK;
}

typedef struct access {
    int64_t nthreads;
    int64_t cell[WARP], word[WARP];
    int degree[BANKS];
} access;

/* Which cell and word every thread reads; the distinct words per bank. */
static axe_status read_access(const axe_render_options *o,
                              const axe__render_model *m, const int64_t *addr,
                              access *a, axe_diag *diag)
{
    int64_t size = m->rows * m->cols;
    if (o->has_access)
        AXE_TRY(axe_cute_size(&o->access, &size));
    a->nthreads = size < WARP ? size : WARP;
    memset(a->degree, 0, sizeof a->degree);
    for (int64_t t = 0; t < a->nthreads; t++) {
        bool seen = false;
        AXE_TRY(cell_of_thread(o, m, t, &a->cell[t], diag));
        a->word[t] = axe__floordiv(addr[a->cell[t]] * o->elem_bytes, 4);
        for (int64_t u = 0; u < t && !seen; u++)
            seen = a->word[u] == a->word[t];
        if (!seen)
            a->degree[axe__floormod(a->word[t], BANKS)]++;
    }
    return AXE_OK;
}

/* The summary line and one line per conflicting bank. */
static void put_notes(axe__render_model *m, const access *a)
{
    int worst = 1;
    for (int b = 0; b < BANKS; b++)
        worst = a->degree[b] > worst ? a->degree[b] : worst;
    axe__render_putf(&m->notes, "%lld threads read; ", (long long)a->nthreads);
    if (worst == 1)
        axe__render_puts(&m->notes, "no bank conflict\n");
    else
        axe__render_putf(&m->notes, "%d-way bank conflict (%d wavefronts)\n",
                         worst, worst);
    for (int b = 0; b < BANKS; b++) {
        if (a->degree[b] < 2)
            continue;
        axe__render_putf(&m->notes, "bank %d: %d words, threads", b,
                         a->degree[b]);
        for (int64_t t = 0; t < a->nthreads; t++)
            if (axe__floormod(a->word[t], BANKS) == b)
                axe__render_putf(&m->notes, " %lld", (long long)t);
        axe__render_puts(&m->notes, "\n");
    }
}

/* Cells: address, bank, first reading thread; marks on conflicts. */
static axe_status fill(axe__render_model *m, const int64_t *addr,
                       const access *a, int64_t eb)
{
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t v[3] = {addr[k], axe__floormod(addr[k] * eb / 4, BANKS),
                        AXE__RENDER_NONE};
        for (int64_t t = a->nthreads - 1; t >= 0; t--)
            if (a->cell[t] == k)
                v[2] = t;
        m->mark[k] = v[2] != AXE__RENDER_NONE && a->degree[v[1]] > 1;
        m->key[k] = v[1];
        axe__render_model_cell(m, k);
        AXE_TRY(axe__render_model_push(m, v));
    }
    axe__render_model_done(m);
    return AXE_OK;
}

/* Entries are (addr, bank, thread), abbreviated a, b, t; colored by bank. */
static void set_axes(axe__render_model *m)
{
    static const char *const names[3] = {"addr", "bank", "thread"};
    m->ax.n = 3;
    for (int i = 0; i < 3; i++) {
        memset(m->ax.name[i], 0, AXE_AXIS_NAME_MAX);
        memcpy(m->ax.name[i], names[i], strlen(names[i]));
    }
    axe__render_abbreviate(&m->ax, false);
    memcpy(m->color_axis, "bank", 5);
}

/* The bank view of "l" over o->shape with one warp's access (file comment). */
axe_status axe__render_view_banks(axe__render_model *m,
                                  const axe_render_options *o,
                                  const axe_layout *l, axe_diag *diag)
{
    int64_t rows, cols, *addr;
    access a;
    axe_status st = AXE_OK;
    if (o->elem_bytes != 1 && o->elem_bytes != 2 && o->elem_bytes != 4)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the bank view models elements of 1, 2 or 4 bytes, "
                         "not %lld",
                         (long long)o->elem_bytes);
    AXE_TRY(axe__render_logical_model(m, o, l, "the bank view", diag));
    rows = m->rows;
    cols = m->cols;
    set_axes(m);
    addr = axe__render_alloc(m->alloc, m->ud, NULL, 0,
                             (size_t)(rows * cols) * sizeof(int64_t));
    if (addr == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int64_t k = 0; k < rows * cols && st == AXE_OK; k++)
        st = address_of(o, l, m, k, &addr[k], diag);
    if (st == AXE_OK)
        st = read_access(o, m, addr, &a, diag);
    if (st == AXE_OK)
        st = fill(m, addr, &a, o->elem_bytes);
    if (st == AXE_OK)
        put_notes(m, &a);
    (void)axe__render_alloc(m->alloc, m->ud, addr,
                            (size_t)(rows * cols) * sizeof(int64_t), 0);
    return st != AXE_OK ? st : m->notes.status;
}
