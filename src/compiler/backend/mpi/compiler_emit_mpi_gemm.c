/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` in the MPI backend's C (docs/compiler.md, "The
 * MPI backend"): the local GEMM of every rank as a function of its own
 * (ax_devK_gemm: the partial sums of its slice of K, row-major
 * [Mloc, Nloc] in a static buffer, each element summed in increasing
 * local k, which is increasing logical k, in C's dtype: the reference's
 * order; f16/bf16 A and B are widened to C's f32, each product exact),
 * a rank holding no partial sums returning at once (ax_devK_busy,
 * emitted where some device holds none: axe__dist_gemm_work),
 * then the device reduce of the partial into C through the
 * runtime, whose plan compiler_target_mpi.c derives (axe__mpi_plan).
 * Local shards are addressed through their local layouts (an iter's
 * digit of a local index is (i / inner) % extent).
 */
#include <stdio.h>
#include <stdlib.h>

#include "compiler_mpi.h"

/* The local address of [i, j] of tensor "x" (a distributed operand). */
static void put_addr(ax_text *t, const ax_tensor *x, const char *i,
                     const char *j)
{
    int64_t off = 0;
    int d, k;
    for (k = 0; k < x->layout.noffset; k++)
        off += x->layout.offset[k].value; /* all on m (local view) */
    axe__text_put(t, "%lld", (long long)off);
    for (d = 0; d < 2; d++) {
        int64_t inner = 1;
        for (k = x->seps[d + 1] - 1; k >= x->seps[d]; k--) {
            const axe_iter *it = &x->grouped.shard[k];
            if (it->extent > 1) {
                axe__text_put(t, " + ");
                if (inner > 1)
                    axe__text_put(t, "(%s / %lld", d ? j : i, (long long)inner);
                else
                    axe__text_put(t, "(%s", d ? j : i);
                if (k > x->seps[d])
                    axe__text_put(t, " %% %lld", (long long)it->extent);
                axe__text_put(t, ") * %lld", (long long)it->stride);
            }
            inner *= it->extent;
        }
    }
}

void axe__emit_dist_gemm_addr(ax_text *t, const axe_program *p,
                              const ax_stmt *s, const ax_dist_gemm *g,
                              int which, const char *row, const char *k)
{
    put_addr(t, axe__dist_gemm_operand(p, s, g, which), row, k);
}

/* The dot product of row "i" of A_local and row "j" of B_local into
 * "acc" (declared by the caller, zeroed), k in increasing order; shared
 * with the CUDA backend's local GEMM kernel (compiler_dist.h). */
void axe__emit_dist_gemm_dot(ax_text *t, const axe_program *p, const ax_stmt *s,
                             const ax_dist_gemm *g, const char *ind)
{
    const ax_tensor *a = axe__dist_gemm_operand(p, s, g, 1);
    const ax_tensor *b = axe__dist_gemm_operand(p, s, g, 2);
    bool i32 = a->dtype == AXE_DTYPE_I32;
    const char *pre = i32 ? "(uint32_t)" : axe__dtype_load_pre(a->dtype);
    const char *post = axe__dtype_wrap_post(a->dtype);
    axe__text_put(t, "%sfor (k = 0; k < %lld; k++)\n%s    acc += %sa[", ind,
                  (long long)g->kloc, ind, pre);
    put_addr(t, a, "i", "k");
    axe__text_put(t, "]%s * %sb[", post, pre);
    put_addr(t, b, "j", "k");
    axe__text_put(t, "]%s;\n", post);
}

void axe__emit_dist_gemm_busy(ax_text *t, const axe_program *p,
                              const ax_stmt *s, const ax_dist_gemm *g)
{
    int64_t d;
    if (!axe__dist_gemm_idle(g, p->ndev))
        return;
    axe__text_put(t,
                  "/* device op %d: whether this rank holds partial sums "
                  "(on[gpuid]); the others hold\n * no part of K for C and "
                  "skip the local GEMM */\n"
                  "static int ax_dev%d_busy(void)\n{\n"
                  "    static const char on[] = \"",
                  s->index, s->index);
    for (d = 0; d < p->ndev; d++)
        axe__text_put(t, "%c", axe__dist_gemm_work(g, d) > 0 ? '1' : '0');
    axe__text_put(t, "\";\n    int rank;\n"
                     "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
                     "    return on[rank] == '1';\n}\n");
}

void axe__dist_gemm_types(const axe_program *p, const ax_stmt *s,
                          const char **in, const char **out, const char **acc)
{
    axe_dtype a = p->tensors[s->args[1].tensor].dtype;
    axe_dtype c = p->tensors[s->args[0].tensor].dtype;
    *in = axe__dtype_ctype(a);
    *out = axe__dtype_ctype(c);
    *acc = c == AXE_DTYPE_I32 ? "uint32_t" : *out;
}

/* chunks(N): the partial sums at a list of local addresses (the
 * runtime's axe_mpi_elems_fn), the same arithmetic as the whole GEMM. */
static void put_elems(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const ax_dist_gemm *g)
{
    const char *ct, *ot, *acc;
    int k = s->index;
    axe__dist_gemm_types(p, s, &ct, &ot, &acc);
    axe__text_put(t,
                  "/* device op %d: the local GEMM's partial sums at "
                  "addresses addr[0 .. n) (chunks(%d)) */\n"
                  "typedef struct ax_dev%d_ctx {\n    const %s *a, *b;\n"
                  "} ax_dev%d_ctx;\n"
                  "static void ax_dev%d_elems(void *ctx, const int64_t "
                  "*addr, int64_t n, void *out)\n{\n"
                  "    const %s *a = ((ax_dev%d_ctx *)ctx)->a;\n"
                  "    const %s *b = ((ax_dev%d_ctx *)ctx)->b;\n"
                  "    int64_t e, i, j, k;\n"
                  "    for (e = 0; e < n; e++) {\n"
                  "        %s acc = 0;\n"
                  "        i = addr[e] / %lld, j = addr[e] %% %lld;\n",
                  k, s->chunks, k, ct, k, k, ct, k, ct, k, acc,
                  (long long)g->nloc, (long long)g->nloc);
    axe__emit_dist_gemm_dot(t, p, s, g, "        ");
    axe__text_put(t, "        ((%s *)out)[e] = (%s)acc;\n    }\n}\n", ot, ot);
    axe__text_put(t, "static axe_mpi_chunked ax_dev%d_chunked;\n", k);
}

/* The copy of operand "which" (1: A, 2: B) first: its plan as data
 * ("ax_devK_cpa" for A, "ax_devK_cpb" for B), its schedule (of type
 * "sched") and, with "host", the buffer it lands in ("ax_devK_mva",
 * "ax_devK_mvb"; the CUDA backend's is device memory). */
static void put_copy(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g, int which, const char *sched,
                     bool host)
{
    const ax_tensor *x = axe__devop_tensor(p, s, which);
    const ax_tensor *mv = &g->moved[which - 1];
    ax_dist_plan *pl = malloc(sizeof *pl);
    axe_diag d;
    char name[32];
    int k = s->index, c = "ab"[which - 1];
    if (pl == NULL ||
        axe__dist_gemm_copy_plan(p, s, g, which, pl, &d) != AXE_OK) {
        t->status = AXE_ERR_UNSUPPORTED; /* the check refused it */
        free(pl);
        return;
    }
    snprintf(name, sizeof name, "ax_dev%d_cp%c", k, c);
    axe__text_put(t, "/* device op %d: %s copied first */\n", k,
                  axe__devop_text(p, s, which));
    axe__emit_mpi_table(t, name, pl);
    axe__text_put(t,
                  "static const axe_mpi_plan %s = {%d, %d, %d, %d, "
                  "%s_digit, %s_rep, %s_rep + %d, "
                  "%lld, %lld, %lld, %lld, 0, %d, %lld, %lld};\n"
                  "static %s %s_sched;\n",
                  name, (int)pl->ndev, (int)pl->ndigits, (int)pl->nsrc_rep,
                  (int)pl->ndst_rep, name, name, name, (int)pl->nsrc_rep,
                  (long long)pl->src_dev0, (long long)pl->src_m0,
                  (long long)pl->dst_dev0, (long long)pl->dst_m0, (int)x->dtype,
                  (long long)x->span, (long long)mv->span, sched, name);
    if (host)
        axe__text_put(t, "static %s ax_dev%d_mv%c[%lld];\n",
                      axe__dtype_ctype(x->dtype), k, c, (long long)mv->span);
    free(pl);
}

void axe__emit_mpi_gemm(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_dist_gemm *g, const char *sched, bool host)
{
    const char *ct, *ot, *acc;
    int k = s->index, which;
    axe__dist_gemm_types(p, s, &ct, &ot, &acc);
    for (which = 1; which <= 2; which++)
        if (g->copied & which)
            put_copy(t, p, s, g, which, sched, host);
    if (!host)
        return;
    if (s->chunks > 0) {
        put_elems(t, p, s, g);
        return;
    }
    axe__emit_dist_gemm_busy(t, p, s, g);
    axe__text_put(t,
                  "static %s ax_dev%d_part[%lld];\n"
                  "/* device op %d: the local GEMM (partial = A_local . "
                  "B_local^T, k in order) */\n"
                  "static void ax_dev%d_gemm(const %s *a, const %s *b, "
                  "%s *c)\n{\n"
                  "    int64_t i, j, k;\n",
                  ot, k, (long long)g->part.span, k, k, ct, ct, ot);
    if (axe__dist_gemm_idle(g, p->ndev))
        axe__text_put(t, "    if (!ax_dev%d_busy())\n        return;\n", k);
    axe__text_put(t,
                  "    for (i = 0; i < %lld; i++)\n"
                  "        for (j = 0; j < %lld; j++) {\n"
                  "            %s acc = 0;\n",
                  (long long)g->mloc, (long long)g->nloc, acc);
    axe__emit_dist_gemm_dot(t, p, s, g, "            ");
    axe__text_put(t,
                  "            c[i * %lld + j] = (%s)acc;\n"
                  "        }\n}\n",
                  (long long)g->nloc, ot);
}

void axe__emit_mpi_gemm_call(ax_text *t, const axe_program *p, const ax_stmt *s,
                             int copied)
{
    const char *x[3] = {p->tensors[s->args[0].tensor].cname,
                        p->tensors[s->args[1].tensor].cname,
                        p->tensors[s->args[2].tensor].cname};
    const char *a = x[1], *b = x[2], *c = x[0];
    char mv[2][32];
    int k = s->index, which;
    for (which = 1; which <= 2; which++) {
        if (!(copied & which))
            continue;
        snprintf(mv[which - 1], sizeof mv[0], "ax_dev%d_mv%c", k,
                 "ab"[which - 1]);
        axe__text_put(t,
                      "    ax_mpi_devop(%d, %d, &ax_dev%d_cp%c, "
                      "&ax_dev%d_cp%c_sched, %s, %s);\n",
                      k, s->line, k, "ab"[which - 1], k, "ab"[which - 1],
                      x[which], mv[which - 1]);
    }
    a = copied & 1 ? mv[0] : a;
    b = copied & 2 ? mv[1] : b;
    if (s->chunks > 0) {
        axe__text_put(t,
                      "    {\n        ax_dev%d_ctx ctx = {%s, %s};\n"
                      "        ax_mpi_gemm_devop(%d, %d, &ax_dev%d, "
                      "&ax_dev%d_chunked, %d, ax_dev%d_elems, &ctx, %s);\n"
                      "    }\n",
                      k, a, b, k, s->line, k, k, s->chunks, k, c);
        return;
    }
    axe__text_put(t,
                  "    ax_dev%d_gemm(%s, %s, ax_dev%d_part);\n"
                  "    ax_mpi_devop(%d, %d, &ax_dev%d, &ax_dev%d_sched, "
                  "ax_dev%d_part, %s);\n",
                  k, a, b, k, k, s->line, k, k, k, c);
}

/* The chunked gemm's runner (a failure ends the job) and its frees. */
void axe__emit_mpi_gemm_runner(ax_text *t, const axe_program *p)
{
    int k;
    for (k = 0; k < p->ndevops && p->devops[k]->chunks == 0; k++)
        ;
    if (k == p->ndevops)
        return;
    axe__text_put(
        t,
        "\nstatic void ax_mpi_gemm_devop(int k, int line, const "
        "axe_mpi_plan *p,\n"
        "                              axe_mpi_chunked *c, int chunks, "
        "axe_mpi_elems_fn fn,\n"
        "                              void *ctx, void *dst)\n"
        "{\n    char err[256];\n    int rank;\n"
        "    if (axe_mpi_gemm_chunked(p, c, chunks, fn, ctx, dst, "
        "MPI_COMM_WORLD, err,\n"
        "                             sizeof err) == 0)\n        return;\n"
        "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
        "    fprintf(stderr, \"rank %%d: device op %%d (line %%d): %%s\\n\", "
        "rank, k, line, err);\n"
        "    MPI_Abort(MPI_COMM_WORLD, 1);\n}\n");
}

/* Frees of the chunked gemms' and the copies' schedules (inside
 * ax_mpi_free); "copied[k]": the operands device op k copies first
 * (ax_dist_gemm.copied). */
void axe__emit_mpi_gemm_free(ax_text *t, const axe_program *p,
                             const int *copied)
{
    int k;
    for (k = 0; k < p->ndevops; k++) {
        if (p->devops[k]->chunks > 0)
            axe__text_put(t, "    axe_mpi_chunked_free(&ax_dev%d_chunked);\n",
                          k);
        if (copied[k] & 1)
            axe__text_put(t, "    axe_mpi_sched_free(&ax_dev%d_cpa_sched);\n",
                          k);
        if (copied[k] & 2)
            axe__text_put(t, "    axe_mpi_sched_free(&ax_dev%d_cpb_sched);\n",
                          k);
    }
}
