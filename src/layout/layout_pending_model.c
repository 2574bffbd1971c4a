/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the model family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "axe/notation.h"

axe_status axe_axis_lookup(const char *name, axe_axis_info *out, axe_diag *diag)
{
    (void)name;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_axis_declare(const char *name, axe_axis_kind kind,
                            axe_scope subscope, axe_scope scope, axe_diag *diag)
{
    (void)name;
    (void)kind;
    (void)subscope;
    (void)scope;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

const char *axe_scope_name(axe_scope scope)
{
    (void)scope;
    return "";
}

const char *axe_axis_kind_name(axe_axis_kind kind)
{
    (void)kind;
    return "";
}

void axe_layout_init(axe_layout *l) { (void)l; }

axe_status axe_layout_push_shard(axe_layout *l, int64_t extent, int64_t stride,
                                 const char *axis)
{
    (void)l;
    (void)extent;
    (void)stride;
    (void)axis;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_push_replica(axe_layout *l, int64_t extent,
                                   int64_t stride, const char *axis)
{
    (void)l;
    (void)extent;
    (void)stride;
    (void)axis;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_add_offset(axe_layout *l, const char *axis, int64_t value)
{
    (void)l;
    (void)axis;
    (void)value;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_row_major(const int64_t *shape, int n, axe_layout *out)
{
    (void)shape;
    (void)n;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_size(const axe_layout *l, const char *axis, int64_t *out)
{
    (void)l;
    (void)axis;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_span(const axe_layout *l, const char *axis, int64_t *out)
{
    (void)l;
    (void)axis;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_get_scope(const axe_layout *l, bool *has,
                                axe_scope *subscope, axe_scope *scope,
                                axe_diag *diag)
{
    (void)l;
    (void)has;
    (void)subscope;
    (void)scope;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_verify_well_formed(const axe_layout *l, axe_diag *diag)
{
    (void)l;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_apply_base(const axe_layout *l, int64_t x, axe_point *out,
                                 axe_diag *diag)
{
    (void)l;
    (void)x;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_apply_digits(const axe_layout *l, const int64_t *digits,
                                   int n, axe_point *out, axe_diag *diag)
{
    (void)l;
    (void)digits;
    (void)n;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_apply_shape(const axe_layout *l, const int64_t *crd,
                                  const int64_t *shape, int n, axe_point *out,
                                  axe_diag *diag)
{
    (void)l;
    (void)crd;
    (void)shape;
    (void)n;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_digits_of(const axe_layout *l, const int64_t *crd,
                                const int64_t *shape, int n, int64_t *digits,
                                int *ndigits, axe_diag *diag)
{
    (void)l;
    (void)crd;
    (void)shape;
    (void)n;
    (void)digits;
    (void)ndigits;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_apply_set(const axe_layout *l, const int64_t *crd,
                                const int64_t *shape, int n, axe_point *out,
                                int cap, int *count, axe_diag *diag)
{
    (void)l;
    (void)crd;
    (void)shape;
    (void)n;
    (void)out;
    (void)cap;
    (void)count;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_backward(const axe_layout *l, const axe_point *p,
                               bool with_replicas, int64_t *x, bool *found,
                               axe_diag *diag)
{
    (void)l;
    (void)p;
    (void)with_replicas;
    (void)x;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

bool axe_point_equal(const axe_point *a, const axe_point *b)
{
    (void)a;
    (void)b;
    return false;
}

axe_status axe_point_add(axe_point *p, const char *axis, int64_t v)
{
    (void)p;
    (void)axis;
    (void)v;
    return AXE_ERR_UNSUPPORTED;
}

bool axe_layout_equal(const axe_layout *a, const axe_layout *b)
{
    (void)a;
    (void)b;
    return false;
}

axe_status axe_parse_layout(const char *text, size_t len, axe_layout *out,
                            axe_diag *diag)
{
    (void)text;
    (void)len;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

size_t axe_print_layout(const axe_layout *l, char *buf, size_t cap)
{
    (void)l;
    (void)buf;
    (void)cap;
    return 0;
}

size_t axe_print_point(const axe_point *p, char *buf, size_t cap)
{
    (void)p;
    (void)buf;
    (void)cap;
    return 0;
}
