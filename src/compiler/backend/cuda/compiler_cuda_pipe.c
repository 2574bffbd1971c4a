/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multi-stage cp.async pipelines across the iterations of a `for` (the
 * CUDA backend). A kernel declares S stages of a shared tensor X by
 * addressing it at (k % S) * P in every operator of the loop over k: a
 * view offset (`Xs.view(L + k % S * P)`) or a region start (`Xs[k % S *
 * R : +R, ...]`). The loop is pipelined when the program proves it legal:
 *   - its body has asynchronous copies (compiler_emit_cuda_copy.c) into
 *     stage k % S of each such X, consecutive statements of the body
 *     ("producers"), the same S (2 to 8) for all, each source a global
 *     tensor no operator of the kernel writes;
 *   - every other access to X in the kernel is a read, by an operator of
 *     the body itself (not nested in an `if` or `for`), of stage k % S
 *     ("consumers"), after the producers;
 *   - every access (producers' and consumers', every thread of the
 *     scope) addresses X at the producers' P (one P per tensor) and lies
 *     in [0, P) of its stage, so the S stages are disjoint;
 *     through a swizzle (the tensor's or its view's) the stages stay
 *     disjoint in storage when every access goes through the same one
 *     (a bijection), or when P is a multiple of 2^n, n the bit below
 *     which the swizzle changes addresses (M + B, outer M + S + B): it
 *     maps each stage onto itself (axe__swizzle_bits);
 *   - a `sync` lies between the producers and the first consumer, and
 *     another after the last consumer (the stage that iteration k + S - 1
 *     writes is last read in iteration k - 1 before that barrier).
 * It is then emitted as: a prologue before the loop issuing tiles 0 ..
 * S - 2 (each guarded by the trip count, one commit_group each); in
 * iteration k the producers issue tile k + S - 1 (guarded: the loop
 * variable rebound to k + S - 1 around the producers' code), one
 * commit_group (empty past the end, so that the count stays uniform),
 * `cp.async.wait_group S - 1` before the first `sync` after them (every
 * group but the S - 1 most recent, tile k's included, is complete), the
 * barrier, the consumers; `cp.async.wait_group 0` after the loop. When a
 * condition fails the loop keeps one group per copy and wait_group 0,
 * and --explain names the first condition that failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* "e" as (k % S) * P (or k % S, P = 1) over loop variable "v". */
static bool stage_term(const ax_expr *e, int v, int64_t *S, int64_t *P)
{
    const ax_expr *m = e;
    *P = 1;
    if (e->kind == AX_EX_MUL) {
        if (e->b->kind == AX_EX_INT) {
            m = e->a;
            *P = e->b->value;
        } else if (e->a->kind == AX_EX_INT) {
            m = e->b;
            *P = e->a->value;
        } else {
            return false;
        }
    }
    if (m->kind != AX_EX_MOD || m->a->kind != AX_EX_VAR || m->a->var != v ||
        m->b->kind != AX_EX_INT)
        return false;
    *S = m->b->value;
    return *P > 0;
}

/* Operand "i" of "s" addresses its tensor at (k % S) * P plus a constant
 * footprint [lo, hi] over every thread of the scope: true with S, P. */
static bool staged_ref(const axe_program *p, const ax_stmt *s, int i, int v,
                       int64_t *S, int64_t *P, int64_t *lo, int64_t *hi)
{
    const ax_plan *pl = s->plan;
    ax_base b;
    int k;
    if (pl == NULL || !pl->affine[i])
        return false;

    axe__plan_base(p, &s->args[i], &b);
    if (b.ndyn != 1 || !stage_term(b.dyn[0], v, S, P))
        return false;
    *P *= b.scale[0];
    *lo = *hi = b.cst;
    for (k = 0; k < pl->nloops; k++) {
        int64_t d = (pl->loops[k].extent - 1) * pl->loops[k].stride[i];
        *(d < 0 ? lo : hi) += d;
    }
    return true;
}

/* Accesses to tensor "x" by statement "s" and those nested in it. */
static int refs_in(const ax_stmt *s, int x);

static int refs_expr(const ax_expr *e, int x)
{
    if (e == NULL)
        return 0;
    if (e->kind == AX_EX_LOAD) {
        int n = e->load->tensor == x, d;
        for (d = 0; d < e->load->ndim; d++)
            n += refs_expr(e->load->start[d], x);
        return n;
    }
    return refs_expr(e->a, x) + refs_expr(e->b, x);
}

static int refs_list(const ax_stmt *s, int x)
{
    int n = 0;
    for (; s != NULL; s = s->next)
        n += refs_in(s, x);
    return n;
}

static int refs_in(const ax_stmt *s, int x)
{
    int n = 0, i, d;
    if (s->kind == AX_ST_FOR)
        return refs_list(s->body, x);
    if (s->kind == AX_ST_IF)
        return refs_expr(s->cond.lhs, x) + refs_expr(s->cond.rhs, x) +
               refs_list(s->body, x) + refs_list(s->else_body, x);
    if (s->kind != AX_ST_OP || s->dead)
        return 0;
    for (i = 0; i < s->nargs; i++) {
        n += s->args[i].tensor == x;
        n += refs_expr(s->args[i].view_dyn, x);
        for (d = 0; d < s->args[i].ndim; d++)
            n += refs_expr(s->args[i].start[d], x);
    }
    return n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether every access of the loop body to tensor "x" goes through the
 * same swizzle (or none). */
static bool one_swizzle(const axe_program *p, const ax_stmt *loop, int x)
{
    char first[64] = "", cur[64];
    bool any = false;
    for (const ax_stmt *s = loop->body; s != NULL; s = s->next)
        for (int i = 0; s->kind == AX_ST_OP && !s->dead && i < s->nargs; i++) {
            if (s->args[i].tensor != x)
                continue;
            axe__swizzle_text(p, &s->args[i], cur, sizeof cur);
            if (any && strcmp(cur, first) != 0)
                return false;
            memcpy(first, cur, sizeof first);
            any = true;
        }
    return true;
}

/* Operand "i" of "s" (in stage P's bounds) keeps the stages disjoint in
 * storage: unswizzled, or its swizzle maps each stage onto itself (P a
 * multiple of 2^axe__swizzle_bits), or every access of the body to the
 * tensor goes through that same swizzle (a bijection of addresses maps
 * disjoint stages to disjoint sets); else false with the reason. */
static bool stage_swizzle(const axe_program *p, const ax_stmt *loop,
                          const ax_stmt *s, int i, int64_t P, char *why,
                          size_t cap)
{
    int n = axe__swizzle_bits(p, &s->args[i]);
    char sw[64];
    if (P % ((int64_t)1 << n) == 0 || one_swizzle(p, loop, s->args[i].tensor))
        return true;
    axe__swizzle_text(p, &s->args[i], sw, sizeof sw);
    return fail(why, cap,
                "op %d addresses '%s' through %s, which changes address "
                "bits up to bit %d, across its stages of %lld elements, "
                "and not every access to '%s' goes through it (the stages "
                "could overlap)",
                s->index, p->tensors[s->args[i].tensor].name, sw, n - 1,
                (long long)P, p->tensors[s->args[i].tensor].name);
}

/* A copy "s" into stage P through a swizzle is a producer only when its
 * stage stays disjoint from the others ([lo, hi] within it, and
 * stage_swizzle): otherwise it keeps its own group, as an unstaged copy;
 * the other tensors' copies are still issued as a pipeline, but its
 * wait_group 0 before the same sync waits for their prefetches too. */
static bool swizzled_producer(const axe_program *p, const ax_stmt *loop,
                              const ax_stmt *s, int64_t P, int64_t lo,
                              int64_t hi)
{
    char why[256];
    if (!axe__ref_swizzled(p, &s->args[0]))
        return true;
    return lo >= 0 && hi < P &&
           stage_swizzle(p, loop, s, 0, P, why, sizeof why);
}

/* The stage size P of the producers into tensor "x" (0: none). */
static int64_t tensor_pitch(const axe__cuda_pipe *pp, int x)
{
    for (int j = 0; j < pp->nprod; j++)
        if (pp->prod[j]->args[0].tensor == x)
            return pp->pitch[j];
    return 0;
}

/* The producers: the body's asynchronous copies into a stage, with the
 * stage count and each one's stage size; false with the reason when none
 * or they disagree (the count, or two stage sizes of one tensor). */
static bool producers(const axe_program *p, const ax_stmt *loop,
                      axe__cuda_pipe *out, char *why, size_t cap)
{
    const ax_stmt *s;
    int64_t S, P, lo, hi;
    bool ended = false;
    for (s = loop->body; s != NULL; s = s->next) {
        bool prod = axe__cuda_async_copy(p, s) &&
                    staged_ref(p, s, 0, loop->var, &S, &P, &lo, &hi) &&
                    swizzled_producer(p, loop, s, P, lo, hi);
        if (!prod) {
            ended = out->nprod > 0;
            continue;
        }
        if (ended)
            return fail(why, cap,
                        "the copies into stages are not consecutive "
                        "statements (op %d)",
                        s->index);
        if (S < 2 || S > AXE_CUDA_MAX_STAGES ||
            (out->stages != 0 && S != out->stages))
            return fail(why, cap,
                        "copy into '%s' rotates over %lld stages, the "
                        "first one over another count (or not 2 to %d)",
                        p->tensors[s->args[0].tensor].name, (long long)S,
                        AXE_CUDA_MAX_STAGES);
        if (tensor_pitch(out, s->args[0].tensor) != 0 &&
            tensor_pitch(out, s->args[0].tensor) != P)
            return fail(why, cap,
                        "the copies into '%s' use stages of %lld and %lld "
                        "elements",
                        p->tensors[s->args[0].tensor].name,
                        (long long)tensor_pitch(out, s->args[0].tensor),
                        (long long)P);
        if (p->tensors[s->args[1].tensor].written)
            return fail(why, cap,
                        "the source '%s' is written in the kernel (the "
                        "pipeline reads each tile S - 1 iterations early)",
                        p->tensors[s->args[1].tensor].name);
        if (out->nprod == AXE_CUDA_MAX_PIPE)
            return fail(why, cap, "more than %d copies into stages",
                        AXE_CUDA_MAX_PIPE);
        out->stages = (int)S;
        out->pitch[out->nprod] = P;
        out->prod[out->nprod++] = s;
        out->tensors |= (uint64_t)1 << s->args[0].tensor;
    }
    if (out->nprod == 0)
        return fail(why, cap,
                    "no cp.async copy into stage %s %% S of a shared tensor "
                    "(a view offset or region start (k %% S) * P, S >= 2)",
                    p->vars[loop->var]);
    return true;
}

/* Every access to the stage tensors: in the body's own operators (so the
 * kernel has no other), producers' destinations or consumers' reads of
 * stage k % S at the copies' stage size P, within [0, P) (a read at
 * another P would reach into the stages being refilled). */
static bool accesses(const axe_program *p, const ax_stmt *loop,
                     const axe__cuda_pipe *pp, char *why, size_t cap)
{
    const ax_stmt *s;
    int x, i, j, seen, own;
    int64_t S, P, lo, hi;
    for (x = 0; x < p->ntensors; x++) {
        if (!(pp->tensors >> x & 1))
            continue;
        seen = 0;
        own = refs_list(p->body, x);
        for (s = loop->body; s != NULL; s = s->next) {
            if (s->kind != AX_ST_OP || s->dead)
                continue;
            for (i = 0; i < s->nargs; i++) {
                bool prod = false;
                if (s->args[i].tensor != x)
                    continue;
                for (j = 0; j < pp->nprod; j++)
                    prod |= pp->prod[j] == s;
                if (!prod && i == 0)
                    return fail(why, cap, "op %d writes the stages of '%s'",
                                s->index, p->tensors[x].name);
                if (!staged_ref(p, s, i, loop->var, &S, &P, &lo, &hi) ||
                    S != pp->stages)
                    return fail(why, cap,
                                "op %d reads '%s' other than affinely at "
                                "stage %s %% %d",
                                s->index, p->tensors[x].name,
                                p->vars[loop->var], pp->stages);
                if (P != tensor_pitch(pp, x))
                    return fail(why, cap,
                                "op %d addresses '%s' in stages of %lld "
                                "elements, its copies in stages of %lld (the "
                                "stages would overlap)",
                                s->index, p->tensors[x].name, (long long)P,
                                (long long)tensor_pitch(pp, x));
                if (lo < 0 || hi >= P)
                    return fail(why, cap,
                                "an access to '%s' leaves its stage of %lld "
                                "elements (the stages would overlap)",
                                p->tensors[x].name, (long long)P);
                if (!stage_swizzle(p, loop, s, i, P, why, cap))
                    return false;
                seen++;
            }
        }
        if (seen != own)
            return fail(why, cap,
                        "'%s' is accessed outside the loop body's own "
                        "operators (%lld times)",
                        p->tensors[x].name, (long long)(own - seen));
    }
    return true;
}

/* Whether "s" is an operator of the body that reads a stage tensor. */
static bool consumer(const ax_stmt *s, const axe__cuda_pipe *pp)
{
    int i;
    if (s->kind != AX_ST_OP || s->dead || axe__cuda_pipe_producer(pp, s))
        return false;
    for (i = 0; i < s->nargs; i++)
        if (pp->tensors >> s->args[i].tensor & 1)
            return true;
    return false;
}

bool axe__cuda_pipe_of(const axe_program *p, const ax_stmt *loop,
                       axe__cuda_pipe *out, char *why, size_t cap)
{
    const ax_stmt *s, *first = NULL, *last = NULL;
    bool after_prod = false, after_last = false, trailing = false;
    memset(out, 0, sizeof *out);
    if (loop->kind != AX_ST_FOR)
        return fail(why, cap, "not a for");
    if (!producers(p, loop, out, why, cap) || !accesses(p, loop, out, why, cap))
        return false;
    for (s = loop->body; s != NULL; s = s->next)
        if (consumer(s, out)) {
            first = first == NULL ? s : first;
            last = s;
        }
    if (first == NULL)
        return fail(why, cap, "no operator reads the stages");
    for (s = loop->body; s != NULL; s = s->next) {
        if (s == first && !after_prod)
            return fail(why, cap,
                        "op %d reads the stages before the copies into "
                        "them",
                        first->index);
        if (s == first && out->wait_before == NULL)
            return fail(why, cap,
                        "no sync between the copies into stages and op %d, "
                        "which reads them",
                        first->index);
        if (s == out->prod[out->nprod - 1])
            after_prod = true;
        if (s->kind == AX_ST_SYNC && after_prod && out->wait_before == NULL)
            out->wait_before = s;
        if (s->kind == AX_ST_SYNC && after_last)
            trailing = true;
        if (s == last)
            after_last = true;
    }
    if (!trailing)
        return fail(why, cap,
                    "no sync after op %d, the last read of the stages "
                    "(iteration k + S - 1's copy would overwrite what "
                    "iteration k - 1 reads)",
                    last->index);
    return true;
}

/* Whether "s" is one of the pipeline's producers. */
bool axe__cuda_pipe_producer(const axe__cuda_pipe *pp, const ax_stmt *s)
{
    int j;
    for (j = 0; pp != NULL && j < pp->nprod; j++)
        if (pp->prod[j] == s)
            return true;
    return false;
}

static void trip(ax_text *t, const axe_program *p, const ax_stmt *loop)
{
    if (loop->dtrip != NULL)
        axe__expr_print_c(t, p, loop->dtrip);
    else
        axe__text_put(t, "%lldL", (long long)loop->trip);
}

/* The producers' copies of tile "ax_pk" (declared by the caller) when it
 * is below the trip count, the loop variable rebound to it; then the
 * commit. */
static void issue(ax_text *t, const axe_program *p, const ax_stmt *loop,
                  const axe__cuda_pipe *pp, int ind)
{
    const char *v = p->vars[loop->var];
    int j;
    indent_put(t, ind);
    axe__text_put(t, "if (ax_pk < ");
    trip(t, p, loop);
    axe__text_put(t, ") {\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const long v_%s = ax_pk; /* the tile issued */\n", v);
    for (j = 0; j < pp->nprod; j++) {
        ax_stmt c = *pp->prod[j];
        c.async_copy = true;
        axe__emit_op(t, p, &c, ind + 1, false);
    }
    indent_put(t, ind);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "axe_ptx_cp_async_commit(); /* one group per tile "
                     "(empty past the end) */\n");
}

void axe__cuda_pipe_prologue(ax_text *t, const axe_program *p,
                             const ax_stmt *loop, const axe__cuda_pipe *pp,
                             int ind)
{
    indent_put(t, ind);
    axe__text_put(t,
                  "/* pipeline over %s: %d stages; the prologue issues "
                  "tiles 0 to %d */\n",
                  p->vars[loop->var], pp->stages, pp->stages - 2);
    indent_put(t, ind);
    axe__text_put(t, "for (long ax_pk = 0; ax_pk < %dL; ++ax_pk) {\n",
                  pp->stages - 1);
    issue(t, p, loop, pp, ind + 1);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

void axe__cuda_pipe_issue(ax_text *t, const axe_program *p, const ax_stmt *loop,
                          const axe__cuda_pipe *pp, int ind)
{
    indent_put(t, ind);
    axe__text_put(t, "{\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_pk = v_%s + %dL;\n", p->vars[loop->var],
                  pp->stages - 1);
    issue(t, p, loop, pp, ind + 1);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

void axe__cuda_pipe_wait(ax_text *t, const axe_program *p, const ax_stmt *loop,
                         const axe__cuda_pipe *pp, int ind)
{
    indent_put(t, ind);
    axe__text_put(t,
                  "axe_ptx_cp_async_wait<%d>(); /* tile %s complete: "
                  "only the %d most recent groups may be pending */\n",
                  pp->stages - 1, p->vars[loop->var], pp->stages - 1);
}

void axe__cuda_pipe_drain(ax_text *t, int ind)
{
    indent_put(t, ind);
    axe__text_put(t, "axe_ptx_cp_async_wait<0>(); /* the pipeline's last "
                     "(empty) groups */\n");
}

/* Why the asynchronous copy "s" of pipelined "loop" is no producer. */
static void not_producer(const axe_program *p, const ax_stmt *loop,
                         const ax_stmt *s, char *why, size_t cap)
{
    int64_t S, P, lo, hi;
    if (!staged_ref(p, s, 0, loop->var, &S, &P, &lo, &hi))
        fail(why, cap, "not a copy into stage %s %% S", p->vars[loop->var]);
    else if (lo < 0 || hi >= P)
        fail(why, cap, "it leaves its stage of %lld elements", (long long)P);
    else if (stage_swizzle(p, loop, s, 0, P, why, cap))
        fail(why, cap, "not a copy into a stage");
}

/* The --explain line of asynchronous copy "s" of `for` "b", pipelined as
 * "pp" ("piped") or not ("why"). */
static void explain_copy(ax_text *t, const axe_program *p, const ax_stmt *b,
                         const ax_stmt *s, bool piped, const axe__cuda_pipe *pp,
                         const char *why)
{
    const char *v = p->vars[b->var];
    const char *x = p->tensors[s->args[0].tensor].name;
    char not [256];
    if (!piped) {
        axe__text_put(t, "  no pipeline over %s: %s\n", v, why);
    } else if (!axe__cuda_pipe_producer(pp, s)) {
        not_producer(p, b, s, not, sizeof not );
        axe__text_put(t,
                      "  pipeline over %s: %d stages; this copy into '%s' "
                      "is not in the pipeline (%s): it keeps its own group "
                      "and wait_group 0\n",
                      v, pp->stages, x, not );
    } else {
        axe__text_put(t,
                      "  pipeline over %s: %d stages, copy into '%s' at %s "
                      "%% %d; the prologue issues tiles 0 to %d, iteration "
                      "%s issues tile %s + %d (when below the trip count) "
                      "and commits one group, cp.async.wait_group %d before "
                      "the first sync after the copies, wait_group 0 after "
                      "the loop\n",
                      v, pp->stages, x, v, pp->stages, pp->stages - 2, v, v,
                      pp->stages - 1, pp->stages - 1);
    }
}

/* Each asynchronous copy directly in the body of a `for` of list "b":
 * its --explain ends with whether the loop is pipelined, or why not. */
static axe_status explain_list(const axe_program *p, ax_stmt *b)
{
    axe__cuda_pipe pp;
    char why[256];
    ax_stmt *s;
    ax_text t;
    for (; b != NULL; b = b->next) {
        if (b->kind == AX_ST_IF) {
            AXE_TRY(explain_list(p, b->body));
            AXE_TRY(explain_list(p, b->else_body));
        }
        if (b->kind != AX_ST_FOR)
            continue;
        AXE_TRY(explain_list(p, b->body));
        bool piped = axe__cuda_pipe_of(p, b, &pp, why, sizeof why);
        for (s = b->body; s != NULL; s = s->next) {
            if (!axe__cuda_async_copy(p, s))
                continue;
            axe__text_init(&t, p->arena);
            axe__text_put(&t, "%s", s->explain != NULL ? s->explain : "");
            explain_copy(&t, p, b, s, piped, &pp, why);
            if (t.status != AXE_OK)
                return t.status;
            s->explain = t.buf;
        }
    }
    return AXE_OK;
}

axe_status axe__cuda_pipe_explain(const axe_program *p)
{
    return explain_list(p, p->body);
}
