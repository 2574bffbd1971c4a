/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The part of the shared-vector tests (test_vectors.c for cute.jsonl,
 * test_vectors_axe.c for axe.jsonl) that does not depend on the notation
 * (header-only, like testlib.h): the whole vectors file is piped into one
 * run of `$AXE_BIN batch` (in process through cli_batch_run when AXE_BIN is
 * unset), each answer is handed to the test's judge with its case, and the
 * results are counted per op. A case is skipped only when it is listed in
 * the test's skip table with a reason; every failing case is printed with
 * its id, input, expectation, answer and the judge's reason; the run ends
 * with a pass/fail/skip table by op and "N passed, N failed".
 */
#ifndef AXE_TESTS_VECTORS_RUNNER_H
#define AXE_TESTS_VECTORS_RUNNER_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

#define VR_MAX_OPS 64

/* A case that may not run, and why. */
typedef struct vr_skip {
    const char *id;
    const char *reason;
} vr_skip;

/* Whether the answer "ans" (parsed, id already checked) satisfies case
 * "c"; on failure the reason is left in vr_why (vr_fail). */
typedef int vr_judge_fn(const json_value *c, const json_value *ans);

typedef struct vr_count {
    char name[48];
    int pass, fail, skip;
} vr_count;

typedef struct vr_lines {
    char **v;
    size_t n, cap;
} vr_lines;

static char vr_why[512];
static vr_count vr_counts[VR_MAX_OPS];
static int vr_ncounts, vr_npass, vr_nfail, vr_nskip;

/* Set the failure reason; returns 0 (for "return vr_fail(...)"). */
static inline int vr_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline int vr_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vr_why, sizeof vr_why, fmt, ap);
    va_end(ap);
    return 0;
}

static inline vr_count *vr_count_for(const char *op)
{
    for (int i = 0; i < vr_ncounts; i++)
        if (strcmp(vr_counts[i].name, op) == 0)
            return &vr_counts[i];
    if (vr_ncounts == VR_MAX_OPS)
        return &vr_counts[VR_MAX_OPS - 1];
    snprintf(vr_counts[vr_ncounts].name, sizeof vr_counts[vr_ncounts].name,
             "%s", op);
    return &vr_counts[vr_ncounts++];
}

static inline const char *vr_skip_reason(const vr_skip *skips, const char *id)
{
    for (size_t i = 0; id != NULL && skips[i].id != NULL; i++)
        if (strcmp(skips[i].id, id) == 0)
            return skips[i].reason;
    return NULL;
}

static inline void vr_print_failure(const json_value *c, const char *answer)
{
    json_buf b;
    json_buf_init(&b, NULL, NULL);
    json_write_value(&b, json_object_get(c, "id"));
    json_buf_put_rawz(&b, " ");
    json_write_value(&b, json_object_get(c, "op"));
    json_buf_put_rawz(&b, " args=");
    json_write_value(&b, json_object_get(c, "args"));
    json_buf_put_rawz(&b, "\n      expected: ");
    if (json_object_get(c, "expect") != NULL &&
        !json_is_null(json_object_get(c, "expect")))
        json_write_value(&b, json_object_get(c, "expect"));
    else if (json_object_get(c, "expect_error") != NULL &&
             !json_is_null(json_object_get(c, "expect_error")))
        json_buf_put_rawz(&b, "an error");
    else
        json_buf_put_rawz(&b, "null");
    json_buf_put_rawz(&b, " (cmp ");
    json_write_value(&b, json_object_get(c, "cmp"));
    printf("FAIL %s)\n      got:      %s\n      why:      %s\n",
           json_buf_str(&b), answer != NULL ? answer : "(no answer)", vr_why);
    json_buf_free(&b);
}

/* Judge the answer line "answer" (NULL: missing) to the case "c". */
static inline void vr_run_case(const json_value *c, json_arena *arena,
                               const char *answer, vr_judge_fn *judge,
                               const vr_skip *skips)
{
    const char *op = json_get_string(json_object_get(c, "op"), NULL);
    const char *id = json_get_string(json_object_get(c, "id"), NULL);
    vr_count *k = vr_count_for(op != NULL ? op : "(no op)");
    json_value *ans = NULL;
    int good;
    if (vr_skip_reason(skips, id) != NULL) {
        k->skip++;
        vr_nskip++;
        return;
    }
    vr_why[0] = '\0';
    if (answer == NULL)
        good = vr_fail("axe batch gave no answer");
    else if (json_parse(arena, answer, strlen(answer), &ans, NULL, 0) !=
             JSON_OK)
        good = vr_fail("the answer is not JSON");
    else if (!json_equal(json_object_get(c, "id"), json_object_get(ans, "id")))
        good = vr_fail("the id is not echoed");
    else
        good = judge(c, ans);
    if (good) {
        k->pass++;
        vr_npass++;
        return;
    }
    k->fail++;
    vr_nfail++;
    vr_print_failure(c, answer);
}

/* ---- running `axe batch` ------------------------------------------------ */

/* Every non-blank line of "f", without the newline. */
static inline int vr_read_lines(FILE *f, vr_lines *out)
{
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (len == 0)
            continue;
        if (out->n == out->cap) {
            size_t c = out->cap == 0 ? 1024 : out->cap * 2;
            char **v = realloc(out->v, c * sizeof *v);
            if (v == NULL)
                return 0;
            out->v = v;
            out->cap = c;
        }
        out->v[out->n] = strdup(buf);
        if (out->v[out->n++] == NULL)
            return 0;
    }
    free(buf);
    return 1;
}

static inline void vr_free_lines(vr_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* "s" in single quotes for the shell. */
static inline void vr_put_shell_quoted(json_buf *b, const char *s)
{
    json_buf_put_rawz(b, "'");
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            json_buf_put_rawz(b, "'\\''");
        else
            json_buf_put_raw(b, s, 1);
    }
    json_buf_put_rawz(b, "'");
}

/* The answers of `$AXE_BIN batch < path`; 0 if the run failed. */
static inline int vr_answers_from_binary(const char *bin, const char *path,
                                         vr_lines *out)
{
    json_buf cmd;
    FILE *p;
    int ok, status;
    json_buf_init(&cmd, NULL, NULL);
    vr_put_shell_quoted(&cmd, bin);
    json_buf_put_rawz(&cmd, " batch < ");
    vr_put_shell_quoted(&cmd, path);
    printf("running: %s\n", json_buf_str(&cmd));
    fflush(stdout);
    p = popen(json_buf_str(&cmd), "r");
    json_buf_free(&cmd);
    if (p == NULL)
        return 0;
    ok = vr_read_lines(p, out);
    status = pclose(p);
    if (status != 0)
        printf("axe batch exited with status %d\n", status);
    return ok && status == 0;
}

/* The answers of cli_batch_run on "path", in this process. */
static inline int vr_answers_in_process(const char *path, vr_lines *out)
{
    FILE *in = fopen(path, "rb"), *tmp = tmpfile();
    int ok = in != NULL && tmp != NULL && cli_batch_run(in, tmp) == CLI_EXIT_OK;
    printf("running cli_batch_run in process (AXE_BIN is not set)\n");
    if (ok) {
        rewind(tmp);
        ok = vr_read_lines(tmp, out);
    }
    if (in != NULL)
        fclose(in);
    if (tmp != NULL)
        fclose(tmp);
    return ok;
}

static inline void vr_print_table(const char *test)
{
    printf("\n%-32s %5s %5s %5s\n", "op", "pass", "fail", "skip");
    for (int i = 0; i < vr_ncounts; i++)
        printf("%-32s %5d %5d %5d\n", vr_counts[i].name, vr_counts[i].pass,
               vr_counts[i].fail, vr_counts[i].skip);
    printf("%d skipped (each with its reason in the skip table of "
           "tests/%s.c)\n",
           vr_nskip, test);
}

static inline void vr_judge_all(const vr_lines *cases, const vr_lines *answers,
                                vr_judge_fn *judge, const vr_skip *skips)
{
    for (size_t i = 0; i < cases->n; i++) {
        json_arena *arena = json_arena_new(NULL, NULL);
        json_value *c;
        if (arena == NULL || json_parse(arena, cases->v[i], strlen(cases->v[i]),
                                        &c, NULL, 0) != JSON_OK) {
            printf("FAIL line %zu of the vectors is not JSON\n", i + 1);
            vr_nfail++;
        } else {
            vr_run_case(c, arena, i < answers->n ? answers->v[i] : NULL, judge,
                        skips);
        }
        json_arena_free(arena);
    }
    if (answers->n > cases->n) {
        printf("FAIL axe batch gave %zu answers to %zu requests\n", answers->n,
               cases->n);
        vr_nfail++;
    }
}

/*
 * The whole test: vectors/"file" (under $AXE_SHARED_DIR) through `axe
 * batch`, judged by "judge"; "test" names the test's source for the skip
 * note. Returns the exit status (77: no vectors, the test is skipped).
 */
static inline int vr_main(const char *test, const char *file,
                          vr_judge_fn *judge, const vr_skip *skips)
{
    const char *shared = getenv("AXE_SHARED_DIR");
    const char *bin = getenv("AXE_BIN");
    char path[4096];
    vr_lines cases = {0}, answers = {0};
    FILE *f;
    snprintf(path, sizeof path, "%s/vectors/%s",
             shared != NULL ? shared : "../shared", file);
    f = fopen(path, "rb");
    if (f == NULL) {
        printf("skipped: no vectors at %s (set AXE_SHARED_DIR)\n", path);
        return 77;
    }
    if (!vr_read_lines(f, &cases)) {
        fclose(f);
        printf("cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    if (!(bin != NULL && bin[0] != '\0'
              ? vr_answers_from_binary(bin, path, &answers)
              : vr_answers_in_process(path, &answers))) {
        printf("FAIL running axe batch on %s\n", path);
        vr_nfail++;
    }
    vr_judge_all(&cases, &answers, judge, skips);
    vr_print_table(test);
    printf("%d passed, %d failed\n", vr_npass, vr_nfail);
    vr_free_lines(&cases);
    vr_free_lines(&answers);
    return vr_nfail == 0 ? 0 : 1;
}

#endif
