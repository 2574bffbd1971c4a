/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data-dependent region starts in the CUDA backend. The kernel tests each
 * start as the C backend does (compiler_emit_check.c prints the test and
 * skips the operator for that thread); a failure is recorded on the
 * device, the first one to win an atomicCAS on ax_err_flag: its site (the
 * operator's number, operand and dimension) and its values (the start,
 * the extent, the element's coordinates and value) in ax_err_val. The
 * launcher clears the record before the launch, reads it back after it
 * (synchronizing the stream) and, when set, formats the C backend's
 * message on the host ("region of 'Emb' out of bounds at run time (line
 * 14): dimension 0 starts at 1000 ..."), which axe_error_NAME() returns,
 * and returns cudaErrorAssert (the context stays usable). Invariant: only
 * programs with data-dependent starts get any of this.
 */
#include "compiler_backend.h"
#include "compiler_cuda.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* `ax_start_error(...)`: the failure of dimension "d" of operand "r" of
 * "s", whose start reads element "ld" (the ax_backend hook). */
void axe__cuda_start_error(ax_text *t, const axe_program *p, const ax_stmt *s,
                           const ax_ref *r, int d, const ax_expr *ld, int ind)
{
    indent_put(t, ind);
    axe__text_put(t, "{\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_ev[] = {%dL, %dL, %dL, ", s->index,
                  (int)(r - s->args), d);
    axe__emit_start_values(t, p, r, d, ld);
    axe__text_put(t, "};\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "ax_start_error(ax_ev, %d);\n", 6 + ld->load->ndim);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The device side: the record and the functions that test and fill it. */
void axe__cuda_check_device(ax_text *t, const axe_program *p)
{
    if (!axe__program_has_loads(p))
        return;
    axe__text_put(
        t,
        "/* The first data-dependent start out of bounds of a launch: its "
        "operator,\n * operand, dimension, start, extent, the element's "
        "coordinates and value. */\n"
        "__device__ unsigned long long ax_err_flag;\n"
        "__device__ long ax_err_val[16];\n\n"
        "/* Whether a start s lies outside [0, hi]. */\n"
        "static __device__ __forceinline__ int ax_outside(long s, long hi)\n"
        "{\n    return s < 0 || s > hi;\n}\n\n"
        "/* Records the failure \"v\" (n values) unless one is recorded. */\n"
        "static __device__ void ax_start_error(const long *v, int n)\n{\n"
        "    if (atomicCAS(&ax_err_flag, 0ull, 1ull) != 0ull)\n"
        "        return;\n"
        "    for (int i = 0; i < n; ++i)\n"
        "        ax_err_val[i] = v[i];\n"
        "    __threadfence();\n}\n\n");
}

/* `if (site) snprintf(message)` for dimension "d" of operand "i" of "s". */
static void site_message(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i, int d, const ax_expr *ld)
{
    int k;
    axe__text_put(t,
                  "    if (v[0] == %d && v[1] == %d && v[2] == %d)\n"
                  "        snprintf(ax_error, sizeof ax_error, ",
                  s->index, i, d);
    axe__emit_start_format(t, p, s, &s->args[i], d, ld);
    for (k = 3; k < 6 + ld->load->ndim; k++)
        axe__text_put(t, ", v[%d]", k);
    axe__text_put(t, ");\n");
}

static void block_messages(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_expr *ld;
    int i, d, n;
    for (; s != NULL; s = s->next) {
        block_messages(t, p, s->body);
        block_messages(t, p, s->else_body);
        if (s->kind != AX_ST_OP || s->dead)
            continue;
        for (i = 0; i < s->nargs; i++)
            for (d = 0; d < s->args[i].ndim; d++) {
                ld = axe__expr_load(s->args[i].start[d], &n);
                if (ld != NULL && !s->args[i].masked[d])
                    site_message(t, p, s, i, d, ld);
            }
    }
}

/* The host side: the message of a record and axe_error_NAME(). */
void axe__cuda_check_host(ax_text *t, const axe_program *p)
{
    if (!axe__program_has_loads(p))
        return;
    axe__text_put(t,
                  "\n/* The message of the last launch's first "
                  "data-dependent start out of bounds\n * (its operator "
                  "was skipped there), or NULL. */\n"
                  "static char ax_error[256];\n\n"
                  "extern \"C\" const char *axe_error_%s(void)\n{\n"
                  "    return ax_error[0] != '\\0' ? ax_error : NULL;\n}\n\n"
                  "static void ax_error_message(const long *v)\n{\n",
                  p->name);
    block_messages(t, p, p->body);
    axe__text_put(t, "}\n");
}

/* The launcher's part before the launch: clear the record. */
void axe__cuda_check_before(ax_text *t, const axe_program *p)
{
    if (!axe__program_has_loads(p))
        return;
    axe__text_put(
        t, "    ax_error[0] = '\\0';\n"
           "    const unsigned long long ax_zero = 0;\n"
           "    cudaError_t ax_rc = cudaMemcpyToSymbolAsync(ax_err_flag, "
           "&ax_zero, sizeof ax_zero, 0,\n"
           "                                                "
           "cudaMemcpyHostToDevice, ax_stream);\n"
           "    if (ax_rc != cudaSuccess)\n        return (int)ax_rc;\n");
}

/* The launcher's part after the launch: read the record back (the
 * launch's error first). */
void axe__cuda_check_after(ax_text *t, const axe_program *p)
{
    if (!axe__program_has_loads(p))
        return;
    axe__text_put(
        t, "    unsigned long long ax_flag = 0;\n"
           "    long ax_val[16];\n"
           "    if ((ax_rc = cudaGetLastError()) != cudaSuccess ||\n"
           "        (ax_rc = cudaMemcpyFromSymbolAsync(&ax_flag, ax_err_flag, "
           "sizeof ax_flag, 0,\n"
           "                                           "
           "cudaMemcpyDeviceToHost, ax_stream)) != cudaSuccess ||\n"
           "        (ax_rc = cudaMemcpyFromSymbolAsync(ax_val, ax_err_val, "
           "sizeof ax_val, 0,\n"
           "                                           "
           "cudaMemcpyDeviceToHost, ax_stream)) != cudaSuccess ||\n"
           "        (ax_rc = cudaStreamSynchronize(ax_stream)) != "
           "cudaSuccess)\n"
           "        return (int)ax_rc;\n"
           "    if (ax_flag == 0)\n        return (int)cudaSuccess;\n"
           "    ax_error_message(ax_val);\n"
           "    return (int)cudaErrorAssert; /* a start out of bounds */\n");
}
