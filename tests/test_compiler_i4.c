/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Packed i4 (docs/compiler.md, "i4") through the public API, against the
 * storage rule written out here independently: element x of a tensor's
 * storage is nibble x % 2 (0: bits 0-3) of byte x / 2, sign-extended.
 * - axe_dtype_storage and axe_dtype_bit_width rows.
 * - The reference reads: random bytes, random odd and even lengths and
 *   region offsets; every element cast to i32 equals the nibble decoded
 *   from the bytes.
 * - The reference writes: i32 -> i4 casts (wrapping) and i4 -> i4 copies
 *   into a random region of a random buffer; every nibble of the region
 *   holds the value, every other nibble (the pad of an odd length too)
 *   keeps its byte's old bits.
 * - f32 -> i4 casts: toward zero, saturated at -8 and 7, NaN -> 0.
 * - Store granularity: plans that make two threads of one operator write
 *   one byte are refused with the tensor and both threads named; pairs of
 *   elements per thread are accepted; the race detector reports a store
 *   next to another thread's store in one byte (thread scope).
 * AXE_TEST_SEED=N replays.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "axe/kernel.h"
#include "testlib.h"

#define TRIALS 200

/* The rule, independently of the library. */
static int nibble(const uint8_t *b, int64_t x)
{
    int u = (x % 2 == 0 ? b[x / 2] : b[x / 2] >> 4) & 15;
    return u >= 8 ? u - 16 : u;
}

static axe_program *compile(const char *text, char *full, size_t cap)
{
    axe_program *p = NULL;
    axe_diag d;
    size_t n = 0;
    full[0] = '\0';
    if (axe_program_compile_full(text, strlen(text), NULL, NULL, &p, &d, full,
                                 cap, &n) != AXE_OK)
        return NULL;
    return p;
}

static void storage_rows(void)
{
    static const int64_t n[] = {0, 1, 2, 3, 37, 64};
    static const int64_t want[] = {0, 1, 1, 2, 19, 32};
    int i;
    for (i = 0; i < 6; i++)
        TL_CHECK(axe_dtype_storage(AXE_DTYPE_I4, n[i]) == want[i],
                 "storage(i4, %lld)", (long long)n[i]);
    TL_CHECK(axe_dtype_storage(AXE_DTYPE_F32, 3) == 12, "storage(f32, 3)");
    TL_CHECK(axe_dtype_storage(AXE_DTYPE_I4, -1) == -1, "negative count");
    TL_CHECK(axe_dtype_storage(AXE_DTYPE_F64, INT64_MAX / 4) == -1, "overflow");
    TL_CHECK(axe_dtype_bit_width(AXE_DTYPE_I4) == 4, "i4 bits");
    TL_CHECK(axe_dtype_bit_width(AXE_DTYPE_I8) == 8, "i8 bits");
    TL_CHECK(axe_dtype_bit_width(AXE_DTYPE_F32) == 32, "f32 bits");
    TL_CHECK(axe_dtype_size(AXE_DTYPE_I4) == 1, "i4 size");
    TL_CHECK(strcmp(axe_dtype_name(AXE_DTYPE_I4), "i4") == 0, "i4 name");
}

static void random_bytes(uint8_t *b, int64_t n)
{
    int64_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)tl_rand();
}

/* One random read trial: Y = cast(X[o : +n]) on the reference. */
static void read_trial(void)
{
    int64_t n = tl_range(1, 80), o = tl_range(0, 5),
            len = o + n + tl_range(0, 3);
    uint8_t x[64];
    int32_t y[80];
    void *bufs[2] = {x, y};
    char text[256], full[1024];
    axe_program *p;
    axe_diag d;
    int64_t i;
    snprintf(text, sizeof text,
             "kernel k(X: i4[%lld], Y: i32[%lld]) grid(1) threads(1) "
             "{ thread cast(Y, X[%lld:+%lld]); }",
             (long long)len, (long long)n, (long long)o, (long long)n);
    p = compile(text, full, sizeof full);
    TL_CHECK(p != NULL, "%s: %s", text, full);
    if (p == NULL)
        return;
    random_bytes(x, axe_dtype_storage(AXE_DTYPE_I4, len));
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "%s", d.message);
    for (i = 0; i < n; i++)
        TL_CHECK(y[i] == nibble(x, o + i), "%s: Y[%lld] = %d, want %d", text,
                 (long long)i, y[i], nibble(x, o + i));
    axe_program_free(p);
}

/* The region [o, o + n) of "after" holds want[0 ..), every other nibble
 * of the storage of "len" elements (and an odd length's pad) is as in
 * "before". */
static void check_region(const char *what, const uint8_t *before,
                         const uint8_t *after, int64_t len, int64_t o,
                         int64_t n, const int *want)
{
    int64_t x, top = 2 * axe_dtype_storage(AXE_DTYPE_I4, len);
    for (x = 0; x < top; x++) {
        int w = x >= o && x < o + n ? want[x - o] : nibble(before, x);
        TL_CHECK(nibble(after, x) == w, "%s: nibble %lld is %d, want %d", what,
                 (long long)x, nibble(after, x), w);
    }
}

/* One random write trial: Z[o : +n] = cast(Y) with Y i32 (wraps to the
 * low 4 bits), then W[o2 : +n] = copy(Z[o : +n]). */
static void write_trial(void)
{
    int64_t n = tl_range(1, 80), o = tl_range(0, 5), o2 = tl_range(0, 5);
    int64_t len = 5 + n + tl_range(0, 3);
    uint8_t z[64], w[64], z0[64], w0[64];
    int32_t y[80];
    int want[80];
    void *bufs[3] = {y, z, w};
    char text[512], full[1024];
    axe_program *p;
    axe_diag d;
    int64_t i, nb = axe_dtype_storage(AXE_DTYPE_I4, len);
    snprintf(text, sizeof text,
             "kernel k(Y: i32[%lld], Z: i4[%lld], W: i4[%lld]) grid(1) "
             "threads(1) { thread cast(Z[%lld:+%lld], Y); "
             "thread copy(W[%lld:+%lld], Z[%lld:+%lld]); }",
             (long long)n, (long long)len, (long long)len, (long long)o,
             (long long)n, (long long)o2, (long long)n, (long long)o,
             (long long)n);
    p = compile(text, full, sizeof full);
    TL_CHECK(p != NULL, "%s: %s", text, full);
    if (p == NULL)
        return;
    random_bytes(z, nb);
    random_bytes(w, nb);
    memcpy(z0, z, (size_t)nb);
    memcpy(w0, w, (size_t)nb);
    for (i = 0; i < n; i++) {
        y[i] = (int32_t)tl_range(-100, 100);
        want[i] = ((y[i] & 15) ^ 8) - 8; /* the low 4 bits, signed */
    }
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "%s", d.message);
    check_region(text, z0, z, len, o, n, want);
    check_region(text, w0, w, len, o2, n, want);
    axe_program_free(p);
}

/* f32 -> i4: toward zero, saturated, NaN -> 0. */
static void float_rows(void)
{
    static const float f[] = {-9.7f, -8.0f, -7.9f, -0.5f, 0.0f,
                              3.99f, 7.0f,  7.9f,  1e30f, -INFINITY};
    static const int want[] = {-8, -8, -7, 0, 0, 3, 7, 7, 7, -8};
    float in[12];
    uint8_t z[6] = {0};
    void *bufs[2] = {in, z};
    char full[1024];
    axe_diag d;
    int i;
    axe_program *p = compile("kernel k(F: f32[12], Z: i4[12]) grid(1) "
                             "threads(1) { thread cast(Z, F); }",
                             full, sizeof full);
    TL_CHECK(p != NULL, "float rows: %s", full);
    if (p == NULL)
        return;
    memcpy(in, f, sizeof f);
    in[10] = NAN;
    in[11] = -NAN;
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "%s", d.message);
    for (i = 0; i < 12; i++)
        TL_CHECK(nibble(z, i) == (i < 10 ? want[i] : 0),
                 "cast(i4, %g) = %d, want %d", (double)in[i], nibble(z, i),
                 i < 10 ? want[i] : 0);
    axe_program_free(p);
}

/* A program that must be refused with every piece of "want" in its
 * complete diagnostic. */
static void refused(const char *text, const char *const *want, int n)
{
    char full[4096];
    axe_program *p = compile(text, full, sizeof full);
    int i;
    TL_CHECK(p == NULL, "accepted: %s", text);
    for (i = 0; i < n; i++)
        TL_CHECK(strstr(full, want[i]) != NULL, "%s: no '%s' in: %s", text,
                 want[i], full);
    axe_program_free(p);
}

static void granularity_rows(void)
{
    static const char *const split[] = {
        "copy.split: two threads write one byte of the i4 'Y'",
        "thread 2 writes element address 3 and thread 1 element address 2"};
    static const char *const bound[] = {
        "copy.thread_loop: two threads write one byte of the i4 'Y'",
        "thread 1 writes element address 129 and thread 0 element address "
        "128"};
    static const char *const odd[] = {
        "copy.thread_loop: two threads write one byte of the i4 'Y'"};
    static const char *const shared[] = {
        "two threads write one byte of the i4 's'"};
    static const char *const kinds[] = {
        "'B' is i4, a packed storage dtype: only copy and cast"};
    char full[4096];
    axe_program *p;
    /* 64 elements from Y's element 1: no whole-byte vector, and the
     * pairs a split deals whole (x, x + 1 with x even) are not Y's bytes */
    refused("kernel k(X: i4[66], Y: i4[66]) grid(1) threads(32) "
            "{ cta copy(Y[1:+64], X[0:64]); }",
            split, 2);
    refused("kernel k(X: i4[3, 64], Y: i4[3, 64]) grid(1) threads(32) {\n"
            "register r: i4[1, 64] layout S[(1, 2, 32):(0, 1, 1@tx)];\n"
            "cta copy(r, X[1:+1, 0:64]);\ncta copy(Y[2:+1, 0:64], r); }",
            bound, 2);
    /* pairs per thread, but rows of 33 start at odd elements */
    refused("kernel k(X: i4[3, 33], Y: i4[3, 33]) grid(1) threads(16) {\n"
            "register r: i4[1, 32] layout S[(1, 16, 2):(0, 1@tx, 1)];\n"
            "cta copy(r, X[1:+1, 0:32]);\ncta copy(Y[1:+1, 0:32], r); }",
            odd, 1);
    refused("kernel k(X: i4[66]) grid(1) threads(32) {\n"
            "shared s: i4[66];\ncta copy(s[1:+64], X[0:64]); }",
            shared, 1);
    refused("kernel k(A: i4[8], B: i4[8]) grid(1) threads(1) "
            "{ thread add(B, A, A); }",
            kinds, 1);
    p = compile("kernel k(X: i4[3, 64], Y: i4[3, 64]) grid(1) threads(32) {\n"
                "register r: i4[1, 64] layout S[(1, 32, 2):(0, 1@tx, 1)];\n"
                "cta copy(r, X[1:+1, 0:64]);\ncta copy(Y[2:+1, 0:64], r); }",
                full, sizeof full);
    TL_CHECK(p != NULL, "pairs per thread refused: %s", full);
    axe_program_free(p);
    /* 66 elements (no vector divides them): a split deals pairs whole */
    p = compile("kernel k(X: i4[66], Y: i4[66]) grid(1) threads(32) "
                "{ cta copy(Y, X); }",
                full, sizeof full);
    TL_CHECK(p != NULL, "a split of whole bytes refused: %s", full);
    axe_program_free(p);
}

/* Thread-scope stores of neighbouring elements race on their byte; pairs
 * per thread do not. */
static void race_rows(void)
{
    static const char *const texts[] = {
        "kernel k(X: i4[32], Y: i4[32]) grid(1) threads(32) "
        "{ thread copy(Y[tx:+1], X[tx:+1]); }",
        "kernel k(X: i4[32], Y: i4[32]) grid(1) threads(16) "
        "{ thread copy(Y[2 * tx:+2], X[2 * tx:+2]); }"};
    uint8_t x[16], y[16];
    void *bufs[2] = {x, y};
    char full[1024];
    int i;
    for (i = 0; i < 2; i++) {
        axe_race_report rep;
        axe_diag d;
        axe_program *p = compile(texts[i], full, sizeof full);
        TL_CHECK(p != NULL, "%s: %s", texts[i], full);
        if (p == NULL)
            continue;
        random_bytes(x, 16);
        TL_CHECK(axe_program_reference_races(p, bufs, &rep, &d) == AXE_OK, "%s",
                 d.message);
        TL_CHECK((rep.count > 0) == (i == 0), "%s: %lld racing accesses",
                 texts[i], (long long)rep.count);
        if (i == 0 && rep.n > 0)
            TL_CHECK(strcmp(rep.race[0].tensor, "Y") == 0 &&
                         rep.race[0].first.write && rep.race[0].second.write,
                     "race on %s", rep.race[0].tensor);
        axe_program_free(p);
    }
}

int main(void)
{
    int t;
    tl_seed("test_compiler_i4", 4);
    storage_rows();
    for (t = 0; t < TRIALS; t++) {
        read_trial();
        write_trial();
    }
    float_rows();
    granularity_rows();
    race_rows();
    return tl_finish();
}
