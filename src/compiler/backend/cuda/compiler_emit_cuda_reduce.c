/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's collective schedules: reduce.warp_shuffle (sum, max,
 * min of any dtype, i8 included, and argmax/argmin as (value, index)
 * pairs), the staged schedules reduce.smem, reduce.tree and copy.smem,
 * and the barriers they need. A staged operator is stage 1 (the source
 * into its shared scratch), a barrier, the tree's steps each followed by
 * a barrier, stage 2 (the scratch into the destination): the same plans
 * and statement emitters as the C backend's phases. Each barrier is over
 * the operator's own scope instance, which the conditions around it
 * select whole (sema): `__syncwarp()` for a warp, the named barrier
 * `bar.sync 1 + wgid, 128` (axe_ptx_bar_sync) for a warpgroup,
 * `__syncthreads()` for a CTA. Inside a `for` a last barrier follows
 * stage 2, so that the next iteration's stage 1 does not overwrite the
 * scratch while a thread still reads it (the C backend's phases order
 * the iterations the same way).
 */
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

void axe__cuda_barrier(ax_text *t, ax_scope scope, int ind, const char *what)
{
    indent_put(t, ind);
    if (scope == AX_SCOPE_WARP)
        axe__text_put(t, "__syncwarp(); /* %s */\n", what);
    else if (scope == AX_SCOPE_WARPGROUP)
        axe__text_put(t,
                      "axe_ptx_bar_sync(1u + (unsigned)wgid, 128u); /* %s "
                      "(the warpgroup's named barrier) */\n",
                      what);
    else
        axe__text_put(t, "__syncthreads(); /* %s */\n", what);
}

/* A staged operator (see the file comment). */
void axe__cuda_emit_staged(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int ind, bool in_loop)
{
    int64_t m;
    axe__emit_op(t, p, s->stage[0], ind, false);
    axe__cuda_barrier(t, s->scope, ind, "the staged source is complete");
    for (m = s->tree != NULL ? s->tree->n : 1; m > 1; m -= m / 2) {
        axe__emit_tree_step(t, p, s, m, ind);
        axe__cuda_barrier(t, s->scope, ind, "the tree step is complete");
    }
    axe__emit_op(t, p, s->stage[1], ind, false);
    if (in_loop)
        axe__cuda_barrier(t, s->scope, ind,
                          "the scratch is read: the next iteration may "
                          "write it");
}

/* The (value, index) pair of lane ^ mask replaces this lane's when it is
 * better (AXE_ARG*_BETTER: a strict total order, as the C backend's). */
static void shuffle_arg(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int64_t mask, int ind)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    int n = s->index;
    long long m = (long long)mask;
    indent_put(t, ind);
    axe__text_put(t,
                  "const double ax_bv = __shfl_xor_sync(0xffffffffu, "
                  "ax_argv%d[ax_o], %lld);\n",
                  n, m);
    indent_put(t, ind);
    axe__text_put(t,
                  "const int ax_bj = __shfl_xor_sync(0xffffffffu, "
                  "(int)%s[ax_o], %lld);\n",
                  d->cname, m);
    indent_put(t, ind);
    axe__text_put(t,
                  "if (AXE_%s_BETTER(ax_bv, ax_bj, ax_argv%d[ax_o], "
                  "%s[ax_o])) {\n",
                  s->rkind == AX_RED_ARGMAX ? "ARGMAX" : "ARGMIN", n, d->cname);
    indent_put(t, ind + 1);
    axe__text_put(t, "ax_argv%d[ax_o] = ax_bv;\n", n);
    indent_put(t, ind + 1);
    axe__text_put(t, "%s[ax_o] = (int32_t)ax_bj;\n", d->cname);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* d[o] = d[o] (+, max or min) the partner's, in d's arithmetic type (f16,
 * bf16, e4m3 and e5m2 in float; integers shuffled as int, their sums
 * wrapping in uint32_t), as the C backend's combine phase. */
static void shuffle_combine(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int64_t mask, int ind)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    bool half = axe__dtype_is_half(d->dtype),
         is_int = d->dtype == AXE_DTYPE_I32 || d->dtype == AXE_DTYPE_I8;
    const char *ty = half     ? "float"
                     : is_int ? "int"
                              : axe__dtype_ctype(d->dtype);
    const char *fn = s->rkind == AX_RED_SUM ? ""
                     : is_int ? (s->rkind == AX_RED_MAX ? "AXE_MAX" : "AXE_MIN")
                     : d->dtype == AXE_DTYPE_F64
                         ? (s->rkind == AX_RED_MAX ? "fmax" : "fmin")
                         : (s->rkind == AX_RED_MAX ? "fmaxf" : "fminf");
    indent_put(t, ind);
    axe__text_put(t, "const %s ax_a = %s%s[ax_o]%s;\n", ty,
                  axe__dtype_load_pre(d->dtype), d->cname,
                  axe__dtype_wrap_post(d->dtype));
    indent_put(t, ind);
    axe__text_put(t,
                  "const %s ax_b = __shfl_xor_sync(0xffffffffu, ax_a, %lld);\n",
                  ty, (long long)mask);
    indent_put(t, ind);
    if (is_int && s->rkind == AX_RED_SUM)
        axe__text_put(t,
                      "%s[ax_o] = ax_s%s((uint32_t)ax_a + (uint32_t)ax_b);\n",
                      d->cname, d->dtype == AXE_DTYPE_I8 ? "8" : "32");
    else if (half)
        axe__text_put(t, "%s[ax_o] = %s%s(ax_a%sax_b)%s;\n", d->cname,
                      axe__dtype_store_pre(d->dtype), fn,
                      s->rkind == AX_RED_SUM ? " + " : ", ",
                      axe__dtype_wrap_post(d->dtype));
    else
        axe__text_put(t, "%s[ax_o] = (%s)%s(ax_a%sax_b);\n", d->cname,
                      axe__dtype_ctype(d->dtype), fn,
                      s->rkind == AX_RED_SUM ? " + " : ", ");
}

/* reduce.warp_shuffle: the in-thread partials, then per lane mask a
 * butterfly step with __shfl_xor_sync (shfl.sync.bfly). */
void axe__cuda_emit_shuffle(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    int j;
    axe__emit_op(t, p, s, ind, false);
    for (j = 0; j < s->nmasks; j++) {
        indent_put(t, ind);
        axe__text_put(t,
                      "for (long ax_o = 0; ax_o < %lldL; ++ax_o) { /* op %d "
                      "(line %d%s%s): combine with lane ^ %lld */\n",
                      (long long)d->span, s->index, s->line, axe__iter_sep(s),
                      axe__iter(s), (long long)s->masks[j]);
        if (axe__red_is_arg(s->rkind))
            shuffle_arg(t, p, s, s->masks[j], ind + 1);
        else
            shuffle_combine(t, p, s, s->masks[j], ind + 1);
        indent_put(t, ind);
        axe__text_put(t, "}\n");
    }
}

/* argmax/argmin: each thread's best value beside each index of the
 * destination (a local array, as the destination's registers). */
void axe__cuda_arg_storage(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    for (; s != NULL; s = s->next) {
        axe__cuda_arg_storage(t, p, s->body);
        axe__cuda_arg_storage(t, p, s->else_body);
        if (s->kind != AX_ST_OP || s->dead || s->op != AX_OP_REDUCE ||
            !axe__red_is_arg(s->rkind))
            continue;
        axe__text_put(
            t,
            "    /* op %d (line %d%s%s): the value of each %s index of "
            "%s */\n    double ax_argv%d[%lld] = {0};\n",
            s->index, s->line, axe__iter_sep(s), axe__iter(s),
            axe__red_name(s->rkind), p->tensors[s->args[0].tensor].name,
            s->index, (long long)p->tensors[s->args[0].tensor].span);
    }
}

static const char *barrier_name(ax_scope scope)
{
    return scope == AX_SCOPE_WARP ? "__syncwarp() (bar.warp.sync)"
           : scope == AX_SCOPE_WARPGROUP
               ? "the warpgroup's named barrier bar.sync 1+wgid, 128"
               : "__syncthreads() (bar.sync 0)";
}

/* --explain's instructions of a collective or grid schedule (false: "s"
 * has none of them). */
bool axe__cuda_explain_collective(ax_text *t, const axe_program *p,
                                  const ax_stmt *s)
{
    const char *op = s->grid != NULL ? axe__grid_combine(s) : "";
    bool i32 = p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_I32;
    if (s->nmasks > 0 && axe__red_is_arg(s->rkind)) {
        axe__text_put(t, "in-thread (value, index) pairs, then "
                         "__shfl_xor_sync (shfl.sync.bfly) of both over "
                         "lane masks\n");
        return true;
    }
    if (s->stage[0] != NULL) {
        axe__text_put(t,
                      "stage 1 into the shared scratch %s, %s, %sstage 2 "
                      "from the scratch (inside a for: the barrier again "
                      "after it)\n",
                      p->tensors[s->stage[0]->args[0].tensor].name,
                      barrier_name(s->scope),
                      s->tree != NULL ? "the tree's steps each followed by "
                                        "the barrier, "
                                      : "");
        return true;
    }
    if (s->grid == NULL)
        return false;
    if (s->grid->nchunk == 1)
        axe__text_put(t, "one thread per element, plain read-modify-writes "
                         "(no atomics)\n");
    else if (op[0] == 'A')
        axe__text_put(t,
                      "partials combined by atomicAdd (red.global.add."
                      "%s)\n",
                      i32 ? "s32" : "f32");
    else if (i32)
        axe__text_put(t, "partials combined by atomic%s (red.global.%s.s32)\n",
                      op[1] == 'A' ? "Max" : "Min",
                      op[1] == 'A' ? "max" : "min");
    else
        axe__text_put(t,
                      "partials combined by an atomicCAS loop around "
                      "f%sf (atom.global.cas.b32)\n",
                      op[1] == 'A' ? "max" : "min");
    return true;
}

/* The axe_ptx_* wrappers "body" calls, inline PTX inside #ifndef
 * AXE_CUDA_EMULATE (see the header). */
void axe__cuda_wrappers(ax_text *t, const axe_program *p, const char *body)
{
    ax_text w;
    axe__text_init(&w, p->arena);
    if (strstr(body, "axe_ptx_bar_sync(") != NULL)
        axe__text_put(&w, "/* bar.sync id, nthreads: a named barrier (id 0 "
                          "is __syncthreads'). */\n"
                          "static __device__ __forceinline__ void "
                          "axe_ptx_bar_sync(unsigned id, unsigned nthreads)"
                          "\n{\n"
                          "    asm volatile(\"bar.sync %%0, %%1;\" : : "
                          "\"r\"(id), \"r\"(nthreads) : \"memory\");\n}\n");
    axe__cuda_async_wrappers(&w, body);
    if (w.status != AXE_OK)
        t->status = w.status;
    else if (w.len > 0)
        axe__text_put(t, "#ifndef AXE_CUDA_EMULATE\n%s#endif\n", w.buf);
}
