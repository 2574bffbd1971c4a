/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` in the MPI backend's C (docs/compiler.md, "The
 * MPI backend"): the local GEMM of every rank as a function of its own
 * (ax_devK_gemm: the partial sums of its slice of K, row-major
 * [Mloc, Nloc] in a static buffer, each element summed in increasing
 * local k, which is increasing logical k, in the dtype: the reference's
 * order), then the device reduce of the partial into C through the
 * runtime, whose plan compiler_target_mpi.c derives (axe__mpi_plan).
 * Local shards are addressed through their local layouts (an iter's
 * digit of a local index is (i / inner) % extent).
 */
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

void axe__emit_mpi_gemm(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_dist_gemm *g)
{
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    const ax_tensor *b = &p->tensors[s->args[2].tensor];
    const char *ct = axe__dtype_ctype(a->dtype);
    int k = s->index;
    bool i32 = a->dtype == AXE_DTYPE_I32;
    axe__text_put(t,
                  "static %s ax_dev%d_part[%lld];\n"
                  "/* device op %d: the local GEMM (partial = A_local . "
                  "B_local^T, k in order) */\n"
                  "static void ax_dev%d_gemm(const %s *a, const %s *b, "
                  "%s *c)\n{\n"
                  "    int64_t i, j, k;\n"
                  "    for (i = 0; i < %lld; i++)\n"
                  "        for (j = 0; j < %lld; j++) {\n"
                  "            %s acc = 0;\n"
                  "            for (k = 0; k < %lld; k++)\n",
                  ct, k, (long long)g->part.span, k, k, ct, ct, ct,
                  (long long)g->mloc, (long long)g->nloc, i32 ? "uint32_t" : ct,
                  (long long)g->kloc);
    axe__text_put(t, "                acc += %sa[", i32 ? "(uint32_t)" : "");
    put_addr(t, a, "i", "k");
    axe__text_put(t, "] * %sb[", i32 ? "(uint32_t)" : "");
    put_addr(t, b, "j", "k");
    axe__text_put(t,
                  "];\n            c[i * %lld + j] = (%s)acc;\n"
                  "        }\n}\n",
                  (long long)g->nloc, ct);
}

void axe__emit_mpi_gemm_call(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int k = s->index;
    axe__text_put(t,
                  "    ax_dev%d_gemm(%s, %s, ax_dev%d_part);\n"
                  "    ax_mpi_devop(%d, %d, &ax_dev%d, &ax_dev%d_sched, "
                  "ax_dev%d_part, %s);\n",
                  k, p->tensors[s->args[1].tensor].cname,
                  p->tensors[s->args[2].tensor].cname, k, k, s->line, k, k, k,
                  p->tensors[s->args[0].tensor].cname);
}
