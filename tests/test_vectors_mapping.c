/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared mapping-expression vectors (vectors/mapping.jsonl) through `axe
 * batch`: the whole file is piped into one run of $AXE_BIN
 * (vectors_runner.h) and every answer is compared with the case's "expect"
 * by its "cmp" rule (vectors/README.md): json and int (equal JSON values;
 * cells list every axis of the expression), exact (equal text, spaces
 * ignored), error (rejected) and axe_function (the same size and the same
 * set L(x) at every logical index; equal canonical forms, or both layouts
 * evaluated with axe_layout_apply_set, whose own tests are the Axe
 * vectors). A case is
 * skipped only when it is listed in "skips" with a reason.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/layout.h"
#include "axe/notation.h"
#include "vectors_runner.h"

#define MAX_SET 64
#define MAX_DOMAIN (INT64_C(1) << 25)

/* Cases that may not run, each with the reason (none so far). */
static const vr_skip skips[] = {
    {NULL, NULL},
};

static int parse_layout(const json_value *v, axe_layout *l, const char *who)
{
    size_t len;
    const char *s = json_get_string(v, &len);
    axe_diag diag;
    if (s == NULL)
        return vr_fail("%s is not a string", who);
    if (axe_parse_layout(s, len, l, &diag) != AXE_OK)
        return vr_fail("%s does not parse: %s", who, diag.message);
    return 1;
}

/* Every point of "a" is in "b" (both of "n" points). */
static bool contained(const axe_point *a, const axe_point *b, int n)
{
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (int j = 0; j < n && !found; j++)
            found = axe_point_equal(&a[i], &b[j]);
        if (!found)
            return false;
    }
    return true;
}

static int same_function(const axe_layout *g, const axe_layout *w)
{
    static axe_point pg[MAX_SET], pw[MAX_SET];
    int64_t ng, nw;
    if (axe_layout_size(g, NULL, &ng) != AXE_OK ||
        axe_layout_size(w, NULL, &nw) != AXE_OK || nw > MAX_DOMAIN)
        return vr_fail("a size cannot be evaluated");
    if (ng != nw)
        return vr_fail("size %lld, expected %lld", (long long)ng,
                       (long long)nw);
    for (int64_t x = 0; x < nw; x++) {
        int cg, cw;
        if (axe_layout_apply_set(g, &x, NULL, 1, pg, MAX_SET, &cg, NULL) !=
                AXE_OK ||
            axe_layout_apply_set(w, &x, NULL, 1, pw, MAX_SET, &cw, NULL) !=
                AXE_OK)
            return vr_fail("cannot evaluate at index %lld", (long long)x);
        if (cg != cw || !contained(pg, pw, cg) || !contained(pw, pg, cg))
            return vr_fail("different points at index %lld", (long long)x);
    }
    return 1;
}

/* Equal canonical forms are the same function (a sound shortcut for the
 * 2^24-point cases); otherwise every index is evaluated. */
static int cmp_function(const json_value *got, const json_value *want)
{
    static axe_layout g, w, cg, cw;
    if (!parse_layout(got, &g, "the answer") ||
        !parse_layout(want, &w, "the expectation"))
        return 0;
    if (axe_layout_canonicalize(&g, AXE_TARGET_NONE, &cg, NULL) == AXE_OK &&
        axe_layout_canonicalize(&w, AXE_TARGET_NONE, &cw, NULL) == AXE_OK &&
        axe_layout_equal(&cg, &cw))
        return 1;
    return same_function(&g, &w);
}

/* Equal text with spaces removed. */
static int cmp_exact(const json_value *got, const json_value *want)
{
    const char *g = json_get_string(got, NULL),
               *w = json_get_string(want, NULL);
    if (g == NULL || w == NULL)
        return vr_fail("not a string");
    for (;;) {
        while (*g == ' ')
            g++;
        while (*w == ' ')
            w++;
        if (*g != *w)
            return vr_fail("different text");
        if (*g == '\0')
            return 1;
        g++;
        w++;
    }
}

static int judge(const json_value *c, const json_value *ans)
{
    const char *cmp = json_get_string(json_object_get(c, "cmp"), NULL);
    const json_value *got = json_object_get(ans, "result");
    const json_value *want = json_object_get(c, "expect");
    int ok = 0;
    if (json_get_bool(json_object_get(ans, "ok"), &ok) != JSON_OK)
        return vr_fail("the answer has no \"ok\"");
    if (cmp == NULL)
        return vr_fail("the case has no cmp");
    if (strcmp(cmp, "error") == 0 || json_object_get(c, "expect_error") != NULL)
        return ok ? vr_fail("accepted a request that must be rejected") : 1;
    if (!ok)
        return vr_fail("rejected");
    if (strcmp(cmp, "int") == 0 || strcmp(cmp, "json") == 0)
        return json_equal(got, want) ? 1 : vr_fail("different value");
    if (strcmp(cmp, "exact") == 0)
        return cmp_exact(got, want);
    if (strcmp(cmp, "axe_function") == 0)
        return cmp_function(got, want);
    return vr_fail("unknown cmp \"%s\"", cmp);
}

int main(void)
{
    return vr_main("test_vectors_mapping", "mapping.jsonl", judge, skips);
}
