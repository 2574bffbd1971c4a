/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference interpreter: a program's meaning from the operators'
 * logical semantics, independent of schedules and plans. Statements run in
 * order; an operator at scope S runs once per instance of S (each thread,
 * each warp, each warpgroup, or once per CTA) and applies its function to
 * every logical coordinate of the destination. Global tensors live in the
 * caller's buffers, shared tensors in per-CTA arrays of doubles of their
 * span; both are addressed through their layouts with the library's apply
 * (axe_layout_apply_base), views through their own layout. Register
 * tensors are logical row-major arrays of doubles per instance of their
 * owner. Shared and register storage is zeroed when a CTA starts. Every stored
 * value is rounded to its dtype, integers wrap (two's complement) and
 * float -> integer conversions saturate (NaN -> 0), as on a GPU; f16 and
 * bf16 values are rounded to float first (their arithmetic type), then to
 * the 16-bit type (e4m3 and e5m2 likewise, to 8 bits), and a gemm
 * product of them is rounded to float.
 * With a race detector (compiler_race.c), every access to a global or
 * shared element is also reported to it, with the operand that makes it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_math.h"
#include "layout_internal.h"

typedef struct ref_state {
    const axe_program *p;
    void *const *bufs;
    int64_t *table[AX_MAX_TENSORS]; /* global: logical index -> address */
    double *store[AX_MAX_TENSORS];  /* shared: span; register: inst x size */
    int64_t size[AX_MAX_TENSORS];
    int64_t env[AX_MAX_VARS];
    ax_race *race;        /* NULL: no race detection */
    const ax_stmt *first; /* the first statement run (a mesh program's
                             segment ends at the next device operator) */
    double *argv;         /* argmax/argmin: the best value of each result */
    /* The running instance's operand starts, where they read no tensor
     * element (pure[i]): constant over the instance, so evaluated once
     * (cache_starts) rather than at every element. */
    bool by_elements;   /* no gemm by ranges (axe__reference_by_elements) */
    uint8_t *pure_args; /* per operator: bit i, operand i's starts are pure */
    const ax_stmt *cached;
    bool pure[AX_MAX_ARGS];
    int64_t start[AX_MAX_ARGS][AX_MAX_DIMS];
    bool failed; /* a data-dependent start was out of bounds */
    char err[AXE_DIAG_MESSAGE_MAX];
} ref_state;

static int64_t locate(const ref_state *rs, const ax_ref *r, const int64_t *c,
                      const int64_t *st, int tid);
static double load_buf(axe_dtype d, const void *b, int64_t a);

/* A data-dependent start's element, read by thread "tid". */
typedef struct load_ctx {
    const ref_state *rs;
    int tid;
} load_ctx;

static int64_t read_elem(void *ctx, const ax_ref *r, const int64_t *idx)
{
    const load_ctx *lc = ctx;
    const ax_tensor *t = &lc->rs->p->tensors[r->tensor];
    static const int64_t zero[AX_MAX_DIMS];
    int64_t a = locate(lc->rs, r, zero, NULL, lc->tid);
    (void)idx; /* locate evaluates the same coordinates */
    if (t->mem == AX_MEM_GLOBAL)
        return (int64_t)load_buf(t->dtype, lc->rs->bufs[r->tensor], a);
    return (int64_t)lc->rs->store[r->tensor][a];
}

/* "e" for thread "tid", its loads read from the current memory. */
static int64_t eval(const ref_state *rs, const ax_expr *e, int tid)
{
    load_ctx lc;
    ax_loader ld;
    lc.rs = rs;
    lc.tid = tid;
    ld.fn = read_elem;
    ld.ctx = &lc;
    return axe__expr_eval_ld(e, rs->env, &ld);
}

/* Logical elements of "t" (a runtime extent at the bound scalars). */
static int64_t tensor_size(const axe_program *p, const ax_tensor *t)
{
    int64_t n = axe__dyn_value(p, t->dyn_extent, t->shape[0]);
    int d;
    for (d = 1; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static int64_t instances(const axe_program *p, const ax_tensor *t)
{
    if (t->mem == AX_MEM_SHARED)
        return 1;
    if (!t->distributed)
        return p->threads;
    return p->threads / axe__scope_threads(p, t->owner);
}

static axe_status build_table(ref_state *rs, int i, axe_diag *diag)
{
    const ax_tensor *t = &rs->p->tensors[i];
    int64_t x, n = tensor_size(rs->p, t);
    rs->table[i] = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (rs->table[i] == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (x = 0; x < n; x++) {
        axe_point pt;
        int k;
        AXE_TRY(axe_layout_apply_base(&t->layout, x, &pt, diag));
        rs->table[i][x] = 0;
        for (k = 0; k < pt.n; k++)
            if (strcmp(pt.axis[k], "m") == 0)
                rs->table[i][x] = pt.v[k];
    }
    return AXE_OK;
}

static double load_buf(axe_dtype d, const void *b, int64_t a)
{
    switch (d) {
    case AXE_DTYPE_F32:
        return ((const float *)b)[a];
    case AXE_DTYPE_F64:
        return ((const double *)b)[a];
    case AXE_DTYPE_I8:
        return ((const int8_t *)b)[a];
    case AXE_DTYPE_I32:
        return ((const int32_t *)b)[a];
    case AXE_DTYPE_F16:
        return axe_f16_to_float(((const uint16_t *)b)[a]);
    case AXE_DTYPE_BF16:
        return axe_bf16_to_float(((const uint16_t *)b)[a]);
    case AXE_DTYPE_E4M3:
        return axe_e4m3_to_float(((const uint8_t *)b)[a]);
    case AXE_DTYPE_E5M2:
        return axe_e5m2_to_float(((const uint8_t *)b)[a]);
    case AXE_DTYPE_I4:
        return axe__i4_get(b, a);
    }
    return 0;
}

/* The integer "v" wrapped to the i4, i8 or i32 "d": two's complement,
 * the low 4, 8 or 32 bits read as a signed value. */
static double wrap_int(axe_dtype d, int64_t v)
{
    uint32_t u = (uint32_t)(uint64_t)v;
    if (d == AXE_DTYPE_I4) {
        u &= 0xfu;
        return u < 0x8u ? (double)u : (double)u - 16.0;
    }
    if (d == AXE_DTYPE_I8) {
        u &= 0xffu;
        return u < 0x80u ? (double)u : (double)u - 256.0;
    }
    return u < 0x80000000u ? (double)u : (double)u - 4294967296.0;
}

/* The float "v" converted to the i4, i8 or i32 "d" as cvt.rzi.sat does:
 * toward zero, saturated at the type's limits, NaN -> 0. */
double axe__int_saturate(axe_dtype d, double v)
{
    double lo = d == AXE_DTYPE_I4   ? -8.0
                : d == AXE_DTYPE_I8 ? -128.0
                                    : -2147483648.0;
    double hi = d == AXE_DTYPE_I4   ? 7.0
                : d == AXE_DTYPE_I8 ? 127.0
                                    : 2147483647.0;
    if (v != v)
        return 0;
    v = trunc(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32 || d == AXE_DTYPE_I4;
}

/* "v" converted to "d": floats round, integer results wrap (they are
 * exact integers below 2^62 here; anything else saturates). */
static double round_to(axe_dtype d, double v)
{
    switch (d) {
    case AXE_DTYPE_F32:
        return (double)(float)v;
    case AXE_DTYPE_I4:
    case AXE_DTYPE_I8:
    case AXE_DTYPE_I32:
        return fabs(v) < 0x1p62 && v == trunc(v) ? wrap_int(d, (int64_t)v)
                                                 : axe__int_saturate(d, v);
    case AXE_DTYPE_F16:
        return axe_f16_to_float(axe_f16_from_float((float)v));
    case AXE_DTYPE_BF16:
        return axe_bf16_to_float(axe_bf16_from_float((float)v));
    case AXE_DTYPE_E4M3:
        return axe_e4m3_to_float(axe_e4m3_from_float((float)v));
    case AXE_DTYPE_E5M2:
        return axe_e5m2_to_float(axe_e5m2_from_float((float)v));
    case AXE_DTYPE_F64:
        break;
    }
    return v;
}

/* The fill value "v" of a masked region of dtype "d", as a value of it:
 * integers saturate toward zero (as `fill`), floats round to the dtype
 * (sema keeps |v| within float's range for the narrower types). */
double axe__mask_fill(axe_dtype d, double v)
{
    return is_int(d) ? axe__int_saturate(d, v) : round_to(d, v);
}

static void store_buf(axe_dtype d, void *b, int64_t a, double v)
{
    v = round_to(d, v);
    switch (d) {
    case AXE_DTYPE_F32:
        ((float *)b)[a] = (float)v;
        return;
    case AXE_DTYPE_F64:
        ((double *)b)[a] = v;
        return;
    case AXE_DTYPE_I8:
        ((int8_t *)b)[a] = (int8_t)v;
        return;
    case AXE_DTYPE_I32:
        ((int32_t *)b)[a] = (int32_t)v;
        return;
    case AXE_DTYPE_F16:
        ((uint16_t *)b)[a] = axe_f16_from_float((float)v);
        return;
    case AXE_DTYPE_BF16:
        ((uint16_t *)b)[a] = axe_bf16_from_float((float)v);
        return;
    case AXE_DTYPE_E4M3:
        ((uint8_t *)b)[a] = axe_e4m3_from_float((float)v);
        return;
    case AXE_DTYPE_E5M2:
        ((uint8_t *)b)[a] = axe_e5m2_from_float((float)v);
        return;
    case AXE_DTYPE_I4:
        axe__i4_set(b, a, (int)v);
        return;
    }
}

/* Where coordinate "c" of operand "r" lives: a buffer address (global) or
 * an index into the instance's logical store. */
/* The storage address of the view tile address "x" (the library's
 * swizzle; sema has checked its parameters). */
static int64_t swizzled(const axe_layout_swizzle *sw, int64_t x)
{
    int64_t y;
    return axe__swizzle_addr(sw, x, &y) == AXE_OK ? y : x;
}

/* "st": the operand's cached starts (ref_state.start), or NULL. */
static int64_t locate(const ref_state *rs, const ax_ref *r, const int64_t *c,
                      const int64_t *st, int tid)
{
    const ax_tensor *t = &rs->p->tensors[r->tensor];
    int64_t x = 0;
    int d, n = r->is_view ? r->ndim : t->ndim;
    for (d = 0; d < n; d++) {
        int64_t cd = c[d + (r->bdim >= 0 && d >= r->bdim)];
        if (r->is_view)
            x += cd * r->view.shard[d].stride;
        else
            x = x * t->shape[d] + cd +
                (st != NULL    ? st[d]
                 : r->start[d] ? eval(rs, r->start[d], tid)
                               : 0);
    }
    if (r->is_view) {
        for (d = 0; d < r->view.noffset; d++)
            x += r->view.offset[d].value;
        x += r->view_dyn ? axe__expr_eval(r->view_dyn, rs->env) : 0;
        return swizzled(&r->view.swizzle, x);
    }
    if (t->mem != AX_MEM_REGISTER)
        return rs->table[r->tensor][x];
    if (t->distributed)
        tid /= (int)axe__scope_threads(rs->p, t->owner);
    return (int64_t)tid * rs->size[r->tensor] + x;
}

/* Whether coordinate "c" of operand "r" lies inside its tensor in every
 * masked dimension (the others are in bounds by sema or run-time checks). */
static bool inside(const ref_state *rs, const ax_ref *r, const int64_t *c,
                   const int64_t *st, int tid)
{
    const ax_tensor *t = &rs->p->tensors[r->tensor];
    int d;
    for (d = 0; r->any_masked && d < r->ndim; d++) {
        int64_t x, ext;
        if (!r->masked[d])
            continue;
        x = c[d + (r->bdim >= 0 && d >= r->bdim)] +
            (st != NULL    ? st[d]
             : r->start[d] ? eval(rs, r->start[d], tid)
                           : 0);
        ext = d == 0 ? axe__dyn_value(rs->p, t->dyn_extent, t->shape[0])
                     : t->shape[d];
        if (x < 0 || x >= ext)
            return false;
    }
    return true;
}

/* Bit i: the starts of operand i of "s" read no tensor element. */
static uint8_t pure_bits(const ax_stmt *s)
{
    uint8_t bits = 0;
    int i, d, n;
    for (i = 0; i < s->nargs; i++) { /* AX_MAX_ARGS (4) bits */
        bool pure = true;
        for (d = 0; pure && d < AX_MAX_DIMS; d++)
            pure = axe__expr_load(s->args[i].start[d], &n) == NULL;
        bits |= (uint8_t)(pure ? 1u << i : 0u);
    }
    return bits;
}

/* Cache the starts of the operands of instance "tid" of "s" that read
 * no tensor element (the others are evaluated at each element, as a
 * start may read what the operator writes). */
static void cache_starts(ref_state *rs, const ax_stmt *s, int tid)
{
    int i, d;
    rs->cached = s;
    for (i = 0; i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        rs->pure[i] = (rs->pure_args[s->index] & (1u << i)) != 0;
        for (d = 0; rs->pure[i] && d < AX_MAX_DIMS; d++)
            rs->start[i][d] = r->start[d] ? eval(rs, r->start[d], tid) : 0;
    }
}

static double load(const ref_state *rs, const ax_stmt *s, int i,
                   const int64_t *c, int tid)
{
    const ax_ref *r = &s->args[i];
    const ax_tensor *t = &rs->p->tensors[r->tensor];
    const int64_t *st = rs->cached == s && rs->pure[i] ? rs->start[i] : NULL;
    int64_t a;
    if (!inside(rs, r, c, st, tid))
        return axe__mask_fill(t->dtype, r->fill);
    a = locate(rs, r, c, st, tid);
    axe__race_access(rs->race, i, r->tensor, a, false);
    if (t->mem == AX_MEM_GLOBAL)
        return load_buf(t->dtype, rs->bufs[r->tensor], a);
    return rs->store[r->tensor][a];
}

static void store(ref_state *rs, const ax_stmt *s, const int64_t *c, int tid,
                  double v)
{
    const ax_ref *r = &s->args[0];
    const ax_tensor *t = &rs->p->tensors[r->tensor];
    const int64_t *st = rs->cached == s && rs->pure[0] ? rs->start[0] : NULL;
    int64_t a;
    if (!inside(rs, r, c, st, tid))
        return; /* a masked write outside the tensor: skipped */
    a = locate(rs, r, c, st, tid);
    if (t->dtype == AXE_DTYPE_I4)
        axe__race_store_i4(rs->race, r->tensor, a);
    else
        axe__race_access(rs->race, 0, r->tensor, a, true);
    if (t->mem == AX_MEM_GLOBAL)
        store_buf(t->dtype, rs->bufs[r->tensor], a, v);
    else
        rs->store[r->tensor][a] = round_to(t->dtype, v);
}

/* max and min as IEEE maxNum/minNum (C's fmax, fmin): a NaN operand is
 * ignored when the other is a number. */
static double max_num(double a, double b) { return b > a || a != a ? b : a; }
static double min_num(double a, double b) { return b < a || a != a ? b : a; }

/* Whether (value "v", index "j") beats the best so far ("a", "i") in an
 * argmax ("max") or argmin: a larger (smaller) value, on a tie the lower
 * index; a NaN loses to every number, and between NaNs the lower index
 * wins. A strict total order, so any order of combining gives the same
 * winner. */
static bool arg_better(bool max, double v, int64_t j, double a, int64_t i)
{
    if (v != v || a != a)
        return a != a && (v == v || j < i);
    if (v == a)
        return j < i;
    return max ? v > a : v < a;
}

static double combine(const ax_stmt *s, double acc, double a)
{
    if (s->rkind == AX_RED_MAX)
        return max_num(acc, a);
    if (s->rkind == AX_RED_MIN)
        return min_num(acc, a);
    return acc + a;
}

/* The operator on values of dtype "sd" (the first source's) into "d";
 * x[i] is operand i's value. Integer add, sub, neg, abs and sums are
 * exact in double and wrap when stored; products wrap here (they may
 * exceed 2^53). Comparisons give 1 or 0 (false with a NaN, but ne). */
static double apply(const axe_program *p, const ax_stmt *s, axe_dtype d,
                    axe_dtype sd, const double *x)
{
    double a = x[1], b = x[2];
    switch (s->op) {
    case AX_OP_FILL:
        if (s->fscalar != 0) /* no float into an integer tensor (parse) */
            return p->scalar_dtype[s->fscalar - 1] == AXE_DTYPE_I32
                       ? (double)p->scalar_value[s->fscalar - 1]
                       : p->scalar_fvalue[s->fscalar - 1];
        return is_int(d) ? axe__int_saturate(d, s->imm) : s->imm;
    case AX_OP_COPY:
    case AX_OP_CAST:
        return is_int(d) && !is_int(sd) ? axe__int_saturate(d, a) : a;
    case AX_OP_ATOMIC_ADD:
        return a;
    case AX_OP_ADD:
        return a + b;
    case AX_OP_SUB:
        return a - b;
    case AX_OP_MUL:
        return is_int(d) ? wrap_int(d, (int64_t)a * (int64_t)b) : a * b;
    case AX_OP_DIV:
        return a / b;
    case AX_OP_MAX:
        return max_num(a, b);
    case AX_OP_MIN:
        return min_num(a, b);
    case AX_OP_NEG:
        return -a;
    case AX_OP_RELU:
        return a > 0 ? a : 0;
    case AX_OP_GEMM:
        if (is_int(d))
            return wrap_int(d, (int64_t)a * (int64_t)b);
        if (s->tf32) /* exact in f32: 11 by 11 significant bits */
            return round_to(d, (double)axe_tf32_round((float)a) *
                                   (double)axe_tf32_round((float)b));
        return round_to(axe__dtype_is_half(d) ? AXE_DTYPE_F32 : d, a * b);
    case AX_OP_ABS:
        if (is_int(d))
            return a < 0 ? -a : a; /* wraps when stored: |INT_MIN| */
        return axe__math_ref(s->op, d, a, b);
    case AX_OP_EXP:
    case AX_OP_SQRT:
    case AX_OP_LOG:
    case AX_OP_LOG2:
    case AX_OP_EXP2:
    case AX_OP_TANH:
    case AX_OP_ERF:
    case AX_OP_RSQRT:
    case AX_OP_SIGMOID:
    case AX_OP_SILU:
    case AX_OP_GELU:
    case AX_OP_GELU_TANH:
    case AX_OP_POW:
        return axe__math_ref(s->op, d, a, b);
    case AX_OP_LT:
        return a < b;
    case AX_OP_LE:
        return a <= b;
    case AX_OP_GT:
        return a > b;
    case AX_OP_GE:
        return a >= b;
    case AX_OP_EQ:
        return a == b;
    case AX_OP_NE:
        return a != b;
    case AX_OP_SELECT:
        return a != 0 ? b : x[3];
    case AX_OP_REDUCE: /* reduce_step */
    case AX_OP_IOTA:   /* run_instance */
        break;
    }
    return 0;
}

/* The index of the destination element of coordinate "c" (dimension
 * "k" left out) in row-major order: where an argmax/argmin keeps its best
 * value. */
static int64_t row_index(const ax_stmt *s, const int64_t *c)
{
    int64_t x = 0;
    int d;
    for (d = 0; d < axe__ref_ndim(&s->args[1]); d++)
        if (d != s->rdim)
            x = x * axe__ref_len(&s->args[1], d) + c[d];
    return x;
}

/* reduce at coordinate "c" of the source, value "a": the first element
 * of the reduced dim starts the result (at kernel scope it combines into
 * the destination's contents too), the others combine into it; an
 * argmax/argmin keeps the index in the destination and the value in
 * rs->argv. */
static double reduce_step(ref_state *rs, const ax_stmt *s, const int64_t *c,
                          int tid, double a)
{
    double *best = &rs->argv[row_index(s, c)];
    int64_t i;
    if (!axe__red_is_arg(s->rkind)) /* at kernel scope onto d's contents */
        return c[s->rdim] == 0 && s->scope != AX_SCOPE_KERNEL
                   ? a
                   : combine(s, load(rs, s, 0, c, tid), a);
    i = c[s->rdim] == 0 ? 0 : (int64_t)load(rs, s, 0, c, tid);
    if (c[s->rdim] != 0 &&
        !arg_better(s->rkind == AX_RED_ARGMAX, a, c[s->rdim], *best, i))
        return (double)i;
    *best = a;
    return (double)c[s->rdim];
}

/* The message of a data-dependent start "v" of dimension "d" of "r"
 * outside [0, "ext" - length] (the C backend prints the same). */
static void start_failed(ref_state *rs, const ax_stmt *s, const ax_ref *r,
                         int d, int64_t v, int64_t ext, const ax_expr *ld,
                         int tid)
{
    const ax_ref *lr = ld->load;
    size_t n;
    int k;
    if (rs->failed)
        return;
    rs->failed = true;
    n = (size_t)snprintf(rs->err, sizeof rs->err,
                         "region of '%s' out of bounds at run time (line "
                         "%d): dimension %d starts at %lld with length %lld "
                         "but the extent is %lld; the start reads %s[",
                         rs->p->tensors[r->tensor].name, s->line, d,
                         (long long)v, (long long)r->len[d], (long long)ext,
                         rs->p->tensors[lr->tensor].name);
    for (k = 0; k < lr->ndim && n < sizeof rs->err; k++)
        n += (size_t)snprintf(rs->err + n, sizeof rs->err - n, "%s%lld",
                              k ? ", " : "",
                              (long long)eval(rs, lr->start[k], tid));
    if (n < sizeof rs->err)
        snprintf(rs->err + n, sizeof rs->err - n, "] = %lld",
                 (long long)eval(rs, ld, tid));
}

/* Every data-dependent start of "s" lies in [0, extent - length] for
 * thread "tid" (else the instance is skipped, as in the C backend). */
static bool starts_ok(ref_state *rs, const ax_stmt *s, int tid)
{
    int i, d, n;
    for (i = 0; i < s->nargs; i++)
        for (d = 0; d < s->args[i].ndim; d++) {
            const ax_ref *r = &s->args[i];
            const ax_tensor *t = &rs->p->tensors[r->tensor];
            const ax_expr *ld = axe__expr_load(r->start[d], &n);
            int64_t v, ext;
            if (ld == NULL || r->masked[d])
                continue;
            v = eval(rs, r->start[d], tid);
            ext = d == 0 ? axe__dyn_value(rs->p, t->dyn_extent, t->shape[0])
                         : t->shape[d];
            if (v < 0 || v > ext - r->len[d]) {
                start_failed(rs, s, r, d, v, ext, ld, tid);
                return false;
            }
        }
    return true;
}

/* Scalar operand "o" of "s" as a value of the operands' dtype: a float
 * scalar as bound (rounded to its own dtype), an i32 one, or a literal,
 * rounded to that dtype as a stored element (sema keeps integers in
 * range). */
static double sop_value(const ref_state *rs, const ax_stmt *s, const ax_sop *o)
{
    const axe_program *p = rs->p;
    axe_dtype d = axe__sop_dtype(p, s);
    double v = o->value;
    if (o->kind == AX_SOP_KEPT)
        v = (double)rs->env[o->scalar];
    else if (o->kind == AX_SOP_SCALAR)
        v = p->scalar_dtype[o->scalar] == AXE_DTYPE_I32
                ? (double)p->scalar_value[o->scalar]
                : p->scalar_fvalue[o->scalar];
    return is_int(d) ? v : round_to(d, v);
}

/* x[pos] = the value of the operand at source position "pos" (> 0). */
static void load_operands(ref_state *rs, const ax_stmt *s, const int64_t *c,
                          int tid, double *x)
{
    int pos, n = axe__operand_count(s);
    for (pos = 1; pos < n; pos++)
        x[pos] = s->sop[pos].kind != AX_SOP_NONE
                     ? sop_value(rs, s, &s->sop[pos])
                     : load(rs, s, axe__operand_arg(s, pos), c, tid);
}

/* The value of element "a" of tensor "i" (a buffer address or an index
 * into its store), and a value stored there (rounded to the dtype). */
static double value_at(const ref_state *rs, int i, int64_t a)
{
    const ax_tensor *t = &rs->p->tensors[i];
    if (t->mem == AX_MEM_GLOBAL)
        return load_buf(t->dtype, rs->bufs[i], a);
    return rs->store[i][a];
}

static void put_at(ref_state *rs, int i, int64_t a, double v)
{
    const ax_tensor *t = &rs->p->tensors[i];
    if (t->mem == AX_MEM_GLOBAL)
        store_buf(t->dtype, rs->bufs[i], a, v);
    else
        rs->store[i][a] = round_to(t->dtype, v);
}

/* The addresses of operand "i" of gemm "s" over its two dims "d0" (the
 * slower) and "d1" of the (M, N, K) coordinates: "n0" x "n1" of them. */
static int64_t *gemm_addrs(const ref_state *rs, const ax_stmt *s, int i, int d0,
                           int d1, int tid)
{
    int64_t c[AX_MAX_DIMS] = {0}, n0 = axe__ref_len(&s->args[0], d0),
            n1 = axe__ref_len(&s->args[0], d1);
    int64_t *a = malloc((size_t)(n0 * n1) * sizeof *a);
    for (c[d0] = 0; a != NULL && c[d0] < n0; c[d0]++)
        for (c[d1] = 0; c[d1] < n1; c[d1]++)
            a[c[d0] * n1 + c[d1]] =
                locate(rs, &s->args[i], c, rs->start[i], tid);
    return a;
}

/* Whether gemm "s" may run by gemm_ranges: no masked operand, starts
 * that read no element, C apart from A and B (so that C's values along
 * K are a chain nothing else reads), every extent at least 1; with a
 * race detector also A apart from B, and one group per operand (one
 * thread per CTA, no grid or staging plan): its accesses by ranges. */
static bool gemm_by_ranges(const ref_state *rs, const ax_stmt *s)
{
    const ax_ref *a = s->args;
    int i;
    for (i = 0; i < 3; i++)
        if (a[i].any_masked || !rs->pure[i] || axe__ref_len(&a[0], i) < 1)
            return false;
    if (a[0].tensor == a[1].tensor || a[0].tensor == a[2].tensor)
        return false;
    return rs->race == NULL ||
           (a[1].tensor != a[2].tensor && rs->p->threads == 1 &&
            s->grid == NULL && s->stage[0] == NULL);
}

/* Gemm instance "tid" of "s" as the element loop would run it (C[m,n]
 * += A[m,k] B[n,k], k innermost: each C element's chain of roundings
 * along K in that order), with the addresses computed once; the race
 * detector is told the accesses by ranges, when they report no race
 * (else the element loop runs, and tells it each access in order).
 * False if this instance runs by elements. */
static bool gemm_ranges(ref_state *rs, const ax_stmt *s, int tid)
{
    static const int64_t zero[AX_MAX_DIMS];
    const axe_program *p = rs->p;
    int64_t m, n, k, M = axe__ref_len(&s->args[0], 0),
                     N = axe__ref_len(&s->args[0], 1),
                     K = axe__ref_len(&s->args[0], 2);
    int64_t *ac, *aa, *ab;
    axe_dtype d = p->tensors[s->args[0].tensor].dtype,
              sd = p->tensors[s->args[1].tensor].dtype;
    bool ok;
    if (rs->by_elements || !gemm_by_ranges(rs, s))
        return false;
    ac = gemm_addrs(rs, s, 0, 0, 1, tid);
    aa = gemm_addrs(rs, s, 1, 0, 2, tid);
    ab = gemm_addrs(rs, s, 2, 1, 2, tid);
    axe__race_element(rs->race, zero);
    ok =
        ac != NULL && aa != NULL && ab != NULL &&
        axe__race_range_clean(rs->race, 0, s->args[0].tensor, ac, M * N,
                              true) &&
        axe__race_range_clean(rs->race, 1, s->args[1].tensor, aa, M * K,
                              false) &&
        axe__race_range_clean(rs->race, 2, s->args[2].tensor, ab, N * K, false);
    if (ok) {
        axe__race_range_apply(rs->race, 0, s->args[0].tensor, ac, M * N, K,
                              true);
        axe__race_range_apply(rs->race, 1, s->args[1].tensor, aa, M * K, N,
                              false);
        axe__race_range_apply(rs->race, 2, s->args[2].tensor, ab, N * K, M,
                              false);
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) {
                double acc = value_at(rs, s->args[0].tensor, ac[m * N + n]);
                for (k = 0; k < K; k++) {
                    double x[AX_MAX_ARGS] = {0};
                    x[1] = value_at(rs, s->args[1].tensor, aa[m * K + k]);
                    x[2] = value_at(rs, s->args[2].tensor, ab[n * K + k]);
                    acc = round_to(d, acc + apply(p, s, d, sd, x));
                }
                put_at(rs, s->args[0].tensor, ac[m * N + n], acc);
            }
    }
    free(ac);
    free(aa);
    free(ab);
    return ok;
}

static void run_instance(ref_state *rs, const ax_stmt *s, int tid)
{
    const ax_ref *dst = &s->args[0];
    axe_dtype d = rs->p->tensors[dst->tensor].dtype;
    axe_dtype sd = s->nargs > 1 ? rs->p->tensors[s->args[1].tensor].dtype : d;
    int64_t c[AX_MAX_DIMS] = {0};
    int k, n = axe__ref_ndim(dst);
    if (!starts_ok(rs, s, tid))
        return;
    cache_starts(rs, s, tid);
    axe__race_instance(rs->race, s, tid);
    if (s->op == AX_OP_GEMM && gemm_ranges(rs, s, tid))
        return;
    for (;;) {
        double x[AX_MAX_ARGS] = {0}, v;
        axe__race_element(rs->race, c);
        load_operands(rs, s, c, tid, x);
        v = apply(rs->p, s, d, sd, x);
        if (s->op == AX_OP_GEMM || s->op == AX_OP_ATOMIC_ADD)
            v = load(rs, s, 0, c, tid) + v;
        if (s->op == AX_OP_REDUCE)
            v = reduce_step(rs, s, c, tid, x[1]);
        if (s->op == AX_OP_IOTA)
            v = (double)(axe__expr_eval(s->istart, rs->env) + c[s->idim]);
        store(rs, s, c, tid, v);
        for (k = n - 1; k >= 0; k--) {
            if (++c[k] < axe__ref_len(dst, k))
                break;
            c[k] = 0;
        }
        if (k < 0)
            return;
    }
}

static void set_thread(ref_state *rs, int64_t tid)
{
    rs->env[AX_VAR_TX] = tid;
    rs->env[AX_VAR_LANEID] = tid % 32;
    rs->env[AX_VAR_WARPID] = tid / 32;
    rs->env[AX_VAR_WGID] = tid / 128;
    rs->env[AX_VAR_TID_IN_WG] = tid % 128;
    rs->env[AX_VAR_WID_IN_WG] = tid % 128 / 32;
}

static void run_op(ref_state *rs, const ax_stmt *s)
{
    int64_t n = axe__scope_threads(rs->p, s->scope), tid;
    if (s->scope == AX_SCOPE_KERNEL &&
        (rs->env[AX_VAR_BX] | rs->env[AX_VAR_BY] | rs->env[AX_VAR_BZ]) != 0)
        return; /* once per kernel: in the first CTA's turn */
    for (tid = 0; tid < rs->p->threads; tid += n) {
        set_thread(rs, tid);
        if (axe__guard_holds(s->guard, rs->env))
            run_instance(rs, s, (int)tid);
    }
}

/* A barrier, for the CTAs that reach it: the conditions around a `sync`
 * read no thread id, so they hold on all of a CTA's threads or none. */
static void run_sync(ref_state *rs, const ax_stmt *s)
{
    if (axe__guard_holds(s->guard, rs->env))
        axe__race_sync(rs->race);
}

static void run_block(ref_state *rs, const ax_stmt *s)
{
    for (; s != NULL && !axe__seg_boundary(s); s = s->next) {
        int64_t i;
        if (s->kind == AX_ST_OP)
            run_op(rs, s);
        else if (s->kind == AX_ST_SYNC)
            run_sync(rs, s);
        else if (s->kind == AX_ST_IF)
            run_block(rs, s->body), run_block(rs, s->else_body);
        else if (s->kind == AX_ST_FOR)
            for (i = 0; i < axe__dyn_value(rs->p, s->dtrip, s->trip); i++) {
                rs->env[s->var] = i;
                run_block(rs, s->body);
            }
    }
}

/* rs->argv: one double per element of the largest argmax/argmin
 * destination (the source's elements bound it). */
static axe_status prepare_argv(ref_state *rs, axe_diag *diag)
{
    const axe_program *p = rs->p;
    int64_t most = 1;
    int i;
    for (i = 0; i < p->nops; i++) {
        const ax_stmt *s = p->ops[i];
        int64_t n = 1;
        int d;
        if (s->op != AX_OP_REDUCE || !axe__red_is_arg(s->rkind))
            continue;
        for (d = 0; d < axe__ref_ndim(&s->args[1]); d++)
            n *= axe__ref_len(&s->args[1], d);
        most = n > most ? n : most;
    }
    rs->argv = malloc((size_t)most * sizeof(double));
    if (rs->argv == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    return AXE_OK;
}

static axe_status prepare(ref_state *rs, axe_diag *diag)
{
    const axe_program *p = rs->p;
    int i;
    rs->pure_args = malloc((size_t)(p->nops > 0 ? p->nops : 1));
    if (rs->pure_args == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (i = 0; i < p->nops; i++)
        rs->pure_args[i] = pure_bits(p->ops[i]);
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *t = &p->tensors[i];
        rs->size[i] = t->mem == AX_MEM_SHARED ? t->span : tensor_size(p, t);
        if (t->mem != AX_MEM_REGISTER)
            AXE_TRY(build_table(rs, i, diag));
        if (t->mem == AX_MEM_GLOBAL)
            continue;
        rs->store[i] =
            malloc((size_t)(rs->size[i] * instances(p, t)) * sizeof(double));
        if (rs->store[i] == NULL)
            return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    }
    return prepare_argv(rs, diag);
}

static void run_ctas(ref_state *rs)
{
    const axe_program *p = rs->p;
    int64_t bx, by, bz, g[3];
    int i;
    for (i = 0; i < 3; i++)
        g[i] = axe__grid_at(p, i);
    for (bz = 0; bz < g[2]; bz++)
        for (by = 0; by < g[1]; by++)
            for (bx = 0; bx < g[0]; bx++) {
                rs->env[AX_VAR_BX] = bx;
                rs->env[AX_VAR_BY] = by;
                rs->env[AX_VAR_BZ] = bz;
                axe__race_cta(rs->race, (bz * g[1] + by) * g[0] + bx);
                for (i = 0; i < p->ntensors; i++)
                    if (rs->store[i] != NULL)
                        memset(rs->store[i], 0,
                               (size_t)(rs->size[i] *
                                        instances(p, &p->tensors[i])) *
                                   sizeof(double));
                run_block(rs, rs->first);
            }
}

static void release(ref_state *rs)
{
    int i;
    for (i = 0; i < rs->p->ntensors; i++) {
        free(rs->table[i]);
        free(rs->store[i]);
    }
    free(rs->argv);
    free(rs->pure_args);
    axe__race_free(rs->race);
}

/* Run "p" from statement "first" on "buffers" (see the file comment);
 * with "races", detect races (compiler_race.c). */
static axe_status run_from(const axe_program *p, const ax_stmt *first,
                           const int64_t *kept, void *const *buffers,
                           axe_race_report *races, bool by_elements,
                           axe_diag *diag)
{
    static ref_state zero;
    ref_state rs = zero;
    axe_status st = AXE_OK;
    int i;
    rs.p = p;
    rs.by_elements = by_elements;
    rs.bufs = buffers;
    rs.first = first;
    if (!p->bound)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the runtime scalars have no values "
                         "(axe_program_bind)");
    if (kept != NULL)
        memcpy(rs.env, kept, sizeof rs.env);
    for (i = 0; i < p->nscalars; i++)
        rs.env[p->scalar_var[i]] = p->scalar_value[i];
    if (races != NULL)
        st = axe__race_new(p, &rs.race, diag);
    if (st == AXE_OK)
        st = prepare(&rs, diag);
    if (st == AXE_OK) {
        run_ctas(&rs);
        if (races != NULL)
            st = axe__race_report(rs.race, rs.table, races, diag);
    }
    if (st == AXE_OK && rs.failed)
        st = axe__fail(diag, AXE_ERR_DOMAIN, -1, "%s", rs.err);
    release(&rs);
    return st;
}

/* Run "p" on "buffers" from the logical semantics (see the file comment);
 * with "races", detect races (compiler_race.c). */
axe_status axe_program_reference_races(const axe_program *p,
                                       void *const *buffers,
                                       axe_race_report *races, axe_diag *diag)
{
    if (p->ndev > 0)
        return axe__fail(diag, AXE_ERR_INVALID, p->mesh_off,
                         "the program has a mesh of %lld devices: its "
                         "reference is axe_program_reference_mesh (a "
                         "buffer per device and tensor)",
                         (long long)p->ndev);
    return run_from(p, p->body, NULL, buffers, races, false, diag);
}

/* The same, every operator run element by element (the law test of the
 * gemm by ranges). */
axe_status axe__reference_by_elements(const axe_program *p,
                                      void *const *buffers,
                                      axe_race_report *races, axe_diag *diag)
{
    return run_from(p, p->body, NULL, buffers, races, true, diag);
}

/* One device's statements from "first" to the end of its list or the
 * next device operator or kept loop, the kept loops' variables at their
 * values in "kept" (by variable; NULL: none); with "races", detect races
 * (a detector of its own: a launch). */
axe_status axe__reference_segment(const axe_program *p, const ax_stmt *first,
                                  const int64_t *kept, void *const *buffers,
                                  axe_race_report *races, axe_diag *diag)
{
    return run_from(p, first, kept, buffers, races, false, diag);
}

int axe__i4_get(const void *b, int64_t a)
{
    unsigned u =
        (unsigned)(((const uint8_t *)b)[a / 2] >> (4 * (a % 2))) & 0xfu;
    return u < 8u ? (int)u : (int)u - 16;
}

void axe__i4_set(void *b, int64_t a, int v)
{
    uint8_t *byte = (uint8_t *)b + a / 2;
    unsigned sh = (unsigned)(4 * (a % 2));
    *byte = (uint8_t)((*byte & ~(0xfu << sh)) | (((unsigned)v & 0xfu) << sh));
}

double axe__ref_load(axe_dtype d, const void *b, int64_t a)
{
    return load_buf(d, b, a);
}

void axe__ref_store(axe_dtype d, void *b, int64_t a, double v)
{
    store_buf(d, b, a, v);
}

double axe__ref_combine(axe_dtype d, ax_red r, double acc, double a)
{
    return r == AX_RED_MAX   ? max_num(acc, a)
           : r == AX_RED_MIN ? min_num(acc, a)
                             : round_to(d, acc + a);
}

/* Run "p" on "buffers" from the logical semantics (see the file comment). */
axe_status axe_program_reference(const axe_program *p, void *const *buffers,
                                 axe_diag *diag)
{
    return axe_program_reference_races(p, buffers, NULL, diag);
}
