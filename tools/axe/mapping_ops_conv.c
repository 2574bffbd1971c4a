/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `mapping.<name>` operations that combine several expressions or leave
 * the mapping family: to_axe and to_axe_multi (Axe layouts, spec §10),
 * tile (views, §9), skew_map and the linear-combination operations (the
 * doc-only forms of §11). Invariant: as in mapping_ops.c, a failure leaves
 * its reason in "msg" naming the argument and appends nothing to "result".
 */
#include <string.h>

#include "core_internal.h"
#include "mapping_ops.h"

#define PARTS_MAX 8
#define RELATED_MAX 1024

static axe_status put_parts_layout(const axe_mapping_part *parts, int n,
                                   const json_value *args, mapop_env *e,
                                   const char *key, json_buf *result,
                                   json_buf *msg)
{
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_layout l;
    axe_diag diag;
    axe_status st;
    int nt;
    AXE_TRY(mapop_tensor_axes(args, e, parts, n, tensor, &nt, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_to_layout(parts, n, tensor, nt, &l, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, key, st, &diag);
    mapop_put_layout(result, &l);
    return AXE_OK;
}

axe_status mapop_to_axe(const json_value *args, mapop_env *e, json_buf *result,
                        json_buf *msg)
{
    static axe_mapping m;
    axe_mapping_part part = {&m, "m", 1, false};
    AXE_TRY(mapop_flag(args, "holes", &part.holes, msg));
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    return put_parts_layout(&part, 1, args, e, "expr", result, msg);
}

/* Entry "k" of "dims": [hardware axis, m![...]]. */
static axe_status read_dim(const json_value *dim, mapop_env *e, axe_mapping *m,
                           axe_mapping_part *part, json_buf *msg)
{
    const char *axis = json_get_string(json_array_at(dim, 0), NULL);
    const char *text = json_get_string(json_array_at(dim, 1), NULL);
    axe_diag diag;
    axe_status st;
    if (json_array_len(dim) != 2 || axis == NULL || text == NULL) {
        json_buf_put_rawz(msg, "args.dims entries must be [axis, m![...]]");
        return AXE_ERR_INVALID;
    }
    st = axe_parse_mapping(text, strlen(text), &e->env, m, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "dims", st, &diag);
    *part = (axe_mapping_part){m, axis, 1, false};
    return AXE_OK;
}

axe_status mapop_to_axe_multi(const json_value *args, mapop_env *e,
                              json_buf *result, json_buf *msg)
{
    static axe_mapping m[PARTS_MAX];
    axe_mapping_part parts[PARTS_MAX];
    const json_value *dims = json_object_get(args, "dims");
    size_t n = json_array_len(dims);
    if (!json_is_array(dims) || n < 1 || n > PARTS_MAX) {
        json_buf_put_rawz(msg, "args.dims must be a list of 1 to 8 "
                               "[axis, m![...]] entries");
        return AXE_ERR_INVALID;
    }
    for (size_t k = 0; k < n; k++)
        AXE_TRY(read_dim(json_array_at(dims, k), e, &m[k], &parts[k], msg));
    return put_parts_layout(parts, (int)n, args, e, "dims", result, msg);
}

axe_status mapop_tile(const json_value *args, mapop_env *e, json_buf *result,
                      json_buf *msg)
{
    static axe_mapping src, index, view;
    axe_mapping_tile t = {&src, &index, 0, &view, 0, false};
    axe_mapping_cell c;
    axe_diag diag;
    axe_status st;
    size_t len;
    int64_t i;
    const char *mode;
    AXE_TRY(mapop_expr(args, "expr", e, &src, msg));
    AXE_TRY(mapop_expr(args, "index", e, &index, msg));
    AXE_TRY(mapop_expr(args, "view", e, &view, msg));
    AXE_TRY(mapop_int(args, "len", &t.len, msg));
    AXE_TRY(mapop_int(args, "start", &t.start, msg));
    AXE_TRY(mapop_int(args, "i", &i, msg));
    mode = mapop_str(args, "mode", &len, msg);
    if (mode == NULL)
        return AXE_ERR_INVALID;
    if (strcmp(mode, "read") != 0 && strcmp(mode, "write") != 0) {
        json_buf_put_rawz(msg, "args.mode must be \"read\" or \"write\"");
        return AXE_ERR_INVALID;
    }
    t.write = strcmp(mode, "write") == 0;
    axe_diag_clear(&diag);
    st = axe_mapping_tile_map(&t, i, &c, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "view", st, &diag);
    mapop_put_cell(result, &src.axes, mapop_used(&view) | mapop_used(&index),
                   &c);
    return AXE_OK;
}

/* The view expression; with "start", the object {"view": ..., "offset":
 * cell} of the tile checked at that start. */
axe_status mapop_tile_view(const json_value *args, mapop_env *e,
                           json_buf *result, json_buf *msg)
{
    static axe_mapping src, index, view;
    static char text[4096];
    axe_mapping_cell off;
    axe_diag diag;
    axe_status st;
    const char *mode = json_get_string(json_object_get(args, "mode"), NULL);
    bool at = json_object_get(args, "start") != NULL;
    int64_t len, start = 0;
    size_t n;
    AXE_TRY(mapop_expr(args, "expr", e, &src, msg));
    AXE_TRY(mapop_expr(args, "index", e, &index, msg));
    AXE_TRY(mapop_int(args, "len", &len, msg));
    if (at)
        AXE_TRY(mapop_int(args, "start", &start, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_tile_view_at(&src, &index, len, start,
                                  mode != NULL && strcmp(mode, "write") == 0,
                                  &view, &off, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "index", st, &diag);
    n = axe_print_mapping_macro(&view, text, sizeof text);
    json_buf_put_rawz(result, at ? "{\"view\":" : "");
    json_buf_put_string(result, text, n < sizeof text ? n : sizeof text - 1);
    if (at) {
        json_buf_put_rawz(result, ",\"offset\":");
        mapop_put_cell(result, &src.axes, mapop_used(&index), &off);
        json_buf_put_rawz(result, "}");
    }
    return AXE_OK;
}

/* ---- skewed axes ------------------------------------------------- */

/* "X - Y" into the axis indices of X and Y. */
static bool read_difference(const char *s, const mapop_env *e, int *x, int *y)
{
    const char *minus = strchr(s, '-');
    const char *a = s, *b;
    size_t la, lb;
    if (minus == NULL)
        return false;
    while (*a == ' ')
        a++;
    la = (size_t)(minus - a);
    while (la > 0 && a[la - 1] == ' ')
        la--;
    b = minus + 1;
    while (*b == ' ')
        b++;
    lb = strlen(b);
    while (lb > 0 && b[lb - 1] == ' ')
        lb--;
    *x = axe_mapping_axes_find(&e->axes, a, la);
    *y = axe_mapping_axes_find(&e->axes, b, lb);
    return *x >= 0 && *y >= 0;
}

typedef struct skew {
    int derived, base, by;
} skew;

static axe_status read_skews(const json_value *args, mapop_env *e, skew *sk,
                             int *n, json_buf *msg)
{
    const json_value *d = json_object_get(args, "derived");
    axe_diag diag;
    *n = 0;
    if (!json_is_object(d) || json_object_len(d) > 4) {
        json_buf_put_rawz(msg, "args.derived must be an object "
                               "{\"B'\": \"B - A\"} of at most 4 entries");
        return AXE_ERR_INVALID;
    }
    for (size_t k = 0; k < json_object_len(d); k++) {
        const char *name = json_object_key_at(d, k, NULL);
        const char *def = json_get_string(json_object_value_at(d, k), NULL);
        skew s;
        axe_status st;
        if (def == NULL || !read_difference(def, e, &s.base, &s.by)) {
            json_buf_put_rawz(msg, "args.derived: expected \"X - Y\" over "
                                   "declared axes");
            return AXE_ERR_INVALID;
        }
        axe_diag_clear(&diag);
        st = axe_mapping_axes_add(&e->axes, name, e->axes.size[s.base], &diag);
        if (st != AXE_OK)
            return mapop_fail(msg, "derived", st, &diag);
        s.derived = e->axes.n - 1;
        sk[(*n)++] = s;
    }
    e->env.primes = true;
    return AXE_OK;
}

axe_status mapop_skew_map(const json_value *args, mapop_env *e,
                          json_buf *result, json_buf *msg)
{
    static axe_mapping m;
    skew sk[4];
    axe_mapping_cell c;
    axe_diag diag;
    axe_status st;
    uint32_t mask;
    int64_t i;
    int n;
    AXE_TRY(read_skews(args, e, sk, &n, msg));
    AXE_TRY(mapop_expr(args, "expr", e, &m, msg));
    AXE_TRY(mapop_int(args, "i", &i, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_map(&m, i, &c, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "expr", st, &diag);
    mask = mapop_used(&m);
    for (int k = 0; k < n; k++) {
        AXE_TRY(axe_mapping_cell_unskew(&m.axes, sk[k].derived, sk[k].base,
                                        sk[k].by, &c));
        if (mask >> sk[k].derived & 1u)
            mask = (mask & ~(UINT32_C(1) << sk[k].derived)) | UINT32_C(1)
                                                                  << sk[k].base;
    }
    mapop_put_cell(result, &m.axes, mask, &c);
    return AXE_OK;
}

/* ---- linear combinations ----------------------------------------- */

static axe_status read_lincomb(const json_value *args, mapop_env *e,
                               axe_mapping_lincomb *c, json_buf *msg)
{
    axe_diag diag;
    axe_status st;
    size_t len;
    const char *s = mapop_str(args, "expr", &len, msg);
    if (s == NULL)
        return AXE_ERR_INVALID;
    st = axe_parse_mapping_lincomb(s, len, &e->env, c, &diag);
    return st == AXE_OK ? AXE_OK : mapop_fail(msg, "expr", st, &diag);
}

axe_status mapop_lincomb_size(const json_value *args, mapop_env *e,
                              json_buf *result, json_buf *msg)
{
    static axe_mapping_lincomb c;
    int64_t size;
    AXE_TRY(read_lincomb(args, e, &c, msg));
    if (axe_mapping_lincomb_size(&c, &size) != AXE_OK) {
        json_buf_put_rawz(msg, "args.expr: the size overflows");
        return AXE_ERR_OVERFLOW;
    }
    json_buf_put_int(result, size);
    return AXE_OK;
}

axe_status mapop_lincomb_map(const json_value *args, mapop_env *e,
                             json_buf *result, json_buf *msg)
{
    static axe_mapping_lincomb c;
    static axe_mapping_cell cells[RELATED_MAX];
    axe_diag diag;
    axe_status st;
    uint32_t mask = 0;
    int64_t i;
    int n;
    AXE_TRY(read_lincomb(args, e, &c, msg));
    AXE_TRY(mapop_int(args, "i", &i, msg));
    axe_diag_clear(&diag);
    st = axe_mapping_lincomb_map(&c, i, cells, RELATED_MAX, &n, &diag);
    if (st != AXE_OK)
        return mapop_fail(msg, "expr", st, &diag);
    for (int k = 0; k < c.n; k++)
        mask |= mapop_used(&c.term[k]);
    json_buf_put_rawz(result, "[");
    for (int k = 0; k < n; k++) {
        json_buf_put_rawz(result, k > 0 ? "," : "");
        mapop_put_cell(result, &e->axes, mask, &cells[k]);
    }
    json_buf_put_rawz(result, "]");
    return AXE_OK;
}

axe_status mapop_lincomb_to_axe(const json_value *args, mapop_env *e,
                                json_buf *result, json_buf *msg)
{
    static axe_mapping_lincomb c;
    axe_mapping_part parts[AXE_LINCOMB_MAX];
    AXE_TRY(read_lincomb(args, e, &c, msg));
    for (int k = 0; k < c.n; k++)
        parts[k] = (axe_mapping_part){&c.term[k], "m", c.scale[k], false};
    return put_parts_layout(parts, c.n, args, e, "expr", result, msg);
}
