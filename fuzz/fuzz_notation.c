/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the CuTe notation (docs/notation.md). The input
 * bytes go to axe_parse_cute, axe_parse_tuple and axe_parse_cute_layout.
 * Invariants, each checked with __builtin_trap on violation: a failure is
 * AXE_ERR_SYNTAX, _OVERFLOW or _CAPACITY with an offset inside the input
 * and a message, and leaves the out-parameter untouched; a success prints
 * to a text that parses again to the same kind and prints identically
 * (print(parse(print(parse(s)))) == print(parse(s))); a printer given a
 * smaller buffer returns the same length and writes a NUL-terminated
 * prefix; the typed parsers accept only what axe_parse_cute accepts as
 * that kind, with the same print.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/notation.h"

#define TEXT_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool cond)
{
    if (!cond)
        __builtin_trap();
}

/* A failed parse of "len" bytes reported "st" and "d" sanely. */
static void check_failure(axe_status st, const axe_diag *d, size_t len)
{
    require(st == AXE_ERR_SYNTAX || st == AXE_ERR_OVERFLOW ||
            st == AXE_ERR_CAPACITY);
    require(d->offset >= 0 && (size_t)d->offset <= len);
    require(d->message[0] != '\0');
}

/* Printing "o" into "cap" < full bytes gives the full length and a
 * NUL-terminated prefix of "full", and writes nothing at or past "cap". */
static void check_truncated(const axe_cute_object *o, const char *full,
                            size_t len, size_t cap)
{
    static char buf[TEXT_MAX + 1];
    buf[cap] = '#';
    require(axe_print_cute(o, buf, cap) == len);
    require(buf[cap] == '#');
    if (cap > 0)
        require(memcmp(buf, full, cap - 1) == 0 && buf[cap - 1] == '\0');
}

/* print(o) parses again to the same kind and prints identically; the
 * canonical text is returned in "text". */
static void check_round_trip(const axe_cute_object *o, char *text)
{
    static char again[TEXT_MAX];
    static axe_cute_object p;
    axe_diag d;
    size_t len = axe_print_cute(o, text, TEXT_MAX);
    require(len < TEXT_MAX);
    require(axe_parse_cute(text, len, &p, &d) == AXE_OK);
    require(p.kind == o->kind);
    require(axe_print_cute(&p, again, sizeof again) == len);
    require(memcmp(text, again, len + 1) == 0);
    check_truncated(o, text, len, len / 2);
    check_truncated(o, text, len, 0);
}

/* The generic parser; returns whether it accepted, the print in "text". */
static bool fuzz_cute(const char *s, size_t len, char *text)
{
    static axe_cute_object o, keep;
    axe_diag d;
    axe_status st;
    memset(&o, 0xa5, sizeof o);
    keep = o;
    st = axe_parse_cute(s, len, &o, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, len);
        require(memcmp(&o, &keep, sizeof o) == 0);
        require(axe_parse_cute(s, len, &o, NULL) == st);
        return false;
    }
    check_round_trip(&o, text);
    return true;
}

/* axe_parse_tuple accepts only tuples axe_parse_cute accepts, and both
 * print the same; a tuple's print reparses to the same tuple. */
static void fuzz_tuple(const char *s, size_t len, bool cute_ok,
                       const char *cute_text)
{
    static char text[TEXT_MAX];
    axe_tuple t, u;
    axe_diag d;
    axe_status st = axe_parse_tuple(s, len, &t, &d);
    size_t n;
    if (st != AXE_OK) {
        check_failure(st, &d, len);
        return;
    }
    require(cute_ok);
    n = axe_print_tuple(&t, text, sizeof text);
    require(n < sizeof text && strcmp(text, cute_text) == 0);
    require(axe_parse_tuple(text, n, &u, NULL) == AXE_OK);
    require(axe_tuple_equal(&t, &u));
}

/* The same for axe_parse_cute_layout. */
static void fuzz_layout(const char *s, size_t len, bool cute_ok,
                        const char *cute_text)
{
    static char text[TEXT_MAX], again[TEXT_MAX];
    static axe_cute_layout l, m;
    axe_diag d;
    axe_status st = axe_parse_cute_layout(s, len, &l, &d);
    size_t n;
    if (st != AXE_OK) {
        check_failure(st, &d, len);
        return;
    }
    require(cute_ok);
    n = axe_print_cute_layout(&l, text, sizeof text);
    require(n < sizeof text && strcmp(text, cute_text) == 0);
    require(axe_parse_cute_layout(text, n, &m, NULL) == AXE_OK);
    require(axe_print_cute_layout(&m, again, sizeof again) == n);
    require(strcmp(text, again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[TEXT_MAX];
    const char *s = (const char *)data;
    bool ok;
    text[0] = '\0';
    ok = fuzz_cute(s, size, text);
    fuzz_tuple(s, size, ok, text);
    fuzz_layout(s, size, ok, text);
    return 0;
}
