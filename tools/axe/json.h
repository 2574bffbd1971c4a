/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small strict JSON (RFC 8259) reader and writer for the axe CLI, used by
 * `axe batch`. Parsed values are immutable nodes in a json_arena, a chain of
 * blocks freed at once; every string, key and number lexeme a value points to
 * lives in the same arena. A json_buf is a growable text buffer with a sticky
 * failure flag. Invariant: every parsed string is valid UTF-8 and carries a
 * NUL after its "len" bytes (it may also hold NULs from \u0000), every object
 * has distinct keys in document order, nesting is at most JSON_MAX_DEPTH, and
 * a json_buf that has not failed holds "len" bytes followed by a NUL.
 *
 * Policies: a lone or unpaired surrogate escape (\ud800) is rejected, as is
 * invalid UTF-8, a byte-order mark and a duplicate object key. Numbers whose
 * magnitude overflows a double (1e400) are rejected; underflow gives 0. An
 * integer literal (no fraction, no exponent) that fits int64_t has is_int set;
 * a number keeps its lexeme, so json_write_value echoes it digit for digit.
 * Numbers are converted with strtod, so the process must keep LC_NUMERIC "C"
 * (the CLI never calls setlocale).
 */
#ifndef AXE_TOOLS_JSON_H
#define AXE_TOOLS_JSON_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define JSON_NODISCARD __attribute__((warn_unused_result))
#else
#define JSON_NODISCARD
#endif

#define JSON_MAX_DEPTH 256

typedef enum json_status {
    JSON_OK = 0,
    JSON_ERR_SYNTAX = -1, /* malformed text, including bad UTF-8 */
    JSON_ERR_DEPTH = -2,  /* nesting deeper than JSON_MAX_DEPTH */
    JSON_ERR_NOMEM = -3,  /* an allocation failed */
    JSON_ERR_TYPE = -4,   /* accessor applied to the wrong kind of value */
    JSON_ERR_INVALID = -5 /* NULL arena, text or out pointer */
} json_status;

typedef enum json_kind {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

/*
 * The allocator hook, as in Lua: with "new_size" 0 free "ptr" and return
 * NULL, otherwise resize "ptr" (NULL: a new block) from "old_size" to
 * "new_size" bytes and return it, or NULL on failure leaving "ptr" intact.
 * Passing NULL where a json_alloc_fn is expected selects realloc/free.
 */
typedef void *json_alloc_fn(void *ud, void *ptr, size_t old_size,
                            size_t new_size);

typedef struct json_arena json_arena;
typedef struct json_value json_value;

/* A new empty arena using "alloc" with "ud" (NULL: malloc); NULL on OOM. */
json_arena *json_arena_new(json_alloc_fn *alloc, void *ud);
/* Free "arena" and every value in it; NULL is a no-op. */
void json_arena_free(json_arena *arena);

/*
 * Parse the "len" bytes of "text" as exactly one JSON value, surrounded by
 * optional whitespace, into "arena"; "*out" (written only on success) is
 * owned by the arena. On failure return the status and write to "err" (NULL
 * accepted) "offset N: reason", N the byte offset of the first bad byte.
 */
JSON_NODISCARD json_status json_parse(json_arena *arena, const char *text,
                                      size_t len, json_value **out, char *err,
                                      size_t errlen);

/* The kind of "v"; JSON_NULL for a NULL pointer. */
json_kind json_kind_of(const json_value *v);
int json_is_null(const json_value *v);
int json_is_bool(const json_value *v);
int json_is_number(const json_value *v);
int json_is_string(const json_value *v);
int json_is_array(const json_value *v);
int json_is_object(const json_value *v);
/* Whether "v" is an integer literal that fits int64_t (is_int). */
int json_is_int(const json_value *v);

/* The truth value of boolean "v" into "*out"; JSON_ERR_TYPE otherwise. */
JSON_NODISCARD json_status json_get_bool(const json_value *v, int *out);
/* The value of "v" into "*out" if it is an integer literal fitting int64_t. */
JSON_NODISCARD json_status json_get_int(const json_value *v, int64_t *out);
/* The value of number "v" as a double (nearest, as strtod rounds). */
JSON_NODISCARD json_status json_get_double(const json_value *v, double *out);
/* String "v": its NUL-terminated bytes and "*len" (NULL accepted); else NULL */
const char *json_get_string(const json_value *v, size_t *len);

/* Element count of array "v"; 0 for anything else. */
size_t json_array_len(const json_value *v);
/* Element "i" of array "v"; NULL if "v" is no array or "i" is out of range. */
const json_value *json_array_at(const json_value *v, size_t i);

/* Member count of object "v"; 0 for anything else. */
size_t json_object_len(const json_value *v);
/* Key "i" of object "v" (NUL-terminated, length in "*len"); else NULL. */
const char *json_object_key_at(const json_value *v, size_t i, size_t *len);
/* Value "i" of object "v"; NULL if "v" is no object or "i" out of range. */
const json_value *json_object_value_at(const json_value *v, size_t i);
/* The value of NUL-terminated "key" in object "v"; NULL if absent. */
const json_value *json_object_get(const json_value *v, const char *key);
/* The value of the "len"-byte "key" in object "v"; NULL if absent. */
const json_value *json_object_getn(const json_value *v, const char *key,
                                   size_t len);

/*
 * Whether "a" and "b" are equal JSON values: numbers by value (integers
 * exactly, others as doubles), strings bytewise, arrays in order, objects as
 * key sets. Costs O(n * m) per object pair; meant for test expectations.
 */
int json_equal(const json_value *a, const json_value *b);

/*
 * A growable text buffer. Fields are read-only for callers. Once an
 * allocation fails, "failed" stays set, later puts do nothing, and "data"
 * keeps the text written before the failure.
 */
typedef struct json_buf {
    char *data; /* "len" bytes and a NUL; NULL until the first put */
    size_t len;
    size_t cap;
    int failed;
    json_alloc_fn *alloc;
    void *ud;
} json_buf;

/* An empty "buf" using "alloc" with "ud" (NULL: realloc/free). */
void json_buf_init(json_buf *buf, json_alloc_fn *alloc, void *ud);
/* Release the memory of "buf" and leave it empty and usable. */
void json_buf_free(json_buf *buf);
/* Empty "buf" and clear "failed", keeping its memory. */
void json_buf_clear(json_buf *buf);
/* The NUL-terminated text of "buf" ("" while empty). */
const char *json_buf_str(const json_buf *buf);

/* Append the "len" bytes of "s" unchanged. */
void json_buf_put_raw(json_buf *buf, const char *s, size_t len);
/* Append the NUL-terminated "s" unchanged. */
void json_buf_put_rawz(json_buf *buf, const char *s);
/*
 * Append "s" ("len" bytes) as a quoted JSON string: '"' and '\' escaped with
 * a backslash, bytes below 0x20 as \u00XX, valid UTF-8 unchanged, and each
 * byte that starts no valid UTF-8 sequence replaced by U+FFFD.
 */
void json_buf_put_string(json_buf *buf, const char *s, size_t len);
/* Append "n" in decimal. */
void json_buf_put_int(json_buf *buf, int64_t n);
/* Append "x" in the shortest form that reads back equal; null if not finite */
void json_buf_put_double(json_buf *buf, double x);
/* Append "v" compactly, numbers as their lexemes; a NULL "v" as null. */
void json_write_value(json_buf *buf, const json_value *v);

#endif
