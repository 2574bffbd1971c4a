/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the CLI's JSON module (tools/axe/json.h): tables of documents
 * that must round-trip through json_parse + json_write_value to a compact
 * text, a reject list whose rows must fail at a given byte offset, accessor
 * and writer rows, allocation-failure runs and seeded random mutations
 * (AXE_TEST_SEED=N replays). Invariant: every row that fails prints itself,
 * and the last line is "N passed, M failed".
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 160

static int passed;
static int failed;

/* Count a row as passed if "cond", else print it (printf-style) as failed. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            fputs("FAIL: ", stdout);                                           \
            printf(__VA_ARGS__);                                               \
            fputc('\n', stdout);                                               \
        }                                                                      \
    } while (0)

/* "len" bytes of "s" as a C-ish literal, for failure messages. */
static const char *show(const char *s, size_t len)
{
    static char out[200];
    size_t i, n = 0;

    for (i = 0; i < len && n + 8 < sizeof(out); i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F)
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, sizeof(out) - n, "\\x%02x", c);
    }
    out[n] = '\0';
    return out;
}

/* Parse "text" and write it back into "buf"; the parse status. */
static json_status reprint(const char *text, size_t len, json_buf *buf,
                           char *err)
{
    json_arena *arena = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    json_status st;

    if (!arena)
        return JSON_ERR_NOMEM;
    st = json_parse(arena, text, len, &v, err, ERRLEN);
    json_buf_clear(buf);
    if (st == JSON_OK)
        json_write_value(buf, v);
    json_arena_free(arena);
    return st;
}

typedef struct roundtrip_row {
    const char *in;
    const char *out;
} roundtrip_row;

static const roundtrip_row roundtrip_rows[] = {
    {"null", "null"},
    {" \t\r\n true \n", "true"},
    {"false", "false"},
    {"0", "0"},
    {"-0", "-0"},
    {"123", "123"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"9223372036854775808", "9223372036854775808"},
    {"1.50", "1.50"},
    {"1E+2", "1E+2"},
    {"-0.0e-0", "-0.0e-0"},
    {"1e-400", "1e-400"},
    {"123456789012345678901234567890", "123456789012345678901234567890"},
    {"\"\"", "\"\""},
    {"\"a\\/b\"", "\"a/b\""},
    {"\"\\u0041\\n\\t\\b\\f\\r\"", "\"A\\u000a\\u0009\\u0008\\u000c\\u000d\""},
    {"\"\\\"\\\\\"", "\"\\\"\\\\\""},
    {"\"\\u0000x\"", "\"\\u0000x\""},
    {"\"\\u00e9\\u20AC\"", "\"\xc3\xa9\xe2\x82\xac\""},
    {"\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\""},
    {"\"\xf4\x8f\xbf\xbf\xed\x9f\xbf\x7f\"",
     "\"\xf4\x8f\xbf\xbf\xed\x9f\xbf\x7f\""},
    {"[ ]", "[]"},
    {"{ }", "{}"},
    {"[ 1 , [ ] , { } , \"x\" ]", "[1,[],{},\"x\"]"},
    {"{ \"a\" : 1 , \"b\" : [ true , false , null ] }",
     "{\"a\":1,\"b\":[true,false,null]}"},
    {"{\"a\":1,\"ab\":2,\"\":3,\"\\u0000\":4}",
     "{\"a\":1,\"ab\":2,\"\":3,\"\\u0000\":4}"},
    {"{\"id\":{\"x\":[1,{\"y\":null}]}}", "{\"id\":{\"x\":[1,{\"y\":null}]}}"},
};

static void test_roundtrip(void)
{
    size_t k, n = sizeof(roundtrip_rows) / sizeof(roundtrip_rows[0]);
    json_buf buf;
    char err[ERRLEN];

    json_buf_init(&buf, NULL, NULL);
    for (k = 0; k < n; k++) {
        const roundtrip_row *r = &roundtrip_rows[k];
        json_status st = reprint(r->in, strlen(r->in), &buf, err);
        CHECK(st == JSON_OK && !buf.failed &&
                  strcmp(json_buf_str(&buf), r->out) == 0,
              "roundtrip %s: status %d, got %s (%s)", r->in, st,
              json_buf_str(&buf), err);
        st = reprint(r->out, strlen(r->out), &buf, err);
        CHECK(st == JSON_OK && strcmp(json_buf_str(&buf), r->out) == 0,
              "roundtrip is idempotent on %s", r->out);
    }
    json_buf_free(&buf);
}

typedef struct reject_row {
    const char *in;
    size_t len; /* 0: strlen(in) */
    json_status status;
    size_t offset;
} reject_row;

#define SYN JSON_ERR_SYNTAX

static const reject_row reject_rows[] = {
    {"", 0, SYN, 0},
    {"   ", 0, SYN, 3},
    {"{\"a\":}", 0, SYN, 5},
    {"[1,]", 0, SYN, 3},
    {"[1", 0, SYN, 2},
    {"[", 0, SYN, 1},
    {"{", 0, SYN, 1},
    {"{\"a\"", 0, SYN, 4},
    {"{\"a\" 1}", 0, SYN, 5},
    {"{\"a\":1,}", 0, SYN, 7},
    {"{\"a\":1 \"b\":2}", 0, SYN, 7},
    {"{1:2}", 0, SYN, 1},
    {"{'a':1}", 0, SYN, 1},
    {"[1 2]", 0, SYN, 3},
    {"[,1]", 0, SYN, 1},
    {"]", 0, SYN, 0},
    {"1 2", 0, SYN, 2},
    {"{}x", 0, SYN, 2},
    {"nulll", 0, SYN, 4},
    {"01", 0, SYN, 1},
    {"-01", 0, SYN, 2},
    {"00", 0, SYN, 1},
    {"-", 0, SYN, 1},
    {"-a", 0, SYN, 1},
    {"- 1", 0, SYN, 1},
    {"1.", 0, SYN, 2},
    {"1.e3", 0, SYN, 2},
    {"1e", 0, SYN, 2},
    {"1e+", 0, SYN, 3},
    {".5", 0, SYN, 0},
    {"+1", 0, SYN, 0},
    {"0x10", 0, SYN, 1},
    {"1e400", 0, SYN, 0},
    {"[-1e99999999999999999999]", 0, SYN, 1},
    {"NaN", 0, SYN, 0},
    {"-Infinity", 0, SYN, 1},
    {"tru", 0, SYN, 0},
    {"True", 0, SYN, 0},
    {"nul", 0, SYN, 0},
    {"'a'", 0, SYN, 0},
    {"/*c*/1", 0, SYN, 0},
    {"\"abc", 0, SYN, 4},
    {"\"abc\\", 0, SYN, 5},
    {"\"a\tb\"", 0, SYN, 2},
    {"\"a\nb\"", 0, SYN, 2},
    {"\"\x1f\"", 0, SYN, 1},
    {"\"\\x\"", 0, SYN, 1},
    {"\"\\U0041\"", 0, SYN, 1},
    {"\"\\u12\"", 0, SYN, 1},
    {"\"\\u12G4\"", 0, SYN, 1},
    {"\"\\u", 0, SYN, 1},
    {"\"\\ud800\"", 0, SYN, 1},
    {"\"\\ud800\\u0041\"", 0, SYN, 1},
    {"\"\\ud800\\ud800\"", 0, SYN, 1},
    {"\"x\\udc00\"", 0, SYN, 2},
    {"\"\\ud83d\\n\"", 0, SYN, 1},
    {"\"\xff\"", 0, SYN, 1},
    {"\"\x80\"", 0, SYN, 1},
    {"\"\xc0\xaf\"", 0, SYN, 1},
    {"\"\xc1\xbf\"", 0, SYN, 1},
    {"\"\xe0\x9f\xbf\"", 0, SYN, 1},
    {"\"\xed\xa0\x80\"", 0, SYN, 1},
    {"\"\xf0\x8f\xbf\xbf\"", 0, SYN, 1},
    {"\"\xf4\x90\x80\x80\"", 0, SYN, 1},
    {"\"ab\xe2\x82\"", 0, SYN, 3},
    {"\"\xe2\x82", 0, SYN, 1},
    {"\xef\xbb\xbf{}", 0, SYN, 0},
    {"[1,\0]", 5, SYN, 3},
    {"\"a\0\"", 4, SYN, 2},
    {"\0", 1, SYN, 0},
    {"{\"a\":1,\"b\":2,\"a\":3}", 0, SYN, 13},
    {"{\"k\":{\"x\":1,\"x\":2}}", 0, SYN, 12},
    {"{\"\\u0061\":1,\"a\":2}", 0, SYN, 12},
};

static void check_reject(const char *in, size_t len, json_status want,
                         size_t offset)
{
    json_arena *arena = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    char err[ERRLEN], prefix[40];
    json_status st;

    if (!arena) {
        CHECK(0, "arena allocation");
        return;
    }
    st = json_parse(arena, in, len, &v, err, sizeof(err));
    snprintf(prefix, sizeof(prefix), "offset %zu: ", offset);
    CHECK(st == want && v == NULL &&
              strncmp(err, prefix, strlen(prefix)) == 0 &&
              strlen(err) > strlen(prefix),
          "reject %s: status %d (want %d), message \"%s\" (want %s...)",
          show(in, len), st, want, err, prefix);
    json_arena_free(arena);
}

static void test_reject(void)
{
    size_t k, n = sizeof(reject_rows) / sizeof(reject_rows[0]);

    for (k = 0; k < n; k++) {
        const reject_row *r = &reject_rows[k];
        size_t len = r->len ? r->len : strlen(r->in);
        check_reject(r->in, len, r->status, r->offset);
    }
}

/* "depth" nested arrays, or objects {"a":...} when "objects", in "buf". */
static void nest(json_buf *buf, size_t depth, int objects)
{
    size_t k;

    json_buf_clear(buf);
    for (k = 0; k < depth; k++)
        json_buf_put_rawz(buf, objects ? "{\"a\":" : "[");
    json_buf_put_rawz(buf, "0");
    for (k = 0; k < depth; k++)
        json_buf_put_rawz(buf, objects ? "}" : "]");
}

static void test_depth(void)
{
    json_buf doc, out;
    char err[ERRLEN];
    int objects;

    json_buf_init(&doc, NULL, NULL);
    json_buf_init(&out, NULL, NULL);
    for (objects = 0; objects < 2; objects++) {
        nest(&doc, JSON_MAX_DEPTH, objects);
        CHECK(reprint(doc.data, doc.len, &out, err) == JSON_OK &&
                  strcmp(out.data, doc.data) == 0,
              "depth %d (objects %d) accepted: %s", JSON_MAX_DEPTH, objects,
              err);
        nest(&doc, JSON_MAX_DEPTH + 1, objects);
        check_reject(doc.data, doc.len, JSON_ERR_DEPTH,
                     (size_t)JSON_MAX_DEPTH * (objects ? 5 : 1));
        nest(&doc, 300, objects);
        check_reject(doc.data, doc.len, JSON_ERR_DEPTH,
                     (size_t)JSON_MAX_DEPTH * (objects ? 5 : 1));
    }
    nest(&doc, 1000000, 0);
    CHECK(!doc.failed, "built a 10^6-deep document");
    check_reject(doc.data, doc.len, JSON_ERR_DEPTH, JSON_MAX_DEPTH);
    json_buf_free(&doc);
    json_buf_free(&out);
}

static const char accessor_doc[] =
    "{\"id\":\"x1\",\"n\":42,\"min\":-9223372036854775808,"
    "\"big\":9223372036854775808,\"f\":1.5,\"e\":1e2,\"arr\":[1,\"two\",3],"
    "\"s\":\"a\\u0000b\",\"t\":true,\"z\":null}";

static void test_accessors_numbers(const json_value *v)
{
    int64_t i = 7;
    double d = 0;

    CHECK(json_get_int(json_object_get(v, "n"), &i) == JSON_OK && i == 42,
          "get_int n");
    CHECK(json_get_int(json_object_get(v, "min"), &i) == JSON_OK &&
              i == INT64_MIN,
          "get_int min");
    i = 7;
    CHECK(json_get_int(json_object_get(v, "big"), &i) == JSON_ERR_TYPE &&
              i == 7 && !json_is_int(json_object_get(v, "big")),
          "get_int rejects 2^63 and leaves out alone");
    CHECK(json_get_double(json_object_get(v, "big"), &d) == JSON_OK &&
              d == 9223372036854775808.0,
          "get_double big");
    CHECK(json_get_int(json_object_get(v, "f"), &i) == JSON_ERR_TYPE &&
              json_get_int(json_object_get(v, "e"), &i) == JSON_ERR_TYPE &&
              json_get_int(json_object_get(v, "id"), &i) == JSON_ERR_TYPE,
          "get_int rejects 1.5, 1e2 and strings");
    CHECK(json_get_double(json_object_get(v, "e"), &d) == JSON_OK && d == 100.0,
          "get_double 1e2");
}

static void test_accessors_others(const json_value *v)
{
    int b = 0;
    size_t len = 0;
    const char *s;

    s = json_get_string(json_object_get(v, "s"), &len);
    CHECK(s && len == 3 && memcmp(s, "a\0b", 4) == 0, "string with NUL");
    CHECK(json_get_bool(json_object_get(v, "t"), &b) == JSON_OK && b == 1,
          "get_bool");
    CHECK(json_get_bool(json_object_get(v, "z"), &b) == JSON_ERR_TYPE &&
              json_is_null(json_object_get(v, "z")),
          "null member");
}

static void test_accessors_containers(const json_value *v)
{
    const json_value *arr = json_object_get(v, "arr");
    size_t len = 0;
    const char *key;

    CHECK(json_kind_of(v) == JSON_OBJECT && json_object_len(v) == 10,
          "object length");
    key = json_object_key_at(v, 1, &len);
    CHECK(key && len == 1 && strcmp(key, "n") == 0 &&
              json_is_number(json_object_value_at(v, 1)),
          "object members in document order");
    CHECK(json_object_key_at(v, 10, &len) == NULL &&
              json_object_value_at(v, 10) == NULL,
          "object index out of range");
    CHECK(json_object_get(v, "missing") == NULL &&
              json_object_get(arr, "x") == NULL &&
              json_object_getn(v, "idx", 2) == json_object_get(v, "id"),
          "object lookups");
    CHECK(json_is_array(arr) && json_array_len(arr) == 3 &&
              json_is_string(json_array_at(arr, 1)) &&
              json_array_at(arr, 3) == NULL && json_array_len(v) == 0 &&
              json_array_at(NULL, 0) == NULL,
          "array access");
    CHECK(json_kind_of(NULL) == JSON_NULL && !json_is_null(NULL) &&
              json_get_string(arr, NULL) == NULL,
          "kind queries on NULL and wrong kinds");
}

static void test_accessors(void)
{
    json_arena *arena = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    char err[ERRLEN];

    if (!arena || json_parse(arena, accessor_doc, strlen(accessor_doc), &v, err,
                             sizeof(err)) != JSON_OK) {
        CHECK(0, "accessor document parses: %s", arena ? err : "no arena");
        json_arena_free(arena);
        return;
    }
    test_accessors_numbers(v);
    test_accessors_others(v);
    test_accessors_containers(v);
    CHECK(json_parse(NULL, "1", 1, &v, err, sizeof(err)) == JSON_ERR_INVALID &&
              json_parse(arena, "1", 1, NULL, NULL, 0) == JSON_ERR_INVALID,
          "invalid arguments");
    json_arena_free(arena);
    json_arena_free(NULL);
}

typedef struct string_row {
    const char *in;
    size_t len; /* 0: strlen(in) */
    const char *out;
} string_row;

static const string_row string_rows[] = {
    {"", 0, "\"\""},
    {"plain text", 0, "\"plain text\""},
    {"q\"b\\s/", 0, "\"q\\\"b\\\\s/\""},
    {"\n\t\x01\x1f\x7f", 0, "\"\\u000a\\u0009\\u0001\\u001f\x7f\""},
    {"a\0b", 3, "\"a\\u0000b\""},
    {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0,
     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""},
    {"\xff", 0, "\"\xef\xbf\xbd\""},
    {"a\x80z", 0, "\"a\xef\xbf\xbdz\""},
    {"\xe2\x82", 0, "\"\xef\xbf\xbd\xef\xbf\xbd\""},
    {"\xed\xa0\x80", 0, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
    {"\xc0\xaf", 0, "\"\xef\xbf\xbd\xef\xbf\xbd\""},
    {"\xf4\x90\x80\x80", 0,
     "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
};

static void test_put_string(void)
{
    size_t k, n = sizeof(string_rows) / sizeof(string_rows[0]);
    json_buf buf;

    json_buf_init(&buf, NULL, NULL);
    for (k = 0; k < n; k++) {
        const string_row *r = &string_rows[k];
        size_t len = r->len ? r->len : strlen(r->in);
        json_buf_clear(&buf);
        json_buf_put_string(&buf, r->in, len);
        CHECK(!buf.failed && strcmp(json_buf_str(&buf), r->out) == 0,
              "put_string %s", show(r->in, len));
    }
    json_buf_free(&buf);
}

typedef struct double_row {
    double x;
    const char *out;
} double_row;

static void test_put_numbers(void)
{
    static const double_row rows[] = {
        {0.0, "0"},        {-0.0, "-0"},   {0.1, "0.1"},
        {1e300, "1e+300"}, {-2.5, "-2.5"}, {1.0 / 3.0, "0.3333333333333333"},
    };
    size_t k;
    json_buf buf;

    json_buf_init(&buf, NULL, NULL);
    json_buf_put_int(&buf, INT64_MIN);
    json_buf_put_rawz(&buf, ",");
    json_buf_put_int(&buf, INT64_MAX);
    CHECK(strcmp(json_buf_str(&buf),
                 "-9223372036854775808,9223372036854775807") == 0,
          "put_int extremes: %s", json_buf_str(&buf));
    for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        json_buf_clear(&buf);
        json_buf_put_double(&buf, rows[k].x);
        CHECK(strcmp(json_buf_str(&buf), rows[k].out) == 0,
              "put_double %.17g: got %s", rows[k].x, json_buf_str(&buf));
    }
    json_buf_clear(&buf);
    json_buf_put_double(&buf, NAN);
    json_buf_put_double(&buf, -INFINITY);
    CHECK(strcmp(json_buf_str(&buf), "nullnull") == 0, "put_double non-finite");
    json_buf_free(&buf);
    CHECK(strcmp(json_buf_str(&buf), "") == 0 && buf.len == 0,
          "freed buffer reads empty");
}

typedef struct equal_row {
    const char *a;
    const char *b;
    int equal;
} equal_row;

static const equal_row equal_rows[] = {
    {"1", "1.0", 1},
    {"100", "1e2", 1},
    {"9223372036854775807", "9223372036854775806", 0},
    {"\"a\"", "\"\\u0061\"", 1},
    {"\"a\"", "\"a\\u0000\"", 0},
    {"{\"a\":1,\"b\":[2]}", "{\"b\":[2],\"a\":1}", 1},
    {"{\"a\":1}", "{\"a\":1,\"b\":2}", 0},
    {"[1,2]", "[2,1]", 0},
    {"null", "false", 0},
    {"true", "true", 1},
};

static void test_equal(void)
{
    size_t k, n = sizeof(equal_rows) / sizeof(equal_rows[0]);

    for (k = 0; k < n; k++) {
        const equal_row *r = &equal_rows[k];
        json_arena *arena = json_arena_new(NULL, NULL);
        json_value *a = NULL, *b = NULL;
        int ok = arena &&
                 json_parse(arena, r->a, strlen(r->a), &a, NULL, 0) == 0 &&
                 json_parse(arena, r->b, strlen(r->b), &b, NULL, 0) == 0;
        CHECK(ok && json_equal(a, b) == r->equal &&
                  json_equal(b, a) == r->equal,
              "equal %s %s", r->a, r->b);
        json_arena_free(arena);
    }
}

/* An allocator that fails its "fail_at"-th call and counts live bytes. */
typedef struct counting_alloc {
    long calls;
    long fail_at;
    long long live;
    int size_mismatch;
} counting_alloc;

static void *counting(void *ud, void *ptr, size_t old_size, size_t new_size)
{
    counting_alloc *c = ud;
    void *p;

    if (new_size == 0) {
        c->live -= (long long)old_size;
        free(ptr);
        return NULL;
    }
    if (++c->calls == c->fail_at)
        return NULL;
    p = realloc(ptr, new_size);
    if (p)
        c->live += (long long)new_size - (long long)old_size;
    c->size_mismatch |= ptr == NULL && old_size != 0;
    return p;
}

static const char alloc_doc[] =
    "{\"id\":[1,2,{\"k\":\"a long string value that needs some room\"}],"
    "\"op\":\"cute.composition\",\"args\":{\"a\":\"(4,8):(1,4)\","
    "\"b\":\"(2,4)\"},\"n\":[[],[[]],{},-1.5e3]}";

/* Parse and write "alloc_doc" failing allocation "n"; 1 if all succeeded */
static int alloc_run(long n)
{
    counting_alloc c = {0, n, 0, 0};
    json_arena *arena = json_arena_new(counting, &c);
    json_value *v = NULL;
    json_buf buf;
    char err[ERRLEN];
    json_status st = JSON_ERR_NOMEM;

    json_buf_init(&buf, counting, &c);
    if (arena)
        st = json_parse(arena, alloc_doc, strlen(alloc_doc), &v, err,
                        sizeof(err));
    CHECK(st == JSON_OK || (st == JSON_ERR_NOMEM &&
                            (!arena || strstr(err, "out of memory"))),
          "allocation %ld fails cleanly (status %d)", n, st);
    if (st == JSON_OK)
        json_write_value(&buf, v);
    CHECK(st != JSON_OK || buf.failed ||
              strlen(json_buf_str(&buf)) == strlen(alloc_doc),
          "allocation %ld: written text is whole", n);
    st = st == JSON_OK && !buf.failed ? JSON_OK : JSON_ERR_NOMEM;
    json_buf_free(&buf);
    json_arena_free(arena);
    CHECK(c.live == 0 && !c.size_mismatch,
          "allocation %ld: %lld bytes still live", n, c.live);
    return st == JSON_OK && c.calls < n;
}

static void test_alloc_failures(void)
{
    long n;

    for (n = 1; n < 1000; n++)
        if (alloc_run(n))
            break;
    CHECK(n < 1000, "parse + write eventually succeed (n = %ld)", n);
}

static void test_buf_sticky(void)
{
    counting_alloc c = {0, 2, 0, 0};
    json_buf buf;
    char big[200];

    memset(big, 'x', sizeof(big));
    json_buf_init(&buf, counting, &c);
    json_buf_put_rawz(&buf, "abc");
    json_buf_put_raw(&buf, big, sizeof(big));
    json_buf_put_rawz(&buf, "d");
    CHECK(buf.failed && strcmp(json_buf_str(&buf), "abc") == 0,
          "failed buffer keeps its text and stays failed: %s",
          json_buf_str(&buf));
    json_buf_clear(&buf);
    json_buf_put_raw(&buf, big, sizeof(big));
    CHECK(!buf.failed && buf.len == sizeof(big), "cleared buffer grows again");
    json_buf_free(&buf);
    CHECK(c.live == 0, "sticky buffer freed");
}

static uint64_t rng_state;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Mutate "doc" into "out" ("cap" bytes) by a few random edits; the length */
static size_t mutate(const char *doc, size_t len, char *out, size_t cap)
{
    static const char bytes[] = "{}[],:\"\\u0e-.1 \x80\xff\xc3";
    size_t n = len < cap ? len : cap, edits = 1 + rng() % 4, k;

    memcpy(out, doc, n);
    for (k = 0; k < edits && n > 0; k++) {
        size_t at = (size_t)(rng() % n);
        switch (rng() % 3) {
        case 0:
            out[at] = bytes[rng() % (sizeof(bytes) - 1)];
            break;
        case 1:
            memmove(out + at, out + at + 1, n - at - 1);
            n--;
            break;
        default:
            out[at] = (char)(rng() & 0xFF);
            break;
        }
    }
    return n;
}

/* A mutant either fails with an offset or re-parses to the same text. */
static int fuzz_one(const char *text, size_t len, json_buf *a, json_buf *b)
{
    char err[ERRLEN];
    json_status st = reprint(text, len, a, err);

    if (st != JSON_OK)
        return strncmp(err, "offset ", 7) == 0;
    if (reprint(a->data, a->len, b, err) != JSON_OK)
        return 0;
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static void test_fuzz(void)
{
    const char *env = getenv("AXE_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 20240611u;
    json_buf a, b;
    char text[sizeof(alloc_doc) + sizeof(accessor_doc)];
    int k, bad = 0;

    printf("test_json: seed %" PRIu64 " (AXE_TEST_SEED=N replays)\n", seed);
    rng_state = seed ? seed : 1;
    json_buf_init(&a, NULL, NULL);
    json_buf_init(&b, NULL, NULL);
    for (k = 0; k < 20000; k++) {
        const char *doc = k % 2 ? alloc_doc : accessor_doc;
        size_t len = mutate(doc, strlen(doc), text, sizeof(text));
        if (!fuzz_one(text, len, &a, &b) && bad++ < 5)
            CHECK(0, "mutant %s", show(text, len));
    }
    CHECK(bad == 0, "%d of 20000 mutants misbehaved", bad);
    json_buf_free(&a);
    json_buf_free(&b);
}

/* Large inputs: wide objects, long strings and numbers stay fast. */
static void test_large(void)
{
    json_buf doc, out;
    char err[ERRLEN], key[32];
    size_t k, n = 100000;

    json_buf_init(&doc, NULL, NULL);
    json_buf_init(&out, NULL, NULL);
    json_buf_put_rawz(&doc, "{");
    for (k = 0; k < n; k++) {
        snprintf(key, sizeof(key), "%s\"k%zu\":%zu", k ? "," : "", k, k);
        json_buf_put_rawz(&doc, key);
    }
    json_buf_put_rawz(&doc, ",\"k7\":0}");
    check_reject(doc.data, doc.len, JSON_ERR_SYNTAX, doc.len - 7);
    json_buf_clear(&doc);
    json_buf_put_rawz(&doc, "[\"");
    for (k = 0; k < n; k++)
        json_buf_put_rawz(&doc, "\\u00e9x");
    json_buf_put_rawz(&doc, "\",1.");
    for (k = 0; k < n; k++)
        json_buf_put_rawz(&doc, "0");
    json_buf_put_rawz(&doc, "]");
    CHECK(reprint(doc.data, doc.len, &out, err) == JSON_OK &&
              out.len == doc.len - 4 * n,
          "long string and number: %s", err);
    json_buf_free(&doc);
    json_buf_free(&out);
}

int main(void)
{
    test_roundtrip();
    test_reject();
    test_depth();
    test_accessors();
    test_put_string();
    test_put_numbers();
    test_equal();
    test_alloc_failures();
    test_buf_sticky();
    test_fuzz();
    test_large();
    printf("%d passed, %d failed\n", passed, failed);
    return failed > 0;
}
