/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe convert --to cute|axe|mapping|linear|triton TEXT`: one operand in
 * any of
 * the notations (a CuTe layout, an Axe layout, a Triton linear layout's
 * text, or a mapping expression `m![...]` over the table of --axes)
 * printed in the notation asked for,
 * or the reason why it has none there. Every path goes through the Axe
 * layout: CuTe <-> Axe (axe_layout_from_cute / to_cute, the composed
 * `Sw<B,M,S> o off o L` for a swizzle or an offset), mapping <-> Axe
 * (axe_mapping_to_layout / from_layout, padding as holes with --holes and
 * holes as padding; the tensor axes of a mapping are those its normal form
 * names, those of a layout are
 * --axes, or one axis A, B, ... per shard iter), Axe <-> Triton linear
 * layout (axe_linear_from_layout over --shape, axe_linear_invert with
 * --invert; axe_linear_to_layout for a linear operand), Axe <-> Triton
 * distributed layout (axe_linear_to_triton over --shape for --to triton;
 * axe_linear_from_triton for an operand whose inputs are all among
 * register, lane, warp, block). Invariant: exactly one
 * answer on stdout, or one reason on stderr with exit 1 (no such layout) or 2
 * (syntax).
 */
#include <string.h>

#include "axe/linear.h"
#include "axe/notation_mapping.h"
#include "cmd_axe.h"
#include "core_internal.h"

#define TEXT_MAX 8192

typedef struct source {
    bool is_mapping;
    bool holes;
    axe_mapping_axes axes;
    axe_mapping expr;
    axe_layout layout;
} source;

/* Report a failed parse of "what" ("text"): exit 2 for syntax, else 1. */
static int syntax(const char *what, const char *text, axe_status st,
                  const axe_diag *d)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "convert: %s: ", what);
    return cli_parse_fail(st == AXE_ERR_SYNTAX ? CLI_EXIT_USAGE : CLI_EXIT_FAIL,
                          prefix, text, st, d);
}

/* The --axes table, or the default A, B, ... per shard iter of "l". */
static int read_axes(const axe_invocation *inv, const axe_layout *l,
                     axe_mapping_axes *axes)
{
    const char *decl = axe_inv_value(inv, "axes");
    axe_diag d;
    axe_status st;
    char name[2] = "A";
    axes->n = 0;
    if (decl != NULL) {
        st = axe_parse_mapping_axes(decl, strlen(decl), axes, &d);
        return st == AXE_OK ? -1 : syntax("--axes", decl, st, &d);
    }
    if (l == NULL)
        return cli_usage("convert", "a mapping expression needs --axes");
    for (int k = 0; k < l->nshard && k < 26; k++) {
        name[0] = (char)('A' + k);
        if (axe_mapping_axes_add(axes, name, l->shard[k].extent, &d) != AXE_OK)
            return axe_inv_fail(inv, AXE_ERR_CAPACITY, &d);
    }
    return -1;
}

/* A Triton distributed or shared layout: inputs all among register,
 * lane, warp, block, offset (at least one; the library refuses a mix of
 * offset with register, lane or warp, with the reason). */
static bool is_triton(const axe_linear *lin)
{
    static const char *const hw[] = {"register", "lane", "warp", "block",
                                     "offset"};
    for (int d = 0; d < lin->nin; d++) {
        int h = 0;
        while (h < 5 && strcmp(lin->in_name[d], hw[h]) != 0)
            h++;
        if (h == 5)
            return false;
    }
    return lin->nin > 0;
}

/* A Triton linear layout's text (its `->`) as the Axe layout of its
 * bases (a swizzle recognized on `m`); exit 2 for syntax, 1 when there is
 * no Axe layout. */
static int read_linear(const axe_invocation *inv, const char *text,
                       axe_layout *out)
{
    static axe_linear lin;
    axe_diag d;
    axe_status st = axe_parse_linear(text, strlen(text), &lin, &d);
    if (st != AXE_OK)
        return syntax("linear layout", text, st, &d);
    axe_diag_clear(&d);
    if (is_triton(&lin))
        st = axe_linear_from_triton(&lin, out, &d);
    else
        st = axe_linear_to_layout(&lin, out, &d);
    return st == AXE_OK ? -1 : axe_inv_fail(inv, st, &d);
}

/* Parse the operand: m![...], a linear layout (a basis `->` or the line
 * `where out dims are:`, which a layout without bases has alone), a CuTe
 * layout or an Axe layout. */
static int read_source(const axe_invocation *inv, source *s)
{
    static axe_cute_object o;
    const char *text = inv->pos[0];
    axe_diag d;
    axe_status st;
    int code;
    if (strstr(text, "->") != NULL || strstr(text, "where out dims") != NULL) {
        s->is_mapping = false;
        s->holes = axe_inv_has(inv, "holes");
        return read_linear(inv, text, &s->layout);
    }
    s->is_mapping = strstr(text, "m!") != NULL;
    s->holes = axe_inv_has(inv, "holes");
    if (s->is_mapping) {
        axe_mapping_env env = {&s->axes, 0, NULL, NULL, 0, NULL, NULL, false};
        if ((code = read_axes(inv, NULL, &s->axes)) >= 0)
            return code;
        st = axe_parse_mapping(text, strlen(text), &env, &s->expr, &d);
        return st == AXE_OK ? -1 : syntax("mapping", text, st, &d);
    }
    st = axe_parse_cute(text, strlen(text), &o, &d);
    if (st == AXE_OK && o.kind == AXE_CUTE_KIND_LAYOUT)
        st = axe_layout_from_cute(&o.layout, &s->layout, &d);
    else if (st == AXE_OK && o.kind == AXE_CUTE_KIND_COMPOSED)
        st = axe_layout_from_cute_composed(&o.composed, &s->layout, &d);
    else
        st = axe_parse_layout(text, strlen(text), &s->layout, &d);
    return st == AXE_OK ? -1 : syntax("layout", text, st, &d);
}

/* The Axe layout of the source (a mapping over the axes its normal form
 * names, spec §10). */
static axe_status source_layout(const source *s, axe_layout *out, axe_diag *d)
{
    static axe_mapping norm;
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_mapping_part part = {&s->expr, "m", 1, s->holes};
    int nt = 0;
    if (!s->is_mapping) {
        *out = s->layout;
        return AXE_OK;
    }
    AXE_TRY(axe_mapping_normalize(&s->expr, &norm, d));
    for (int k = 0; k < s->axes.n; k++)
        if (axe_mapping_uses_axis(&norm, axe_mapping_root(&norm), k))
            tensor[nt++] = s->axes.name[k];
    return axe_mapping_to_layout(&part, 1, tensor, nt, out, d);
}

static void put_axes(json_buf *out, const axe_mapping_axes *axes)
{
    json_buf_put_rawz(out, " over axes![");
    for (int k = 0; k < axes->n; k++) {
        json_buf_put_rawz(out, k > 0 ? ", " : "");
        json_buf_put_rawz(out, axes->name[k]);
        json_buf_put_rawz(out, " = ");
        json_buf_put_int(out, axes->size[k]);
    }
    json_buf_put_rawz(out, "]");
}

static axe_status to_mapping(const axe_invocation *inv, source *s,
                             const axe_layout *l, char *text, axe_diag *d,
                             int *code)
{
    static axe_mapping m;
    if (s->is_mapping)
        AXE_TRY(axe_mapping_normalize(&s->expr, &m, d));
    else if ((*code = read_axes(inv, l, &s->axes)) >= 0)
        return AXE_OK;
    else if (s->holes)
        AXE_TRY(axe_mapping_from_layout_holes(l, &s->axes, &m, d));
    else
        AXE_TRY(axe_mapping_from_layout(l, &s->axes, &m, d));
    axe_print_mapping_macro(&m, text, TEXT_MAX);
    return AXE_OK;
}

/* "--shape 4,8" (or "[4,8]") into shape[0 .. *n); -1 or the exit code. */
static int read_shape(const axe_invocation *inv, int64_t *shape, int *n)
{
    const char *s = axe_inv_value(inv, "shape");
    axe_diag d;
    *n = 0;
    if (s == NULL)
        return -1;
    while (*s != '\0') {
        size_t len = strcspn(s, ",]");
        if (*s == '[')
            s++, len--;
        if (*n == AXE_LINEAR_MAX_DIMS ||
            cli_parse_int(s, len, &shape[*n], &d) != AXE_OK)
            return cli_usage("convert", "--shape takes up to 8 integers, "
                                        "e.g. 4,8");
        (*n)++;
        s += len;
        s += *s == ',' || *s == ']';
    }
    return -1;
}

/* The linear layout of "l" (inputs by --shape; --invert: its inverse). */
static axe_status to_linear(const axe_invocation *inv, const axe_layout *l,
                            axe_linear *out, axe_diag *d, int *code)
{
    static axe_linear lin;
    int64_t shape[AXE_LINEAR_MAX_DIMS];
    int n;
    if ((*code = read_shape(inv, shape, &n)) >= 0)
        return AXE_OK;
    AXE_TRY(axe_linear_from_layout(l, n > 0 ? shape : NULL, n, &lin, d));
    if (!axe_inv_has(inv, "invert")) {
        *out = lin;
        return AXE_OK;
    }
    return axe_linear_invert(&lin, out, d);
}

/* Triton's distributed layout of "l" over --shape (default one dim). */
static axe_status to_triton(const axe_invocation *inv, const axe_layout *l,
                            axe_linear *out, axe_diag *d, int *code)
{
    int64_t shape[AXE_LINEAR_MAX_DIMS];
    int n;
    if ((*code = read_shape(inv, shape, &n)) >= 0)
        return AXE_OK;
    return axe_linear_to_triton(l, n > 0 ? shape : NULL, n, out, d);
}

/* The text of the layout "l" in notation "to". */
static axe_status convert(const axe_invocation *inv, source *s, const char *to,
                          json_buf *out, axe_diag *d, int *code)
{
    static char text[TEXT_MAX];
    static axe_cute_layout c;
    static axe_cute_composed cc;
    static axe_linear lin;
    axe_layout l;
    text[0] = '\0';
    if (!(s->is_mapping && strcmp(to, "mapping") == 0))
        AXE_TRY(source_layout(s, &l, d));
    if (strcmp(to, "axe") == 0) {
        axe_print_layout(&l, text, sizeof text);
    } else if (strcmp(to, "cute") == 0 &&
               (l.swizzle.present || l.noffset > 0)) {
        AXE_TRY(axe_layout_to_cute_composed(&l, &cc, d));
        axe_print_cute_composed(&cc, text, sizeof text);
    } else if (strcmp(to, "cute") == 0) {
        AXE_TRY(axe_layout_to_cute(&l, &c, d));
        axe_print_cute_layout(&c, text, sizeof text);
    } else if (strcmp(to, "linear") == 0) {
        AXE_TRY(to_linear(inv, &l, &lin, d, code));
        axe_print_linear(&lin, text, sizeof text);
    } else if (strcmp(to, "triton") == 0) {
        AXE_TRY(to_triton(inv, &l, &lin, d, code));
        axe_print_linear(&lin, text, sizeof text);
    } else {
        AXE_TRY(to_mapping(inv, s, &l, text, d, code));
    }
    json_buf_put_rawz(out, text);
    if (strcmp(to, "mapping") == 0 && *code < 0)
        put_axes(out, &s->axes);
    return AXE_OK;
}

int axe_cmd_convert_to(axe_invocation *inv, const char *to)
{
    static source s;
    axe_diag d;
    axe_status st;
    json_buf out;
    int code;
    if (strcmp(to, "cute") != 0 && strcmp(to, "axe") != 0 &&
        strcmp(to, "mapping") != 0 && strcmp(to, "linear") != 0 &&
        strcmp(to, "triton") != 0)
        return cli_usage("convert",
                         "--to takes cute, axe, mapping, linear or triton");
    if ((code = axe_inv_count(inv, 1)) >= 0 ||
        (code = read_source(inv, &s)) >= 0)
        return code;
    json_buf_init(&out, NULL, NULL);
    axe_diag_clear(&d);
    st = convert(inv, &s, to, &out, &d, &code);
    if (code < 0)
        code = st == AXE_OK ? axe_inv_print(&out) : axe_inv_fail(inv, st, &d);
    json_buf_free(&out);
    return code;
}
