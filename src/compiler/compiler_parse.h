/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parser state shared by compiler_lex.c (tokens, expressions) and
 * compiler_parse.c (layouts, tensors, statements, the kernel). One token
 * of lookahead; a failure records the first diagnostic and stops.
 * Invariant: "tok" is always the next unconsumed token of "p->text".
 */
#ifndef AXE_COMPILER_PARSE_H
#define AXE_COMPILER_PARSE_H

#include "compiler_internal.h"

typedef enum ax_tok_kind {
    AX_TOK_EOF,
    AX_TOK_INT,
    AX_TOK_FLOAT,
    AX_TOK_IDENT,
    AX_TOK_PUNCT
} ax_tok_kind;

typedef struct ax_token {
    ax_tok_kind kind;
    size_t pos, len;
    int line; /* 1-based line of "pos" */
    int64_t value;
    double fvalue;
} ax_token;

#define AX_MAX_PARAMS 32

typedef struct ax_parser {
    axe_program *p;
    axe_diag *diag;
    size_t pos;
    int line;        /* line of "pos" */
    size_t prev_end; /* end of the token before "tok" */
    int nest;        /* parentheses and unary minuses open */
    int depth;       /* blocks open */
    ax_token tok;
    int nparams;
    char param_name[AX_MAX_PARAMS][AXE_KERNEL_NAME_MAX];
    int64_t param_value[AX_MAX_PARAMS];
    /* Params that are the variables of enclosing unrolled device loops
     * (compiler_parse_devblock.c), pushed after the declared ones. */
    bool param_loop[AX_MAX_PARAMS];
    int ndevblocks; /* enclosing device loops and ifs */
    /* Enclosing kept device loops (runtime trips) and kept ifs (runtime
     * conditions), outermost first: the note each adds to s->iter ("k
     * kept: range(nk)", "if (k < n) kept") and the params pushed before
     * it. */
    int nkept;
    char kept_note[AX_MAX_LOOPS][160];
    int kept_depth[AX_MAX_LOOPS];
    /* A user's kept if (its condition, negated in its else branch) or
     * not (a kept loop, a start's plan: compiler_parse_devvar.c). */
    bool kept_is_if[AX_MAX_LOOPS];
    ax_guard kept_cond[AX_MAX_LOOPS];
    int nunrolled;                /* statements parsed inside them */
    int scope_vars[AX_MAX_LOOPS]; /* loop vars visible, innermost last */
    int nscope_vars;
    bool allow_load; /* parsing a region start: `T[i, j]` reads T */
} ax_parser;

/* Read the next token into ps->tok (SYNTAX on a bad character/number). */
axe_status axe__lex_next(ax_parser *ps);
/* Whether the token is the punctuation / identifier "s". */
bool axe__tok_is(const ax_parser *ps, const char *s);
/* Consume "s" or fail with "expected <what>". */
axe_status axe__expect(ax_parser *ps, const char *s, const char *what);
/* Consume an identifier into "out" (AXE_KERNEL_NAME_MAX bytes). */
axe_status axe__expect_ident(ax_parser *ps, char *out, const char *what);
/* Consume an axis name into "out" (AXE_AXIS_NAME_MAX bytes). */
axe_status axe__expect_axis(ax_parser *ps, char *out);
/* "expected <what>, found <token>" at the current token. */
axe_status axe__syntax(ax_parser *ps, const char *what);
/* An integer expression (folded); names resolve to params, ids, loop vars. */
axe_status axe__parse_expr(ax_parser *ps, ax_expr **out);
/* A product-level expression (stops before a top-level + or -). */
axe_status axe__parse_term(ax_parser *ps, ax_expr **out);
/* What already names "name" in expressions ("a param", "a block/thread
 * id", "an enclosing loop variable"), or NULL. */
const char *axe__name_taken(const ax_parser *ps, const char *name);
/* A compile-time constant expression. */
axe_status axe__parse_const(ax_parser *ps, int64_t *out, const char *what);

/* A constant, or an expression of runtime scalars ("*dyn"; "*out" is
 * then its largest value, clamped to [1, cap]). */
axe_status axe__parse_extent(ax_parser *ps, int64_t *out, const ax_expr **dyn,
                             int64_t cap, const char *what);

/* If "name" is a tensor and `[` follows: the element `name[i, ...]` as a
 * LOAD node (in a region start only); *out NULL when it is no tensor. */
axe_status axe__parse_load(ax_parser *ps, const char *name, long off,
                           ax_expr **out);

/* compiler_sop.c: whether the current token starts a scalar operand (a
 * number, '-', inf, a param or a runtime scalar), and the scalar operand
 * at operand position "pos" of "s": ['-'] (INT | FLOAT | 'inf' | a
 * param) or a runtime scalar's name, refused where "s" takes a tensor. */
bool axe__at_sop(const ax_parser *ps);
/* The runtime scalar (any dtype) the current token names: 1 + its
 * index, or 0. */
int axe__scalar_at(const ax_parser *ps);
axe_status axe__parse_sop(ax_parser *ps, ax_stmt *s, int pos);

/* compiler_parse.c: a tensor reference, a tensor declaration after its
 * memory kind, a user name that is a valid C identifier in generated code. */
axe_status axe__parse_ref(ax_parser *ps, ax_ref *r);
axe_status axe__parse_tensor(ax_parser *ps, ax_mem mem, ax_space space);
axe_status axe__parse_user_name(ax_parser *ps, char *out, const char *what);

/* compiler_parse_dist.c: the mesh declaration ('mesh' read at "off") and
 * a device operator ('device' read; s->off set). */
axe_status axe__parse_mesh(ax_parser *ps, long off);
axe_status axe__parse_devop(ax_parser *ps, ax_stmt *s);

/* compiler_parse_stmt.c: a block '{' {item} '}' into a statement list,
 * an if's condition `lhs CMP rhs` (without the parentheses), and the
 * check that a new param or loop variable "name" shadows nothing. */
axe_status axe__parse_block(ax_parser *ps, ax_stmt **out);
axe_status axe__parse_cond(ax_parser *ps, ax_guard *cond);
axe_status axe__check_fresh(ax_parser *ps, const char *name, long off,
                            const char *what);

/* compiler_parse_devblock.c: device blocks, the `for` and `if`
 * statements that hold device operators (docs/compiler.md, "Device
 * operators in loops and ifs"). Whether the statement at the current
 * token is one; then the statement, unrolled (a for of constant trip
 * count) or kept (a for of runtime trip count: one FOR statement; an if
 * on runtime values: one IF statement) or folded (an if on constants),
 * as the list of statements it stands for ("*out", NULL
 * when empty). The
 * statements parsed inside device blocks, every copy counted, are at
 * most AX_MAX_UNROLL. The
 * values of the enclosing unrolled loops' variables for s->iter (NULL
 * outside them). */
bool axe__at_devblock(const ax_parser *ps);
/* One more statement parsed (inside device blocks: counted, bounded). */
axe_status axe__count_unrolled(ax_parser *ps);
axe_status axe__parse_devblock(ax_parser *ps, ax_stmt **out);
axe_status axe__unroll_note(ax_parser *ps, const char **out);
/* What the non-constant expression "e" reads, for a refusal ("the
 * runtime scalar 'n'", "the block/thread id 'bx'", "an element of tensor
 * 'I'"), snprintf-style into "buf". */
void axe__describe_read(const axe_program *p, const ax_expr *e, char *buf,
                        size_t cap);

/* compiler_parse_devvar.c: whether variable "v" is a kept device loop's
 * (not a builtin, not a runtime scalar's, a runtime trip count); whether
 * the region start "e" reads kept device loops' variables only (and
 * constants); device operator "s"
 * (parsed) whose region starts read them becomes one copy per value of
 * its starts, each under kept ifs `if (START == VALUE)`, "s" the first
 * of that list (unchanged when every start is a constant). */
bool axe__var_is_kept(const axe_program *p, int v);
bool axe__start_kept_only(const axe_program *p, const ax_expr *e);
axe_status axe__devop_variants(ax_parser *ps, ax_stmt *s);

#endif
