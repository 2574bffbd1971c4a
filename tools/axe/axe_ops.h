/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of Axe-layout operations shared by the top-level commands (`axe
 * canon`, `axe tile`, ...; cmd_axe.c) and by `axe batch` (`axe.<name>`
 * requests; axe_batch.c). An operation takes named operands (axop_args: one
 * slot per argument name of vectors/axe.jsonl) and produces an axop_result,
 * or a status with a reason. The front ends only turn text into axop_args
 * and an axop_result into text, so both always compute the same answers.
 * Invariant: an operation reads only the slots whose bits are set in
 * "have", and writes "res" only on success; a result of kind AXOP_R_NULL
 * ("no layout") carries its reason in the caller's diagnostic.
 */
#ifndef AXE_TOOLS_AXE_OPS_H
#define AXE_TOOLS_AXE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axe/layout.h"
#include "axe/notation.h"
#include "json.h"

/* Argument names; the order groups them by kind (see axop_key_kind). */
typedef enum axop_key {
    /* layouts, in the Axe notation */
    AXOP_LAYOUT,
    AXOP_A,
    AXOP_B,
    AXOP_INNER,
    AXOP_OUTER,
    AXOP_TILED,
    AXOP_SUM,
    /* integer lists (an integer is a list of one) */
    AXOP_SHAPE,
    AXOP_A_SHAPE,
    AXOP_B_SHAPE,
    AXOP_INNER_SHAPE,
    AXOP_OUTER_SHAPE,
    AXOP_TILED_SHAPE,
    AXOP_INTERLEAVED_SHAPE,
    AXOP_TO_SHAPE,
    AXOP_CURRENT_SHAPE,
    AXOP_COORD,
    AXOP_SEPS,
    AXOP_PERM,
    AXOP_GROUP,
    /* a list of shapes, a region [[begin, end], ...], a point, any text */
    AXOP_SHAPES,
    AXOP_REGION,
    AXOP_POINT,
    AXOP_TEXT,
    /* short strings (names) */
    AXOP_AXIS,
    AXOP_TARGET,
    AXOP_DTYPE,
    AXOP_ANNOTATION,
    AXOP_DATAPATH,
    AXOP_OPERAND,
    AXOP_COORD_DTYPE,
    /* integers */
    AXOP_NUM,
    AXOP_POSITION,
    AXOP_ROWS,
    AXOP_COLS,
    AXOP_SUB_SLAB,
    AXOP_SWIZZLE_MODE,
    AXOP_M,
    AXOP_CTA_GROUP,
    /* booleans */
    AXOP_CANONICALIZE,
    AXOP_SWIZZLE_INNER,
    AXOP_WS,
    AXOP_WITH_REPLICAS,
    AXOP_TIRX,
    AXOP_TILE,
    AXOP_NKEYS
} axop_key;

typedef enum axop_kind {
    AXOP_K_LAYOUT,
    AXOP_K_INTS,
    AXOP_K_SHAPES,
    AXOP_K_REGION,
    AXOP_K_POINT,
    AXOP_K_TEXT,
    AXOP_K_STR,
    AXOP_K_INT,
    AXOP_K_BOOL
} axop_kind;

#define AXOP_BIT(k) (UINT64_C(1) << (k))
#define AXOP_NLAYOUTS (AXOP_SHAPE - AXOP_LAYOUT)
#define AXOP_NLISTS (AXOP_SHAPES - AXOP_SHAPE)
#define AXOP_NSTRS (AXOP_NUM - AXOP_AXIS)
#define AXOP_NINTS (AXOP_CANONICALIZE - AXOP_NUM)
#define AXOP_NBOOLS (AXOP_NKEYS - AXOP_CANONICALIZE)

/* Capacities: an integer list holds a per-iter coordinate or separators
 * (shard capacity + 1) and an interleaved shape (2 x dims). */
#define AXOP_LIST_MAX (AXE_LAYOUT_MAX_SHARD + 8)
#define AXOP_SHAPES_MAX 8
#define AXOP_STR_MAX 32
#define AXOP_POINTS_MAX 256

typedef struct axop_ints {
    int n;
    int64_t v[AXOP_LIST_MAX];
} axop_ints;

typedef struct axop_args {
    uint64_t have; /* AXOP_BIT(key) for each argument given */
    axe_layout layout[AXOP_NLAYOUTS];
    axop_ints list[AXOP_NLISTS];
    int nshapes;
    axop_ints shapes[AXOP_SHAPES_MAX];
    int nregion;
    int64_t region[AXE_LAYOUT_MAX_DIMS][2];
    axe_point point;
    const char *text; /* borrowed from the caller, "text_len" bytes */
    size_t text_len;
    char str[AXOP_NSTRS][AXOP_STR_MAX];
    int64_t num[AXOP_NINTS];
    bool flag[AXOP_NBOOLS];
} axop_args;

typedef enum axop_result_kind {
    AXOP_R_NULL, /* no layout (the reason is in the diagnostic) */
    AXOP_R_LAYOUT,
    AXOP_R_BOOL,
    AXOP_R_INT,
    AXOP_R_INTS,
    AXOP_R_POINT,
    AXOP_R_POINTS,
    AXOP_R_GROUP, /* layout + seps (nseps rows; "many" for group_many) */
    AXOP_R_JSON,  /* structured data, as JSON text in "json" */
    AXOP_R_TEXT   /* a string (a CuTe layout), its text in "json" */
} axop_result_kind;

typedef struct axop_result {
    axop_result_kind kind;
    axe_layout layout;
    bool b;
    int64_t i;
    axop_ints ints;
    int npoints;
    axe_point points[AXOP_POINTS_MAX];
    bool many;
    int nseps;
    int seplen[AXOP_SHAPES_MAX];
    int seps[AXOP_SHAPES_MAX][AXE_LAYOUT_MAX_DIMS + 1];
    json_buf json;
} axop_result;

typedef axe_status axop_fn(const axop_args *args, axop_result *res,
                           axe_diag *diag);

typedef struct axop {
    const char *name;  /* batch name without "axe.": "is_tile_inner" */
    uint64_t required; /* AXOP_BIT()s that must be given */
    uint64_t optional; /* AXOP_BIT()s that may be given */
    axop_fn *run;
} axop;

/* ---- the table ----------------------------------------------------------- */

/* The operation called "name" ("len" bytes), or NULL. */
const axop *axop_find(const char *name, size_t len);
/* The "i"-th operation of the table, or NULL past the end. */
const axop *axop_at(size_t i);
/* The argument called "name" ("len" bytes): its key, or -1. */
int axop_key_find(const char *name, size_t len);
const char *axop_key_name(axop_key k);
axop_kind axop_key_kind(axop_key k);

void axop_args_init(axop_args *args);
void axop_result_init(axop_result *res);
void axop_result_free(axop_result *res);

/*
 * Run "op" on "args" after checking that they are what it takes. Every op
 * accepts "swizzle_inner" (false: every swizzled operand of "args" is made
 * outer-swizzled, `Swizzle<M,B,S,outer>`), "target" ("cuda" or "none") and
 * "canonicalize" (true: a layout result is canonicalized, with the target).
 */
axe_status axop_run(const axop *op, axop_args *args, axop_result *res,
                    axe_diag *diag);

/* ---- slots --------------------------------------------------------------- */

static inline const axe_layout *axop_layout(const axop_args *a, axop_key k)
{
    return &a->layout[k - AXOP_LAYOUT];
}
static inline const axop_ints *axop_list(const axop_args *a, axop_key k)
{
    return &a->list[k - AXOP_SHAPE];
}
static inline const char *axop_str(const axop_args *a, axop_key k)
{
    return a->str[k - AXOP_AXIS];
}
static inline int64_t axop_int(const axop_args *a, axop_key k)
{
    return a->num[k - AXOP_NUM];
}
static inline bool axop_flag(const axop_args *a, axop_key k)
{
    return a->flag[k - AXOP_CANONICALIZE];
}
static inline bool axop_has(const axop_args *a, axop_key k)
{
    return (a->have & AXOP_BIT(k)) != 0;
}

/* ---- results as text ----------------------------------------------------- */

/* Append "res" as a JSON value (the `axe batch` result). */
void axop_result_write_json(const axop_result *res, json_buf *out);
/* Append "res" as the CLI prints it (no trailing newline). */
void axop_result_write_text(const axop_result *res, json_buf *out);
/* Append layout "l" in the canonical notation. */
void axop_layout_write(const axe_layout *l, json_buf *out);
/* Append point "p" as a JSON object {"laneid": 8, "m": 1}. */
void axop_point_write_json(const axe_point *p, json_buf *out);
/* Append "v[0..n)" as "[1,2,3]". */
void axop_ints_write(const int64_t *v, int n, json_buf *out);

/* ---- the small notations (axe_text.c) ------------------------------------ */

/* `[8,16]` (a bare `8` is `[8]`). */
axe_status axop_parse_ints(const char *text, size_t len, axop_ints *out,
                           axe_diag *diag);
/* `[[0,8],[8,24]]`: "*n" dims of [begin, end). */
axe_status axop_parse_region(const char *text, size_t len, int64_t (*region)[2],
                             int *n, axe_diag *diag);
/* `{laneid: 8, m: 1}` or `laneid=8,m=1`; repeated axes add. */
axe_status axop_parse_point(const char *text, size_t len, axe_point *out,
                            axe_diag *diag);
/* Add "v" on the "len"-byte "axis" of "p" (a new name is zero-padded;
 * INVALID for a bad name length, CAPACITY past AXE_POINT_MAX_AXES axes,
 * OVERFLOW). */
axe_status axop_point_put(axe_point *p, const char *axis, size_t len,
                          int64_t v);

/* ---- `axe batch` (axe_batch.c) ------------------------------------------- */

/*
 * Answer an `axe.<name>` request ("name" without "axe.", "len" bytes) with
 * arguments "args" (a JSON object or NULL): AXE_OK with the JSON result
 * appended to "result" (and, for a null result "no layout", the reason
 * appended to "msg"), or the status (UNKNOWN_OP, INVALID for a bad
 * argument, SYNTAX for an operand that does not parse, or the operation's)
 * with the reason appended to "msg".
 */
axe_status axop_batch_answer(const char *name, size_t len,
                             const json_value *args, json_buf *result,
                             json_buf *msg);

/* ---- helpers shared by the op files --------------------------------------
 */

/* A failure with a formatted reason in "diag" (NULL accepted). */
axe_status axop_fail(axe_diag *diag, axe_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The request's target: CUDA when "target" is "cuda". */
axe_target axop_target(const axop_args *args);
/* The request's rule: TIRx's when "tirx" is true, else the paper's. */
axe_rule axop_rule(const axop_args *args);
/* A shape argument as an int array of "n" dims: its length must be "n"
 * (or "n" < 0: any length up to AXE_LAYOUT_MAX_DIMS, written to "*n"). */
axe_status axop_shape(const axop_args *args, axop_key k, int *n,
                      axe_diag *diag);
/* Results. */
void axop_set_layout(axop_result *res, const axe_layout *l);
void axop_set_null(axop_result *res);
void axop_set_bool(axop_result *res, bool b);
void axop_set_int(axop_result *res, int64_t v);

/* ---- implemented in the op files, used by the table ---------------------
 */

axop_fn axop_parse, axop_axis_info, axop_size, axop_span, axop_get_scope;
axop_fn axop_verify_well_formed, axop_equal, axop_equivalent;
axop_fn axop_apply, axop_apply_set, axop_apply_to_shape, axop_backward;
axop_fn axop_from_cute, axop_to_cute;
axop_fn axop_canonicalize, axop_normalize, axop_group, axop_group_many;
axop_fn axop_tile, axop_tile_to, axop_is_tile_inner, axop_is_tile_outer;
axop_fn axop_intersect_iters;
axop_fn axop_slice, axop_direct_sum, axop_is_direct_sum_left;
axop_fn axop_is_direct_sum_right;
axop_fn axop_storage, axop_pack, axop_unpack, axop_broadcast;
axop_fn axop_permute_dims, axop_permute_by_groups, axop_trainium;
axop_fn axop_to_psum, axop_tmem_datapath_layout, axop_tmem_mma_operand_layout;
axop_fn axop_wg_local_layout, axop_mma_shared_layout, axop_row_major;

#endif
