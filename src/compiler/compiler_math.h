/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The math operators of the kernel language, defined once for the
 * reference interpreter (compiled into the library) and the C backend
 * (emitted as the same text): one X-macro row per operator, "x" its
 * operand. f32 computes with the float body, f16 and bf16 widen to float
 * and use it too (rounding once when stored), f64 uses the double body.
 * Plain rows are one libm call (float and double function); composite
 * rows are expressions, emitted as one-line macros AXE_<NAME>F and
 * AXE_<NAME> whose text is the stringified body. Invariant: the reference
 * and the generated C evaluate the same expression with the same libm
 * functions in the same precision, so they agree exactly (on one machine;
 * docs/compiler.md, "Math operators").
 */
#ifndef AXE_COMPILER_MATH_H
#define AXE_COMPILER_MATH_H

#include "compiler_internal.h"

/* The bodies are emitted as written: */
/* clang-format off */
/* X(OP, float function, double function) */
#define AX_MATH_PLAIN(X)                                                       \
    X(AX_OP_EXP, expf, exp)                                                    \
    X(AX_OP_SQRT, sqrtf, sqrt)                                                 \
    X(AX_OP_LOG, logf, log)                                                    \
    X(AX_OP_LOG2, log2f, log2)                                                 \
    X(AX_OP_EXP2, exp2f, exp2)                                                 \
    X(AX_OP_TANH, tanhf, tanh)                                                 \
    X(AX_OP_ERF, erff, erf)                                                    \
    X(AX_OP_ABS, fabsf, fabs)

/* X(OP, macro NAME, float body, double body) */
#define AX_MATH_COMPOSITE(X)                                                   \
    X(AX_OP_RSQRT, RSQRT, 1.0f / sqrtf(x), 1.0 / sqrt(x))                      \
    X(AX_OP_SIGMOID, SIGMOID, 1.0f / (1.0f + expf(-(x))),                      \
      1.0 / (1.0 + exp(-(x))))                                                 \
    X(AX_OP_SILU, SILU, (x) * (1.0f / (1.0f + expf(-(x)))),                    \
      (x) * (1.0 / (1.0 + exp(-(x)))))                                         \
    X(AX_OP_GELU, GELU,                                                        \
      0.5f * (x) * (1.0f + erff((x) * 0.70710678118654752440f)),                 \
      0.5 * (x) * (1.0 + erf((x) * 0.70710678118654752440)))                     \
    X(AX_OP_GELU_TANH, GELU_TANH,                                              \
      0.5f * (x) *                                                             \
          (1.0f + tanhf(0.79788456080286535588f *                              \
                        ((x) + 0.044715f * (x) * (x) * (x)))),                 \
      0.5 * (x) *                                                              \
          (1.0 +                                                               \
           tanh(0.79788456080286535588 * ((x) + 0.044715 * (x) * (x) * (x)))))
/* clang-format on */

/* Whether "op" is a row of the tables above or pow. */
bool axe__math_is_op(ax_op op);
/* The reference value of math operator "op" on "a" (and "b" for pow) in
 * the arithmetic of dtype "d" (float for f32, f16, bf16). */
double axe__math_ref(ax_op op, axe_dtype d, double a, double b);
/* The C text that opens the call of "op" on dtype "d" ("expf(",
 * "AXE_GELUF(", ...); the operand and ")" follow. */
const char *axe__math_c_open(ax_op op, axe_dtype d);
/* The macro definitions of the composite rows that "body" uses. */
void axe__emit_math_helpers(ax_text *t, const char *body);

#endif
