/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of CuTe operations shared by `axe cute <command>` and `axe
 * batch`: each operation takes parsed operands (cute_args) and produces a
 * cute_result, or a status with a reason. Both front ends only convert text
 * to cute_args and a cute_result to text, so the CLI and the batch protocol
 * always compute the same answers. Invariant: an operation reads only the
 * operands whose bits are set in "have", and writes "res" only on success
 * (a text result is appended to res->text, which the caller owns).
 */
#ifndef AXE_TOOLS_CUTE_OPS_H
#define AXE_TOOLS_CUTE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axe/notation.h"
#include "json.h"

/* Operand bits: "a", "b", "c" are CuTe objects, "n" one or two integers,
 * "mode" a get<> path. */
enum {
    CUTE_ARG_A = 1u << 0,
    CUTE_ARG_B = 1u << 1,
    CUTE_ARG_C = 1u << 2,
    CUTE_ARG_N = 1u << 3,
    CUTE_ARG_MODE = 1u << 4,
    CUTE_ARG_EXTENDED = 1u << 5 /* the flag "extended" (complement) */
};

#define CUTE_MODE_MAX AXE_TUPLE_MAX_DEPTH

typedef struct cute_args {
    unsigned have;
    axe_cute_object a;
    axe_cute_object b;
    axe_cute_object c;
    int nn;
    int64_t n[2];
    int nmode;
    int64_t mode[CUTE_MODE_MAX];
    bool extended;
} cute_args;

typedef enum cute_result_kind {
    CUTE_RESULT_OBJECT,
    CUTE_RESULT_INT,
    CUTE_RESULT_TEXT
} cute_result_kind;

typedef struct cute_result {
    cute_result_kind kind;
    axe_cute_object obj;
    int64_t i;
    json_buf text;
} cute_result;

typedef axe_status cute_op_fn(const cute_args *args, cute_result *res,
                              axe_diag *diag);

typedef struct cute_op {
    const char *name;  /* batch name without "cute.": "composition" */
    unsigned required; /* CUTE_ARG_* that must be present */
    unsigned optional; /* CUTE_ARG_* that may be present */
    int nn;            /* how many integers "n" holds (0, 1 or 2) */
    cute_op_fn *run;
} cute_op;

/* The operation called "name" ("len" bytes), or NULL. */
const cute_op *cute_op_find(const char *name, size_t len);
/* The "i"-th operation of the table, or NULL past the end. */
const cute_op *cute_op_at(size_t i);

/* Empty "args" and "res" (res->text ready for use). */
void cute_args_init(cute_args *args);
void cute_result_init(cute_result *res);
void cute_result_free(cute_result *res);

/* Run "op" after checking that "args" holds exactly what it takes. */
axe_status cute_op_run(const cute_op *op, const cute_args *args,
                       cute_result *res, axe_diag *diag);

/* Append the text of "res" to "out": an object in the canonical notation,
 * an integer in decimal, or the text. */
void cute_result_write(const cute_result *res, json_buf *out);
/* Append "o" in the canonical notation. */
void cute_object_write(const axe_cute_object *o, json_buf *out);

/* ---- implemented in the op files, used by the table ------------------ */

cute_op_fn cute_op_size, cute_op_cosize, cute_op_rank, cute_op_depth;
cute_op_fn cute_op_eval, cute_op_flatten, cute_op_coalesce;
cute_op_fn cute_op_coalesce_x, cute_op_filter, cute_op_identity;
cute_op_fn cute_op_swizzle_apply, cute_op_print;
cute_op_fn cute_op_composition, cute_op_complement, cute_op_right_inverse;
cute_op_fn cute_op_left_inverse, cute_op_nullspace;
cute_op_fn cute_op_logical_divide, cute_op_zipped_divide;
cute_op_fn cute_op_tiled_divide, cute_op_flat_divide;
cute_op_fn cute_op_logical_product, cute_op_zipped_product;
cute_op_fn cute_op_tiled_product, cute_op_flat_product;
cute_op_fn cute_op_blocked_product, cute_op_raked_product;
cute_op_fn cute_op_tile_to_shape, cute_op_slice, cute_op_dice;
cute_op_fn cute_op_upcast, cute_op_downcast, cute_op_recast_layout;
cute_op_fn cute_op_max_common_layout, cute_op_max_common_vector;

/* ---- helpers shared by the op files ----------------------------------- */

/*
 * A composed layout taken apart: the algebra acts on "inner" and the result
 * is put back behind the same outer function and offset (CuTe's
 * ComposedLayout overloads). For a plain layout "composed" is false.
 */
typedef struct cute_frame {
    bool composed;
    axe_cute_composed c;
} cute_frame;

/* The layout "o" denotes (a tuple: its compact column-major layout);
 * "what" names the operand in messages ("a"). */
axe_status cute_to_layout(const axe_cute_object *o, const char *what,
                          axe_cute_layout *out, axe_diag *diag);
/* As cute_to_layout, but a composed layout gives its inner layout and
 * "frame" remembers the rest. */
axe_status cute_unwrap(const axe_cute_object *o, const char *what,
                       axe_cute_layout *out, cute_frame *frame, axe_diag *diag);
/* The object result "l" behind the frame: a layout, or the composed layout
 * with inner "l" (which must fit behind its outer function). */
axe_status cute_rewrap(const cute_frame *frame, const axe_cute_layout *l,
                       cute_result *res, axe_diag *diag);
/* A layout / tuple / integer result. */
void cute_set_layout(cute_result *res, const axe_cute_layout *l);
void cute_set_tuple(cute_result *res, const axe_tuple *t);
void cute_set_int(cute_result *res, int64_t v);
/* The kind of "o" in words ("a swizzle"). */
const char *cute_kind_name(const axe_cute_object *o);
/* A failure with a formatted reason in "diag" (NULL accepted). */
axe_status cute_fail(axe_diag *diag, axe_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append point "p" (a value of a layout) as text: an integer, a
 * coordinate tuple (at least "ncoord" long) for E<k> components, or a sum
 * of `v@k1@k0` terms. */
void cute_point_write(const axe_cute_point *p, int ncoord, json_buf *out);
/* The coordinate rank of the values of "o" (cute_point_write's "ncoord"):
 * 0 when they are integers. */
int cute_value_ncoord(const axe_cute_object *o);
/* o(idx) for a layout, tuple (compact layout) or composed layout "o". */
axe_status cute_eval_index(const axe_cute_object *o, int64_t idx,
                           axe_cute_point *out, axe_diag *diag);

#endif
