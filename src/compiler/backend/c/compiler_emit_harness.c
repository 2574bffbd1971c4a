/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The harness appended to generated C under `#ifdef AXE_KERNEL_MAIN`:
 * `prog IN OUT REPS [VALUE...]` takes one value per runtime scalar (in
 * declaration order; each an i32, and every runtime extent, grid size
 * and trip count must lie in [0, its largest value]), reads every tensor
 * parameter (raw elements, in parameter order, as many as the values
 * give) from IN, runs the kernel once, writes the parameters to
 * OUT, then (REPS > 0) times it: batches of runs, REPS first, then
 * doubling, until the runs took at least 10 ms of CPU time (clock()) or
 * 2^22 runs were made; it prints the seconds per run (0 when the clock
 * did not advance) and the number of timed runs. Exit status 0, or 1 with
 * a message when a file or an allocation fails. The environment variable
 * AXE_THREAD_ORDER sets the order of the threads of each phase: 0 or
 * unset ascending, -1 descending, a positive seed the permutation
 * k -> (k a + b) mod threads, a coprime with threads, a and b drawn from
 * the seed by splitmix64. The CUDA backend's variant runs the kernel
 * through its launcher on device copies (cudaMalloc, cudaMemcpy), checks
 * the launch's code and cudaDeviceSynchronize's (exit 1 with the error's
 * string), times with CUDA events and leaves the thread order to the
 * runtime (the emulation reads AXE_THREAD_ORDER itself). A mesh
 * program's harness (one per rank: axe__emit_c_mesh's, or the CUDA
 * backend's on device copies, whose launches synchronize) times wall-clock
 * through functions the multi-device backend defines: ax_mesh_now()
 * (seconds, after the ranks line up), ax_mesh_stop(stop) (every rank's
 * verdict on ending the batches, so all run the same batches: their
 * device operators are collectives) and ax_mesh_max(seconds) (the
 * slowest rank's seconds per run, what is printed).
 */
#include "compiler_internal.h"

/* The runtime scalars from argv[4..], each checked to be an i32, or a
 * finite number (strtod) for a float scalar (the kernel rounds it). */
static void scalars(ax_text *t, const axe_program *p)
{
    int i;
    for (i = 0; i < p->nscalars; i++)
        if (p->scalar_dtype[i] != AXE_DTYPE_I32)
            axe__text_put(t,
                          "    s_%s = strtod(argv[%d], &ax_end);\n"
                          "    if (*argv[%d] == '\\0' || *ax_end != '\\0' || "
                          "!(s_%s - s_%s == 0)) {\n"
                          "        fprintf(stderr, \"%s: not a finite "
                          "number: %%s\\n\", argv[%d]);\n"
                          "        return 2;\n    }\n",
                          p->scalar_name[i], 4 + i, 4 + i, p->scalar_name[i],
                          p->scalar_name[i], p->scalar_name[i], 4 + i);
        else
            axe__text_put(t,
                          "    ax_v = strtoll(argv[%d], &ax_end, 10);\n"
                          "    if (*argv[%d] == '\\0' || *ax_end != '\\0' || "
                          "ax_v < INT32_MIN || ax_v > INT32_MAX) {\n"
                          "        fprintf(stderr, \"%s: not an i32: %%s\\n\", "
                          "argv[%d]);\n        return 2;\n    }\n"
                          "    s_%s = (int32_t)ax_v;\n",
                          4 + i, 4 + i, p->scalar_name[i], 4 + i,
                          p->scalar_name[i]);
}

/* Every runtime extent, grid size and trip count in [0, nominal]. */
static void ranges(ax_text *t, const axe_program *p)
{
    ax_dyn_list l;
    int i;
    axe__dyn_list(p, &l);
    for (i = 0; i < l.n; i++) {
        axe__text_put(t, "    ax_v = ");
        axe__expr_print_c(t, p, l.expr[i]);
        axe__text_put(t,
                      ";\n    if (ax_v < 0 || ax_v > %lldLL) {\n"
                      "        fprintf(stderr, \"%s is %%lld: outside [0, "
                      "%lld]\\n\", ax_v);\n        return 1;\n    }\n",
                      (long long)l.nominal[i], l.what[i],
                      (long long)l.nominal[i]);
    }
}

static bool has_dyn_extent(const axe_program *p)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].dyn_extent != NULL)
            return true;
    return false;
}

/* Buffer sizes: constants, or (with runtime extents) computed from the
 * scalars: a row-major tensor of runtime extent E holds E * inner. */
static void sizes(ax_text *t, const axe_program *p, bool dyn)
{
    int i, d, n = 0;
    if (!dyn)
        axe__text_put(t, "    static const size_t ax_bytes[] = {");
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *tn = &p->tensors[i];
        int64_t inner = 1;
        if (!tn->param)
            continue;
        for (d = 1; d < tn->ndim; d++)
            inner *= tn->shape[d];
        if (!dyn && tn->dtype == AXE_DTYPE_I4) { /* two per byte */
            axe__text_put(t, "%lld, ",
                          (long long)axe_dtype_storage(tn->dtype, tn->span));
            continue;
        }
        if (!dyn) {
            axe__text_put(t, "%lld * sizeof(%s), ", (long long)tn->span,
                          axe__dtype_ctype(tn->dtype));
            continue;
        }
        axe__text_put(t, "    ax_bytes[%d] = %s", n++,
                      tn->dtype == AXE_DTYPE_I4 ? "(" : "");
        if (tn->dyn_extent != NULL) {
            axe__text_put(t, "(size_t)");
            axe__expr_print_c(t, p, tn->dyn_extent);
            axe__text_put(t, " * %lld", (long long)inner);
        } else {
            axe__text_put(t, "%lld", (long long)tn->span);
        }
        if (tn->dtype == AXE_DTYPE_I4)
            axe__text_put(t, " + 1) / 2;\n");
        else
            axe__text_put(t, " * sizeof(%s);\n", axe__dtype_ctype(tn->dtype));
    }
    if (!dyn)
        axe__text_put(t, "0};\n");
}

static void call(ax_text *t, const axe_program *p, bool cuda)
{
    int i, n = 0;
    axe__text_put(t, cuda ? "{\n        ax_rc = axe_launch_%s(" : "k_%s(",
                  p->name);
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param) {
            axe__text_put(t, "%s(%s *)ax_%s[%d]", n ? ", " : "",
                          axe__dtype_ctype(p->tensors[i].dtype),
                          cuda ? "dev" : "buf", n);
            n++;
        }
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, "%ss_%s", n++ ? ", " : "", p->scalar_name[i]);
    axe__text_put(t, "%s%s);\n", cuda && n ? ", " : "",
                  cuda ? "(cudaStream_t)0" : "");
    if (cuda)
        axe__text_put(
            t, "        if (ax_rc == 0)\n"
               "            ax_rc = (int)cudaDeviceSynchronize();\n"
               "        if (ax_rc != 0) {\n"
               "            fprintf(stderr, \"the launch failed: %%s\\n\", "
               "cudaGetErrorString((cudaError_t)ax_rc));\n"
               "            return 1;\n        }\n    }\n");
}

/* CUDA: device copies of the buffers that were read. */
static void device_buffers(ax_text *t, int n)
{
    axe__text_put(
        t,
        "for (i = 0; i < %d; i++)\n"
        "        if (cudaMalloc(&ax_dev[i], ax_bytes[i] > 0 ? ax_bytes[i] : "
        "1) != cudaSuccess ||\n"
        "            cudaMemcpy(ax_dev[i], ax_buf[i], ax_bytes[i], "
        "cudaMemcpyHostToDevice) != cudaSuccess) {\n"
        "            fprintf(stderr, \"cannot copy the inputs to the "
        "device\\n\");\n"
        "            return 1;\n        }\n    ",
        n);
}

/* ax_order(AXE_THREAD_ORDER): the orders of the file comment. */
static void order_fn(ax_text *t, const axe_program *p)
{
    long long n = (long long)p->threads;
    axe__text_put(t,
                  "static unsigned long long ax_mix(unsigned long long *s)\n"
                  "{\n"
                  "    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);\n"
                  "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
                  "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
                  "    return z ^ (z >> 31);\n}\n\n"
                  "static long ax_gcd(long a, long b)\n{\n"
                  "    return b == 0 ? a : ax_gcd(b, a %% b);\n}\n\n"
                  "static void ax_order(const char *env)\n{\n"
                  "    long long order = env != NULL ? strtoll(env, NULL, 10) "
                  ": 0;\n"
                  "    unsigned long long s = (unsigned long long)order;\n"
                  "    if (order < 0) {\n"
                  "        ax_tmul = %lldL - 1;\n        ax_tadd = %lldL - 1;\n"
                  "    } else if (order > 0) {\n"
                  "        ax_tmul = (long)(ax_mix(&s) %% %lldULL);\n"
                  "        while (ax_gcd(ax_tmul, %lldL) != 1)\n"
                  "            ax_tmul = (ax_tmul + 1) %% %lldL;\n"
                  "        ax_tadd = (long)(ax_mix(&s) %% %lldULL);\n"
                  "    }\n}\n\n",
                  n, n, n, n, n, n);
}

/* The harness (see the file comment); "cuda": through the launcher
 * (axe_launch_NAME) on device copies of the buffers, timed with CUDA
 * events, the thread order left to the runtime (the emulation's). */
void axe__emit_harness(ax_text *t, const axe_program *p, bool cuda)
{
    int n = axe_program_tensor_count(p);
    int i;
    bool dyn = has_dyn_extent(p), mesh = p->ndev > 0;
    bool events = cuda && !mesh; /* one device: timed with CUDA events */
    axe__text_put(t, "\n#ifdef AXE_KERNEL_MAIN\n#include <stdio.h>\n#include "
                     "<stdlib.h>\n#include <time.h>\n\n");
    if (!cuda)
        order_fn(t, p);
    axe__text_put(t, "int main(int argc, char **argv)\n{\n");
    if (dyn)
        axe__text_put(t, "    size_t ax_bytes[%d + 1] = {0};\n", n);
    else
        sizes(t, p, false);
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, "    %s s_%s;\n",
                      p->scalar_dtype[i] != AXE_DTYPE_I32 ? "double"
                                                          : "int32_t",
                      p->scalar_name[i]);
    for (i = 0; i < p->nscalars; i++)
        if (p->scalar_dtype[i] == AXE_DTYPE_I32)
            break;
    if (i < p->nscalars)
        axe__text_put(t, "    long long ax_v;\n");
    if (p->nscalars > 0)
        axe__text_put(t, "    char *ax_end;\n");
    axe__text_put(
        t,
        "    void *ax_buf[%d + 1] = {0};\n"
        "    FILE *f;\n    long reps, r, runs = 0;\n    int i;\n"
        "%s"
        "    if (argc != %d) {\n"
        "        fprintf(stderr, \"usage: %%s IN OUT REPS",
        n,
        events ? "    void *ax_dev[sizeof ax_buf / sizeof ax_buf[0]] = "
                 "{0};\n    int ax_rc;\n    float ax_ms = 0;\n"
                 "    cudaEvent_t ax_e0, ax_e1;\n"
        : cuda ? "    void *ax_dev[sizeof ax_buf / sizeof ax_buf[0]] = "
                 "{0};\n    int ax_rc;\n"
                 "    double ax_t0 = 0, ax_sec = 0;\n"
        : mesh ? "    double ax_t0 = 0, ax_sec = 0;\n"
               : "    clock_t c0, ticks = 0;\n",
        4 + p->nscalars);
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, " %s", p->scalar_name[i]);
    axe__text_put(t, "\\n\", argv[0]);\n        return 2;\n    }\n");
    scalars(t, p);
    ranges(t, p);
    if (dyn)
        sizes(t, p, true);
    axe__text_put(t,
                  "    reps = strtol(argv[3], NULL, 10);\n%s"
                  "    f = fopen(argv[1], \"rb\");\n"
                  "    for (i = 0; f != NULL && i < %d; i++) {\n"
                  "        ax_buf[i] = malloc(ax_bytes[i]%s);\n"
                  "        if (ax_buf[i] == NULL || fread(ax_buf[i], 1, "
                  "ax_bytes[i], f) != ax_bytes[i])\n"
                  "            break;\n    }\n"
                  "    if (f == NULL || i < %d || fclose(f) != 0) {\n"
                  "        fprintf(stderr, \"cannot read %%s\\n\", argv[1]);\n"
                  "        return 1;\n    }\n    ",
                  cuda ? "" : "    ax_order(getenv(\"AXE_THREAD_ORDER\"));\n",
                  n, dyn ? " > 0 ? ax_bytes[i] : 1" : "", n);
    if (cuda)
        device_buffers(t, n);
    call(t, p, cuda);
    if (cuda)
        axe__text_put(
            t,
            "    for (i = 0; i < %d; i++)\n"
            "        if (cudaMemcpy(ax_buf[i], ax_dev[i], ax_bytes[i], "
            "cudaMemcpyDeviceToHost) != cudaSuccess) {\n"
            "            fprintf(stderr, \"cannot copy the outputs "
            "from the device\\n\");\n"
            "            return 1;\n        }\n",
            n);
    if (!cuda && axe__program_has_loads(p))
        axe__text_put(t,
                      "    if (k_%s_error() != NULL) {\n"
                      "        fprintf(stderr, \"%%s\\n\", k_%s_error());\n"
                      "        return 1;\n    }\n",
                      p->name, p->name);
    axe__text_put(t,
                  "    f = fopen(argv[2], \"wb\");\n"
                  "    for (i = 0; f != NULL && i < %d; i++)\n"
                  "        if (fwrite(ax_buf[i], 1, ax_bytes[i], f) != "
                  "ax_bytes[i])\n            break;\n"
                  "    if (f == NULL || i < %d || fclose(f) != 0) {\n"
                  "        fprintf(stderr, \"cannot write %%s\\n\", "
                  "argv[2]);\n        return 1;\n    }\n"
                  "%s"
                  "    while (reps > 0) {\n"
                  "        for (r = 0; r < reps; r++)\n            ",
                  n, n,
                  events ? "    cudaEventCreate(&ax_e0);\n"
                           "    cudaEventCreate(&ax_e1);\n"
                           "    cudaEventRecord(ax_e0, 0);\n"
                  : mesh ? "    ax_t0 = ax_mesh_now();\n"
                         : "    c0 = clock();\n");
    call(t, p, cuda);
    axe__text_put(
        t, "        runs += reps;\n%s",
        events ? "        cudaEventRecord(ax_e1, 0);\n"
                 "        cudaEventSynchronize(ax_e1);\n"
                 "        cudaEventElapsedTime(&ax_ms, ax_e0, ax_e1);\n"
                 "        if (ax_ms >= 10.0f || runs >= 4194304L)\n"
        : mesh ? "        ax_sec = ax_mesh_now() - ax_t0;\n"
                 "        if (ax_mesh_stop(ax_sec >= 0.01 || "
                 "runs >= 4194304L))\n"
               : "        ticks = clock() - c0;\n"
                 "        if (ticks >= CLOCKS_PER_SEC / 100 || runs >= "
                 "4194304L)\n");
    axe__text_put(t,
                  "            break;\n"
                  "        reps = runs < 4194304L - runs ? runs : 4194304L - "
                  "runs;\n    }\n"
                  "    printf(\"%%.9f %%ld\\n\", runs > 0 ? %s / "
                  "(double)runs : 0.0, runs);\n"
                  "    for (i = 0; i < %d; i++)\n        free(ax_buf[i]);\n",
                  events ? "(double)ax_ms / 1000.0"
                  : mesh ? "ax_mesh_max(ax_sec)"
                         : "(double)ticks / CLOCKS_PER_SEC",
                  n);
    if (cuda)
        axe__text_put(t,
                      "    for (i = 0; i < %d; i++)\n"
                      "        cudaFree(ax_dev[i]);\n",
                      n);
    if (events)
        axe__text_put(t, "    cudaEventDestroy(ax_e0);\n"
                         "    cudaEventDestroy(ax_e1);\n");
    axe__text_put(t, "    return 0;\n}\n#endif\n");
}
