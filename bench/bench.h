/* SPDX-License-Identifier: Apache-2.0 */
/*
 * axe-bench's shared declarations. A case is one algebra operation ("op",
 * looked up in the tables of bench_ops.c and bench_axe.c) applied to
 * operands written in the CuTe notation (bench_cases.c) or the Axe notation
 * with integer lists for shapes and regions (bench_axe.c); the harness
 * (axe_bench.c) parses them once into a bench_io, checks that the operation
 * succeeds (and finds its answer), then times calls of the op's "run".
 * Invariant: "run" reads only the operands of its io, writes only the
 * results there, and does the same work at every call.
 */
#ifndef AXE_BENCH_H
#define AXE_BENCH_H

#include "axe/notation.h"

/* The Axe side of an io: layouts "a", "b"; the integer lists of the case's
 * "args" (shapes, region bounds), each of "n" entries; the target; results. */
typedef struct bench_axe_io {
    axe_layout a, b, out;
    int64_t list[3][2 * AXE_LAYOUT_MAX_DIMS];
    int nlist;
    int n;
    axe_target target;
    int seps[AXE_LAYOUT_MAX_SHARD + 1];
    axe_point point;
    bool found;
} bench_axe_io;

/* Operands in, results out; one per process, reused by every case. */
typedef struct bench_io {
    axe_cute_object a;
    axe_cute_object b;
    int64_t p0, p1; /* integer parameters: cotarget, factor, bits */
    int64_t elems;  /* domain size for per-element ops, else 1 */
    axe_cute_layout out;
    axe_cute_point point;
    int64_t value;
    bench_axe_io axe;
} bench_io;

typedef axe_status (*bench_fn)(bench_io *io);

/*
 * An operation. "operands" has one letter per operand: 'L' a layout, 'T' a
 * tiler or a layout, 'U' an integer tuple (shape, profile or coordinate),
 * 'C' a composed layout, 'X' an Axe layout. A per-element op does size(a)
 * evaluations per call and is reported per element.
 */
typedef struct bench_op {
    const char *name;
    const char *operands;
    int per_element;
    bench_fn run;
} bench_op;

/* One row of the case table: "op" on "a" (and "b", NULL if unused) with
 * parameters "p0", "p1" and, for Axe ops, "args": integer lists such as
 * "[16,8] [2,2]" (NULL if unused). "name" is the JSON "case": "suite" for
 * the cases compared with pycute, "scaling" for the series over 2..16
 * modes, "axe_suite" and "axe_scaling" for the Axe layout algebra; "label"
 * (NULL if none) tells the rows of one op and case apart. */
typedef struct bench_case {
    const char *op;
    const char *name;
    const char *a;
    const char *b;
    int64_t p0, p1;
    const char *args;
    const char *label;
} bench_case;

/* The op called "name", or NULL. */
const bench_op *bench_op_find(const char *name);

/* Parse the operands of "c" for "op" into "io" and set its parameters;
 * "modes" is the number of leaves of operand a (of its inner layout if it
 * is composed). AXE_ERR_INVALID if an operand is missing or of the wrong
 * kind, the parser's status if it does not parse. */
axe_status bench_prepare(const bench_case *c, const bench_op *op, bench_io *io,
                         int *modes);

/* The fixed cases (suite, then realistic layouts); returns their number. */
int bench_fixed_cases(const bench_case **out);

/* Append the scaling series to "out" (room for "cap"); returns the number
 * written. The texts live in static storage owned by bench_cases.c. */
int bench_scaling_cases(bench_case *out, int cap);

/* The Axe op called "name", or NULL (bench_axe.c). */
const bench_op *bench_axe_op_find(const char *name);

/* bench_prepare for an Axe op: operands 'X' parsed into io->axe, "args"
 * into its lists, p0 the target (0 none, 1 CUDA); "modes" is the number of
 * shard iters of operand a. */
axe_status bench_axe_prepare(const bench_case *c, const bench_op *op,
                             bench_io *io, int *modes);

/* Append the Axe cases (axe_suite, then axe_scaling over 2..16 shard
 * iters) to "out" (room for "cap"); returns the number written. */
int bench_axe_cases(bench_case *out, int cap);

#endif
