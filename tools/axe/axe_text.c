/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small notations the Axe commands take besides layouts (DESIGN.md
 * §4): integer lists and shapes `[8,16]` (a bare `8` is `[8]`), regions
 * `[[0,8],[8,24]]` (half-open per dim) and points `{laneid: 8, m: 1}` or
 * `laneid=8,m=1`. Spaces are allowed between tokens. Invariant: a failure
 * is AXE_ERR_SYNTAX (or OVERFLOW / CAPACITY) with the byte offset of the
 * offending character in the diagnostic, and the output is written only on
 * success.
 */
#include <string.h>

#include "axe_ops.h"
#include "cli.h"

typedef struct scan {
    const char *s;
    size_t len, pos;
    axe_diag *diag;
} scan;

static axe_status scan_fail(scan *sc, axe_status st, const char *why)
{
    if (sc->diag != NULL) {
        sc->diag->offset = (long)sc->pos;
        snprintf(sc->diag->message, sizeof sc->diag->message, "%s", why);
    }
    return st;
}

static void skip_space(scan *sc)
{
    while (sc->pos < sc->len &&
           (sc->s[sc->pos] == ' ' || sc->s[sc->pos] == '\t'))
        sc->pos++;
}

/* Whether the next non-space character is "c" (consumed if so). */
static bool accept(scan *sc, char c)
{
    skip_space(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == c) {
        sc->pos++;
        return true;
    }
    return false;
}

static axe_status expect(scan *sc, char c, const char *why)
{
    return accept(sc, c) ? AXE_OK : scan_fail(sc, AXE_ERR_SYNTAX, why);
}

static axe_status scan_int(scan *sc, int64_t *out)
{
    size_t start, end;
    axe_diag d;
    axe_status st;
    skip_space(sc);
    start = end = sc->pos;
    if (end < sc->len && sc->s[end] == '-')
        end++;
    while (end < sc->len && sc->s[end] >= '0' && sc->s[end] <= '9')
        end++;
    axe_diag_clear(&d);
    st = cli_parse_int(sc->s + start, end - start, out, &d);
    if (st != AXE_OK) {
        sc->pos = start + (size_t)(d.offset > 0 ? d.offset : 0);
        return scan_fail(sc, st, d.message);
    }
    sc->pos = end;
    return AXE_OK;
}

static axe_status scan_end(scan *sc)
{
    skip_space(sc);
    if (sc->pos != sc->len)
        return scan_fail(sc, AXE_ERR_SYNTAX, "unexpected text after the end");
    return AXE_OK;
}

/* "[a, b, ...]" (possibly empty) after the '[' was consumed. */
static axe_status scan_list_rest(scan *sc, int64_t *v, int cap, int *n)
{
    *n = 0;
    if (accept(sc, ']'))
        return AXE_OK;
    for (;;) {
        axe_status st;
        if (*n == cap)
            return scan_fail(sc, AXE_ERR_CAPACITY, "too many entries");
        if ((st = scan_int(sc, &v[*n])) != AXE_OK)
            return st;
        (*n)++;
        if (accept(sc, ']'))
            return AXE_OK;
        if (!accept(sc, ','))
            return scan_fail(sc, AXE_ERR_SYNTAX, "expected ',' or ']'");
    }
}

axe_status axop_parse_ints(const char *text, size_t len, axop_ints *out,
                           axe_diag *diag)
{
    scan sc = {text, len, 0, diag};
    axop_ints r;
    axe_status st;
    if (accept(&sc, '['))
        st = scan_list_rest(&sc, r.v, AXOP_LIST_MAX, &r.n);
    else {
        r.n = 1;
        st = scan_int(&sc, &r.v[0]);
    }
    if (st == AXE_OK)
        st = scan_end(&sc);
    if (st == AXE_OK)
        *out = r;
    return st;
}

axe_status axop_parse_region(const char *text, size_t len, int64_t (*region)[2],
                             int *n, axe_diag *diag)
{
    scan sc = {text, len, 0, diag};
    int64_t r[AXE_LAYOUT_MAX_DIMS][2];
    int k = 0;
    axe_status st = expect(&sc, '[', "expected '[' to start the region");
    while (st == AXE_OK && !accept(&sc, ']')) {
        int m;
        if (k > 0 && (st = expect(&sc, ',', "expected ',' or ']'")) != AXE_OK)
            break;
        if (k == AXE_LAYOUT_MAX_DIMS)
            return scan_fail(&sc, AXE_ERR_CAPACITY, "too many dims");
        if ((st = expect(&sc, '[', "expected '[begin,end]'")) != AXE_OK)
            break;
        st = scan_list_rest(&sc, r[k], 2, &m);
        if (st == AXE_OK && m != 2)
            st = scan_fail(&sc, AXE_ERR_SYNTAX,
                           "a dim of a region is [begin,end]");
        k++;
    }
    if (st == AXE_OK)
        st = scan_end(&sc);
    if (st != AXE_OK)
        return st;
    memcpy(region, r, (size_t)k * sizeof r[0]);
    *n = k;
    return AXE_OK;
}

axe_status axop_point_put(axe_point *p, const char *axis, size_t len, int64_t v)
{
    int i = 0;
    if (len == 0 || len >= AXE_AXIS_NAME_MAX)
        return AXE_ERR_INVALID;
    while (i < p->n &&
           !(strlen(p->axis[i]) == len && memcmp(p->axis[i], axis, len) == 0))
        i++;
    if (i == p->n) {
        if (p->n == AXE_POINT_MAX_AXES)
            return AXE_ERR_CAPACITY;
        memset(p->axis[i], 0, sizeof p->axis[i]);
        memcpy(p->axis[i], axis, len);
        p->v[i] = 0;
        p->n++;
    }
    if (__builtin_add_overflow(p->v[i], v, &p->v[i]))
        return AXE_ERR_OVERFLOW;
    return AXE_OK;
}

/* Axis names are [A-Za-z0-9_]+ (CuTe coordinate axes are "0", "1"...). */
static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (c >= '0' && c <= '9');
}

/* One "axis: value" or "axis=value" entry into "p". */
static axe_status scan_entry(scan *sc, axe_point *p)
{
    size_t start, end;
    int64_t v;
    axe_status st;
    skip_space(sc);
    start = sc->pos;
    while (sc->pos < sc->len && is_name_char(sc->s[sc->pos]))
        sc->pos++;
    if (sc->pos == start)
        return scan_fail(sc, AXE_ERR_SYNTAX, "expected an axis name");
    end = sc->pos;
    if (end - start >= AXE_AXIS_NAME_MAX) {
        sc->pos = start;
        return scan_fail(sc, AXE_ERR_SYNTAX, "axis name longer than 15 bytes");
    }
    if (!accept(sc, ':') && !accept(sc, '='))
        return scan_fail(sc, AXE_ERR_SYNTAX, "expected ':' or '='");
    if ((st = scan_int(sc, &v)) != AXE_OK)
        return st;
    st = axop_point_put(p, sc->s + start, end - start, v);
    if (st == AXE_ERR_CAPACITY)
        return scan_fail(sc, st, "more than 16 axes");
    if (st != AXE_OK)
        return scan_fail(sc, st, "the value overflows");
    return AXE_OK;
}

axe_status axop_parse_point(const char *text, size_t len, axe_point *out,
                            axe_diag *diag)
{
    scan sc = {text, len, 0, diag};
    axe_point p;
    bool braced = accept(&sc, '{');
    axe_status st = AXE_OK;
    memset(&p, 0, sizeof p);
    if (!(braced && accept(&sc, '}'))) {
        do {
            st = scan_entry(&sc, &p);
        } while (st == AXE_OK && accept(&sc, ','));
        if (st == AXE_OK && braced)
            st = expect(&sc, '}', "expected ',' or '}'");
    }
    if (st == AXE_OK)
        st = scan_end(&sc);
    if (st == AXE_OK)
        *out = p;
    return st;
}
