/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The harness appended to generated C under `#ifdef AXE_KERNEL_MAIN`:
 * `prog IN OUT REPS` reads every tensor parameter (raw elements, in
 * parameter order) from IN, runs the kernel once, writes the parameters to
 * OUT, then (REPS > 0) times it: batches of runs, REPS first, then
 * doubling, until the runs took at least 10 ms of CPU time (clock()) or
 * 2^22 runs were made; it prints the seconds per run (0 when the clock
 * did not advance) and the number of timed runs. Exit status 0, or 1 with
 * a message when a file or an allocation fails.
 */
#include "compiler_internal.h"

static void sizes(ax_text *t, const axe_program *p)
{
    int i;
    axe__text_put(t, "    static const size_t ax_bytes[] = {");
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            axe__text_put(t, "%lld * sizeof(%s), ",
                          (long long)p->tensors[i].span,
                          axe__dtype_ctype(p->tensors[i].dtype));
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
    axe__text_put(t, ");\n");
}

/* The harness (see the file comment). */
void axe__emit_harness(ax_text *t, const axe_program *p)
{
    int n = axe_program_tensor_count(p);
    axe__text_put(t, "\n#ifdef AXE_KERNEL_MAIN\n#include <stdio.h>\n#include "
                     "<stdlib.h>\n#include <time.h>\n\n"
                     "int main(int argc, char **argv)\n{\n");
    sizes(t, p);
    axe__text_put(t,
                  "    void *ax_buf[%d + 1] = {0};\n"
                  "    FILE *f;\n    long reps, r, runs = 0;\n    int i;\n"
                  "    clock_t c0, ticks = 0;\n"
                  "    if (argc != 4) {\n"
                  "        fprintf(stderr, \"usage: %%s IN OUT REPS\\n\", "
                  "argv[0]);\n        return 2;\n    }\n"
                  "    reps = strtol(argv[3], NULL, 10);\n"
                  "    f = fopen(argv[1], \"rb\");\n"
                  "    for (i = 0; f != NULL && i < %d; i++) {\n"
                  "        ax_buf[i] = malloc(ax_bytes[i]);\n"
                  "        if (ax_buf[i] == NULL || fread(ax_buf[i], 1, "
                  "ax_bytes[i], f) != ax_bytes[i])\n"
                  "            break;\n    }\n"
                  "    if (f == NULL || i < %d || fclose(f) != 0) {\n"
                  "        fprintf(stderr, \"cannot read %%s\\n\", argv[1]);\n"
                  "        return 1;\n    }\n    ",
                  n, n, n);
    call(t, p);
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
