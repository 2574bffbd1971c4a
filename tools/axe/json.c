/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The strict JSON reader and compact writer of json.h. The parser is a
 * recursive descent over the byte range [pos, len) bounded by JSON_MAX_DEPTH;
 * children of open arrays and objects wait on one growable slot stack and are
 * copied into the arena when their container closes, strings are decoded into
 * a reused scratch buffer first. Invariant: on every return from a parse_*
 * function either the status is JSON_OK and "*out" is a complete value in the
 * arena, or an error message naming the first bad byte has been written; no
 * heap memory outside the arena survives json_parse.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define JSON_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define JSON_PRINTF(f, a)
#endif

#define ARENA_ALIGN _Alignof(max_align_t)
#define ARENA_BLOCK 8192

typedef struct json_member {
    const char *key;
    size_t key_len;
    json_value *value;
} json_member;

struct json_value {
    json_kind kind;
    union {
        int boolean;
        struct {
            const char *text;
            size_t text_len;
            double d;
            int64_t i;
            int is_int;
        } num;
        struct {
            const char *s;
            size_t len;
        } str;
        struct {
            json_value **items;
            size_t len;
        } arr;
        struct {
            json_member *members;
            size_t len;
        } obj;
    } u;
};

typedef struct json_block {
    struct json_block *next;
    size_t size; /* bytes allocated for the block, header included */
    size_t used; /* bytes handed out, header included */
} json_block;

struct json_arena {
    json_block *head;
    json_alloc_fn *alloc;
    void *ud;
};

static void *default_alloc(void *ud, void *ptr, size_t old_size,
                           size_t new_size)
{
    (void)ud;
    (void)old_size;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

/* "n" rounded up to a multiple of ARENA_ALIGN; 0 when that overflows. */
static size_t align_up(size_t n)
{
    size_t a = ARENA_ALIGN;

    if (n > SIZE_MAX - (a - 1))
        return 0;
    return (n + a - 1) / a * a;
}

static size_t block_header(void) { return align_up(sizeof(json_block)); }

json_arena *json_arena_new(json_alloc_fn *alloc, void *ud)
{
    json_alloc_fn *fn = alloc ? alloc : default_alloc;
    json_arena *arena = fn(ud, NULL, 0, sizeof(json_arena));

    if (!arena)
        return NULL;
    arena->head = NULL;
    arena->alloc = fn;
    arena->ud = ud;
    return arena;
}

void json_arena_free(json_arena *arena)
{
    json_block *b, *next;

    if (!arena)
        return;
    for (b = arena->head; b; b = next) {
        next = b->next;
        arena->alloc(arena->ud, b, b->size, 0);
    }
    arena->alloc(arena->ud, arena, sizeof(json_arena), 0);
}

/*
 * A new block with room for "size" bytes. A large request gets a block of
 * its own behind the head, so the head's free room is not abandoned.
 */
static void *arena_new_block(json_arena *arena, size_t size)
{
    size_t hdr = block_header(), want;
    json_block *b;

    if (size > SIZE_MAX - hdr)
        return NULL;
    want = size > ARENA_BLOCK - hdr ? size + hdr : ARENA_BLOCK;
    b = arena->alloc(arena->ud, NULL, 0, want);
    if (!b)
        return NULL;
    b->size = want;
    b->used = hdr + size;
    if (arena->head && size > ARENA_BLOCK / 4) {
        b->next = arena->head->next;
        arena->head->next = b;
    } else {
        b->next = arena->head;
        arena->head = b;
    }
    return (char *)b + hdr;
}

/* "size" bytes aligned for any object, owned by "arena"; NULL on failure. */
static void *arena_alloc(json_arena *arena, size_t size)
{
    json_block *b = arena->head;
    void *p;

    size = align_up(size ? size : 1);
    if (size == 0)
        return NULL;
    if (b && b->size - b->used >= size) {
        p = (char *)b + b->used;
        b->used += size;
        return p;
    }
    return arena_new_block(arena, size);
}

/* A NUL-terminated copy of the "len" bytes at "s" in "arena". */
static char *arena_strdup(json_arena *arena, const char *s, size_t len)
{
    char *copy;

    if (len == SIZE_MAX)
        return NULL;
    copy = arena_alloc(arena, len + 1);
    if (!copy)
        return NULL;
    if (len)
        memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

/* An array of "n" elements of "size" bytes in "arena"; NULL on overflow. */
static void *arena_array(json_arena *arena, size_t n, size_t size)
{
    if (n > SIZE_MAX / size)
        return NULL;
    return arena_alloc(arena, n * size);
}

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at the start of the
 * "n" > 0 bytes at "s", or 0 if there is none: no overlong forms, no
 * surrogates U+D800..U+DFFF, nothing above U+10FFFF (Unicode table 3-7).
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t need, k;

    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    need = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (n < need || s[1] < lo || s[1] > hi)
        return 0;
    for (k = 2; k < need; k++)
        if (!is_cont(s[k]))
            return 0;
    return need;
}

/* Write code point "cp" <= 0x10FFFF as UTF-8 into "out"; return its length */
static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

typedef struct slot {
    const char *key; /* NULL for an array element */
    size_t key_len;
    size_t offset; /* of the key's opening quote */
    json_value *value;
} slot;

typedef struct parser {
    const unsigned char *text;
    size_t len;
    size_t pos;
    json_arena *arena;
    json_buf scratch;
    slot *stack;
    size_t top;
    size_t cap;
    unsigned depth;
    char *err;
    size_t errlen;
} parser;

/* Report "status" at byte "offset" with a printf-style reason. */
JSON_PRINTF(4, 5)
static json_status fail(parser *p, json_status status, size_t offset,
                        const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!p->err || p->errlen == 0)
        return status;
    n = snprintf(p->err, p->errlen, "offset %zu: ", offset);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return status;
}

static json_status fail_nomem(parser *p)
{
    return fail(p, JSON_ERR_NOMEM, p->pos, "out of memory");
}

/* The byte at "offset" for a message: 'x' if printable, else byte 0xNN. */
static const char *describe(const parser *p, size_t offset, char *buf,
                            size_t size)
{
    unsigned c;

    if (offset >= p->len)
        return "end of input";
    c = p->text[offset];
    if (c > 0x20 && c < 0x7F)
        snprintf(buf, size, "'%c'", (char)c);
    else
        snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

/* Fail at "pos": "unexpected <what is there>, expected <wanted>". */
static json_status fail_expected(parser *p, const char *wanted)
{
    char buf[16];

    return fail(p, JSON_ERR_SYNTAX, p->pos, "unexpected %s, expected %s",
                describe(p, p->pos, buf, sizeof(buf)), wanted);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->pos++;
    }
}

/* The byte at "pos", or -1 at the end of the input. */
static int peek(const parser *p)
{
    return p->pos < p->len ? p->text[p->pos] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static json_value *new_value(parser *p, json_kind kind)
{
    json_value *v = arena_alloc(p->arena, sizeof(json_value));

    if (v) {
        memset(v, 0, sizeof(*v));
        v->kind = kind;
    }
    return v;
}

static json_status push_slot(parser *p, const char *key, size_t key_len,
                             size_t offset, json_value *value)
{
    if (p->top == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        slot *s;
        if (cap > SIZE_MAX / 2 / sizeof(slot))
            return fail_nomem(p);
        s = p->arena->alloc(p->arena->ud, p->stack, p->cap * sizeof(slot),
                            cap * sizeof(slot));
        if (!s)
            return fail_nomem(p);
        p->stack = s;
        p->cap = cap;
    }
    p->stack[p->top].key = key;
    p->stack[p->top].key_len = key_len;
    p->stack[p->top].offset = offset;
    p->stack[p->top].value = value;
    p->top++;
    return JSON_OK;
}

static json_status parse_value(parser *p, json_value **out);

/* The four hex digits at "at" into "*cp"; 0 if they are not four hex digits */
static int read_hex4(const parser *p, size_t at, uint32_t *cp)
{
    uint32_t v = 0;
    size_t k;

    if (at > p->len || p->len - at < 4)
        return 0;
    for (k = at; k < at + 4; k++) {
        unsigned c = p->text[k];
        uint32_t d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return 0;
        v = v * 16 + d;
    }
    *cp = v;
    return 1;
}

/*
 * The \uXXXX escape at "pos" (on the backslash), with its low-surrogate
 * partner when it is a high surrogate, appended as UTF-8. Unpaired
 * surrogates are rejected.
 */
static json_status parse_unicode_escape(parser *p)
{
    size_t at = p->pos;
    uint32_t cp, lo;
    char utf8[4];

    if (!read_hex4(p, at + 2, &cp))
        return fail(p, JSON_ERR_SYNTAX, at, "expected 4 hex digits after \\u");
    p->pos = at + 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(p, JSON_ERR_SYNTAX, at, "lone low surrogate \\u%04x",
                    (unsigned)cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (p->len - p->pos < 6 || p->text[p->pos] != '\\' ||
            p->text[p->pos + 1] != 'u' || !read_hex4(p, p->pos + 2, &lo) ||
            lo < 0xDC00 || lo > 0xDFFF)
            return fail(p, JSON_ERR_SYNTAX, at,
                        "high surrogate \\u%04x not followed by a low one",
                        (unsigned)cp);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p->pos += 6;
    }
    json_buf_put_raw(&p->scratch, utf8, utf8_encode(cp, utf8));
    return JSON_OK;
}

/* The escape sequence at "pos" (on the backslash), appended decoded. */
static json_status parse_escape(parser *p)
{
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    const char *hit;
    char buf[16];
    int c;

    if (p->pos + 1 >= p->len)
        return fail(p, JSON_ERR_SYNTAX, p->len, "unterminated string");
    c = p->text[p->pos + 1];
    if (c == 'u')
        return parse_unicode_escape(p);
    hit = c ? strchr(from, c) : NULL;
    if (!hit)
        return fail(p, JSON_ERR_SYNTAX, p->pos, "invalid escape \\ then %s",
                    describe(p, p->pos + 1, buf, sizeof(buf)));
    json_buf_put_raw(&p->scratch, &to[hit - from], 1);
    p->pos += 2;
    return JSON_OK;
}

/* Bytes that stand for themselves in a string: printable ASCII but " \. */
static int is_plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* One step inside a string at "pos": a run of bytes or one escape. */
static json_status parse_string_step(parser *p)
{
    size_t start = p->pos, n;
    unsigned char c;

    while (p->pos < p->len && is_plain(p->text[p->pos]))
        p->pos++;
    if (p->pos > start) {
        json_buf_put_raw(&p->scratch, (const char *)p->text + start,
                         p->pos - start);
        return JSON_OK;
    }
    c = p->text[p->pos];
    if (c == '\\')
        return parse_escape(p);
    if (c < 0x20)
        return fail(p, JSON_ERR_SYNTAX, p->pos,
                    "control character 0x%02x in string must be escaped", c);
    n = utf8_seq_len(p->text + p->pos, p->len - p->pos);
    if (n == 0)
        return fail(p, JSON_ERR_SYNTAX, p->pos,
                    "invalid UTF-8 byte 0x%02x in string", c);
    json_buf_put_raw(&p->scratch, (const char *)p->text + p->pos, n);
    p->pos += n;
    return JSON_OK;
}

/* The string at "pos" (on its quote), decoded into the arena. */
static json_status parse_string(parser *p, const char **s, size_t *len)
{
    size_t open = p->pos;
    json_status st;
    char *copy;

    json_buf_clear(&p->scratch);
    p->pos++;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, JSON_ERR_SYNTAX, p->len,
                        "unterminated string opened at offset %zu", open);
        if (p->text[p->pos] == '"')
            break;
        st = parse_string_step(p);
        if (st != JSON_OK)
            return st;
    }
    p->pos++;
    if (p->scratch.failed)
        return fail_nomem(p);
    copy = arena_strdup(p->arena, p->scratch.data, p->scratch.len);
    if (!copy)
        return fail_nomem(p);
    *s = copy;
    *len = p->scratch.len;
    return JSON_OK;
}

static json_status parse_string_value(parser *p, json_value **out)
{
    json_value *v = new_value(p, JSON_STRING);

    if (!v)
        return fail_nomem(p);
    *out = v;
    return parse_string(p, &v->u.str.s, &v->u.str.len);
}

/* "lexeme" (the digits of an integer literal) into "*out" if it fits. */
static int lexeme_to_int(const char *lexeme, int64_t *out)
{
    int neg = lexeme[0] == '-';
    uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
    const char *c;

    for (c = lexeme + neg; *c; c++) {
        uint64_t d = (uint64_t)(*c - '0');
        if (mag > (limit - d) / 10)
            return 0;
        mag = mag * 10 + d;
    }
    if (neg)
        *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    else
        *out = (int64_t)mag;
    return 1;
}

/* Skip digits after "what" at "pos"; fail unless there is at least one. */
static json_status need_digits(parser *p, const char *what)
{
    if (!is_digit(peek(p)))
        return fail(p, JSON_ERR_SYNTAX, p->pos, "expected a digit %s", what);
    while (is_digit(peek(p)))
        p->pos++;
    return JSON_OK;
}

/* Scan the number grammar of RFC 8259 §6 at "pos"; "*is_int" if no . or e */
static json_status scan_number(parser *p, int *is_int)
{
    json_status st;

    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
        if (is_digit(peek(p)))
            return fail(p, JSON_ERR_SYNTAX, p->pos,
                        "leading zeros are not allowed");
    } else if ((st = need_digits(p, "after '-'")) != JSON_OK) {
        return st;
    }
    *is_int = 1;
    if (peek(p) == '.') {
        p->pos++;
        *is_int = 0;
        if ((st = need_digits(p, "after '.'")) != JSON_OK)
            return st;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        *is_int = 0;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if ((st = need_digits(p, "in the exponent")) != JSON_OK)
            return st;
    }
    return JSON_OK;
}

static json_status parse_number(parser *p, json_value **out)
{
    size_t start = p->pos;
    int is_int = 0;
    json_status st = scan_number(p, &is_int);
    json_value *v;
    char *text;

    if (st != JSON_OK)
        return st;
    v = new_value(p, JSON_NUMBER);
    text =
        arena_strdup(p->arena, (const char *)p->text + start, p->pos - start);
    if (!v || !text)
        return fail_nomem(p);
    v->u.num.text = text;
    v->u.num.text_len = p->pos - start;
    v->u.num.d = strtod(text, NULL);
    if (!isfinite(v->u.num.d))
        return fail(p, JSON_ERR_SYNTAX, start,
                    "number %.24s%s overflows a double", text,
                    p->pos - start > 24 ? "..." : "");
    v->u.num.is_int = is_int && lexeme_to_int(text, &v->u.num.i);
    *out = v;
    return JSON_OK;
}

/* The literal "word" (true, false, null) at "pos" as a value of "kind". */
static json_status parse_literal(parser *p, const char *word, json_kind kind,
                                 json_value **out)
{
    size_t n = strlen(word);
    json_value *v;

    if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0)
        return fail(p, JSON_ERR_SYNTAX, p->pos, "invalid literal, expected %s",
                    word);
    v = new_value(p, kind);
    if (!v)
        return fail_nomem(p);
    v->u.boolean = word[0] == 't';
    p->pos += n;
    *out = v;
    return JSON_OK;
}

/* Enter a container at "pos", failing past JSON_MAX_DEPTH levels. */
static json_status enter(parser *p)
{
    if (p->depth >= JSON_MAX_DEPTH)
        return fail(p, JSON_ERR_DEPTH, p->pos, "nesting deeper than %d levels",
                    JSON_MAX_DEPTH);
    p->depth++;
    p->pos++;
    skip_ws(p);
    return JSON_OK;
}

/* Close the array whose elements are the slots from "base" up. */
static json_status finish_array(parser *p, size_t base, json_value **out)
{
    size_t n = p->top - base, k;
    json_value *v = new_value(p, JSON_ARRAY);
    json_value **items = arena_array(p->arena, n, sizeof(json_value *));

    if (!v || !items)
        return fail_nomem(p);
    for (k = 0; k < n; k++)
        items[k] = p->stack[base + k].value;
    v->u.arr.items = items;
    v->u.arr.len = n;
    p->top = base;
    p->depth--;
    *out = v;
    return JSON_OK;
}

static json_status parse_array(parser *p, json_value **out)
{
    size_t base = p->top;
    json_status st = enter(p);
    json_value *v = NULL;

    if (st != JSON_OK)
        return st;
    if (peek(p) == ']') {
        p->pos++;
        return finish_array(p, base, out);
    }
    for (;;) {
        if ((st = parse_value(p, &v)) != JSON_OK)
            return st;
        if ((st = push_slot(p, NULL, 0, 0, v)) != JSON_OK)
            return st;
        skip_ws(p);
        if (peek(p) == ']')
            break;
        if (peek(p) != ',')
            return fail_expected(p, "',' or ']' after array element");
        p->pos++;
    }
    p->pos++;
    return finish_array(p, base, out);
}

static int compare_slots(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);

    if (c != 0)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Fail if two of the "n" slots from "base" share a key, at the first repeated
 * key in document order. Sorting by (key, offset) puts every repeat right
 * after an equal key; the smallest such offset is the first repeat.
 */
static json_status check_duplicates(parser *p, size_t base, size_t n)
{
    size_t k, first = SIZE_MAX;
    slot *s;

    if (n < 2)
        return JSON_OK;
    s = p->stack + base;
    qsort(s, n, sizeof(slot), compare_slots);
    for (k = 1; k < n; k++)
        if (s[k].key_len == s[k - 1].key_len &&
            memcmp(s[k].key, s[k - 1].key, s[k].key_len) == 0 &&
            s[k].offset < first)
            first = s[k].offset;
    if (first != SIZE_MAX)
        return fail(p, JSON_ERR_SYNTAX, first, "duplicate object key");
    return JSON_OK;
}

/* Close the object whose members are the slots from "base" up. */
static json_status finish_object(parser *p, size_t base, json_value **out)
{
    size_t n = p->top - base, k;
    json_value *v = new_value(p, JSON_OBJECT);
    json_member *m = arena_array(p->arena, n, sizeof(json_member));
    json_status st;

    if (!v || !m)
        return fail_nomem(p);
    for (k = 0; k < n; k++) {
        m[k].key = p->stack[base + k].key;
        m[k].key_len = p->stack[base + k].key_len;
        m[k].value = p->stack[base + k].value;
    }
    if ((st = check_duplicates(p, base, n)) != JSON_OK)
        return st;
    v->u.obj.members = m;
    v->u.obj.len = n;
    p->top = base;
    p->depth--;
    *out = v;
    return JSON_OK;
}

/* One "key": value member at "pos", pushed as a slot. */
static json_status parse_member(parser *p)
{
    size_t offset = p->pos, key_len = 0;
    const char *key = NULL;
    json_value *v = NULL;
    json_status st;

    if (peek(p) != '"')
        return fail_expected(p, "'\"' to start an object key");
    if ((st = parse_string(p, &key, &key_len)) != JSON_OK)
        return st;
    skip_ws(p);
    if (peek(p) != ':')
        return fail_expected(p, "':' after object key");
    p->pos++;
    if ((st = parse_value(p, &v)) != JSON_OK)
        return st;
    return push_slot(p, key, key_len, offset, v);
}

static json_status parse_object(parser *p, json_value **out)
{
    size_t base = p->top;
    json_status st = enter(p);

    if (st != JSON_OK)
        return st;
    if (peek(p) == '}') {
        p->pos++;
        return finish_object(p, base, out);
    }
    for (;;) {
        if ((st = parse_member(p)) != JSON_OK)
            return st;
        skip_ws(p);
        if (peek(p) == '}')
            break;
        if (peek(p) != ',')
            return fail_expected(p, "',' or '}' after object member");
        p->pos++;
        skip_ws(p);
    }
    p->pos++;
    return finish_object(p, base, out);
}

/* Any value at "pos", after optional whitespace. */
static json_status parse_value(parser *p, json_value **out)
{
    int c;

    skip_ws(p);
    c = peek(p);
    if (c == '{')
        return parse_object(p, out);
    if (c == '[')
        return parse_array(p, out);
    if (c == '"')
        return parse_string_value(p, out);
    if (c == '-' || is_digit(c))
        return parse_number(p, out);
    if (c == 't')
        return parse_literal(p, "true", JSON_BOOL, out);
    if (c == 'f')
        return parse_literal(p, "false", JSON_BOOL, out);
    if (c == 'n')
        return parse_literal(p, "null", JSON_NULL, out);
    return fail_expected(p, "a JSON value");
}

json_status json_parse(json_arena *arena, const char *text, size_t len,
                       json_value **out, char *err, size_t errlen)
{
    parser p;
    json_value *v = NULL;
    json_status st;

    memset(&p, 0, sizeof(p));
    p.err = err;
    p.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    if (!arena || !out || (!text && len))
        return fail(&p, JSON_ERR_INVALID, 0, "invalid argument");
    p.text = (const unsigned char *)text;
    p.len = len;
    p.arena = arena;
    json_buf_init(&p.scratch, arena->alloc, arena->ud);
    st = parse_value(&p, &v);
    skip_ws(&p);
    if (st == JSON_OK && p.pos != p.len)
        st = fail_expected(&p, "end of input after the JSON value");
    json_buf_free(&p.scratch);
    if (p.stack)
        arena->alloc(arena->ud, p.stack, p.cap * sizeof(slot), 0);
    if (st == JSON_OK)
        *out = v;
    return st;
}

json_kind json_kind_of(const json_value *v) { return v ? v->kind : JSON_NULL; }

int json_is_null(const json_value *v) { return v && v->kind == JSON_NULL; }

int json_is_bool(const json_value *v) { return v && v->kind == JSON_BOOL; }

int json_is_number(const json_value *v) { return v && v->kind == JSON_NUMBER; }

int json_is_string(const json_value *v) { return v && v->kind == JSON_STRING; }

int json_is_array(const json_value *v) { return v && v->kind == JSON_ARRAY; }

int json_is_object(const json_value *v) { return v && v->kind == JSON_OBJECT; }

int json_is_int(const json_value *v)
{
    return json_is_number(v) && v->u.num.is_int;
}

json_status json_get_bool(const json_value *v, int *out)
{
    if (!json_is_bool(v))
        return JSON_ERR_TYPE;
    *out = v->u.boolean;
    return JSON_OK;
}

json_status json_get_int(const json_value *v, int64_t *out)
{
    if (!json_is_int(v))
        return JSON_ERR_TYPE;
    *out = v->u.num.i;
    return JSON_OK;
}

json_status json_get_double(const json_value *v, double *out)
{
    if (!json_is_number(v))
        return JSON_ERR_TYPE;
    *out = v->u.num.d;
    return JSON_OK;
}

const char *json_get_string(const json_value *v, size_t *len)
{
    if (!json_is_string(v))
        return NULL;
    if (len)
        *len = v->u.str.len;
    return v->u.str.s;
}

size_t json_array_len(const json_value *v)
{
    return json_is_array(v) ? v->u.arr.len : 0;
}

const json_value *json_array_at(const json_value *v, size_t i)
{
    return i < json_array_len(v) ? v->u.arr.items[i] : NULL;
}

size_t json_object_len(const json_value *v)
{
    return json_is_object(v) ? v->u.obj.len : 0;
}

const char *json_object_key_at(const json_value *v, size_t i, size_t *len)
{
    if (i >= json_object_len(v))
        return NULL;
    if (len)
        *len = v->u.obj.members[i].key_len;
    return v->u.obj.members[i].key;
}

const json_value *json_object_value_at(const json_value *v, size_t i)
{
    return i < json_object_len(v) ? v->u.obj.members[i].value : NULL;
}

const json_value *json_object_getn(const json_value *v, const char *key,
                                   size_t len)
{
    size_t k, n = json_object_len(v);

    for (k = 0; k < n; k++) {
        const json_member *m = &v->u.obj.members[k];
        if (m->key_len == len && memcmp(m->key, key, len) == 0)
            return m->value;
    }
    return NULL;
}

const json_value *json_object_get(const json_value *v, const char *key)
{
    return key ? json_object_getn(v, key, strlen(key)) : NULL;
}

static int numbers_equal(const json_value *a, const json_value *b)
{
    if (a->u.num.is_int && b->u.num.is_int)
        return a->u.num.i == b->u.num.i;
    return !(a->u.num.d < b->u.num.d) && !(a->u.num.d > b->u.num.d);
}

static int objects_equal(const json_value *a, const json_value *b)
{
    size_t k;

    if (a->u.obj.len != b->u.obj.len)
        return 0;
    for (k = 0; k < a->u.obj.len; k++) {
        const json_member *m = &a->u.obj.members[k];
        const json_value *other = json_object_getn(b, m->key, m->key_len);
        if (!other || !json_equal(m->value, other))
            return 0;
    }
    return 1;
}

static int arrays_equal(const json_value *a, const json_value *b)
{
    size_t k;

    if (a->u.arr.len != b->u.arr.len)
        return 0;
    for (k = 0; k < a->u.arr.len; k++)
        if (!json_equal(a->u.arr.items[k], b->u.arr.items[k]))
            return 0;
    return 1;
}

int json_equal(const json_value *a, const json_value *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case JSON_NULL:
        return 1;
    case JSON_BOOL:
        return a->u.boolean == b->u.boolean;
    case JSON_NUMBER:
        return numbers_equal(a, b);
    case JSON_STRING:
        return a->u.str.len == b->u.str.len &&
               memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
    case JSON_ARRAY:
        return arrays_equal(a, b);
    case JSON_OBJECT:
        return objects_equal(a, b);
    }
    return 0;
}

void json_buf_init(json_buf *buf, json_alloc_fn *alloc, void *ud)
{
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->failed = 0;
    buf->alloc = alloc ? alloc : default_alloc;
    buf->ud = ud;
}

void json_buf_free(json_buf *buf)
{
    if (buf->data)
        buf->alloc(buf->ud, buf->data, buf->cap, 0);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->failed = 0;
}

void json_buf_clear(json_buf *buf)
{
    buf->len = 0;
    buf->failed = 0;
    if (buf->data)
        buf->data[0] = '\0';
}

const char *json_buf_str(const json_buf *buf)
{
    return buf->data ? buf->data : "";
}

/* Make room for "extra" more bytes and a NUL; 0 (and failed) if impossible */
static int buf_reserve(json_buf *buf, size_t extra)
{
    size_t cap;
    char *data;

    if (buf->failed)
        return 0;
    if (extra < buf->cap - buf->len)
        return 1;
    if (extra > SIZE_MAX / 2 - buf->len - 1) {
        buf->failed = 1;
        return 0;
    }
    cap = buf->cap ? buf->cap : 64;
    while (cap <= buf->len + extra)
        cap *= 2;
    data = buf->alloc(buf->ud, buf->data, buf->cap, cap);
    if (!data) {
        buf->failed = 1;
        return 0;
    }
    buf->data = data;
    buf->cap = cap;
    return 1;
}

void json_buf_put_raw(json_buf *buf, const char *s, size_t len)
{
    if (len == 0 || !buf_reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, s, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void json_buf_put_rawz(json_buf *buf, const char *s)
{
    json_buf_put_raw(buf, s, strlen(s));
}

/* Append the byte "c" that needs escaping: \" \\ or \u00XX. */
static void put_escaped(json_buf *buf, unsigned char c)
{
    char tmp[8];

    if (c == '"' || c == '\\') {
        tmp[0] = '\\';
        tmp[1] = (char)c;
        json_buf_put_raw(buf, tmp, 2);
        return;
    }
    snprintf(tmp, sizeof(tmp), "\\u%04x", (unsigned)c);
    json_buf_put_raw(buf, tmp, 6);
}

void json_buf_put_string(json_buf *buf, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, start, n;

    json_buf_put_raw(buf, "\"", 1);
    while (i < len) {
        for (start = i; i < len && is_plain(u[i]); i++)
            continue;
        json_buf_put_raw(buf, s + start, i - start);
        if (i == len)
            break;
        if (u[i] < 0x80) {
            put_escaped(buf, u[i++]);
            continue;
        }
        n = utf8_seq_len(u + i, len - i);
        if (n)
            json_buf_put_raw(buf, s + i, n);
        else
            json_buf_put_raw(buf, "\xEF\xBF\xBD", 3);
        i += n ? n : 1;
    }
    json_buf_put_raw(buf, "\"", 1);
}

void json_buf_put_int(json_buf *buf, int64_t n)
{
    char tmp[32];
    int k = snprintf(tmp, sizeof(tmp), "%" PRId64, n);

    json_buf_put_raw(buf, tmp, (size_t)k);
}

void json_buf_put_double(json_buf *buf, double x)
{
    char tmp[40];
    int prec, k = 0;

    if (!isfinite(x)) {
        json_buf_put_raw(buf, "null", 4);
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        k = snprintf(tmp, sizeof(tmp), "%.*g", prec, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    json_buf_put_raw(buf, tmp, (size_t)k);
}

static void write_array(json_buf *buf, const json_value *v)
{
    size_t k;

    json_buf_put_raw(buf, "[", 1);
    for (k = 0; k < v->u.arr.len; k++) {
        if (k)
            json_buf_put_raw(buf, ",", 1);
        json_write_value(buf, v->u.arr.items[k]);
    }
    json_buf_put_raw(buf, "]", 1);
}

static void write_object(json_buf *buf, const json_value *v)
{
    size_t k;

    json_buf_put_raw(buf, "{", 1);
    for (k = 0; k < v->u.obj.len; k++) {
        const json_member *m = &v->u.obj.members[k];
        if (k)
            json_buf_put_raw(buf, ",", 1);
        json_buf_put_string(buf, m->key, m->key_len);
        json_buf_put_raw(buf, ":", 1);
        json_write_value(buf, m->value);
    }
    json_buf_put_raw(buf, "}", 1);
}

void json_write_value(json_buf *buf, const json_value *v)
{
    switch (json_kind_of(v)) {
    case JSON_NULL:
        json_buf_put_raw(buf, "null", 4);
        return;
    case JSON_BOOL:
        json_buf_put_rawz(buf, v->u.boolean ? "true" : "false");
        return;
    case JSON_NUMBER:
        json_buf_put_raw(buf, v->u.num.text, v->u.num.text_len);
        return;
    case JSON_STRING:
        json_buf_put_string(buf, v->u.str.s, v->u.str.len);
        return;
    case JSON_ARRAY:
        write_array(buf, v);
        return;
    case JSON_OBJECT:
        write_object(buf, v);
        return;
    }
}
