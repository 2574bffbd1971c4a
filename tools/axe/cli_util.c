/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CLI's error reports and small parsers (cli.h). A report is built in a
 * json_buf and printed as one line; quoted input is escaped byte by byte so
 * that the line stays printable ASCII whatever the input holds.
 */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

#define QUOTE_MAX 48

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

void cli_put_quoted(json_buf *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = len < QUOTE_MAX ? len : QUOTE_MAX;
    json_buf_put_rawz(out, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[5] = {'\\', 'x', hex[c >> 4], hex[c & 15], 0};
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            esc[2] = 0;
            json_buf_put_rawz(out, esc);
        } else if (c < 0x20 || c > 0x7e) {
            json_buf_put_rawz(out, esc);
        } else {
            json_buf_put_raw(out, (const char *)&s[i], 1);
        }
    }
    if (n < len)
        json_buf_put_rawz(out, "...");
    json_buf_put_rawz(out, "\"");
}

void cli_put_parse_error(json_buf *out, const char *text, size_t len,
                         axe_status st, const axe_diag *diag)
{
    json_buf_put_rawz(out, st == AXE_ERR_SYNTAX ? "syntax error"
                                                : axe_status_message(st));
    if (diag->offset >= 0) {
        json_buf_put_rawz(out, " at offset ");
        json_buf_put_int(out, diag->offset);
    }
    json_buf_put_rawz(out, " in ");
    cli_put_quoted(out, text, len);
    if (diag->message[0] != '\0') {
        json_buf_put_rawz(out, ": ");
        json_buf_put_rawz(out, diag->message);
    }
}

int cli_parse_fail(int code, const char *prefix, const char *text,
                   axe_status st, const axe_diag *diag)
{
    json_buf line;
    json_buf_init(&line, NULL, NULL);
    json_buf_put_rawz(&line, prefix);
    cli_put_parse_error(&line, text, strlen(text), st, diag);
    code = cli_report(code, &line);
    json_buf_free(&line);
    return code;
}

void cli_put_reason(json_buf *out, axe_status st, const axe_diag *diag)
{
    if (diag->message[0] != '\0')
        json_buf_put_rawz(out, diag->message);
    else
        json_buf_put_rawz(out, axe_status_message(st));
}

int cli_report(int code, const json_buf *line)
{
    fprintf(stderr, "axe: %s\n",
            line->failed ? "out of memory" : json_buf_str(line));
    return code;
}

/* The message of the last usage error (`axe run --json` reports it). */
static char last_usage[512];

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_usage, sizeof last_usage, fmt, ap);
    va_end(ap);
    fprintf(stderr, "axe: %s: %s (try 'axe %s --help')\n", cmd, last_usage,
            cmd);
    return CLI_EXIT_USAGE;
}

const char *cli_last_usage(void) { return last_usage; }

static axe_status int_fail(axe_diag *diag, axe_status st, size_t at,
                           const char *why)
{
    diag->offset = (long)at;
    snprintf(diag->message, sizeof diag->message, "%s", why);
    return st;
}

axe_status cli_parse_int(const char *text, size_t len, int64_t *out,
                         axe_diag *diag)
{
    size_t i = 0;
    int64_t v = 0;
    bool neg = len > 0 && text[0] == '-';
    i = neg ? 1 : 0;
    if (i >= len || text[i] < '0' || text[i] > '9')
        return int_fail(diag, AXE_ERR_SYNTAX, i, "expected an integer");
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_sub_overflow(v, text[i] - '0', &v))
            return int_fail(diag, AXE_ERR_OVERFLOW, neg ? 1 : 0,
                            "integer does not fit in 64 bits");
    }
    if (i < len)
        return int_fail(diag, AXE_ERR_SYNTAX, i, "expected a digit");
    if (!neg && v == INT64_MIN)
        return int_fail(diag, AXE_ERR_OVERFLOW, 0,
                        "integer does not fit in 64 bits");
    *out = neg ? v : -v;
    return AXE_OK;
}

bool cli_write(FILE *f, const char *s, size_t len)
{
    if (len > 0 && fwrite(s, 1, len, f) != len)
        return false;
    return fflush(f) == 0 && !ferror(f);
}
