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
 * k is the statements between device operators k - 1 and k. One walk
 * numbers them when parsing ends (axe__seg_number): the table says where
 * each run starts (a boundary and which of its lists, or the body), so
 * statements inserted later (synthesis's rearranging copies) leave it
 * true; the emitters and the reference take the numbers from it, and
 * walk the runs in that order through axe__seg_walk (the reference runs
 * them, the drivers print their launches: axe__seg_driver_put), leaving
 * out the runs of syncs alone or of nothing (axe__seg_runs), which
 * change no tensor.
 */
#include <string.h>

#include "compiler_internal.h"

bool axe__seg_boundary(const ax_stmt *s)
{
    return s->kind == AX_ST_DEVICE ||
           ((s->kind == AX_ST_FOR || s->kind == AX_ST_IF) && s->kept);
}

/* Run "*k" (then the next number in "*k") starts at boundary "from"
 * where "where" says; into g->run and the boundary's seg unless g->run is
 * NULL (the counting walk). */
static void add(ax_segs *g, ax_stmt *from, int where, int *k)
{
    if (g->run != NULL) {
        g->run[*k].from = from;
        g->run[*k].where = where;
        if (from != NULL)
            from->seg[where] = *k + 1;
    }
    ++*k;
}

/* The walk: the runs after the boundaries of list "s" and of the lists of
 * its kept blocks, in order from run "*k" on. */
static void walk(ax_segs *g, ax_stmt *s, int *k)
{
    for (; s != NULL; s = s->next) {
        if (!axe__seg_boundary(s))
            continue;
        if (s->kind != AX_ST_DEVICE) {
            add(g, s, 1, k);
            walk(g, s->body, k);
        }
        if (s->kind == AX_ST_IF && s->else_body != NULL) {
            add(g, s, 2, k);
            walk(g, s->else_body, k);
        }
        add(g, s, 0, k);
    }
}

axe_status axe__seg_number(axe_program *p)
{
    ax_segs g = {0, NULL};
    int k = 0;
    add(&g, NULL, 0, &k);
    walk(&g, p->body, &k);
    g.run = axe__arena_alloc(p->arena, sizeof *g.run * (size_t)k);
    if (g.run == NULL)
        return AXE_ERR_NO_MEMORY;
    g.n = k;
    k = 0;
    add(&g, NULL, 0, &k);
    walk(&g, p->body, &k);
    p->segs = g;
    return AXE_OK;
}

int axe__seg_count(const axe_program *p) { return p->segs.n; }

const ax_stmt *axe__seg_first(const axe_program *p, int k)
{
    const ax_seg *r;
    if (k < 0 || k >= p->segs.n) /* no such segment */
        return NULL;
    r = &p->segs.run[k];
    if (r->from == NULL)
        return p->body;
    if (r->where == 0)
        return r->from->next;
    return r->where == 1 ? r->from->body : r->from->else_body;
}

int axe__seg_after(const axe_program *p, const ax_stmt *b, int where)
{
    (void)p;
    if (b == NULL || where < 0 || where > 2)
        return -1;
    return b->seg[where] - 1;
}

const ax_stmt *axe__seg_from(const axe_program *p, int k, int *where)
{
    if (k < 0 || k >= p->segs.n) /* no such segment */
        return NULL;
    *where = p->segs.run[k].where;
    return p->segs.run[k].from;
}

bool axe__seg_runs(const axe_program *p, int k)
{
    const ax_stmt *s = axe__seg_first(p, k);
    for (; s != NULL && !axe__seg_boundary(s); s = s->next)
        if (s->kind != AX_ST_SYNC)
            return true;
    return false;
}

bool axe__seg_any_runs(const axe_program *p)
{
    int k;
    for (k = 0; k < p->segs.n; k++)
        if (axe__seg_runs(p, k))
            return true;
    return false;
}

axe_status axe__seg_walk(const ax_seg_visit *v, int k)
{
    const ax_stmt *s = axe__seg_first(v->p, k);
    AXE_TRY(v->segment(v, k));
    for (; s != NULL; s = s->next) {
        if (!axe__seg_boundary(s))
            continue;
        AXE_TRY(s->kind == AX_ST_DEVICE ? v->devop(v, s) : v->kept(v, s));
        AXE_TRY(v->segment(v, axe__seg_after(v->p, s, 0)));
    }
    return AXE_OK;
}

/* The driver's walk: the text it appends to (a kept block's branch
 * goes to a text of its own, indented into its block's); "unchecked": the
 * last thing printed is a launch, whose d->rc is still to come. */
typedef struct driver_walk {
    const ax_seg_driver *d;
    ax_text *t;
    bool unchecked;
} driver_walk;

/* Run "k" is launched only when it holds more than syncs. */
static axe_status driver_segment(const ax_seg_visit *v, int k)
{
    driver_walk *w = v->user;
    if (!axe__seg_runs(v->p, k))
        return AXE_OK;
    w->d->launch(w->t, v->p, k);
    w->unchecked = true;
    return AXE_OK;
}

static axe_status driver_devop(const ax_seg_visit *v, const ax_stmt *s)
{
    driver_walk *w = v->user;
    if (w->unchecked && w->d->devop_launched != NULL)
        w->d->devop_launched(w->t, v->p, s);
    else
        w->d->devop(w->t, v->p, s);
    w->unchecked = false;
    return AXE_OK;
}

/* d->rc after a launch, once. */
static void driver_check(driver_walk *w)
{
    if (w->unchecked)
        axe__text_put(w->t, "%s", w->d->rc);
    w->unchecked = false;
}

/* The branch of a kept block whose first segment is "k", indented, then
 * d->rc when it ends with a launch. */
static void driver_branch(const ax_seg_visit *v, int k)
{
    driver_walk *w = v->user;
    ax_text *outer = w->t, b;
    axe__text_init(&b, v->p->arena);
    w->t = &b;
    (void)axe__seg_walk(v, k); /* its hooks cannot fail */
    driver_check(w);
    w->t = outer;
    axe__text_put_indented(outer, &b);
}

/* Kept block "s": a loop over the file-scope v_NAME (the segments read
 * it) or an if on its condition (of the runtime scalars and the kept
 * loops' variables) around its branches. */
static axe_status driver_kept(const ax_seg_visit *v, const ax_stmt *s)
{
    driver_walk *w = v->user;
    driver_check(w);
    axe__text_put(w->t, "    ");
    if (s->kind == AX_ST_FOR) {
        const char *var = v->p->vars[s->var];
        axe__text_put(w->t, "for (v_%s = 0; v_%s < ", var, var);
        axe__expr_print_c(w->t, v->p, s->dtrip);
        axe__text_put(w->t, "; ++v_%s) { /* kept device loop */\n", var);
    } else {
        axe__text_put(w->t, "if (");
        axe__cond_print_c(w->t, v->p, &s->cond);
        axe__text_put(w->t, ") { /* kept device if */\n");
    }
    driver_branch(v, axe__seg_after(v->p, s, 1));
    if (s->kind == AX_ST_IF && s->else_body != NULL) {
        axe__text_put(w->t, "    } else {\n");
        driver_branch(v, axe__seg_after(v->p, s, 2));
    }
    axe__text_put(w->t, "    }\n");
    return AXE_OK;
}

void axe__seg_driver_put(ax_text *t, const axe_program *p,
                         const ax_seg_driver *d)
{
    driver_walk w = {d, t, false};
    ax_seg_visit v = {p, &w, driver_segment, driver_devop, driver_kept};
    (void)axe__seg_walk(&v, 0); /* its hooks cannot fail */
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

void axe__kept_vars_put(ax_text *t, const axe_program *p, const char *head,
                        const char *before, const char *after)
{
    int vars[AX_MAX_VARS], i, n = axe__kept_vars(p, vars);
    for (i = 0; i < n; i++)
        axe__text_put(t, "%s%sv_%s%s", i == 0 ? head : "", before,
                      p->vars[vars[i]], after);
}
