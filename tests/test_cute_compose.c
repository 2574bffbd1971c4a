/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of coalesce, filter and composition (src/cute/cute_coalesce.c,
 * src/cute/cute_compose.c): tables of every shared-vector case of these
 * ops and of the CuTe paper's worked examples, rows that must fail with a
 * named reason, and laws on seeded random layouts checked by brute-force
 * evaluation. Composition is checked against its defining equation
 * R(i) = a(b(i)) for i < size(b) with R compatible with b, and against an
 * exhaustive existence oracle: whenever some layout satisfies the
 * equation, axe_cute_compose must return one. a is evaluated as axe's
 * convention says: indices past size(a) continue along a's last mode and
 * a(-x) = -a(x). Invariant: every failing row prints itself; the last
 * line is "N passed, M failed".
 */
#include "testlib.h"

#define MAXB 4096

/* ---- evaluation helpers ---------------------------------------------- */

/* p + sign * q for points (components sorted by code). */
static axe_cute_point pt_add(const axe_cute_point *p, const axe_cute_point *q,
                             int sign)
{
    axe_cute_point r;
    int i = 0, j = 0;
    r.n = 0;
    while (i < p->n || j < q->n) {
        uint32_t code;
        int64_t v = 0;
        if (j >= q->n || (i < p->n && p->basis[i] < q->basis[j]))
            code = p->basis[i];
        else
            code = q->basis[j];
        if (i < p->n && p->basis[i] == code)
            v += p->v[i++];
        if (j < q->n && q->basis[j] == code)
            v += sign * q->v[j++];
        if (v != 0) {
            r.basis[r.n] = code;
            r.v[r.n++] = v;
        }
    }
    return r;
}

/* l(x) with the convention: past size along the last mode, odd in x. */
static int fn_at(const axe_cute_layout *l, int64_t x, axe_cute_point *out)
{
    axe_cute_point zero = {0};
    if (axe_cute_eval_point(l, x < 0 ? -x : x, out) != AXE_OK)
        return 0;
    if (x < 0)
        *out = pt_add(&zero, out, -1);
    return 1;
}

/* The mode of "a" that basis "code" selects (a scalar's mode 0 is it). */
static int basis_mode(const axe_cute_layout *a, uint32_t code,
                      axe_cute_layout *out)
{
    axe_cute_layout m = *a;
    for (int l = 0; l < AXE_CUTE_BASIS_DEPTH(code); l++) {
        int k = AXE_CUTE_BASIS_MODE(code, l);
        if (axe_tuple_is_scalar(&m.shape)) {
            if (k != 0)
                return 0;
        } else if (axe_cute_get(&m, k, &m) != AXE_OK) {
            return 0;
        }
    }
    *out = m;
    return 1;
}

/* a(y) for a value y of b: an integer indexes all of a, a scaled-basis
 * component v@k indexes mode k of a. */
static int a_of(const axe_cute_layout *a, const axe_cute_point *y,
                axe_cute_point *out)
{
    axe_cute_point acc = {0}, t;
    for (int i = 0; i < y->n; i++) {
        axe_cute_layout m;
        if (!basis_mode(a, y->basis[i], &m) || !fn_at(&m, y->v[i], &t))
            return 0;
        acc = pt_add(&acc, &t, 1);
    }
    *out = acc;
    return 1;
}

static int64_t size_of(const axe_cute_layout *l)
{
    int64_t s;
    return axe_cute_size(l, &s) == AXE_OK ? s : -1;
}

/* l(x) for integer layouts with the same convention as fn_at. */
static int int_fn_at(const axe_cute_layout *l, int64_t x, int64_t *out)
{
    if (axe_cute_eval(l, x < 0 ? -x : x, out) != AXE_OK)
        return 0;
    *out = x < 0 ? -*out : *out;
    return 1;
}

/* An odometer over the colex coordinates of an integer layout, the last
 * leaf unbounded, carrying the value l(i) (test strides are small). */
typedef struct odo {
    const axe_cute_layout *l;
    int64_t c[AXE_CUTE_MAX_LEAVES];
    int64_t v;
} odo;

static void odo_init(odo *o, const axe_cute_layout *l)
{
    o->l = l;
    o->v = 0;
    memset(o->c, 0, sizeof o->c);
}

static void odo_next(odo *o)
{
    int n = o->l->shape.nleaf;
    for (int k = 0; k < n; k++) {
        o->v += o->l->stride[k];
        if (++o->c[k] < o->l->shape.v[k] || k + 1 == n)
            return;
        o->v -= o->c[k] * o->l->stride[k];
        o->c[k] = 0;
    }
}

/* composes() for integer strides everywhere (no points). */
static int composes_int(const axe_cute_layout *a, const axe_cute_layout *b,
                        const axe_cute_layout *r, int64_t n)
{
    odo ob, orr;
    odo_init(&ob, b);
    odo_init(&orr, r);
    for (int64_t i = 0; i < n; i++) {
        int64_t want;
        if (!int_fn_at(a, ob.v, &want) || want != orr.v)
            return 0;
        odo_next(&ob);
        odo_next(&orr);
    }
    return 1;
}

/* R(i) == a(b(i)) for all i < size(b), and R's shape compatible with b. */
static int composes(const axe_cute_layout *a, const axe_cute_layout *b,
                    const axe_cute_layout *r)
{
    int64_t n = size_of(b);
    if (n < 0 || !axe_tuple_is_compatible(&b->shape, &r->shape))
        return 0;
    if (!axe_cute_has_basis(a) && !axe_cute_has_basis(b) &&
        !axe_cute_has_basis(r))
        return composes_int(a, b, r, n);
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point y, want, got;
        if (axe_cute_eval_point(b, i, &y) != AXE_OK || !a_of(a, &y, &want) ||
            axe_cute_eval_point(r, i, &got) != AXE_OK ||
            !axe_cute_point_equal(&want, &got))
            return 0;
    }
    return 1;
}

/* Same function on [0, n). */
static int same_fn(const axe_cute_layout *x, const axe_cute_layout *y,
                   int64_t n)
{
    if (!axe_cute_has_basis(x) && !axe_cute_has_basis(y)) {
        odo ox, oy;
        odo_init(&ox, x);
        odo_init(&oy, y);
        for (int64_t i = 0; i < n; i++, odo_next(&ox), odo_next(&oy))
            if (ox.v != oy.v)
                return 0;
        return 1;
    }
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point p, q;
        if (axe_cute_eval_point(x, i, &p) != AXE_OK ||
            axe_cute_eval_point(y, i, &q) != AXE_OK ||
            !axe_cute_point_equal(&p, &q))
            return 0;
    }
    return 1;
}

/* ---- the vectors' comparison rules ------------------------------------ */

/* The profile of the subtree at *tok, size-1 leaves inside tuples dropped
 * and rank-1 tuples unwrapped, printed into "out"; returns its length. */
static int norm_rec(const axe_tuple *t, int *tok, int *leaf, int top, char *out)
{
    char kids[16][256];
    int nk = 0, n = 0;
    if (t->tok[*tok] == 'x') {
        int64_t v = t->v[(*leaf)++];
        (*tok)++;
        if (v == 1 && !top)
            return 0;
        return snprintf(out, 256, "%" PRId64, v);
    }
    for ((*tok)++; t->tok[*tok] != ')';) {
        int len = norm_rec(t, tok, leaf, 0, nk < 16 ? kids[nk] : kids[15]);
        if (len > 0 && nk < 16)
            nk++;
    }
    (*tok)++;
    if (nk == 0)
        return top ? snprintf(out, 256, "1") : 0;
    if (nk == 1)
        return snprintf(out, 256, "%s", kids[0]);
    n += snprintf(out + n, (size_t)(256 - n), "(");
    for (int i = 0; i < nk && n < 250; i++)
        n +=
            snprintf(out + n, (size_t)(256 - n), "%s%s", i ? "," : "", kids[i]);
    n += snprintf(out + n, (size_t)(256 - n), ")");
    return n;
}

static void norm_profile(const axe_tuple *t, char *out)
{
    int tok = 0, leaf = 0;
    norm_rec(t, &tok, &leaf, 1, out);
}

typedef enum cmp { CMP_LAYOUT, CMP_FUNCTION, CMP_PREFIX } cmp;

/* "got" matches "want" under rule "c" (vectors/README.md). */
static int matches(const axe_cute_layout *got, const axe_cute_layout *want,
                   cmp c)
{
    int64_t n = size_of(want);
    char pg[256], pw[256];
    if (c != CMP_PREFIX && size_of(got) != n)
        return 0;
    if (c == CMP_LAYOUT) {
        norm_profile(&got->shape, pg);
        norm_profile(&want->shape, pw);
        if (strcmp(pg, pw) != 0)
            return 0;
    }
    return same_fn(got, want, n);
}

/* ---- table: composition ----------------------------------------------- */

typedef struct compose_row {
    const char *a, *b, *expect; /* expect NULL: must be rejected */
} compose_row;

/* Every cute.composition case of vectors/cute.jsonl (cmp layout). */
static const compose_row vector_rows[] = {
    {"(2,2):(2,1)", "(2,2):(2,1)", "(2,2):(1,2)"},
    {"(4,3):(3,1)", "(12):(1)", "((4,3)):((3,1))"},
    {"((4,2)):((1,16))", "(4,2):(2,1)", "((2,2),2):((2,16),1)"},
    {"(12):(1)", "(4,3):(3,1)", "(4,3):(3,1)"},
    {"(4):(1)", "(4):(0)", "(4):(0)"},
    {"(4):(1)", "(1):(0)", "(1):(0)"},
    {"(4):(1)", "(2):(1)", "(2):(1)"},
    {"(4,3,1):(3,1,0)", "(4):(1)", "(4):(3)"},
    {"(4):(2)", "(2):(1)", "(2):(2)"},
    {"(4,8,2):(1,4,32)", "(2,2,2):(2,8,1)", "(2,2,2):(2,8,1)"},
    {"1:0", "1:1", "1:0"},
    {"(8,8):(8,1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))",
     "((2,2,2),(2,2,2)):((8,2,32),(1,16,4))"},
    {"(4,3):(3,1)", "(6):(2)", "((2,3)):((6,1))"},
    {"(4,6,8):(1,4,7)", "6:1", "6:1"},
    {"(4,3):(1,4)", "(4,3):(3,1)", "(4,3):(3,1)"},
    {"(4):(1)", "(4):(-2)", "(4):(-2)"},
    {"(4,3):(3,1)", "(24):(1)", "((4,6)):((3,1))"},
    {"(12):(2)", "(4,3):(3,1)", "(4,3):(6,2)"},
    {"(1,(2,4)):(0,(-1,512))", "4:-1", "(2,2):(1,-512)"},
    {"(4,3):(1,4)", "(4,3):(1,4)", "(4,3):(1,4)"},
    {"(4):(2)", "(4):(1)", "(4):(2)"},
    {"(4,4):(-1,1)", "(2,4,2):(1,4,2)", "(2,4,2):(-1,1,-2)"},
    {"1:1", "1:1", "1:1"},
    {"(128,24,5):(1,128,3072)", "480:32", "480:32"},
    {"(4):(1)", "(4):(1)", "(4):(1)"},
    {"(4):(0)", "(4):(1)", "(4):(0)"},
    {"(4):(1)", "(4):(-1)", "(4):(-1)"},
    {"(4):(-1)", "(4):(-1)", "(4):(1)"},
    {"(4,3):(1,4)", "(6,2):(2,1)", "(6,2):(2,1)"},
    {"(1):(0)", "(4):(1)", "(4):(0)"},
    {"(4,4):(-1,1)", "(2,4,2):(1,2,8)", "(2,(2,2),2):(-1,(-2,1),2)"},
    {"(8,8):(1,8)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))",
     "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"},
    {"1:1", "1:0", "1:0"},
    {"(4,3):(1,4)", "(6):(2)", "(6):(2)"},
    {"(4):(1)", "(2):(2)", "(2):(2)"},
    {"(8,8):(8,1)", "3:3", "3:24"},
    {"(12):(1)", "(4,3):(1,4)", "(4,3):(1,4)"},
    {"(4):(2)", "(2):(2)", "(2):(4)"},
    {"1:0", "1:0", "1:0"},
    {"3:1", "4:1", "4:1"},
    {"(12,3):(1,24)", "(4):(1)", "(4):(1)"},
    {"(4,8,2):(2,8,1)", "(2,2,2):(1,8,2)", "(2,2,2):(2,16,4)"},
    {"(12):(1)", "(2,3):(2,4)", "(2,3):(2,4)"},
    {"(1):(1)", "(4):(1)", "(4):(1)"},
    {"(4,3):(3,1)", "(8):(1)", "((4,2)):((3,1))"},
    {"(4,2):(1,16)", "(4,2):(2,1)", "((2,2),2):((2,16),1)"},
    {"12:1", "(2,3):(2,4)", "(2,3):(2,4)"},
    {"(5,4):(1,10)", "3:1", "3:1"},
    {"(4,3):(1,4)", "6:1", "6:1"},
    {"((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", "8:4", "(4,2):(4,2)"},
    {"64:4096", "1:1", "1:4096"},
    {"(4,8):(2,1)", "(2,5):(1,5)", NULL},
    {"12:1", "(4,3):(1,4)", "(4,3):(1,4)"},
    {"(4,8):(1,4)", "(2,3):(1@0,1@1)", "(2,3):(1,4)"},
    {"1:0", "4:1", "4:0"},
    {"(4,8):(1,4)", "((2,3),(4)):((1,2),(8))", "((2,3),(4)):((1,2),(8))"},
    {"(4,5):(1,4) o 2 o (2,3):(1,2)", "(2,3):(1,2)",
     "(4,5):(1,4) o 2 o (2,3):(1,2)"},
    {"(4,3):(1,4)", "12:1", "12:1"},
    {"4:2", "2:1", "2:2"},
    {"4:2", "4:1", "4:2"},
    {"(4,5):(1,4) o 2 o (4,5):(1,4)", "(2,2)", "(4,5):(1,4) o 2 o (2,2):(1,4)"},
    {"(4,3):(1,4)", "6:2", "6:2"},
    {"4:1", "1:0", "1:0"},
    {"4:1", "2:2", "2:2"},
    {"(4,4):(4,1)", "(4,4):(1@1,1@0)", "(4,4):(1,4)"},
    {"12:1", "(4,3):(3,1)", "(4,3):(3,1)"},
    {"(20):(2)", "(5,4)", NULL},
    {"(4,8):(1,4)", "(2,4):(1,2)", "(2,4):(1,2)"},
    {"(4,8):(2,1)", "33:5", NULL},
    {"(20):(2)", "[(5,4):(4,1)]", "((5,4)):((8,2))"},
    {"(4,3,1):(3,1,0)", "4:1", "4:3"},
    {"12:2", "(4,3):(3,1)", "(4,3):(6,2)"},
    {"4:1", "4:2", "4:2"},
    {"(4,5):(1,4) o 2 o (4,5):(1,4)", "[(2,2):(1,2)]",
     "(4,5):(1,4) o 2 o ((2,2)):((1,2))"},
    {"(4,5):(1,4) o 2 o (2,3):(1,2)", "[(2,3):(1,2)]",
     "(4,5):(1,4) o 2 o ((2,3)):((1,2))"},
    {"4:1", "2:1", "2:1"},
    {"12:2", "(4,3):(1,4)", "(4,3):(2,8)"},
    {"(4,6,8,10):(2,3,5,7)", "6:12", "(2,3):(9,5)"},
    {"(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"},
    {"(12,(4,8)):(59,(13,1))", "<3:4, 8:2>", "(3,(2,4)):(236,(26,1))"},
    {"(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"},
    {"(4,2,8):(3,12,97)", "3:3", "3:9"},
    {"(8,8):(8,1)", "((4,8),2):((16,1),8)", "((4,8),2):((2,8),1)"},
    {"(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>", "(3,(2,4)):(177,(13,2))"},
    {"(4,8):(1,4)", "(2,4)", "(2,4):(1,4)"},
    {"(12,(4,8)):(59,(13,1))", "(3,8)", "(3,(4,2)):(59,(13,1))"},
    {"20:2", "(5,4):(4,1)", "(5,4):(8,2)"},
};

/* The CuTe paper's and docs' worked examples, CuTe's and pycute's known
 * misses, and compositions only an exact search finds. */
static const compose_row extra_rows[] = {
    {"(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"},
    {"20:2", "(5,4):(4,1)", "(5,4):(8,2)"},
    {"(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"},
    {"(4,2,8):(3,12,97)", "3:3", "3:9"},
    /* the range stays inside one mode of a although 3 does not divide 4 */
    {"(4,8):(1,4)", "2:3", "2:3"},
    /* floor(4i/11) == floor(i/3) for i < 11: a pattern CuTe rejects */
    {"(11,2):(1,100)", "9:4", "(3,3):(4,101)"},
    {"(11,2):(1,100)", "6:4", "(3,2):(4,101)"},
    /* a stride-0 mode of a makes a(3i) = floor(3i/2) a layout */
    {"(2,8):(0,1)", "4:3", "(2,2):(1,3)"},
    /* b's size beyond a's: a's last mode continues */
    {"(4,3):(3,1)", "24:1", "(4,6):(3,1)"},
    {"(2,2):(1,10)", "(2,3):(1,2)", "(2,3):(1,10)"},
    /* CUTLASS #3177-like: per-leaf fine, but a does not add over b */
    {"(4,8):(1,10)", "(2,2):(3,1)", NULL},
    {"(4,8):(2,1)", "(2,2):(3,1)", NULL},
    /* scaled bases in a and in b */
    {"(4,8):(1@0,1@1)", "8:1", "(4,2):(1@0,1@1)"},
    {"(4,8):(1@0,1@1)", "2:3", "2:3@0"},
    {"(4,8):(1@0,1@1)", "2:5", NULL},
    {"((2,4),8):((1,2),16)", "(2,2):(1@1@0,4@1)", "(2,2):(2,64)"},
    {"(4,8):(1,4)", "(2,3):(1,1@1)", NULL},
    /* pairs and the whole group add: the values stay inside a's mode 0,
     * or carry only by multiples of a boundary */
    {"(4,8):(1,10)", "(2,2,2):(1,1,1)", "(2,2,2):(1,1,1)"},
    {"(2,8):(-4,3)", "(1000,15):(-2,2)", "(1000,15):(-3,3)"},
    /* two boundaries of a jump by opposite amounts at the same steps */
    {"(2,3,5):(0,1,2)", "5:9", "5:3"},
    /* floor(48i/7) - floor(12i/7) - floor(2i/7) cancels to floor(i/7) */
    {"(7,4,6,2):(0,-1,-3,-17)", "14:48", "(7,2):(-5,-34)"},
    {"(7,4,6,2):(0,-1,-3,-17)", "(7,3):(48,336)", "(7,3):(-5,-34)"},
    /* nested tilers recurse by mode */
    {"(12,(4,8)):(59,(13,1))", "<3:4, <2:1, 4:2>>", "(3,(2,4)):(236,(13,2))"},
    {"(12,(4,8)):(59,(13,1))", "<_, [_;4:2]>", "(12,(4,4)):(59,(13,2))"},
    /* empty tuples */
    {"():()", "4:1", "4:0"},
    {"(4,8):(1,4)", "():()", "():()"},
};

/* The reason the diag must name for rejected compositions. */
typedef struct reason_row {
    const char *a, *b, *reason;
    axe_status status;
} reason_row;

static const reason_row reason_rows[] = {
    {"(4,8):(2,1)", "(2,5):(1,5)", "shape divisibility",
     AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(2,1)", "33:5", "does not divide 33", AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(1,10)", "3:3", "stride divisibility", AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(1,10)", "(2,2):(3,1)", "not independent", AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(1,10)", "(2,2,2):(1,1,2)", "parts carry", AXE_ERR_NOT_COMPOSABLE},
    {"(2,8):(1,10)", "(2,2):(1,-2)", "a(1 + -2)", AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(1@0,1@1)", "2:5", "scaled bases", AXE_ERR_NOT_COMPOSABLE},
    {"(4,8):(1,4)", "(2,3):(1,1@1)", "mixes", AXE_ERR_UNSUPPORTED},
    {"(4,8):(1,4)", "2:1@2", "no such mode", AXE_ERR_INCOMPATIBLE},
    {"4611686018427387904:2", "4:4611686018427387904", "64 bits",
     AXE_ERR_OVERFLOW},
    {"(4,(2,4)):(1,(4,8))", "(2,2):(1@1,1@0@1)", "nested", AXE_ERR_UNSUPPORTED},
    {"(4,8):(1,4)", "<2:1, 2:1, 2:1>", "more modes", AXE_ERR_INCOMPATIBLE},
};

/* Parse "b" as the operand of a composition: a layout, a tiler or a
 * shape (the by-mode tiler <s0:1, ...>). */
static axe_status compose_text(const axe_cute_layout *a, const char *b,
                               axe_cute_layout *out, axe_diag *d)
{
    static axe_cute_object ob;
    static axe_cute_tiler t;
    if (axe_parse_cute(b, strlen(b), &ob, NULL) != AXE_OK) {
        fprintf(stderr, "bad operand in test table: %s\n", b);
        exit(2);
    }
    if (ob.kind == AXE_CUTE_KIND_LAYOUT)
        return axe_cute_compose(a, &ob.layout, out, d);
    if (ob.kind == AXE_CUTE_KIND_TILER)
        return axe_cute_compose_tiler(a, &ob.tiler, out, d);
    if (axe_cute_tiler_from_shape(&ob.tuple, &t) != AXE_OK)
        return AXE_ERR_INVALID;
    return axe_cute_compose_tiler(a, &t, out, d);
}

/* The layout a text denotes, or the inner layout of a composed one. */
static axe_cute_layout inner_of(const char *s)
{
    static axe_cute_object o;
    if (axe_parse_cute(s, strlen(s), &o, NULL) != AXE_OK) {
        fprintf(stderr, "bad layout in test table: %s\n", s);
        exit(2);
    }
    return o.kind == AXE_CUTE_KIND_COMPOSED ? o.composed.inner : o.layout;
}

static void run_compose_rows(const compose_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        axe_cute_layout a = inner_of(rows[i].a), r, want;
        axe_diag d;
        axe_status st = compose_text(&a, rows[i].b, &r, &d);
        if (rows[i].expect == NULL) {
            TL_CHECK(st != AXE_OK, "%s o %s: expected an error, got %s",
                     rows[i].a, rows[i].b, tl_str(&r));
            continue;
        }
        want = inner_of(rows[i].expect);
        TL_CHECK(st == AXE_OK && matches(&r, &want, CMP_LAYOUT),
                 "%s o %s = %s, got %s (%s)", rows[i].a, rows[i].b,
                 rows[i].expect, st == AXE_OK ? tl_str(&r) : "error",
                 st == AXE_OK ? "" : d.message);
    }
}

static void run_reason_rows(void)
{
    for (size_t i = 0; i < sizeof reason_rows / sizeof *reason_rows; i++) {
        const reason_row *row = &reason_rows[i];
        axe_cute_layout a = tl_layout(row->a), r;
        axe_diag d;
        axe_status st;
        d.message[0] = 0;
        st = compose_text(&a, row->b, &r, &d);
        TL_CHECK(st == row->status && strstr(d.message, row->reason),
                 "%s o %s: want %s '%s', got %s '%s'", row->a, row->b,
                 axe_status_name(row->status), row->reason, axe_status_name(st),
                 d.message);
    }
}

/* Every result of the rows is a verified composition (b a layout). */
static void run_rows_verified(const compose_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        axe_cute_layout a = inner_of(rows[i].a), b, r;
        static axe_cute_object ob;
        if (axe_parse_cute(rows[i].b, strlen(rows[i].b), &ob, NULL) != AXE_OK ||
            ob.kind != AXE_CUTE_KIND_LAYOUT)
            continue;
        b = ob.layout;
        if (axe_cute_compose(&a, &b, &r, NULL) == AXE_OK)
            TL_CHECK(composes(&a, &b, &r), "%s o %s = %s fails R = a(b)",
                     rows[i].a, rows[i].b, tl_str(&r));
    }
}

/* ---- table: coalesce and filter --------------------------------------- */

typedef struct coalesce_row {
    const char *op, *a, *b, *expect; /* b: profile or NULL */
    cmp c;
} coalesce_row;

/* Every cute.coalesce / coalesce_x / filter case of vectors/cute.jsonl;
 * composed operands act on their inner layout. */
static const coalesce_row coalesce_rows[] = {
    {"coalesce", "(2,4):(1,2)", NULL, "8:1", CMP_FUNCTION},
    {"coalesce", "(2,1,3):(3,0,1)", NULL, "(2,3):(3,1)", CMP_FUNCTION},
    {"coalesce", "(2,1,3):(2,4,4)", NULL, "6:2", CMP_FUNCTION},
    {"coalesce", "(2,4,6):(1,2,8)", NULL, "48:1", CMP_FUNCTION},
    {"coalesce", "1:1", NULL, "1:0", CMP_FUNCTION},
    {"coalesce", "(2,1,6):(1,7,2)", NULL, "12:1", CMP_FUNCTION},
    {"coalesce", "1:1", "((1))", "(1):(1)", CMP_FUNCTION},
    {"coalesce", "(2,1,6):(1,6,2)", "(1,2)", "(2,1,6):(1,6,2)", CMP_FUNCTION},
    {"coalesce", "(1,1):(5,7)", NULL, "1:7", CMP_FUNCTION},
    {"coalesce", "1:0", "((1))", "(1):(0)", CMP_FUNCTION},
    {"coalesce", "(2,4):(1,2)", "((1))", "(2,4):(1,2)", CMP_FUNCTION},
    {"coalesce", "(2,1,6,1):(1,7,8,57)", NULL, "(2,6):(1,8)", CMP_FUNCTION},
    {"coalesce", "((2,2),(2,2)):((1,4),(8,32))", "(1,2)",
     "((2,2),(2,2)):((1,4),(8,32))", CMP_FUNCTION},
    {"coalesce", "(2,1,6,1):(1,7,8,0)", NULL, "(2,6):(1,8)", CMP_FUNCTION},
    {"coalesce", "(2,1,6,1):(4,7,8,0)", NULL, "12:4", CMP_FUNCTION},
    {"coalesce", "1:1", "(1)", "1:1", CMP_FUNCTION},
    {"coalesce", "(2,(4,6)):(1,(2,8))", NULL, "48:1", CMP_FUNCTION},
    {"coalesce", "1:1", "()", "(1):(1)", CMP_FUNCTION},
    {"coalesce", "((2,2),(2,2)):((1,4),(8,32))", "((1))",
     "((2,2),(2,2)):((1,4),(8,32))", CMP_FUNCTION},
    {"coalesce", "((2,2),(2,2)):((1,2),(16,32))", "(1)", "(4,4):(1,16)",
     CMP_FUNCTION},
    {"coalesce_x", "(2,1,6,1):(1,7,8,0)", NULL, "(2,6,1):(1,8,0)", CMP_PREFIX},
    {"coalesce_x", "(2,4,6):(1,2,8)", NULL, "48:1", CMP_PREFIX},
    {"coalesce_x", "(2,1,6,1):(1,6,2,0)", NULL, "(12,1):(1,0)", CMP_PREFIX},
    {"coalesce_x", "(2,1,6,1):(1,7,8,57)", NULL, "(2,6,1):(1,8,57)",
     CMP_PREFIX},
    {"coalesce_x", "(2,4,6):(24,6,1)", NULL, "(2,4,6):(24,6,1)", CMP_PREFIX},
    {"coalesce_x", "(1,1):(5,7)", NULL, "1:7", CMP_PREFIX},
    {"coalesce_x", "(2,(4,6)):(1,(2,8))", NULL, "48:1", CMP_PREFIX},
    {"coalesce_x", "(2,1,6):(4,7,8)", NULL, "12:4", CMP_PREFIX},
    {"coalesce_x", "1:0", NULL, "1:0", CMP_PREFIX},
    {"coalesce_x", "(2,1,6):(1,6,2)", NULL, "12:1", CMP_PREFIX},
    {"coalesce_x", "(2,1,6,1):(1,7,8,48)", NULL, "(2,6):(1,8)", CMP_PREFIX},
    {"coalesce_x", "(2,1,6,1):(4,7,8,0)", NULL, "(12,1):(4,0)", CMP_PREFIX},
    {"coalesce_x", "(2,4):(4,1)", NULL, "(2,4):(4,1)", CMP_PREFIX},
    {"coalesce_x", "(2,1,6,1):(4,7,8,57)", NULL, "(12,1):(4,57)", CMP_PREFIX},
    {"coalesce_x", "(2,4,6):(1,6,2)", NULL, "(2,4,6):(1,6,2)", CMP_PREFIX},
    {"coalesce", "(2,4):(1,2)", "1", "8:1", CMP_FUNCTION},
    {"coalesce", "(4,5):(1,4) o 2 o (4,5):(1,4)", "(1,1,1)", NULL,
     CMP_FUNCTION},
    {"coalesce", "(4,(2,3)):(1,(4,8))", "((1,1),1)", NULL, CMP_FUNCTION},
    {"coalesce", "((2,2),(2,2)):((1,4),(8,32))", "1", "(2,4,2):(1,4,32)",
     CMP_FUNCTION},
    {"coalesce", "(3,(4,5)):(8,(1,4))", "(1,1)", "(3,20):(8,1)", CMP_FUNCTION},
    {"coalesce", "1:1", "1", "1:1", CMP_FUNCTION},
    {"coalesce", "((2,2),(2,2)):((1,2),(16,32))", "1", "(4,4):(1,16)",
     CMP_FUNCTION},
    {"coalesce", "(4,5):(1,4)", NULL, "20:1", CMP_FUNCTION},
    {"coalesce", "(4,5):(1,4)", "1", "20:1", CMP_FUNCTION},
    {"coalesce", "():()", NULL, "():()", CMP_FUNCTION},
    {"coalesce", "(4,5):(1,4) o 2 o (4,5):(1,4)", NULL,
     "(4,5):(1,4) o 2 o 20:1", CMP_FUNCTION},
    {"coalesce", "(3,4):(8,1)", NULL, "(3,4):(8,1)", CMP_FUNCTION},
    {"coalesce", "(2,(1,6)):(1,(6,2))", "(1,1)", "(2,6):(1,2)", CMP_FUNCTION},
    {"coalesce", "(2,(1,6)):(1,(6,2))", NULL, "12:1", CMP_FUNCTION},
    {"filter", "(4,(2,3),1):(1,(0,8),5)", NULL, "(4,3):(1,8)", CMP_LAYOUT},
};

static axe_status run_coalesce_op(const coalesce_row *row,
                                  const axe_cute_layout *a, axe_cute_layout *r)
{
    if (strcmp(row->op, "filter") == 0)
        return axe_cute_filter(a, r);
    if (strcmp(row->op, "coalesce_x") == 0)
        return axe_cute_coalesce_extended(a, r);
    if (row->b != NULL) {
        axe_tuple p = tl_tuple(row->b);
        return axe_cute_coalesce_by(a, &p, r);
    }
    return axe_cute_coalesce(a, r);
}

static void run_coalesce_rows(void)
{
    size_t n = sizeof coalesce_rows / sizeof *coalesce_rows;
    for (size_t i = 0; i < n; i++) {
        const coalesce_row *row = &coalesce_rows[i];
        axe_cute_layout a = inner_of(row->a), r, want;
        axe_status st = run_coalesce_op(row, &a, &r);
        if (row->expect == NULL) {
            TL_CHECK(st != AXE_OK, "%s %s by %s: expected an error", row->op,
                     row->a, row->b);
            continue;
        }
        want = inner_of(row->expect);
        TL_CHECK(st == AXE_OK && matches(&r, &want, row->c),
                 "%s %s by %s = %s, got %s", row->op, row->a,
                 row->b ? row->b : "-", row->expect,
                 st == AXE_OK ? tl_str(&r) : axe_status_name(st));
    }
}

/* Exact results where the text matters (axe's own canonical forms). */
static void run_exact_rows(void)
{
    static const struct {
        const char *op, *a, *expect;
    } rows[] = {
        {"coalesce", "(2,1,6,1):(1,7,8,0)", "(2,6):(1,8)"},
        {"coalesce", "(1,1):(5,7)", "1:0"},
        {"coalesce", "((2,3),4):((0,0),0)", "24:0"},
        {"coalesce", "(2,3):(1@0,2@0)", "6:1@0"},
        {"coalesce", "(2,3):(1@0,2@1)", "(2,3):(1@0,2@1)"},
        {"coalesce_x", "(2,1,6,1):(1,7,8,0)", "(2,6,1):(1,8,0)"},
        {"coalesce_x", "(2,1,6,1):(1,7,8,48)", "(2,6):(1,8)"},
        {"coalesce_x", "(1,1):(5,7)", "1:7"},
        {"coalesce_x", "(4,1):(1,4)", "4:1"},
        {"filter", "(4,(2,3),1):(1,(0,8),5)", "(4,3):(1,8)"},
        {"filter", "(4,2):(0,0)", "1:0"},
        {"filter_zeros", "(4,(2,3),1):(1,(0,8),5)", "(4,(1,3),1):(1,(0,8),5)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        axe_cute_layout a = tl_layout(rows[i].a), r, want;
        axe_status st;
        want = tl_layout(rows[i].expect);
        if (strcmp(rows[i].op, "coalesce") == 0)
            st = axe_cute_coalesce(&a, &r);
        else if (strcmp(rows[i].op, "coalesce_x") == 0)
            st = axe_cute_coalesce_extended(&a, &r);
        else if (strcmp(rows[i].op, "filter") == 0)
            st = axe_cute_filter(&a, &r);
        else
            st = axe_cute_filter_zeros(&a, &r);
        TL_CHECK(st == AXE_OK && axe_cute_equal(&r, &want),
                 "%s %s = %s, got %s", rows[i].op, rows[i].a, rows[i].expect,
                 st == AXE_OK ? tl_str(&r) : axe_status_name(st));
    }
}

static void run_tiler_rows(void)
{
    axe_cute_tiler t;
    axe_tuple s = tl_tuple("((2,2),_,3)");
    axe_cute_layout l = tl_layout("(2,3):(1,2)"), r;
    char buf[128];
    TL_CHECK(axe_cute_tiler_from_shape(&s, &t) == AXE_OK &&
                 axe_cute_tiler_rank(&t) == 3 && t.nelem == 3 &&
                 memcmp(t.tok, "[[LL]_L]", 8) == 0 && t.ntok == 8,
             "tiler_from_shape ((2,2),_,3)");
    s = tl_tuple("8");
    TL_CHECK(axe_cute_tiler_from_shape(&s, &t) == AXE_OK &&
                 axe_cute_tiler_rank(&t) == 1 && t.ntok == 3,
             "tiler_from_shape 8");
    TL_CHECK(axe_cute_tiler_from_layout(&l, &t) == AXE_OK &&
                 axe_cute_tiler_rank(&t) == 1 && axe_cute_equal(&t.elem[0], &l),
             "tiler_from_layout");
    axe_print_cute_tiler(&t, buf, sizeof buf);
    l = tl_layout("(6,4):(1,6)");
    TL_CHECK(axe_cute_compose_tiler(&l, &t, &r, NULL) == AXE_OK &&
                 strcmp(tl_str(&r), "((2,3)):((1,2))") == 0,
             "(6,4):(1,6) o %s = ((2,3)):((1,2)), got %s", buf, tl_str(&r));
    s = tl_tuple("(0,2)");
    TL_CHECK(axe_cute_tiler_from_shape(&s, &t) == AXE_ERR_DOMAIN,
             "tiler_from_shape (0,2) rejects 0");
}

/* ---- the existence oracle --------------------------------------------- */

/* Check v[i] == layout with chain N[0..n) (N[0] = 1, N[n-1] = s) and
 * strides v[N[k]], for all i < s. */
static int chain_fits(const int64_t *v, int64_t s, const int64_t *N, int n)
{
    for (int64_t i = 0; i < s; i++) {
        int64_t x = 0, q = i;
        for (int k = 0; k + 1 < n; k++) {
            int64_t t = N[k + 1] / N[k];
            x += (q % t) * v[N[k]];
            q /= t;
        }
        if (x != v[i])
            return 0;
    }
    return 1;
}

/* True if some ordered factorization of s makes v a layout. */
static int fact_rec(const int64_t *v, int64_t s, int64_t *N, int n)
{
    int64_t last = N[n - 1], rest = s / last;
    if (last == s)
        return chain_fits(v, s, N, n);
    for (int64_t t = 2; t <= rest; t++) {
        if (rest % t != 0)
            continue;
        N[n] = last * t;
        if (fact_rec(v, s, N, n + 1))
            return 1;
    }
    return 0;
}

static int is_layout_seq(const int64_t *v, int64_t s)
{
    int64_t N[64] = {1};
    return fact_rec(v, s, N, 1);
}

static int64_t int_at(const axe_cute_layout *a, int64_t x)
{
    axe_cute_point p;
    if (!fn_at(a, x, &p) || p.n > 1 || (p.n == 1 && p.basis[0] != 0)) {
        fprintf(stderr, "oracle: a(%" PRId64 ") not an integer\n", x);
        exit(2);
    }
    return p.n == 0 ? 0 : p.v[0];
}

/* Does some layout R, compatible with b, have R(i) = a(b(i))? (integer
 * strides; small sizes). R's restriction to leaf k must be the sequence
 * a(c * d_k), and R must add over the leaves. */
static int oracle(const axe_cute_layout *a, const axe_cute_layout *b)
{
    static int64_t seq[AXE_CUTE_MAX_LEAVES][MAXB];
    int nl = b->shape.nleaf;
    int64_t n = size_of(b);
    for (int k = 0; k < nl; k++) {
        for (int64_t c = 0; c < b->shape.v[k]; c++)
            seq[k][c] = int_at(a, c * b->stride[k]);
        if (!is_layout_seq(seq[k], b->shape.v[k]))
            return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t q = i, x = 0, sum = 0;
        for (int k = 0; k < nl; k++) {
            int64_t c = q % b->shape.v[k];
            q /= b->shape.v[k];
            x += c * b->stride[k];
            sum += seq[k][c];
        }
        if (int_at(a, x) != sum)
            return 0;
    }
    return 1;
}

/* ---- random generators ------------------------------------------------ */

static int64_t random_divisor(int64_t n)
{
    int64_t d[64];
    int k = 0;
    for (int64_t i = 1; i <= n && k < 64; i++)
        if (n % i == 0)
            d[k++] = i;
    return d[tl_range(0, k - 1)];
}

/* A layout b that mostly composes with a: each leaf strides by a mode
 * boundary of a times a divisor of that mode, with an extent that divides
 * what is left of the mode (sometimes crossing into the next one, running
 * past the end of a, or arbitrary). Sizes <= MAXB. */
static axe_cute_layout structured_b(const axe_cute_layout *a)
{
    axe_cute_layout c, b;
    int64_t M[AXE_CUTE_MAX_LEAVES + 1], size = 1;
    int n, ntok = 0, nl = (int)tl_range(1, 3);
    if (axe_cute_coalesce(a, &c) != AXE_OK)
        c = tl_layout("1:0");
    n = c.shape.nleaf;
    M[0] = 1;
    for (int j = 0; j < n; j++)
        M[j + 1] = M[j] * c.shape.v[j];
    memset(&b, 0, sizeof b);
    tl_random_tree(b.shape.tok, &ntok, nl, 0, 2);
    b.shape.ntok = (uint8_t)ntok;
    b.shape.nleaf = (uint8_t)nl;
    for (int k = 0; k < nl; k++) {
        int j = (int)tl_range(0, n);
        int64_t part = j < n ? c.shape.v[j] : tl_range(1, 4);
        int64_t u = random_divisor(part), s = random_divisor(part / u), d;
        if (j + 1 < n && tl_range(0, 3) == 0 && s == part / u)
            s *= random_divisor(c.shape.v[j + 1]);
        if (tl_range(0, 7) == 0)
            s = tl_range(1, 8);
        if (s * size > (tl_range(0, 7) == 0 ? MAXB : MAXB / 4))
            s = 1;
        size *= s;
        d = M[j] * u;
        if (tl_range(0, 9) == 0)
            d = 0;
        else if (tl_range(0, 7) == 0)
            d = -d;
        else if (tl_range(0, 15) == 0)
            d += tl_range(-2, 2);
        b.shape.v[k] = s;
        b.stride[k] = d;
    }
    return b;
}

/* ---- laws ------------------------------------------------------------- */

typedef struct stats {
    long ok, rejected, other;
} stats;

/* compose a with b; a result must satisfy the definition; a rejection of
 * a small case must be confirmed by the oracle, and a small case the
 * oracle solves must not be rejected. */
static void law_compose(const axe_cute_layout *a, const axe_cute_layout *b,
                        int use_oracle, stats *st)
{
    axe_cute_layout r;
    axe_diag d;
    axe_status s = axe_cute_compose(a, b, &r, &d);
    int exists = use_oracle ? oracle(a, b) : -1;
    if (s == AXE_OK) {
        st->ok++;
        TL_CHECK(composes(a, b, &r), "%s o %s = %s is not a(b(i))", tl_str(a),
                 tl_str(b), tl_str(&r));
        TL_CHECK(exists != 0, "%s o %s: oracle finds no layout, got %s",
                 tl_str(a), tl_str(b), tl_str(&r));
        return;
    }
    if (s == AXE_ERR_NOT_COMPOSABLE)
        st->rejected++;
    else
        st->other++;
    TL_CHECK(s == AXE_ERR_NOT_COMPOSABLE || s == AXE_ERR_OVERFLOW,
             "%s o %s: status %s (%s)", tl_str(a), tl_str(b),
             axe_status_name(s), d.message);
    TL_CHECK(exists != 1, "%s o %s: a layout exists but got %s: %s", tl_str(a),
             tl_str(b), axe_status_name(s), d.message);
    TL_CHECK(d.message[0] != 0, "%s o %s: rejected without a reason", tl_str(a),
             tl_str(b));
}

static void laws_compose_structured(int n)
{
    stats st = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        axe_cute_layout a = tl_random_layout(4, 3, 4096, 16, 1);
        axe_cute_layout b;
        if (tl_range(0, 2) == 0)
            a = tl_random_injective(4, 3, 4096);
        b = structured_b(&a);
        law_compose(&a, &b, size_of(&b) <= 64 && b.shape.nleaf <= 3, &st);
    }
    printf("structured compose: %ld composed, %ld rejected, %ld other\n", st.ok,
           st.rejected, st.other);
}

/* Small arbitrary operands: every case goes through the oracle. */
static void laws_compose_oracle(int n)
{
    stats st = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        axe_cute_layout a = tl_random_layout(3, 2, 36, 9, 1);
        axe_cute_layout b = tl_random_layout(3, 2, 48, 14, 1);
        if (tl_range(0, 3) == 0)
            b = structured_b(&a);
        if (size_of(&b) > 64)
            continue;
        law_compose(&a, &b, 1, &st);
    }
    printf("oracle compose: %ld composed, %ld rejected, %ld other\n", st.ok,
           st.rejected, st.other);
}

/* b with scaled-basis strides v@k selecting mode k of a. */
static void laws_compose_basis(int n)
{
    stats st = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        axe_cute_layout a = tl_random_layout(4, 2, 4096, 12, 1), b, m;
        int rank = axe_cute_rank(&a);
        b = tl_random_layout(3, 2, 256, 1, 0);
        for (int k = 0; k < b.shape.nleaf; k++) {
            int mode = (int)tl_range(0, rank - 1);
            axe_cute_layout mb;
            if (axe_cute_get(&a, mode, &m) != AXE_OK)
                m = a;
            mb = structured_b(&m);
            b.stride[k] = mb.stride[0] == 0 ? 1 : mb.stride[0];
            b.basis[k] = AXE_CUTE_BASIS1(mode);
        }
        law_compose(&a, &b, 0, &st);
    }
    printf("basis compose: %ld composed, %ld rejected, %ld other\n", st.ok,
           st.rejected, st.other);
}

/* a with scaled-basis strides (an identity layout, maybe permuted). */
static void laws_compose_identity(int n)
{
    stats st = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        axe_cute_layout a = tl_random_layout(3, 2, 1024, 1, 0), id, b;
        if (axe_cute_make_identity(&a.shape, &id) != AXE_OK)
            continue;
        b = structured_b(&id);
        law_compose(&id, &b, 0, &st);
    }
    printf("identity compose: %ld composed, %ld rejected, %ld other\n", st.ok,
           st.rejected, st.other);
}

/* A random flat tiler for "a": per mode '_' or a structured layout. */
static void random_tiler(const axe_cute_layout *a, axe_cute_tiler *t)
{
    axe_cute_layout m;
    int tr = (int)tl_range(1, axe_cute_rank(a));
    t->ntok = 0;
    t->nelem = 0;
    t->tok[t->ntok++] = '[';
    for (int k = 0; k < tr; k++) {
        if (tl_range(0, 4) == 0) {
            t->tok[t->ntok++] = '_';
            continue;
        }
        if (axe_cute_get(a, k, &m) != AXE_OK)
            m = *a;
        t->elem[t->nelem++] = structured_b(&m);
        t->tok[t->ntok++] = 'L';
    }
    t->tok[t->ntok++] = ']';
}

/* By-mode: mode i of the result is mode i of a composed with element i;
 * modes of a past the tiler are dropped; any failing mode fails it. */
static void laws_tiler(int n)
{
    static axe_cute_tiler t;
    for (int i = 0; i < n; i++) {
        axe_cute_layout a = tl_random_layout(4, 3, 4096, 16, 1), r, m;
        axe_cute_layout want[AXE_CUTE_TILER_MAX];
        int tr, e = 0, ok = 1, match = 1;
        random_tiler(&a, &t);
        tr = axe_cute_tiler_rank(&t);
        for (int k = 0; k < tr; k++) {
            if (axe_cute_get(&a, k, &m) != AXE_OK)
                m = a;
            want[k] = m;
            if (t.tok[k + 1] == 'L' &&
                axe_cute_compose(&m, &t.elem[e++], &want[k], NULL) != AXE_OK)
                ok = 0;
        }
        if (axe_cute_compose_tiler(&a, &t, &r, NULL) != AXE_OK) {
            TL_CHECK(!ok, "tiler on %s fails though every mode composes",
                     tl_str(&a));
            continue;
        }
        for (int k = 0; k < tr; k++)
            match = match && axe_cute_get(&r, k, &m) == AXE_OK &&
                    axe_cute_equal(&m, &want[k]);
        TL_CHECK(ok && match && axe_cute_rank(&r) == tr, "tiler on %s = %s",
                 tl_str(&a), tl_str(&r));
    }
}

/* A layout with mergeable runs, size-1 leaves and zero strides. */
static axe_cute_layout mergy_layout(void)
{
    axe_cute_layout l = tl_random_layout(6, 3, 4096, 8, 1);
    for (int i = 1; i < l.shape.nleaf; i++) {
        int64_t r = tl_range(0, 5);
        if (r == 0)
            l.stride[i] = l.shape.v[i - 1] * l.stride[i - 1];
        else if (r == 1)
            l.shape.v[i] = 1;
        else if (r == 2)
            l.stride[i] = 0;
    }
    return l;
}

static int mergeable_pair(const axe_cute_layout *r, int i)
{
    return r->stride[i + 1] == r->shape.v[i] * r->stride[i] &&
           (r->stride[i + 1] == 0 || r->basis[i] == r->basis[i + 1]);
}

/* coalesce: same function, depth <= 1, idempotent, minimal. */
static void law_coalesce(const axe_cute_layout *l)
{
    axe_cute_layout r, rr;
    int64_t n = size_of(l);
    int minimal = 1, nl;
    TL_CHECK(axe_cute_coalesce(l, &r) == AXE_OK, "coalesce %s", tl_str(l));
    nl = r.shape.nleaf;
    for (int i = 0; i + 1 < nl; i++)
        minimal = minimal && !mergeable_pair(&r, i);
    for (int i = 0; i < nl; i++)
        minimal = minimal && (r.shape.v[i] > 1 || nl == 1);
    TL_CHECK(size_of(&r) == n && same_fn(l, &r, n) && axe_cute_depth(&r) <= 1 &&
                 minimal,
             "coalesce %s = %s", tl_str(l), tl_str(&r));
    TL_CHECK(n != 1 || (r.stride[0] == 0 && nl == 1),
             "coalesce %s = %s is not 1:0", tl_str(l), tl_str(&r));
    TL_CHECK(axe_cute_coalesce(&r, &rr) == AXE_OK && axe_cute_equal(&r, &rr),
             "coalesce not idempotent on %s", tl_str(l));
}

/* coalesce_x: same function on [0, 2 size) too. */
static void law_coalesce_x(const axe_cute_layout *l)
{
    axe_cute_layout r, rr;
    int64_t n = size_of(l);
    int ok = 1;
    TL_CHECK(axe_cute_coalesce_extended(l, &r) == AXE_OK, "coalesce_x %s",
             tl_str(l));
    for (int i = 0; i + 1 < r.shape.nleaf; i++)
        ok = ok && !mergeable_pair(&r, i) && r.shape.v[i] > 1;
    TL_CHECK(ok && size_of(&r) == n && same_fn(l, &r, 2 * n) &&
                 axe_cute_depth(&r) <= 1,
             "coalesce_x %s = %s", tl_str(l), tl_str(&r));
    TL_CHECK(axe_cute_coalesce_extended(&r, &rr) == AXE_OK &&
                 axe_cute_equal(&r, &rr),
             "coalesce_x not idempotent on %s", tl_str(l));
}

/* A random profile for "l": a prefix of its modes, each a leaf or (for a
 * tuple mode) recursively a profile of it. */
static void random_profile(const axe_tuple *s, int *tok, axe_tuple *p)
{
    if (s->tok[*tok] == 'x' || tl_range(0, 2) == 0) {
        int e = *tok, d = 0;
        do {
            d += s->tok[e] == '(' ? 1 : s->tok[e] == ')' ? -1 : 0;
            e++;
        } while (d > 0);
        *tok = e;
        p->tok[p->ntok++] = 'x';
        p->v[p->nleaf++] = 1;
        return;
    }
    p->tok[p->ntok++] = '(';
    (*tok)++;
    for (int cut = 0; s->tok[*tok] != ')';) {
        cut = cut || tl_range(0, 5) == 0;
        if (cut) {
            int e = *tok, d = 0;
            do {
                d += s->tok[e] == '(' ? 1 : s->tok[e] == ')' ? -1 : 0;
                e++;
            } while (d > 0);
            *tok = e;
            continue;
        }
        random_profile(s, tok, p);
    }
    (*tok)++;
    p->tok[p->ntok++] = ')';
}

/* coalesce_by: same rank; mode i has the same function as l's mode i. */
static void law_coalesce_by(const axe_cute_layout *l)
{
    axe_cute_layout r, lm, rm;
    axe_tuple p;
    int tok = 0, rank = axe_cute_rank(l), ok = 1;
    p.ntok = 0;
    p.nleaf = 0;
    random_profile(&l->shape, &tok, &p);
    if (axe_cute_coalesce_by(l, &p, &r) != AXE_OK) {
        char pb[256];
        axe_print_tuple(&p, pb, sizeof pb);
        TL_CHECK(0, "coalesce_by %s by %s fails", tl_str(l), pb);
        return;
    }
    if (axe_tuple_is_scalar(&p)) {
        axe_cute_layout c;
        TL_CHECK(axe_cute_coalesce(l, &c) == AXE_OK && axe_cute_equal(&c, &r),
                 "coalesce_by leaf profile on %s", tl_str(l));
        return;
    }
    ok = axe_cute_rank(&r) == rank;
    for (int i = 0; i < rank && ok; i++) {
        ok = axe_cute_get(l, i, &lm) == AXE_OK &&
             axe_cute_get(&r, i, &rm) == AXE_OK &&
             size_of(&lm) == size_of(&rm) && same_fn(&lm, &rm, size_of(&lm));
    }
    TL_CHECK(ok && same_fn(l, &r, size_of(l)), "coalesce_by %s = %s", tl_str(l),
             tl_str(&r));
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The sorted distinct values of integer layout l over its domain. */
static int64_t image(const axe_cute_layout *l, int64_t *v)
{
    int64_t n = size_of(l), k = 0;
    odo o;
    odo_init(&o, l);
    for (int64_t i = 0; i < n; i++, odo_next(&o))
        v[i] = o.v;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    for (int64_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* filter: same image, no stride-0 or size-1 modes (but `1:0`);
 * filter_zeros: same profile and image. */
static void law_filter(const axe_cute_layout *l)
{
    static int64_t x[MAXB], y[MAXB];
    axe_cute_layout r, z;
    int64_t nx, ny;
    int ok = 1;
    TL_CHECK(axe_cute_filter(l, &r) == AXE_OK, "filter %s", tl_str(l));
    for (int i = 0; i < r.shape.nleaf; i++)
        ok = ok &&
             (r.shape.nleaf == 1 || (r.stride[i] != 0 && r.shape.v[i] > 1));
    nx = image(l, x);
    ny = image(&r, y);
    TL_CHECK(ok && nx == ny && memcmp(x, y, (size_t)nx * sizeof *x) == 0,
             "filter %s = %s", tl_str(l), tl_str(&r));
    TL_CHECK(axe_cute_filter_zeros(l, &z) == AXE_OK &&
                 axe_tuple_is_congruent(&z.shape, &l->shape),
             "filter_zeros %s", tl_str(l));
    ny = image(&z, y);
    TL_CHECK(nx == ny && memcmp(x, y, (size_t)nx * sizeof *x) == 0,
             "filter_zeros %s = %s", tl_str(l), tl_str(&z));
}

static void laws_coalesce(int n)
{
    for (int i = 0; i < n; i++) {
        axe_cute_layout l = mergy_layout();
        law_coalesce(&l);
        law_coalesce_x(&l);
        law_coalesce_by(&l);
        if (i % 4 == 0)
            law_filter(&l);
    }
}

/* Bad input gives a status, never undefined behaviour. */
static void run_bad_input(void)
{
    axe_cute_layout a = tl_layout("(4611686018427387904,4):(2,3)"), b, r, z;
    b = tl_layout("(2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,"
                  "2,2,2,2):(1,2,4,8,16,32,64,128,256,512,1024,2048,4096,"
                  "8192,16384,32768,65536,131072,262144,524288,1048576,"
                  "2097152,4194304,8388608,16777216,33554432,67108864,"
                  "134217728,268435456,536870912,1073741824,2147483648)");
    TL_CHECK(axe_cute_coalesce(&a, &r) == AXE_ERR_OVERFLOW,
             "coalesce of an overflowing size");
    a = tl_layout("(3,5):(1,7)");
    TL_CHECK(axe_cute_compose(&a, &b, &r, NULL) == AXE_ERR_CAPACITY ||
                 axe_cute_compose(&a, &b, &r, NULL) == AXE_ERR_NOT_COMPOSABLE,
             "capacity");
    a = tl_layout("(2,64):(1,7)");
    b = tl_layout("4:1");
    z = tl_layout("2:0");
    for (int k = 0; k < 31; k++)
        TL_CHECK(axe_cute_prepend(&z, &b, &b) == AXE_OK, "prepend");
    TL_CHECK(axe_cute_compose(&a, &b, &r, NULL) == AXE_ERR_CAPACITY,
             "32 leaves of b refining into 33 modes: capacity");
    a = tl_layout("9223372036854775807:9223372036854775807");
    b = tl_layout("4:2");
    TL_CHECK(axe_cute_compose(&a, &b, &r, NULL) == AXE_ERR_OVERFLOW,
             "overflowing values");
    b = tl_layout("2:-9223372036854775807");
    TL_CHECK(axe_cute_compose(&a, &b, &r, NULL) == AXE_ERR_OVERFLOW,
             "overflowing negative values");
}

int main(void)
{
    int n = getenv("AXE_TEST_QUICK") ? 1 : 4;
    tl_seed("test_cute_compose", 20250611);
    run_compose_rows(vector_rows, sizeof vector_rows / sizeof *vector_rows);
    run_compose_rows(extra_rows, sizeof extra_rows / sizeof *extra_rows);
    run_rows_verified(vector_rows, sizeof vector_rows / sizeof *vector_rows);
    run_rows_verified(extra_rows, sizeof extra_rows / sizeof *extra_rows);
    run_reason_rows();
    run_coalesce_rows();
    run_exact_rows();
    run_tiler_rows();
    run_bad_input();
    laws_compose_structured(3000 * n);
    laws_compose_oracle(3000 * n);
    laws_compose_basis(500 * n);
    laws_compose_identity(500 * n);
    laws_tiler(500 * n);
    laws_coalesce(1500 * n);
    return tl_finish();
}
