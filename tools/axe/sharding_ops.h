/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sharding specs <-> Axe layouts for `axe convert --from/--to
 * jax|dtensor|alpa` (cmd_convert_shard.c) and the batch ops
 * `sharding.to_axe` / `sharding.from_axe` (cmd_batch.c), over the library's
 * include/axe/sharding.h. One request: the spec format, the operand text
 * (a spec, or an Axe layout optionally followed by ` partial(OP)`), the
 * mesh text and the shape. Invariant: a failure (an operand that does not
 * parse, a bad argument) is a status with "msg" naming the argument; a
 * conversion that has no answer is AXE_OK with *found = false and the
 * reason in "msg"; otherwise the answer text is appended to "out".
 */
#ifndef AXE_TOOLS_SHARDING_OPS_H
#define AXE_TOOLS_SHARDING_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "axe/sharding.h"
#include "json.h"

typedef struct shop_request {
    const char *format; /* "jax", "dtensor" or "alpa" */
    size_t format_len;
    const char *text; /* the spec (to_axe) or the layout (from_axe) */
    size_t text_len;
    const char *mesh; /* `x=2,y=4` */
    size_t mesh_len;
    int n;
    int64_t shape[AXE_LAYOUT_MAX_DIMS];
} shop_request;

/* The spec "r->text" as an Axe layout (` partial(OP)` appended when it
 * has a pending reduction). */
axe_status shop_to_axe(const shop_request *r, json_buf *out, bool *found,
                       json_buf *msg);
/* The Axe layout "r->text" as a spec of "r->format". */
axe_status shop_from_axe(const shop_request *r, json_buf *out, bool *found,
                         json_buf *msg);
/* Answer `sharding.<name>` ("name" without the prefix): args "from"/"to",
 * "spec"/"layout", "mesh" (text or an object name -> size), "shape". */
axe_status shop_batch_answer(const char *name, size_t len,
                             const json_value *args, json_buf *result,
                             json_buf *msg);

#endif
