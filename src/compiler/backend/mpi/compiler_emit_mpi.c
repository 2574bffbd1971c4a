/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI backend's C (docs/compiler.md, "The MPI backend"): the C
 * backend's program of the rank's shards (axe__emit_c_mesh: one CTA
 * function per segment between device operators), and
 *   - per device operator its exchange plan as static data (the planner's
 *     digit table as an axe_mpi_plan of compiler_mpi_rt.h) and a call
 *     into the runtime between the segments' launches; a failure prints
 *     the rank, the operator and the reason and aborts the MPI job;
 *   - under AXE_KERNEL_MAIN a main() for mpirun -np P: rank 0 reads IN
 *     (every device's local buffers of every tensor parameter, device
 *     after device), checks its size against the declared layouts' local
 *     shards and scatters the buffers; every rank runs the C harness
 *     (axe_rank_main) on its own, rank 0 gathers the results into OUT
 *     (the same shape as IN) and alone prints the harness's timing line.
 * The runtime header is not part of the output: axe run writes it beside
 * the .c (-I its folder).
 */
#include <stdio.h>
#include <stdlib.h>

#include "compiler_mpi.h"

/* "NAME_tab[]": the cells of the plan's tabled digits, 4 per value (src
 * device and address parts, dst device and address parts). */
static void put_cells(ax_text *t, const char *name, const ax_dist_plan *pl)
{
    int i;
    if (pl->ncell == 0)
        return;
    axe__text_put(t, "static const int64_t %s_tab[] = {", name);
    for (i = 0; i < pl->ncell; i++) {
        const ax_dist_cell *c = &pl->cell[i];
        axe__text_put(t, "%s%s%lld, %lld, %lld, %lld", i ? "," : "",
                      i % 4 == 0 ? "\n    " : " ", (long long)c->src_dev,
                      (long long)c->src_m, (long long)c->dst_dev,
                      (long long)c->dst_m);
    }
    axe__text_put(t, "};\n");
}

void axe__emit_mpi_table(ax_text *t, const char *name, const ax_dist_plan *pl)
{
    int i;
    put_cells(t, name, pl);
    axe__text_put(t, "static const axe_mpi_digit %s_digit[] = {", name);
    for (i = 0; i < pl->ndigits; i++) {
        const ax_dist_digit *d = &pl->digit[i];
        axe__text_put(t, "%s\n    {%lld, %lld, %lld, %lld, %lld, %d, %d",
                      i ? "," : "", (long long)d->extent, (long long)d->src_dev,
                      (long long)d->src_m, (long long)d->dst_dev,
                      (long long)d->dst_m, (int)d->dim, (int)d->reduced);
        if (d->tab > 0)
            axe__text_put(t, ", %s_tab + %d}", name,
                          (int)(4 * pl->tab[d->tab - 1].cell));
        else
            axe__text_put(t, ", 0}");
    }
    axe__text_put(t, "%s};\n", pl->ndigits ? "" : "{1, 0, 0, 0, 0, 0, 0, 0}");
    axe__text_put(t, "static const axe_mpi_rep %s_rep[] = {", name);
    for (i = 0; i < pl->nsrc_rep + pl->ndst_rep; i++) {
        const ax_dist_rep *r =
            i < pl->nsrc_rep ? &pl->src_rep[i] : &pl->dst_rep[i - pl->nsrc_rep];
        axe__text_put(t, "%s{%lld, %lld}", i ? ", " : "", (long long)r->extent,
                      (long long)r->dev);
    }
    axe__text_put(t, "%s};\n", pl->nsrc_rep + pl->ndst_rep ? "" : "{1, 0}");
}

/* "src_span": the source's local elements (a device gemm's: its
 * partial's, whose dtype is C's). */
static void put_plan(ax_text *t, const axe_program *p, int k,
                     const ax_dist_plan *pl, const ax_stmt *s, int64_t src_span,
                     const char *sched)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    char name[32];
    const char *e;
    axe__text_put(t, "\n/* device op %d (line %d%s%s): ", k, s->line,
                  axe__iter_sep(s), axe__iter(s));
    for (e = pl->explain; *e != '\0'; e++) /* no comment end inside */
        axe__text_put(t, "%c", e[0] == '*' && e[1] == '/' ? '+' : *e);
    axe__text_put(t, " */\n");
    snprintf(name, sizeof name, "ax_dev%d", k);
    axe__emit_mpi_table(t, name, pl);
    axe__text_put(t,
                  "static const axe_mpi_plan ax_dev%d = {%d, %d, %d, %d, "
                  "ax_dev%d_digit, ax_dev%d_rep, ax_dev%d_rep + %d, %lld, "
                  "%lld, %lld, %lld, %d, %d, %lld, %lld};\n"
                  "static %s ax_dev%d_sched;\n",
                  k, (int)pl->ndev, (int)pl->ndigits, (int)pl->nsrc_rep,
                  (int)pl->ndst_rep, k, k, k, (int)pl->nsrc_rep,
                  (long long)pl->src_dev0, (long long)pl->src_m0,
                  (long long)pl->dst_dev0, (long long)pl->dst_m0,
                  s->op == AX_OP_COPY      ? 0
                  : s->rkind == AX_RED_SUM ? 1
                  : s->rkind == AX_RED_MAX ? 2
                                           : 3,
                  (int)axe__devop_dtype(p, s), (long long)src_span,
                  (long long)dst->span, sched, k);
}

/* Device operator "k"'s plan, its schedule of type "sched" (and a
 * device gemm's copy first; with "host", its buffers and local GEMM). */
static void put_devop(ax_text *t, const axe_program *p, int k,
                      const char *sched, bool host)
{
    const ax_stmt *s = p->devops[k];
    ax_dist_plan *pl = malloc(sizeof *pl);
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d;
    if (pl == NULL || g == NULL || axe__mpi_plan(p, s, pl, &d) != AXE_OK ||
        (s->op == AX_OP_GEMM && axe__dist_gemm(p, s, g, &d) != AXE_OK))
        t->status = AXE_ERR_UNSUPPORTED; /* the check refused it */
    else if (s->op == AX_OP_GEMM) {
        put_plan(t, p, k, pl, s, g->part.span, sched);
        axe__emit_mpi_gemm(t, p, s, g, sched, host);
    } else
        put_plan(t, p, k, pl, s, p->tensors[s->args[1].tensor].span, sched);
    free(pl);
    free(g);
}

/* The harness's timing of a mesh program (compiler_emit_harness.c):
 * "idle" (C statements that wait for the device, or ""), then wall-clock
 * from a barrier; every rank's verdict on stopping; the slowest rank's
 * seconds. */
void axe__emit_mesh_timing(ax_text *t, const char *idle)
{
    axe__text_put(
        t,
        "\n#ifdef AXE_KERNEL_MAIN\n"
        "static double ax_mesh_now(void)\n{\n%s"
        "    MPI_Barrier(MPI_COMM_WORLD);\n    return MPI_Wtime();\n}\n\n"
        "static int ax_mesh_stop(int stop)\n{\n"
        "    MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, "
        "MPI_COMM_WORLD);\n    return stop;\n}\n\n"
        "static double ax_mesh_max(double s)\n{\n"
        "    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, "
        "MPI_COMM_WORLD);\n    return s;\n}\n#endif\n",
        idle);
}

/* A device gemm's operands copied first (ax_dist_gemm.copied), else 0. */
static int copied_of(const axe_program *p, const ax_stmt *s)
{
    ax_dist_gemm *g;
    axe_diag d;
    int c = 0;
    if (s->op != AX_OP_GEMM || (g = malloc(sizeof *g)) == NULL)
        return 0;
    if (axe__dist_gemm(p, s, g, &d) == AXE_OK)
        c = g->copied;
    free(g);
    return c;
}

/* Every device operator's plan as static data (ax_devK, ax_devK_sched
 * of type "sched"); shared with the CUDA backend's mesh programs. */
void axe__emit_mpi_plans(ax_text *t, const axe_program *p, const char *sched,
                         bool host)
{
    int k;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++)
        put_devop(t, p, k, sched, host);
}

/* Whether some device operator calls ax_mpi_devop: all but a chunked
 * device gemm that copies no operand first (else the static function
 * would be unused). */
static bool devop_used(const axe_program *p)
{
    int k;
    for (k = 0; k < p->ndevops; k++)
        if (p->devops[k]->chunks == 0 || copied_of(p, p->devops[k]) > 0)
            return true;
    return false;
}

static void decls(ax_text *t, const axe_program *p)
{
    int k, *copied = calloc((size_t)p->ndevops + 1, sizeof *copied);
    axe__text_put(t, "\n#include <mpi.h>\n#include \"compiler_mpi_rt.h\"\n");
    axe__emit_mpi_plans(t, p, "axe_mpi_sched", true);
    if (devop_used(p))
        axe__text_put(
            t, "\n/* Device operator k (line L) on this rank's buffers; "
               "a failure ends the job. */\n"
               "static void ax_mpi_devop(int k, int line, const "
               "axe_mpi_plan *p, axe_mpi_sched *s,\n"
               "                         const void *src, void *dst)\n"
               "{\n    char err[256];\n    int rank;\n"
               "    if (axe_mpi_exchange(p, s, src, dst, MPI_COMM_WORLD, "
               "err, sizeof err) == 0)\n        return;\n"
               "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
               "    fprintf(stderr, \"rank %%d: device op %%d (line %%d): "
               "%%s\\n\", rank, k, line, err);\n"
               "    MPI_Abort(MPI_COMM_WORLD, 1);\n}\n");
    axe__emit_mpi_gemm_runner(t, p);
    axe__text_put(t, "\nstatic void ax_mpi_free(void)\n{\n");
    for (k = 0; k < p->ndevops; k++) {
        axe__text_put(t, "    axe_mpi_sched_free(&ax_dev%d_sched);\n", k);
        if (copied != NULL)
            copied[k] = copied_of(p, p->devops[k]);
    }
    if (copied == NULL)
        t->status = AXE_ERR_NO_MEMORY;
    else
        axe__emit_mpi_gemm_free(t, p, copied);
    axe__text_put(t, "}\n");
    axe__emit_mesh_timing(t, "");
    free(copied);
}

static void devop(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    if (s->op == AX_OP_GEMM) {
        axe__emit_mpi_gemm_call(t, p, s, copied_of(p, s));
        return;
    }
    axe__text_put(t,
                  "    ax_mpi_devop(%d, %d, &ax_dev%d, &ax_dev%d_sched, %s, "
                  "%s);\n",
                  s->index, s->line, s->index, s->index,
                  p->tensors[s->args[1].tensor].cname,
                  p->tensors[s->args[0].tensor].cname);
}

/* IN's expected size, per tensor, for the entry check's message. */
static void shard_text(ax_text *t, const axe_program *p)
{
    int i, n = 0;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            axe__text_put(t, "%s%s: %lld %s", n++ ? ", " : "",
                          p->tensors[i].name, (long long)p->tensors[i].span,
                          axe_dtype_name(p->tensors[i].dtype));
}

static int64_t local_bytes(const axe_program *p)
{
    int64_t n = 0;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            n += p->tensors[i].span * axe_dtype_size(p->tensors[i].dtype);
    return n;
}

static const char rank_main_head[] =
    "\n/* Rank 0 reads IN, checks it and scatters every device's buffers; "
    "each rank\n * runs the harness on its own; rank 0 gathers OUT. */\n"
    "static long ax_mpi_size(FILE *f)\n{\n"
    "    long n = -1;\n"
    "    if (f != NULL && fseek(f, 0, SEEK_END) == 0)\n"
    "        n = ftell(f);\n"
    "    if (f != NULL)\n        rewind(f);\n    return n;\n}\n\n"
    "static int ax_mpi_file(const char *path, char *buf, long n, int write)\n"
    "{\n    FILE *f = fopen(path, write ? \"wb\" : \"rb\");\n"
    "    int ok = f != NULL && (write ? fwrite(buf, 1, (size_t)n, f)\n"
    "                                 : fread(buf, 1, (size_t)n, f)) == "
    "(size_t)n;\n"
    "    if (f != NULL && fclose(f) != 0)\n        ok = 0;\n"
    "    return ok;\n}\n\n"
    "int main(int argc, char **argv)\n{\n"
    "    char in[4200], out[4200], *av[64];\n"
    "    char *all = NULL, *mine = (char *)malloc(AX_LOCAL + 1), *recs = "
    "NULL;\n"
    "    char rec[AX_NPARAM * AX_SHARD_REC];\n"
    "    const char *shards;\n"
    "    int rank, size, i, bad = 0, any = 0;\n"
    "    MPI_Init(&argc, &argv);\n"
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "    MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
    "    shards = ax_mpi_shards_arg(&argc, argv);\n"
    "    if (size != AX_NDEV || argc < 4 || argc > 60 || "
    "strlen(argv[2]) > 4000) {\n"
    "        if (rank == 0 && size != AX_NDEV)\n"
    "            fprintf(stderr, \"kernel %s: the mesh has %%d devices but "
    "mpirun started %%d ranks\\n\", AX_NDEV, size);\n"
    "        else if (rank == 0)\n"
    "            fprintf(stderr, \"usage: %%s [--shards FILE] IN OUT REPS "
    "[VALUE...]\\n\", "
    "argv[0]);\n"
    "        MPI_Finalize();\n        return 2;\n    }\n";

static const char rank_main_tail[] =
    "    if (rank == 0) {\n"
    "        FILE *f = fopen(argv[1], \"rb\");\n"
    "        long n = ax_mpi_size(f);\n"
    "        all = (char *)malloc((size_t)AX_LOCAL * AX_NDEV + 1);\n"
    "        if (n != (long)AX_LOCAL * AX_NDEV) {\n"
    "            fprintf(stderr, \"kernel %s: %%s has %%ld bytes; the local "
    "shards of the %%d devices need %%lld (per device: %s)\\n\", argv[1], "
    "n, AX_NDEV, (long long)AX_LOCAL * AX_NDEV);\n"
    "            bad = 1;\n"
    "        } else if (all == NULL || mine == NULL ||\n"
    "                   fread(all, 1, (size_t)n, f) != (size_t)n) {\n"
    "            fprintf(stderr, \"kernel %s: cannot read %%s\\n\", "
    "argv[1]);\n            bad = 1;\n        }\n"
    "        if (f != NULL)\n            fclose(f);\n"
    "        recs = (char *)calloc((size_t)AX_NDEV * sizeof rec, 1);\n"
    "        if (!bad && shards != NULL)\n"
    "            bad = recs == NULL || ax_mpi_read_shards(shards, recs);\n"
    "    }\n"
    "    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);\n"
    "    if (bad || mine == NULL) {\n"
    "        free(all), free(mine), free(recs);\n        MPI_Finalize();\n"
    "        return 1;\n    }\n"
    "    MPI_Scatter(all, AX_LOCAL, MPI_BYTE, mine, AX_LOCAL, MPI_BYTE, 0,\n"
    "                MPI_COMM_WORLD);\n"
    "    if (shards != NULL) { /* each rank checks its own shards */\n"
    "        MPI_Scatter(recs, (int)sizeof rec, MPI_CHAR, rec, "
    "(int)sizeof rec,\n                    MPI_CHAR, 0, MPI_COMM_WORLD);\n"
    "        bad = ax_mpi_shard_check(rec, rank);\n"
    "        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, "
    "MPI_COMM_WORLD);\n"
    "    }\n"
    "    free(recs);\n"
    "    if (any) {\n"
    "        free(all), free(mine);\n        MPI_Finalize();\n"
    "        return 1;\n    }\n"
    "    snprintf(in, sizeof in, \"%%s.in.%%d\", argv[2], rank);\n"
    "    snprintf(out, sizeof out, \"%%s.%%d\", argv[2], rank);\n"
    "    for (i = 0; i < argc; i++)\n"
    "        av[i] = i == 1 ? in : i == 2 ? out : argv[i];\n"
    "    av[argc] = NULL;\n"
    "    if (rank != 0 && freopen(\"/dev/null\", \"w\", stdout) == NULL)\n"
    "        bad = 1;\n"
    "    if (!bad && !ax_mpi_file(in, mine, AX_LOCAL, 1))\n"
    "        bad = 1;\n"
    "    if (!bad)\n        bad = axe_rank_main(argc, av);\n"
    "    remove(in);\n"
    "    if (!bad && !ax_mpi_file(out, mine, AX_LOCAL, 0))\n"
    "        bad = 1;\n"
    "    remove(out);\n"
    "    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);\n"
    "    if (!any)\n"
    "        MPI_Gather(mine, AX_LOCAL, MPI_BYTE, all, AX_LOCAL, MPI_BYTE, "
    "0,\n                   MPI_COMM_WORLD);\n"
    "    if (!any && rank == 0 &&\n"
    "        !ax_mpi_file(argv[2], all, (long)AX_LOCAL * AX_NDEV, 1)) {\n"
    "        fprintf(stderr, \"cannot write %%s\\n\", argv[2]);\n"
    "        any = 1;\n    }\n"
    "    ax_mpi_free();\n    free(all), free(mine);\n"
    "    MPI_Finalize();\n    return any;\n}\n#endif\n";

/* The main() of every rank (see the file comment), "init" (C
 * statements, may be empty) run by every rank after the size check. */
void axe__emit_mpi_main(ax_text *t, const axe_program *p, const char *init)
{
    ax_text s;
    axe__text_init(&s, p->arena);
    shard_text(&s, p);
    axe__text_put(t, "\n#ifdef AXE_KERNEL_MAIN\n#define AX_NDEV %lld\n",
                  (long long)p->ndev);
    axe__text_put(t, "#define AX_LOCAL %lld /* bytes per device */\n",
                  (long long)local_bytes(p));
    axe__emit_mpi_entry(t, p);
    axe__text_put(t, rank_main_head, p->name);
    axe__text_put(t, "%s", init);
    axe__text_put(t, rank_main_tail, p->name, s.buf ? s.buf : "", p->name);
}

static void main_text(ax_text *t, const axe_program *p)
{
    axe__emit_mpi_main(t, p, "");
}

void axe__emit_mpi(ax_text *t, const axe_program *p, const char *file)
{
    static const ax_c_mesh mesh = {decls, devop, main_text};
    axe__emit_c_mesh(t, p, file, &mesh);
}
