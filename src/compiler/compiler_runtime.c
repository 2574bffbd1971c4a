/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime scalars (`M: i32` kernel parameters): the values a launch gives
 * them (axe_program_bind), and what depends on them: the runtime extents
 * of global tensors (dimension 0), grid sizes and trip counts. Each such
 * expression reads scalars only and must lie in [0, its nominal value]
 * at launch (the nominal value is its largest over every i32 value of
 * the scalars, capped by the language's limits; sema proved every
 * layout, span and address with it). Invariant: when "p->bound", every
 * runtime expression evaluated at p->scalar_value lies in that range.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

#include <math.h>

/* Append "e" (NULL: nothing) with its nominal value; "what" is filled
 * by the caller through the returned buffer. */
static char *add(ax_dyn_list *l, const ax_expr *e, int64_t nominal)
{
    static char sink[80];
    if (e == NULL || l->n == AX_MAX_DYN)
        return sink;
    l->expr[l->n] = e;
    l->nominal[l->n] = nominal;
    return l->what[l->n++];
}

static void add_loops(const axe_program *p, const ax_stmt *s, ax_dyn_list *l)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_FOR && s->dtrip != NULL)
            snprintf(add(l, s->dtrip, s->trip), sizeof l->what[0],
                     "the trip count of loop '%s'", p->vars[s->var]);
        add_loops(p, s->body, l);
        add_loops(p, s->else_body, l);
    }
}

/* Every runtime expression of "p" with its nominal value and a name. */
void axe__dyn_list(const axe_program *p, ax_dyn_list *out)
{
    int i;
    out->n = 0;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].dyn_extent != NULL)
            snprintf(add(out, p->tensors[i].dyn_extent, p->tensors[i].shape[0]),
                     sizeof out->what[0], "the extent of '%s' (dimension 0)",
                     p->tensors[i].name);
    for (i = 0; i < 3; i++)
        if (p->dgrid[i] != NULL)
            snprintf(add(out, p->dgrid[i], p->grid[i]), sizeof out->what[0],
                     "grid dimension %d", i);
    add_loops(p, p->body, out);
}

/* The environment of the bound scalars (other variables 0). */
static void scalar_env(const axe_program *p, const int64_t *values,
                       int64_t *env)
{
    int i;
    memset(env, 0, sizeof(int64_t) * AX_MAX_VARS);
    for (i = 0; i < p->nscalars; i++)
        env[p->scalar_var[i]] = values[i];
}

int64_t axe__dyn_value(const axe_program *p, const ax_expr *e, int64_t v)
{
    int64_t env[AX_MAX_VARS];
    if (e == NULL)
        return v;
    scalar_env(p, p->scalar_value, env);
    return axe__expr_eval(e, env);
}

int64_t axe__grid_at(const axe_program *p, int d)
{
    return axe__dyn_value(p, p->dgrid[d], p->grid[d]);
}

/* Elements of parameter "t" at the bound scalars (row-major when its
 * extent is a runtime one). */
int64_t axe__span_at(const axe_program *p, const ax_tensor *t)
{
    int64_t inner = 1;
    int d;
    if (t->dyn_extent == NULL)
        return t->span;
    for (d = 1; d < t->ndim; d++)
        inner *= t->shape[d];
    return p->bound ? axe__dyn_value(p, t->dyn_extent, 0) * inner : 0;
}

/* Scalar "i" from "iv" (when "fv" is NULL) or "fv": an i32 (a double
 * must be an integer in range) into iout, or a float rounded to the
 * scalar's dtype, finite before and after, into fout. */
static axe_status check_value(const axe_program *p, int i, const int64_t *iv,
                              const double *fv, int64_t *iout, double *fout,
                              axe_diag *diag)
{
    double x = fv != NULL ? fv[i] : (double)iv[i];
    *iout = 0;
    *fout = 0;
    if (p->scalar_dtype[i] != AXE_DTYPE_I32) {
        *fout = axe__mask_fill(p->scalar_dtype[i], x);
        if (!(*fout - *fout == 0))
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "runtime scalar '%s' = %g is not a finite %s",
                             p->scalar_name[i], x,
                             axe_dtype_name(p->scalar_dtype[i]));
        return AXE_OK;
    }
    if (fv != NULL && !(fabs(x) < 0x1p62 && x == floor(x)))
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "runtime scalar '%s' = %g is not an i32",
                         p->scalar_name[i], x);
    *iout = fv != NULL ? (int64_t)x : iv[i];
    if (*iout < INT32_MIN || *iout > INT32_MAX)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "runtime scalar '%s' = %lld is outside the range "
                         "of i32",
                         p->scalar_name[i], (long long)*iout);
    return AXE_OK;
}

/* A tensor of runtime extent holds at most 2^37 elements, as sema asks
 * of the others (its extent is in range already: no overflow). */
static axe_status check_span(const ax_tensor *t, const int64_t *env,
                             axe_diag *diag)
{
    int64_t n;
    int d;
    if (t->dyn_extent == NULL)
        return AXE_OK;
    n = axe__expr_eval(t->dyn_extent, env);
    for (d = 1; d < t->ndim; d++)
        n *= t->shape[d];
    if (n > ((int64_t)1 << 40) / 8)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "tensor '%s' needs %lld elements at launch: too "
                         "large",
                         t->name, (long long)n);
    return AXE_OK;
}

/* Give the runtime scalars the values "iv" or "fv" (declaration order)
 * after checking them (include/axe/kernel.h). */
static axe_status bind(axe_program *p, const int64_t *iv, const double *fv,
                       axe_diag *diag)
{
    ax_dyn_list l;
    int64_t env[AX_MAX_VARS], vals[AX_MAX_SCALARS], v;
    double fvals[AX_MAX_SCALARS];
    char text[64];
    int i;
    if (p->nscalars > 0 && iv == NULL && fv == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "no values given");
    for (i = 0; i < p->nscalars; i++)
        AXE_TRY(check_value(p, i, iv, fv, &vals[i], &fvals[i], diag));
    scalar_env(p, vals, env);
    axe__dyn_list(p, &l);
    for (i = 0; i < l.n; i++) {
        v = axe__expr_eval(l.expr[i], env);
        if (v >= 0 && v <= l.nominal[i])
            continue;
        if (axe__expr_text(p, l.expr[i], text, sizeof text, 0) >= sizeof text)
            strcpy(text + sizeof text - 4, "...");
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "%s, %s, is %lld at launch: outside [0, %lld]",
                         l.what[i], text, (long long)v,
                         (long long)l.nominal[i]);
    }
    for (i = 0; i < p->ntensors; i++)
        AXE_TRY(check_span(&p->tensors[i], env, diag));
    for (i = 0; i < p->nscalars; i++) {
        p->scalar_value[i] = vals[i];
        p->scalar_fvalue[i] = fvals[i];
    }
    p->bound = true;
    return AXE_OK;
}

axe_status axe_program_bind(axe_program *p, const int64_t *values,
                            axe_diag *diag)
{
    return bind(p, values, NULL, diag);
}

axe_status axe_program_bind_f(axe_program *p, const double *values,
                              axe_diag *diag)
{
    return bind(p, NULL, values, diag);
}

/* The runtime scalars: their number and each one's name and dtype. */
int axe_program_scalar_count(const axe_program *p) { return p->nscalars; }

axe_kernel_scalar axe_program_scalar(const axe_program *p, int i)
{
    axe_kernel_scalar k;
    memset(&k, 0, sizeof k);
    memcpy(k.name, p->scalar_name[i], sizeof k.name);
    k.dtype = p->scalar_dtype[i];
    return k;
}
