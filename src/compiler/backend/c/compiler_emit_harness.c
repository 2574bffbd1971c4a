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
 * the seed by splitmix64.
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
        if (!dyn) {
            axe__text_put(t, "%lld * sizeof(%s), ", (long long)tn->span,
                          axe__dtype_ctype(tn->dtype));
            continue;
        }
        axe__text_put(t, "    ax_bytes[%d] = ", n++);
        if (tn->dyn_extent != NULL) {
            axe__text_put(t, "(size_t)");
            axe__expr_print_c(t, p, tn->dyn_extent);
            axe__text_put(t, " * %lld", (long long)inner);
        } else {
            axe__text_put(t, "%lld", (long long)tn->span);
        }
        axe__text_put(t, " * sizeof(%s);\n", axe__dtype_ctype(tn->dtype));
    }
    if (!dyn)
        axe__text_put(t, "0};\n");
}

static void call(ax_text *t, const axe_program *p)
{
    int i, n = 0;
    axe__text_put(t, "k_%s(", p->name);
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param) {
            axe__text_put(t, "%s(%s *)ax_buf[%d]", n ? ", " : "",
                          axe__dtype_ctype(p->tensors[i].dtype), n);
            n++;
        }
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, "%ss_%s", n++ ? ", " : "", p->scalar_name[i]);
    axe__text_put(t, ");\n");
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

/* The harness (see the file comment). */
void axe__emit_harness(ax_text *t, const axe_program *p)
{
    int n = axe_program_tensor_count(p);
    int i;
    bool dyn = has_dyn_extent(p);
    axe__text_put(t, "\n#ifdef AXE_KERNEL_MAIN\n#include <stdio.h>\n#include "
                     "<stdlib.h>\n#include <time.h>\n\n");
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
    axe__text_put(t,
                  "    void *ax_buf[%d + 1] = {0};\n"
                  "    FILE *f;\n    long reps, r, runs = 0;\n    int i;\n"
                  "    clock_t c0, ticks = 0;\n"
                  "    if (argc != %d) {\n"
                  "        fprintf(stderr, \"usage: %%s IN OUT REPS",
                  n, 4 + p->nscalars);
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, " %s", p->scalar_name[i]);
    axe__text_put(t, "\\n\", argv[0]);\n        return 2;\n    }\n");
    scalars(t, p);
    ranges(t, p);
    if (dyn)
        sizes(t, p, true);
    axe__text_put(t,
                  "    reps = strtol(argv[3], NULL, 10);\n"
                  "    ax_order(getenv(\"AXE_THREAD_ORDER\"));\n"
                  "    f = fopen(argv[1], \"rb\");\n"
                  "    for (i = 0; f != NULL && i < %d; i++) {\n"
                  "        ax_buf[i] = malloc(ax_bytes[i]%s);\n"
                  "        if (ax_buf[i] == NULL || fread(ax_buf[i], 1, "
                  "ax_bytes[i], f) != ax_bytes[i])\n"
                  "            break;\n    }\n"
                  "    if (f == NULL || i < %d || fclose(f) != 0) {\n"
                  "        fprintf(stderr, \"cannot read %%s\\n\", argv[1]);\n"
                  "        return 1;\n    }\n    ",
                  n, dyn ? " > 0 ? ax_bytes[i] : 1" : "", n);
    call(t, p);
    if (axe__program_has_loads(p))
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
                  "    c0 = clock();\n"
                  "    while (reps > 0) {\n"
                  "        for (r = 0; r < reps; r++)\n            ",
                  n, n);
    call(t, p);
    axe__text_put(t,
                  "        runs += reps;\n"
                  "        ticks = clock() - c0;\n"
                  "        if (ticks >= CLOCKS_PER_SEC / 100 || runs >= "
                  "4194304L)\n            break;\n"
                  "        reps = runs < 4194304L - runs ? runs : 4194304L - "
                  "runs;\n    }\n"
                  "    printf(\"%%.9f %%ld\\n\", runs > 0 ? (double)ticks / "
                  "CLOCKS_PER_SEC / (double)runs : 0.0, runs);\n"
                  "    for (i = 0; i < %d; i++)\n        free(ax_buf[i]);\n"
                  "    return 0;\n}\n#endif\n",
                  n);
}
