/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The entry check of the MPI backend's main() (docs/compiler.md, "The
 * entry check"): with `--shards FILE`, rank 0 reads the shard list (one
 * line `NAME DTYPE SHAPE ELEMS CHECKSUM` per tensor parameter, device
 * after device: what the host says it put in each device's local buffer)
 * and scatters each device's lines to its rank; every rank checks its
 * own against the declared layouts: the name, dtype and logical shape,
 * the number of elements the layout gives the device, and the ids
 * checksum (axe_program_mesh_checksum's), recomputed here from the
 * tensor's digit table (the planner's plan of a copy of the tensor onto
 * itself, emitted as static data; compiler_mpi_rt.h's
 * axe_mpi_shard_sums): a derivation independent of the library's. A
 * mismatch prints the rank, the tensor, the expected and the given value
 * (and, for a checksum, which device's shard it is) and fails the job
 * before the harness runs. Everything here is under AXE_KERNEL_MAIN.
 */
#include <stdio.h>

#include "axe/notation.h"
#include "compiler_mpi.h"

static const char shard_type[] =
    "\n/* The entry check (--shards FILE): one record per tensor parameter "
    "and device. */\n"
    "#define AX_SHARD_REC 256\n"
    "typedef struct ax_mpi_shard {\n"
    "    const char *name, *dtype, *shape, *layout;\n"
    "    const axe_mpi_plan *plan;\n"
    "} ax_mpi_shard;\n";

static const char shard_fns[] =
    "\n/* Strips \"--shards FILE\" from the arguments; FILE or NULL. */\n"
    "static const char *ax_mpi_shards_arg(int *argc, char **argv)\n{\n"
    "    const char *f;\n"
    "    if (*argc < 3 || strcmp(argv[1], \"--shards\") != 0)\n"
    "        return NULL;\n"
    "    f = argv[2];\n"
    "    memmove(argv + 1, argv + 3, (size_t)(*argc - 2) * sizeof *argv);\n"
    "    *argc -= 2;\n    return f;\n}\n\n"
    "/* Rank 0: the shard list's lines into \"recs\" (zeroed). */\n"
    "static int ax_mpi_read_shards(const char *path, char *recs)\n{\n"
    "    char line[AX_SHARD_REC + 2];\n"
    "    int n = 0, want = AX_NDEV * AX_NPARAM;\n"
    "    FILE *f = fopen(path, \"r\");\n"
    "    if (f == NULL) {\n"
    "        fprintf(stderr, \"kernel %s: cannot read the shard list %s\\n\",\n"
    "                AX_KERNEL, path);\n        return 1;\n    }\n"
    "    while (fgets(line, sizeof line, f) != NULL) {\n"
    "        if (n < want)\n"
    "            memcpy(recs + (size_t)n * AX_SHARD_REC, line,\n"
    "                   strlen(line) < AX_SHARD_REC ? strlen(line)\n"
    "                                               : AX_SHARD_REC - 1);\n"
    "        n++;\n    }\n    fclose(f);\n"
    "    if (n == want)\n        return 0;\n"
    "    fprintf(stderr, \"kernel %s: the shard list %s has %d lines; the %d "
    "devices' %d tensor parameters need %d (NAME DTYPE SHAPE ELEMS CHECKSUM "
    "each, device after device)\\n\", AX_KERNEL, path, n, AX_NDEV, "
    "AX_NPARAM, want);\n"
    "    return 1;\n}\n\n"
    "/* Whose shard checksum \"sum\" of \"n\" elements is: a device, or -1. "
    "*/\n"
    "static int ax_mpi_whose(const int64_t *elems, const uint64_t *sums,\n"
    "                        long long n, unsigned long long sum)\n{\n"
    "    int d;\n"
    "    for (d = 0; d < AX_NDEV; d++)\n"
    "        if (elems[d] == n && sums[d] == sum)\n"
    "            return d;\n"
    "    return -1;\n}\n\n"
    "/* Record \"rec\" of tensor \"s\" on rank \"rank\": 0, or 1 after "
    "printing why. */\n"
    "static int ax_mpi_shard_one(const ax_mpi_shard *s, const char *rec,\n"
    "                            int rank)\n{\n"
    "    char name[64], dtype[16], shape[64], err[128];\n"
    "    int64_t elems[AX_NDEV];\n    uint64_t sums[AX_NDEV];\n"
    "    long long n;\n    unsigned long long sum;\n    int d;\n"
    "    if (sscanf(rec, \"%63s %15s %63s %lld %llx\", name, dtype, shape, "
    "&n,\n               &sum) != 5) {\n"
    "        fprintf(stderr, \"rank %d: tensor '%s': its line in the shard "
    "list is not NAME DTYPE SHAPE ELEMS CHECKSUM\\n\", rank, s->name);\n"
    "        return 1;\n    }\n"
    "    if (strcmp(name, s->name) != 0) {\n"
    "        fprintf(stderr, \"rank %d: tensor '%s': the shard list names "
    "'%s' in its place\\n\", rank, s->name, name);\n"
    "        return 1;\n    }\n"
    "    if (strcmp(dtype, s->dtype) != 0 || strcmp(shape, s->shape) != 0) "
    "{\n"
    "        fprintf(stderr, \"rank %d: tensor '%s': the shard given is %s "
    "%s; the kernel declares %s %s\\n\", rank, s->name, dtype, shape, "
    "s->dtype, s->shape);\n"
    "        return 1;\n    }\n"
    "    if (axe_mpi_shard_sums(s->plan, elems, sums, err, sizeof err)) {\n"
    "        fprintf(stderr, \"rank %d: tensor '%s': %s\\n\", rank, s->name, "
    "err);\n        return 1;\n    }\n"
    "    if (n != elems[rank]) {\n"
    "        fprintf(stderr, \"rank %d: tensor '%s': the shard given holds "
    "%lld elements; the layout %s gives device %d %lld\\n\", rank, "
    "s->name, n, s->layout, rank, (long long)elems[rank]);\n"
    "        return 1;\n    }\n"
    "    if (sum == sums[rank])\n        return 0;\n"
    "    d = ax_mpi_whose(elems, sums, n, sum);\n"
    "    if (d >= 0) /* one fprintf per line: the ranks' lines interleave */\n"
    "        snprintf(err, sizeof err, \"is device %d's\", d);\n"
    "    fprintf(stderr, \"rank %d: tensor '%s': the ids checksum of the "
    "shard given is %016llx; the layout %s gives device %d %016llx (the "
    "shard given %s)\\n\", rank, s->name, sum, s->layout, rank, "
    "(unsigned long long)sums[rank], d >= 0 ? err : \"is no device's\");\n"
    "    return 1;\n}\n\n"
    "/* This rank's records (one per tensor parameter) against the "
    "layouts. */\n"
    "static int ax_mpi_shard_check(const char *rec, int rank)\n{\n"
    "    int i, bad = 0;\n"
    "    for (i = 0; i < AX_NPARAM && !bad; i++)\n"
    "        bad = ax_mpi_shard_one(&ax_shards[i], rec + i * AX_SHARD_REC, "
    "rank);\n"
    "    return bad;\n}\n";

/* "64,128": the logical shape as the shard list writes it, in []. */
static void shape_text(ax_text *t, const ax_tensor *x)
{
    int d;
    for (d = 0; d < x->ndim; d++)
        axe__text_put(t, "%s%lld", d ? "," : "", (long long)x->gshape[d]);
}

/* Tensor parameter "x" (number "k")'s digit table: its plan of a copy
 * onto itself. */
static axe_status put_shard(ax_text *t, const axe_program *p, int k,
                            const ax_tensor *x, axe_diag *diag)
{
    ax_dist_plan pl;
    char name[32];
    AXE_TRY(axe__dist_plan_copy(x->gshape, x->ndim, &x->glayout, &x->glayout,
                                p->ndev, &pl, diag));
    snprintf(name, sizeof name, "ax_shard%d", k);
    axe__emit_mpi_table(t, name, &pl);
    axe__text_put(t,
                  "static const axe_mpi_plan ax_shard%d = {%d, %d, %d, 0, "
                  "ax_shard%d_digit, ax_shard%d_rep, ax_shard%d_rep, %lld, "
                  "%lld, 0, 0, 0, %d, %lld, 0};\n",
                  k, (int)pl.ndev, (int)pl.ndigits, (int)pl.nsrc_rep, k, k, k,
                  (long long)pl.src_dev0, (long long)pl.src_m0, (int)x->dtype,
                  (long long)x->span);
    return AXE_OK;
}

void axe__emit_mpi_entry(ax_text *t, const axe_program *p)
{
    char layout[512];
    axe_diag d;
    int i, n = 0;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param &&
            put_shard(t, p, n++, &p->tensors[i], &d) != AXE_OK) {
            t->status = AXE_ERR_UNSUPPORTED; /* sema placed it: not reached */
            return;
        }
    axe__text_put(t, "#define AX_NPARAM %d\n#define AX_KERNEL \"%s\"\n", n,
                  p->name);
    axe__text_put(t, "%s", shard_type);
    axe__text_put(t, "static const ax_mpi_shard ax_shards[] = {");
    for (i = 0, n = 0; i < p->ntensors; i++) {
        const ax_tensor *x = &p->tensors[i];
        if (!x->param)
            continue;
        (void)axe_print_layout(&x->glayout, layout, sizeof layout);
        axe__text_put(t, "%s\n    {\"%s\", \"%s\", \"[", n++ ? "," : "",
                      x->name, axe_dtype_name(x->dtype));
        shape_text(t, x);
        axe__text_put(t, "]\", \"%s\", &ax_shard%d}", layout, n - 1);
    }
    axe__text_put(t, "};\n%s", shard_fns);
}
