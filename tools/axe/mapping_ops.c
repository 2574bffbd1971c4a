/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `mapping.<name>` operation table and the operations on single
 * expressions: map, size, print, normalize, equivalent, inverse,
 * parse_error, parse_axes and index (spec §13). Each request's environment
 * (axes, defs, consts) is read first; every failure names its argument.
 * Invariant: the table is the only place that names operations, so `axe
 * batch`, `axe map` and the help texts agree.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core_internal.h"
#include "mapping_ops.h"

#define TEXT_MAX 4096
#define POSITIONS_MAX 4096

axe_status mapop_fail(json_buf *msg, const char *key, axe_status st,
                      const axe_diag *diag)
{
    json_buf_put_rawz(msg, "args.");
    json_buf_put_rawz(msg, key);
    json_buf_put_rawz(msg, ": ");
    if (diag->offset >= 0) {
        json_buf_put_rawz(msg, "at offset ");
        json_buf_put_int(msg, diag->offset);
        json_buf_put_rawz(msg, ": ");
    }
    cli_put_reason(msg, st, diag);
    return st;
}

static axe_status bad_arg(json_buf *msg, const char *key, const char *what)
{
    json_buf_put_rawz(msg, "args.");
    json_buf_put_rawz(msg, key);
    json_buf_put_rawz(msg, what);
    return AXE_ERR_INVALID;
}

const char *mapop_str(const json_value *args, const char *key, size_t *len,
                      json_buf *msg)
{
    const char *s = json_get_string(json_object_get(args, key), len);
    if (s == NULL)
        (void)bad_arg(msg, key, " must be a string");
    return s;
}

axe_status mapop_int(const json_value *args, const char *key, int64_t *out,
                     json_buf *msg)
{
    if (json_get_int(json_object_get(args, key), out) != JSON_OK)
        return bad_arg(msg, key, " must be an integer");
    return AXE_OK;
}

axe_status mapop_expr(const json_value *args, const char *key, mapop_env *e,
                      axe_mapping *out, json_buf *msg)
{
    size_t len;
    const char *s = mapop_str(args, key, &len, msg);
    axe_diag diag;
    axe_status st;
    if (s == NULL)
        return AXE_ERR_INVALID;
    st = axe_parse_mapping(s, len, &e->env, out, &diag);
    return st == AXE_OK ? AXE_OK : mapop_fail(msg, key, st, &diag);
}

uint32_t mapop_used(const axe_mapping *m)
{
    uint32_t mask = 0;
    for (int k = 0; k < m->axes.n; k++)
        if (axe_mapping_uses_axis(m, axe_mapping_root(m), k))
            mask |= UINT32_C(1) << k;
    return mask;
}

void mapop_put_cell(json_buf *out, const axe_mapping_axes *axes, uint32_t mask,
                    const axe_mapping_cell *c)
{
    bool first = true;
    if (c->kind == AXE_CELL_OUT_OF_BOUNDS) {
        json_buf_put_rawz(out, "null");
        return;
    }
    if (c->kind == AXE_CELL_PADDING) {
        json_buf_put_rawz(out, "{\"padding\":\"");
        json_buf_put_rawz(out, axe_padding_kind_name(c->padding));
        json_buf_put_rawz(out, "\"}");
        return;
    }
    json_buf_put_rawz(out, "{");
    for (int k = 0; k < axes->n; k++) {
        if (!(mask >> k & 1u))
            continue;
        json_buf_put_rawz(out, first ? "" : ",");
        first = false;
        json_buf_put_string(out, axes->name[k], strlen(axes->name[k]));
        json_buf_put_rawz(out, ":");
        json_buf_put_int(out, c->coord[k]);
    }
    json_buf_put_rawz(out, "}");
}

void mapop_put_layout(json_buf *out, const axe_layout *l)
{
    char text[TEXT_MAX];
    size_t n = axe_print_layout(l, text, sizeof text);
    json_buf_put_string(out, text, n < sizeof text ? n : sizeof text - 1);
}

/* The axes the normal forms of the parts' expressions name, in table
 * order (the raw expression's when normalization fails). */
static void named_axes(const mapop_env *e, const axe_mapping_part *parts,
                       int nparts, const char **names, int *n)
{
    static axe_mapping norm;
    uint32_t used = 0;
    for (int p = 0; p < nparts; p++) {
        const axe_mapping *m = parts[p].expr;
        if (axe_mapping_normalize(m, &norm, NULL) == AXE_OK)
            m = &norm;
        used |= mapop_used(m);
    }
    for (int k = 0; k < e->axes.n; k++)
        if (used >> k & 1u)
            names[(*n)++] = e->axes.name[k];
}

axe_status mapop_tensor_axes(const json_value *args, const mapop_env *e,
                             const axe_mapping_part *parts, int nparts,
                             const char **names, int *n, json_buf *msg)
{
    const json_value *v = json_object_get(args, "tensor_axes");
    size_t count = json_array_len(v);
    *n = 0;
    if (v == NULL) {
        named_axes(e, parts, nparts, names, n);
        return AXE_OK;
    }
    if (!json_is_array(v) || count > AXE_MAPPING_MAX_AXES)
        return bad_arg(msg, "tensor_axes", " must be a list of axis names");
    for (size_t i = 0; i < count; i++) {
        names[i] = json_get_string(json_array_at(v, i), NULL);
        if (names[i] == NULL)
            return bad_arg(msg, "tensor_axes", " must be a list of names");
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) {
                json_buf_put_rawz(msg, "args.tensor_axes names ");
                json_buf_put_rawz(msg, names[i]);
                json_buf_put_rawz(msg, " twice");
                return AXE_ERR_INVALID;
            }
    }
    *n = (int)count;
    return AXE_OK;
}

/* The optional boolean argument "key" (false when absent). */
axe_status mapop_flag(const json_value *args, const char *key, bool *out,
                      json_buf *msg)
{
    const json_value *v = json_object_get(args, key);
    int b = 0;
    *out = false;
    if (v == NULL)
        return AXE_OK;
    if (json_get_bool(v, &b) != JSON_OK)
        return bad_arg(msg, key, " must be true or false");
    *out = b != 0;
    return AXE_OK;
}

/* ---- the environment --------------------------------------------- */

static axe_status read_axes(const json_value *v, mapop_env *e, json_buf *msg)
{
    axe_diag diag;
    axe_status st;
    size_t len;
    const char *s = json_get_string(v, &len);
    e->axes.n = 0;
    if (v == NULL)
        return AXE_OK;
    if (s != NULL) {
        st = axe_parse_mapping_axes(s, len, &e->axes, &diag);
        return st == AXE_OK ? AXE_OK : mapop_fail(msg, "axes", st, &diag);
    }
    if (!json_is_object(v))
        return bad_arg(msg, "axes", " must be an object name -> size");
    for (size_t i = 0; i < json_object_len(v); i++) {
        int64_t size;
        const char *name = json_object_key_at(v, i, NULL);
        if (json_get_int(json_object_value_at(v, i), &size) != JSON_OK)
            return bad_arg(msg, "axes", " sizes must be integers");
        axe_diag_clear(&diag);
        st = axe_mapping_axes_add(&e->axes, name, size, &diag);
        if (st != AXE_OK)
            return mapop_fail(msg, "axes", st, &diag);
    }
    return AXE_OK;
}

static axe_status read_escapes(const json_value *args, mapop_env *e,
                               json_buf *msg)
{
    const json_value *defs = json_object_get(args, "defs");
    const json_value *consts = json_object_get(args, "consts");
    if (json_object_len(defs) > MAPOP_ESCAPES_MAX ||
        json_object_len(consts) > MAPOP_ESCAPES_MAX)
        return bad_arg(msg, "defs", " or consts: too many entries");
    for (size_t i = 0; i < json_object_len(defs); i++) {
        e->def_name[i] = json_object_key_at(defs, i, NULL);
        e->def_text[i] = json_get_string(json_object_value_at(defs, i), NULL);
        if (e->def_text[i] == NULL)
            return bad_arg(msg, "defs", " values must be m![...] strings");
    }
    for (size_t i = 0; i < json_object_len(consts); i++) {
        e->const_name[i] = json_object_key_at(consts, i, NULL);
        if (json_get_int(json_object_value_at(consts, i), &e->const_value[i]) !=
            JSON_OK)
            return bad_arg(msg, "consts", " values must be integers");
    }
    e->env = (axe_mapping_env){&e->axes,
                               (int)json_object_len(defs),
                               e->def_name,
                               e->def_text,
                               (int)json_object_len(consts),
                               e->const_name,
                               e->const_value,
                               false};
    return AXE_OK;
}

/* ---- operations on one expression -------------------------------- */

static axe_status op_map(const json_value *args, mapop_env *e, json_buf *result,
                         json_buf *msg)
{
    static axe_mapping m;
    axe_mapping_cell c;
    axe_diag diag;
    axe_status st;
    int64_t i;
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    AXE_TRY(mapop_int(args, "i", &i, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_map(&m, i, &c, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "expr", st, &diag);
    mapop_put_cell(result, &m.axes, mapop_used(&m), &c);
    return AXE_OK;
}

static axe_status op_size(const json_value *args, mapop_env *e,
                          json_buf *result, json_buf *msg)
{
    static axe_mapping m;
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    json_buf_put_int(result, axe_mapping_size(&m));
    return AXE_OK;
}

/* "m" as a JSON string: the Display form, or the m![...] form. */
static void put_mapping(json_buf *result, const axe_mapping *m, bool macro)
{
    char text[TEXT_MAX];
    size_t n = macro ? axe_print_mapping_macro(m, text, sizeof text)
                     : axe_print_mapping(m, text, sizeof text);
    json_buf_put_string(result, text, n < sizeof text ? n : sizeof text - 1);
}

static axe_status op_print(const json_value *args, mapop_env *e,
                           json_buf *result, json_buf *msg)
{
    static axe_mapping m;
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    put_mapping(result, &m, false);
    return AXE_OK;
}

static axe_status op_normalize(const json_value *args, mapop_env *e,
                               json_buf *result, json_buf *msg)
{
    static axe_mapping m, norm;
    axe_diag diag;
    axe_status st;
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_normalize(&m, &norm, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "expr", st, &diag);
    put_mapping(result, &norm, true);
    return AXE_OK;
}

static axe_status op_equivalent(const json_value *args, mapop_env *e,
                                json_buf *result, json_buf *msg)
{
    static axe_mapping a, b;
    axe_diag diag;
    axe_status st;
    bool eq;
    AXE_TRY(mapop_expr(args, "a", e, &a, msg));
    AXE_TRY(mapop_expr(args, "b", e, &b, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_equivalent(&a, &b, &eq, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "a", st, &diag);
    json_buf_put_rawz(result, eq ? "true" : "false");
    return AXE_OK;
}

/* The index `i![...]` of argument "key". */
static axe_status read_index(const json_value *args, const char *key,
                             mapop_env *e, axe_mapping_index *ix, json_buf *msg)
{
    axe_diag diag;
    axe_status st;
    size_t len;
    const char *s = mapop_str(args, key, &len, msg);
    if (s == NULL)
        return AXE_ERR_INVALID;
    st = axe_parse_mapping_index(s, len, &e->env, ix, &diag);
    return st == AXE_OK ? AXE_OK : mapop_fail(msg, key, st, &diag);
}

static axe_status op_index(const json_value *args, mapop_env *e,
                           json_buf *result, json_buf *msg)
{
    axe_mapping_index ix;
    AXE_TRY(read_index(args, "i", e, &ix, msg));
    mapop_put_cell(result, &e->axes, ix.used, &ix.cell);
    return AXE_OK;
}

/* Every position holding the index `i![...]` "index" (spec: the inverse). */
static axe_status op_inverse(const json_value *args, mapop_env *e,
                             json_buf *result, json_buf *msg)
{
    static axe_mapping m;
    static int64_t pos[POSITIONS_MAX];
    axe_mapping_index ix;
    axe_diag diag;
    axe_status st;
    int n;
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    AXE_TRY(read_index(args, "index", e, &ix, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_inverse(&m, &ix.cell, pos, POSITIONS_MAX, &n, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "expr", st, &diag);
    json_buf_put_rawz(result, "[");
    for (int k = 0; k < n; k++) {
        json_buf_put_rawz(result, k > 0 ? "," : "");
        json_buf_put_int(result, pos[k]);
    }
    json_buf_put_rawz(result, "]");
    return AXE_OK;
}

static axe_status op_parse_axes(const json_value *args, mapop_env *e,
                                json_buf *result, json_buf *msg)
{
    axe_diag diag;
    axe_status st;
    size_t len;
    const char *s = mapop_str(args, "decl", &len, msg);
    if (s == NULL)
        return AXE_ERR_INVALID;
    st = axe_parse_mapping_axes(s, len, &e->axes, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "decl", st, &diag);
    json_buf_put_rawz(result, "{");
    for (int k = 0; k < e->axes.n; k++) {
        json_buf_put_rawz(result, k > 0 ? "," : "");
        json_buf_put_string(result, e->axes.name[k], strlen(e->axes.name[k]));
        json_buf_put_rawz(result, ":");
        json_buf_put_int(result, e->axes.size[k]);
    }
    json_buf_put_rawz(result, "}");
    return AXE_OK;
}

/* ---- the table --------------------------------------------------- */

typedef struct mapop {
    const char *name;
    mapop_fn *fn;
    const char *help;
} mapop;

static const mapop ops[] = {
    {"map", op_map, "expr, i: the cell at buffer position i"},
    {"size", op_size, "expr: the number of buffer cells"},
    {"print", op_print, "expr: Furiosa's Display form"},
    {"parse_error", op_print,
     "expr: the Display form, or why it is "
     "rejected"},
    {"normalize", op_normalize, "expr: the normal form, as m![...]"},
    {"equivalent", op_equivalent, "a, b: whether the maps agree"},
    {"index", op_index, "i: the cell of an i![...] index"},
    {"inverse", op_inverse, "expr, index: every position holding it"},
    {"parse_axes", op_parse_axes, "decl: the axes![...] table"},
    {"to_axe", mapop_to_axe, "expr, tensor_axes, holes: the Axe layout"},
    {"to_axe_multi", mapop_to_axe_multi,
     "dims, tensor_axes: the Axe "
     "layout of per-axis parts"},
    {"tile", mapop_tile,
     "expr, index, len, view, start, mode, i: the "
     "view's cell"},
    {"tile_view", mapop_tile_view,
     "expr, index, len, mode[, start]: the view "
     "expression of the tiles (with start: and the tile's offset)"},
    {"skew_map", mapop_skew_map,
     "expr, derived, i: the cell with skewed "
     "axes undone"},
    {"lincomb_size", mapop_lincomb_size, "expr $(...): its size"},
    {"lincomb_map", mapop_lincomb_map, "expr $(...), i: related indices"},
    {"lincomb_to_axe", mapop_lincomb_to_axe,
     "expr $(...), tensor_axes: "
     "the Axe layout"},
};

void mapop_list(FILE *f)
{
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        fprintf(f, "  %-15s %s\n", ops[k].name, ops[k].help);
}

axe_status mapop_batch_answer(const char *name, size_t len,
                              const json_value *args, json_buf *result,
                              json_buf *msg)
{
    static mapop_env e;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (strlen(ops[k].name) != len || memcmp(ops[k].name, name, len) != 0)
            continue;
        if (args != NULL && !json_is_object(args)) {
            json_buf_put_rawz(msg, "\"args\" must be a JSON object");
            return AXE_ERR_INVALID;
        }
        AXE_TRY(read_axes(json_object_get(args, "axes"), &e, msg));
        AXE_TRY(read_escapes(args, &e, msg));
        return ops[k].fn(args, &e, result, msg);
    }
    json_buf_put_rawz(msg, "unknown mapping operation ");
    cli_put_quoted(msg, name, len);
    return AXE_ERR_UNKNOWN_OP;
}
