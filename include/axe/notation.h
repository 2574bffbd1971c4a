/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsing and printing of the CuTe notation (docs/notation.md): integer
 * tuples `((2,2),3)` and coordinates with `_`, layouts `(4,8):(1,4)` with
 * scaled-basis strides `1@0`, tilers `<4:1, 8:2>` / `[4:1;8:2]`, swizzles
 * `Sw<3,4,3>` / `S<3,4,3>` and composed layouts `Sw<3,4,3> o 0 o 8:1`.
 * CuTe C++ static prints `(_4,_8):(_1,_4)` are accepted. print(parse(s)) ==
 * s for canonical strings. Printers are snprintf-style: they write at most
 * "cap" bytes including the NUL and return the length the full text needs.
 */
#ifndef AXE_NOTATION_H
#define AXE_NOTATION_H

#include <stddef.h>

#include "axe/cute.h"
#include "axe/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum axe_cute_kind {
    AXE_CUTE_KIND_TUPLE,
    AXE_CUTE_KIND_LAYOUT,
    AXE_CUTE_KIND_TILER,
    AXE_CUTE_KIND_SWIZZLE,
    AXE_CUTE_KIND_COMPOSED
} axe_cute_kind;

/* Whatever a CuTe text denotes; only the member named by "kind" is set. */
typedef struct axe_cute_object {
    axe_cute_kind kind;
    axe_tuple tuple;
    axe_cute_layout layout;
    axe_cute_tiler tiler;
    axe_swizzle swizzle;
    axe_cute_composed composed;
} axe_cute_object;

/* Parse "len" bytes of "text"; syntax errors give AXE_ERR_SYNTAX (or
 * AXE_ERR_OVERFLOW / AXE_ERR_CAPACITY) with the byte offset in "diag". */
AXE_NODISCARD AXE_API axe_status axe_parse_cute(const char *text, size_t len,
                                                axe_cute_object *out,
                                                axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_parse_tuple(const char *text, size_t len,
                                                 axe_tuple *out,
                                                 axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_parse_cute_layout(const char *text,
                                                       size_t len,
                                                       axe_cute_layout *out,
                                                       axe_diag *diag);

AXE_API size_t axe_print_tuple(const axe_tuple *t, char *buf, size_t cap);
AXE_API size_t axe_print_cute_layout(const axe_cute_layout *l, char *buf,
                                     size_t cap);
AXE_API size_t axe_print_cute_tiler(const axe_cute_tiler *t, char *buf,
                                    size_t cap);
AXE_API size_t axe_print_swizzle(const axe_swizzle *sw, char *buf, size_t cap);
AXE_API size_t axe_print_cute_composed(const axe_cute_composed *c, char *buf,
                                       size_t cap);
AXE_API size_t axe_print_cute(const axe_cute_object *o, char *buf, size_t cap);

/* ---- Axe layouts --------------------------------------------------------- */

/* Parse an Axe layout `S[...] + R[...] + 5@warpid + 64`, optionally wrapped
 * `Swizzle<M,B,S>(...)` / `Swizzle<M,B,S,outer>(...)` (docs/notation.md). */
AXE_NODISCARD AXE_API axe_status axe_parse_layout(const char *text, size_t len,
                                                  axe_layout *out,
                                                  axe_diag *diag);
/* Canonical text of an Axe layout; print(parse(s)) == s for canonical s. */
AXE_API size_t axe_print_layout(const axe_layout *l, char *buf, size_t cap);
/* A point as `{laneid: 8, m: 1}` (entries in order, zeros included). */
AXE_API size_t axe_print_point(const axe_point *p, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
