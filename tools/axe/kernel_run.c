/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building and executing generated C for `axe run`: a private directory
 * from mkdtemp, the C (with the AXE_KERNEL_MAIN harness) written there,
 * `$CC -std=c99 -O2` (CC defaults to cc), the tensors written to a file,
 * the program run, the tensors read back. The CUDA target's .cu instead:
 * emulated, with the emulation headers (embedded in axe) beside it, built
 * by `$CXX -std=c++17 -DAXE_CUDA_EMULATE` (CXX defaults to c++), its
 * race lines read back from its stderr; for a GPU, built by `$NVCC
 * -arch=sm_XX` (NVCC defaults to nvcc). The naive variant (c->pref, the
 * GPU reference of kernel_ref.c) is written and built the same way
 * beside it (kref.cu, kref), never edited by AXE_RUN_EDIT, and run on
 * c->ref. Every failure is one report.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_run.h"

/* Report "what" (and "path") as a failure of kind "kind" (IO, NO_MEMORY,
 * RUN: kernel_err.c). */
static int fail(const char *kind, const char *what, const char *path)
{
    return kernel_fail("run", kind, "%s%s%s", what, path ? " " : "",
                       path ? path : "");
}

static int write_file(const char *path, const void *const *bufs,
                      const size_t *bytes, int n, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f != NULL;
    int i;
    if (ok && text != NULL)
        ok = fwrite(text, 1, len, f) == len;
    for (i = 0; ok && bufs != NULL && i < n; i++)
        ok = fwrite(bufs[i], 1, bytes[i], f) == bytes[i];
    if (f != NULL)
        ok = fclose(f) == 0 && ok;
    return ok ? CLI_EXIT_OK : fail("IO", "cannot write", path);
}

static int read_outputs(run_ctx *c, void **bufs)
{
    FILE *f = fopen(c->path[3], "rb");
    bool ok = f != NULL;
    int i;
    for (i = 0; ok && i < c->n; i++)
        ok = fread(bufs[i], 1, c->bytes[i], f) == c->bytes[i];
    if (f != NULL)
        fclose(f);
    return ok ? CLI_EXIT_OK
              : fail("RUN", "the kernel wrote no complete output", 0);
}

/* The emulation headers and the MPI runtime (cmake/embed_text.cmake);
 * the simulator's header is the library's (axe_runtime_header), linked
 * in from libaxe's static archive. */
extern const unsigned char axe_cuda_emu_h[], axe_cuda_emu_atoms_h[];
extern const size_t axe_cuda_emu_h_len, axe_cuda_emu_atoms_h_len;
extern const unsigned char axe_mpi_rt_h[];
extern const size_t axe_mpi_rt_h_len;
extern const unsigned char axe_nccl_rt_h[], axe_nccl_emu_h[];
extern const size_t axe_nccl_rt_h_len, axe_nccl_emu_h_len;
extern const unsigned char axe_trn_sim_h[];
extern const size_t axe_trn_sim_h_len;

const char *const kernel_trn_engines[RUN_TRN_ENGINES] = {
    "tensor", "vector", "scalar", "dma_in", "dma_out"};

typedef struct run_header {
    const char *name;
    const unsigned char *text;
    const size_t *len;
} run_header;

/* The headers of a run of mode "mode" on "ranks" ranks (0: one
 * process), at most RUN_NHEADERS, ended by a NULL name. */
static void run_headers(run_mode mode, int ranks, run_header *h)
{
    static const run_header all[RUN_NHEADERS] = {
        {"compiler_cuda_emu.h", axe_cuda_emu_h, &axe_cuda_emu_h_len},
        {"compiler_cuda_emu_atoms.h", axe_cuda_emu_atoms_h,
         &axe_cuda_emu_atoms_h_len},
        {"compiler_mpi_rt.h", axe_mpi_rt_h, &axe_mpi_rt_h_len},
        {"compiler_nccl_rt.h", axe_nccl_rt_h, &axe_nccl_rt_h_len},
        {"compiler_nccl_emu.h", axe_nccl_emu_h, &axe_nccl_emu_h_len},
        {"compiler_trn_sim.h", axe_trn_sim_h, &axe_trn_sim_h_len}};
    bool emu = mode == RUN_CUDA_EMULATED, nccl = ranks > 0 && mode != RUN_MPI;
    bool want[RUN_NHEADERS] = {emu,  emu,         ranks > 0,
                               nccl, nccl && emu, mode == RUN_TRN};
    int n = 0, i;
    for (i = 0; i < RUN_NHEADERS; i++)
        if (want[i])
            h[n++] = all[i];
    h[n].name = NULL;
}

/* Program "p"'s code into "path" (the target's: C, CUDA, C for MPI). */
static int write_code(run_ctx *c, axe_program *p, const char *path)
{
    bool cuda = c->mode != RUN_C; /* or mpi: the target's own code */
    size_t n = cuda ? axe_program_emit(p, "run.axe", NULL, 0)
                    : axe_program_emit_c(p, "run.axe", NULL, 0);
    char *buf = malloc(n + 1);
    int rc;
    if (buf == NULL || n == 0) {
        free(buf);
        return fail("NO_MEMORY", "out of memory", NULL);
    }
    if (cuda)
        (void)axe_program_emit(p, "run.axe", buf, n + 1);
    else
        (void)axe_program_emit_c(p, "run.axe", buf, n + 1);
    rc = write_file(path, NULL, NULL, 0, buf, n);
    free(buf);
    return rc;
}

/* The kernel's code, the naive variant's (c->pref != NULL) and the
 * headers the target's code includes. */
static int write_source(run_ctx *c)
{
    run_header h[RUN_NHEADERS + 1];
    int rc = write_code(c, c->p, c->path[0]), i;
    if (rc == CLI_EXIT_OK && c->pref != NULL)
        rc = write_code(c, c->pref, c->path[RUN_PATH_KREF]);
    run_headers(c->mode, c->ranks, h);
    for (i = 0; rc == CLI_EXIT_OK && h[i].name != NULL; i++)
        rc = write_file(c->path[RUN_PATH_HEADERS + i], NULL, NULL, 0,
                        (const char *)h[i].text, *h[i].len);
    return rc;
}

static int shell(const char *cmd, const char *what)
{
    int st = system(cmd);
    if (st != 0)
        return fail("RUN", what, NULL);
    return CLI_EXIT_OK;
}

/* The environment variable "name", or "dflt" when unset or empty. */
static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : dflt;
}

/* Build the code in "src" into the program "bin" with the target's
 * compiler. */
static int build_one(run_ctx *c, const char *src, const char *bin)
{
    char cmd[1400], mpi_c[160] = "", mpi_l[160] = "";
    const char *arch = "";
    if (c->mode == RUN_C || c->mode == RUN_TRN) {
        snprintf(cmd, sizeof cmd,
                 "%s -std=c99 -O2 -DAXE_KERNEL_MAIN -I'%s' -o '%s' '%s' -lm "
                 "1>&2",
                 env_or("CC", "cc"), c->dir, bin, src);
        return shell(cmd, "the C compiler failed on the generated code");
    }
    if (c->mode == RUN_MPI) {
        snprintf(cmd, sizeof cmd,
                 "%s -std=c99 -O2 -DAXE_KERNEL_MAIN -I'%s' -o '%s' '%s' -lm "
                 "1>&2",
                 env_or("MPICC", "mpicc"), c->dir, bin, src);
        return shell(cmd, "mpicc failed on the generated code");
    }
    if (c->ranks > 0) { /* MPI's flags (OpenMPI's mpicc --showme) */
        snprintf(mpi_c, sizeof mpi_c, "$(%s --showme:compile)",
                 env_or("MPICC", "mpicc"));
        snprintf(mpi_l, sizeof mpi_l, "$(%s --showme:link)",
                 env_or("MPICC", "mpicc"));
    }
    if (c->mode == RUN_CUDA_EMULATED) {
        snprintf(cmd, sizeof cmd,
                 "%s -std=c++17 -O1 -fno-strict-aliasing -DAXE_CUDA_EMULATE "
                 "-DAXE_KERNEL_MAIN -I'%s' %s -x c++ -o '%s' '%s' %s -lm 1>&2",
                 env_or("CXX", "c++"), c->dir, mpi_c, bin, src, mpi_l);
        return shell(cmd, "the C++ compiler failed on the emulated CUDA");
    }
    (void)axe_program_target(c->p, &arch);
    snprintf(cmd, sizeof cmd,
             "%s -std=c++17 -O2 -arch=%s -DAXE_KERNEL_MAIN -I'%s' %s -o '%s' "
             "'%s'%s %s 1>&2",
             env_or("NVCC", "nvcc"), arch, c->dir, mpi_c, bin, src,
             c->ranks > 0 ? " -lnccl" : "", mpi_l);
    return shell(cmd, "nvcc failed on the generated CUDA");
}

/* The kernel (edited first by the tests' AXE_RUN_EDIT hook, a command
 * that mutates the emulated .cu), then the naive variant, unedited. */
static int build(run_ctx *c)
{
    char cmd[1024];
    int rc;
    if (c->mode == RUN_CUDA_EMULATED && getenv("AXE_RUN_EDIT") != NULL) {
        snprintf(cmd, sizeof cmd, "%s '%s' 1>&2", getenv("AXE_RUN_EDIT"),
                 c->path[0]);
        if (shell(cmd, "AXE_RUN_EDIT failed on the generated CUDA") !=
            CLI_EXIT_OK)
            return CLI_EXIT_FAIL;
    }
    rc = build_one(c, c->path[0], c->path[1]);
    if (rc == CLI_EXIT_OK && c->pref != NULL)
        rc = build_one(c, c->path[RUN_PATH_KREF], c->path[RUN_PATH_KREF + 1]);
    return rc;
}

/* One race line "axe-emu-race TENSOR OFFSET T1 C1 L1 W1 T2 C2 L2 W2"
 * into "r"; TENSOR is every word before the nine numbers (the emulator's
 * name of an address no AXE_AT noted has spaces: "cp.async
 * destination"). False when the line is not one. */
static bool emu_race_line(const char *line, axe_race *r)
{
    static const char head[] = "axe-emu-race ";
    const char *name = line + sizeof head - 1, *end = line + strlen(line);
    long long off, t1, c1, t2, c2;
    int l1, w1, l2, w2, words = 0;
    size_t len;
    if (strncmp(line, head, sizeof head - 1) != 0)
        return false;
    while (end > name && isspace((unsigned char)end[-1]))
        end--;
    while (end > name && words < 9) { /* back over the nine numbers */
        while (end > name && !isspace((unsigned char)end[-1]))
            end--;
        words++;
        while (end > name && isspace((unsigned char)end[-1]))
            end--;
    }
    if (words < 9 || end == name ||
        sscanf(end, "%lld %lld %lld %d %d %lld %lld %d %d", &off, &t1, &c1, &l1,
               &w1, &t2, &c2, &l2, &w2) != 9)
        return false;
    memset(r, 0, sizeof *r);
    len = (size_t)(end - name);
    if (len >= sizeof r->tensor) /* no tensor name is that long */
        len = sizeof r->tensor - 1;
    memcpy(r->tensor, name, len);
    r->tensor[len] = '\0';
    r->ndim = -1;
    r->address = off;
    r->first = (axe_race_access){
        .thread = t1, .cta = c1, .line = l1, .write = w1 != 0};
    r->second = (axe_race_access){
        .thread = t2, .cta = c2, .line = l2, .write = w2 != 0};
    r->cross_cta = c1 != c2;
    r->count = 1;
    return true;
}

/* The emulation's race lines (compiler_cuda_emu.h) on the kernel's
 * stderr into "rep" (NULL: dropped): "axe-emu-race TENSOR OFFSET T1 C1
 * L1 W1 T2 C2 L2 W2" per race kept (emu_race_line), "axe-emu-races N"
 * per launch with races. */
static void emu_races(run_ctx *c, axe_race_report *rep)
{
    char line[512];
    long long count;
    FILE *f = fopen(c->path[4], "r");
    while (f != NULL && rep != NULL && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "axe-emu-races %lld", &count) == 1)
            rep->count += count;
        else if (rep->n < AXE_RACE_MAX &&
                 emu_race_line(line, &rep->race[rep->n]))
            rep->n++;
    }
    if (f != NULL)
        fclose(f);
}

/* The simulator's lines on the kernel's stderr (compiler_trn_sim.h,
 * ax_trn_finish): "axe-trn-cycles N", "axe-trn-engine NAME COUNT BUSY". */
static void trn_cycles(run_ctx *c)
{
    char line[256], name[32];
    long long n, busy;
    int k;
    FILE *f = fopen(c->path[4], "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "axe-trn-cycles %lld", &n) == 1) {
            c->trn_cycles = n;
            c->trn_have = true;
        } else if (sscanf(line, "axe-trn-engine %31s %lld %lld", name, &n,
                          &busy) == 3) {
            for (k = 0; k < RUN_TRN_ENGINES; k++)
                if (strcmp(name, kernel_trn_engines[k]) == 0) {
                    c->trn_engine[k][0] = n;
                    c->trn_engine[k][1] = busy;
                }
        }
    }
    if (f != NULL)
        fclose(f);
}

/* The kernel failed: the report carries the first line it wrote on stderr
 * that starts with a letter (e.g. the run-time bounds error of a
 * data-dependent start; also in --json), else "the kernel failed"; its
 * other lines (a sanitizer's report, say) are passed on to our stderr. */
static int kernel_failed(const run_ctx *c)
{
    char line[512], reason[512] = "";
    FILE *f = fopen(c->path[4], "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "axe-emu-race", 12) == 0 ||
            strncmp(line, "axe-trn-", 8) == 0)
            continue; /* the emulation's races, cycles: not the reason */
        if (reason[0] == '\0' && isalpha((unsigned char)line[0])) {
            line[strcspn(line, "\n")] = '\0';
            memcpy(reason, line, sizeof reason);
        } else {
            fputs(line, stderr);
        }
    }
    if (f != NULL)
        fclose(f);
    if (reason[0] == '\0')
        return fail("RUN", "the kernel failed", NULL);
    return kernel_fail("run", "RUN", "the kernel failed: %s", reason);
}

/* Run program "bin" on the inputs in the in file (threads in "order"),
 * its outputs into "bufs", its emulated races into "rep"; with "bench"
 * timed into "res". */
static int execute(run_ctx *c, const char *bin, void **bufs,
                   axe_race_report *rep, bool bench, long long order,
                   run_result *res)
{
    char cmd[768 + RUN_MAX_ARGS * 26];
    FILE *pipe;
    double sec = 0;
    long runs = 0;
    size_t n;
    int i;
    n = (size_t)snprintf(cmd, sizeof cmd, "AXE_THREAD_ORDER=%lld ", order);
    if (c->ranks > 0) /* as root OpenMPI wants to be told */
        n += (size_t)snprintf(
            cmd + n, sizeof cmd - n, "%s --oversubscribe %s-np %d ",
            env_or("MPIRUN", "mpirun"),
            geteuid() == 0 ? "--allow-run-as-root " : "", c->ranks);
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, "'%s' ", bin);
    if (c->ranks > 0) /* the entry check's shard list */
        n += (size_t)snprintf(cmd + n, sizeof cmd - n, "--shards '%s' ",
                              c->path[RUN_PATH_SHARDS]);
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, "'%s' '%s' %d", c->path[2],
                          c->path[3], bench ? 5 : 0);
    for (i = 0; i < c->nscalars && n < sizeof cmd; i++)
        if (axe_program_scalar(c->p, i).dtype != AXE_DTYPE_I32)
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %.17g",
                                  c->fscalar[i]);
        else
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %lld",
                                  (long long)c->scalar[i]);
    if (n < sizeof cmd)
        n += (size_t)snprintf(cmd + n, sizeof cmd - n, " 2>'%s'", c->path[4]);
    fflush(stdout);
    pipe = popen(cmd, "r");
    if (pipe == NULL)
        return fail("RUN", "cannot run the kernel", NULL);
    if (fscanf(pipe, "%lf %ld", &sec, &runs) != 2)
        sec = -1;
    if (pclose(pipe) != 0 || sec < 0 || runs < 0)
        return kernel_failed(c);
    res->seconds = sec;
    res->runs = runs;
    if (c->mode == RUN_CUDA_EMULATED)
        emu_races(c, rep);
    if (c->mode == RUN_TRN)
        trn_cycles(c);
    return read_outputs(c, bufs);
}

int kernel_run_build(run_ctx *c)
{
    static const char *const names[5] = {"k.c", "k", "in", "out", "err"};
    run_header h[RUN_NHEADERS + 1];
    const char *tmp = getenv("TMPDIR");
    char dir[sizeof c->dir];
    int i, rc;
    snprintf(c->dir, sizeof c->dir, "%s/axe-run-XXXXXX",
             tmp != NULL && strlen(tmp) < 32 && strchr(tmp, '\'') == NULL
                 ? tmp
                 : "/tmp");
    if (mkdtemp(c->dir) == NULL) {
        c->dir[0] = '\0';
        return fail("IO", "cannot create a temporary directory", NULL);
    }
    memcpy(dir, c->dir, sizeof dir);
    for (i = 0; i < 5; i++)
        snprintf(
            c->path[i], sizeof c->path[i], "%s/%s", dir,
            i == 0 && (c->mode == RUN_CUDA_EMULATED || c->mode == RUN_CUDA_GPU)
                ? "k.cu"
                : names[i]);
    if (c->ranks > 0) /* the entry check's shard list */
        snprintf(c->path[RUN_PATH_SHARDS], sizeof c->path[0], "%s/shards", dir);
    run_headers(c->mode, c->ranks, h);
    for (i = 0; h[i].name != NULL; i++)
        snprintf(c->path[RUN_PATH_HEADERS + i], sizeof c->path[0], "%s/%s", dir,
                 h[i].name);
    if (c->pref != NULL) { /* the naive variant */
        snprintf(c->path[RUN_PATH_KREF], sizeof c->path[0], "%s/kref.cu", dir);
        snprintf(c->path[RUN_PATH_KREF + 1], sizeof c->path[0], "%s/kref", dir);
    }
    rc = write_source(c);
    return rc == CLI_EXIT_OK ? build(c) : rc;
}

int kernel_run_exec(run_ctx *c, bool bench, run_result *res)
{
    int rc = write_file(c->path[2], (const void *const *)c->in, c->bytes, c->n,
                        NULL, 0);
    if (rc == CLI_EXIT_OK && c->ranks > 0)
        rc = kernel_mpi_shards(c);
    return rc == CLI_EXIT_OK
               ? execute(c, c->path[1], c->in, c->emu_cur, bench, 0, res)
               : rc;
}

int kernel_run_order(run_ctx *c, long long order)
{
    run_result res;
    return execute(c, c->path[1], c->in, c->emu_cur, false, order, &res);
}

int kernel_run_naive(run_ctx *c, axe_race_report *races)
{
    run_result res;
    int rc = write_file(c->path[2], (const void *const *)c->ref, c->bytes, c->n,
                        NULL, 0);
    return rc == CLI_EXIT_OK ? execute(c, c->path[RUN_PATH_KREF + 1], c->ref,
                                       races, false, 0, &res)
                             : rc;
}
