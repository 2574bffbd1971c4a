/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device blocks (docs/compiler.md, "Device operators in loops and ifs"):
 * a `for` or `if` whose body holds a device operator. Every device takes
 * part in each device operator, so every device must run the same ones:
 * the parser unrolls such a loop when its trip count is a constant (its
 * body parsed once per value of the variable, which is then a param),
 * keeps it as a loop when the trip count reads runtime scalars (a FOR
 * statement with "kept" set and a loop variable of its own, its body
 * parsed once), and folds such an if (a condition of params and those
 * variables: the branch taken is parsed in place, the other is parsed
 * and dropped). The device operators are then at the top level of the
 * kernel body or of a kept loop's body; the segments between them and
 * the kept loops are compiler_segments.c's. An if on runtime scalars or
 * kept loops' variables is kept (an IF statement with "kept" set);
 * conditions reading block/thread ids or tensor
 * elements are refused naming what they read.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_parse.h"

/* From the '{' at "look": past its matching '}'; "*found" set when a
 * device operator (`device` followed by a name) is inside. The scan's
 * lexer errors are the real parse's to report. */
static void scan_block(ax_parser *look, bool *found)
{
    int depth = 0;
    bool after_device = false;
    do {
        if (look->tok.kind == AX_TOK_EOF)
            return;
        if (after_device && look->tok.kind == AX_TOK_IDENT)
            *found = true;
        after_device = axe__tok_is(look, "device");
        depth += axe__tok_is(look, "{");
        depth -= axe__tok_is(look, "}");
        if (axe__lex_next(look) != AXE_OK)
            return;
    } while (depth > 0);
}

axe_status axe__count_unrolled(ax_parser *ps)
{
    if (ps->ndevblocks == 0 || ps->nunrolled++ < AX_MAX_UNROLL)
        return AXE_OK;
    return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                     "unrolling the loops around device operators parses "
                     "more than %d statements",
                     AX_MAX_UNROLL);
}

bool axe__at_devblock(const ax_parser *ps)
{
    ax_parser look = *ps;
    bool found = false, is_if = axe__tok_is(ps, "if");
    if (!is_if && !axe__tok_is(ps, "for"))
        return false;
    look.diag = NULL;
    while (!axe__tok_is(&look, "{")) /* the header holds no ';' or '}' */
        if (look.tok.kind == AX_TOK_EOF || axe__tok_is(&look, ";") ||
            axe__tok_is(&look, "}") || axe__lex_next(&look) != AXE_OK)
            return false;
    scan_block(&look, &found);
    if (is_if && axe__tok_is(&look, "else") && axe__lex_next(&look) == AXE_OK)
        scan_block(&look, &found);
    return found;
}

axe_status axe__unroll_note(ax_parser *ps, const char **out)
{
    ax_text t;
    int i, j = 0;
    *out = NULL;
    axe__text_init(&t, ps->p->arena);
    for (i = 0; i <= ps->nparams; i++) {
        for (; j < ps->nkept && ps->kept_depth[j] == i; j++)
            axe__text_put(&t, "%s%s", t.len > 0 ? ", " : "", ps->kept_note[j]);
        if (i < ps->nparams && ps->param_loop[i])
            axe__text_put(&t, "%s%s = %lld", t.len > 0 ? ", " : "",
                          ps->param_name[i], (long long)ps->param_value[i]);
    }
    if (t.status != AXE_OK)
        return t.status;
    *out = t.buf;
    return AXE_OK;
}

/* Back to the token "mark" was at (the lexer's state only). */
static void rewind_to(ax_parser *ps, const ax_parser *mark)
{
    ps->pos = mark->pos;
    ps->line = mark->line;
    ps->prev_end = mark->prev_end;
    ps->nest = mark->nest;
    ps->tok = mark->tok;
}

/* The first variable or tensor element that "e" reads, or NULL. */
static const ax_expr *first_read(const ax_expr *e)
{
    const ax_expr *r;
    if (e == NULL || e->kind == AX_EX_VAR || e->kind == AX_EX_LOAD)
        return e;
    r = first_read(e->a);
    return r != NULL ? r : first_read(e->b);
}

void axe__describe_read(const axe_program *p, const ax_expr *e, char *buf,
                        size_t cap)
{
    e = first_read(e);
    if (e == NULL)
        snprintf(buf, cap, "a value that is no constant");
    else if (e->kind == AX_EX_LOAD)
        snprintf(buf, cap, "an element of tensor '%s'",
                 p->tensors[e->load->tensor].name);
    else if (e->var < AX_VAR_NBUILTIN)
        snprintf(buf, cap, "the block/thread id '%s'", p->vars[e->var]);
    else if (p->var_scalar[e->var] != 0)
        snprintf(buf, cap, "the runtime scalar '%s'", p->vars[e->var]);
    else if (p->var_dtrip[e->var] != NULL)
        snprintf(buf, cap, "the variable '%s' of a kept device loop",
                 p->vars[e->var]);
    else
        snprintf(buf, cap, "the loop variable '%s'", p->vars[e->var]);
}

/* The kept device loop over "trip" (a runtime trip count "dtrip" at
 * offset "from"): a FOR statement with its own loop variable, named
 * ps->param_name[k], whose body is parsed once (the `)` of the header is
 * next). Its note for s->iter prints the trip count as compiler_expr.c
 * does (names, numbers and operators only: safe in generated comments). */
static axe_status parse_kept(ax_parser *ps, int k, int64_t trip,
                             const ax_expr *dtrip, size_t from, ax_stmt **out)
{
    axe_program *p = ps->p;
    char text[48], note[sizeof ps->kept_note[0]];
    ax_stmt *s;
    if (p->nvars == AX_MAX_VARS || ps->nscope_vars == AX_MAX_LOOPS ||
        ps->nkept == AX_MAX_LOOPS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)from,
                         "too many loops");
    AXE_TRY(axe__expect(ps, ")", "')'"));
    if ((s = axe__arena_alloc(p->arena, sizeof *s)) == NULL)
        return AXE_ERR_NO_MEMORY;
    s->kind = AX_ST_FOR;
    s->off = (long)from;
    s->line = ps->tok.line;
    s->kept = true;
    s->var = p->nvars++;
    snprintf(p->vars[s->var], sizeof p->vars[s->var], "%s", ps->param_name[k]);
    s->trip = trip;
    s->dtrip = dtrip;
    p->var_trip[s->var] = trip;
    p->var_dtrip[s->var] = dtrip;
    if (axe__expr_text(p, dtrip, text, sizeof text, 0) >= sizeof text)
        strcpy(text + sizeof text - 4, "...");
    snprintf(note, sizeof note, "%s kept: range(%s)", ps->param_name[k], text);
    memcpy(ps->kept_note[ps->nkept], note, sizeof note);
    ps->kept_is_if[ps->nkept] = false;
    ps->kept_depth[ps->nkept++] = ps->nparams;
    ps->scope_vars[ps->nscope_vars++] = s->var;
    ps->ndevblocks++;
    AXE_TRY(axe__parse_block(ps, &s->body));
    ps->ndevblocks--;
    ps->nscope_vars--;
    ps->nkept--;
    *out = s;
    return AXE_OK;
}

/* 'for' NAME 'in' 'range' '(' trip ')' block ('for' already read): a
 * constant trip unrolls it (the body parsed once per value with NAME a
 * param), a runtime one keeps it (parse_kept). */
static axe_status parse_devfor(ax_parser *ps, ax_stmt **out)
{
    axe_program *p = ps->p;
    long off = (long)ps->tok.pos;
    int i, k = ps->nparams;
    int64_t trip;
    const ax_expr *dtrip;
    ax_parser mark;
    if (k == AX_MAX_PARAMS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, off,
                         "more than %d params and loop variables of loops "
                         "around device operators",
                         AX_MAX_PARAMS);
    AXE_TRY(axe__parse_user_name(ps, ps->param_name[k], "a loop variable"));
    for (i = 0; i < p->nscalars; i++)
        if (strcmp(p->scalar_name[i], ps->param_name[k]) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                             "loop variable '%s' reuses a runtime scalar's "
                             "name",
                             p->scalar_name[i]);
    AXE_TRY(axe__check_fresh(ps, ps->param_name[k], off, "a loop variable"));
    AXE_TRY(axe__expect(ps, "in", "'in'"));
    AXE_TRY(axe__expect(ps, "range", "'range'"));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_extent(ps, &trip, &dtrip, INT32_MAX, "a trip count"));
    if (dtrip != NULL)
        return parse_kept(ps, k, trip, dtrip, (size_t)off, out);
    if (trip <= 0)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "trip count %lld is not positive", (long long)trip);
    AXE_TRY(axe__expect(ps, ")", "')'"));
    ps->param_loop[k] = true;
    ps->nparams++;
    ps->ndevblocks++;
    mark = *ps;
    for (i = 0; i < trip; i++) {
        rewind_to(ps, &mark);
        ps->param_value[k] = i;
        AXE_TRY(axe__parse_block(ps, out));
        while (*out != NULL)
            out = &(*out)->next;
    }
    ps->param_loop[k] = false;
    ps->nparams--;
    ps->ndevblocks--;
    return AXE_OK;
}

/* A block parsed and dropped: the operator and loop counts it took are
 * given back (its statements stay in the arena, unreachable). */
static axe_status parse_dropped(ax_parser *ps)
{
    axe_program *p = ps->p;
    int nops = p->nops, ndevops = p->ndevops, nvars = p->nvars;
    ax_stmt *dropped;
    AXE_TRY(axe__parse_block(ps, &dropped));
    p->nops = nops;
    p->ndevops = ndevops;
    p->nvars = nvars;
    return AXE_OK;
}

/* The first block/thread id or tensor element that "e" reads, or NULL:
 * what no device if may test (devices could differ on it). */
static const ax_expr *device_varying(const ax_expr *e)
{
    const ax_expr *r;
    if (e == NULL || e->kind == AX_EX_LOAD ||
        (e->kind == AX_EX_VAR && e->var < AX_VAR_NBUILTIN))
        return e;
    r = device_varying(e->a);
    return r != NULL ? r : device_varying(e->b);
}

/* One branch of kept if "s" (else_branch: its else) into "*out", with
 * the note its operators get ("if (n > 0) kept", "else of ..."; the
 * condition printed as compiler_expr.c does). */
static axe_status kept_branch(ax_parser *ps, const ax_stmt *s, bool else_branch,
                              ax_stmt **out)
{
    char cond[2 * AX_COND_SIDE_MAX + 8], note[sizeof ps->kept_note[0]];
    if (ps->nkept == AX_MAX_LOOPS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                         "more than %d kept device loops and ifs around a "
                         "statement",
                         AX_MAX_LOOPS);
    axe__cond_text(ps->p, &s->cond, 39, cond, sizeof cond);
    snprintf(note, sizeof note, "%sif (%s) kept", else_branch ? "else of " : "",
             cond);
    memcpy(ps->kept_note[ps->nkept], note, sizeof note);
    ps->kept_is_if[ps->nkept] = true;
    ps->kept_cond[ps->nkept] = s->cond;
    ps->kept_cond[ps->nkept].negate = else_branch;
    ps->kept_cond[ps->nkept].up = NULL;
    ps->kept_depth[ps->nkept++] = ps->nparams;
    AXE_TRY(axe__parse_block(ps, out));
    ps->nkept--;
    return AXE_OK;
}

/* A device if on runtime scalars and kept loops' variables: an IF
 * statement with "kept" set, both branches parsed in place (its
 * condition, at offset "from", parsed into "cond"; the `)` is next). */
static axe_status parse_kept_if(ax_parser *ps, const ax_guard *cond,
                                size_t from, ax_stmt **out)
{
    ax_stmt *s = axe__arena_alloc(ps->p->arena, sizeof *s);
    if (s == NULL)
        return AXE_ERR_NO_MEMORY;
    s->kind = AX_ST_IF;
    s->off = (long)from;
    s->line = ps->tok.line;
    s->kept = true;
    s->cond = *cond;
    AXE_TRY(axe__expect(ps, ")", "')'"));
    ps->ndevblocks++;
    AXE_TRY(kept_branch(ps, s, false, &s->body));
    if (axe__tok_is(ps, "else")) {
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(kept_branch(ps, s, true, &s->else_body));
    }
    ps->ndevblocks--;
    *out = s;
    return AXE_OK;
}

/* 'if' '(' cond ')' block ['else' block] ('if' already read): a
 * constant condition folds it (the branch taken is the statement list,
 * the other one is dropped), one of runtime scalars and kept loops'
 * variables keeps it (parse_kept_if). */
static axe_status parse_devif(ax_parser *ps, ax_stmt **out)
{
    static const int64_t env[AX_MAX_VARS];
    ax_guard cond = {0};
    long off;
    bool taken;
    AXE_TRY(axe__expect(ps, "(", "'('"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_cond(ps, &cond));
    if (cond.lhs->kind != AX_EX_INT || cond.rhs->kind != AX_EX_INT) {
        const ax_expr *r = device_varying(cond.lhs);
        char what[AXE_KERNEL_NAME_MAX + 64];
        if (r == NULL)
            r = device_varying(cond.rhs);
        if (r == NULL)
            return parse_kept_if(ps, &cond, (size_t)off, out);
        axe__describe_read(ps->p, r, what, sizeof what);
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "device operators under an if on %s: every "
                         "device must take the same branch (the "
                         "condition may read params, -D values, runtime "
                         "scalars and the variables of loops around "
                         "device operators)",
                         what);
    }
    taken = axe__guard_holds(&cond, env);
    AXE_TRY(axe__expect(ps, ")", "')'"));
    ps->ndevblocks++;
    *out = NULL;
    if (taken)
        AXE_TRY(axe__parse_block(ps, out));
    else
        AXE_TRY(parse_dropped(ps));
    if (axe__tok_is(ps, "else")) {
        AXE_TRY(axe__lex_next(ps));
        if (taken)
            AXE_TRY(parse_dropped(ps));
        else
            AXE_TRY(axe__parse_block(ps, out));
    }
    ps->ndevblocks--;
    return AXE_OK;
}

axe_status axe__parse_devblock(ax_parser *ps, ax_stmt **out)
{
    bool is_for = axe__tok_is(ps, "for");
    *out = NULL;
    AXE_TRY(axe__lex_next(ps));
    return is_for ? parse_devfor(ps, out) : parse_devif(ps, out);
}
