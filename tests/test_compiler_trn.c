/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The accelerator model and its scratchpads (docs/compiler.md, "The
 * accelerator model"): the model's defaults and setter; sbuf and psum
 * declarations of core kernels as table rows (the paper's and TIRx's
 * SBUF/PSUM layouts among them) with the partitions and free span sema
 * finds, or the reason it refuses; and the law of the storage layout
 * against brute force: for every element x of every accepted row and of
 * seeded random P/F layouts, the storage address is P(x) * fspan +
 * Bank(x) * bank + F(x), evaluated from the declared layout by the layout
 * library, and distinct P/F points get distinct addresses. Expected
 * values are written by hand from the docs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_internal.h"
#include "testlib.h"

/* A program checked by sema (NULL on failure, the reason in "d"). */
static axe_program *checked(const char *src, const axe_kernel_options *o,
                            axe_diag *d)
{
    axe_program *p = NULL;
    axe_status st;
    axe_diag_clear(d);
    st = axe__program_new(src, strlen(src), o, NULL, &p);
    if (st == AXE_OK)
        st = axe__program_parse(p, d);
    if (st == AXE_OK)
        st = axe__program_check(p, d);
    if (st != AXE_OK) {
        axe_program_free(p);
        return NULL;
    }
    return p;
}

static void test_model(void)
{
    axe_kernel_options o;
    axe_trn_model m;
    axe_diag d;
    axe_kernel_options_init(&o);
    axe_trn_model_default(&m);
    TL_CHECK(m.partitions == 128 && m.sbuf_partition_bytes == 196608 &&
                 m.psum_partition_bytes == 16384 && m.psum_bank_bytes == 2048,
             "memories of the default model");
    TL_CHECK(m.matmul_max_m == 128 && m.matmul_max_n == 512 &&
                 m.matmul_max_k == 128,
             "matmul limits of the default model");
    TL_CHECK(m.sbuf_partition_bytes * m.partitions == 24 << 20,
             "SBUF holds 24 MiB");
    TL_CHECK(memcmp(&m, &o.trn, sizeof m) == 0, "options start at defaults");
    TL_CHECK(axe_kernel_options_trn(&o, "partitions", 64, &d) == AXE_OK &&
                 o.trn.partitions == 64,
             "set partitions");
    TL_CHECK(axe_kernel_options_trn(&o, "lanes", 64, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "no field 'lanes'") != NULL,
             "unknown key: %s", d.message);
    TL_CHECK(axe_kernel_options_trn(&o, "partitions", 0, &d) ==
                     AXE_ERR_INVALID &&
                 strstr(d.message, "outside [1, 1024]") != NULL,
             "range: %s", d.message);
    TL_CHECK(axe_kernel_options_trn(&o, "psum_bank_bytes", 3000, &d) ==
                     AXE_OK &&
                 axe__trn_model_check(&o.trn, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "bank") != NULL,
             "bank not dividing the partition: %s", d.message);
}

/* One declaration: its space keyword, dtype, shape and layout (""
 * none), and the partitions and free span sema finds, or (parts 0) a
 * pattern of its reason. */
typedef struct row {
    const char *decl;
    int64_t parts, fspan;
    const char *why;
} row;

static const row rows[] = {
    /* the paper's SBUF example (verbatim) */
    {"sbuf x: f16[2, 128, 512] layout S[(2,128,512):(512@F,1@P,1@F)]", 128,
     1024, NULL},
    /* TIRx's normalize-trainium rows */
    {"sbuf x: f32[8, 8] layout S[(8,8):(8@P,1@F)]", 57, 8, NULL},
    {"sbuf x: f32[8, 8, 8] layout S[(8,8,8):(8@F,1@P,1@F)]", 8, 64, NULL},
    {"sbuf x: f32[8, 1, 8] layout S[(8,1,8):(8@F,1@P,1@F)]", 1, 64, NULL},
    /* default: trainium "PF", a P dim of 256 split onto F */
    {"sbuf x: f32[256, 512]", 128, 1024, NULL},
    {"sbuf x: f16[128, 64, 4]", 128, 256, NULL},
    {"sbuf x: f16[128, 512] layout S[(128,512):(1@P,1@F)] + 7@F", 128, 519,
     NULL},
    /* PSUM: to_psum of S[(128,2048):(1@P,1@F)] and one bank */
    {"psum c: f32[128, 2048] layout S[(128,4,512):(1@P,1@Bank,1@F)]", 128, 2048,
     NULL},
    {"psum c: f32[128, 512]", 128, 512, NULL},
    {"psum c: f32[128, 8, 512] layout S[(128,8,512):(1@P,1@Bank,1@F)]", 128,
     4096, NULL},
    /* refusals */
    {"sbuf x: f32[256, 4] layout S[(256,4):(1@P,1@F)]", 0, 0,
     "reaches partition 255, beyond the 128 partitions"},
    {"sbuf x: f32[200, 4]", 0, 0, "no default layout"},
    {"psum c: f16[128, 512]", 0, 0, "PSUM accumulates f32"},
    {"sbuf x: f32[128, 49153]", 0, 0,
     "spans 49153 free elements of f32 per partition, beyond the 196608"},
    {"psum c: f32[128, 4097]", 0, 0, "beyond the 16384 bytes of a PSUM"},
    {"psum c: f32[128, 2, 1024] layout S[(128,2,1024):(1@P,1@Bank,1@F)]", 0, 0,
     "reaches F 1023 inside a bank of 512"},
    {"sbuf x: f32[128, 4] layout S[(128,4):(1@P,1)]", 0, 0,
     "axis 'm' is not a scratchpad axis"},
    {"sbuf x: f32[128, 4] layout S[(128,4):(1@P,1@Bank)]", 0, 0,
     "axis 'Bank' is not a scratchpad axis"},
    {"sbuf x: f32[128, 4] layout S[(128,4):(1@P,1@tx)]", 0, 0,
     "axis 'tx' is not a scratchpad axis"},
    {"sbuf x: f32[128, 4] layout S[(128,4):(1@P,1@F)] + R[2:1@F]", 0, 0,
     "replica iters are not supported"},
    {"sbuf x: f32[128, 4] layout S[(128,4):(1@P,-1@F)]", 0, 0,
     "negative F strides"},
    {"sbuf x: f32[128, 4] layout S[(4,128):(1@F,1@P)]", 128, 4, NULL},
    {"sbuf x: f32[128, 4] layout S[(64,4):(1@P,1@F)]", 0, 0,
     "has 256 elements but its shape has 512"},
};

/* The program of one declaration "decl", read at whole extent. */
static void program_of(const char *decl, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "kernel k(A: global f32[4]) core\n{\n    %s;\n    "
             "core fill(A, 1.0);\n}\n",
             decl);
}

/* The P, F and Bank coordinates of element "x" of the declared layout
 * of "t" into "c", its storage address on m into "a". */
static bool coords(const ax_tensor *t, int64_t x, int64_t *c, int64_t *a)
{
    axe_point pf, mm;
    int k;
    if (axe_layout_apply_base(&t->playout, x, &pf, NULL) != AXE_OK ||
        axe_layout_apply_base(&t->layout, x, &mm, NULL) != AXE_OK)
        return false;
    c[0] = c[1] = c[2] = *a = 0;
    for (k = 0; k < pf.n; k++)
        c[strcmp(pf.axis[k], "P") == 0   ? 0
          : strcmp(pf.axis[k], "F") == 0 ? 1
                                         : 2] += pf.v[k];
    for (k = 0; k < mm.n; k++)
        *a += strcmp(mm.axis[k], "m") == 0 ? mm.v[k] : 0;
    return true;
}

/* The storage law of tensor "t" (see the file comment), over its
 * elements: the address from the coordinates, inside parts * fspan, and
 * one point per address ("at": the point first seen there, + 1). */
static void check_storage(const axe_trn_model *m, const ax_tensor *t,
                          const char *what)
{
    int64_t n = 1, x, bank = m->psum_bank_bytes / 4, cells;
    int64_t(*at)[3];
    int bad = 0, d;
    for (d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    cells = t->parts * t->fspan;
    at = calloc((size_t)cells, sizeof *at);
    for (x = 0; x < n && at != NULL && bad < 3; x++) {
        int64_t c[3], a, want;
        if (!coords(t, x, c, &a)) {
            bad++;
            break;
        }
        want = c[0] * t->fspan + c[2] * bank + c[1];
        if (a != want || c[0] >= t->parts || a >= cells || t->span > cells) {
            TL_CHECK(0,
                     "%s: element %" PRId64 " at P %" PRId64 " F %" PRId64
                     " Bank %" PRId64 " stored at %" PRId64 ", want %" PRId64,
                     what, x, c[0], c[1], c[2], a, want);
            bad++;
        } else if (at[a][0] != 0 && (at[a][0] != c[0] + 1 || at[a][1] != c[1] ||
                                     at[a][2] != c[2])) {
            TL_CHECK(0, "%s: two points share address %" PRId64, what, a);
            bad++;
        } else {
            at[a][0] = c[0] + 1;
            at[a][1] = c[1];
            at[a][2] = c[2];
        }
    }
    TL_CHECK(at != NULL && bad == 0, "%s: storage law", what);
    free(at);
}

static void test_rows(void)
{
    axe_trn_model m;
    size_t i;
    axe_trn_model_default(&m);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char src[512];
        axe_diag d;
        axe_program *p;
        program_of(rows[i].decl, src, sizeof src);
        p = checked(src, NULL, &d);
        if (rows[i].why != NULL) {
            TL_CHECK(p == NULL && strstr(d.message, rows[i].why) != NULL,
                     "%s: want '%s', got '%s'", rows[i].decl, rows[i].why,
                     p == NULL ? d.message : "accepted");
        } else {
            const ax_tensor *t = p != NULL ? &p->tensors[1] : NULL;
            TL_CHECK(t != NULL && t->parts == rows[i].parts &&
                         t->fspan == rows[i].fspan,
                     "%s: parts %lld fspan %lld (%s)", rows[i].decl,
                     t ? (long long)t->parts : -1LL,
                     t ? (long long)t->fspan : -1LL, d.message);
            if (t != NULL)
                check_storage(&m, t, rows[i].decl);
        }
        axe_program_free(p);
    }
}

/* A random sbuf declaration of 1 to 4 iters, each on P or F, with
 * extents 1..4 and strides 0..5 (broadcasts included), its size in
 * "size". */
static void random_decl(char *buf, size_t cap, int64_t *size)
{
    int n = (int)tl_range(1, 4), k;
    size_t at;
    char sh[64] = "", st[64] = "";
    *size = 1;
    for (k = 0; k < n; k++) {
        int64_t e = tl_range(1, 4), s = tl_range(0, 5);
        const char *ax = tl_range(0, 1) ? "P" : "F";
        at = strlen(sh);
        snprintf(sh + at, sizeof sh - at, "%s%lld", k ? "," : "", (long long)e);
        at = strlen(st);
        snprintf(st + at, sizeof st - at, "%s%lld@%s", k ? "," : "",
                 (long long)s, ax);
        *size *= e;
    }
    snprintf(buf, cap, "sbuf x: f32[%lld] layout S[(%s):(%s)]",
             (long long)*size, sh, st);
}

static void test_random(void)
{
    axe_trn_model m;
    int i;
    axe_trn_model_default(&m);
    tl_seed("test_compiler_trn", 16);
    for (i = 0; i < 300; i++) {
        char decl[256], src[512];
        int64_t size;
        axe_diag d;
        axe_program *p;
        random_decl(decl, sizeof decl, &size);
        program_of(decl, src, sizeof src);
        p = checked(src, NULL, &d);
        TL_CHECK(p != NULL, "%s: %s", decl, d.message);
        if (p != NULL)
            check_storage(&m, &p->tensors[1], decl);
        axe_program_free(p);
    }
}

/* A core kernel's statements and declarations: its one rule per row. */
static void test_kernels(void)
{
    static const struct {
        const char *src, *why;
    } bad[] = {
        {"kernel k(A: global f32[4]) grid(1) threads(32)\n{\n    sbuf x: "
         "f32[4, 4];\n}\n",
         "sbuf tensors belong to a core kernel"},
        {"kernel k(A: global f32[4]) grid(1) threads(32)\n{\n    core "
         "fill(A, 1.0);\n}\n",
         "core scope belongs to a core kernel"},
        {"kernel k(A: global f32[4]) core\n{\n    cta fill(A, 1.0);\n}\n",
         "run at core scope ('core OP(...)'), not at cta scope"},
        {"kernel k(A: global f32[4]) core\n{\n    shared s: f32[4];\n}\n",
         "declares sbuf and psum tensors, not shared ones"},
        {"kernel k(A: global f32[4]) core\n{\n    sbuf x: f32[4, 4];\n    "
         "core copy(A, x.view(S[4:1]));\n}\n",
         "a view of sbuf tensor 'x' is not supported"},
        {"kernel k(A: global f32[4]) core\n{\n    sbuf x: f32[128, 30000];\n"
         "    sbuf y: f32[128, 20000];\n    core fill(A, 1.0);\n}\n",
         "SBUF partitions fill up with 'y': 200000 bytes per partition"},
        {"kernel k(A: global f32[4]) core\n{\n    psum x: f32[128, 2048];\n"
         "    psum y: f32[128, 2048];\n    psum z: f32[128, 1];\n    core "
         "fill(A, 1.0);\n}\n",
         "PSUM partitions fill up with 'z': 16388 bytes"},
    };
    static const char core_src[] = "kernel k(A: global f32[4]) core\n{\n    "
                                   "core fill(A, 1.0);\n}\n";
    size_t i;
    axe_kernel_options o;
    axe_diag d;
    axe_program *p;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = checked(bad[i].src, NULL, &d);
        TL_CHECK(p == NULL && strstr(d.message, bad[i].why) != NULL,
                 "row %zu: want '%s', got '%s'", i, bad[i].why,
                 p == NULL ? d.message : "accepted");
        axe_program_free(p);
    }
    /* a smaller model refuses what the default accepts */
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_trn(&o, "partitions", 64, &d) == AXE_OK, "set");
    p = checked("kernel k(A: global f32[4]) core\n{\n    sbuf x: f32[128, "
                "4] layout S[(128,4):(1@P,1@F)];\n    core fill(A, 1.0);\n}\n",
                &o, &d);
    TL_CHECK(p == NULL && strstr(d.message, "beyond the 64 partitions"),
             "64 partitions: %s", p == NULL ? d.message : "accepted");
    axe_program_free(p);
    /* the cuda backend has no core */
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_target(&o, "cuda", NULL, &d) == AXE_OK, "cuda");
    TL_CHECK(axe_program_compile(core_src, strlen(core_src), &o, NULL, &p,
                                 &d) == AXE_ERR_UNSUPPORTED &&
                 strstr(d.message, "is a core kernel") != NULL,
             "cuda refuses a core kernel: %s", d.message);
}

/* ---- gemm.tensor_engine (Appendix H) --------------------------------------
 */

/* A core kernel with the declarations "decls" (a, b, c) and the
 * statements "body" before a last fill, compiled through dispatch with
 * options "o" (NULL: defaults). */
static axe_program *core_program(const char *decls, const char *body,
                                 const axe_kernel_options *o, axe_diag *d)
{
    char src[2048];
    axe_program *p = NULL;
    snprintf(src, sizeof src,
             "kernel k(A: global f32[4]) core\n{\n%s\n%s\n    core "
             "fill(A, 1.0);\n}\n",
             decls, body);
    axe_diag_clear(d);
    if (axe_program_compile(src, strlen(src), o, NULL, &p, d) != AXE_OK)
        return NULL;
    return p;
}

/* A core kernel "gemm(c, a, b)" with the declarations "decls". */
static axe_program *gemm_program(const char *decls, const axe_kernel_options *o,
                                 axe_diag *d)
{
    return core_program(decls, "    core gemm(c, a, b);", o, d);
}

/* The operator's tensor "k" (0 C, 1 A, 2 B) and the storage address of
 * its element (i, j) (brute force through the layout library). */
static int64_t addr_of(const axe_program *p, const ax_stmt *s, int k, int64_t i,
                       int64_t j)
{
    const ax_tensor *t = &p->tensors[s->args[k].tensor];
    int64_t c[3], a;
    if (!coords(t, i * t->shape[1] + j, c, &a))
        return -1;
    return a;
}

/* One iteration of the loops around a gemm: each operand's region start
 * (st[arg][dim], args 0 C, 1 A, 2 B) and the storage address of its
 * origin by the plan's formula (org[k], k 0 A, 1 B, 2 C). */
typedef struct gemm_iter {
    int64_t st[3][2], org[3];
} gemm_iter;

static void iter_of(const ax_stmt *s, const int64_t *env, gemm_iter *g)
{
    int k, d, j;
    for (k = 0; k < 3; k++)
        for (d = 0; d < 2; d++)
            g->st[k][d] = s->args[k].start[d] != NULL
                              ? axe__expr_eval(s->args[k].start[d], env)
                              : 0;
    for (k = 0; k < 3; k++) {
        const ax_trn_origin *o = &s->trn->origin[k];
        g->org[k] = o->cst;
        for (j = 0; j < o->n; j++)
            g->org[k] +=
                o->scale[j] *
                ((axe__expr_eval(o->start[j], env) - o->at[j]) / o->step[j]);
    }
}

/* The law of one iteration "g" of a gemm.tensor_engine plan: its tiles'
 * addresses (origin + base + row and column strides) are the storage
 * addresses of the logical elements at its corner, shifted by the
 * regions' starts; the instructions cover each (m, n, k) of the regions
 * once, and each (m, n) sees k in increasing order. Answers the count
 * of violations. */
static int iteration_law(const axe_program *p, const ax_stmt *s,
                         const gemm_iter *g)
{
    const ax_trn_mm *mm = s->trn;
    int64_t M = s->args[0].len[0], N = s->args[0].len[1];
    int64_t K = s->args[1].len[1], q, i, j, r;
    int64_t *next = calloc((size_t)(M * N), sizeof *next);
    int bad = next == NULL;
    for (q = 0; q < mm->ninst && next != NULL && bad < 3; q++) {
        const int64_t *o = mm->corner[q], *b = mm->base[q];
        for (r = 0; r < mm->shape[2]; r++)
            for (i = 0; i < mm->shape[0]; i++)
                bad += g->org[0] + b[0] + r * mm->rstride[0] +
                           i * mm->cstride[0] !=
                       addr_of(p, s, 1, g->st[1][0] + o[0] + i,
                               g->st[1][1] + o[2] + r);
        for (r = 0; r < mm->shape[2]; r++)
            for (j = 0; j < mm->shape[1]; j++)
                bad += g->org[1] + b[1] + r * mm->rstride[1] +
                           j * mm->cstride[1] !=
                       addr_of(p, s, 2, g->st[2][0] + o[1] + j,
                               g->st[2][1] + o[2] + r);
        for (i = 0; i < mm->shape[0]; i++)
            for (j = 0; j < mm->shape[1]; j++) {
                int64_t *n = &next[(o[0] + i) * N + o[1] + j];
                bad += g->org[2] + b[2] + i * mm->rstride[2] +
                           j * mm->cstride[2] !=
                       addr_of(p, s, 0, g->st[0][0] + o[0] + i,
                               g->st[0][1] + o[1] + j);
                bad += *n != o[2];
                *n = o[2] + mm->shape[2];
            }
    }
    for (i = 0; i < M * N && next != NULL; i++)
        bad += next[i] != K;
    free(next);
    return bad;
}

/* The values loop variable "v" takes (1 for a runtime scalar). */
static int64_t trip(const axe_program *p, int v)
{
    return p->var_trip[v] > 0 ? p->var_trip[v] : 1;
}

/* The law of a gemm.tensor_engine plan (operator "op"): every
 * instruction's shape within the model's limits, and iteration_law for
 * every value of the program's loop variables. */
static void check_tensor_engine_op(const axe_program *p, int op,
                                   const char *what)
{
    const ax_stmt *s = p->ops[op];
    const ax_trn_mm *mm = s->trn;
    int64_t env[AX_MAX_VARS], total = 1, q;
    int v, bad = 0;
    TL_CHECK(mm != NULL && strcmp(s->schedule, "tensor_engine") == 0,
             "%s: chose %s", what, s->schedule);
    if (mm == NULL)
        return;
    TL_CHECK(mm->shape[0] <= 128 && mm->shape[1] <= 512 &&
                 mm->shape[2] <= 128 && mm->shape[0] >= 1 &&
                 mm->shape[1] >= 1 && mm->shape[2] >= 1,
             "%s: shape %lld x %lld x %lld", what, (long long)mm->shape[0],
             (long long)mm->shape[1], (long long)mm->shape[2]);
    memset(env, 0, sizeof env);
    for (v = AX_VAR_NBUILTIN; v < p->nvars; v++)
        total *= trip(p, v);
    for (q = 0; q < total && bad == 0; q++) {
        gemm_iter g;
        int64_t x = q;
        for (v = AX_VAR_NBUILTIN; v < p->nvars; v++) {
            env[v] = x % trip(p, v);
            x /= trip(p, v);
        }
        iter_of(s, env, &g);
        bad += iteration_law(p, s, &g);
    }
    TL_CHECK(bad == 0, "%s: tensor_engine law (%d bad)", what, bad);
}

static void check_tensor_engine(const axe_program *p, const char *what)
{
    check_tensor_engine_op(p, 0, what);
}

static void test_tensor_engine(void)
{
    static const struct {
        const char *decls;
        int64_t shape[3], ninst;
    } good[] = {
        /* the shape: A[K,M], B[K,N] K on P; C M on P, N on F */
        {"    sbuf a: f16[128, 128] layout S[(128,128):(1@F,1@P)];\n"
         "    sbuf b: f16[512, 128] layout S[(512,128):(1@F,1@P)];\n"
         "    psum c: f32[128, 512];",
         {128, 512, 128},
         1},
        /* K = 256 in two partition blocks, M = 256 in two C tiles */
        {"    sbuf a: f16[256, 256] layout S[(256,2,128):(1@F,256@F,1@P)];\n"
         "    sbuf b: f16[64, 256] layout S[(64,2,128):(1@F,64@F,1@P)];\n"
         "    psum c: f32[256, 64] layout S[(2,128,64):(64@F,1@P,1@F)];",
         {128, 64, 128},
         4},
        /* strided free dims, K in 32-partition blocks, C over banks */
        {"    sbuf a: f32[16, 64] layout S[(16,2,32):(3@F,64@F,1@P)];\n"
         "    sbuf b: f32[1024, 64] layout S[(1024,2,32):(2@F,2048@F,1@P)];\n"
         "    psum c: f32[16, 1024] layout S[(16,2,512):(1@P,1@Bank,1@F)];",
         {16, 512, 32},
         4},
        /* inner extents that differ: M 8 in A, 12 in C -> 4 */
        {"    sbuf a: f16[24, 32] layout S[(3,8,32):(10@F,1@F,1@P)];\n"
         "    sbuf b: f16[8, 32] layout S[(8,32):(1@F,1@P)];\n"
         "    psum c: f32[24, 8] layout S[(2,12,8):(8@F,1@P,1@F)];",
         {4, 8, 32},
         6},
    };
    static const struct {
        const char *decls, *why;
    } bad[] = {
        {"    sbuf a: f16[128, 128] layout S[(128,128):(1@P,1@F)];\n"
         "    sbuf b: f16[512, 128] layout S[(512,128):(1@F,1@P)];\n"
         "    psum c: f32[128, 512];",
         "step 2 (K intersection): K is not on P with stride 1 in A ('a'): "
         "its innermost K iter is S[128:1@F]"},
        {"    sbuf a: f16[128, 64] layout S[(128,64):(1@F,1@P)];\n"
         "    sbuf b: f16[64, 64] layout S[(64,64):(1@F,2@P)];\n"
         "    psum c: f32[128, 64];",
         "K is not on P with stride 1 in B ('b'): its innermost K iter is "
         "S[64:2@P]"},
        {"    sbuf a: f16[8, 32] layout S[(8,2,16):(1@F,32@P,1@P)];\n"
         "    sbuf b: f16[8, 32] layout S[(8,4,8):(1@F,16@P,1@P)];\n"
         "    psum c: f32[8, 8];",
         "step 2 (K intersection): A's and B's K iters on P have no iter "
         "intersection"},
        {"    sbuf a: f16[4, 32] layout S[(4,32):(32@P,1@P)];\n"
         "    sbuf b: f16[8, 32] layout S[(8,32):(1@F,1@P)];\n"
         "    psum c: f32[4, 8];",
         "step 3 (M intersection): M is not on F in A ('a'): its innermost M "
         "iter is S[4:32@P]"},
        {"    sbuf a: f16[4, 32] layout S[(4,32):(1@F,1@P)];\n"
         "    sbuf b: f16[8, 32] layout S[(8,32):(1@F,1@P)];\n"
         "    psum c: f32[4, 8] layout S[(4,8):(8@F,1@F)];",
         "step 3 (M intersection): M is not on P with stride 1 in C ('c')"},
        {"    sbuf a: f16[4, 32] layout S[(4,32):(1@F,1@P)];\n"
         "    sbuf b: f16[2, 32] layout S[(2,32):(32@P,1@P)];\n"
         "    psum c: f32[4, 2];",
         "step 3 (N intersection): N is not on F in B ('b')"},
        {"    sbuf a: f16[4, 32] layout S[(4,32):(1@F,1@P)];\n"
         "    sbuf b: f16[2, 32] layout S[(2,32):(1@F,1@P)];\n"
         "    psum c: f32[4, 2] layout S[(4,2):(1@P,4@P)];",
         "step 3 (N intersection): N is not on F in C ('c')"},
        {"    sbuf a: f16[128, 128] layout S[(128,128):(1@F,1@P)];\n"
         "    sbuf b: f16[512, 128] layout S[(512,128):(1@F,1@P)];\n"
         "    psum c: f32[128, 512] layout S[(128,512):(1@P,1@F)] + 100@F;",
         "step 4 (instructions): the instruction at (m, n) = (0, 0) writes "
         "C's free elements 100..611, across a PSUM bank of 512"},
        {"    sbuf a: f16[128, 128] layout S[(128,128):(1@F,1@P)];\n"
         "    sbuf b: f16[512, 128] layout S[(512,128):(1@F,1@P)];\n"
         "    sbuf c: f32[128, 512];",
         "step 0: C ('c') is not in PSUM"},
    };
    size_t i;
    axe_kernel_options o;
    axe_diag d;
    axe_program *p;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        p = gemm_program(good[i].decls, NULL, &d);
        TL_CHECK(p != NULL, "good %zu: %s", i, d.message);
        if (p == NULL)
            continue;
        check_tensor_engine(p, good[i].decls);
        TL_CHECK(p->ops[0]->trn != NULL &&
                     memcmp(p->ops[0]->trn->shape, good[i].shape,
                            sizeof good[i].shape) == 0 &&
                     p->ops[0]->trn->ninst == good[i].ninst,
                 "good %zu: shape %lld x %lld x %lld, %lld instructions", i,
                 p->ops[0]->trn ? (long long)p->ops[0]->trn->shape[0] : -1LL,
                 p->ops[0]->trn ? (long long)p->ops[0]->trn->shape[1] : -1LL,
                 p->ops[0]->trn ? (long long)p->ops[0]->trn->shape[2] : -1LL,
                 p->ops[0]->trn ? (long long)p->ops[0]->trn->ninst : -1LL);
        axe_program_free(p);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        axe_diag why;
        p = gemm_program(bad[i].decls, NULL, &d);
        TL_CHECK(p != NULL && strcmp(p->ops[0]->schedule, "thread_fma") == 0,
                 "bad %zu: falls back to thread_fma (%s)", i, d.message);
        if (p != NULL)
            TL_CHECK(axe__schedule_try(p, p->ops[0], "tensor_engine", &why) !=
                             AXE_OK &&
                         strstr(why.message, bad[i].why) != NULL,
                     "bad %zu: want '%s', got '%s'", i, bad[i].why,
                     why.message);
        axe_program_free(p);
    }
    /* a smaller matmul: limits from the model */
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_trn(&o, "matmul_max_n", 96, &d) == AXE_OK &&
                 axe_kernel_options_trn(&o, "matmul_max_k", 48, &d) == AXE_OK,
             "set limits");
    p = gemm_program(good[0].decls, &o, &d);
    TL_CHECK(
        p != NULL && p->ops[0]->trn != NULL && p->ops[0]->trn->shape[1] == 64 &&
            p->ops[0]->trn->shape[2] == 32 && p->ops[0]->trn->ninst == 8 * 4,
        "limits 96 and 48: N 64, K 32 (%s)", d.message);
    if (p != NULL)
        check_tensor_engine(p, "limits 96 and 48");
    axe_program_free(p);
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_trn(&o, "matmul_max_m", 1, &d) == AXE_OK &&
                 axe_kernel_options_trn(&o, "matmul_max_n", 1, &d) == AXE_OK &&
                 axe_kernel_options_trn(&o, "matmul_max_k", 1, &d) == AXE_OK,
             "set 1 x 1 x 1");
    p = gemm_program(good[0].decls, &o, &d);
    {
        axe_diag why;
        TL_CHECK(p != NULL &&
                     axe__schedule_try(p, p->ops[0], "tensor_engine", &why) ==
                         AXE_ERR_CAPACITY &&
                     strstr(why.message, "8388608 matmul instructions") != NULL,
                 "too many instructions: %s", p ? why.message : d.message);
    }
    axe_program_free(p);
}

/* gemm.tensor_engine on regions: tiles of multi-buffered tensors at
 * starts that loop variables move, the law checked for every iteration;
 * and regions whose layout or origin changes with the start, refused at
 * step 0 with the reason. */
static void test_regions(void)
{
    static const struct {
        const char *decls, *body;
        int64_t shape[3], ninst;
    } good[] = {
        /* trn_gemm.axe's: double-buffered SBUF tiles and PSUM banks */
        {"    sbuf a: f16[256, 128] layout S[(2,128,128):(128@F,1@F,1@P)];\n"
         "    sbuf b: f16[640, 128] layout S[(2,320,128):(320@F,1@F,1@P)];\n"
         "    psum c: f32[256, 320] layout S[(2,128,320):(1@Bank,1@P,1@F)];",
         "    for t in range(3) {\n      for k in range(3) {\n"
         "        core gemm(c[t % 2 * 128 : +128, 0:320],\n"
         "                  a[k % 2 * 128 : +128, 0:128],\n"
         "                  b[k % 2 * 320 : +320, 0:128]);\n      }\n    }",
         {128, 320, 128},
         1},
        /* K tiles along A's and B's free dims (no buffer index on P),
         * C a fixed corner of a larger accumulator */
        {"    sbuf a: f32[32, 256] layout S[(32,4,64):(1@F,32@F,1@P)];\n"
         "    sbuf b: f32[48, 256] layout S[(48,4,64):(1@F,48@F,1@P)];\n"
         "    psum c: f32[64, 48];",
         "    for k in range(4) {\n"
         "        core gemm(c[16:48, 0:48], a[0:32, k * 64 : +64],\n"
         "                  b[0:48, k * 64 : +64]);\n    }",
         {32, 48, 64},
         1},
        /* a K tile of 128 from two 64-partition blocks, in 32-tiles */
        {"    sbuf a: f16[64, 384] layout "
         "S[(64,3,2,64):(1@F,128@F,64@F,1@P)];\n"
         "    sbuf b: f16[16, 384] layout S[(16,3,2,64):(1@F,32@F,16@F,1@P)];\n"
         "    psum c: f32[64, 16];",
         "    for k in range(3) {\n"
         "        core gemm(c, a[0:64, k * 128 : +128],\n"
         "                  b[0:16, k * 128 : +128]);\n    }",
         {64, 16, 64},
         2},
    };
    static const struct {
        const char *decls, *body, *why;
    } bad[] = {
        {"    sbuf a: f32[128, 32] layout S[(2,64,32):(100@F,1@F,1@P)];\n"
         "    sbuf b: f32[8, 32] layout S[(8,32):(1@F,1@P)];\n"
         "    psum c: f32[64, 8];",
         "    for u in range(3) {\n"
         "        core gemm(c, a[u * 32 : +64, 0:32], b);\n    }",
         "step 0: A ('a') has the region start u * 32, which changes the "
         "region's layout from one start to another"},
        {"    sbuf a: f32[256, 32] layout "
         "S[(2,2,64,32):(1000@F,64@F,1@F,1@P)];\n"
         "    sbuf b: f32[8, 32] layout S[(8,32):(1@F,1@P)];\n"
         "    psum c: f32[64, 8];",
         "    for u in range(4) {\n"
         "        core gemm(c, a[u * 64 : +64, 0:32], b);\n    }",
         "step 0: A ('a') has the region start u * 64, which moves the "
         "region's origin non-affinely"},
        {"    sbuf a: f16[128, 128] layout S[(128,128):(1@F,1@P)];\n"
         "    sbuf b: f16[320, 128] layout S[(320,128):(1@F,1@P)];\n"
         "    psum c: f32[256, 320] layout S[(2,128,320):(320@F,1@P,1@F)];",
         "    for t in range(2) {\n"
         "        core gemm(c[t * 128 : +128, 0:320], a, b);\n    }",
         "step 4 (instructions): the instruction at (m, n) = (0, 0) writes "
         "C's free elements 320..639, across a PSUM bank of 512"},
    };
    size_t i;
    axe_diag d;
    axe_program *p;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        const ax_trn_mm *mm;
        p = core_program(good[i].decls, good[i].body, NULL, &d);
        TL_CHECK(p != NULL, "region %zu: %s", i, d.message);
        if (p == NULL)
            continue;
        check_tensor_engine_op(p, 0, good[i].body);
        mm = p->ops[0]->trn;
        TL_CHECK(mm != NULL &&
                     memcmp(mm->shape, good[i].shape, sizeof mm->shape) == 0 &&
                     mm->ninst == good[i].ninst,
                 "region %zu: shape %lld x %lld x %lld, %lld instructions", i,
                 mm ? (long long)mm->shape[0] : -1LL,
                 mm ? (long long)mm->shape[1] : -1LL,
                 mm ? (long long)mm->shape[2] : -1LL,
                 mm ? (long long)mm->ninst : -1LL);
        axe_program_free(p);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        axe_diag why;
        p = core_program(bad[i].decls, bad[i].body, NULL, &d);
        TL_CHECK(p != NULL && strcmp(p->ops[0]->schedule, "thread_fma") == 0,
                 "bad region %zu: falls back to thread_fma (%s)", i, d.message);
        if (p != NULL)
            TL_CHECK(axe__schedule_try(p, p->ops[0], "tensor_engine", &why) !=
                             AXE_OK &&
                         strstr(why.message, bad[i].why) != NULL,
                     "bad region %zu: want '%s', got '%s'", i, bad[i].why,
                     why.message);
        axe_program_free(p);
    }
}

int main(void)
{
    test_model();
    test_rows();
    test_random();
    test_kernels();
    test_tensor_engine();
    test_regions();
    return tl_finish();
}
