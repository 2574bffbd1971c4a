/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The math operators (log log2 exp exp2 sqrt rsqrt tanh erf abs sigmoid
 * silu gelu gelu_tanh pow) from the tables of compiler_math.h: their
 * reference values, the C text that calls them and the macro definitions
 * of the composite ones. Invariant: both sides expand the same table row.
 */
#include <math.h>
#include <string.h>

#include "compiler_math.h"

/* Whether "op" is a math operator. */
bool axe__math_is_op(ax_op op)
{
#define IS_PLAIN(OP, F, D) || op == OP
#define IS_COMPOSITE(OP, N, F, D) || op == OP
    return op == AX_OP_POW AX_MATH_PLAIN(IS_PLAIN)
                     AX_MATH_COMPOSITE(IS_COMPOSITE);
#undef IS_PLAIN
#undef IS_COMPOSITE
}

static float ref_float(ax_op op, float x, float y)
{
#define REF_PLAIN(OP, F, D)                                                    \
    if (op == OP)                                                              \
        return F(x);
#define REF_COMPOSITE(OP, N, F, D)                                             \
    if (op == OP)                                                              \
        return F;
    AX_MATH_PLAIN(REF_PLAIN)
    AX_MATH_COMPOSITE(REF_COMPOSITE)
#undef REF_PLAIN
#undef REF_COMPOSITE
    return powf(x, y);
}

static double ref_double(ax_op op, double x, double y)
{
#define REF_PLAIN(OP, F, D)                                                    \
    if (op == OP)                                                              \
        return D(x);
#define REF_COMPOSITE(OP, N, F, D)                                             \
    if (op == OP)                                                              \
        return D;
    AX_MATH_PLAIN(REF_PLAIN)
    AX_MATH_COMPOSITE(REF_COMPOSITE)
#undef REF_PLAIN
#undef REF_COMPOSITE
    return pow(x, y);
}

/* op(a[, b]) in dtype "d"'s arithmetic: double for f64, else float. */
double axe__math_ref(ax_op op, axe_dtype d, double a, double b)
{
    if (d == AXE_DTYPE_F64)
        return ref_double(op, a, b);
    return (double)ref_float(op, (float)a, (float)b);
}

/* "expf(", "AXE_GELUF(", "pow(", ... (see compiler_math.h). */
const char *axe__math_c_open(ax_op op, axe_dtype d)
{
    bool f = d != AXE_DTYPE_F64;
#define OPEN_PLAIN(OP, F, D)                                                   \
    if (op == OP)                                                              \
        return f ? #F "(" : #D "(";
#define OPEN_COMPOSITE(OP, N, F, D)                                            \
    if (op == OP)                                                              \
        return f ? "AXE_" #N "F(" : "AXE_" #N "(";
    AX_MATH_PLAIN(OPEN_PLAIN)
    AX_MATH_COMPOSITE(OPEN_COMPOSITE)
#undef OPEN_PLAIN
#undef OPEN_COMPOSITE
    return f ? "powf(" : "pow(";
}

/* Integer min (the shuffle step of reduce min), integer abs in uint32_t
 * (|INT_MIN| wraps to INT_MIN when stored through ax_s32), and the order
 * of argmax/argmin pairs (value v, index j) against the best (a, i): a
 * NaN loses to a number, between NaNs and between equal values the lower
 * index wins (compiler_ref.c's arg_better, written with doubles). */
static const char *const helper_names[] = {
    "AXE_MIN(", "AXE_IABS(", "AXE_ARGMAX_BETTER(", "AXE_ARGMIN_BETTER("};
static const char *const helper_texts[] = {
    "#define AXE_MIN(a, b) ((a) < (b) ? (a) : (b))\n",
    "#define AXE_IABS(x) ((x) < 0 ? 0u - (uint32_t)(x) : (uint32_t)(x))\n",
    "#define AXE_ARGMAX_BETTER(v, j, a, i) ((v) != (v) || (a) != (a) ? (a) != "
    "(a) && ((v) == (v) || (j) < (i)) : (v) == (a) ? (j) < (i) : (v) > "
    "(a))\n",
    "#define AXE_ARGMIN_BETTER(v, j, a, i) ((v) != (v) || (a) != (a) ? (a) != "
    "(a) && ((v) == (v) || (j) < (i)) : (v) == (a) ? (j) < (i) : (v) < "
    "(a))\n"};

/* The helper macros that "body" uses: one line each, so that the
 * generated kernel code holds no division outside #define lines
 * (tests/compiler_kernels.sh checks that). */
void axe__emit_math_helpers(ax_text *t, const char *body)
{
    int i;
    for (i = 0; i < 4; i++)
        if (body != NULL && strstr(body, helper_names[i]) != NULL)
            axe__text_put(t, "%s", helper_texts[i]);
#define EMIT(OP, N, F, D)                                                      \
    if (body != NULL && strstr(body, "AXE_" #N "F(") != NULL)                  \
        axe__text_put(t, "#define AXE_" #N "F(x) (" #F ")\n");                 \
    if (body != NULL && strstr(body, "AXE_" #N "(") != NULL)                   \
        axe__text_put(t, "#define AXE_" #N "(x) (" #D ")\n");
    AX_MATH_COMPOSITE(EMIT)
#undef EMIT
}
