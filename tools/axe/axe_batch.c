/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe batch` for `axe.<name>` requests: the JSON "args" object is read
 * into axop_args by the kind of each argument name (layouts and CuTe text
 * are strings; shapes, coordinates and lists are integers or arrays of
 * integers; "shapes" an array of them; "region" an array of [begin, end]
 * pairs; "point" an object {axis: value} or a string; flags booleans), the
 * operation runs through the shared table, and the result is written as
 * JSON. Invariant: every failure leaves a reason in "msg" that names the
 * argument, and nothing is appended to "result" unless the answer is ok.
 */
#include <string.h>

#include "axe_ops.h"
#include "cli.h"

static void put_key(json_buf *msg, axop_key k, const char *what)
{
    json_buf_put_rawz(msg, "args.");
    json_buf_put_rawz(msg, axop_key_name(k));
    json_buf_put_rawz(msg, what);
}

static axe_status read_layout(const json_value *v, axop_key k, axop_args *a,
                              json_buf *msg)
{
    size_t len;
    const char *s = json_get_string(v, &len);
    axe_diag diag;
    axe_status st;
    if (s == NULL) {
        put_key(msg, k, " must be a string in the Axe notation");
        return AXE_ERR_INVALID;
    }
    axe_diag_clear(&diag);
    st = axe_parse_layout(s, len, &a->layout[k - AXOP_LAYOUT], &diag);
    if (st != AXE_OK) {
        put_key(msg, k, ": ");
        cli_put_parse_error(msg, s, len, st, &diag);
    }
    return st;
}

/* An integer, or an array of at most "cap" integers. */
static bool get_ints(const json_value *v, axop_ints *out, int cap)
{
    size_t n = json_is_array(v) ? json_array_len(v) : 1;
    if (n > (size_t)cap)
        return false;
    for (size_t i = 0; i < n; i++) {
        const json_value *e = json_is_array(v) ? json_array_at(v, i) : v;
        if (json_get_int(e, &out->v[i]) != JSON_OK)
            return false;
    }
    out->n = (int)n;
    return true;
}

static axe_status read_shapes(const json_value *v, axop_args *a, json_buf *msg)
{
    size_t n = json_array_len(v);
    if (!json_is_array(v) || n > AXOP_SHAPES_MAX)
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (!json_is_array(json_array_at(v, i)) ||
            !get_ints(json_array_at(v, i), &a->shapes[i], AXOP_LIST_MAX))
            goto bad;
    a->nshapes = (int)n;
    return AXE_OK;
bad:
    put_key(msg, AXOP_SHAPES,
            " must be a list of at most 8 lists of "
            "integers");
    return AXE_ERR_INVALID;
}

static axe_status read_region(const json_value *v, axop_args *a, json_buf *msg)
{
    size_t n = json_array_len(v);
    axop_ints pair;
    if (!json_is_array(v) || n > AXE_LAYOUT_MAX_DIMS)
        goto bad;
    for (size_t i = 0; i < n; i++) {
        if (!json_is_array(json_array_at(v, i)) ||
            !get_ints(json_array_at(v, i), &pair, 2) || pair.n != 2)
            goto bad;
        a->region[i][0] = pair.v[0];
        a->region[i][1] = pair.v[1];
    }
    a->nregion = (int)n;
    return AXE_OK;
bad:
    put_key(msg, AXOP_REGION,
            " must be a list of at most 16 [begin, end] "
            "pairs");
    return AXE_ERR_INVALID;
}

static axe_status read_point(const json_value *v, axop_args *a, json_buf *msg)
{
    size_t len;
    const char *s = json_get_string(v, &len);
    axe_diag diag;
    axe_status st;
    if (s != NULL) {
        axe_diag_clear(&diag);
        st = axop_parse_point(s, len, &a->point, &diag);
        if (st != AXE_OK) {
            put_key(msg, AXOP_POINT, ": ");
            cli_put_parse_error(msg, s, len, st, &diag);
        }
        return st;
    }
    a->point.n = 0;
    for (size_t i = 0; json_is_object(v) && i < json_object_len(v); i++) {
        int64_t x;
        const char *key = json_object_key_at(v, i, &len);
        if (json_get_int(json_object_value_at(v, i), &x) != JSON_OK ||
            axop_point_put(&a->point, key, len, x) != AXE_OK)
            goto bad;
    }
    if (json_is_object(v))
        return AXE_OK;
bad:
    put_key(msg, AXOP_POINT,
            " must be an object {axis: integer} or a "
            "string \"laneid=8,m=1\"");
    return AXE_ERR_INVALID;
}

/* A name (string), integer or boolean argument. */
static axe_status read_scalar(const json_value *v, axop_key k, axop_args *a,
                              json_buf *msg)
{
    size_t len;
    const char *s;
    int b;
    if (axop_key_kind(k) == AXOP_K_STR) {
        s = json_get_string(v, &len);
        if (s != NULL && len < AXOP_STR_MAX && strlen(s) == len) {
            memcpy(a->str[k - AXOP_AXIS], s, len + 1);
            return AXE_OK;
        }
        put_key(msg, k, " must be a string of at most 31 bytes");
        return AXE_ERR_INVALID;
    }
    if (axop_key_kind(k) == AXOP_K_INT) {
        if (json_get_int(v, &a->num[k - AXOP_NUM]) == JSON_OK)
            return AXE_OK;
        put_key(msg, k, " must be an integer");
        return AXE_ERR_INVALID;
    }
    if (json_get_bool(v, &b) == JSON_OK) {
        a->flag[k - AXOP_CANONICALIZE] = b != 0;
        return AXE_OK;
    }
    put_key(msg, k, " must be true or false");
    return AXE_ERR_INVALID;
}

static axe_status read_arg(axop_key k, const json_value *v, axop_args *a,
                           json_buf *msg)
{
    a->have |= AXOP_BIT(k);
    switch (axop_key_kind(k)) {
    case AXOP_K_LAYOUT:
        return read_layout(v, k, a, msg);
    case AXOP_K_INTS:
        if (get_ints(v, &a->list[k - AXOP_SHAPE], AXOP_LIST_MAX))
            return AXE_OK;
        put_key(msg, k,
                " must be an integer or a list of at most 40 "
                "integers");
        return AXE_ERR_INVALID;
    case AXOP_K_SHAPES:
        return read_shapes(v, a, msg);
    case AXOP_K_REGION:
        return read_region(v, a, msg);
    case AXOP_K_POINT:
        return read_point(v, a, msg);
    case AXOP_K_TEXT:
        a->text = json_get_string(v, &a->text_len);
        if (a->text != NULL)
            return AXE_OK;
        put_key(msg, k, " must be a string");
        return AXE_ERR_INVALID;
    case AXOP_K_STR:
    case AXOP_K_INT:
    case AXOP_K_BOOL:
        break;
    }
    return read_scalar(v, k, a, msg);
}

static axe_status read_args(const json_value *args, axop_args *a, json_buf *msg)
{
    axop_args_init(a);
    if (args == NULL)
        return AXE_OK;
    if (!json_is_object(args)) {
        json_buf_put_rawz(msg, "\"args\" must be a JSON object");
        return AXE_ERR_INVALID;
    }
    for (size_t i = 0; i < json_object_len(args); i++) {
        size_t klen;
        const char *key = json_object_key_at(args, i, &klen);
        int k = axop_key_find(key, klen);
        axe_status st;
        if (k < 0) {
            json_buf_put_rawz(msg, "unknown argument ");
            cli_put_quoted(msg, key, klen);
            return AXE_ERR_INVALID;
        }
        st = read_arg((axop_key)k, json_object_value_at(args, i), a, msg);
        if (st != AXE_OK)
            return st;
    }
    return AXE_OK;
}

axe_status axop_batch_answer(const char *name, size_t len,
                             const json_value *args, json_buf *result,
                             json_buf *msg)
{
    static axop_args a;
    static axop_result res;
    const axop *op = axop_find(name, len);
    axe_diag diag;
    axe_status st;
    if (op == NULL) {
        json_buf_put_rawz(msg, "unknown Axe operation ");
        cli_put_quoted(msg, name, len);
        return AXE_ERR_UNKNOWN_OP;
    }
    st = read_args(args, &a, msg);
    if (st != AXE_OK)
        return st;
    axe_diag_clear(&diag);
    axop_result_init(&res);
    st = axop_run(op, &a, &res, &diag);
    if (st == AXE_OK && res.kind == AXOP_R_NULL && diag.message[0] != '\0')
        json_buf_put_rawz(msg, diag.message);
    if (st == AXE_OK)
        axop_result_write_json(&res, result);
    else
        cli_put_reason(msg, st, &diag);
    axop_result_free(&res);
    return st;
}
