/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the Axe layout notation (docs/notation.md): the
 * input bytes go to axe_parse_layout. Invariants, each checked with
 * __builtin_trap on violation: a failure is AXE_ERR_SYNTAX, _OVERFLOW,
 * _CAPACITY or _INVALID with an offset inside the input and a message, and
 * leaves the out-parameter untouched; a success prints to a text that
 * parses again to an equal layout and prints identically; a printer given
 * a smaller buffer returns the same length and writes a NUL-terminated
 * prefix. A parsed layout is also evaluated (size, span, apply_base at a
 * few indices, scope): any status may come back, but nothing may crash.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/notation.h"

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
            st == AXE_ERR_CAPACITY || st == AXE_ERR_INVALID);
    require(d->offset >= 0 && (size_t)d->offset <= len);
    require(d->message[0] != '\0');
}

/* Printing "l" into "cap" < len + 1 bytes: same length, a NUL-terminated
 * prefix of "full", nothing written at or past "cap". */
static void check_truncated(const axe_layout *l, const char *full, size_t len,
                            size_t cap)
{
    static char buf[TEXT_MAX + 1];
    buf[cap] = '#';
    require(axe_print_layout(l, buf, cap) == len);
    require(buf[cap] == '#');
    if (cap > 0)
        require(memcmp(buf, full, cap - 1) == 0 && buf[cap - 1] == '\0');
}

static void check_round_trip(const axe_layout *l)
{
    static char text[TEXT_MAX], again[TEXT_MAX];
    static axe_layout back;
    axe_diag d;
    size_t len = axe_print_layout(l, text, sizeof text);
    require(len < sizeof text);
    require(axe_parse_layout(text, len, &back, &d) == AXE_OK);
    require(axe_layout_equal(l, &back) && axe_layout_equal(&back, l));
    require(axe_print_layout(&back, again, sizeof again) == len);
    require(memcmp(text, again, len + 1) == 0);
    check_truncated(l, text, len, len / 2);
    check_truncated(l, text, len, 0);
}

/* Evaluate "l" a little; statuses are free, crashes are not. Returns
 * how many calls failed. */
static int exercise(const axe_layout *l)
{
    int64_t v;
    axe_point p;
    bool has;
    axe_scope a, b;
    int failures = (axe_layout_size(l, NULL, &v) != AXE_OK) +
                   (axe_layout_span(l, NULL, &v) != AXE_OK) +
                   (axe_layout_get_scope(l, &has, &a, &b, NULL) != AXE_OK) +
                   (axe_layout_apply_base(l, INT64_MAX, &p, NULL) != AXE_OK);
    for (int64_t x = -1; x < 3; x++)
        failures += axe_layout_apply_base(l, x, &p, NULL) != AXE_OK;
    return failures;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static axe_layout l, keep;
    const char *s = (const char *)data;
    axe_diag d;
    axe_status st;
    memset(&l, 0xa5, sizeof l);
    keep = l;
    st = axe_parse_layout(s, size, &l, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, size);
        require(memcmp(&l, &keep, sizeof l) == 0);
        require(axe_parse_layout(s, size, &l, NULL) == st);
        return 0;
    }
    check_round_trip(&l);
    require(exercise(&l) >= 0);
    return 0;
}
