/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floating-point types narrower than f32, stored as bit patterns and
 * computed in float: f16 (IEEE binary16), bf16 (bfloat16) and the OCP
 * FP8 formats e4m3 (bias 7, no infinities, NaN = S.1111.111, largest
 * 448) and e5m2 (bias 15, IEEE-like with infinities, largest 57344).
 * Exact conversions to float and round-to-nearest-even conversions from
 * float, written with integer operations on the bit patterns only, and
 * the same functions as C text for the generated code (ax_h2f, ax_f2h,
 * ax_b2f, ax_f2b; ax_f8_to_f and ax_f_to_f8 with their e4m3/e5m2
 * wrappers). Invariant: the library functions and the emitted text are
 * the same algorithm line by line; tests/test_compiler_half.c checks the
 * library against brute force over every pattern and the kernel tests
 * check the emitted text against the reference, which uses the library.
 * f16/bf16: NaN stays NaN (quiet, sign and top payload bits kept);
 * overflow rounds to infinity as round-to-nearest-even does. fp8: as PTX
 * cvt.rn.satfinite{.e4m3x2,.e5m2x2}.f32: a finite value beyond the
 * largest (after rounding) and an infinity give the largest finite value
 * of their sign, NaN gives the NaN pattern S.1111111 of its sign.
 * tf32 (axe_tf32_round, emitted as ax_tf32): PTX cvt.rna.tf32.f32 kept in
 * a float, what a gemm(C, A, B, tf32) does to A and B.
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

/* PTX cvt.rna.tf32.f32 (kernel.h): half an ulp of tf32 (bit 12) added to
 * the bits of a finite value rounds its magnitude to nearest, ties away
 * from zero, the carry running into the exponent (up to infinity); then
 * the 13 bits below tf32's mantissa are cleared. NaN stays a quiet NaN. */
float axe_tf32_round(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        x = (x & 0xffffe000u) | 0x00400000u;
    else if ((x & 0x7fffffffu) < 0x7f800000u)
        x = (x + 0x1000u) & 0xffffe000u;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* The value of the 8-bit pattern "x" with "mb" mantissa bits, exponent
 * bias "bias", and, when "ieee", infinities and NaNs at the top exponent
 * (e5m2); otherwise only S.1111.111 is NaN (e4m3). Exact. */
static float f8_to_float(uint32_t x, uint32_t mb, uint32_t bias, int ieee)
{
    uint32_t s = (x & 0x80u) << 24, emax = (0x7fu >> mb);
    uint32_t e = (x >> mb) & emax, m = x & ((1u << mb) - 1u), y;
    float f;
    if (ieee && e == emax)
        y = s | 0x7f800000u | (m << (23u - mb));
    else if (!ieee && (x & 0x7fu) == 0x7fu)
        y = s | 0x7fc00000u;
    else if (e != 0)
        y = s | ((e + 127u - bias) << 23) | (m << (23u - mb));
    else if (m == 0)
        y = s;
    else {
        for (e = 128u - bias; (m & (1u << mb)) == 0; --e)
            m <<= 1;
        y = s | (e << 23) | ((m & ((1u << mb) - 1u)) << (23u - mb));
    }
    memcpy(&f, &y, sizeof f);
    return f;
}

/* The 8-bit pattern nearest to "f" (ties to the even pattern), "mb"
 * mantissa bits and bias "bias", saturated to "maxpat" (the largest
 * finite pattern): a finite value or an infinity beyond it gives it. */
static uint8_t f8_from_float(float f, uint32_t mb, uint32_t bias,
                             uint32_t maxpat)
{
    uint32_t x, a, s, e, m, r, rem, half, sh;
    memcpy(&x, &f, sizeof x);
    s = (x >> 24) & 0x80u;
    a = x & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint8_t)(s | 0x7fu);
    if (a >= ((128u - bias) << 23)) {
        m = a - ((127u - bias) << 23);
        r = (m + (1u << (22u - mb)) - 1u + ((m >> (23u - mb)) & 1u)) >>
            (23u - mb);
        return (uint8_t)(s | (r > maxpat ? maxpat : r));
    }
    if (a < ((127u - bias - mb) << 23))
        return (uint8_t)s;
    e = a >> 23;
    m = (a & 0x7fffffu) | 0x800000u;
    sh = 151u - bias - mb - e;
    r = m >> sh;
    rem = m & ((1u << sh) - 1u);
    half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (r & 1u)))
        ++r;
    return (uint8_t)(s | r);
}

/* e4m3: 3 mantissa bits, bias 7, largest 0x7e (448). */
float axe_e4m3_to_float(uint8_t x) { return f8_to_float(x, 3, 7, 0); }
uint8_t axe_e4m3_from_float(float f) { return f8_from_float(f, 3, 7, 0x7eu); }
/* e5m2: 2 mantissa bits, bias 15, largest 0x7b (57344). */
float axe_e5m2_to_float(uint8_t x) { return f8_to_float(x, 2, 15, 1); }
uint8_t axe_e5m2_from_float(float f) { return f8_from_float(f, 2, 15, 0x7bu); }

static const char f82f_text[] =
    "static inline float ax_f8_to_f(uint32_t x, uint32_t mb, uint32_t bias, "
    "int ieee)\n{\n"
    "    uint32_t s = (x & 0x80u) << 24, emax = (0x7fu >> mb);\n"
    "    uint32_t e = (x >> mb) & emax, m = x & ((1u << mb) - 1u), y;\n"
    "    float f;\n"
    "    if (ieee && e == emax)\n"
    "        y = s | 0x7f800000u | (m << (23u - mb));\n"
    "    else if (!ieee && (x & 0x7fu) == 0x7fu)\n"
    "        y = s | 0x7fc00000u;\n"
    "    else if (e != 0)\n"
    "        y = s | ((e + 127u - bias) << 23) | (m << (23u - mb));\n"
    "    else if (m == 0)\n        y = s;\n    else {\n"
    "        for (e = 128u - bias; (m & (1u << mb)) == 0; --e)\n"
    "            m <<= 1;\n"
    "        y = s | (e << 23) | ((m & ((1u << mb) - 1u)) << (23u - mb));\n"
    "    }\n"
    "    memcpy(&f, &y, sizeof f);\n    return f;\n}\n\n";

static const char f2f8_text[] =
    "static inline uint8_t ax_f_to_f8(float f, uint32_t mb, uint32_t bias,\n"
    "                                 uint32_t maxpat)\n{\n"
    "    uint32_t x, a, s, e, m, r, rem, half, sh;\n"
    "    memcpy(&x, &f, sizeof x);\n    s = (x >> 24) & 0x80u;\n"
    "    a = x & 0x7fffffffu;\n    if (a > 0x7f800000u)\n"
    "        return (uint8_t)(s | 0x7fu);\n"
    "    if (a >= ((128u - bias) << 23)) {\n"
    "        m = a - ((127u - bias) << 23);\n"
    "        r = (m + (1u << (22u - mb)) - 1u + ((m >> (23u - mb)) & 1u)) >>\n"
    "            (23u - mb);\n"
    "        return (uint8_t)(s | (r > maxpat ? maxpat : r));\n    }\n"
    "    if (a < ((127u - bias - mb) << 23))\n        return (uint8_t)s;\n"
    "    e = a >> 23;\n    m = (a & 0x7fffffu) | 0x800000u;\n"
    "    sh = 151u - bias - mb - e;\n    r = m >> sh;\n"
    "    rem = m & ((1u << sh) - 1u);\n    half = 1u << (sh - 1u);\n"
    "    if (rem > half || (rem == half && (r & 1u)))\n        ++r;\n"
    "    return (uint8_t)(s | r);\n}\n\n";

static const char e4m3_to_f_text[] =
    "static inline float ax_e4m3_to_f(uint8_t x) { return ax_f8_to_f(x, 3, "
    "7, 0); }\n\n";
static const char f_to_e4m3_text[] =
    "static inline uint8_t ax_f_to_e4m3(float f)\n{\n"
    "    return ax_f_to_f8(f, 3, 7, 0x7eu);\n}\n\n";
static const char e5m2_to_f_text[] =
    "static inline float ax_e5m2_to_f(uint8_t x) { return ax_f8_to_f(x, 2, "
    "15, 1); }\n\n";
static const char f_to_e5m2_text[] =
    "static inline uint8_t ax_f_to_e5m2(float f)\n{\n"
    "    return ax_f_to_f8(f, 2, 15, 0x7bu);\n}\n\n";

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

static const char tf32_text[] =
    "static inline float ax_tf32(float f)\n{\n    uint32_t x;\n"
    "    memcpy(&x, &f, sizeof x);\n"
    "    if ((x & 0x7fffffffu) > 0x7f800000u)\n"
    "        x = (x & 0xffffe000u) | 0x00400000u;\n"
    "    else if ((x & 0x7fffffffu) < 0x7f800000u)\n"
    "        x = (x + 0x1000u) & 0xffffe000u;\n"
    "    memcpy(&f, &x, sizeof f);\n    return f;\n}\n\n";

static bool calls(const char *body, const char *name)
{
    return body != NULL && strstr(body, name) != NULL;
}

/* The conversion helpers that the generated code "body" calls (each
 * emitted only when used, so that no static function is unused; the
 * generic fp8 ones before their wrappers). */
void axe__emit_half_helpers(ax_text *t, const char *body)
{
    static const char *const names[] = {
        "ax_h2f(",       "ax_f2h(",       "ax_b2f(",
        "ax_f2b(",       "ax_e4m3_to_f(", "ax_f_to_e4m3(",
        "ax_e5m2_to_f(", "ax_f_to_e5m2(", "ax_tf32("};
    static const char *const texts[] = {
        h2f_text,       f2h_text,       b2f_text,
        f2b_text,       e4m3_to_f_text, f_to_e4m3_text,
        e5m2_to_f_text, f_to_e5m2_text, tf32_text};
    int i;
    if (calls(body, names[4]) || calls(body, names[6]))
        axe__text_put(t, "%s", f82f_text);
    if (calls(body, names[5]) || calls(body, names[7]))
        axe__text_put(t, "%s", f2f8_text);
    for (i = 0; i < 9; i++)
        if (calls(body, names[i]))
            axe__text_put(t, "%s", texts[i]);
}

/* How generated C reads a stored element of "d" as its arithmetic type
 * (prefix and suffix around the lvalue): f16/bf16 are widened to float. */
const char *axe__dtype_load_pre(axe_dtype d)
{
    return d == AXE_DTYPE_F16    ? "ax_h2f("
           : d == AXE_DTYPE_BF16 ? "ax_b2f("
           : d == AXE_DTYPE_E4M3 ? "ax_e4m3_to_f("
           : d == AXE_DTYPE_E5M2 ? "ax_e5m2_to_f("
                                 : "";
}

/* How generated C stores an arithmetic value into an element of "d". */
const char *axe__dtype_store_pre(axe_dtype d)
{
    return d == AXE_DTYPE_F16    ? "ax_f2h((float)"
           : d == AXE_DTYPE_BF16 ? "ax_f2b((float)"
           : d == AXE_DTYPE_E4M3 ? "ax_f_to_e4m3((float)"
           : d == AXE_DTYPE_E5M2 ? "ax_f_to_e5m2((float)"
                                 : "";
}

/* The closing parenthesis of a load or store wrapper of "d", if any. */
const char *axe__dtype_wrap_post(axe_dtype d)
{
    return axe__dtype_is_half(d) ? ")" : "";
}

/* A and B of a tf32 gemm: the rounding to tf32 (PTX cvt.rna.tf32.f32). */
static bool tf32_operand(const ax_stmt *s, int i)
{
    return s->op == AX_OP_GEMM && s->tf32 && (i == 1 || i == 2);
}

/* How generated code reads operand "i" of "s" (compiler_internal.h). */
const char *axe__operand_pre(const axe_program *p, const ax_stmt *s, int i)
{
    return tf32_operand(s, i)
               ? "ax_tf32("
               : axe__dtype_load_pre(p->tensors[s->args[i].tensor].dtype);
}

const char *axe__operand_post(const axe_program *p, const ax_stmt *s, int i)
{
    return tf32_operand(s, i)
               ? ")"
               : axe__dtype_wrap_post(p->tensors[s->args[i].tensor].dtype);
}

/* A float type narrower than f32 (f16, bf16, e4m3, e5m2): stored as a bit
 * pattern, computed in float. */
bool axe__dtype_is_half(axe_dtype d)
{
    return d == AXE_DTYPE_F16 || d == AXE_DTYPE_BF16 || axe__dtype_is_fp8(d);
}

/* e4m3 or e5m2. */
bool axe__dtype_is_fp8(axe_dtype d)
{
    return d == AXE_DTYPE_E4M3 || d == AXE_DTYPE_E5M2;
}
