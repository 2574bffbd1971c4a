/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sharding conversions of the CLI and of `axe batch` (sharding_ops.h):
 * operands parsed with the library (axe_parse_mesh, axe_parse_sharding,
 * axe_parse_layout), converted with axe_sharding_to_layout /
 * axe_sharding_from_layout, printed. A spec whose dims do not split evenly
 * and a layout no spec expresses are answers without a result (null in
 * batch, exit 1 in the CLI); a text that does not parse is a failure.
 * Invariant: "out" is appended to only when *found is true.
 */
#include <string.h>

#include "axe/notation.h"
#include "axe_ops.h"
#include "cli.h"
#include "core_internal.h"
#include "sharding_ops.h"

static axe_status read_format(const shop_request *r, axe_sharding_format *f,
                              const char *arg, json_buf *msg)
{
    static const char *const names[] = {"jax", "dtensor", "alpa"};
    for (int k = 0; k < 3; k++)
        if (r->format != NULL && r->format_len == strlen(names[k]) &&
            memcmp(r->format, names[k], r->format_len) == 0) {
            *f = (axe_sharding_format)k;
            return AXE_OK;
        }
    json_buf_put_rawz(msg, arg);
    json_buf_put_rawz(msg, " must be jax, dtensor or alpa");
    return AXE_ERR_INVALID;
}

/* A failed parse of argument "arg" ("text"). */
static axe_status parse_fail(json_buf *msg, const char *arg, const char *text,
                             size_t len, axe_status st, const axe_diag *d)
{
    json_buf_put_rawz(msg, arg);
    json_buf_put_rawz(msg, ": ");
    cli_put_parse_error(msg, text, len, st, d);
    return st;
}

static axe_status read_mesh(const shop_request *r, axe_mesh *m, json_buf *msg)
{
    axe_diag d;
    axe_status st;
    axe_diag_clear(&d);
    if (r->mesh == NULL) {
        json_buf_put_rawz(msg, "mesh: missing (e.g. x=2,y=4)");
        return AXE_ERR_INVALID;
    }
    st = axe_parse_mesh(r->mesh, r->mesh_len, m, &d);
    return st == AXE_OK ? st
                        : parse_fail(msg, "mesh", r->mesh, r->mesh_len, st, &d);
}

/* A conversion that gave no answer: its reason, *found = false. */
static axe_status no_answer(json_buf *msg, const axe_diag *d, bool *found)
{
    json_buf_put_rawz(msg, d->message);
    *found = false;
    return AXE_OK;
}

axe_status shop_to_axe(const shop_request *r, json_buf *out, bool *found,
                       json_buf *msg)
{
    static char text[4096];
    axe_sharding_format f;
    axe_mesh m;
    axe_sharding s;
    axe_layout l;
    axe_diag d;
    axe_status st;
    *found = false;
    AXE_TRY(read_format(r, &f, "from", msg));
    AXE_TRY(read_mesh(r, &m, msg));
    axe_diag_clear(&d);
    st = axe_parse_sharding(f, r->text, r->text_len, &m, r->n, &s, &d);
    if (st != AXE_OK)
        return parse_fail(msg, "spec", r->text, r->text_len, st, &d);
    st = axe_sharding_to_layout(&s, &m, r->shape, r->n, &l, &d);
    if (st == AXE_ERR_DIVISIBILITY)
        return no_answer(msg, &d, found);
    if (st != AXE_OK) {
        cli_put_reason(msg, st, &d);
        return st;
    }
    axe_print_layout(&l, text, sizeof text);
    json_buf_put_rawz(out, text);
    if (s.partial != 0) {
        json_buf_put_rawz(out, " partial(");
        json_buf_put_rawz(out, s.op);
        json_buf_put_rawz(out, ")");
    }
    *found = true;
    return AXE_OK;
}

/* Split ` partial(OP)` off the end of "text" ("*len" bytes, shortened);
 * the op into "op" ("" when absent). */
static void split_partial(const char *text, size_t *len, char *op, size_t cap)
{
    static const char key[] = "partial(";
    size_t n = *len, at;
    op[0] = '\0';
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    if (n == 0 || text[n - 1] != ')')
        return;
    at = n - 1;
    while (at > 0 && text[at - 1] >= 'a' && text[at - 1] <= 'z')
        at--;
    if (at < sizeof key - 1 ||
        memcmp(text + at - (sizeof key - 1), key, sizeof key - 1) != 0 ||
        n - 1 - at >= cap)
        return;
    memcpy(op, text + at, n - 1 - at);
    op[n - 1 - at] = '\0';
    *len = at - (sizeof key - 1);
}

static bool known_op(const char *op)
{
    static const char *const ops[] = {"sum", "avg", "max", "min", "product"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(op, ops[k]) == 0)
            return true;
    return false;
}

axe_status shop_from_axe(const shop_request *r, json_buf *out, bool *found,
                         json_buf *msg)
{
    static char text[1024];
    char op[AXE_SHARDING_OP_MAX];
    size_t len = r->text_len;
    axe_sharding_format f;
    axe_mesh m;
    axe_sharding s;
    axe_layout l;
    axe_diag d;
    axe_status st;
    *found = false;
    AXE_TRY(read_format(r, &f, "to", msg));
    AXE_TRY(read_mesh(r, &m, msg));
    split_partial(r->text, &len, op, sizeof op);
    if (op[0] != '\0' && !known_op(op)) {
        json_buf_put_rawz(msg, "layout: partial(OP) takes sum, avg, max, min "
                               "or product");
        return AXE_ERR_INVALID;
    }
    axe_diag_clear(&d);
    st = axe_parse_layout(r->text, len, &l, &d);
    if (st != AXE_OK)
        return parse_fail(msg, "layout", r->text, len, st, &d);
    st = axe_sharding_from_layout(f, &l, &m, r->shape, r->n,
                                  op[0] != '\0' ? AXE_SHARDING_PARTIAL_REPLICAS
                                                : 0,
                                  op[0] != '\0' ? op : NULL, &s, &d);
    if (st == AXE_ERR_UNSUPPORTED || st == AXE_ERR_INCOMPATIBLE)
        return no_answer(msg, &d, found);
    if (st != AXE_OK) {
        cli_put_reason(msg, st, &d);
        return st;
    }
    axe_print_sharding(f, &s, &m, text, sizeof text);
    json_buf_put_rawz(out, text);
    *found = true;
    return AXE_OK;
}

/* ---- batch --------------------------------------------------------------- */

/* Argument "key" as a string, or a failure naming it. */
static axe_status arg_str(const json_value *args, const char *key,
                          const char **s, size_t *len, json_buf *msg)
{
    *s = json_get_string(json_object_get(args, key), len);
    if (*s != NULL)
        return AXE_OK;
    json_buf_put_rawz(msg, "args.");
    json_buf_put_rawz(msg, key);
    json_buf_put_rawz(msg, " must be a string");
    return AXE_ERR_INVALID;
}

/* "mesh": text, or an object {"x": 2, "y": 4} written as text into
 * "buf". */
static axe_status arg_mesh(const json_value *args, shop_request *r,
                           json_buf *buf, json_buf *msg)
{
    const json_value *v = json_object_get(args, "mesh");
    if (json_is_string(v))
        return arg_str(args, "mesh", &r->mesh, &r->mesh_len, msg);
    if (!json_is_object(v)) {
        json_buf_put_rawz(msg, "args.mesh must be a string x=2,y=4 or an "
                               "object {\"x\": 2, \"y\": 4}");
        return AXE_ERR_INVALID;
    }
    for (size_t i = 0; i < json_object_len(v); i++) {
        size_t klen;
        const char *k = json_object_key_at(v, i, &klen);
        int64_t size;
        if (json_get_int(json_object_value_at(v, i), &size) != JSON_OK) {
            json_buf_put_rawz(msg, "args.mesh: sizes must be integers");
            return AXE_ERR_INVALID;
        }
        json_buf_put_rawz(buf, i > 0 ? "," : "");
        json_buf_put_raw(buf, k, klen);
        json_buf_put_rawz(buf, "=");
        json_buf_put_int(buf, size);
    }
    r->mesh = json_buf_str(buf);
    r->mesh_len = buf->len;
    return buf->failed ? AXE_ERR_NO_MEMORY : AXE_OK;
}

static axe_status arg_shape(const json_value *args, shop_request *r,
                            json_buf *msg)
{
    const json_value *v = json_object_get(args, "shape");
    size_t n = json_is_array(v) ? json_array_len(v) : 0;
    if (!json_is_array(v) || n < 1 || n > AXE_LAYOUT_MAX_DIMS)
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (json_get_int(json_array_at(v, i), &r->shape[i]) != JSON_OK)
            goto bad;
    r->n = (int)n;
    return AXE_OK;
bad:
    json_buf_put_rawz(msg, "args.shape must be an array of 1 to 16 integers");
    return AXE_ERR_INVALID;
}

axe_status shop_batch_answer(const char *name, size_t len,
                             const json_value *args, json_buf *result,
                             json_buf *msg)
{
    bool to = len == 6 && memcmp(name, "to_axe", 6) == 0;
    bool from = len == 8 && memcmp(name, "from_axe", 8) == 0;
    shop_request r;
    json_buf mesh, text;
    axe_status st;
    bool found;
    if (!to && !from) {
        json_buf_put_rawz(msg, "unknown sharding operation ");
        cli_put_quoted(msg, name, len);
        return AXE_ERR_UNKNOWN_OP;
    }
    if (!json_is_object(args)) {
        json_buf_put_rawz(msg, "\"args\" must be a JSON object");
        return AXE_ERR_INVALID;
    }
    memset(&r, 0, sizeof r);
    json_buf_init(&mesh, NULL, NULL);
    json_buf_init(&text, NULL, NULL);
    st = arg_str(args, to ? "from" : "to", &r.format, &r.format_len, msg);
    if (st == AXE_OK)
        st = arg_str(args, to ? "spec" : "layout", &r.text, &r.text_len, msg);
    if (st == AXE_OK)
        st = arg_mesh(args, &r, &mesh, msg);
    if (st == AXE_OK)
        st = arg_shape(args, &r, msg);
    if (st == AXE_OK)
        st = to ? shop_to_axe(&r, &text, &found, msg)
                : shop_from_axe(&r, &text, &found, msg);
    if (st == AXE_OK && found)
        json_buf_put_string(result, json_buf_str(&text), text.len);
    else if (st == AXE_OK)
        json_buf_put_rawz(result, "null");
    json_buf_free(&mesh);
    json_buf_free(&text);
    return st;
}
