/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CuTe operation table (cute_ops.h) and the helpers every operation
 * uses: operand conversion (a tuple used as a layout is its compact
 * column-major layout; a composed layout is taken apart so the algebra acts
 * on its inner layout), argument checking and result printing. Invariant:
 * the table is sorted by nothing in particular but names are unique, and
 * every entry's "required" and "optional" masks are disjoint.
 */
#include "cute_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#define A CUTE_ARG_A
#define B CUTE_ARG_B
#define C CUTE_ARG_C
#define N CUTE_ARG_N
#define M CUTE_ARG_MODE
#define X CUTE_ARG_EXTENDED

static const cute_op ops[] = {
    {"print", A, 0, 0, cute_op_print},
    {"eval", A | B, 0, 0, cute_op_eval},
    {"size", A, M, 0, cute_op_size},
    {"cosize", A, M, 0, cute_op_cosize},
    {"rank", A, M, 0, cute_op_rank},
    {"depth", A, M, 0, cute_op_depth},
    {"coalesce", A, B, 0, cute_op_coalesce},
    {"coalesce_x", A, 0, 0, cute_op_coalesce_x},
    {"filter", A, 0, 0, cute_op_filter},
    {"flatten", A, 0, 0, cute_op_flatten},
    {"composition", A | B, 0, 0, cute_op_composition},
    {"complement", A, B | N | X, 1, cute_op_complement},
    {"right_inverse", A, 0, 0, cute_op_right_inverse},
    {"left_inverse", A, 0, 0, cute_op_left_inverse},
    {"nullspace", A, 0, 0, cute_op_nullspace},
    {"logical_divide", A | B, 0, 0, cute_op_logical_divide},
    {"zipped_divide", A | B, 0, 0, cute_op_zipped_divide},
    {"tiled_divide", A | B, 0, 0, cute_op_tiled_divide},
    {"flat_divide", A | B, 0, 0, cute_op_flat_divide},
    {"logical_product", A | B, 0, 0, cute_op_logical_product},
    {"zipped_product", A | B, 0, 0, cute_op_zipped_product},
    {"tiled_product", A | B, 0, 0, cute_op_tiled_product},
    {"flat_product", A | B, 0, 0, cute_op_flat_product},
    {"blocked_product", A | B, 0, 0, cute_op_blocked_product},
    {"raked_product", A | B, 0, 0, cute_op_raked_product},
    {"tile_to_shape", A | B, C, 0, cute_op_tile_to_shape},
    {"slice", A | B, 0, 0, cute_op_slice},
    {"dice", A | B, 0, 0, cute_op_dice},
    {"max_common_layout", A | B, 0, 0, cute_op_max_common_layout},
    {"max_common_vector", A | B, 0, 0, cute_op_max_common_vector},
    {"upcast", A | N, 0, 1, cute_op_upcast},
    {"downcast", A | N, 0, 1, cute_op_downcast},
    {"recast_layout", A | N, 0, 2, cute_op_recast_layout},
    {"identity", A, 0, 0, cute_op_identity},
    {"swizzle_apply", A | N, 0, 1, cute_op_swizzle_apply},
};

#undef A
#undef B
#undef C
#undef N
#undef M
#undef X

const cute_op *cute_op_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].name) == len && memcmp(ops[i].name, name, len) == 0)
            return &ops[i];
    return NULL;
}

const cute_op *cute_op_at(size_t i)
{
    return i < sizeof ops / sizeof ops[0] ? &ops[i] : NULL;
}

void cute_args_init(cute_args *args)
{
    args->have = 0;
    args->nn = 0;
    args->nmode = 0;
    args->extended = false;
}

void cute_result_init(cute_result *res)
{
    res->kind = CUTE_RESULT_INT;
    res->i = 0;
    json_buf_init(&res->text, NULL, NULL);
}

void cute_result_free(cute_result *res) { json_buf_free(&res->text); }

static const char *arg_name(unsigned bit)
{
    switch (bit) {
    case CUTE_ARG_A:
        return "a";
    case CUTE_ARG_B:
        return "b";
    case CUTE_ARG_C:
        return "c";
    case CUTE_ARG_N:
        return "n";
    case CUTE_ARG_EXTENDED:
        return "extended";
    default:
        return "mode";
    }
}

/* Which of size and cosize of operand "o" overflows int64 ("" for
 * neither); a composed layout is measured on its inner layout. */
static const char *overflowing(const axe_cute_object *o)
{
    const axe_cute_layout *l =
        o->kind == AXE_CUTE_KIND_COMPOSED ? &o->composed.inner : &o->layout;
    int64_t n;
    if (o->kind == AXE_CUTE_KIND_TUPLE)
        return axe_tuple_size(&o->tuple, &n) == AXE_ERR_OVERFLOW ? "size" : "";
    if (o->kind != AXE_CUTE_KIND_LAYOUT && o->kind != AXE_CUTE_KIND_COMPOSED)
        return "";
    if (axe_cute_size(l, &n) == AXE_ERR_OVERFLOW)
        return "size";
    return axe_cute_cosize(l, &n) == AXE_ERR_OVERFLOW ? "cosize" : "";
}

/* The reason for "st" when the library gave none (its integer queries
 * take no diagnostic): the operand whose size or cosize overflows, or
 * the operation and the limit it ran into. */
static axe_status explain(const cute_op *op, const cute_args *args,
                          axe_status st, axe_diag *diag)
{
    static const unsigned bits[3] = {CUTE_ARG_A, CUTE_ARG_B, CUTE_ARG_C};
    const axe_cute_object *o[3] = {&args->a, &args->b, &args->c};
    for (int i = 0; i < 3 && st == AXE_ERR_OVERFLOW; i++)
        if ((args->have & bits[i]) && *overflowing(o[i]) != '\0')
            return cute_fail(diag, st,
                             "the %s of \"%s\" (%s) overflows int64 "
                             "(largest %lld)",
                             overflowing(o[i]), arg_name(bits[i]),
                             cute_kind_name(o[i]), (long long)INT64_MAX);
    if (st == AXE_ERR_OVERFLOW)
        return cute_fail(diag, st,
                         "%s of these operands computes a value past int64 "
                         "(largest %lld), although each operand's size and "
                         "cosize fit",
                         op->name, (long long)INT64_MAX);
    if (st == AXE_ERR_CAPACITY)
        return cute_fail(diag, st,
                         "%s: the result needs more than a value holds (%d "
                         "leaves, %d tokens, depth %d)",
                         op->name, AXE_TUPLE_MAX_LEAVES, AXE_TUPLE_MAX_TOKENS,
                         AXE_TUPLE_MAX_DEPTH);
    return cute_fail(diag, st, "%s refuses these operands: %s", op->name,
                     axe_status_message(st));
}

axe_status cute_op_run(const cute_op *op, const cute_args *args,
                       cute_result *res, axe_diag *diag)
{
    axe_status st;
    for (unsigned bit = 1; bit <= CUTE_ARG_EXTENDED; bit <<= 1) {
        if ((op->required & bit) && !(args->have & bit))
            return cute_fail(diag, AXE_ERR_INVALID,
                             "%s needs the argument \"%s\"", op->name,
                             arg_name(bit));
        if (!((op->required | op->optional) & bit) && (args->have & bit))
            return cute_fail(diag, AXE_ERR_INVALID,
                             "%s takes no argument \"%s\"", op->name,
                             arg_name(bit));
    }
    if ((args->have & CUTE_ARG_N) && args->nn != op->nn)
        return cute_fail(
            diag, AXE_ERR_INVALID, "%s takes %s as \"n\"", op->name,
            op->nn == 1 ? "one integer" : "a pair of integers [old, new]");
    st = op->run(args, res, diag);
    if (st != AXE_OK && st != AXE_ERR_NO_MEMORY && diag != NULL &&
        diag->message[0] == '\0')
        return explain(op, args, st, diag);
    return st;
}

axe_status cute_fail(axe_diag *diag, axe_status st, const char *fmt, ...)
{
    va_list ap;
    if (diag == NULL)
        return st;
    diag->offset = -1;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return st;
}

const char *cute_kind_name(const axe_cute_object *o)
{
    switch (o->kind) {
    case AXE_CUTE_KIND_TUPLE:
        return "a tuple";
    case AXE_CUTE_KIND_LAYOUT:
        return "a layout";
    case AXE_CUTE_KIND_TILER:
        return "a tiler";
    case AXE_CUTE_KIND_SWIZZLE:
        return "a swizzle";
    case AXE_CUTE_KIND_COMPOSED:
        return "a composed layout";
    }
    return "an unknown object";
}

axe_status cute_to_layout(const axe_cute_object *o, const char *what,
                          axe_cute_layout *out, axe_diag *diag)
{
    if (o->kind == AXE_CUTE_KIND_LAYOUT) {
        *out = o->layout;
        return AXE_OK;
    }
    if (o->kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                         "\"%s\" must be a layout or a shape, not %s", what,
                         cute_kind_name(o));
    for (int i = 0; i < o->tuple.nleaf; i++)
        if (o->tuple.v[i] == AXE_UNDERSCORE || o->tuple.v[i] < 1)
            return cute_fail(diag, AXE_ERR_INVALID,
                             "\"%s\" is used as a shape, but its leaf %d is "
                             "%s, not an extent >= 1",
                             what, i,
                             o->tuple.v[i] == AXE_UNDERSCORE ? "'_'" : "< 1");
    return axe_cute_make_col_major(&o->tuple, out);
}

axe_status cute_unwrap(const axe_cute_object *o, const char *what,
                       axe_cute_layout *out, cute_frame *frame, axe_diag *diag)
{
    frame->composed = o->kind == AXE_CUTE_KIND_COMPOSED;
    if (!frame->composed)
        return cute_to_layout(o, what, out, diag);
    frame->c = o->composed;
    *out = o->composed.inner;
    return AXE_OK;
}

axe_status cute_rewrap(const cute_frame *frame, const axe_cute_layout *l,
                       cute_result *res, axe_diag *diag)
{
    if (!frame->composed) {
        cute_set_layout(res, l);
        return AXE_OK;
    }
    if (axe_cute_composed_with_inner(&frame->c, l, &res->obj.composed) !=
        AXE_OK)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "the result does not fit behind the outer function "
                         "of the composed layout");
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_COMPOSED;
    return AXE_OK;
}

void cute_set_layout(cute_result *res, const axe_cute_layout *l)
{
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_LAYOUT;
    res->obj.layout = *l;
}

void cute_set_tuple(cute_result *res, const axe_tuple *t)
{
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_TUPLE;
    res->obj.tuple = *t;
}

void cute_set_int(cute_result *res, int64_t v)
{
    res->kind = CUTE_RESULT_INT;
    res->i = v;
}

void cute_object_write(const axe_cute_object *o, json_buf *out)
{
    char small[512];
    size_t n = axe_print_cute(o, small, sizeof small);
    char *big;
    if (n < sizeof small) {
        json_buf_put_raw(out, small, n);
        return;
    }
    big = malloc(n + 1);
    if (big == NULL) {
        json_buf_put_rawz(out, "<out of memory>");
        return;
    }
    axe_print_cute(o, big, n + 1);
    json_buf_put_raw(out, big, n);
    free(big);
}

void cute_result_write(const cute_result *res, json_buf *out)
{
    switch (res->kind) {
    case CUTE_RESULT_OBJECT:
        cute_object_write(&res->obj, out);
        break;
    case CUTE_RESULT_INT:
        json_buf_put_int(out, res->i);
        break;
    case CUTE_RESULT_TEXT:
        json_buf_put_raw(out, json_buf_str(&res->text), res->text.len);
        break;
    }
}

/* Whether every component of "p" is along some E<k> (depth 1). */
static bool point_is_coordinate(const axe_cute_point *p)
{
    for (int i = 0; i < p->n; i++)
        if (AXE_CUTE_BASIS_DEPTH(p->basis[i]) != 1)
            return false;
    return true;
}

static void put_coordinate(const axe_cute_point *p, int ncoord, json_buf *out)
{
    int last = ncoord - 1;
    if (p->n > 0 && AXE_CUTE_BASIS_MODE(p->basis[p->n - 1], 0) > last)
        last = AXE_CUTE_BASIS_MODE(p->basis[p->n - 1], 0);
    json_buf_put_rawz(out, "(");
    for (int k = 0, i = 0; k <= last; k++) {
        int64_t v = 0;
        if (i < p->n && AXE_CUTE_BASIS_MODE(p->basis[i], 0) == k)
            v = p->v[i++];
        if (k > 0)
            json_buf_put_rawz(out, ",");
        json_buf_put_int(out, v);
    }
    json_buf_put_rawz(out, ")");
}

void cute_point_write(const axe_cute_point *p, int ncoord, json_buf *out)
{
    if (p->n == 0 && ncoord == 0) {
        json_buf_put_rawz(out, "0");
        return;
    }
    if (point_is_coordinate(p) && (ncoord > 0 || p->n > 0)) {
        put_coordinate(p, ncoord, out);
        return;
    }
    for (int i = 0; i < p->n; i++) {
        uint32_t code = p->basis[i];
        if (i > 0)
            json_buf_put_rawz(out, "+");
        json_buf_put_int(out, p->v[i]);
        for (int k = AXE_CUTE_BASIS_DEPTH(code) - 1; k >= 0; k--) {
            json_buf_put_rawz(out, "@");
            json_buf_put_int(out, AXE_CUTE_BASIS_MODE(code, k));
        }
    }
}

/* The coordinate rank of the values of "l": 1 + the largest k of its
 * E<k> strides when all its strides are E<k> (0: integer values). */
static int layout_ncoord(const axe_cute_layout *l)
{
    int n = 0;
    for (int i = 0; i < l->shape.nleaf; i++) {
        uint32_t code = l->basis[i];
        if (l->stride[i] == 0)
            continue;
        if (AXE_CUTE_BASIS_DEPTH(code) != 1)
            return 0;
        if (AXE_CUTE_BASIS_MODE(code, 0) + 1 > n)
            n = AXE_CUTE_BASIS_MODE(code, 0) + 1;
    }
    return n;
}

int cute_value_ncoord(const axe_cute_object *o)
{
    switch (o->kind) {
    case AXE_CUTE_KIND_LAYOUT:
        return layout_ncoord(&o->layout);
    case AXE_CUTE_KIND_COMPOSED:
        if (o->composed.kind == AXE_CUTE_OUTER_SWIZZLE)
            return 0;
        return layout_ncoord(&o->composed.outer);
    case AXE_CUTE_KIND_TUPLE:
    case AXE_CUTE_KIND_TILER:
    case AXE_CUTE_KIND_SWIZZLE:
        break;
    }
    return 0;
}

axe_status cute_eval_index(const axe_cute_object *o, int64_t idx,
                           axe_cute_point *out, axe_diag *diag)
{
    axe_cute_layout l;
    if (idx < 0)
        return cute_fail(diag, AXE_ERR_DOMAIN, "index %lld is negative",
                         (long long)idx);
    if (o->kind == AXE_CUTE_KIND_COMPOSED)
        return axe_cute_composed_eval_point(&o->composed, idx, out);
    AXE_TRY(cute_to_layout(o, "a", &l, diag));
    return axe_cute_eval_point(&l, idx, out);
}
