/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mapping-expression operations `mapping.<name>` of `axe batch`
 * (vectors/mapping.jsonl, spec §13) and of `axe map` (cmd_map.c, which
 * builds the same JSON arguments from its command line). An operation reads
 * its arguments from the JSON "args" object: "axes" (an object name ->
 * size, or an `axes![...]` string), "defs" and "consts" for escapes, the
 * expressions as `m![...]` text, and integers. Invariant: on success the
 * JSON result is appended to "result"; on failure "msg" holds a reason that
 * names the argument and nothing is appended to "result".
 */
#ifndef AXE_TOOLS_MAPPING_OPS_H
#define AXE_TOOLS_MAPPING_OPS_H

#include <stddef.h>
#include <stdio.h>

#include "axe/mapping.h"
#include "axe/notation.h"
#include "axe/notation_mapping.h"
#include "json.h"

#define MAPOP_ESCAPES_MAX 16

/* The parsing environment of one request; names and texts are borrowed
 * from the request's JSON. */
typedef struct mapop_env {
    axe_mapping_axes axes;
    axe_mapping_env env;
    const char *def_name[MAPOP_ESCAPES_MAX];
    const char *def_text[MAPOP_ESCAPES_MAX];
    const char *const_name[MAPOP_ESCAPES_MAX];
    int64_t const_value[MAPOP_ESCAPES_MAX];
} mapop_env;

typedef axe_status mapop_fn(const json_value *args, mapop_env *e,
                            json_buf *result, json_buf *msg);

/* Answer `mapping.<name>` ("name" without the prefix). */
axe_status mapop_batch_answer(const char *name, size_t len,
                              const json_value *args, json_buf *result,
                              json_buf *msg);
/* The operation names, for help texts, one per line with a summary. */
void mapop_list(FILE *f);

/* ---- helpers shared by the operation files ----------------------------- */

/* Parse the `m![...]` string argument "key" into "out". */
axe_status mapop_expr(const json_value *args, const char *key, mapop_env *e,
                      axe_mapping *out, json_buf *msg);
/* The integer argument "key". */
axe_status mapop_int(const json_value *args, const char *key, int64_t *out,
                     json_buf *msg);
/* The string argument "key". */
const char *mapop_str(const json_value *args, const char *key, size_t *len,
                      json_buf *msg);
/* A cell as JSON (spec §5.3): the axes of "mask" with zeros kept,
 * {"padding": kind} or null. */
void mapop_put_cell(json_buf *out, const axe_mapping_axes *axes, uint32_t mask,
                    const axe_mapping_cell *c);
/* The axes "m" uses, as a mask. */
uint32_t mapop_used(const axe_mapping *m);
/* The reason of a failed library call on argument "key". */
axe_status mapop_fail(json_buf *msg, const char *key, axe_status st,
                      const axe_diag *diag);
/* The tensor axis list argument "tensor_axes" (distinct names; default:
 * the axes the normal forms of the parts name, in table order, spec §10)
 * into names[0 .. *n). */
axe_status mapop_tensor_axes(const json_value *args, const mapop_env *e,
                             const axe_mapping_part *parts, int nparts,
                             const char **names, int *n, json_buf *msg);
/* The optional boolean argument "key" into *out (false when absent). */
axe_status mapop_flag(const json_value *args, const char *key, bool *out,
                      json_buf *msg);
/* Append the Axe text of "l" as a JSON string. */
void mapop_put_layout(json_buf *out, const axe_layout *l);

/* The operations of mapping_ops_conv.c. */
mapop_fn mapop_to_axe, mapop_to_axe_multi, mapop_tile, mapop_tile_view,
    mapop_skew_map, mapop_lincomb_map, mapop_lincomb_to_axe, mapop_lincomb_size;

#endif
