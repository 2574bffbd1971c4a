/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe convert --from jax|dtensor|alpa --mesh x=2,y=4 --shape [8,16] SPEC`
 * (the spec's Axe layout) and `axe convert --to jax|dtensor|alpa --mesh ...
 * --shape ... LAYOUT` (the layout's spec, or the reason why none expresses
 * it), through sharding_ops.c, which `axe batch` shares. Invariant: one
 * answer on stdout, or one reason on stderr with exit 1 (no answer) or 2
 * (usage, syntax).
 */
#include <string.h>

#include "cmd_axe.h"
#include "sharding_ops.h"

/* --shape `[8,16]` or `8,16` into r->shape; -1 or the exit code. */
static int read_shape(const axe_invocation *inv, shop_request *r)
{
    const char *s = axe_inv_value(inv, "shape");
    char buf[256];
    axop_ints v;
    axe_diag d;
    if (s == NULL)
        return cli_usage("convert", "--from/--to %s need --shape, e.g. [8,16]",
                         "jax|dtensor|alpa");
    snprintf(buf, sizeof buf, s[0] == '[' ? "%s" : "[%s]", s);
    if (axop_parse_ints(buf, strlen(buf), &v, &d) != AXE_OK || v.n < 1 ||
        v.n > AXE_LAYOUT_MAX_DIMS)
        return cli_usage("convert",
                         "--shape takes 1 to %d integers, e.g. "
                         "[8,16]",
                         AXE_LAYOUT_MAX_DIMS);
    r->n = v.n;
    memcpy(r->shape, v.v, (size_t)v.n * sizeof v.v[0]);
    return -1;
}

int axe_cmd_convert_shard(axe_invocation *inv, const char *from, const char *to)
{
    shop_request r;
    json_buf out, msg;
    axe_status st;
    bool found = false;
    int code;
    memset(&r, 0, sizeof r);
    if ((code = axe_inv_count(inv, 1)) >= 0 ||
        (code = read_shape(inv, &r)) >= 0)
        return code;
    r.format = from != NULL ? from : to;
    r.format_len = strlen(r.format);
    r.text = inv->pos[0];
    r.text_len = strlen(r.text);
    r.mesh = axe_inv_value(inv, "mesh");
    if (r.mesh == NULL)
        return cli_usage("convert", "--from/--to %s need --mesh, e.g. x=2,y=4",
                         r.format);
    r.mesh_len = strlen(r.mesh);
    json_buf_init(&out, NULL, NULL);
    json_buf_init(&msg, NULL, NULL);
    json_buf_put_rawz(&msg, "convert: ");
    st = from != NULL ? shop_to_axe(&r, &out, &found, &msg)
                      : shop_from_axe(&r, &out, &found, &msg);
    if (st == AXE_OK && found)
        code = axe_inv_print(&out);
    else
        code = cli_report(st == AXE_ERR_SYNTAX || st == AXE_ERR_INVALID
                              ? CLI_EXIT_USAGE
                              : CLI_EXIT_FAIL,
                          &msg);
    json_buf_free(&out);
    json_buf_free(&msg);
    return code;
}
