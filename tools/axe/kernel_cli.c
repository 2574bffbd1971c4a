/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared parts of `axe compile` and `axe run` (kernel_cli.h): reading the
 * source, the -D / --schedule options, and the located diagnostic with a
 * caret. Invariant: every failure prints one diagnostic and returns its
 * exit code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_cli.h"

#define SRC_MAX (16L << 20)

int kernel_src_read(const char *cmd, const char *path, kernel_src *src)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (f == NULL)
        return kernel_fail(cmd, "IO", "cannot open %s: %s", path,
                           strerror(errno));
    src->path = path;
    src->text = malloc(SRC_MAX + 1);
    n = src->text != NULL ? (long)fread(src->text, 1, SRC_MAX + 1, f) : -1;
    if (n < 0 || n > SRC_MAX || ferror(f)) {
        fclose(f);
        free(src->text);
        return kernel_fail(cmd, "IO", "cannot read %s (%s)", path,
                           n > SRC_MAX ? "larger than 16 MiB" : "read error");
    }
    fclose(f);
    src->len = (size_t)n;
    return CLI_EXIT_OK;
}

static int parse_define(const char *cmd, const char *arg, axe_kernel_options *o)
{
    const char *eq = strchr(arg, '=');
    char name[AXE_KERNEL_NAME_MAX];
    int64_t v;
    axe_diag d;
    int i;
    if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof name)
        return cli_usage(cmd, "-D wants NAME=VALUE, not '%.40s'", arg), -1;
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    if (cli_parse_int(eq + 1, strlen(eq + 1), &v, &d) != AXE_OK)
        return cli_usage(cmd, "-D %s: '%.40s' is not an integer", name, eq + 1),
               -1;
    for (i = 0; i < o->ndefines; i++)
        if (strcmp(o->define_name[i], name) == 0)
            return cli_usage(cmd, "-D %s is given twice (%s=%lld and %.60s)",
                             name, name, (long long)o->define_value[i], arg),
                   -1;
    if (axe_kernel_options_define(o, name, v) != AXE_OK)
        return cli_usage(cmd, "too many -D options"), -1;
    return 1;
}

static int parse_force(const char *cmd, const char *arg, axe_kernel_options *o)
{
    const char *eq = strchr(arg, '=');
    char op[AXE_KERNEL_NAME_MAX];
    if (eq == NULL || eq == arg)
        return cli_usage(cmd,
                         "--schedule wants OP=NAME or OP#N=NAME, not "
                         "'%.40s'",
                         arg),
               -1;
    if ((size_t)(eq - arg) >= sizeof op)
        return cli_usage(cmd,
                         "--schedule: the target '%.20s...' is longer than "
                         "%d characters",
                         arg, (int)sizeof op - 1),
               -1;
    axe_diag d;
    memcpy(op, arg, (size_t)(eq - arg));
    op[eq - arg] = '\0';
    if (axe_kernel_options_check_force(o, op, eq + 1, &d) != AXE_OK)
        return cli_usage(cmd, "--schedule %.40s: %s", arg, d.message), -1;
    if (axe_kernel_options_force(o, op, eq + 1) != AXE_OK)
        return cli_usage(cmd, "more than %d --schedule options",
                         AXE_KERNEL_MAX_FORCED),
               -1;
    return 1;
}

/* `--trn KEY=VALUE`: one field of the accelerator model. */
static int parse_trn(const char *cmd, const char *arg, axe_kernel_options *o)
{
    const char *eq = strchr(arg, '=');
    char key[64];
    int64_t v;
    axe_diag d;
    if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof key)
        return cli_usage(cmd, "--trn wants KEY=VALUE, not '%.40s'", arg), -1;
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = '\0';
    if (cli_parse_int(eq + 1, strlen(eq + 1), &v, &d) != AXE_OK)
        return cli_usage(cmd, "--trn %s: '%.40s' is not an integer", key,
                         eq + 1),
               -1;
    if (axe_kernel_options_trn(o, key, v, &d) != AXE_OK)
        return cli_usage(cmd, "--trn %.60s: %s", arg, d.message), -1;
    return 1;
}

int kernel_opt_parse(const char *cmd, int argc, char **argv, int *i,
                     axe_kernel_options *o)
{
    const char *a = argv[*i];
    if (strncmp(a, "-D", 2) == 0 && a[2] != '\0') {
        return parse_define(cmd, a + 2, o);
    }
    if (strcmp(a, "-D") != 0 && strcmp(a, "--schedule") != 0 &&
        strcmp(a, "--trn") != 0)
        return 0;
    if (*i + 1 >= argc)
        return cli_usage(cmd, "%s needs a value", a), -1;
    (*i)++;
    if (strcmp(a, "-D") == 0)
        return parse_define(cmd, argv[*i], o);
    if (strcmp(a, "--trn") == 0)
        return parse_trn(cmd, argv[*i], o);
    return parse_force(cmd, argv[*i], o);
}

/* The 1-based line and column of byte "off" of the source. */
static void line_col(const kernel_src *src, long off, int *line, int *col)
{
    size_t line_start = 0, i;
    *line = 1;
    for (i = 0; i < (size_t)off && i < src->len; i++)
        if (src->text[i] == '\n') {
            ++*line;
            line_start = i + 1;
        }
    *col = (int)((size_t)off - line_start) + 1;
}

static void print_location(const kernel_src *src, long off)
{
    int line, col;
    line_col(src, off, &line, &col);
    fprintf(stderr, "%s:%d:%d: ", src->path, line, col);
}

static void print_caret(const kernel_src *src, long off)
{
    size_t s = (size_t)off, e, i;
    while (s > 0 && src->text[s - 1] != '\n')
        s--;
    e = s;
    while (e < src->len && src->text[e] != '\n')
        e++;
    fprintf(stderr, "    ");
    for (i = s; i < e && i < s + 200; i++)
        fputc(src->text[i] == '\t' || (unsigned char)src->text[i] >= 0x20
                  ? src->text[i]
                  : '?',
              stderr);
    fprintf(stderr, "\n    ");
    for (i = s; i < (size_t)off && i < s + 200; i++)
        fputc(src->text[i] == '\t' ? '\t' : ' ', stderr);
    fprintf(stderr, "^\n");
}

static void print_where(const kernel_src *src, const axe_diag *d)
{
    fprintf(stderr, "axe: ");
    if (d->offset >= 0 && (size_t)d->offset <= src->len)
        print_location(src, d->offset);
    else
        fprintf(stderr, "%s: ", src->path);
}

/* Keep the diagnostic (its first "n" bytes of "msg", the notes after)
 * as the command's failure. */
static void keep_diag(const kernel_src *src, axe_status st, const axe_diag *d,
                      const char *msg, size_t n)
{
    char first[sizeof(((kernel_err *)0)->message)];
    int line = 0, col = 0;
    snprintf(first, sizeof first, "%.*s", (int)n, msg);
    if (d->offset >= 0 && (size_t)d->offset <= src->len)
        line_col(src, d->offset, &line, &col);
    kernel_err_record(axe_status_name(st), line, col, first,
                      msg[n] == '\n' ? msg + n + 1 : NULL);
}

/* The diagnostic: "axe: WHERE: error: MESSAGE", the source line and a
 * caret, then "axe: WHERE: note: NOTE" for every further line of the
 * complete diagnostic "full" (NULL: the diag's message alone). */
static void print_diag(const kernel_src *src, axe_status st, const axe_diag *d,
                       const char *full)
{
    const char *msg = d->message[0] ? d->message : axe_status_message(st);
    size_t n = strlen(msg);
    if (full != NULL && full[0] != '\0') {
        msg = full;
        n = strcspn(full, "\n");
    }
    keep_diag(src, st, d, msg, n);
    print_where(src, d);
    fprintf(stderr, "%s: %.*s\n",
            st == AXE_ERR_SYNTAX ? "syntax error" : "error", (int)n, msg);
    if (d->offset >= 0 && (size_t)d->offset <= src->len)
        print_caret(src, d->offset);
    for (msg += n; *msg == '\n' && msg[1] != '\0'; msg += n) {
        msg++;
        n = strcspn(msg, "\n");
        print_where(src, d);
        fprintf(stderr, "note: %.*s\n", (int)n, msg);
    }
}

/* "axe: FILE:LINE:COL: note: NOTE" on stderr for every note compile
 * left (axe_program_note: a gemm that fell back to scalar FMA). */
static void print_notes(const kernel_src *src, const axe_program *p)
{
    const char *note;
    long off = -1;
    int i;
    for (i = 0; axe_program_schedule(p, i, NULL) != NULL; i++) {
        axe_diag d;
        if ((note = axe_program_note(p, i, &off)) == NULL)
            continue;
        d.offset = off;
        print_where(src, &d);
        fprintf(stderr, "note: %s\n", note);
    }
}

int kernel_compile(const kernel_src *src, const axe_kernel_options *o,
                   axe_program **out)
{
    /* Each note is a schedule's reason, itself a diag (under
     * AXE_DIAG_MESSAGE_MAX bytes), and a family has at most 4 schedules:
     * 8 KiB hold any complete diagnostic. */
    char full[8192];
    axe_diag d;
    axe_status st = axe_program_compile_full(src->text, src->len, o, NULL, out,
                                             &d, full, sizeof full, NULL);
    if (st == AXE_OK) {
        print_notes(src, *out);
        return CLI_EXIT_OK;
    }
    print_diag(src, st, &d, full);
    return st == AXE_ERR_SYNTAX ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

const char *kernel_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

int kernel_load(const char *cmd, const char *file, const axe_kernel_options *o,
                kernel_src *src, axe_program **out)
{
    int rc = kernel_src_read(cmd, file, src);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = kernel_compile(src, o, out);
    if (rc != CLI_EXIT_OK) {
        free(src->text);
        src->text = NULL;
    }
    return rc;
}
