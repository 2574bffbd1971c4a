/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The text of device meshes and sharding specs (include/axe/sharding.h):
 * `x=2,y=4`; JAX `P('x', None)`, `P(('x','y'), None)`,
 * `PartitionSpec(...)`; DTensor `[Shard(0), Replicate()]`, `Shard(dim=0)`,
 * `Partial()`; Alpa `S0R`, `S01R`, `RS1`. A recursive-descent scanner over
 * (text, len) that never reads past len; names are bounded by
 * AXE_AXIS_NAME_MAX, integers overflow-checked, every list by its
 * capacity. Invariant: a failure names the byte offset and what was
 * expected; "out" is written only on success.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "axe/sharding.h"
#include "notation_internal.h"

typedef struct scan {
    const char *s;
    size_t len, pos;
    axe_diag *diag;
} scan;

static axe_status fail_at(scan *c, axe_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static axe_status fail_at(scan *c, axe_status st, const char *fmt, ...)
{
    char msg[AXE_DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return axe__fail(c->diag, st, (long)c->pos, "%s", msg);
}

static void skip(scan *c)
{
    while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
                               c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
        c->pos++;
}

static int peek(scan *c)
{
    skip(c);
    return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1;
}

static bool eat(scan *c, char ch)
{
    if (peek(c) != ch)
        return false;
    c->pos++;
    return true;
}

static axe_status expect(scan *c, char ch, const char *what)
{
    return eat(c, ch) ? AXE_OK
                      : fail_at(c, AXE_ERR_SYNTAX, "expected %s", what);
}

static bool is_word(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

/* A word [A-Za-z0-9_]+ of fewer than AXE_AXIS_NAME_MAX bytes into "out"
 * (NUL-padded); false (nothing consumed) when there is none. */
static bool word(scan *c, char *out)
{
    size_t k = 0;
    if (!is_word(peek(c)))
        return false;
    while (c->pos + k < c->len && is_word((unsigned char)c->s[c->pos + k]))
        k++;
    if (k >= AXE_AXIS_NAME_MAX)
        return false;
    memset(out, 0, AXE_AXIS_NAME_MAX);
    memcpy(out, c->s + c->pos, k);
    c->pos += k;
    return true;
}

/* The keyword "kw" as a whole word. */
static bool keyword(scan *c, const char *kw)
{
    size_t k = strlen(kw), at;
    skip(c);
    at = c->pos;
    if (c->len - at < k || memcmp(c->s + at, kw, k) != 0 ||
        (at + k < c->len && is_word((unsigned char)c->s[at + k])))
        return false;
    c->pos += k;
    return true;
}

/* An integer (optional '-'), overflow-checked. */
static axe_status integer(scan *c, int64_t *out)
{
    bool neg = eat(c, '-');
    int64_t v = 0;
    size_t start = c->pos;
    while (c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, c->s[c->pos] - '0', &v))
            return fail_at(c, AXE_ERR_OVERFLOW, "%s", "integer overflows");
        c->pos++;
    }
    if (c->pos == start)
        return fail_at(c, AXE_ERR_SYNTAX, "%s", "expected an integer");
    *out = neg ? -v : v;
    return AXE_OK;
}

/* A quoted name 'x' or "x" into "out". */
static axe_status quoted(scan *c, char *out)
{
    int q = peek(c);
    if (q != '\'' && q != '"')
        return fail_at(c, AXE_ERR_SYNTAX, "%s", "expected a quoted name");
    c->pos++;
    if (!word(c, out) || c->pos >= c->len || c->s[c->pos] != q)
        return fail_at(c, AXE_ERR_SYNTAX,
                       "expected a name of [A-Za-z0-9_] (at most %d bytes) "
                       "and its closing quote",
                       AXE_AXIS_NAME_MAX - 1);
    c->pos++;
    return AXE_OK;
}

/* A name, quoted or not. */
static axe_status name(scan *c, char *out)
{
    int q = peek(c);
    if (q == '\'' || q == '"')
        return quoted(c, out);
    return word(c, out) ? AXE_OK
                        : fail_at(c, AXE_ERR_SYNTAX, "%s", "expected a name");
}

/* The end of the text. */
static axe_status end(scan *c)
{
    return peek(c) == -1 ? AXE_OK
                         : fail_at(c, AXE_ERR_SYNTAX, "%s",
                                   "unexpected text after the end");
}

/* ---- meshes -------------------------------------------------------------- */

/* One mesh entry: `name = size`, `name: size` or `size`. */
static axe_status mesh_entry(scan *c, axe_mesh *m, bool *named)
{
    int64_t v;
    size_t at = c->pos;
    int k = m->n;
    bool has_name = !(peek(c) >= '0' && peek(c) <= '9');
    if (k == AXE_MESH_MAX_AXES)
        return fail_at(c, AXE_ERR_CAPACITY, "a mesh has at most %d axes",
                       AXE_MESH_MAX_AXES);
    if (k > 0 && has_name != *named)
        return fail_at(c, AXE_ERR_SYNTAX, "%s",
                       "name every mesh axis (x=2,y=4) or none (2,4)");
    *named = has_name;
    if (has_name) {
        AXE_TRY(name(c, m->name[k]));
        if (!eat(c, '=') && !eat(c, ':'))
            return fail_at(c, AXE_ERR_SYNTAX, "%s", "expected = or :");
    } else {
        memset(m->name[k], 0, AXE_AXIS_NAME_MAX);
        snprintf(m->name[k], AXE_AXIS_NAME_MAX, "%d", k);
    }
    AXE_TRY(integer(c, &v));
    if (v < 1)
        return fail_at(c, AXE_ERR_INVALID, "mesh axis %s has a size < 1",
                       m->name[k]);
    for (int j = 0; j < k; j++)
        if (memcmp(m->name[j], m->name[k], AXE_AXIS_NAME_MAX) == 0) {
            c->pos = at;
            return fail_at(c, AXE_ERR_INVALID, "mesh axis %s is named twice",
                           m->name[k]);
        }
    m->size[k] = v;
    m->n = k + 1;
    return AXE_OK;
}

axe_status axe_parse_mesh(const char *text, size_t len, axe_mesh *out,
                          axe_diag *diag)
{
    scan c = {text, len, 0, diag};
    axe_mesh m;
    int64_t p;
    char close = 0;
    bool named = false;
    if (text == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "a NULL argument");
    memset(&m, 0, sizeof m);
    if (eat(&c, '{'))
        close = '}';
    else if (eat(&c, '['))
        close = ']';
    if (peek(&c) != close || close == 0) {
        do
            AXE_TRY(mesh_entry(&c, &m, &named));
        while (eat(&c, ','));
    }
    if (close != 0)
        AXE_TRY(expect(&c, close, close == '}' ? "}" : "]"));
    AXE_TRY(end(&c));
    if (axe_mesh_devices(&m, &p) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the mesh's device count overflows");
    *out = m;
    return AXE_OK;
}

size_t axe_print_mesh(const axe_mesh *mesh, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    for (int k = 0; k < mesh->n && k < AXE_MESH_MAX_AXES; k++) {
        axe__put(&w, k > 0 ? "," : "");
        axe__put(&w, mesh->name[k]);
        axe__put(&w, "=");
        axe__put_int(&w, mesh->size[k]);
    }
    return axe__writer_end(&w);
}

/* ---- specs: shared ------------------------------------------------------- */

/* Give dim "d" the mesh axis "a" (checked: unused so far). */
static axe_status assign(scan *c, const axe_mesh *m, axe_sharding *s, int d,
                         int a, uint32_t *used)
{
    if (*used & (1u << a))
        return fail_at(c, AXE_ERR_INVALID, "mesh axis %s is used twice",
                       m->name[a]);
    *used |= 1u << a;
    s->axis[d][s->naxes[d]++] = (int8_t)a;
    return AXE_OK;
}

/* The mesh axis called "nm", or a failure naming it and the mesh. */
static axe_status lookup(scan *c, const axe_mesh *m, const char *nm, int *a)
{
    char text[160];
    for (*a = 0; *a < m->n; (*a)++)
        if (memcmp(m->name[*a], nm, AXE_AXIS_NAME_MAX) == 0)
            return AXE_OK;
    axe_print_mesh(m, text, sizeof text);
    snprintf(text + strlen(text), sizeof text - strlen(text),
             " has no axis %.15s", nm);
    return fail_at(c, AXE_ERR_INVALID, "the mesh %s", text);
}

/* A module prefix `a.b.` before the constructor's name, which goes to
 * "last". */
static axe_status dotted(scan *c, char *last)
{
    if (!word(c, last))
        return fail_at(c, AXE_ERR_SYNTAX, "%s", "expected a name");
    while (eat(c, '.'))
        if (!word(c, last))
            return fail_at(c, AXE_ERR_SYNTAX, "%s", "expected a name");
    return AXE_OK;
}

/* ---- JAX ----------------------------------------------------------------- */

/* One entry: None, 'x', ('x', 'y'), (). */
static axe_status jax_entry(scan *c, const axe_mesh *m, axe_sharding *s, int d,
                            uint32_t *used)
{
    char nm[AXE_AXIS_NAME_MAX];
    int a;
    if (keyword(c, "None"))
        return AXE_OK;
    if (keyword(c, "P") || keyword(c, "PartitionSpec"))
        return fail_at(c, AXE_ERR_UNSUPPORTED, "%s",
                       "P.UNCONSTRAINED leaves the placement to the "
                       "compiler: no layout");
    if (!eat(c, '(')) {
        AXE_TRY(quoted(c, nm));
        AXE_TRY(lookup(c, m, nm, &a));
        return assign(c, m, s, d, a, used);
    }
    if (eat(c, ')'))
        return AXE_OK;
    do {
        if (peek(c) == ')')
            break;
        AXE_TRY(quoted(c, nm));
        AXE_TRY(lookup(c, m, nm, &a));
        AXE_TRY(assign(c, m, s, d, a, used));
    } while (eat(c, ','));
    return expect(c, ')', ")");
}

static axe_status parse_jax(scan *c, const axe_mesh *m, int ndims,
                            axe_sharding *s)
{
    char last[AXE_AXIS_NAME_MAX];
    uint32_t used = 0;
    int d = 0;
    AXE_TRY(dotted(c, last));
    if (strcmp(last, "P") != 0 && strcmp(last, "PartitionSpec") != 0)
        return fail_at(c, AXE_ERR_SYNTAX, "%s",
                       "expected P(...) or PartitionSpec(...)");
    AXE_TRY(expect(c, '(', "("));
    while (peek(c) != ')') {
        if (d == ndims)
            return fail_at(c, AXE_ERR_INVALID, "%s",
                           "the spec has more entries than the shape has "
                           "dims");
        AXE_TRY(jax_entry(c, m, s, d++, &used));
        if (!eat(c, ','))
            break;
    }
    return expect(c, ')', ") or ,");
}

/* ---- DTensor ------------------------------------------------------------- */

static const char *const reduce_ops[] = {"sum", "avg", "max", "min", "product"};

/* Partial(...)'s argument (default sum; quoted, or bare as DTensor's
 * repr `Partial(sum)` writes it) into s->op. */
static axe_status partial_op(scan *c, axe_sharding *s)
{
    char op[AXE_AXIS_NAME_MAX] = "sum";
    size_t i = 0;
    if (peek(c) != ')') {
        if (keyword(c, "reduce_op"))
            AXE_TRY(expect(c, '=', "="));
        AXE_TRY(name(c, op));
    }
    while (i < sizeof reduce_ops / sizeof *reduce_ops &&
           strcmp(op, reduce_ops[i]) != 0)
        i++;
    if (i == sizeof reduce_ops / sizeof *reduce_ops)
        return fail_at(c, AXE_ERR_INVALID,
                       "reduction '%s' is not sum, avg, max, min or product",
                       op);
    if (s->partial != 0 && strcmp(s->op, op) != 0)
        return fail_at(c, AXE_ERR_UNSUPPORTED, "%s",
                       "Partials with different reductions have no single "
                       "flag");
    memset(s->op, 0, sizeof s->op);
    memcpy(s->op, op, strlen(op));
    return AXE_OK;
}

/* Shard(d) / Shard(dim=d)'s dim, negative counted from the end. */
static axe_status shard_dim(scan *c, int ndims, int *d)
{
    int64_t v;
    if (keyword(c, "dim"))
        AXE_TRY(expect(c, '=', "="));
    AXE_TRY(integer(c, &v));
    if (v < -ndims || v >= ndims)
        return fail_at(c, AXE_ERR_INVALID, "%s",
                       "Shard's dim is outside the tensor's dims");
    *d = (int)(v < 0 ? v + ndims : v);
    return AXE_OK;
}

/* The placement of mesh axis "k". */
static axe_status placement(scan *c, const axe_mesh *m, int ndims, int k,
                            axe_sharding *s, uint32_t *used)
{
    char last[AXE_AXIS_NAME_MAX];
    int d;
    AXE_TRY(dotted(c, last));
    AXE_TRY(expect(c, '(', "("));
    if (strcmp(last, "Shard") == 0) {
        AXE_TRY(shard_dim(c, ndims, &d));
        AXE_TRY(assign(c, m, s, d, k, used));
    } else if (strcmp(last, "Partial") == 0) {
        AXE_TRY(partial_op(c, s));
        s->partial |= 1u << k;
    } else if (strcmp(last, "Replicate") != 0) {
        return fail_at(c, AXE_ERR_SYNTAX, "%s",
                       "expected Shard(d), Replicate() or Partial()");
    }
    return expect(c, ')', ")");
}

static axe_status parse_dtensor(scan *c, const axe_mesh *m, int ndims,
                                axe_sharding *s)
{
    uint32_t used = 0;
    char close = eat(c, '[') ? ']' : 0;
    int k = 0;
    if (close == 0 && eat(c, '('))
        close = ')';
    if (close == 0)
        return fail_at(c, AXE_ERR_SYNTAX, "%s",
                       "expected [ (a list of placements)");
    while (peek(c) != close) {
        if (k == m->n)
            return fail_at(c, AXE_ERR_INVALID, "%s",
                           "more placements than mesh axes");
        AXE_TRY(placement(c, m, ndims, k++, s, &used));
        if (!eat(c, ','))
            break;
    }
    AXE_TRY(expect(c, close, close == ']' ? "] or ," : ") or ,"));
    if (k != m->n)
        return fail_at(c, AXE_ERR_INVALID, "%s",
                       "DTensor needs one placement per mesh axis");
    return AXE_OK;
}

/* ---- Alpa ---------------------------------------------------------------- */

static axe_status parse_alpa(scan *c, const axe_mesh *m, int ndims,
                             axe_sharding *s)
{
    uint32_t used = 0;
    int d = 0;
    for (int ch = peek(c); ch != -1; ch = peek(c), d++) {
        if (d == ndims)
            return fail_at(c, AXE_ERR_INVALID, "%s",
                           "more entries than the shape has dims");
        c->pos++;
        if (ch == 'R')
            continue;
        if (ch != 'S' || c->pos >= c->len || c->s[c->pos] < '0' ||
            c->s[c->pos] > '9')
            return fail_at(c, AXE_ERR_SYNTAX, "%s",
                           "expected R or S followed by mesh axis digits");
        while (c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9') {
            int a = c->s[c->pos] - '0';
            if (a >= m->n)
                return fail_at(c, AXE_ERR_INVALID, "%s",
                               "the digit is not a mesh axis index");
            AXE_TRY(assign(c, m, s, d, a, &used));
            c->pos++;
        }
    }
    if (d != ndims)
        return fail_at(c, AXE_ERR_INVALID, "%s",
                       "Alpa's notation needs one R or S<digits> per dim");
    return AXE_OK;
}

axe_status axe_parse_sharding(axe_sharding_format fmt, const char *text,
                              size_t len, const axe_mesh *mesh, int ndims,
                              axe_sharding *out, axe_diag *diag)
{
    scan c = {text, len, 0, diag};
    axe_sharding s;
    if (text == NULL || mesh == NULL || out == NULL || ndims < 0 ||
        ndims > AXE_LAYOUT_MAX_DIMS || mesh->n < 0 ||
        mesh->n > AXE_MESH_MAX_AXES)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a NULL argument, or a shape of more than %d dims",
                         AXE_LAYOUT_MAX_DIMS);
    memset(&s, 0, sizeof s);
    s.ndims = ndims;
    if (fmt == AXE_SHARDING_JAX)
        AXE_TRY(parse_jax(&c, mesh, ndims, &s));
    else if (fmt == AXE_SHARDING_DTENSOR)
        AXE_TRY(parse_dtensor(&c, mesh, ndims, &s));
    else if (fmt == AXE_SHARDING_ALPA)
        AXE_TRY(parse_alpa(&c, mesh, ndims, &s));
    else
        return axe__fail(diag, AXE_ERR_INVALID, -1, "unknown spec format");
    AXE_TRY(end(&c));
    *out = s;
    return AXE_OK;
}

/* ---- printing ------------------------------------------------------------ */

static void print_jax(axe__writer *w, const axe_sharding *s, const axe_mesh *m)
{
    axe__put(w, "P(");
    for (int d = 0; d < s->ndims; d++) {
        axe__put(w, d > 0 ? ", " : "");
        if (s->naxes[d] == 0)
            axe__put(w, "None");
        axe__put(w, s->naxes[d] > 1 ? "(" : "");
        for (int j = 0; j < s->naxes[d]; j++) {
            axe__put(w, j > 0 ? ", '" : "'");
            axe__put(w, m->name[s->axis[d][j]]);
            axe__put(w, "'");
        }
        axe__put(w, s->naxes[d] > 1 ? ")" : "");
    }
    axe__put(w, ")");
}

/* The dim mesh axis "k" shards, or -1. */
static int dim_of(const axe_sharding *s, int k)
{
    for (int d = 0; d < s->ndims; d++)
        for (int j = 0; j < s->naxes[d]; j++)
            if (s->axis[d][j] == k)
                return d;
    return -1;
}

static void print_dtensor(axe__writer *w, const axe_sharding *s,
                          const axe_mesh *m)
{
    axe__put(w, "[");
    for (int k = 0; k < m->n; k++) {
        int d = dim_of(s, k);
        axe__put(w, k > 0 ? ", " : "");
        if (d >= 0) {
            axe__put(w, "Shard(");
            axe__put_int(w, d);
            axe__put(w, ")");
        } else if (s->partial & (1u << k)) {
            axe__put(w, strcmp(s->op, "sum") == 0 ? "Partial(" : "Partial('");
            axe__put(w, strcmp(s->op, "sum") == 0 ? ")" : s->op);
            axe__put(w, strcmp(s->op, "sum") == 0 ? "" : "')");
        } else {
            axe__put(w, "Replicate()");
        }
    }
    axe__put(w, "]");
}

static void print_alpa(axe__writer *w, const axe_sharding *s)
{
    char digit[2] = "0";
    for (int d = 0; d < s->ndims; d++) {
        axe__put(w, s->naxes[d] == 0 ? "R" : "S");
        for (int j = 0; j < s->naxes[d]; j++) {
            digit[0] = (char)('0' + s->axis[d][j]);
            axe__put(w, digit);
        }
    }
}

/* Whether format "fmt" writes "s": no partial outside DTensor, DTensor's
 * dims split in mesh order, Alpa's axes single digits. */
static bool printable(axe_sharding_format fmt, const axe_sharding *s,
                      const axe_mesh *m)
{
    if (s->ndims < 0 || s->ndims > AXE_LAYOUT_MAX_DIMS || m->n < 0 ||
        m->n > AXE_MESH_MAX_AXES ||
        (s->partial != 0 && fmt != AXE_SHARDING_DTENSOR))
        return false;
    for (int d = 0; d < s->ndims; d++)
        for (int j = 0; j < s->naxes[d]; j++)
            if (s->axis[d][j] < 0 || s->axis[d][j] >= m->n ||
                (fmt == AXE_SHARDING_DTENSOR && j > 0 &&
                 s->axis[d][j] < s->axis[d][j - 1]))
                return false;
    return true;
}

size_t axe_print_sharding(axe_sharding_format fmt, const axe_sharding *s,
                          const axe_mesh *mesh, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    if (s == NULL || mesh == NULL || !printable(fmt, s, mesh))
        return axe__writer_end(&w);
    if (fmt == AXE_SHARDING_JAX)
        print_jax(&w, s, mesh);
    else if (fmt == AXE_SHARDING_DTENSOR)
        print_dtensor(&w, s, mesh);
    else if (fmt == AXE_SHARDING_ALPA)
        print_alpa(&w, s);
    return axe__writer_end(&w);
}
