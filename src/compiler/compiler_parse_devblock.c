/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device blocks (docs/compiler.md, "Device operators in loops and ifs"):
 * a `for` or `if` whose body holds a device operator. Every device takes
 * part in each device operator, so every device must run the same ones:
 * the parser unrolls such a loop (a constant trip count; its body parsed
 * once per value of the variable, which is then a param) and folds such
 * an if (a condition of params and those variables: the branch taken is
 * parsed in place, the other is parsed and dropped). The statements of
 * the kernel body are then a flat list whose device operators are all at
 * the top level, which every later pass (sema, the reference, the
 * backends, the race detector, the entry check) already handles.
 * Runtime trip counts and conditions are refused with the scalar's name.
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
    int i;
    *out = NULL;
    axe__text_init(&t, ps->p->arena);
    for (i = 0; i < ps->nparams; i++)
        if (ps->param_loop[i])
            axe__text_put(&t, "%s%s = %lld", t.len > 0 ? ", " : "",
                          ps->param_name[i], (long long)ps->param_value[i]);
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
    e = first_read(e) != NULL ? first_read(e) : e;
    if (e->kind != AX_EX_LOAD && e->kind != AX_EX_VAR)
        snprintf(buf, cap, "a value that is no constant");
    else if (e->kind == AX_EX_LOAD)
        snprintf(buf, cap, "an element of tensor '%s'",
                 p->tensors[e->load->tensor].name);
    else if (e->var < AX_VAR_NBUILTIN)
        snprintf(buf, cap, "the block/thread id '%s'", p->vars[e->var]);
    else if (p->var_scalar[e->var] != 0)
        snprintf(buf, cap, "the runtime scalar '%s'", p->vars[e->var]);
    else
        snprintf(buf, cap, "the loop variable '%s'", p->vars[e->var]);
}

/* 'for' NAME 'in' 'range' '(' trip ')' block, the trip a constant; the
 * body parsed once per value with NAME a param ('for' already read). */
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
    if (dtrip != NULL) {
        char what[96];
        axe__describe_read(p, first_read(dtrip), what, sizeof what);
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "a loop around device operators is unrolled at "
                         "compile time: its trip count is a constant "
                         "(params, -D), but this one reads %s (runtime "
                         "trips are not supported there yet)",
                         what);
    }
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

/* 'if' '(' cond ')' block ['else' block], the condition a constant: the
 * branch taken is the statement list, the other one is dropped ('if'
 * already read). */
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
        const ax_expr *r = first_read(cond.lhs);
        char what[96];
        if (r == NULL)
            r = first_read(cond.rhs);
        if (r == NULL)
            return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                             "an if around device operators is decided at "
                             "compile time: its condition is no constant");
        axe__describe_read(ps->p, r, what, sizeof what);
        if (r->kind == AX_EX_VAR && r->var < AX_VAR_NBUILTIN)
            return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                             "device operators under an if on %s: every "
                             "device must take the same branch (the "
                             "condition may read params, -D values and "
                             "the variables of loops around device "
                             "operators)",
                             what);
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "device operators under an if on %s: such an if "
                         "is decided at compile time (params, -D values, "
                         "variables of loops around device operators); "
                         "runtime conditions are not supported there yet",
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
