/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe batch`: the JSON Lines protocol of vectors/README.md. Each request
 * line {"id": ..., "op": "cute.<name>", "args": {...}} gets one answer line
 * {"id": ..., "ok": true, "result": ...} or {"id": ..., "ok": false,
 * "error": "<STATUS>", "message": "..."}, in order; other members of the
 * request (expect, cmp, src, note) are ignored, so a vectors file can be
 * piped in as it is; `axe.<name>` requests go to the Axe op table
 * (axe_batch.c), `mapping.<name>` to mapping_ops.c, `sharding.<name>` to
 * sharding_ops.c. Blank lines are not requests and get no answer.
 * Invariant: memory is bounded by BATCH_MAX_LINE per line (longer lines are
 * skipped to their end and answered SYNTAX), every line gets exactly one
 * answer, and the answer is flushed before the next line is read.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "axe_ops.h"
#include "cli.h"
#include "cute_ops.h"
#include "mapping_ops.h"
#include "sharding_ops.h"

#define BATCH_MAX_LINE (1u << 20)
#define BATCH_CHUNK 65536

typedef struct line_reader {
    FILE *in;
    char chunk[BATCH_CHUNK];
    size_t pos, end;
    char *line;
    size_t len, cap;
    bool too_long, no_memory, read_error;
} line_reader;

/* Append "n" bytes to the line, or mark it too long / out of memory. */
static void line_append(line_reader *r, const char *s, size_t n)
{
    if (r->too_long || r->no_memory)
        return;
    if (n > BATCH_MAX_LINE - r->len) {
        r->too_long = true;
        return;
    }
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap == 0 ? 256 : r->cap;
        char *p;
        while (cap < r->len + n + 1)
            cap *= 2;
        p = realloc(r->line, cap);
        if (p == NULL) {
            r->no_memory = true;
            return;
        }
        r->line = p;
        r->cap = cap;
    }
    memcpy(r->line + r->len, s, n);
    r->len += n;
}

/* The next line (without its '\n') in r->line; false at the end. */
static bool next_line(line_reader *r)
{
    bool started = false;
    r->len = 0;
    r->too_long = r->no_memory = false;
    for (;;) {
        const char *nl;
        if (r->pos == r->end) {
            r->pos = 0;
            r->end = fread(r->chunk, 1, sizeof r->chunk, r->in);
            if (r->end == 0) {
                r->read_error = ferror(r->in) != 0;
                return started;
            }
        }
        started = true;
        nl = memchr(r->chunk + r->pos, '\n', r->end - r->pos);
        if (nl == NULL) {
            line_append(r, r->chunk + r->pos, r->end - r->pos);
            r->pos = r->end;
            continue;
        }
        line_append(r, r->chunk + r->pos, (size_t)(nl - r->chunk) - r->pos);
        r->pos = (size_t)(nl - r->chunk) + 1;
        return true;
    }
}

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* ---- answers ------------------------------------------------------------ */

static void put_head(json_buf *out, const json_value *id)
{
    json_buf_put_rawz(out, "{");
    if (id != NULL) {
        json_buf_put_rawz(out, "\"id\":");
        json_write_value(out, id);
        json_buf_put_rawz(out, ",");
    }
}

static void put_error(json_buf *out, const json_value *id, const char *name,
                      const json_buf *msg)
{
    put_head(out, id);
    json_buf_put_rawz(out, "\"ok\":false,\"error\":");
    json_buf_put_string(out, name, strlen(name));
    json_buf_put_rawz(out, ",\"message\":");
    if (msg->failed)
        json_buf_put_rawz(out, "\"out of memory\"");
    else
        json_buf_put_string(out, json_buf_str(msg), msg->len);
    json_buf_put_rawz(out, "}\n");
}

static void put_ok(json_buf *out, const json_value *id, const cute_result *res)
{
    json_buf text;
    put_head(out, id);
    json_buf_put_rawz(out, "\"ok\":true,\"result\":");
    if (res->kind == CUTE_RESULT_INT) {
        json_buf_put_int(out, res->i);
    } else {
        json_buf_init(&text, NULL, NULL);
        cute_result_write(res, &text);
        json_buf_put_string(out, json_buf_str(&text), text.len);
        out->failed |= text.failed;
        json_buf_free(&text);
    }
    json_buf_put_rawz(out, "}\n");
}

/* ---- requests ----------------------------------------------------------- */

/* Operand "key" ("a", "b", "c"): a string in the CuTe notation, or an
 * integer (a scalar tuple). */
static axe_status read_object(const json_value *v, const char *key,
                              axe_cute_object *o, json_buf *msg)
{
    axe_diag diag;
    axe_status st;
    const char *s;
    size_t len;
    if (json_is_int(v)) {
        int64_t n = 0;
        o->kind = AXE_CUTE_KIND_TUPLE;
        st = json_get_int(v, &n) == JSON_OK ? AXE_OK : AXE_ERR_INVALID;
        if (st == AXE_OK && n == AXE_UNDERSCORE) {
            json_buf_put_rawz(msg, "args.");
            json_buf_put_rawz(msg, key);
            json_buf_put_rawz(msg, ": -9223372036854775808 is out of range "
                                   "(integers are -2^63+1 to 2^63-1, as in "
                                   "the notation; \"_\" is the wildcard)");
            return AXE_ERR_OVERFLOW;
        }
        axe_tuple_scalar(n, &o->tuple);
        return st;
    }
    s = json_get_string(v, &len);
    if (s == NULL) {
        json_buf_put_rawz(msg, "args.");
        json_buf_put_rawz(msg, key);
        json_buf_put_rawz(msg, " must be a string in the CuTe notation");
        return AXE_ERR_INVALID;
    }
    axe_diag_clear(&diag);
    st = axe_parse_cute(s, len, o, &diag);
    if (st != AXE_OK) {
        json_buf_put_rawz(msg, "args.");
        json_buf_put_rawz(msg, key);
        json_buf_put_rawz(msg, ": ");
        cli_put_parse_error(msg, s, len, st, &diag);
    }
    return st;
}

/* An integer, or an array of "min" to "max" integers, into "dst". */
static axe_status read_ints(const json_value *v, const char *key, int64_t *dst,
                            const int range[2], int *count, json_buf *msg)
{
    size_t n = json_is_array(v) ? json_array_len(v) : 1;
    *count = 0;
    if (n < (size_t)range[0] || n > (size_t)range[1])
        goto bad;
    for (size_t i = 0; i < n; i++) {
        const json_value *e = json_is_array(v) ? json_array_at(v, i) : v;
        if (json_get_int(e, &dst[i]) != JSON_OK)
            goto bad;
    }
    *count = (int)n;
    return AXE_OK;
bad:
    json_buf_put_rawz(msg, "args.");
    json_buf_put_rawz(msg, key);
    json_buf_put_rawz(msg, " must be an integer or a list of ");
    json_buf_put_int(msg, range[0]);
    json_buf_put_rawz(msg, " to ");
    json_buf_put_int(msg, range[1]);
    json_buf_put_rawz(msg, " integers");
    return AXE_ERR_INVALID;
}

static axe_status read_arg(const char *key, size_t klen, const json_value *v,
                           cute_args *ca, json_buf *msg)
{
    static const char *names[] = {"a", "b", "c"};
    axe_cute_object *objs[] = {&ca->a, &ca->b, &ca->c};
    static const unsigned bits[] = {CUTE_ARG_A, CUTE_ARG_B, CUTE_ARG_C};
    for (int i = 0; i < 3; i++) {
        if (klen == 1 && key[0] == names[i][0]) {
            ca->have |= bits[i];
            return read_object(v, names[i], objs[i], msg);
        }
    }
    if (klen == 1 && key[0] == 'n') {
        ca->have |= CUTE_ARG_N;
        return read_ints(v, "n", ca->n, (const int[2]){1, 2}, &ca->nn, msg);
    }
    if (klen == 8 && memcmp(key, "extended", 8) == 0) {
        int b;
        ca->have |= CUTE_ARG_EXTENDED;
        if (json_get_bool(v, &b) == JSON_OK) {
            ca->extended = b != 0;
            return AXE_OK;
        }
        json_buf_put_rawz(msg, "args.extended must be true or false");
        return AXE_ERR_INVALID;
    }
    if (klen == 4 && memcmp(key, "mode", 4) == 0) {
        ca->have |= CUTE_ARG_MODE;
        return read_ints(v, "mode", ca->mode, (const int[2]){0, CUTE_MODE_MAX},
                         &ca->nmode, msg);
    }
    json_buf_put_rawz(msg, "unknown argument ");
    cli_put_quoted(msg, key, klen);
    return AXE_ERR_INVALID;
}

static axe_status read_args(const json_value *args, cute_args *ca,
                            json_buf *msg)
{
    cute_args_init(ca);
    if (args == NULL)
        return AXE_OK;
    if (!json_is_object(args)) {
        json_buf_put_rawz(msg, "\"args\" must be a JSON object");
        return AXE_ERR_INVALID;
    }
    for (size_t i = 0; i < json_object_len(args); i++) {
        size_t klen;
        const char *key = json_object_key_at(args, i, &klen);
        axe_status st =
            read_arg(key, klen, json_object_value_at(args, i), ca, msg);
        if (st != AXE_OK)
            return st;
    }
    return AXE_OK;
}

/* The op named by the request's "op" member; NULL with "*st" set. */
static const cute_op *find_op(const json_value *req, axe_status *st,
                              json_buf *msg)
{
    size_t len;
    const char *name = json_get_string(json_object_get(req, "op"), &len);
    const cute_op *op = NULL;
    if (name == NULL) {
        json_buf_put_rawz(msg, "the request has no \"op\" string");
        *st = AXE_ERR_INVALID;
        return NULL;
    }
    if (len > 5 && memcmp(name, "cute.", 5) == 0)
        op = cute_op_find(name + 5, len - 5);
    if (op == NULL) {
        json_buf_put_rawz(msg, "unknown operation ");
        cli_put_quoted(msg, name, len);
        *st = AXE_ERR_UNKNOWN_OP;
    }
    return op;
}

typedef axe_status family_fn(const char *name, size_t len,
                             const json_value *args, json_buf *result,
                             json_buf *msg);

/* An `axe.<name>` (or `mapping.<name>`) request: the family's op table
 * "answer" answers it; a reason it gives with a successful answer (why a
 * result is null) goes into the member "reason". */
static void answer_family(family_fn *answer, const json_value *req,
                          const char *name, size_t len, json_buf *out,
                          json_buf *msg)
{
    const json_value *id = json_object_get(req, "id");
    json_buf result;
    axe_status st;
    json_buf_init(&result, NULL, NULL);
    st = answer(name, len, json_object_get(req, "args"), &result, msg);
    if (st == AXE_OK) {
        put_head(out, id);
        json_buf_put_rawz(out, "\"ok\":true,\"result\":");
        json_buf_put_raw(out, json_buf_str(&result), result.len);
        if (msg->len > 0) {
            json_buf_put_rawz(out, ",\"reason\":");
            json_buf_put_string(out, json_buf_str(msg), msg->len);
        }
        json_buf_put_rawz(out, "}\n");
        out->failed |= result.failed;
    } else {
        put_error(out, id, axe_status_name(st), msg);
    }
    json_buf_free(&result);
}

/* Run the parsed request "req" and write its answer. */
static void answer_request(const json_value *req, json_buf *out, json_buf *msg)
{
    static cute_args args;
    const json_value *id = json_object_get(req, "id");
    axe_status st = AXE_OK;
    size_t len;
    const char *name = json_get_string(json_object_get(req, "op"), &len);
    const cute_op *op;
    cute_result res;
    axe_diag diag;
    if (name != NULL && len > 4 && memcmp(name, "axe.", 4) == 0) {
        answer_family(axop_batch_answer, req, name + 4, len - 4, out, msg);
        return;
    }
    if (name != NULL && len > 8 && memcmp(name, "mapping.", 8) == 0) {
        answer_family(mapop_batch_answer, req, name + 8, len - 8, out, msg);
        return;
    }
    if (name != NULL && len > 9 && memcmp(name, "sharding.", 9) == 0) {
        answer_family(shop_batch_answer, req, name + 9, len - 9, out, msg);
        return;
    }
    op = find_op(req, &st, msg);
    if (op == NULL) {
        put_error(out, id, axe_status_name(st), msg);
        return;
    }
    st = read_args(json_object_get(req, "args"), &args, msg);
    if (st != AXE_OK) {
        put_error(out, id, axe_status_name(st), msg);
        return;
    }
    axe_diag_clear(&diag);
    cute_result_init(&res);
    st = cute_op_run(op, &args, &res, &diag);
    if (st == AXE_OK) {
        put_ok(out, id, &res);
    } else {
        cli_put_reason(msg, st, &diag);
        put_error(out, id, axe_status_name(st), msg);
    }
    cute_result_free(&res);
}

static void answer_text(const char *line, size_t len, json_buf *out,
                        json_buf *msg)
{
    char err[160];
    json_value *req;
    json_arena *arena = json_arena_new(NULL, NULL);
    if (arena == NULL) {
        json_buf_put_rawz(msg, "out of memory");
        put_error(out, NULL, "NO_MEMORY", msg);
        return;
    }
    err[0] = '\0';
    if (json_parse(arena, line, len, &req, err, sizeof err) != JSON_OK) {
        json_buf_put_rawz(msg, "malformed JSON: ");
        json_buf_put_rawz(msg, err);
        put_error(out, NULL, "SYNTAX", msg);
    } else if (!json_is_object(req)) {
        json_buf_put_rawz(msg, "a request must be a JSON object");
        put_error(out, NULL, "SYNTAX", msg);
    } else {
        answer_request(req, out, msg);
    }
    json_arena_free(arena);
}

static void answer_line(const line_reader *r, json_buf *out, json_buf *msg)
{
    json_buf_clear(out);
    json_buf_clear(msg);
    if (r->too_long) {
        json_buf_put_rawz(msg, "line longer than ");
        json_buf_put_int(msg, BATCH_MAX_LINE);
        json_buf_put_rawz(msg, " bytes");
        put_error(out, NULL, "SYNTAX", msg);
    } else if (r->no_memory) {
        json_buf_put_rawz(msg, "out of memory reading the line");
        put_error(out, NULL, "NO_MEMORY", msg);
    } else {
        answer_text(r->line, r->len, out, msg);
    }
}

int cli_batch_run(FILE *in, FILE *out)
{
    static line_reader r;
    json_buf answer, msg;
    int code = CLI_EXIT_OK;
    memset(&r, 0, sizeof r);
    r.in = in;
    json_buf_init(&answer, NULL, NULL);
    json_buf_init(&msg, NULL, NULL);
    while (code == CLI_EXIT_OK && next_line(&r)) {
        if (!r.too_long && !r.no_memory && is_blank(r.line, r.len))
            continue;
        answer_line(&r, &answer, &msg);
        if (answer.failed || !cli_write(out, json_buf_str(&answer), answer.len))
            code = CLI_EXIT_FAIL;
    }
    if (r.read_error)
        code = CLI_EXIT_FAIL;
    free(r.line);
    json_buf_free(&answer);
    json_buf_free(&msg);
    return code;
}

int cli_batch_main(int argc, char **argv)
{
    int code;
    if (argc >= 2 && cli_is_help(argv[1])) {
        printf(
            "usage: axe batch < requests.jsonl\n"
            "Reads one JSON request per line, {\"id\": ..., \"op\": "
            "\"cute.<name>\", \"axe.<name>\" or \"mapping.<name>\",\n\"args\": "
            "{...}}, and "
            "writes one JSON "
            "answer per request, in order (docs/cli.md lists the ops).\n");
        return CLI_EXIT_OK;
    }
    if (argc >= 2)
        return cli_usage("batch", "takes no operands; requests come on "
                                  "stdin");
    signal(SIGPIPE, SIG_IGN);
    code = cli_batch_run(stdin, stdout);
    if (code != CLI_EXIT_OK)
        fprintf(stderr, "axe: batch: reading or writing failed\n");
    return code;
}
