/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 16-bit floating-point types f16 (IEEE binary16) and bf16 (bfloat16):
 * exact conversions to float and round-to-nearest-even conversions from
 * float, written with integer operations on the bit patterns only, and the
 * same functions as C text for the generated code (ax_h2f, ax_f2h, ax_b2f,
 * ax_f2b). Invariant: the library functions and the emitted text are the
 * same algorithm line by line; tests/test_compiler_half.c checks the
 * library against brute force over all 65536 patterns and the kernel tests
 * check the emitted text against the reference, which uses the library.
 * NaN stays NaN (quiet, sign and top payload bits kept); overflow rounds to
 * infinity as round-to-nearest-even does.
 */
#include <string.h>

#include "compiler_internal.h"

/* h2f(h) is the float whose value is the binary16 value of "h" (exact). */
float axe_f16_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu, x;
    float f;
    if (e == 0x1fu)
        x = s | 0x7f800000u | (m << 13);
    else if (e != 0)
        x = s | ((e + 112u) << 23) | (m << 13);
    else if (m == 0)
        x = s;
    else {
        for (e = 113; (m & 0x400u) == 0; --e)
            m <<= 1;
        x = s | (e << 23) | ((m & 0x3ffu) << 13);
    }
    memcpy(&f, &x, sizeof f);
    return f;
}

/* The binary16 value nearest to "f", ties to the even pattern; beyond the
 * largest finite value by half an ulp or more, infinity. */
uint16_t axe_f16_from_float(float f)
{
    uint32_t x, a, s, e, m, r, rem, half;
    memcpy(&x, &f, sizeof x);
    s = (x >> 16) & 0x8000u;
    a = x & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(s | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u)
        return (uint16_t)(s | 0x7c00u);
    if (a >= 0x38800000u) {
        m = a - 0x38000000u;
        return (uint16_t)(s | ((m + 0xfffu + ((m >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u)
        return (uint16_t)s;
    e = a >> 23;
    m = (a & 0x7fffffu) | 0x800000u;
    r = m >> (126u - e);
    rem = m & ((1u << (126u - e)) - 1u);
    half = 1u << (125u - e);
    if (rem > half || (rem == half && (r & 1u)))
        ++r;
    return (uint16_t)(s | r);
}

/* The float whose value is the bfloat16 value of "b" (exact). */
float axe_bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* The bfloat16 value nearest to "f", ties to the even pattern. */
uint16_t axe_bf16_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static const char h2f_text[] =
    "static inline float ax_h2f(uint16_t h)\n{\n"
    "    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu;\n"
    "    uint32_t m = h & 0x3ffu, x;\n    float f;\n"
    "    if (e == 0x1fu)\n        x = s | 0x7f800000u | (m << 13);\n"
    "    else if (e != 0)\n        x = s | ((e + 112u) << 23) | (m << 13);\n"
    "    else if (m == 0)\n        x = s;\n    else {\n"
    "        for (e = 113; (m & 0x400u) == 0; --e)\n            m <<= 1;\n"
    "        x = s | (e << 23) | ((m & 0x3ffu) << 13);\n    }\n"
    "    memcpy(&f, &x, sizeof f);\n    return f;\n}\n\n";

static const char f2h_text[] =
    "static inline uint16_t ax_f2h(float f)\n{\n"
    "    uint32_t x, a, s, e, m, r, rem, half;\n"
    "    memcpy(&x, &f, sizeof x);\n    s = (x >> 16) & 0x8000u;\n"
    "    a = x & 0x7fffffffu;\n    if (a > 0x7f800000u)\n"
    "        return (uint16_t)(s | 0x7e00u | ((a >> 13) & 0x3ffu));\n"
    "    if (a >= 0x477ff000u)\n        return (uint16_t)(s | 0x7c00u);\n"
    "    if (a >= 0x38800000u) {\n        m = a - 0x38000000u;\n"
    "        return (uint16_t)(s | ((m + 0xfffu + ((m >> 13) & 1u)) >> "
    "13));\n    }\n"
    "    if (a < 0x33000000u)\n        return (uint16_t)s;\n"
    "    e = a >> 23;\n    m = (a & 0x7fffffu) | 0x800000u;\n"
    "    r = m >> (126u - e);\n    rem = m & ((1u << (126u - e)) - 1u);\n"
    "    half = 1u << (125u - e);\n"
    "    if (rem > half || (rem == half && (r & 1u)))\n        ++r;\n"
    "    return (uint16_t)(s | r);\n}\n\n";

static const char b2f_text[] =
    "static inline float ax_b2f(uint16_t b)\n{\n"
    "    uint32_t x = (uint32_t)b << 16;\n    float f;\n"
    "    memcpy(&f, &x, sizeof f);\n    return f;\n}\n\n";

static const char f2b_text[] =
    "static inline uint16_t ax_f2b(float f)\n{\n    uint32_t x;\n"
    "    memcpy(&x, &f, sizeof x);\n    if ((x & 0x7fffffffu) > 0x7f800000u)\n"
    "        return (uint16_t)((x >> 16) | 0x40u);\n"
    "    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n}\n\n";

/* The conversion helpers that the generated code "body" calls (each
 * emitted only when used, so that no static function is unused). */
void axe__emit_half_helpers(ax_text *t, const char *body)
{
    static const char *const names[] = {"ax_h2f(", "ax_f2h(", "ax_b2f(",
                                        "ax_f2b("};
    static const char *const texts[] = {h2f_text, f2h_text, b2f_text, f2b_text};
    int i;
    for (i = 0; i < 4; i++)
        if (body != NULL && strstr(body, names[i]) != NULL)
            axe__text_put(t, "%s", texts[i]);
}

/* How generated C reads a stored element of "d" as its arithmetic type
 * (prefix and suffix around the lvalue): f16/bf16 are widened to float. */
const char *axe__dtype_load_pre(axe_dtype d)
{
    return d == AXE_DTYPE_F16    ? "ax_h2f("
           : d == AXE_DTYPE_BF16 ? "ax_b2f("
                                 : "";
}

/* How generated C stores an arithmetic value into an element of "d". */
const char *axe__dtype_store_pre(axe_dtype d)
{
    return d == AXE_DTYPE_F16    ? "ax_f2h((float)"
           : d == AXE_DTYPE_BF16 ? "ax_f2b((float)"
                                 : "";
}

/* The closing parenthesis of a load or store wrapper of "d", if any. */
const char *axe__dtype_wrap_post(axe_dtype d)
{
    return axe__dtype_is_half(d) ? ")" : "";
}

/* f16 or bf16: stored in 16 bits, computed in float. */
bool axe__dtype_is_half(axe_dtype d)
{
    return d == AXE_DTYPE_F16 || d == AXE_DTYPE_BF16;
}
