/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the mapping-expression notation (docs/notation.md):
 * the input bytes go to every mapping parser (m![...], i![...], axes![...],
 * $(...)) over a fixed table `axes![A = 8, B = 512, C = 13, D = 61]` with a
 * definition E = m![C, D # 64] and a constant N = 8. Invariants, each
 * checked with __builtin_trap on violation: a failure has a status of the
 * grammar or the size rules (SYNTAX, OVERFLOW, CAPACITY, INVALID,
 * DIVISIBILITY, DOMAIN), an offset inside the input and a message, leaves
 * the out-parameter untouched and is the same without a diagnostic; a parsed
 * expression prints (m![...] form) to a text that parses to an expression
 * of the same size that prints identically (pairs regroup: associativity), and
 * its normal form has the same cells at a few positions. Maps and conversions
 * may fail, but nothing may crash.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/linear.h"
#include "axe/notation_mapping.h"

#define TEXT_MAX 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool cond)
{
    if (!cond)
        __builtin_trap();
}

static void check_failure(axe_status st, const axe_diag *d, size_t len)
{
    require(st == AXE_ERR_SYNTAX || st == AXE_ERR_OVERFLOW ||
            st == AXE_ERR_CAPACITY || st == AXE_ERR_INVALID ||
            st == AXE_ERR_DIVISIBILITY || st == AXE_ERR_DOMAIN);
    require(d->offset >= 0 && (size_t)d->offset <= len);
    require(d->message[0] != '\0');
}

static void check_round_trip(const axe_mapping *m, const axe_mapping_env *env)
{
    static char text[TEXT_MAX], again[TEXT_MAX];
    static axe_mapping back;
    axe_diag d;
    size_t len = axe_print_mapping_macro(m, text, sizeof text);
    require(len < sizeof text);
    require(axe_parse_mapping(text, len, env, &back, &d) == AXE_OK);
    require(axe_mapping_size(m) == axe_mapping_size(&back));
    require(axe_print_mapping_macro(&back, again, sizeof again) == len);
    require(memcmp(text, again, len + 1) == 0);
    require(axe_print_mapping(m, text, 0) > 0);
}

/* The normal form agrees with "m" at a few positions. */
static void check_normal_form(const axe_mapping *m)
{
    static axe_mapping n;
    int64_t size = axe_mapping_size(m);
    int64_t at[] = {-1, 0, 1, size / 2, size - 1, size};
    axe_layout l;
    const char *tensor[] = {"A", "B", "C", "D"};
    axe_mapping_part part = {m, "m", 1, false};
    if (axe_mapping_normalize(m, &n, NULL) != AXE_OK)
        return;
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        axe_mapping_cell a, b;
        axe_status sa = axe_mapping_map(m, at[k], &a, NULL);
        axe_status sb = axe_mapping_map(&n, at[k], &b, NULL);
        require(sa == sb);
        require(sa != AXE_OK || axe_mapping_cell_equal(&a, &b));
    }
    require(axe_mapping_to_layout(&part, 1, tensor, 4, &l, NULL) <= AXE_OK);
}

static void fuzz_mapping(const char *s, size_t size, const axe_mapping_env *env)
{
    static axe_mapping m, keep;
    axe_diag d;
    axe_status st;
    memset(&m, 0xa5, sizeof m);
    keep = m;
    st = axe_parse_mapping(s, size, env, &m, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, size);
        require(memcmp(&m, &keep, sizeof m) == 0);
        require(axe_parse_mapping(s, size, env, &m, NULL) == st);
        return;
    }
    check_round_trip(&m, env);
    check_normal_form(&m);
}

/* Triton's linear-layout text: a parsed layout prints and parses back to
 * the same value. */
static void fuzz_linear(const char *s, size_t size)
{
    static axe_linear lin, back;
    static char text[TEXT_MAX];
    axe_diag d;
    size_t len;
    axe_status st = axe_parse_linear(s, size, &lin, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, size);
        return;
    }
    len = axe_print_linear(&lin, text, sizeof text);
    require(len < sizeof text);
    require(axe_parse_linear(text, len, &back, &d) == AXE_OK);
    require(memcmp(&lin, &back, sizeof lin) == 0);
}

static void fuzz_others(const char *s, size_t size, const axe_mapping_env *env)
{
    static axe_mapping_lincomb c;
    static axe_mapping_cell cells[16];
    axe_mapping_index ix;
    axe_mapping_axes axes;
    axe_diag d;
    int n;
    axe_status st = axe_parse_mapping_index(s, size, env, &ix, &d);
    if (st != AXE_OK)
        check_failure(st, &d, size);
    st = axe_parse_mapping_axes(s, size, &axes, &d);
    if (st != AXE_OK)
        check_failure(st, &d, size);
    st = axe_parse_mapping_lincomb(s, size, env, &c, &d);
    if (st != AXE_OK)
        check_failure(st, &d, size);
    else
        require(axe_mapping_lincomb_map(&c, 3, cells, 16, &n, NULL) <= AXE_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const def_name[] = {"E"};
    static const char *const def_text[] = {"m![C, D # 64]"};
    static const char *const const_name[] = {"N"};
    static const int64_t const_value[] = {8};
    static axe_mapping_axes axes;
    axe_mapping_env env = {
        &axes, 1,          def_name,    def_text,
        1,     const_name, const_value, size > 0 && data[0] == '\''};
    const char *s = (const char *)data;
    if (axes.n == 0)
        require(axe_parse_mapping_axes("axes![A = 8, B = 512, C = 13, D = 61]",
                                       37, &axes, NULL) == AXE_OK);
    fuzz_mapping(s, size, &env);
    fuzz_others(s, size, &env);
    fuzz_linear(s, size);
    return 0;
}
