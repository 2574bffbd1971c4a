/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The operations axe-bench times: one thin wrapper per public algebra call,
 * found by name in one table. A wrapper passes its io's operands to the
 * library and stores the result in the io; diagnostics are not requested
 * (NULL), as on a caller's fast path. Per-element wrappers walk the whole
 * domain [0, io->elems) of operand a. Invariant: a wrapper does nothing but
 * the calls it names, so the time measured is the library's.
 */
#include <string.h>

#include "bench.h"

/* Nothing: the harness's own cost per call (loop, indirect call). */
static axe_status run_baseline(bench_io *io)
{
    (void)io;
    return AXE_OK;
}

static axe_status run_compose(bench_io *io)
{
    return axe_cute_compose(&io->a.layout, &io->b.layout, &io->out, NULL);
}

static axe_status run_compose_tiler(bench_io *io)
{
    return axe_cute_compose_tiler(&io->a.layout, &io->b.tiler, &io->out, NULL);
}

static axe_status run_complement(bench_io *io)
{
    return axe_cute_complement(&io->a.layout, io->p0, &io->out, NULL);
}

static axe_status run_coalesce(bench_io *io)
{
    return axe_cute_coalesce(&io->a.layout, &io->out);
}

static axe_status run_coalesce_by(bench_io *io)
{
    return axe_cute_coalesce_by(&io->a.layout, &io->b.tuple, &io->out);
}

static axe_status run_filter(bench_io *io)
{
    return axe_cute_filter(&io->a.layout, &io->out);
}

static axe_status run_filter_zeros(bench_io *io)
{
    return axe_cute_filter_zeros(&io->a.layout, &io->out);
}

static axe_status run_right_inverse(bench_io *io)
{
    return axe_cute_right_inverse(&io->a.layout, &io->out, NULL);
}

static axe_status run_left_inverse(bench_io *io)
{
    return axe_cute_left_inverse(&io->a.layout, &io->out, NULL);
}

static axe_status run_nullspace(bench_io *io)
{
    return axe_cute_nullspace(&io->a.layout, &io->out, NULL);
}

/* Divide by the tiler or, if "b" is a plain layout, by that layout. */
static axe_status divide(axe_cute_divide_kind kind, bench_io *io)
{
    if (io->b.kind == AXE_CUTE_KIND_TILER)
        return axe_cute_divide(kind, &io->a.layout, &io->b.tiler, &io->out,
                               NULL);
    return axe_cute_divide_layout(kind, &io->a.layout, &io->b.layout, &io->out,
                                  NULL);
}

static axe_status run_logical_divide(bench_io *io)
{
    return divide(AXE_CUTE_DIVIDE_LOGICAL, io);
}

static axe_status run_zipped_divide(bench_io *io)
{
    return divide(AXE_CUTE_DIVIDE_ZIPPED, io);
}

static axe_status run_tiled_divide(bench_io *io)
{
    return divide(AXE_CUTE_DIVIDE_TILED, io);
}

static axe_status run_flat_divide(bench_io *io)
{
    return divide(AXE_CUTE_DIVIDE_FLAT, io);
}

static axe_status product(axe_cute_product_kind kind, bench_io *io)
{
    return axe_cute_product(kind, &io->a.layout, &io->b.layout, &io->out, NULL);
}

static axe_status run_logical_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_LOGICAL, io);
}

static axe_status run_zipped_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_ZIPPED, io);
}

static axe_status run_tiled_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_TILED, io);
}

static axe_status run_flat_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_FLAT, io);
}

static axe_status run_blocked_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_BLOCKED, io);
}

static axe_status run_raked_product(bench_io *io)
{
    return product(AXE_CUTE_PRODUCT_RAKED, io);
}

static axe_status run_tile_to_shape(bench_io *io)
{
    return axe_cute_tile_to_shape(&io->a.layout, &io->b.tuple, NULL, &io->out,
                                  NULL);
}

static axe_status run_slice(bench_io *io)
{
    return axe_cute_slice(&io->a.layout, &io->b.tuple, &io->out, &io->point,
                          NULL);
}

static axe_status run_dice(bench_io *io)
{
    return axe_cute_dice(&io->a.layout, &io->b.tuple, &io->out, NULL);
}

static axe_status run_max_common_layout(bench_io *io)
{
    return axe_cute_max_common_layout(&io->a.layout, &io->b.layout, &io->out);
}

static axe_status run_max_common_vector(bench_io *io)
{
    return axe_cute_max_common_vector(&io->a.layout, &io->b.layout, &io->value);
}

static axe_status run_upcast(bench_io *io)
{
    return axe_cute_upcast(&io->a.layout, io->p0, &io->out, NULL);
}

static axe_status run_downcast(bench_io *io)
{
    return axe_cute_downcast(&io->a.layout, io->p0, &io->out, NULL);
}

static axe_status run_recast(bench_io *io)
{
    return axe_cute_recast(&io->a.layout, io->p0, io->p1, &io->out, NULL);
}

/* a(i) for every i < size(a); the sum is kept so no call is dead. */
static axe_status run_eval(bench_io *io)
{
    int64_t sum = 0, v;
    for (int64_t i = 0; i < io->elems; i++) {
        axe_status st = axe_cute_eval(&io->a.layout, i, &v);
        if (st != AXE_OK)
            return st;
        sum += v;
    }
    io->value = sum;
    return AXE_OK;
}

static axe_status run_eval_point(bench_io *io)
{
    for (int64_t i = 0; i < io->elems; i++) {
        axe_status st = axe_cute_eval_point(&io->a.layout, i, &io->point);
        if (st != AXE_OK)
            return st;
    }
    return AXE_OK;
}

static axe_status run_composed_eval(bench_io *io)
{
    for (int64_t i = 0; i < io->elems; i++) {
        axe_status st =
            axe_cute_composed_eval_point(&io->a.composed, i, &io->point);
        if (st != AXE_OK)
            return st;
    }
    return AXE_OK;
}

/* The swizzled layout by hand: Sw(inner(i)), for a zero offset. */
static axe_status run_swizzle(bench_io *io)
{
    const axe_cute_composed *c = &io->a.composed;
    int64_t sum = 0, v;
    for (int64_t i = 0; i < io->elems; i++) {
        axe_status st = axe_cute_eval(&c->inner, i, &v);
        if (st != AXE_OK)
            return st;
        sum += axe_swizzle_apply(&c->swizzle, v);
    }
    io->value = sum;
    return AXE_OK;
}

static const bench_op ops[] = {
    {"compose", "LL", 0, run_compose},
    {"compose_tiler", "LT", 0, run_compose_tiler},
    {"complement", "L", 0, run_complement},
    {"coalesce", "L", 0, run_coalesce},
    {"coalesce_by", "LU", 0, run_coalesce_by},
    {"filter", "L", 0, run_filter},
    {"filter_zeros", "L", 0, run_filter_zeros},
    {"right_inverse", "L", 0, run_right_inverse},
    {"left_inverse", "L", 0, run_left_inverse},
    {"nullspace", "L", 0, run_nullspace},
    {"logical_divide", "LT", 0, run_logical_divide},
    {"zipped_divide", "LT", 0, run_zipped_divide},
    {"tiled_divide", "LT", 0, run_tiled_divide},
    {"flat_divide", "LT", 0, run_flat_divide},
    {"logical_product", "LL", 0, run_logical_product},
    {"zipped_product", "LL", 0, run_zipped_product},
    {"tiled_product", "LL", 0, run_tiled_product},
    {"flat_product", "LL", 0, run_flat_product},
    {"blocked_product", "LL", 0, run_blocked_product},
    {"raked_product", "LL", 0, run_raked_product},
    {"tile_to_shape", "LU", 0, run_tile_to_shape},
    {"slice", "LU", 0, run_slice},
    {"dice", "LU", 0, run_dice},
    {"max_common_layout", "LL", 0, run_max_common_layout},
    {"max_common_vector", "LL", 0, run_max_common_vector},
    {"upcast", "L", 0, run_upcast},
    {"downcast", "L", 0, run_downcast},
    {"recast", "L", 0, run_recast},
    {"eval", "L", 1, run_eval},
    {"eval_point", "L", 1, run_eval_point},
    {"composed_eval", "C", 1, run_composed_eval},
    {"swizzle_eval", "C", 1, run_swizzle},
    {"baseline", "L", 0, run_baseline},
};

/* Whether "obj" is what the operand letter "want" asks for (bench.h). */
static int operand_fits(char want, const axe_cute_object *obj)
{
    switch (want) {
    case 'L':
        return obj->kind == AXE_CUTE_KIND_LAYOUT;
    case 'T':
        return obj->kind == AXE_CUTE_KIND_TILER ||
               obj->kind == AXE_CUTE_KIND_LAYOUT;
    case 'U':
        return obj->kind == AXE_CUTE_KIND_TUPLE;
    case 'C':
        return obj->kind == AXE_CUTE_KIND_COMPOSED;
    default:
        return 0;
    }
}

static axe_status parse_operand(const char *text, char want,
                                axe_cute_object *out)
{
    axe_status st;
    if (text == NULL)
        return AXE_ERR_INVALID;
    st = axe_parse_cute(text, strlen(text), out, NULL);
    if (st == AXE_OK && !operand_fits(want, out))
        return AXE_ERR_INVALID;
    return st;
}

axe_status bench_prepare(const bench_case *c, const bench_op *op, bench_io *io,
                         int *modes)
{
    const axe_cute_layout *l = &io->a.layout;
    axe_status st;
    if (op->operands[0] == 'X')
        return bench_axe_prepare(c, op, io, modes);
    st = parse_operand(c->a, op->operands[0], &io->a);
    if (st == AXE_OK && op->operands[1] != '\0')
        st = parse_operand(c->b, op->operands[1], &io->b);
    if (st != AXE_OK)
        return st;
    if (io->a.kind == AXE_CUTE_KIND_COMPOSED)
        l = &io->a.composed.inner;
    *modes = l->shape.nleaf;
    io->p0 = c->p0;
    io->p1 = c->p1;
    io->elems = 1;
    return op->per_element ? axe_cute_size(l, &io->elems) : AXE_OK;
}

const bench_op *bench_op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return bench_axe_op_find(name);
}
