/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe operations on the model: parse (the layout as data), axis_info,
 * size, span, get_scope, verify_well_formed, equal / equivalent, the
 * forward maps (apply = TIRx's base point, apply_set = the paper's set,
 * apply_to_shape = per-iter digits), the backward map and the conversions
 * CuTe <-> Axe. Each is a thin call into include/axe/layout.h; the
 * conventions of the reference (which form of apply a coordinate list
 * selects, TIRx's messages) are decided here. Invariant: results are
 * written only on success.
 */
#include <string.h>

#include "axe_ops.h"
#include "cli.h"

#include "core_internal.h"

/* ---- the model as data --------------------------------------------------- */

static void iters_write_json(const axe_iter *it, int n, json_buf *out)
{
    json_buf_put_rawz(out, "[");
    for (int i = 0; i < n; i++) {
        json_buf_put_rawz(out, i > 0 ? ",[" : "[");
        json_buf_put_int(out, it[i].extent);
        json_buf_put_rawz(out, ",");
        json_buf_put_int(out, it[i].stride);
        json_buf_put_rawz(out, ",");
        json_buf_put_string(out, it[i].axis, strlen(it[i].axis));
        json_buf_put_rawz(out, "]");
    }
    json_buf_put_rawz(out, "]");
}

static void swizzle_write_json(const axe_layout_swizzle *sw, json_buf *out)
{
    json_buf_put_rawz(out, ",\"swizzle\":{\"per_element\":");
    json_buf_put_int(out, sw->per_element);
    json_buf_put_rawz(out, ",\"len\":");
    json_buf_put_int(out, sw->len);
    json_buf_put_rawz(out, ",\"atom\":");
    json_buf_put_int(out, sw->atom);
    json_buf_put_rawz(out,
                      sw->inner ? ",\"inner\":true}" : ",\"inner\":false}");
}

/* {"shard": [[e, s, axis], ...], "replica": [...], "offset": {axis: v}}
 * and, for a swizzled layout, "swizzle": {per_element, len, atom, inner}. */
static void layout_write_data(const axe_layout *l, json_buf *out)
{
    json_buf_put_rawz(out, "{\"shard\":");
    iters_write_json(l->shard, l->nshard, out);
    json_buf_put_rawz(out, ",\"replica\":");
    iters_write_json(l->replica, l->nreplica, out);
    json_buf_put_rawz(out, ",\"offset\":{");
    for (int i = 0; i < l->noffset; i++) {
        if (i > 0)
            json_buf_put_rawz(out, ",");
        json_buf_put_string(out, l->offset[i].axis, strlen(l->offset[i].axis));
        json_buf_put_rawz(out, ":");
        json_buf_put_int(out, l->offset[i].value);
    }
    json_buf_put_rawz(out, "}");
    if (l->swizzle.present)
        swizzle_write_json(&l->swizzle, out);
    json_buf_put_rawz(out, "}");
}

/* The failure "st" of parsing "text", with the offset in the message. */
static axe_status parse_failure(const axop_args *args, axe_status st,
                                const axe_diag *d, axe_diag *diag)
{
    json_buf msg;
    json_buf_init(&msg, NULL, NULL);
    cli_put_parse_error(&msg, args->text, args->text_len, st, d);
    axop_fail(diag, st, "%s",
              msg.failed ? "out of memory" : json_buf_str(&msg));
    json_buf_free(&msg);
    if (diag != NULL)
        diag->offset = d->offset;
    return st;
}

axe_status axop_parse(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout l;
    axe_diag d;
    axe_status st;
    axe_diag_clear(&d);
    st = axe_parse_layout(args->text, args->text_len, &l, &d);
    if (st != AXE_OK)
        return parse_failure(args, st, &d, diag);
    res->kind = AXOP_R_JSON;
    layout_write_data(&l, &res->json);
    return AXE_OK;
}

static void put_scope(json_buf *out, axe_scope s)
{
    if (s == AXE_SCOPE_NONE) {
        json_buf_put_rawz(out, "null");
        return;
    }
    json_buf_put_string(out, axe_scope_name(s), strlen(axe_scope_name(s)));
}

/* {"is_thread", "is_memory", "scope", "subscope"} (null scopes for memory
 * and device axes; a device axis is neither thread nor memory). */
axe_status axop_axis_info(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    axe_axis_info info;
    json_buf *out = &res->json;
    AXE_TRY(axe_axis_lookup(axop_str(args, AXOP_AXIS), &info, diag));
    res->kind = AXOP_R_JSON;
    json_buf_put_rawz(out, info.kind == AXE_AXIS_THREAD
                               ? "{\"is_thread\":true"
                               : "{\"is_thread\":false");
    json_buf_put_rawz(out, info.kind == AXE_AXIS_MEMORY
                               ? ",\"is_memory\":true"
                               : ",\"is_memory\":false");
    json_buf_put_rawz(out, ",\"scope\":");
    put_scope(out, info.scope);
    json_buf_put_rawz(out, ",\"subscope\":");
    put_scope(out, info.subscope);
    json_buf_put_rawz(out, "}");
    return AXE_OK;
}

/* ---- queries ------------------------------------------------------------- */

static const char *axis_arg(const axop_args *args)
{
    return axop_has(args, AXOP_AXIS) ? axop_str(args, AXOP_AXIS) : NULL;
}

/* The reason for status "st" of the "what" of "l" (size or span, on
 * "axis" when not NULL): axe_layout_size/span take no diagnostic. */
static axe_status quantity_fail(const axe_layout *l, const char *axis,
                                const char *what, axe_status st, axe_diag *diag)
{
    if (axis != NULL && l->swizzle.present)
        return axe__fail(diag, st, -1,
                         "the %s on axis '%s' of a swizzled layout is not "
                         "defined (the swizzle mixes the bits of the whole "
                         "offset); ask without an axis",
                         what, axis);
    if (axis != NULL && st == AXE_ERR_INVALID)
        return axe__fail(diag, st, -1,
                         "'%.32s' is not an axis name: 1 to %d bytes of "
                         "[A-Za-z0-9_]",
                         axis, AXE_AXIS_NAME_MAX - 1);
    if (st == AXE_ERR_OVERFLOW)
        return axe__fail(diag, st, -1,
                         "the %s%s%s of the layout overflows int64 "
                         "(largest %lld)",
                         what, axis != NULL ? " on axis " : "",
                         axis != NULL ? axis : "", (long long)INT64_MAX);
    return axe__fail(diag, st, -1, "the %s of the layout: %s", what,
                     axe_status_message(st));
}

axe_status axop_size(const axop_args *args, axop_result *res, axe_diag *diag)
{
    const axe_layout *l = axop_layout(args, AXOP_LAYOUT);
    int64_t n;
    axe_status st = axe_layout_size(l, axis_arg(args), &n);
    if (st != AXE_OK)
        return quantity_fail(l, axis_arg(args), "size", st, diag);
    axop_set_int(res, n);
    return AXE_OK;
}

axe_status axop_span(const axop_args *args, axop_result *res, axe_diag *diag)
{
    const axe_layout *l = axop_layout(args, AXOP_LAYOUT);
    int64_t n;
    axe_status st =
        axe_layout_span_rule(l, axis_arg(args), axop_rule(args), &n);
    if (st != AXE_OK)
        return quantity_fail(l, axis_arg(args), "span", st, diag);
    axop_set_int(res, n);
    return AXE_OK;
}

/* [innermost subscope, outermost scope], or null without thread axes. */
axe_status axop_get_scope(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    bool has;
    axe_scope sub, scope;
    AXE_TRY(axe_layout_get_scope(axop_layout(args, AXOP_LAYOUT), &has, &sub,
                                 &scope, diag));
    res->kind = AXOP_R_JSON;
    if (!has) {
        json_buf_put_rawz(&res->json, "null");
        return AXE_OK;
    }
    json_buf_put_rawz(&res->json, "[");
    put_scope(&res->json, sub);
    json_buf_put_rawz(&res->json, ",");
    put_scope(&res->json, scope);
    json_buf_put_rawz(&res->json, "]");
    return AXE_OK;
}

axe_status axop_verify_well_formed(const axop_args *args, axop_result *res,
                                   axe_diag *diag)
{
    AXE_TRY(
        axe_layout_verify_well_formed(axop_layout(args, AXOP_LAYOUT), diag));
    axop_set_bool(res, true);
    return AXE_OK;
}

/* Structural equality, after canonicalizing both when "canonicalize". */
axe_status axop_equal(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout a = *axop_layout(args, AXOP_A), b = *axop_layout(args, AXOP_B);
    if (axop_has(args, AXOP_CANONICALIZE) &&
        axop_flag(args, AXOP_CANONICALIZE)) {
        AXE_TRY(axe_layout_canonicalize(axop_layout(args, AXOP_A),
                                        axop_target(args), &a, diag));
        AXE_TRY(axe_layout_canonicalize(axop_layout(args, AXOP_B),
                                        axop_target(args), &b, diag));
    }
    axop_set_bool(res, axe_layout_equal(&a, &b));
    return AXE_OK;
}

axe_status axop_equivalent(const axop_args *args, axop_result *res,
                           axe_diag *diag)
{
    bool eq;
    AXE_TRY(axe_layout_equivalent(axop_layout(args, AXOP_A),
                                  axop_layout(args, AXOP_B), &eq, diag));
    axop_set_bool(res, eq);
    return AXE_OK;
}

/* ---- the forward and backward maps --------------------------------------- */

/* "coord" and "shape" have the same length (TIRx's message otherwise). */
static axe_status coord_and_shape(const axop_args *args, int *n, axe_diag *diag)
{
    const axop_ints *c = axop_list(args, AXOP_COORD);
    if (axop_list(args, AXOP_SHAPE)->n != c->n)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "The size of coord and shape should be equal (coord "
                         "has %d entries, shape %d)",
                         c->n, axop_list(args, AXOP_SHAPE)->n);
    *n = -1;
    return axop_shape(args, AXOP_SHAPE, n, diag);
}

/*
 * TIRx apply: with "shape", the base point of coordinate "coord" in the
 * shape; otherwise a one-entry "coord" is a linear index and a longer one
 * holds one digit per shard iter.
 */
axe_status axop_apply(const axop_args *args, axop_result *res, axe_diag *diag)
{
    const axe_layout *l = axop_layout(args, AXOP_LAYOUT);
    const axop_ints *c = axop_list(args, AXOP_COORD);
    axe_point p;
    int n;
    if (axop_has(args, AXOP_SHAPE)) {
        AXE_TRY(coord_and_shape(args, &n, diag));
        AXE_TRY(axe_layout_apply_shape(l, c->v, axop_list(args, AXOP_SHAPE)->v,
                                       n, &p, diag));
    } else if (c->n == 1) {
        AXE_TRY(axe_layout_apply_base(l, c->v[0], &p, diag));
    } else {
        AXE_TRY(axe_layout_apply_digits(l, c->v, c->n, &p, diag));
    }
    res->kind = AXOP_R_POINT;
    res->points[0] = p;
    return AXE_OK;
}

/* The paper's set L(x) = { D(x) + r + O : r in R }, x a linear index (a
 * one-entry "coord") or a coordinate in "shape". */
axe_status axop_apply_set(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    const axe_layout *l = axop_layout(args, AXOP_LAYOUT);
    const axop_ints *c = axop_list(args, AXOP_COORD);
    const int64_t *shape = NULL;
    int n = 1, count;
    if (axop_has(args, AXOP_SHAPE)) {
        AXE_TRY(coord_and_shape(args, &n, diag));
        shape = axop_list(args, AXOP_SHAPE)->v;
    } else if (c->n != 1) {
        return axop_fail(diag, AXE_ERR_INVALID,
                         "apply_set takes a linear index (one \"coord\") or "
                         "a coordinate with its \"shape\"");
    }
    AXE_TRY(axe_layout_apply_set(l, c->v, shape, n, res->points,
                                 AXOP_POINTS_MAX, &count, diag));
    res->kind = AXOP_R_POINTS;
    res->npoints = count;
    return AXE_OK;
}

axe_status axop_apply_to_shape(const axop_args *args, axop_result *res,
                               axe_diag *diag)
{
    int n, nd;
    int64_t digits[AXE_LAYOUT_MAX_SHARD];
    AXE_TRY(coord_and_shape(args, &n, diag));
    AXE_TRY(axe_layout_digits_of(
        axop_layout(args, AXOP_LAYOUT), axop_list(args, AXOP_COORD)->v,
        axop_list(args, AXOP_SHAPE)->v, n, digits, &nd, diag));
    res->kind = AXOP_R_INTS;
    res->ints.n = nd;
    memcpy(res->ints.v, digits, (size_t)nd * sizeof digits[0]);
    return AXE_OK;
}

/* The smallest linear index whose base point (any point of its set, with
 * "with_replicas") is "point"; null when there is none. */
axe_status axop_backward(const axop_args *args, axop_result *res,
                         axe_diag *diag)
{
    bool found, reps = axop_has(args, AXOP_WITH_REPLICAS) &&
                       axop_flag(args, AXOP_WITH_REPLICAS);
    int64_t x;
    AXE_TRY(axe_layout_backward(axop_layout(args, AXOP_LAYOUT), &args->point,
                                reps, &x, &found, diag));
    if (!found) {
        axop_fail(diag, AXE_OK, "the point is not in the image of the layout");
        axop_set_null(res);
        return AXE_OK;
    }
    axop_set_int(res, x);
    return AXE_OK;
}

/* ---- conversions --------------------------------------------------------- */

/* A CuTe layout, or a swizzled one `Sw<B,M,S> o off o L`, as Axe. */
axe_status axop_from_cute(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    static axe_cute_object c;
    axe_layout l;
    axe_diag d;
    axe_status st;
    axe_diag_clear(&d);
    st = axe_parse_cute(args->text, args->text_len, &c, &d);
    if (st != AXE_OK)
        return parse_failure(args, st, &d, diag);
    if (c.kind == AXE_CUTE_KIND_COMPOSED)
        AXE_TRY(axe_layout_from_cute_composed(&c.composed, &l, diag));
    else if (c.kind == AXE_CUTE_KIND_LAYOUT)
        AXE_TRY(axe_layout_from_cute(&c.layout, &l, diag));
    else
        return axop_fail(diag, AXE_ERR_UNSUPPORTED,
                         "\"text\" must be a CuTe layout or a swizzled "
                         "layout Sw<B,M,S> o off o L");
    axop_set_layout(res, &l);
    return AXE_OK;
}

/* The CuTe layout of "layout"; a swizzle or an offset on `m` gives the
 * composed layout `Sw<B,M,S> o off o L`. */
axe_status axop_to_cute(const axop_args *args, axop_result *res, axe_diag *diag)
{
    static axe_cute_object o;
    const axe_layout *l = axop_layout(args, AXOP_LAYOUT);
    char buf[1024];
    size_t n;
    if (l->swizzle.present || l->noffset > 0) {
        o.kind = AXE_CUTE_KIND_COMPOSED;
        AXE_TRY(axe_layout_to_cute_composed(l, &o.composed, diag));
    } else {
        o.kind = AXE_CUTE_KIND_LAYOUT;
        AXE_TRY(axe_layout_to_cute(l, &o.layout, diag));
    }
    n = axe_print_cute(&o, buf, sizeof buf);
    if (n >= sizeof buf)
        return axop_fail(diag, AXE_ERR_CAPACITY,
                         "the CuTe layout is too long to print");
    res->kind = AXOP_R_TEXT;
    json_buf_put_raw(&res->json, buf, n);
    return AXE_OK;
}
