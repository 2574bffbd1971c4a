/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public face of the compiler (include/axe/kernel.h): compile = parse,
 * check, dispatch, all into one arena; accessors for the kernel's name,
 * tensor parameters, schedules and explanation. Invariant: a program
 * returned to the caller has passed every pass; on failure nothing is
 * returned and the arena is already freed.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist.h"
#include "compiler_synth.h"

static const char *const builtin_vars[AX_VAR_NBUILTIN] = {
    "bx",     "by",   "bz",        "tx",       "laneid",
    "warpid", "wgid", "tid_in_wg", "wid_in_wg"};

static axe_program *program_new(const axe_allocator *alloc)
{
    ax_arena *a = axe__arena_new(alloc);
    axe_program *p;
    int i;
    if (a == NULL)
        return NULL;
    p = axe__arena_alloc(a, sizeof *p);
    if (p == NULL) {
        axe__arena_free(a);
        return NULL;
    }
    p->arena = a;
    for (i = 0; i < AX_VAR_NBUILTIN; i++)
        strcpy(p->vars[i], builtin_vars[i]);
    for (i = 0; i < AX_MAX_VARS; i++)
        p->var_lo[i] = 1;
    p->nvars = AX_VAR_NBUILTIN;
    return p;
}

static axe_status copy_text(axe_program *p, const char *text, size_t len)
{
    char *t = axe__arena_alloc(p->arena, len + 1);
    if (t == NULL)
        return AXE_ERR_NO_MEMORY;
    memcpy(t, text, len);
    p->text = t;
    p->len = len;
    return AXE_OK;
}

/* "text" snprintf-style into "buf" (NULL and 0 accepted). */
static size_t put_full(const char *text, char *buf, size_t cap)
{
    size_t n = strlen(text);
    if (cap > 0) {
        size_t k = n < cap ? n : cap - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return n;
}

/* Whether every field of "m" is 0: options zeroed rather than made by
 * axe_kernel_options_init, which stand for the default model. */
static bool trn_is_zero(const axe_trn_model *m)
{
    static const axe_trn_model zero;
    return memcmp(m, &zero, sizeof zero) == 0;
}

/* A program holding a copy of "text" and the options, before any pass
 * (compile runs the passes; tests run them one at a time). */
axe_status axe__program_new(const char *text, size_t len,
                            const axe_kernel_options *opts,
                            const axe_allocator *alloc, axe_program **out)
{
    axe_program *p = program_new(alloc);
    *out = NULL;
    if (p == NULL)
        return AXE_ERR_NO_MEMORY;
    if (opts != NULL)
        p->opts = *opts;
    else
        axe_kernel_options_init(&p->opts);
    if (trn_is_zero(&p->opts.trn))
        axe_trn_model_default(&p->opts.trn);
    if (copy_text(p, text, len) != AXE_OK) {
        axe__arena_free(p->arena);
        return AXE_ERR_NO_MEMORY;
    }
    *out = p;
    return AXE_OK;
}

static axe_status run_passes(axe_program *p, axe_diag *diag)
{
    axe_status st = axe__program_parse(p, diag);
    if (st == AXE_OK)
        st = axe__program_synth(p, diag);
    if (st == AXE_OK)
        st = axe__program_check(p, diag);
    if (st == AXE_OK)
        st = axe__program_dispatch(p, diag);
    if (st == AXE_OK)
        st = axe__synth_accesses(p, diag);
    return st;
}

/* Parse, check and dispatch; the complete diagnostic into "full"
 * (include/axe/kernel.h). */
axe_status axe_program_compile_full(const char *text, size_t len,
                                    const axe_kernel_options *opts,
                                    const axe_allocator *alloc,
                                    axe_program **out, axe_diag *diag,
                                    char *full, size_t cap, size_t *full_len)
{
    axe_program *p;
    axe_status st;
    size_t n;
    axe_diag local;
    if (diag == NULL) /* the full text falls back on the diag's message */
        diag = &local;
    axe_diag_clear(diag);
    put_full("", full, cap);
    if (full_len != NULL)
        *full_len = 0;
    if (text == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "no text or no output");
    st = axe__program_new(text, len, opts, alloc, &p);
    if (st == AXE_OK)
        st = run_passes(p, diag);
    if (st == AXE_OK) {
        *out = p;
        return AXE_OK;
    }
    if (st == AXE_ERR_NO_MEMORY)
        (void)axe__fail(diag, st, -1, "out of memory");
    /* p is NULL only when axe__program_new ran out of memory. */
    n = put_full(st == AXE_ERR_NO_MEMORY ? "out of memory"
                 : p->full_diag != NULL  ? p->full_diag
                                         : diag->message,
                 full, cap);
    if (full_len != NULL)
        *full_len = n;
    axe_program_free(p);
    return st;
}

/* Parse, check and dispatch (include/axe/kernel.h). */
axe_status axe_program_compile(const char *text, size_t len,
                               const axe_kernel_options *opts,
                               const axe_allocator *alloc, axe_program **out,
                               axe_diag *diag)
{
    return axe_program_compile_full(text, len, opts, alloc, out, diag, NULL, 0,
                                    NULL);
}

/* Release the program's arena (NULL accepted). */
void axe_program_free(axe_program *p)
{
    if (p != NULL)
        axe__arena_free(p->arena);
}

/* The kernel's name. */
const char *axe_program_name(const axe_program *p) { return p->name; }

/* Number of tensor parameters (they come first among the tensors). */
int axe_program_tensor_count(const axe_program *p)
{
    int i, n = 0;
    for (i = 0; i < p->ntensors; i++)
        n += p->tensors[i].param;
    return n;
}

/* Whether "t"'s layout maps each coordinate's row-major index i to
 * element i (same induced map as the row-major layout of its shape; a
 * swizzled layout never is, and is not evaluated). */
static bool is_row_major(const ax_tensor *t)
{
    axe_layout rm;
    bool same = false;
    if (t->layout.swizzle.present ||
        axe_layout_row_major(t->shape, t->ndim, &rm) != AXE_OK ||
        axe_layout_equivalent(&t->layout, &rm, &same, NULL) != AXE_OK)
        return false;
    return same;
}

/* Tensor parameter "i". */
axe_kernel_tensor axe_program_tensor(const axe_program *p, int i)
{
    axe_kernel_tensor k;
    const ax_tensor *t = &p->tensors[i];
    memset(&k, 0, sizeof k);
    memcpy(k.name, t->name, sizeof k.name);
    k.dtype = t->dtype;
    k.elems = axe__span_at(p, t);
    k.written = t->written;
    k.ndim = t->ndim;
    memcpy(k.shape, t->shape, (size_t)t->ndim * sizeof k.shape[0]);
    k.row_major = t->dyn_extent != NULL || is_row_major(t);
    if (t->dyn_extent != NULL) /* its extent at launch (0 unbound) */
        k.shape[0] = p->bound ? axe__dyn_value(p, t->dyn_extent, 0) : 0;
    if (t->dist) { /* the logical tensor; the local buffer's size */
        k.distributed = true;
        k.local_elems = k.elems;
        k.elems = t->gsize;
        memcpy(k.shape, t->gshape, (size_t)t->ndim * sizeof k.shape[0]);
        k.row_major = true;
    }
    return k;
}

/* A device gemm of f16 or bf16 A and B sums its f32 C on tensor cores
 * in another order than the reference (docs/compiler.md, "Mixed
 * precision"): 2 K eps_f32 relative, f32's tolerance at least. */
axe_status axe_program_tensor_tolerance(const axe_program *p, int i,
                                        double *atol, double *rtol)
{
    static const double eps_f32 = 1.1920928955078125e-07; /* 2^-23 */
    int k;
    if (p == NULL || i < 0 || i >= p->ntensors || !p->tensors[i].param)
        return AXE_ERR_INVALID;
    AXE_TRY(axe_dtype_tolerance(p->tensors[i].dtype, atol, rtol));
    for (k = 0; k < p->ndevops; k++) {
        const ax_stmt *s = p->devops[k];
        const ax_tensor *a;
        if (s->op != AX_OP_GEMM || s->args[0].tensor != i)
            continue;
        a = axe__devop_tensor(p, s, 1);
        if ((a->dtype == AXE_DTYPE_F16 || a->dtype == AXE_DTYPE_BF16) &&
            2.0 * (double)a->gshape[1] * eps_f32 > *rtol)
            *rtol = 2.0 * (double)a->gshape[1] * eps_f32;
    }
    return AXE_OK;
}

axe_status axe_program_tensor_layout(const axe_program *p, int i,
                                     axe_layout *out)
{
    if (i < 0 || i >= axe_program_tensor_count(p))
        return AXE_ERR_INVALID;
    *out = p->tensors[i].dist ? p->tensors[i].glayout : p->tensors[i].layout;
    return AXE_OK;
}

static const ax_stmt *find_op(const axe_program *p, int i)
{
    return i >= 0 && i < p->nops ? p->ops[i] : NULL;
}

/* Schedule of operator "i" and its operator name. */
const char *axe_program_schedule(const axe_program *p, int i, const char **op)
{
    const ax_stmt *s = find_op(p, i);
    if (s == NULL)
        return NULL;
    if (op != NULL)
        *op = axe__op_name(s->op);
    return s->schedule;
}

/* The note of operator statement "i" (include/axe/kernel.h). */
const char *axe_program_note(const axe_program *p, int i, long *offset)
{
    const ax_stmt *s = find_op(p, i);
    if (s == NULL || s->note == NULL)
        return NULL;
    if (offset != NULL)
        *offset = s->off;
    return s->note;
}

/* Every operator's explanation, in source order (snprintf-style). */
size_t axe_program_explain(const axe_program *p, char *buf, size_t cap)
{
    size_t n = 0;
    int i = 0, j = 0;
    if (cap > 0)
        buf[0] = '\0';
    while (i < p->nops || j < p->ndevops) { /* both in source order */
        const ax_stmt *s = find_op(p, i);
        const ax_stmt *dv = j < p->ndevops ? p->devops[j] : NULL;
        const char *e;
        size_t k;
        if (s == NULL || (dv != NULL && dv->seq < s->seq))
            e = dv->explain, j++;
        else
            e = s->explain, i++;
        k = strlen(e);
        if (n + k < cap)
            memcpy(buf + n, e, k + 1);
        else if (n < cap)
            buf[n] = '\0';
        n += k;
    }
    return n;
}

/* a * b and a + b, saturating at INT64_MAX (a, b >= 0). */
static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return axe__mul(a, b, &r) == AXE_OK ? r : INT64_MAX;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t ctas(const axe_program *p)
{
    return sat_mul(sat_mul(axe__dyn_value(p, p->dgrid[0], p->grid[0]),
                           axe__dyn_value(p, p->dgrid[1], p->grid[1])),
                   axe__dyn_value(p, p->dgrid[2], p->grid[2]));
}

/* Instances of "s"'s scope in the launch (a kernel operator: one). */
static int64_t instances(const axe_program *p, const ax_stmt *s)
{
    if (s->scope == AX_SCOPE_KERNEL)
        return 1;
    return sat_mul(p->threads / axe__scope_threads(p, s->scope), ctas(p));
}

/* The elements of the operator's shape, broadcast dimensions included. */
static int64_t op_elems(const ax_stmt *s)
{
    const ax_ref *r = &s->args[s->op == AX_OP_REDUCE ? 1 : 0];
    int64_t n = 1;
    int d;
    for (d = 0; d < axe__ref_ndim(r); d++)
        n = sat_mul(n, axe__ref_len(r, d));
    return n;
}

/* A device gemm's flops on one device: 2 Mloc Nloc Kloc of its local
 * GEMM (axe__dist_gemm), 0 where it has no plan. */
static int64_t devgemm_flops(const axe_program *p, const ax_stmt *s)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d;
    int64_t f = 0;
    if (g != NULL && axe__dist_gemm(p, s, g, &d) == AXE_OK)
        f = sat_mul(sat_mul(2 * g->mloc, g->nloc), g->kloc);
    free(g);
    return f;
}

/* The element operations of the mesh reference's device operator "s"
 * (compiler_ref_dist.c): a copy's destination elements, a reduce's source
 * elements, a gemm's loads of A and B and 2 M N K (multiply and add). */
static int64_t devop_work(const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d = axe__devop_tensor(p, s, 0);
    const ax_tensor *a = axe__devop_tensor(p, s, 1);
    if (s->op == AX_OP_COPY)
        return d->gsize;
    if (s->op == AX_OP_REDUCE)
        return a->gsize;
    return sat_add(
        sat_add(a->gsize, axe__devop_tensor(p, s, 2)->gsize),
        sat_mul(sat_mul(2 * d->gshape[0], d->gshape[1]), a->gshape[1]));
}

/* Flops (gemm only, outside ifs as before; a device gemm's local GEMM on
 * one device) or work (every operator, an if's both branches; a gemm's
 * multiply and add counted apart, as its flops; a local operator times
 * the mesh's devices, which the reference runs it on, a device operator
 * its own work once) of block "s", loops (device loops kept as loops
 * too) times their trips. */
static int64_t block_sum(const axe_program *p, const ax_stmt *s, bool flops)
{
    int64_t f = 0, dev = p->ndev > 0 ? p->ndev : 1;
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_FOR)
            f = sat_add(f, sat_mul(axe__dyn_value(p, s->dtrip, s->trip),
                                   block_sum(p, s->body, flops)));
        else if (s->kind == AX_ST_IF && !flops) /* both branches */
            f = sat_add(f, sat_add(block_sum(p, s->body, flops),
                                   block_sum(p, s->else_body, flops)));
        else if (s->kind == AX_ST_DEVICE && flops && s->op == AX_OP_GEMM)
            f = sat_add(f, devgemm_flops(p, s));
        else if (s->kind == AX_ST_DEVICE && !flops)
            f = sat_add(f, devop_work(p, s));
        else if (s->kind == AX_ST_OP && (!flops || s->op == AX_OP_GEMM))
            f = sat_add(f, sat_mul(sat_mul(sat_mul(s->op == AX_OP_GEMM ? 2 : 1,
                                                   op_elems(s)),
                                           instances(p, s)),
                                   flops ? 1 : dev));
    }
    return f;
}

/* 2 M N K per gemm instance, times trips, instances and CTAs. */
int64_t axe_program_flops(const axe_program *p)
{
    return block_sum(p, p->body, true);
}

/* Element operations of one launch plus the parameters' elements; with
 * a mesh, every device's launch and parameters (the reference runs each)
 * plus the device operators' own. */
int64_t axe_program_work(const axe_program *p)
{
    int64_t w = block_sum(p, p->body, false), params = 0;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            params = sat_add(params, axe__span_at(p, &p->tensors[i]));
    return sat_add(w, sat_mul(params, p->ndev > 0 ? p->ndev : 1));
}
