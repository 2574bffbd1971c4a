/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The distributed part of the kernel language's grammar (docs/compiler.md,
 * "Distributed tensors"): the mesh declaration before `kernel` and the
 * device-scope operators, whose operands are tensors or regions with
 * constant starts or starts on kept loops' variables
 * (compiler_parse_devvar.c; the loops and ifs around them:
 * compiler_parse_devblock.c). Layouts
 * with gpuid iters are parsed as any layout (compiler_parse.c); sema
 * checks them against the mesh (compiler_sema_dist.c).
 */
#include <string.h>

#include "compiler_parse.h"

/* Whether the tokens from "ps" on read NAME '=' (a named mesh axis; an
 * unnamed extent may be a param's name). */
static bool at_named_axis(const ax_parser *ps)
{
    ax_parser look = *ps;
    return look.tok.kind == AX_TOK_IDENT && axe__lex_next(&look) == AXE_OK &&
           axe__tok_is(&look, "=");
}

/* One mesh axis: [NAME '='] extent, named or not as the first one was. */
static axe_status parse_mesh_axis(ax_parser *ps, int k)
{
    axe_program *p = ps->p;
    long off = (long)ps->tok.pos;
    bool named = at_named_axis(ps);
    int i;
    if (k > 0 && named != (p->mesh_name[0][0] != '\0'))
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "mesh axes are all named (mesh(x = 2, y = 4)) or "
                         "all unnamed (mesh(2, 4)), not mixed");
    if (named) {
        AXE_TRY(axe__parse_user_name(ps, p->mesh_name[k], "a mesh axis name"));
        for (i = 0; i < k; i++)
            if (strcmp(p->mesh_name[i], p->mesh_name[k]) == 0)
                return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                                 "mesh axis '%s' is named twice",
                                 p->mesh_name[k]);
        AXE_TRY(axe__expect(ps, "=", "'='"));
        off = (long)ps->tok.pos;
    }
    AXE_TRY(axe__parse_const(ps, &p->mesh_extent[k], "a mesh extent"));
    if (p->mesh_extent[k] <= 0 || p->mesh_extent[k] > AX_MAX_DEVICES)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "mesh extent %lld is not in [1, %d]",
                         (long long)p->mesh_extent[k], AX_MAX_DEVICES);
    return AXE_OK;
}

/* mesh := 'mesh' '(' axis {',' axis} ')' ';' ('mesh' already read at
 * "off"): the devices are numbered row-major over the axes. */
axe_status axe__parse_mesh(ax_parser *ps, long off)
{
    axe_program *p = ps->p;
    p->mesh_off = off;
    p->ndev = 1;
    AXE_TRY(axe__expect(ps, "(", "'(' and the mesh's extents"));
    do {
        if (p->nmesh == AX_MAX_MESH_AXES)
            return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                             "a mesh has at most %d axes", AX_MAX_MESH_AXES);
        AXE_TRY(parse_mesh_axis(ps, p->nmesh));
        p->ndev *= p->mesh_extent[p->nmesh++];
        if (p->ndev > AX_MAX_DEVICES)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "the mesh has more than %d devices",
                             AX_MAX_DEVICES);
    } while (axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    AXE_TRY(axe__expect(ps, ")", "',' or ')'"));
    AXE_TRY(axe__expect(ps, ";", "';'"));
    if (axe__tok_is(ps, "mesh"))
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "a program declares one mesh");
    return AXE_OK;
}

/* A region of operand "r" (of tensor "name"): every start folded to a
 * constant or to an expression of kept device loops' variables (one plan
 * per value: compiler_parse_devvar.c); no mask, no broadcast. */
static axe_status check_region(ax_parser *ps, ax_ref *r, const char *name)
{
    char what[AXE_KERNEL_NAME_MAX + 64];
    int d;
    if (r->any_masked || r->bdim >= 0)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, r->off,
                         "device operators take whole distributed tensors "
                         "or regions of them: '%s' is %s",
                         name, r->bdim >= 0 ? "broadcast" : "masked");
    for (d = 0; d < r->ndim; d++) {
        long off = r->start[d]->off;
        AXE_TRY(
            axe__expr_fold(ps->p->arena, r->start[d], &r->start[d], ps->diag));
        if (r->start[d]->kind == AX_EX_INT ||
            axe__start_kept_only(ps->p, r->start[d]))
            continue;
        axe__describe_read(ps->p, r->start[d], what, sizeof what);
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "the start of dim %d of the region of '%s' reads "
                         "%s: a region start of a device operator is a "
                         "constant (params, -D values, unrolled loops' "
                         "variables) or reads kept device loops' variables "
                         "only (one exchange plan per value)",
                         d, name, what);
    }
    return AXE_OK;
}

/* A device operator's operand: a tensor, whole or a region with constant
 * starts (sema checks it against the tensor, compiler_sema_dist.c). */
static axe_status parse_operand(ax_parser *ps, ax_ref *r)
{
    const char *name;
    AXE_TRY(axe__parse_ref(ps, r));
    name = ps->p->tensors[r->tensor].name;
    if (r->is_view)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, r->off,
                         "device operators take whole distributed tensors "
                         "or regions of them, not views: write '%s' or a "
                         "region '%s[start:end, ...]'",
                         name, name);
    return check_region(ps, r, name);
}

/* reduce's tail: ',' (sum | max | min) ',' dim. */
static axe_status parse_devreduce_tail(ax_parser *ps, ax_stmt *s)
{
    static const ax_red kinds[] = {AX_RED_SUM, AX_RED_MAX, AX_RED_MIN};
    long off;
    int64_t k;
    int i;
    AXE_TRY(axe__expect(ps, ",", "',' and sum, max or min"));
    for (i = 0; i < 3 && !axe__tok_is(ps, axe__red_name(kinds[i])); i++)
        ;
    if (i == 3)
        return axe__syntax(ps, "sum, max or min (a device reduce)");
    s->rkind = kinds[i];
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(axe__expect(ps, ",", "',' and the reduced dimension"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_const(ps, &k, "the reduced dimension"));
    if (k < 0 || k >= AX_MAX_DIMS)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "dimension %lld outside [0, %d)", (long long)k,
                         AX_MAX_DIMS);
    s->rdim = (int)k;
    return AXE_OK;
}

/* gemm's schedule: 'chunks' '(' N ')', 1 <= N <= AX_MAX_GEMM_CHUNKS
 * ('chunks' not yet read). */
static axe_status parse_chunks(ax_parser *ps, ax_stmt *s)
{
    int64_t n;
    long off;
    s->chunks_off = (long)ps->tok.pos;
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(axe__expect(ps, "(", "'(' and the number of chunks"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_const(ps, &n, "the number of chunks"));
    if (n < 1 || n > AX_MAX_GEMM_CHUNKS)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "chunks(%lld): the number of chunks is in [1, %d]",
                         (long long)n, AX_MAX_GEMM_CHUNKS);
    s->chunks = (int)n;
    return axe__expect(ps, ")", "')'");
}

/* 'device' ('copy' '(' dst ',' src ')' | 'reduce' '(' dst ',' src ','
 * red ',' dim ')' | 'gemm' '(' C ',' A ',' B ')' ['chunks' '(' N ')'])
 * ';' ('device' already read): at the top level of the kernel body or
 * in device blocks (compiler_parse_devblock.c), which leave it there. */
axe_status axe__parse_devop(ax_parser *ps, ax_stmt *s)
{
    axe_program *p = ps->p;
    if (p->ndevops == AX_MAX_DEVOPS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, s->off,
                         "more than %d device operators (counted after "
                         "unrolling the loops around them)",
                         AX_MAX_DEVOPS);
    s->kind = AX_ST_DEVICE;
    s->line = ps->tok.line;
    s->seq = p->nops + p->ndevops;
    AXE_TRY(axe__unroll_note(ps, &s->iter));
    if (axe__tok_is(ps, "copy"))
        s->op = AX_OP_COPY;
    else if (axe__tok_is(ps, "reduce"))
        s->op = AX_OP_REDUCE;
    else if (axe__tok_is(ps, "gemm"))
        s->op = AX_OP_GEMM;
    else
        return axe__syntax(ps, "a device operator (copy, reduce or gemm)");
    s->index = p->ndevops++;
    s->nargs = s->op == AX_OP_GEMM ? 3 : 2;
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    AXE_TRY(parse_operand(ps, &s->args[0]));
    AXE_TRY(axe__expect(ps, ",", "','"));
    AXE_TRY(parse_operand(ps, &s->args[1]));
    if (s->op == AX_OP_GEMM) {
        AXE_TRY(axe__expect(ps, ",", "',' and B"));
        AXE_TRY(parse_operand(ps, &s->args[2]));
    }
    if (s->op == AX_OP_REDUCE)
        AXE_TRY(parse_devreduce_tail(ps, s));
    AXE_TRY(axe__expect(ps, ")", "')'"));
    if (s->op == AX_OP_GEMM && axe__tok_is(ps, "chunks"))
        AXE_TRY(parse_chunks(ps, s));
    return axe__expect(ps, ";", "';'");
}
