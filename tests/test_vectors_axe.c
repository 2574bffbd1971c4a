/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared Axe vectors (vectors/axe.jsonl) through `axe batch`: the whole
 * file is piped into one run of $AXE_BIN (vectors_runner.h) and every
 * answer is compared with the case's "expect" by its "cmp" rule
 * (vectors/README.md): axe_struct (swizzle parameters, shard in order,
 * replica as a multiset, offsets as a map ignoring zeros; null expects "no
 * layout"), axe_group (that, and the separators), axe_point and axe_points
 * (axis -> value maps ignoring zeros; a list as a multiset), axe_function
 * (same size and the same set-valued map L(x) = { D(x) + r + O } at every
 * index, swizzles applied), int, json and error. The comparisons are
 * written here from the definitions, independently of the library's own
 * equality and evaluation: only the parser is shared. An UNSUPPORTED
 * answer is a failure, not a skip; a case is skipped only when it is listed
 * in "skips" with a reason.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/layout.h"
#include "axe/notation.h"
#include "vectors_runner.h"

#define MAX_DOMAIN (INT64_C(1) << 20)
#define MAX_SET 1024

/* Cases that may not run, each with the reason (none so far). */
static const vr_skip skips[] = {
    {NULL, NULL},
};

/* ---- points ---------------------------------------------------------------
 */

/* Add "v" on "axis" of "p"; 0 when there is no room or it overflows. */
static int point_add(axe_point *p, const char *axis, int64_t v)
{
    int i = 0;
    if (strlen(axis) >= AXE_AXIS_NAME_MAX)
        return 0;
    while (i < p->n && strcmp(p->axis[i], axis) != 0)
        i++;
    if (i == p->n) {
        if (p->n == AXE_POINT_MAX_AXES)
            return 0;
        snprintf(p->axis[i], sizeof p->axis[i], "%s", axis);
        p->v[i] = 0;
        p->n++;
    }
    return !__builtin_add_overflow(p->v[i], v, &p->v[i]);
}

static int entry_cmp(const axe_point *p, int i, int j)
{
    return strcmp(p->axis[i], p->axis[j]);
}

/* "p" without zero entries, sorted by axis name (a canonical map). */
static void point_normalize(axe_point *p)
{
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if (p->v[i] == 0)
            continue;
        memmove(p->axis[k], p->axis[i], sizeof p->axis[k]);
        p->v[k++] = p->v[i];
    }
    p->n = k;
    for (int i = 1; i < p->n; i++) {
        for (int j = i; j > 0 && entry_cmp(p, j - 1, j) > 0; j--) {
            char name[AXE_AXIS_NAME_MAX];
            int64_t v = p->v[j];
            memcpy(name, p->axis[j], sizeof name);
            memcpy(p->axis[j], p->axis[j - 1], sizeof name);
            memcpy(p->axis[j - 1], name, sizeof name);
            p->v[j] = p->v[j - 1];
            p->v[j - 1] = v;
        }
    }
}

/* Order of normalized points (for sorting sets). */
static int point_cmp(const void *pa, const void *pb)
{
    const axe_point *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = 0; i < a->n; i++) {
        int c = strcmp(a->axis[i], b->axis[i]);
        if (c != 0)
            return c;
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    }
    return 0;
}

static void point_text(const axe_point *p, char *buf, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(buf, cap, "{");
    for (int i = 0; i < p->n && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s: %lld", i ? ", " : "",
                              p->axis[i], (long long)p->v[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "}");
}

/* A JSON object {axis: integer} as a normalized point. */
static int json_point(const json_value *v, axe_point *out)
{
    out->n = 0;
    if (!json_is_object(v))
        return 0;
    for (size_t i = 0; i < json_object_len(v); i++) {
        int64_t x;
        const char *key = json_object_key_at(v, i, NULL);
        if (json_get_int(json_object_value_at(v, i), &x) != JSON_OK ||
            !point_add(out, key, x))
            return 0;
    }
    point_normalize(out);
    return 1;
}

/* Sorted normalized sets "a" and "b" of "n" points are equal. */
static int same_sets(axe_point *a, axe_point *b, int n, const char *where)
{
    char ta[256], tb[256];
    qsort(a, (size_t)n, sizeof a[0], point_cmp);
    qsort(b, (size_t)n, sizeof b[0], point_cmp);
    for (int i = 0; i < n; i++) {
        if (point_cmp(&a[i], &b[i]) == 0)
            continue;
        point_text(&a[i], ta, sizeof ta);
        point_text(&b[i], tb, sizeof tb);
        return vr_fail("%s: got %s where %s was expected (zeros ignored)",
                       where, ta, tb);
    }
    return 1;
}

static int cmp_point(const json_value *got, const json_value *want)
{
    axe_point g, w;
    if (!json_point(got, &g))
        return vr_fail("the answer is not an {axis: integer} object");
    if (!json_point(want, &w))
        return vr_fail("the expectation is not an {axis: integer} object");
    return same_sets(&g, &w, 1, "point");
}

static int cmp_points(const json_value *got, const json_value *want)
{
    static axe_point g[MAX_SET], w[MAX_SET];
    size_t n = json_array_len(want);
    if (!json_is_array(got) || !json_is_array(want) || n > MAX_SET)
        return vr_fail("answer and expectation must be lists of points");
    if (json_array_len(got) != n)
        return vr_fail("%zu points, expected %zu", json_array_len(got), n);
    for (size_t i = 0; i < n; i++)
        if (!json_point(json_array_at(got, i), &g[i]) ||
            !json_point(json_array_at(want, i), &w[i]))
            return vr_fail("entry %zu is not an {axis: integer} object", i);
    return same_sets(g, w, (int)n, "set");
}

/* ---- layouts ----------------------------------------------------------------
 */

/* Parse the JSON string "v" as an Axe layout ("what" names it). */
static int parse_layout(const json_value *v, axe_layout *out, const char *what)
{
    size_t len;
    const char *s = json_get_string(v, &len);
    axe_diag d;
    if (s == NULL)
        return vr_fail("%s is not a layout string", what);
    axe_diag_clear(&d);
    if (axe_parse_layout(s, len, out, &d) != AXE_OK)
        return vr_fail("%s does not parse: %s (offset %ld)", what, d.message,
                       d.offset);
    return 1;
}

static int same_iter(const axe_iter *a, const axe_iter *b)
{
    return a->extent == b->extent && a->stride == b->stride &&
           strcmp(a->axis, b->axis) == 0;
}

/* The replica lists are equal as multisets. */
static int same_replicas(const axe_layout *a, const axe_layout *b)
{
    bool used[AXE_LAYOUT_MAX_REPLICA] = {false};
    if (a->nreplica != b->nreplica)
        return 0;
    for (int i = 0; i < a->nreplica; i++) {
        int j = 0;
        while (j < b->nreplica &&
               (used[j] || !same_iter(&a->replica[i], &b->replica[j])))
            j++;
        if (j == b->nreplica)
            return 0;
        used[j] = true;
    }
    return 1;
}

static int64_t offset_on(const axe_layout *l, const char *axis)
{
    int64_t v = 0;
    for (int i = 0; i < l->noffset; i++)
        if (strcmp(l->offset[i].axis, axis) == 0)
            v += l->offset[i].value;
    return v;
}

/* Every nonzero offset of "a" is the same in "b". */
static int offsets_within(const axe_layout *a, const axe_layout *b)
{
    for (int i = 0; i < a->noffset; i++)
        if (offset_on(a, a->offset[i].axis) != offset_on(b, a->offset[i].axis))
            return 0;
    return 1;
}

static int same_swizzle(const axe_layout_swizzle *a,
                        const axe_layout_swizzle *b)
{
    if (a->present != b->present)
        return 0;
    return !a->present ||
           (a->inner == b->inner && a->per_element == b->per_element &&
            a->len == b->len && a->atom == b->atom);
}

static int struct_equal(const axe_layout *g, const axe_layout *w)
{
    if (!same_swizzle(&g->swizzle, &w->swizzle))
        return vr_fail("different swizzle");
    if (g->nshard != w->nshard)
        return vr_fail("%d shard iters, expected %d", g->nshard, w->nshard);
    for (int i = 0; i < g->nshard; i++)
        if (!same_iter(&g->shard[i], &w->shard[i]))
            return vr_fail("shard iter %d differs", i);
    if (!same_replicas(g, w))
        return vr_fail("different replica (as a multiset)");
    if (!offsets_within(g, w) || !offsets_within(w, g))
        return vr_fail("different offset (zeros ignored)");
    return 1;
}

/* cmp axe_struct: "want" a layout string, or null for "no layout". */
static int cmp_struct(const json_value *got, const json_value *want)
{
    static axe_layout g, w;
    if (json_is_null(want))
        return json_is_null(got) ? 1 : vr_fail("expected no layout");
    if (json_is_null(got))
        return vr_fail("no layout, expected one");
    if (!parse_layout(got, &g, "the answer") ||
        !parse_layout(want, &w, "the expectation"))
        return 0;
    return struct_equal(&g, &w);
}

static int cmp_group(const json_value *got, const json_value *want)
{
    if (!json_is_object(got))
        return vr_fail("the answer is not {\"layout\": ..., \"seps\": ...}");
    if (!cmp_struct(json_object_get(got, "layout"),
                    json_object_get(want, "layout")))
        return 0;
    if (!json_equal(json_object_get(got, "seps"),
                    json_object_get(want, "seps")))
        return vr_fail("different seps");
    return 1;
}

/* ---- the oracle: L(x) from the definition -----------------------------------
 */

/* The swizzled address of "m" (vectors/README.md, spec §11). */
static int swizzle_m(const axe_layout_swizzle *sw, int64_t m, int64_t *out)
{
    int64_t unit, q, r, mask, f;
    if (sw->per_element < 0 || sw->per_element > 40 || sw->len < 0 ||
        sw->len > 20 || sw->atom < 0 || sw->atom > 40)
        return 0;
    unit = INT64_C(1) << sw->per_element;
    q = m / unit - (m % unit < 0);
    r = m - q * unit;
    mask = (INT64_C(1) << sw->len) - 1;
    if (sw->inner)
        f = q ^ ((q & (mask << sw->atom)) >> sw->atom);
    else
        f = q ^ ((q & mask) << sw->atom);
    return !__builtin_mul_overflow(f, unit, out) &&
           !__builtin_add_overflow(*out, r, out);
}

/* D(x) + O: digits of x lexicographically over the shard extents (the
 * outermost absorbing the rest), each times its stride on its axis. */
static int base_point(const axe_layout *l, int64_t x, axe_point *p)
{
    p->n = 0;
    for (int k = l->nshard - 1; k >= 0; k--) {
        const axe_iter *it = &l->shard[k];
        int64_t c = x, t;
        if (k > 0) {
            if (it->extent < 1)
                return 0;
            c = x % it->extent;
            x /= it->extent;
        }
        if (__builtin_mul_overflow(c, it->stride, &t) ||
            !point_add(p, it->axis, t))
            return 0;
    }
    for (int i = 0; i < l->noffset; i++)
        if (!point_add(p, l->offset[i].axis, l->offset[i].value))
            return 0;
    return 1;
}

/* Swizzle the m entry of "p" when "l" is swizzled, then normalize. */
static int finish_point(const axe_layout *l, axe_point *p)
{
    for (int i = 0; l->swizzle.present && i < p->n; i++)
        if (strcmp(p->axis[i], "m") == 0 &&
            !swizzle_m(&l->swizzle, p->v[i], &p->v[i]))
            return 0;
    point_normalize(p);
    return 1;
}

/* L(x) = { D(x) + O + sum r_t s_t : r in the replica box } into out. */
static int oracle_set(const axe_layout *l, int64_t x, axe_point *out, int *n)
{
    axe_point base;
    int64_t count = 1;
    if (!base_point(l, x, &base))
        return 0;
    for (int t = 0; t < l->nreplica; t++)
        if (l->replica[t].extent < 1 ||
            __builtin_mul_overflow(count, l->replica[t].extent, &count) ||
            count > MAX_SET)
            return 0;
    for (int64_t r = 0; r < count; r++) {
        int64_t rest = r, t2;
        out[r] = base;
        for (int t = l->nreplica - 1; t >= 0; t--) {
            const axe_iter *it = &l->replica[t];
            if (__builtin_mul_overflow(rest % it->extent, it->stride, &t2) ||
                !point_add(&out[r], it->axis, t2))
                return 0;
            rest /= it->extent;
        }
        if (!finish_point(l, &out[r]))
            return 0;
    }
    *n = (int)count;
    return 1;
}

static int oracle_size(const axe_layout *l, int64_t *n)
{
    *n = 1;
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent < 0 ||
            __builtin_mul_overflow(*n, l->shard[k].extent, n))
            return 0;
    return *n <= MAX_DOMAIN;
}

/* The same size and L_g(x) == L_w(x) as multisets for every x. */
static int same_function(const axe_layout *g, const axe_layout *w)
{
    static axe_point pg[MAX_SET], pw[MAX_SET];
    int64_t ng, nw;
    char where[64];
    if (!oracle_size(g, &ng) || !oracle_size(w, &nw))
        return vr_fail("a size cannot be evaluated");
    if (ng != nw)
        return vr_fail("size %lld, expected %lld", (long long)ng,
                       (long long)nw);
    for (int64_t x = 0; x < nw; x++) {
        int cg, cw;
        if (!oracle_set(g, x, pg, &cg) || !oracle_set(w, x, pw, &cw))
            return vr_fail("cannot evaluate at index %lld", (long long)x);
        if (cg != cw)
            return vr_fail("index %lld: %d points, expected %d", (long long)x,
                           cg, cw);
        snprintf(where, sizeof where, "index %lld", (long long)x);
        if (!same_sets(pg, pw, cg, where))
            return 0;
    }
    return 1;
}

static int cmp_function(const json_value *got, const json_value *want)
{
    static axe_layout g, w;
    if (json_is_null(want))
        return json_is_null(got) ? 1 : vr_fail("expected no layout");
    if (json_is_null(got))
        return vr_fail("no layout, expected one");
    if (!parse_layout(got, &g, "the answer") ||
        !parse_layout(want, &w, "the expectation"))
        return 0;
    return same_function(&g, &w);
}

/* ---- judging
 * ------------------------------------------------------------------
 */

static int judge(const json_value *c, const json_value *ans)
{
    const char *cmp = json_get_string(json_object_get(c, "cmp"), NULL);
    const json_value *got = json_object_get(ans, "result");
    const json_value *want = json_object_get(c, "expect");
    const json_value *exp_err = json_object_get(c, "expect_error");
    int ok = 0, want_err = 0;
    if (json_get_bool(json_object_get(ans, "ok"), &ok) != JSON_OK)
        return vr_fail("the answer has no \"ok\"");
    if (exp_err != NULL && !json_is_null(exp_err) &&
        json_get_bool(exp_err, &want_err) != JSON_OK)
        return vr_fail("bad expect_error");
    if (cmp == NULL)
        return vr_fail("the case has no cmp");
    if (want_err || strcmp(cmp, "error") == 0)
        return ok ? vr_fail("accepted a request that must be rejected") : 1;
    if (!ok)
        return vr_fail("rejected");
    if (strcmp(cmp, "int") == 0 || strcmp(cmp, "json") == 0)
        return json_equal(got, want) ? 1 : vr_fail("different value");
    if (strcmp(cmp, "axe_point") == 0)
        return cmp_point(got, want);
    if (strcmp(cmp, "axe_points") == 0)
        return cmp_points(got, want);
    if (strcmp(cmp, "axe_struct") == 0)
        return cmp_struct(got, want);
    if (strcmp(cmp, "axe_group") == 0)
        return cmp_group(got, want);
    if (strcmp(cmp, "axe_function") == 0)
        return cmp_function(got, want);
    return vr_fail("unknown cmp \"%s\"", cmp);
}

int main(void)
{
    return vr_main("test_vectors_axe", "axe.jsonl", judge, skips);
}
