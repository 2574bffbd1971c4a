/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-dependent region starts in the generated C: a start that reads an
 * element of an integer tensor (`Emb[ids[t] : +1, 0 : +D]`) is checked
 * at run time before the operator runs. Each such dimension's start s
 * must satisfy 0 <= s <= extent - length; otherwise the operator is
 * skipped for that thread (no access out of bounds happens), the first
 * failure's message is kept in `ax_error` and `k_NAME_error()` returns
 * it (the harness prints it and exits 1). The element itself is read
 * through its tensor's layout at coordinates that sema proved in bounds.
 * Invariant: only programs with data-dependent starts get ax_error.
 */
#include <string.h>

#include "compiler_backend.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* The buffer offset of coordinates "r->start" in tensor r->tensor: per
 * dimension the memory iters of its grouped layout, `(c / lo % e) * s`,
 * or `c * s` for a dimension of one such iter. */
static void load_addr(ax_text *t, const axe_program *p, const ax_ref *r)
{
    const ax_tensor *tn = &p->tensors[r->tensor];
    int64_t off = 0, lo;
    int d, j, o, n;
    for (o = 0; o < tn->layout.noffset; o++)
        off += tn->layout.offset[o].value;
    axe__text_put(t, "%lldL", (long long)off);
    for (d = 0; d < tn->ndim; d++) {
        for (n = 0, j = tn->seps[d]; j < tn->seps[d + 1]; j++)
            n += tn->grouped.shard[j].extent > 1;
        for (lo = 1, j = tn->seps[d + 1] - 1; j >= tn->seps[d]; j--) {
            const axe_iter *it = &tn->grouped.shard[j];
            if (it->extent == 1)
                continue;
            axe__text_put(t, " + (");
            axe__expr_print_c(t, p, r->start[d]);
            if (n > 1)
                axe__text_put(t, ") / %lldL %% %lldL * %lldL", (long long)lo,
                              (long long)it->extent, (long long)it->stride);
            else
                axe__text_put(t, ") * %lldL", (long long)it->stride);
            lo *= it->extent;
        }
    }
}

/* The element `T[i, ...]` as a C expression of type long. */
void axe__emit_load(ax_text *t, const axe_program *p, const ax_ref *r)
{
    const ax_tensor *tn = &p->tensors[r->tensor];
    axe__text_put(t, "(long)%s%s[", tn->cname,
                  tn->mem == AX_MEM_REGISTER ? axe__backend_of(p)->reg_index
                                             : "");
    load_addr(t, p, r);
    axe__text_put(t, "]");
}

static bool block_has_loads(const ax_stmt *s)
{
    int i, d, n;
    for (; s != NULL; s = s->next) {
        for (i = 0; s->kind == AX_ST_OP && i < s->nargs; i++)
            for (d = 0; d < s->args[i].ndim; d++)
                if (axe__expr_load(s->args[i].start[d], &n) != NULL)
                    return true;
        if (block_has_loads(s->body) || block_has_loads(s->else_body))
            return true;
    }
    return false;
}

/* The helper of the checks (a function, so that an i8 element compared
 * with its own range draws no -Wtype-limits warning). */
void axe__emit_check_helpers(ax_text *t, const axe_program *p)
{
    if (!axe__program_has_loads(p))
        return;
    axe__text_put(t,
                  "/* The first data-dependent start out of bounds "
                  "(k_%s_error) */\nstatic char ax_error[256];\n\n"
                  "/* Whether a start s lies outside [0, hi]. */\n"
                  "static int ax_outside(long s, long hi)\n{\n"
                  "    return s < 0 || s > hi;\n}\n\n",
                  p->name);
}

/* Whether some region start of "p" reads a tensor element. */
bool axe__program_has_loads(const axe_program *p)
{
    return block_has_loads(p->body);
}

/* The extent of dimension "d" of "tn" as C. */
static void extent_c(ax_text *t, const axe_program *p, const ax_tensor *tn,
                     int d)
{
    if (d == 0 && tn->dyn_extent != NULL) {
        axe__text_put(t, "(long)");
        axe__expr_print_c(t, p, tn->dyn_extent);
    } else {
        axe__text_put(t, "%lldL", (long long)tn->shape[d]);
    }
}

void axe__emit_start_format(ax_text *t, const axe_program *p, const ax_stmt *s,
                            const ax_ref *r, int d, const ax_expr *ld)
{
    int k;
    axe__text_put(t,
                  "\"region of '%s' out of bounds at run time (line %d): "
                  "dimension %d starts at %%ld with length %lld but the "
                  "extent is %%ld; the start reads %s[",
                  p->tensors[r->tensor].name, s->line, d, (long long)r->len[d],
                  p->tensors[ld->load->tensor].name);
    for (k = 0; k < ld->load->ndim; k++)
        axe__text_put(t, "%s%%ld", k ? ", " : "");
    axe__text_put(t, "] = %%ld\"");
}

void axe__emit_start_values(ax_text *t, const axe_program *p, const ax_ref *r,
                            int d, const ax_expr *ld)
{
    int k;
    axe__expr_print_c(t, p, r->start[d]);
    axe__text_put(t, ", ");
    extent_c(t, p, &p->tensors[r->tensor], d);
    for (k = 0; k < ld->load->ndim; k++) {
        axe__text_put(t, ", (long)");
        axe__expr_print_c(t, p, ld->load->start[k]);
    }
    axe__text_put(t, ", ");
    axe__emit_load(t, p, ld->load);
}

/* `if (s < 0 || s > extent - len) { message } else ` for dimension "d"
 * of operand "r" whose start reads "ld". */
static void check_dim(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const ax_ref *r, int d, const ax_expr *ld, int ind)
{
    axe__text_put(t, "if (ax_outside(");
    axe__expr_print_c(t, p, r->start[d]);
    axe__text_put(t, ", ");
    extent_c(t, p, &p->tensors[r->tensor], d);
    axe__text_put(t, " - %lldL)) {\n", (long long)r->len[d]);
    if (axe__backend_of(p)->start_error != NULL) {
        axe__backend_of(p)->start_error(t, p, s, r, d, ld, ind + 1);
        indent_put(t, ind);
        axe__text_put(t, "} else ");
        return;
    }
    indent_put(t, ind + 1);
    axe__text_put(t, "if (ax_error[0] == '\\0')\n");
    indent_put(t, ind + 2);
    axe__text_put(t, "snprintf(ax_error, sizeof ax_error, ");
    axe__emit_start_format(t, p, s, r, d, ld);
    axe__text_put(t, ", ");
    axe__emit_start_values(t, p, r, d, ld);
    axe__text_put(t, ");\n");
    indent_put(t, ind);
    axe__text_put(t, "} else ");
}

/* The run-time checks of operator "s"'s data-dependent starts, as an
 * `if (...) { ... } else ` chain before the operator's block; answers
 * whether it printed one (the caller's block is then its last branch). */
bool axe__emit_start_checks(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind)
{
    bool any = false;
    int i, d, n;
    for (i = 0; i < s->nargs; i++)
        for (d = 0; d < s->args[i].ndim; d++) {
            const ax_expr *ld = axe__expr_load(s->args[i].start[d], &n);
            if (ld == NULL || s->args[i].masked[d]) /* masked: guarded */
                continue;
            if (!any)
                indent_put(t, ind);
            check_dim(t, p, s, &s->args[i], d, ld, ind);
            any = true;
        }
    if (any)
        axe__text_put(t, "{\n");
    return any;
}
