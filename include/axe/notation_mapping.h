/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsing and printing of mapping expressions (docs/notation.md, spec
 * ../shared/spec/mapping_semantics.md §2-§3 and §7): `m![A, B / 64, B % 64,
 * D # 64, D = 2]`, axis tables `axes![A = 8, B = 512]`, indices `i![B / 64:
 * 2, B % 64: 3]` and linear combinations `$(N:1, F:2)`. Escapes `{ X }` name
 * a definition (an `m![...]` text) or a constant of the environment, `{ 8 }`
 * is a constant and `{ A::SIZE }` an axis size. Syntax errors give
 * AXE_ERR_SYNTAX with the byte offset in the diagnostic; size rules give
 * their own status (DIVISIBILITY, DOMAIN, OVERFLOW) at the operator's
 * offset. Printers are snprintf-style.
 */
#ifndef AXE_NOTATION_MAPPING_H
#define AXE_NOTATION_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#include "axe/mapping.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What escapes may name. Arrays are borrowed; any count may be 0. With
 * "primes", identifiers may end in `'` (derived axes such as `B'`, which
 * the axis table must declare). */
typedef struct axe_mapping_env {
    const axe_mapping_axes *axes;
    int ndefs;
    const char *const *def_name;
    const char *const *def_text;
    int nconsts;
    const char *const *const_name;
    const int64_t *const_value;
    bool primes;
} axe_mapping_env;

/* An index `i![...]`: the folded cell and the axes its terms mention
 * (bit k for axis k). */
typedef struct axe_mapping_index {
    axe_mapping_cell cell;
    uint32_t used;
} axe_mapping_index;

/* `m![...]` (or the bare list inside it) over env->axes. */
AXE_NODISCARD AXE_API axe_status axe_parse_mapping(const char *text, size_t len,
                                                   const axe_mapping_env *env,
                                                   axe_mapping *out,
                                                   axe_diag *diag);
/* `axes![NAME = SIZE, ...]`: names start with an uppercase ASCII letter. */
AXE_NODISCARD AXE_API axe_status axe_parse_mapping_axes(const char *text,
                                                        size_t len,
                                                        axe_mapping_axes *out,
                                                        axe_diag *diag);
/* `i![M1: v1, ...]`: the cells Mj.map(vj) combined in written order as a
 * pair combines them (spec §6); a sum at or above an axis size is
 * AXE_ERR_DOMAIN. */
AXE_NODISCARD AXE_API axe_status axe_parse_mapping_index(
    const char *text, size_t len, const axe_mapping_env *env,
    axe_mapping_index *out, axe_diag *diag);
/* `$(e1:n1, ...)` (spec §11). */
AXE_NODISCARD AXE_API axe_status axe_parse_mapping_lincomb(
    const char *text, size_t len, const axe_mapping_env *env,
    axe_mapping_lincomb *out, axe_diag *diag);

/* Furiosa's Display form (spec §7): `(A, B / 64, D # 64)`, `A #{0} 8`. */
AXE_API size_t axe_print_mapping(const axe_mapping *m, char *buf, size_t cap);
/* `m![...]` around the list of the expression (pairs without their outer
 * parentheses); parses back to an expression that prints the same. */
AXE_API size_t axe_print_mapping_macro(const axe_mapping *m, char *buf,
                                       size_t cap);
/* A cell: `{A: 1, B: 167}` (axes of "mask" in table order, zeros kept),
 * `padding(top|zero|bottom)` or `out of bounds`. */
AXE_API size_t axe_print_mapping_cell(const axe_mapping_axes *axes,
                                      uint32_t mask, const axe_mapping_cell *c,
                                      char *buf, size_t cap);
/* The name of a padding kind: "top", "zero", "bottom". */
AXE_API const char *axe_padding_kind_name(axe_padding_kind k);

#ifdef __cplusplus
}
#endif

#endif
