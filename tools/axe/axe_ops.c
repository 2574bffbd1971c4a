/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Axe operation table (axe_ops.h), the argument-name table, argument
 * checking, the common post-processing (swizzle_inner, canonicalize) and
 * the two ways a result is written: as a JSON value for `axe batch` and as
 * the text the CLI prints. Invariant: op names and argument names are
 * unique, and each op's "required" and "optional" masks are disjoint.
 */
#include "axe_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

/* Accepted by every op (axop_run explains what they do). */
#define COMMON                                                                 \
    (AXOP_BIT(AXOP_CANONICALIZE) | AXOP_BIT(AXOP_TARGET) |                     \
     AXOP_BIT(AXOP_SWIZZLE_INNER))

#define B(k) AXOP_BIT(AXOP_##k)

static const axop ops[] = {
    {"parse", B(TEXT), 0, axop_parse},
    {"axis_info", B(AXIS), 0, axop_axis_info},
    {"size", B(LAYOUT), B(AXIS), axop_size},
    {"span", B(LAYOUT), B(AXIS) | B(TIRX), axop_span},
    {"get_scope", B(LAYOUT), 0, axop_get_scope},
    {"verify_well_formed", B(LAYOUT), 0, axop_verify_well_formed},
    {"equal", B(A) | B(B), 0, axop_equal},
    {"equivalent", B(A) | B(B), 0, axop_equivalent},
    {"apply", B(LAYOUT) | B(COORD), B(SHAPE) | B(COORD_DTYPE), axop_apply},
    {"apply_set", B(LAYOUT) | B(COORD), B(SHAPE), axop_apply_set},
    {"apply_to_shape", B(LAYOUT) | B(COORD) | B(SHAPE), 0, axop_apply_to_shape},
    {"backward", B(LAYOUT) | B(POINT), B(WITH_REPLICAS), axop_backward},
    {"from_cute", B(TEXT), 0, axop_from_cute},
    {"to_cute", B(LAYOUT), 0, axop_to_cute},
    {"canonicalize", B(LAYOUT), 0, axop_canonicalize},
    {"normalize", B(LAYOUT), 0, axop_normalize},
    {"group", B(LAYOUT) | B(SHAPE), 0, axop_group},
    {"group_many", B(LAYOUT) | B(SHAPES), 0, axop_group_many},
    {"tile", B(OUTER) | B(OUTER_SHAPE) | B(INNER) | B(INNER_SHAPE), B(TIRX),
     axop_tile},
    {"tile_to", B(LAYOUT) | B(TO_SHAPE) | B(CURRENT_SHAPE), B(TIRX),
     axop_tile_to},
    {"is_tile_inner", B(INNER) | B(TILED) | B(TILED_SHAPE) | B(INNER_SHAPE),
     B(TIRX), axop_is_tile_inner},
    {"is_tile_outer", B(OUTER) | B(TILED) | B(TILED_SHAPE) | B(OUTER_SHAPE),
     B(TIRX), axop_is_tile_outer},
    {"intersect_iters", B(A) | B(B), B(AXIS) | B(TIRX) | B(TILE),
     axop_intersect_iters},
    {"slice", B(LAYOUT) | B(SHAPE) | B(REGION), 0, axop_slice},
    {"direct_sum", B(A) | B(A_SHAPE) | B(B) | B(B_SHAPE), 0, axop_direct_sum},
    {"is_direct_sum_left", B(A) | B(SUM) | B(INTERLEAVED_SHAPE) | B(A_SHAPE), 0,
     axop_is_direct_sum_left},
    {"is_direct_sum_right", B(B) | B(SUM) | B(INTERLEAVED_SHAPE) | B(B_SHAPE),
     0, axop_is_direct_sum_right},
    {"row_major", B(SHAPE), 0, axop_row_major},
    {"storage", B(LAYOUT), 0, axop_storage},
    {"pack", B(LAYOUT) | B(NUM), 0, axop_pack},
    {"unpack", B(LAYOUT) | B(NUM), 0, axop_unpack},
    {"broadcast", B(LAYOUT) | B(NUM), B(POSITION) | B(AXIS), axop_broadcast},
    {"permute_dims", B(LAYOUT) | B(PERM), 0, axop_permute_dims},
    {"permute_by_groups", B(LAYOUT) | B(SEPS) | B(PERM), 0,
     axop_permute_by_groups},
    {"trainium", B(ANNOTATION) | B(SHAPE), 0, axop_trainium},
    {"to_psum", B(LAYOUT), 0, axop_to_psum},
    {"tmem_datapath_layout", B(DATAPATH) | B(ROWS) | B(COLS), B(SUB_SLAB),
     axop_tmem_datapath_layout},
    {"tmem_mma_operand_layout",
     B(OPERAND) | B(SHAPE) | B(DTYPE) | B(M) | B(CTA_GROUP), B(GROUP) | B(WS),
     axop_tmem_mma_operand_layout},
    {"wg_local_layout", B(COLS), B(ROWS), axop_wg_local_layout},
    {"mma_shared_layout", B(DTYPE) | B(SWIZZLE_MODE) | B(SHAPE), 0,
     axop_mma_shared_layout},
};

#undef B

#define NOPS (sizeof ops / sizeof ops[0])

static const char *const key_names[AXOP_NKEYS] = {"layout",
                                                  "a",
                                                  "b",
                                                  "inner",
                                                  "outer",
                                                  "tiled",
                                                  "sum",
                                                  "shape",
                                                  "a_shape",
                                                  "b_shape",
                                                  "inner_shape",
                                                  "outer_shape",
                                                  "tiled_shape",
                                                  "interleaved_shape",
                                                  "to_shape",
                                                  "current_shape",
                                                  "coord",
                                                  "seps",
                                                  "perm",
                                                  "group",
                                                  "shapes",
                                                  "region",
                                                  "point",
                                                  "text",
                                                  "axis",
                                                  "target",
                                                  "dtype",
                                                  "annotation",
                                                  "datapath",
                                                  "operand",
                                                  "coord_dtype",
                                                  "num",
                                                  "position",
                                                  "rows",
                                                  "cols",
                                                  "sub_slab",
                                                  "swizzle_mode",
                                                  "M",
                                                  "cta_group",
                                                  "canonicalize",
                                                  "swizzle_inner",
                                                  "ws",
                                                  "with_replicas",
                                                  "tirx",
                                                  "tile"};

const axop *axop_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPS; i++)
        if (strlen(ops[i].name) == len && memcmp(ops[i].name, name, len) == 0)
            return &ops[i];
    return NULL;
}

const axop *axop_at(size_t i) { return i < NOPS ? &ops[i] : NULL; }

int axop_key_find(const char *name, size_t len)
{
    for (int k = 0; k < AXOP_NKEYS; k++)
        if (strlen(key_names[k]) == len && memcmp(key_names[k], name, len) == 0)
            return k;
    return -1;
}

const char *axop_key_name(axop_key k) { return key_names[k]; }

axop_kind axop_key_kind(axop_key k)
{
    if (k < AXOP_SHAPE)
        return AXOP_K_LAYOUT;
    if (k < AXOP_SHAPES)
        return AXOP_K_INTS;
    if (k == AXOP_SHAPES)
        return AXOP_K_SHAPES;
    if (k == AXOP_REGION)
        return AXOP_K_REGION;
    if (k == AXOP_POINT)
        return AXOP_K_POINT;
    if (k == AXOP_TEXT)
        return AXOP_K_TEXT;
    if (k < AXOP_NUM)
        return AXOP_K_STR;
    return k < AXOP_CANONICALIZE ? AXOP_K_INT : AXOP_K_BOOL;
}

void axop_args_init(axop_args *args)
{
    args->have = 0;
    args->nshapes = 0;
    args->nregion = 0;
    args->point.n = 0;
}

void axop_result_init(axop_result *res)
{
    res->kind = AXOP_R_NULL;
    res->npoints = 0;
    res->nseps = 0;
    res->many = false;
    json_buf_init(&res->json, NULL, NULL);
}

void axop_result_free(axop_result *res) { json_buf_free(&res->json); }

axe_status axop_fail(axe_diag *diag, axe_status st, const char *fmt, ...)
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

axe_target axop_target(const axop_args *args)
{
    if (axop_has(args, AXOP_TARGET) &&
        strcmp(axop_str(args, AXOP_TARGET), "cuda") == 0)
        return AXE_TARGET_CUDA;
    return AXE_TARGET_NONE;
}

axe_rule axop_rule(const axop_args *args)
{
    return axop_has(args, AXOP_TIRX) && axop_flag(args, AXOP_TIRX)
               ? AXE_RULE_TIRX
               : AXE_RULE_PAPER;
}

axe_status axop_shape(const axop_args *args, axop_key k, int *n, axe_diag *diag)
{
    const axop_ints *s = axop_list(args, k);
    if (*n >= 0 && s->n != *n)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "\"%s\" must have %d entries, not %d",
                         axop_key_name(k), *n, s->n);
    if (s->n > AXE_LAYOUT_MAX_DIMS)
        return axop_fail(diag, AXE_ERR_CAPACITY,
                         "\"%s\" has %d dims; at most %d are supported",
                         axop_key_name(k), s->n, AXE_LAYOUT_MAX_DIMS);
    *n = s->n;
    return AXE_OK;
}

void axop_set_layout(axop_result *res, const axe_layout *l)
{
    res->kind = AXOP_R_LAYOUT;
    res->layout = *l;
}

void axop_set_null(axop_result *res) { res->kind = AXOP_R_NULL; }

void axop_set_bool(axop_result *res, bool b)
{
    res->kind = AXOP_R_BOOL;
    res->b = b;
}

void axop_set_int(axop_result *res, int64_t v)
{
    res->kind = AXOP_R_INT;
    res->i = v;
}

/* The arguments "args" has that "op" does not take, and the reverse. */
static axe_status check_args(const axop *op, const axop_args *args,
                             axe_diag *diag)
{
    uint64_t takes = op->required | op->optional | COMMON;
    for (int k = 0; k < AXOP_NKEYS; k++) {
        uint64_t bit = AXOP_BIT(k);
        if ((op->required & bit) && !(args->have & bit))
            return axop_fail(diag, AXE_ERR_INVALID,
                             "%s needs the argument \"%s\"", op->name,
                             key_names[k]);
        if ((args->have & bit) && !(takes & bit))
            return axop_fail(diag, AXE_ERR_INVALID,
                             "%s takes no argument \"%s\"", op->name,
                             key_names[k]);
    }
    if (axop_has(args, AXOP_TARGET) &&
        strcmp(axop_str(args, AXOP_TARGET), "cuda") != 0 &&
        strcmp(axop_str(args, AXOP_TARGET), "none") != 0)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "\"target\" is \"cuda\" or \"none\", not \"%s\"",
                         axop_str(args, AXOP_TARGET));
    return AXE_OK;
}

/* "swizzle_inner": false marks every swizzled operand outer-swizzled. */
static void apply_swizzle_flag(axop_args *args)
{
    if (!axop_has(args, AXOP_SWIZZLE_INNER))
        return;
    for (int i = 0; i < AXOP_NLAYOUTS; i++)
        if ((args->have & AXOP_BIT(AXOP_LAYOUT + i)) &&
            args->layout[i].swizzle.present)
            args->layout[i].swizzle.inner = axop_flag(args, AXOP_SWIZZLE_INNER);
}

/* The reason for "st" when the library gave none (its integer queries
 * take no diagnostic): the layout operand whose size or span overflows,
 * or the operation and the limit it ran into. */
static axe_status explain(const axop *op, const axop_args *args, axe_status st,
                          axe_diag *diag)
{
    for (int i = 0; i < AXOP_NLAYOUTS && st == AXE_ERR_OVERFLOW; i++) {
        const axe_layout *l = &args->layout[i];
        int64_t n;
        bool size = axe_layout_size(l, NULL, &n) == AXE_ERR_OVERFLOW;
        if (!(args->have & AXOP_BIT(AXOP_LAYOUT + i)) ||
            (!size && axe_layout_span(l, NULL, &n) != AXE_ERR_OVERFLOW))
            continue;
        return axop_fail(
            diag, st, "the %s of \"%s\" overflows int64 (largest %lld)",
            size ? "size (the product of the shard extents)" : "span",
            axop_key_name((axop_key)(AXOP_LAYOUT + i)), (long long)INT64_MAX);
    }
    if (st == AXE_ERR_OVERFLOW)
        return axop_fail(diag, st,
                         "%s of these operands computes a value past int64 "
                         "(largest %lld), although each layout's size and "
                         "span fit",
                         op->name, (long long)INT64_MAX);
    return axop_fail(diag, st, "%s refuses these operands: %s", op->name,
                     axe_status_message(st));
}

axe_status axop_run(const axop *op, axop_args *args, axop_result *res,
                    axe_diag *diag)
{
    axe_layout canon;
    axe_status st;
    AXE_TRY(check_args(op, args, diag));
    apply_swizzle_flag(args);
    st = op->run(args, res, diag);
    if (st != AXE_OK && st != AXE_ERR_NO_MEMORY && diag != NULL &&
        diag->message[0] == '\0')
        return explain(op, args, st, diag);
    AXE_TRY(st);
    if (res->kind != AXOP_R_LAYOUT || !axop_has(args, AXOP_CANONICALIZE) ||
        !axop_flag(args, AXOP_CANONICALIZE))
        return AXE_OK;
    AXE_TRY(
        axe_layout_canonicalize(&res->layout, axop_target(args), &canon, diag));
    res->layout = canon;
    return AXE_OK;
}

/* ---- writing results ----------------------------------------------------- */

void axop_layout_write(const axe_layout *l, json_buf *out)
{
    char small[1024];
    size_t n = axe_print_layout(l, small, sizeof small);
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
    axe_print_layout(l, big, n + 1);
    json_buf_put_raw(out, big, n);
    free(big);
}

void axop_point_write_json(const axe_point *p, json_buf *out)
{
    json_buf_put_rawz(out, "{");
    for (int i = 0; i < p->n; i++) {
        if (i > 0)
            json_buf_put_rawz(out, ",");
        json_buf_put_string(out, p->axis[i], strlen(p->axis[i]));
        json_buf_put_rawz(out, ":");
        json_buf_put_int(out, p->v[i]);
    }
    json_buf_put_rawz(out, "}");
}

static void point_write_text(const axe_point *p, json_buf *out)
{
    char buf[1024];
    size_t n = axe_print_point(p, buf, sizeof buf);
    json_buf_put_raw(out, buf, n < sizeof buf ? n : sizeof buf - 1);
}

void axop_ints_write(const int64_t *v, int n, json_buf *out)
{
    json_buf_put_rawz(out, "[");
    for (int i = 0; i < n; i++) {
        if (i > 0)
            json_buf_put_rawz(out, ",");
        json_buf_put_int(out, v[i]);
    }
    json_buf_put_rawz(out, "]");
}

static void seps_write(const axop_result *res, int k, json_buf *out)
{
    json_buf_put_rawz(out, "[");
    for (int i = 0; i < res->seplen[k]; i++) {
        if (i > 0)
            json_buf_put_rawz(out, ",");
        json_buf_put_int(out, res->seps[k][i]);
    }
    json_buf_put_rawz(out, "]");
}

static void group_write_json(const axop_result *res, json_buf *out)
{
    json_buf text;
    json_buf_init(&text, NULL, NULL);
    axop_layout_write(&res->layout, &text);
    json_buf_put_rawz(out, "{\"layout\":");
    json_buf_put_string(out, json_buf_str(&text), text.len);
    out->failed |= text.failed;
    json_buf_free(&text);
    json_buf_put_rawz(out, ",\"seps\":");
    if (res->many)
        json_buf_put_rawz(out, "[");
    for (int k = 0; k < res->nseps; k++) {
        if (k > 0)
            json_buf_put_rawz(out, ",");
        seps_write(res, k, out);
    }
    if (res->many)
        json_buf_put_rawz(out, "]");
    json_buf_put_rawz(out, "}");
}

static void layout_write_json(const axe_layout *l, json_buf *out)
{
    json_buf text;
    json_buf_init(&text, NULL, NULL);
    axop_layout_write(l, &text);
    json_buf_put_string(out, json_buf_str(&text), text.len);
    out->failed |= text.failed;
    json_buf_free(&text);
}

void axop_result_write_json(const axop_result *res, json_buf *out)
{
    switch (res->kind) {
    case AXOP_R_NULL:
        json_buf_put_rawz(out, "null");
        break;
    case AXOP_R_LAYOUT:
        layout_write_json(&res->layout, out);
        break;
    case AXOP_R_BOOL:
        json_buf_put_rawz(out, res->b ? "true" : "false");
        break;
    case AXOP_R_INT:
        json_buf_put_int(out, res->i);
        break;
    case AXOP_R_INTS:
        axop_ints_write(res->ints.v, res->ints.n, out);
        break;
    case AXOP_R_POINT:
        axop_point_write_json(&res->points[0], out);
        break;
    case AXOP_R_POINTS:
        json_buf_put_rawz(out, "[");
        for (int i = 0; i < res->npoints; i++) {
            if (i > 0)
                json_buf_put_rawz(out, ",");
            axop_point_write_json(&res->points[i], out);
        }
        json_buf_put_rawz(out, "]");
        break;
    case AXOP_R_GROUP:
        group_write_json(res, out);
        break;
    case AXOP_R_JSON:
        json_buf_put_raw(out, json_buf_str(&res->json), res->json.len);
        break;
    case AXOP_R_TEXT:
        json_buf_put_string(out, json_buf_str(&res->json), res->json.len);
        break;
    }
}

/* The layout, then "seps [0,2,4]" (one list per shape). */
static void group_write_text(const axop_result *res, json_buf *out)
{
    axop_layout_write(&res->layout, out);
    json_buf_put_rawz(out, "\nseps");
    for (int k = 0; k < res->nseps; k++) {
        json_buf_put_rawz(out, " ");
        seps_write(res, k, out);
    }
}

void axop_result_write_text(const axop_result *res, json_buf *out)
{
    switch (res->kind) {
    case AXOP_R_LAYOUT:
        axop_layout_write(&res->layout, out);
        break;
    case AXOP_R_POINT:
        point_write_text(&res->points[0], out);
        break;
    case AXOP_R_POINTS:
        for (int i = 0; i < res->npoints; i++) {
            if (i > 0)
                json_buf_put_rawz(out, "\n");
            point_write_text(&res->points[i], out);
        }
        break;
    case AXOP_R_GROUP:
        group_write_text(res, out);
        break;
    case AXOP_R_TEXT:
        json_buf_put_raw(out, json_buf_str(&res->json), res->json.len);
        break;
    case AXOP_R_NULL:
    case AXOP_R_BOOL:
    case AXOP_R_INT:
    case AXOP_R_INTS:
    case AXOP_R_JSON:
        axop_result_write_json(res, out);
        break;
    }
}
