/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The first failure of `axe compile` or `axe run`, kept for `axe run
 * --json`, which prints exactly one JSON object whatever happens: on a
 * failure `{"pass":false,"error":KIND,"message":TEXT,"line":N,
 * "column":N}` (docs/cli.md). KIND is a status name (SYNTAX, INVALID,
 * UNSUPPORTED, ...), USAGE for a bad command line, IO for a file the
 * command cannot read or write, RUN when the C compiler or the built
 * kernel fails. Invariant: once recorded, the failure is not replaced (a
 * later message is a consequence of the first).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_cli.h"

static kernel_err first;

void kernel_err_record(const char *kind, int line, int column,
                       const char *message, const char *notes)
{
    if (first.set)
        return;
    first.set = true;
    snprintf(first.kind, sizeof first.kind, "%s", kind);
    snprintf(first.message, sizeof first.message, "%s", message);
    snprintf(first.notes, sizeof first.notes, "%s", notes ? notes : "");
    first.line = line;
    first.column = column;
}

const kernel_err *kernel_err_first(void) { return first.set ? &first : NULL; }

int kernel_fail(const char *cmd, const char *kind, const char *fmt, ...)
{
    char msg[sizeof first.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "axe: %s: %s\n", cmd, msg);
    kernel_err_record(kind, 0, 0, msg, NULL);
    return CLI_EXIT_FAIL;
}

/* `,"KEY":"TEXT"` with TEXT escaped. */
static void put_string(json_buf *b, const char *key, const char *text)
{
    json_buf_put_rawz(b, ",\"");
    json_buf_put_rawz(b, key);
    json_buf_put_rawz(b, "\":");
    json_buf_put_string(b, text, strlen(text));
}

/* `,"notes":["...",...]`: one string per line of "notes". */
static void put_notes(json_buf *b, const char *notes)
{
    const char *s = notes;
    json_buf_put_rawz(b, ",\"notes\":[");
    while (*s != '\0') {
        size_t n = strcspn(s, "\n");
        if (s != notes)
            json_buf_put_rawz(b, ",");
        json_buf_put_string(b, s, n);
        s += n + (s[n] == '\n');
    }
    json_buf_put_rawz(b, "]");
}

/* `,"KEY":N`, or null for 0 (no location). */
static void put_pos(json_buf *b, const char *key, int v)
{
    json_buf_put_rawz(b, ",\"");
    json_buf_put_rawz(b, key);
    json_buf_put_rawz(b, "\":");
    if (v > 0)
        json_buf_put_int(b, v);
    else
        json_buf_put_rawz(b, "null");
}

int kernel_err_json(const char *kernel, const char *fallback_kind,
                    const char *fallback_message)
{
    const kernel_err *e = kernel_err_first();
    json_buf b;
    json_buf_init(&b, NULL, NULL);
    json_buf_put_rawz(&b, "{\"pass\":false");
    put_string(&b, "error", e != NULL ? e->kind : fallback_kind);
    put_string(&b, "message", e != NULL ? e->message : fallback_message);
    put_pos(&b, "line", e != NULL ? e->line : 0);
    put_pos(&b, "column", e != NULL ? e->column : 0);
    if (e != NULL && e->notes[0] != '\0')
        put_notes(&b, e->notes);
    if (kernel != NULL)
        put_string(&b, "kernel", kernel);
    json_buf_put_rawz(&b, "}\n");
    if (b.failed) {
        json_buf_free(&b);
        fputs("{\"pass\":false,\"error\":\"NO_MEMORY\",\"message\":\"out of "
              "memory\",\"line\":null,\"column\":null}\n",
              stdout);
        return CLI_EXIT_FAIL;
    }
    fputs(json_buf_str(&b), stdout);
    json_buf_free(&b);
    return CLI_EXIT_OK;
}
