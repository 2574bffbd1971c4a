/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the sharding-spec converters (include/axe/sharding.h): table
 * rows of specs and their layouts (written by hand from the convention),
 * refusals with their reasons, and laws on seeded random meshes (1-3 axes
 * of sizes 1-8), specs and shapes: (1) for every logical coordinate, the
 * (device, local offset) pairs of apply_set of the produced layout equal
 * those computed here from the spec's definition (device ids row-major
 * over the mesh, block c_a * size(b) + c_b of a dim sharded by (a, b),
 * each shard dense row-major from m = 0); (2) from_layout gives back the
 * spec (size-1 mesh axes dropped), also from the canonical form of the
 * layout and from the spec's printed text; (3) on perturbed layouts,
 * from_layout succeeds exactly when some spec (enumerated here) has the
 * same placement, and then has it; (4) garbage text never crashes the
 * parsers. The spec texts of the laws are written here, not by the
 * library's printer. Invariant: each law is stated above its checker.
 */
#include "core_internal.h"
#include "testlib.h"

#include "axe/sharding.h"

#define FMTS 3
static const char *const fmt_name[FMTS] = {"jax", "dtensor", "alpa"};

/* ---- helpers ------------------------------------------------------------- */

static axe_mesh mesh_of(const char *text)
{
    axe_mesh m;
    axe_diag d;
    if (axe_parse_mesh(text, strlen(text), &m, &d) != AXE_OK) {
        fprintf(stderr, "bad mesh in test: %s (%s)\n", text, d.message);
        exit(2);
    }
    return m;
}

static const char *layout_str(const axe_layout *l)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    axe_print_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

/* spec text -> layout text ("" and the reason in "why" on failure). */
static axe_status convert(axe_sharding_format f, const char *mesh,
                          const int64_t *shape, int n, const char *spec,
                          char *out, size_t cap, axe_diag *d)
{
    axe_mesh m = mesh_of(mesh);
    axe_sharding s;
    axe_layout l;
    axe_status st;
    out[0] = '\0';
    axe_diag_clear(d);
    st = axe_parse_sharding(f, spec, strlen(spec), &m, n, &s, d);
    if (st == AXE_OK)
        st = axe_sharding_to_layout(&s, &m, shape, n, &l, d);
    if (st == AXE_OK)
        axe_print_layout(&l, out, cap);
    return st;
}

/* ---- table rows ---------------------------------------------------------- */

typedef struct row {
    axe_sharding_format f;
    const char *mesh;
    int n;
    int64_t shape[3];
    const char *spec;
    const char *layout; /* NULL: refused, the reason containing "why" */
    const char *why;
} row;

static const row rows[] = {
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "P('x', None)",
     "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "P(('x','y'), None)",
     "S[(2,4,16):(4@gpuid,1@gpuid,1)]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "P(None, 'y')",
     "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "PartitionSpec('y', 'x')",
     "S[(4,2,2,8):(1@gpuid,8,4@gpuid,1)]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "P()",
     "S[(8,16):(16,1)] + R[(2,4):(4@gpuid,1@gpuid)]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "jax.sharding.PartitionSpec(('y', 'x'),)",
     "S[(4,2,16):(1@gpuid,4@gpuid,1)]",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {6, 16},
     "P('y')",
     NULL,
     "dim 0 of extent 6 does not split evenly over its 4 devices"},
    {AXE_SHARDING_JAX, "x=2,y=4", 2, {8, 16}, "P('z')", NULL, "no axis z"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "P('x', 'x')",
     NULL,
     "used twice"},
    {AXE_SHARDING_JAX, "x=2,y=4", 1, {8}, "P('x', None)", NULL, "more entries"},
    /* the paper's 64x128 tensor on a 2x2 mesh */
    {AXE_SHARDING_DTENSOR,
     "2,2",
     2,
     {64, 128},
     "[Shard(0), Shard(1)]",
     "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "2,2",
     2,
     {64, 128},
     "[Shard(0), Replicate()]",
     "S[(2,32,128):(2@gpuid,128,1)] + R[2:1@gpuid]",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "[Shard(dim=0), Shard(0)]",
     "S[(2,4,16):(4@gpuid,1@gpuid,1)]",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "[Shard(-1), Partial()]",
     "S[(8,2,8):(8,4@gpuid,1)] + R[4:1@gpuid]",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "(torch.distributed.tensor.Replicate(), Shard(1))",
     "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 10},
     "[Replicate(), Shard(1)]",
     NULL,
     "dim 1 of extent 10 does not split evenly over its 4 devices"},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "[Shard(0)]",
     NULL,
     "one placement per mesh axis"},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "[Shard(2), Shard(0)]",
     NULL,
     "outside the tensor's dims"},
    {AXE_SHARDING_ALPA,
     "2,2",
     2,
     {64, 128},
     "S0S1",
     "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]",
     NULL},
    {AXE_SHARDING_ALPA,
     "2,2",
     2,
     {64, 128},
     "S0R",
     "S[(2,32,128):(2@gpuid,128,1)] + R[2:1@gpuid]",
     NULL},
    {AXE_SHARDING_ALPA,
     "2,2",
     2,
     {64, 128},
     "RS1",
     "S[(64,2,64):(64,1@gpuid,1)] + R[2:2@gpuid]",
     NULL},
    {AXE_SHARDING_ALPA,
     "2,2",
     2,
     {64, 128},
     "S01R",
     "S[(2,2,16,128):(2@gpuid,1@gpuid,128,1)]",
     NULL},
    {AXE_SHARDING_ALPA, "2,2", 2, {64, 128}, "S0S0", NULL, "used twice"},
    {AXE_SHARDING_ALPA,
     "2,2",
     2,
     {64, 128},
     "S2R",
     NULL,
     "not a mesh axis index"},
    {AXE_SHARDING_ALPA, "2,2", 2, {64, 128}, "S0", NULL, "one R or S"},
};

/* Each row's spec gives its layout, or is refused with its reason. */
static void test_rows(void)
{
    char out[1024];
    axe_diag d;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        axe_status st = convert(r->f, r->mesh, r->shape, r->n, r->spec, out,
                                sizeof out, &d);
        if (r->layout != NULL)
            TL_CHECK(st == AXE_OK && strcmp(out, r->layout) == 0,
                     "%s %s over %s: got %s (%s), want %s", fmt_name[r->f],
                     r->spec, r->mesh, out, d.message, r->layout);
        else
            TL_CHECK(st != AXE_OK && strstr(d.message, r->why) != NULL,
                     "%s %s over %s: want a refusal with \"%s\", got %s %s",
                     fmt_name[r->f], r->spec, r->mesh, r->why,
                     axe_status_name(st), d.message);
    }
}

/* ---- layouts back to specs ----------------------------------------------- */

typedef struct back {
    axe_sharding_format f;
    const char *mesh;
    int n;
    int64_t shape[3];
    const char *layout;
    const char *spec; /* NULL: refused, the reason containing "why" */
    const char *why;
} back;

static const back backs[] = {
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(2,64):(4@gpuid,1)] + R[4:1@gpuid]",
     "P('x', None)",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,1)]",
     "P(('x', 'y'), None)",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,1)]",
     "[Shard(0), Shard(0)]",
     NULL},
    {AXE_SHARDING_ALPA,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,1)]",
     "S01R",
     NULL},
    {AXE_SHARDING_ALPA,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(4,2,16):(1@gpuid,4@gpuid,1)]",
     "S10R",
     NULL},
    {AXE_SHARDING_DTENSOR,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(4,2,16):(1@gpuid,4@gpuid,1)]",
     NULL,
     "in mesh order only"},
    {AXE_SHARDING_JAX,
     "x=1,y=4",
     2,
     {8, 16},
     "S[(8,16):(16,1)] + R[4:1@gpuid]",
     "P(None, None)",
     NULL},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(2,4,16):(16,4@gpuid,1)]",
     NULL,
     "interleaves devices within the dimension"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(2,64):(4@gpuid,1)]",
     NULL,
     "mesh axis y (4 devices) is neither sharded nor replicated"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(4,32):(2@gpuid,1)]",
     NULL,
     "does not cover whole mesh axes"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,2)] + R[1:1]",
     NULL,
     "not stored densely"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,1)] + 3",
     NULL,
     "offset 3 on m"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,8):(1@gpuid,1)]",
     NULL,
     "the layout has 64 elements, the shape 128"},
    {AXE_SHARDING_JAX,
     "x=2,y=4",
     2,
     {8, 16},
     "S[(8,16):(1@gpuid,1@laneid)]",
     NULL,
     "gpuid and m only"},
};

/* Each layout gives its spec, or is refused with its reason. */
static void test_backs(void)
{
    char out[256];
    axe_diag d;
    for (size_t i = 0; i < sizeof backs / sizeof backs[0]; i++) {
        const back *b = &backs[i];
        axe_mesh m = mesh_of(b->mesh);
        axe_sharding s;
        axe_layout l;
        axe_status st;
        axe_diag_clear(&d);
        out[0] = '\0';
        st = axe_parse_layout(b->layout, strlen(b->layout), &l, &d);
        if (st == AXE_OK)
            st = axe_sharding_from_layout(b->f, &l, &m, b->shape, b->n, 0, NULL,
                                          &s, &d);
        if (st == AXE_OK)
            axe_print_sharding(b->f, &s, &m, out, sizeof out);
        if (b->spec != NULL)
            TL_CHECK(st == AXE_OK && strcmp(out, b->spec) == 0,
                     "%s of %s over %s: got %s (%s), want %s", fmt_name[b->f],
                     b->layout, b->mesh, out, d.message, b->spec);
        else
            TL_CHECK(st != AXE_OK && strstr(d.message, b->why) != NULL,
                     "%s of %s over %s: want a refusal with \"%s\", got "
                     "%s %s (%s)",
                     fmt_name[b->f], b->layout, b->mesh, b->why,
                     axe_status_name(st), d.message, out);
    }
}

/* Partial: DTensor keeps it (the replicated axes or a mask), JAX and Alpa
 * refuse it. */
static void test_partial(void)
{
    axe_mesh m = mesh_of("x=2,y=4");
    int64_t shape[2] = {8, 16};
    const char *text = "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]";
    axe_sharding s;
    axe_layout l;
    axe_diag d;
    char out[128];
    axe_status st = axe_parse_layout(text, strlen(text), &l, &d);
    TL_CHECK(st == AXE_OK, "parse %s", text);
    st = axe_sharding_from_layout(AXE_SHARDING_DTENSOR, &l, &m, shape, 2,
                                  AXE_SHARDING_PARTIAL_REPLICAS, "sum", &s, &d);
    axe_print_sharding(AXE_SHARDING_DTENSOR, &s, &m, out, sizeof out);
    TL_CHECK(st == AXE_OK && strcmp(out, "[Shard(0), Partial()]") == 0,
             "partial dtensor: %s", st == AXE_OK ? out : d.message);
    st = axe_sharding_from_layout(AXE_SHARDING_DTENSOR, &l, &m, shape, 2,
                                  AXE_SHARDING_PARTIAL_REPLICAS, "max", &s, &d);
    axe_print_sharding(AXE_SHARDING_DTENSOR, &s, &m, out, sizeof out);
    TL_CHECK(st == AXE_OK && strcmp(out, "[Shard(0), Partial('max')]") == 0,
             "partial max: %s", st == AXE_OK ? out : d.message);
    st = axe_sharding_from_layout(AXE_SHARDING_DTENSOR, &l, &m, shape, 2, 1u,
                                  "sum", &s, &d);
    TL_CHECK(st == AXE_ERR_UNSUPPORTED &&
                 strstr(d.message, "does not replicate") != NULL,
             "partial over a sharded axis: %s", d.message);
    /* A Partial on a size-1 mesh axis pends nothing (found by
     * fuzz_sharding): it converts back as no pending reduction. */
    {
        axe_mesh m1 = mesh_of("x=2,y=1");
        const char *spec = "[Shard(dim=1), Partial()]";
        int64_t shape1[2] = {8, 16};
        axe_sharding s1;
        axe_layout l1;
        st = axe_parse_sharding(AXE_SHARDING_DTENSOR, spec, strlen(spec), &m1,
                                2, &s1, &d);
        if (st == AXE_OK)
            st = axe_sharding_to_layout(&s1, &m1, shape1, 2, &l1, &d);
        if (st == AXE_OK)
            st = axe_sharding_from_layout(AXE_SHARDING_DTENSOR, &l1, &m1,
                                          shape1, 2, s1.partial, s1.op, &s, &d);
        TL_CHECK(st == AXE_OK && s.partial == 0 && s1.partial == 2,
                 "partial on a size-1 axis: %s", d.message);
    }
    for (int f = 0; f < FMTS; f += 2) {
        st = axe_sharding_from_layout((axe_sharding_format)f, &l, &m, shape, 2,
                                      AXE_SHARDING_PARTIAL_REPLICAS, "sum", &s,
                                      &d);
        TL_CHECK(st == AXE_ERR_UNSUPPORTED &&
                     strstr(d.message, "no pending reduction") != NULL,
                 "%s partial: %s", fmt_name[f], d.message);
    }
}

/* ---- random specs and the oracle ----------------------------------------- */

typedef struct rspec {
    axe_mesh mesh;
    int n;
    int64_t shape[3];
    int naxes[3];
    int axis[3][3];
    uint32_t partial;
} rspec;

static void shuffle(int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* A random mesh (1-3 axes, sizes 1-8, at most 64 devices), spec and
 * divisible shape; DTensor's dims list their axes in mesh order. */
static rspec random_spec(axe_sharding_format f)
{
    static const char *const names[] = {"x", "y", "z", "data", "model"};
    int pick[5] = {0, 1, 2, 3, 4};
    rspec r;
    int64_t p = 1;
    memset(&r, 0, sizeof r);
    r.mesh.n = (int)tl_range(1, 3);
    shuffle(pick, 5);
    for (int k = 0; k < r.mesh.n; k++) {
        r.mesh.size[k] = tl_range(1, 8);
        while (p * r.mesh.size[k] > 64)
            r.mesh.size[k]--;
        p *= r.mesh.size[k];
        strcpy(r.mesh.name[k], names[pick[k]]);
    }
    r.n = (int)tl_range(1, 3);
    for (int k = 0; k < r.mesh.n; k++) {
        int d = (int)tl_range(-1, r.n - 1);
        if (d < 0 && f == AXE_SHARDING_DTENSOR && tl_range(0, 2) == 0)
            r.partial |= 1u << k;
        else if (d >= 0)
            r.axis[d][r.naxes[d]++] = k;
    }
    for (int d = 0; d < r.n; d++) {
        int64_t q = 1;
        if (f != AXE_SHARDING_DTENSOR)
            shuffle(r.axis[d], r.naxes[d]);
        for (int j = 0; j < r.naxes[d]; j++)
            q *= r.mesh.size[r.axis[d][j]];
        r.shape[d] = q * tl_range(1, 3);
    }
    return r;
}

static void put(char *buf, size_t cap, const char *s)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s", s);
}

static void put_mesh(const rspec *r, bool unnamed, char *buf, size_t cap)
{
    char one[48];
    buf[0] = '\0';
    for (int k = 0; k < r->mesh.n; k++) {
        if (unnamed)
            snprintf(one, sizeof one, "%s%lld", k ? ", " : "",
                     (long long)r->mesh.size[k]);
        else
            snprintf(one, sizeof one, "%s%s=%lld", k ? "," : "",
                     r->mesh.name[k], (long long)r->mesh.size[k]);
        put(buf, cap, one);
    }
}

/* JAX text, written independently of the library's printer. */
static void put_jax(const rspec *r, char *buf, size_t cap)
{
    static const char *const heads[] = {"P(", "PartitionSpec(",
                                        "jax.sharding.PartitionSpec("};
    const char *q = tl_range(0, 1) ? "'" : "\"";
    int last = r->n - 1;
    while (last >= 0 && r->naxes[last] == 0 && tl_range(0, 1))
        last--;
    snprintf(buf, cap, "%s", heads[tl_range(0, 2)]);
    for (int d = 0; d <= last; d++) {
        bool tuple = r->naxes[d] > 1 || (r->naxes[d] == 1 && tl_range(0, 1));
        put(buf, cap, d ? ", " : "");
        if (r->naxes[d] == 0)
            put(buf, cap, tl_range(0, 3) ? "None" : "()");
        put(buf, cap, tuple ? "(" : "");
        for (int j = 0; j < r->naxes[d]; j++) {
            put(buf, cap, j ? ", " : "");
            put(buf, cap, q);
            put(buf, cap, r->mesh.name[r->axis[d][j]]);
            put(buf, cap, q);
        }
        put(buf, cap, tuple && r->naxes[d] == 1 ? ",)" : tuple ? ")" : "");
    }
    put(buf, cap, ")");
}

static int dim_using(const rspec *r, int k)
{
    for (int d = 0; d < r->n; d++)
        for (int j = 0; j < r->naxes[d]; j++)
            if (r->axis[d][j] == k)
                return d;
    return -1;
}

static void put_dtensor(const rspec *r, char *buf, size_t cap)
{
    char one[48];
    snprintf(buf, cap, "[");
    for (int k = 0; k < r->mesh.n; k++) {
        int d = dim_using(r, k), form = (int)tl_range(0, 2);
        put(buf, cap, k ? ", " : "");
        if (d >= 0)
            snprintf(one, sizeof one,
                     form == 0   ? "Shard(%d)"
                     : form == 1 ? "Shard(dim=%d)"
                                 : "Shard(%d)",
                     form == 2 ? d - r->n : d);
        else if (r->partial & (1u << k))
            snprintf(one, sizeof one, "%s",
                     form == 0   ? "Partial()"
                     : form == 1 ? "Partial(reduce_op='sum')"
                                 : "Partial(sum)");
        else
            snprintf(one, sizeof one, "Replicate()");
        put(buf, cap, one);
    }
    put(buf, cap, "]");
}

static void put_alpa(const rspec *r, char *buf, size_t cap)
{
    char one[4];
    buf[0] = '\0';
    for (int d = 0; d < r->n; d++) {
        put(buf, cap, r->naxes[d] ? "S" : "R");
        for (int j = 0; j < r->naxes[d]; j++) {
            snprintf(one, sizeof one, "%d", r->axis[d][j]);
            put(buf, cap, one);
        }
    }
}

/* Placement pairs (device, offset) of a layout, per linear coordinate
 * (row-major over the shape), sorted; *count pairs per coordinate in
 * cnt[]. Returns false if apply_set fails. */
#define MAXPAIRS 65536
typedef struct placement {
    int64_t total;
    int cnt[4096];
    int64_t pair[MAXPAIRS][2];
} placement;

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1)
                        : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int64_t point_get(const axe_point *p, const char *axis)
{
    int64_t v = 0;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->axis[i], axis) == 0)
            v += p->v[i];
    return v;
}

static int64_t shape_size(const int64_t *shape, int n)
{
    int64_t s = 1;
    for (int d = 0; d < n; d++)
        s *= shape[d];
    return s;
}

static void unravel(int64_t x, const int64_t *shape, int n, int64_t *crd)
{
    for (int d = n - 1; d >= 0; d--) {
        crd[d] = x % shape[d];
        x /= shape[d];
    }
}

static bool layout_placement(const axe_layout *l, const int64_t *shape, int n,
                             placement *pl)
{
    static axe_point pts[64];
    int64_t size = shape_size(shape, n), crd[3];
    pl->total = 0;
    for (int64_t x = 0; x < size; x++) {
        int cnt;
        axe_diag d;
        unravel(x, shape, n, crd);
        if (axe_layout_apply_set(l, crd, shape, n, pts, 64, &cnt, &d) !=
                AXE_OK ||
            pl->total + cnt > MAXPAIRS)
            return false;
        pl->cnt[x] = cnt;
        for (int i = 0; i < cnt; i++) {
            pl->pair[pl->total + i][0] = point_get(&pts[i], "gpuid");
            pl->pair[pl->total + i][1] = point_get(&pts[i], "m");
        }
        qsort(pl->pair[pl->total], (size_t)cnt, sizeof pl->pair[0], cmp_pair);
        pl->total += cnt;
    }
    return true;
}

/* The placement from the spec's definition: device d holds coordinate c
 * iff, per dim, c's block index c_d / local_d is the mixed-radix number
 * of d's mesh coordinates on the dim's axes (major first); at offset the
 * row-major index of (c_d mod local_d) over the local shape. */
static void oracle_placement(const rspec *r, placement *pl)
{
    int64_t p = 1, local[3], mc[8], crd[3];
    int64_t size = shape_size(r->shape, r->n);
    for (int k = 0; k < r->mesh.n; k++)
        p *= r->mesh.size[k];
    for (int d = 0; d < r->n; d++) {
        int64_t q = 1;
        for (int j = 0; j < r->naxes[d]; j++)
            q *= r->mesh.size[r->axis[d][j]];
        local[d] = r->shape[d] / q;
    }
    pl->total = 0;
    for (int64_t x = 0; x < size; x++) {
        unravel(x, r->shape, r->n, crd);
        pl->cnt[x] = 0;
        for (int64_t dev = 0; dev < p; dev++) {
            bool holds = true;
            int64_t off = 0, t = dev;
            for (int k = r->mesh.n - 1; k >= 0; k--) {
                mc[k] = t % r->mesh.size[k];
                t /= r->mesh.size[k];
            }
            for (int d = 0; d < r->n; d++) {
                int64_t b = 0;
                for (int j = 0; j < r->naxes[d]; j++)
                    b = b * r->mesh.size[r->axis[d][j]] + mc[r->axis[d][j]];
                holds &= crd[d] / local[d] == b;
                off = off * local[d] + crd[d] % local[d];
            }
            if (holds) {
                pl->pair[pl->total][0] = dev;
                pl->pair[pl->total][1] = off;
                pl->total++;
                pl->cnt[x]++;
            }
        }
    }
}

static bool same_placement(const placement *a, const placement *b, int64_t size)
{
    if (a->total != b->total)
        return false;
    for (int64_t x = 0; x < size; x++)
        if (a->cnt[x] != b->cnt[x])
            return false;
    return memcmp(a->pair, b->pair, (size_t)a->total * sizeof a->pair[0]) == 0;
}

/* The spec without its size-1 mesh axes, as from_layout writes it. */
static void expected_spec(const rspec *r, axe_sharding *s)
{
    memset(s, 0, sizeof *s);
    s->ndims = r->n;
    for (int d = 0; d < r->n; d++)
        for (int j = 0; j < r->naxes[d]; j++)
            if (r->mesh.size[r->axis[d][j]] > 1)
                s->axis[d][s->naxes[d]++] = (int8_t)r->axis[d][j];
    for (int k = 0; k < r->mesh.n; k++)
        if ((r->partial & (1u << k)) && r->mesh.size[k] > 1)
            s->partial |= 1u << k;
    if (s->partial != 0)
        strcpy(s->op, "sum");
}

static bool same_spec(const axe_sharding *a, const axe_sharding *b)
{
    if (a->ndims != b->ndims || a->partial != b->partial ||
        (a->partial != 0 && strcmp(a->op, b->op) != 0))
        return false;
    for (int d = 0; d < a->ndims; d++) {
        if (a->naxes[d] != b->naxes[d])
            return false;
        for (int j = 0; j < a->naxes[d]; j++)
            if (a->axis[d][j] != b->axis[d][j])
                return false;
    }
    return true;
}

/* Law 2 for one layout "l" (or its canonical form): from_layout gives
 * back the spec, and its printed text parses to it again. */
static void check_back(axe_sharding_format f, const rspec *r,
                       const axe_layout *l, const char *spec)
{
    axe_sharding want, got, again;
    uint32_t partial;
    char text[256];
    axe_diag d;
    axe_status st;
    expected_spec(r, &want);
    partial = want.partial;
    st = axe_sharding_from_layout(f, l, &r->mesh, r->shape, r->n, partial,
                                  partial ? "sum" : NULL, &got, &d);
    TL_CHECK(st == AXE_OK && same_spec(&got, &want),
             "%s %s: from_layout(%s) %s %s", fmt_name[f], spec, layout_str(l),
             axe_status_name(st),
             st == AXE_OK ? "gives another spec" : d.message);
    if (st != AXE_OK)
        return;
    axe_print_sharding(f, &got, &r->mesh, text, sizeof text);
    st = axe_parse_sharding(f, text, strlen(text), &r->mesh, r->n, &again, &d);
    TL_CHECK(st == AXE_OK && same_spec(&again, &want),
             "%s: printed %s does not parse back (%s)", fmt_name[f], text,
             d.message);
}

/* Laws 1 and 2 on random specs of every format. */
static void test_random_specs(void)
{
    static placement got, want;
    char mesh[128], spec[256];
    for (int it = 0; it < 1500; it++) {
        axe_sharding_format f = (axe_sharding_format)(it % FMTS);
        rspec r = random_spec(f);
        axe_sharding s;
        axe_layout l, c;
        axe_diag d;
        axe_status st;
        put_mesh(&r, f != AXE_SHARDING_JAX && tl_range(0, 1), mesh,
                 sizeof mesh);
        if (f == AXE_SHARDING_JAX)
            put_jax(&r, spec, sizeof spec);
        else if (f == AXE_SHARDING_DTENSOR)
            put_dtensor(&r, spec, sizeof spec);
        else
            put_alpa(&r, spec, sizeof spec);
        r.mesh = mesh_of(mesh);
        st = axe_parse_sharding(f, spec, strlen(spec), &r.mesh, r.n, &s, &d);
        if (st == AXE_OK)
            st = axe_sharding_to_layout(&s, &r.mesh, r.shape, r.n, &l, &d);
        TL_CHECK(st == AXE_OK, "%s %s over %s: %s", fmt_name[f], spec, mesh,
                 d.message);
        if (st != AXE_OK)
            continue;
        oracle_placement(&r, &want);
        TL_CHECK(layout_placement(&l, r.shape, r.n, &got) &&
                     same_placement(&got, &want, shape_size(r.shape, r.n)),
                 "%s %s over %s: layout %s places elements otherwise",
                 fmt_name[f], spec, mesh, layout_str(&l));
        check_back(f, &r, &l, spec);
        st = axe_layout_canonicalize(&l, AXE_TARGET_NONE, &c, &d);
        if (st == AXE_OK)
            check_back(f, &r, &c, spec);
    }
}

/* ---- law 3: completeness on perturbed layouts --------------------------- */

/* Every spec over "mesh" (each non-trivial axis a replica or on a dim,
 * in any order within the dim): does one place elements as "target"? */
static bool some_spec_places(rspec *r, const placement *target, int k,
                             axe_sharding_format f)
{
    static placement pl;
    if (k == r->mesh.n) {
        axe_sharding s;
        axe_layout l;
        axe_diag d;
        memset(&s, 0, sizeof s);
        s.ndims = r->n;
        for (int dd = 0; dd < r->n; dd++)
            for (int j = 0; j < r->naxes[dd]; j++)
                s.axis[dd][s.naxes[dd]++] = (int8_t)r->axis[dd][j];
        if (axe_sharding_to_layout(&s, &r->mesh, r->shape, r->n, &l, &d) !=
            AXE_OK)
            return false;
        return layout_placement(&l, r->shape, r->n, &pl) &&
               same_placement(&pl, target, shape_size(r->shape, r->n));
    }
    if (some_spec_places(r, target, k + 1, f))
        return true;
    if (r->mesh.size[k] == 1)
        return false;
    for (int d = 0; d < r->n; d++)
        for (int pos = 0; pos <= r->naxes[d]; pos++) {
            bool ok;
            if (f == AXE_SHARDING_DTENSOR && pos != r->naxes[d])
                continue;
            memmove(&r->axis[d][pos + 1], &r->axis[d][pos],
                    (size_t)(r->naxes[d] - pos) * sizeof(int));
            r->axis[d][pos] = k;
            r->naxes[d]++;
            ok = some_spec_places(r, target, k + 1, f);
            r->naxes[d]--;
            memmove(&r->axis[d][pos], &r->axis[d][pos + 1],
                    (size_t)(r->naxes[d] - pos) * sizeof(int));
            if (ok)
                return true;
        }
    return false;
}

/* Split, swap or move one iter of "l" at random. */
static void perturb(axe_layout *l)
{
    int kind = (int)tl_range(0, 3), i;
    axe_iter t;
    if (l->nshard == 0)
        return;
    i = (int)tl_range(0, l->nshard - 1);
    if (kind == 0 && i + 1 < l->nshard) {
        t = l->shard[i];
        l->shard[i] = l->shard[i + 1];
        l->shard[i + 1] = t;
    } else if (kind == 1 && l->shard[i].extent % 2 == 0 &&
               l->nshard < AXE_LAYOUT_MAX_SHARD) {
        memmove(&l->shard[i + 1], &l->shard[i],
                (size_t)(l->nshard - i) * sizeof(axe_iter));
        l->shard[i].extent = 2;
        l->shard[i].stride *= l->shard[i + 1].extent / 2;
        l->shard[i + 1].extent /= 2;
        l->nshard++;
    } else if (kind == 2 && l->nreplica > 0) {
        l->shard[i].stride = l->replica[0].stride;
        memcpy(l->shard[i].axis, l->replica[0].axis, AXE_AXIS_NAME_MAX);
    } else if (kind == 3 && l->nreplica > 0 && tl_range(0, 1)) {
        t = l->shard[i];
        l->shard[i].stride = l->replica[0].stride;
        memcpy(l->shard[i].axis, l->replica[0].axis, AXE_AXIS_NAME_MAX);
        l->replica[0].stride = t.stride;
        memcpy(l->replica[0].axis, t.axis, AXE_AXIS_NAME_MAX);
    }
}

/* from_layout succeeds on a perturbed layout exactly when some spec has
 * its placement, and then its spec's layout has that placement. */
static void test_complete(void)
{
    static placement target, pl;
    int ok_count = 0, refused = 0;
    for (int it = 0; it < 600; it++) {
        axe_sharding_format f = (axe_sharding_format)(it % FMTS);
        rspec r = random_spec(f), empty;
        axe_sharding s, spec2;
        axe_layout l, l2;
        axe_diag d;
        bool exists, got;
        if (shape_size(r.shape, r.n) > 512)
            continue;
        r.partial = 0;
        memset(&s, 0, sizeof s);
        s.ndims = r.n;
        for (int dd = 0; dd < r.n; dd++)
            for (int j = 0; j < r.naxes[dd]; j++)
                s.axis[dd][s.naxes[dd]++] = (int8_t)r.axis[dd][j];
        if (axe_sharding_to_layout(&s, &r.mesh, r.shape, r.n, &l, &d) != AXE_OK)
            continue;
        perturb(&l);
        if (!layout_placement(&l, r.shape, r.n, &target))
            continue;
        empty = r;
        memset(empty.naxes, 0, sizeof empty.naxes);
        exists = some_spec_places(&empty, &target, 0, f);
        got = axe_sharding_from_layout(f, &l, &r.mesh, r.shape, r.n, 0, NULL,
                                       &spec2, &d) == AXE_OK;
        TL_CHECK(got == exists,
                 "%s: from_layout(%s) over %lld-dim shape %s "
                 "but a spec %s (%s)",
                 fmt_name[f], layout_str(&l), (long long)r.n,
                 got ? "succeeds" : "refuses",
                 exists ? "exists" : "does not exist", d.message);
        if (got && axe_sharding_to_layout(&spec2, &r.mesh, r.shape, r.n, &l2,
                                          &d) == AXE_OK) {
            TL_CHECK(layout_placement(&l2, r.shape, r.n, &pl) &&
                         same_placement(&pl, &target, shape_size(r.shape, r.n)),
                     "%s: from_layout(%s) gives a spec placing otherwise",
                     fmt_name[f], layout_str(&l));
        }
        ok_count += got;
        refused += !got;
    }
    printf("completeness: %d converted, %d refused\n", ok_count, refused);
    TL_CHECK(ok_count > 50 && refused > 50, "too few cases of a kind");
}

/* ---- law 4: garbage ------------------------------------------------------ */

/* Mutations of valid texts and random bytes: every parser answers with a
 * status (a reason for a failure), never crashes or reads out of bounds
 * (the asan preset checks the latter). */
static void test_garbage(void)
{
    static const char *const seeds[] = {
        "P(('x','y'), None)",
        "[Shard(dim=0), Partial(reduce_op='max')]",
        "S01R",
        "x=2,y=4",
        "{'x': 2, 'y': 4}",
        "PartitionSpec(None, 'y',)"};
    static const char alphabet[] = "PS01R()[]{},'\"=:._ xyNone-9dimShard";
    axe_mesh m = mesh_of("x=2,y=4"), pm;
    for (int it = 0; it < 20000; it++) {
        char buf[64];
        size_t len;
        axe_sharding s;
        axe_diag d;
        axe_status st;
        snprintf(buf, sizeof buf, "%s", seeds[it % 6]);
        len = strlen(buf);
        for (int k = (int)tl_range(1, 4); k > 0; k--) {
            size_t at = (size_t)tl_range(0, (int64_t)len);
            int op = (int)tl_range(0, 2);
            char ch = alphabet[tl_range(0, sizeof alphabet - 2)];
            if (op == 0 && at < len)
                memmove(buf + at, buf + at + 1, len - at);
            else if (op == 1 && len + 1 < sizeof buf) {
                memmove(buf + at + 1, buf + at, len - at + 1);
                buf[at] = ch;
            } else if (at < len) {
                buf[at] = ch;
            }
            len = strlen(buf);
        }
        len = (size_t)tl_range(0, (int64_t)len);
        axe_diag_clear(&d);
        st = axe_parse_sharding((axe_sharding_format)(it % FMTS), buf, len, &m,
                                2, &s, &d);
        TL_CHECK(st == AXE_OK || d.message[0] != '\0', "no reason for %.*s",
                 (int)len, buf);
        axe_diag_clear(&d);
        st = axe_parse_mesh(buf, len, &pm, &d);
        TL_CHECK(st == AXE_OK || d.message[0] != '\0',
                 "no mesh reason for %.*s", (int)len, buf);
    }
}

/* Meshes: forms, printing, refusals. */
static void test_mesh(void)
{
    static const char *const good[][2] = {{"x=2,y=4", "x=2,y=4"},
                                          {" x = 2 , y = 4 ", "x=2,y=4"},
                                          {"{'x': 2, 'y': 4}", "x=2,y=4"},
                                          {"[2,4]", "0=2,1=4"},
                                          {"8", "0=8"},
                                          {"{}", ""}};
    static const char *const bad[][2] = {
        {"x=2,x=4", "named twice"},
        {"x=0", "size < 1"},
        {"x=2,4", "name every mesh axis"},
        {"", "expected a name"},
        {"x=2,y=4,z=2,a=2,b=2,c=2,d=2,e=2,f=2", "at most 8 axes"},
        {"x=4294967296,y=4294967296", "overflows"},
        {"x=99999999999999999999", "overflows"}};
    char out[64];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        axe_mesh m;
        axe_diag d;
        axe_status st = axe_parse_mesh(good[i][0], strlen(good[i][0]), &m, &d);
        if (st == AXE_OK)
            axe_print_mesh(&m, out, sizeof out);
        TL_CHECK(st == AXE_OK && strcmp(out, good[i][1]) == 0, "mesh %s: %s",
                 good[i][0], st == AXE_OK ? out : d.message);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        axe_mesh m;
        axe_diag d;
        axe_diag_clear(&d);
        axe_status st = axe_parse_mesh(bad[i][0], strlen(bad[i][0]), &m, &d);
        TL_CHECK(st != AXE_OK && strstr(d.message, bad[i][1]) != NULL,
                 "mesh %s: want \"%s\", got %s", bad[i][0], bad[i][1],
                 d.message);
    }
}

int main(void)
{
    tl_seed("test_sharding", 20261129);
    test_rows();
    test_backs();
    test_partial();
    test_mesh();
    test_random_specs();
    test_complete();
    test_garbage();
    return tl_finish();
}
