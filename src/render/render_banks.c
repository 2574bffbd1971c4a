/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared-memory bank view: each logical element's address a (on the
 * memory axis m, after any swizzle, in elements of "bytes" bytes), its
 * bank floor(a * bytes / 4) mod 32 (32 banks of 4 bytes; mathematical
 * floor and modulo, so address -1 of 2-byte elements is in bank 31) and
 * the thread of one warp that reads it. Thread t < 32 reads the element
 * at logical index access(t) (default t, for the first min(32, elements)
 * threads): elements of 1, 2 or 4 bytes lie in one word and the warp is
 * served in one phase; 8-byte elements (LDS.64) in 2 phases of 16 threads
 * and 16-byte elements (LDS.128, ldmatrix rows) in 4 phases of 8 threads,
 * each thread reading bytes/4 consecutive words (a phase moves at most 128
 * bytes). Within a phase, a bank that serves k > 1 different words is a
 * k-way conflict: the phase takes k wavefronts; its cells are marked and
 * listed under the grid. Invariant: the address of every cell is
 * axe_layout_apply_set of its element.
 */
#include <string.h>

#include "render_internal.h"

#define BANKS 32
#define WARP 32
#define PHASES 4 /* the most phases of one request (16-byte elements) */

/* The single address on `m` of cell "k", or UNSUPPORTED with the reason
 * (replicas, or another axis: try the physical view). */
static axe_status address_of(const axe_render_options *o, const axe_layout *l,
                             const axe__render_model *m, int64_t k,
                             int64_t *addr, axe_diag *diag)
{
    axe_point pts[1];
    int64_t bytes;
    int n = 0;
    AXE_TRY(axe__render_apply_cell(m, l, k, pts, 1, &n, diag));
    *addr = 0;
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

/* UNSUPPORTED when "l" has replicas (an element at several addresses). */
static axe_status no_replicas(const axe_layout *l, axe_diag *diag)
{
    for (int i = 0; i < l->nreplica; i++)
        if (l->replica[i].extent > 1)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "the bank view needs one address per element; "
                             "this layout has replicas (try --as physical)");
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
    int per_phase, nphases, words;  /* threads a phase, phases, words each */
    int64_t cell[WARP], word[WARP]; /* the cell and first word of thread t */
    int degree[PHASES][BANKS];      /* distinct words per bank and phase */
} access;

/* The bank of word "w". */
static int bank_of(int64_t w) { return (int)axe__floormod(w, BANKS); }

/* Whether thread "t" reads word "w" (one of its a->words words). */
static bool reads_word(const access *a, int64_t t, int64_t w)
{
    return w >= a->word[t] && w < a->word[t] + a->words;
}

/* Count the words of thread "t" no earlier thread of its phase reads. */
static void count_words(access *a, int64_t t)
{
    int p = (int)(t / a->per_phase);
    for (int64_t w = a->word[t]; w < a->word[t] + a->words; w++) {
        bool seen = false;
        for (int64_t u = p * a->per_phase; u < t && !seen; u++)
            seen = reads_word(a, u, w);
        if (!seen)
            a->degree[p][bank_of(w)]++;
    }
}

/* Which cell and words every thread reads; the distinct words per bank
 * in each phase. */
static axe_status read_access(const axe_render_options *o,
                              const axe__render_model *m, const int64_t *addr,
                              access *a, axe_diag *diag)
{
    int64_t size = m->rows * m->cols;
    if (o->has_access)
        AXE_TRY(axe_cute_size(&o->access, &size));
    memset(a, 0, sizeof *a);
    a->nthreads = size < WARP ? size : WARP;
    a->words = o->elem_bytes > 4 ? (int)o->elem_bytes / 4 : 1;
    a->per_phase = WARP / a->words;
    a->nphases = (int)((a->nthreads + a->per_phase - 1) / a->per_phase);
    for (int64_t t = 0; t < a->nthreads; t++) {
        AXE_TRY(cell_of_thread(o, m, t, &a->cell[t], diag));
        a->word[t] = axe__floordiv(addr[a->cell[t]] * o->elem_bytes, 4);
        count_words(a, t);
    }
    return AXE_OK;
}

/* The worst conflict degree of phase "p" (1: none). */
static int phase_degree(const access *a, int p)
{
    int worst = 1;
    for (int b = 0; b < BANKS; b++)
        worst = a->degree[p][b] > worst ? a->degree[p][b] : worst;
    return worst;
}

/* Whether thread "t" touches a bank with a conflict in its phase. */
static bool in_conflict(const access *a, int64_t t)
{
    int p = (int)(t / a->per_phase);
    for (int64_t w = a->word[t]; w < a->word[t] + a->words; w++)
        if (a->degree[p][bank_of(w)] > 1)
            return true;
    return false;
}

/* "bank 0: 8 words, threads 0 1 ..." for each conflicting bank of phase
 * "p" ("phase 1 bank 0: ..." when the request has several phases). */
static void put_phase_banks(axe__render_model *m, const access *a, int p)
{
    for (int b = 0; b < BANKS; b++) {
        if (a->degree[p][b] < 2)
            continue;
        if (a->per_phase < WARP)
            axe__render_putf(&m->notes, "phase %d ", p);
        axe__render_putf(&m->notes, "bank %d: %d words, threads", b,
                         a->degree[p][b]);
        for (int64_t t = p * a->per_phase;
             t < (p + 1) * a->per_phase && t < a->nthreads; t++) {
            bool hit = false;
            for (int64_t w = a->word[t]; w < a->word[t] + a->words; w++)
                hit = hit || bank_of(w) == b;
            if (hit)
                axe__render_putf(&m->notes, " %lld", (long long)t);
        }
        axe__render_puts(&m->notes, "\n");
    }
}

/* The summary line and one line per conflicting bank (and phase). */
static void put_notes(axe__render_model *m, const access *a, int64_t bytes)
{
    int worst = 1, waves = 0;
    for (int p = 0; p < a->nphases; p++) {
        int d = phase_degree(a, p);
        worst = d > worst ? d : worst;
        waves += d;
    }
    axe__render_putf(&m->notes, "%lld threads read", (long long)a->nthreads);
    if (a->per_phase < WARP)
        axe__render_putf(&m->notes,
                         " %lld bytes each in phases of %d threads (%d "
                         "phase%s)",
                         (long long)bytes, a->per_phase, a->nphases,
                         a->nphases > 1 ? "s" : "");
    if (worst == 1 && a->per_phase == WARP)
        axe__render_puts(&m->notes, "; no bank conflict\n");
    else if (worst == 1)
        axe__render_putf(&m->notes, "; no bank conflict (%d wavefront%s)\n",
                         waves, waves > 1 ? "s" : "");
    else
        axe__render_putf(&m->notes, "; %d-way bank conflict (%d wavefronts)\n",
                         worst, waves);
    for (int p = 0; p < a->nphases; p++)
        put_phase_banks(m, a, p);
}

/* Cells: address, bank of the first word, first reading thread; marks
 * on the cells of threads in a conflict. */
static axe_status fill(axe__render_model *m, const int64_t *addr,
                       const access *a, int64_t eb)
{
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t v[3] = {addr[k], bank_of(axe__floordiv(addr[k] * eb, 4)),
                        AXE__RENDER_NONE};
        for (int64_t t = a->nthreads - 1; t >= 0; t--)
            if (a->cell[t] == k) {
                v[2] = t;
                m->mark[k] = m->mark[k] || in_conflict(a, t);
            }
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
    if (o->elem_bytes < 1 || o->elem_bytes > 16 ||
        (o->elem_bytes & (o->elem_bytes - 1)) != 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the bank view models elements of 1, 2, 4, 8 or 16 "
                         "bytes, not %lld",
                         (long long)o->elem_bytes);
    AXE_TRY(no_replicas(l, diag));
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
        put_notes(m, &a, o->elem_bytes);
    (void)axe__render_alloc(m->alloc, m->ud, addr,
                            (size_t)(rows * cols) * sizeof(int64_t), 0);
    return st != AXE_OK ? st : m->notes.status;
}
