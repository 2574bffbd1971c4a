/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The token stream of the mapping notation (spec §2): identifiers, plain
 * decimal literals, punctuation, fill markers `#{*}` `#{!}` `#{0}` and
 * delimiters whose partners are known (the text is balanced before any
 * grammar runs). Invariant: tokens[ntok] is an END token at the text's
 * end; every open delimiter's "match" is its closing token's index.
 */
#ifndef AXE_NOTATION_MAPPING_INTERNAL_H
#define AXE_NOTATION_MAPPING_INTERNAL_H

#include "axe/notation_mapping.h"
#include "core_internal.h"

#define AXE__MTOK_MAX 1024
#define AXE__MNEST_MAX 64

typedef enum axe__mtok_kind {
    AXE__MT_IDENT,
    AXE__MT_NAT,
    AXE__MT_PUNCT, /* one character in "c" */
    AXE__MT_FILL,  /* #{*} #{!} #{0}: "c" is '*', '!' or '0' */
    AXE__MT_END
} axe__mtok_kind;

typedef struct axe__mtok {
    axe__mtok_kind kind;
    char c;
    int match;   /* partner of a delimiter, else -1 */
    long offset; /* byte offset in the text */
    size_t len;  /* bytes of the token */
    int64_t value;
} axe__mtok;

typedef struct axe__mlex {
    const char *text;
    size_t len;
    int ntok;
    axe__mtok tok[AXE__MTOK_MAX + 1];
} axe__mlex;

/* Tokenize and balance "text"; "primes" lets identifiers end in `'`. */
axe_status axe__mlex_run(axe__mlex *lx, const char *text, size_t len,
                         bool primes, axe_diag *diag);
/* The tokens strictly inside `NAME![ ... ]` (or `$( ... )` for NAME "$")
 * as [*first, *last); without the wrapper the whole stream (when "bare"). */
axe_status axe__mlex_unwrap(const axe__mlex *lx, const char *name, bool bare,
                            int *first, int *last, axe_diag *diag);
/* A short description of token "t" for messages. */
const char *axe__mtok_describe(const axe__mtok *t);

#endif
