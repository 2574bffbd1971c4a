/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The segments of a mesh program (docs/compiler.md, "Kept loops and
 * ifs"): the runs of statements between two boundaries of one statement
 * list, the boundaries being the device operators and the kept device
 * blocks (a loop around device operators with a runtime trip count, an
 * if around them on a runtime condition). A list with b boundaries has
 * b + 1 runs (some possibly empty); they are numbered in the order a walk
 * of the kernel body meets them: a kept loop's runs (its body's), a kept
 * if's (its body's, then its else branch's when it has one) come after
 * the run before it and before the run after it. Without kept blocks run
 * k is the statements between device operators k - 1 and k.
 */
#include <string.h>

#include "compiler_internal.h"

bool axe__seg_boundary(const ax_stmt *s)
{
    return s->kind == AX_ST_DEVICE ||
           ((s->kind == AX_ST_FOR || s->kind == AX_ST_IF) && s->kept);
}

/* The walk: list "s" from run "*k" on, stopping where "at" says so. A
 * stop is at boundary "b": its first run (where 1: of its body, 2: of its
 * else branch) or the run after it (where 0); or at run number "want"
 * (b NULL; its first statement into "*first", NULL for an empty run at
 * the end of a list). */
typedef struct seg_walk {
    const ax_stmt *b;
    int where, want, k;
    const ax_stmt *first;
} seg_walk;

static bool walk(const ax_stmt *s, seg_walk *w);

/* The lists of kept block "s" (its else branch's only when it has one). */
static bool walk_block(const ax_stmt *s, seg_walk *w)
{
    if (s == w->b && w->where == 1)
        return true;
    if (walk(s->body, w))
        return true;
    if (s->kind != AX_ST_IF || s->else_body == NULL)
        return false;
    if (s == w->b && w->where == 2)
        return true;
    return walk(s->else_body, w);
}

static bool walk(const ax_stmt *s, seg_walk *w)
{
    if (w->b == NULL && w->k == w->want) {
        w->first = s;
        return true;
    }
    w->k++;
    for (; s != NULL; s = s->next) {
        if (!axe__seg_boundary(s))
            continue;
        if (s->kind != AX_ST_DEVICE && walk_block(s, w))
            return true;
        if (s == w->b && w->where == 0)
            return true;
        if (w->b == NULL && w->k == w->want) {
            w->first = s->next;
            return true;
        }
        w->k++;
    }
    return false;
}

int axe__seg_count(const axe_program *p)
{
    seg_walk w = {NULL, 0, -1, 0, NULL};
    walk(p->body, &w);
    return w.k;
}

const ax_stmt *axe__seg_first(const axe_program *p, int k)
{
    seg_walk w = {NULL, 0, k, 0, NULL};
    walk(p->body, &w);
    return w.first;
}

int axe__seg_after(const axe_program *p, const ax_stmt *b, int where)
{
    seg_walk w = {b, where, -1, 0, NULL};
    return walk(p->body, &w) ? w.k : -1;
}

static void add_kept(const axe_program *p, const ax_stmt *s, int *vars, int *n)
{
    int i;
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_DEVICE || !axe__seg_boundary(s))
            continue;
        for (i = 0; s->kind == AX_ST_FOR && i < *n &&
                    strcmp(p->vars[vars[i]], p->vars[s->var]) != 0;
             i++)
            ;
        if (s->kind == AX_ST_FOR && i == *n && *n < AX_MAX_VARS)
            vars[(*n)++] = s->var;
        add_kept(p, s->body, vars, n);
        add_kept(p, s->else_body, vars, n);
    }
}

int axe__kept_vars(const axe_program *p, int *vars)
{
    int n = 0;
    add_kept(p, p->body, vars, &n);
    return n;
}
