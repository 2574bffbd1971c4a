/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Triton's text of linear layouts (LinearLayout::toString): one line per
 * basis, ` - in=1 -> (a, b)` starting an input dimension and `   in=2 ->
 * (c, d)` continuing it (values 1, 2, 4, ... in order), ` - in is a size 1
 * dimension` for an input without bits, and a last line `where out dims
 * are: [o1 (size 16), o2 (size 32)]`. A single output may be written
 * without parentheses; no outputs print as `()`. Names are those of axes,
 * [A-Za-z0-9_]+ (`0` included). Invariant: parse(print(l)) == l for every valid
 * l; the parser checks basis order, output counts and sizes.
 */
#include <string.h>

#include "axe/linear.h"
#include "notation_internal.h"

/* The last line's words; an input may be named `where` or `is`. */
#define OUT_DIMS "where out dims are:"

static void put_basis(axe__writer *w, const axe_linear *lin, int d, int i)
{
    axe__put(w, i == 0 ? " - " : "   ");
    axe__put(w, lin->in_name[d]);
    axe__put(w, "=");
    axe__put_int(w, INT64_C(1) << i);
    axe__put(w, " -> (");
    for (int o = 0; o < lin->nout; o++) {
        axe__put(w, o > 0 ? ", " : "");
        axe__put_int(w, lin->basis[d][i][o]);
    }
    axe__put(w, ")\n");
}

size_t axe_print_linear(const axe_linear *lin, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    for (int d = 0; d < lin->nin; d++) {
        if (lin->in_bits[d] == 0) {
            axe__put(&w, " - ");
            axe__put(&w, lin->in_name[d]);
            axe__put(&w, " is a size 1 dimension\n");
        }
        for (int i = 0; i < lin->in_bits[d]; i++)
            put_basis(&w, lin, d, i);
    }
    axe__put(&w, "where out dims are: [");
    for (int o = 0; o < lin->nout; o++) {
        axe__put(&w, o > 0 ? ", " : "");
        axe__put(&w, lin->out_name[o]);
        axe__put(&w, " (size ");
        axe__put_int(&w, INT64_C(1) << lin->out_bits[o]);
        axe__put(&w, ")");
    }
    axe__put(&w, "]");
    return axe__writer_end(&w);
}

/* ---- parsing ---------------------------------------------------------- */

typedef struct lscan {
    const char *s;
    size_t len, pos;
    axe_diag *diag;
} lscan;

static void skip(lscan *c)
{
    while (c->pos < c->len && strchr(" \t\r\n", c->s[c->pos]) != NULL &&
           c->s[c->pos] != '\0')
        c->pos++;
}

static bool eat(lscan *c, const char *word)
{
    size_t n = strlen(word);
    skip(c);
    if (c->len - c->pos < n || memcmp(c->s + c->pos, word, n) != 0)
        return false;
    c->pos += n;
    return true;
}

/* Whether "word" comes next (nothing consumed). */
static bool at(lscan *c, const char *word)
{
    size_t save = c->pos;
    bool r = eat(c, word);
    c->pos = save;
    return r;
}

static axe_status fail(lscan *c, const char *what)
{
    return axe__fail(c->diag, AXE_ERR_SYNTAX, (long)c->pos, "expected %s",
                     what);
}

static axe_status name(lscan *c, char *out)
{
    size_t n = 0;
    skip(c);
    while (c->pos + n < c->len &&
           (c->s[c->pos + n] == '_' ||
            (c->s[c->pos + n] >= 'a' && c->s[c->pos + n] <= 'z') ||
            (c->s[c->pos + n] >= 'A' && c->s[c->pos + n] <= 'Z') ||
            (c->s[c->pos + n] >= '0' && c->s[c->pos + n] <= '9')))
        n++;
    if (n == 0 || n >= AXE_AXIS_NAME_MAX)
        return fail(c, "a dimension name (at most 15 characters)");
    memset(out, 0, AXE_AXIS_NAME_MAX);
    memcpy(out, c->s + c->pos, n);
    c->pos += n;
    return AXE_OK;
}

static axe_status number(lscan *c, int64_t *out)
{
    int64_t v = 0;
    size_t start;
    skip(c);
    start = c->pos;
    while (c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9')
        if (axe__mul(v, 10, &v) || axe__add(v, c->s[c->pos++] - '0', &v))
            return axe__fail(c->diag, AXE_ERR_OVERFLOW, (long)start,
                             "number overflows");
    if (c->pos == start)
        return fail(c, "a number");
    *out = v;
    return AXE_OK;
}

/* `(a, b, ...)`, `()` (no outputs) or a bare value into row[0 .. *n). */
static axe_status outputs(lscan *c, int64_t *row, int *n)
{
    *n = 0;
    if (!eat(c, "("))
        return (*n = 1, number(c, &row[0]));
    if (eat(c, ")"))
        return AXE_OK;
    do {
        if (*n == AXE_LINEAR_MAX_DIMS)
            return fail(c, "at most 8 outputs");
        AXE_TRY(number(c, &row[(*n)++]));
    } while (eat(c, ","));
    return eat(c, ")") ? AXE_OK : fail(c, "')'");
}

/* One line `- in=v -> (...)`, `in=v -> (...)` or `- in is a size 1
 * dimension`. */
static axe_status basis_line(lscan *c, axe_linear *lin, int *nout)
{
    bool fresh = eat(c, "-");
    char nm[AXE_AXIS_NAME_MAX];
    int64_t v, row[AXE_LINEAR_MAX_DIMS];
    int d = lin->nin - 1, n;
    AXE_TRY(name(c, nm));
    if (fresh) {
        if (lin->nin == AXE_LINEAR_MAX_DIMS)
            return fail(c, "at most 8 input dimensions");
        d = lin->nin++;
        memcpy(lin->in_name[d], nm, sizeof nm);
        if (eat(c, "is a size 1 dimension"))
            return AXE_OK;
    }
    if (d < 0 || memcmp(lin->in_name[d], nm, sizeof nm) != 0)
        return fail(c, "the current input dimension's name");
    if (!eat(c, "=") || number(c, &v) != AXE_OK ||
        lin->in_bits[d] == AXE_LINEAR_MAX_BITS ||
        v != INT64_C(1) << lin->in_bits[d])
        return fail(c, "the next power of two after '='");
    if (!eat(c, "->"))
        return fail(c, "'->'");
    AXE_TRY(outputs(c, row, &n));
    if (*nout >= 0 && n != *nout)
        return fail(c, "as many outputs as the other bases");
    *nout = n;
    memcpy(lin->basis[d][lin->in_bits[d]++], row, (size_t)n * sizeof *row);
    return AXE_OK;
}

static axe_status out_dims(lscan *c, axe_linear *lin, int nout)
{
    int64_t size;
    if (!eat(c, OUT_DIMS) || !eat(c, "["))
        return fail(c, "'where out dims are: ['");
    while (!eat(c, "]")) {
        if (lin->nout == AXE_LINEAR_MAX_DIMS || (lin->nout > 0 && !eat(c, ",")))
            return fail(c, "',' or ']'");
        AXE_TRY(name(c, lin->out_name[lin->nout]));
        if (!eat(c, "(size") || number(c, &size) != AXE_OK || !eat(c, ")") ||
            size < 1 || (size & (size - 1)) != 0)
            return fail(c, "'(size N)' with N a power of two");
        while ((INT64_C(1) << lin->out_bits[lin->nout]) < size)
            lin->out_bits[lin->nout]++;
        lin->nout++;
    }
    if (nout >= 0 && nout != lin->nout)
        return fail(c, "as many out dims as basis outputs");
    return AXE_OK;
}

static axe_status check_sizes(lscan *c, const axe_linear *lin)
{
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; o < lin->nout; o++)
                if (lin->basis[d][i][o] >> lin->out_bits[o] != 0)
                    return axe__fail(c->diag, AXE_ERR_DOMAIN, (long)c->len,
                                     "basis value %lld is not below the size "
                                     "of %s",
                                     (long long)lin->basis[d][i][o],
                                     lin->out_name[o]);
    return AXE_OK;
}

axe_status axe_parse_linear(const char *text, size_t len, axe_linear *out,
                            axe_diag *diag)
{
    static const axe_linear empty;
    axe_linear lin = empty;
    lscan c = {text, len, 0, diag};
    int nout = -1;
    axe_diag_clear(diag);
    if (text == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    while (!at(&c, OUT_DIMS)) {
        skip(&c);
        if (c.pos >= c.len)
            return fail(&c, "'where out dims are: [...]'");
        AXE_TRY(basis_line(&c, &lin, &nout));
    }
    AXE_TRY(out_dims(&c, &lin, nout));
    skip(&c);
    if (c.pos != c.len)
        return fail(&c, "the end");
    AXE_TRY(check_sizes(&c, &lin));
    *out = lin;
    return AXE_OK;
}
