/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The warp-scope gemm on mma.sync atoms. Atoms are data: each instruction's
 * thread-value layouts (../shared/spec/atoms.md, CuTe's TV layouts from
 * (thread, value) to the column-major position in the A (M,K), B (N,K) and
 * C (M,N) tiles) are parsed, inverted into a table (row-major tile
 * coordinate -> lane, value) and rebuilt as Axe layouts over `laneid` and
 * `m` (each checked by evaluation). The schedule applies when every
 * operand's register layout is a tile of its atom layout
 * (axe_layout_is_tile_inner recovers the outer layout, which must be on
 * memory only); the plan keeps the atom tables and, per atom tile, the
 * storage offset outer_m * span_m(atom). On the C backend the atom runs as
 * a reference implementation reading the other lanes' registers; the
 * accumulation order (atom K tiles, then K within the atom) is the
 * logical order k = 0, 1, ...
 */
#include <stdio.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_synth.h"
#include "compiler_synth_inst.h"

typedef struct ax_atom {
    const char *name;
    axe_dtype dtype, bdtype, acc; /* of A; of B; of C */
    int64_t mnk[3];
    const char *tv[3]; /* A (M,K), B (N,K), C (M,N) */
} ax_atom;

static const ax_atom atoms[] = {
    {"mma.sync.aligned.m16n8k16.f32.f16.f16.f32",
     AXE_DTYPE_F16,
     AXE_DTYPE_F16,
     AXE_DTYPE_F32,
     {16, 8, 16},
     {"((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((16,1),(8,64))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k8.f32.f16.f16.f32",
     AXE_DTYPE_F16,
     AXE_DTYPE_F16,
     AXE_DTYPE_F32,
     {16, 8, 8},
     {"((4,8),(2,2)):((32,1),(16,8))", "((4,8),2):((16,1),8)",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k16.f32.bf16.bf16.f32",
     AXE_DTYPE_BF16,
     AXE_DTYPE_BF16,
     AXE_DTYPE_F32,
     {16, 8, 16},
     {"((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((16,1),(8,64))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    /* bf16 m16n8k8: the f16 fragments (PTX ISA: .bf16 as .f16) */
    {"mma.sync.aligned.m16n8k8.f32.bf16.bf16.f32",
     AXE_DTYPE_BF16,
     AXE_DTYPE_BF16,
     AXE_DTYPE_F32,
     {16, 8, 8},
     {"((4,8),(2,2)):((32,1),(16,8))", "((4,8),2):((16,1),8)",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k8.tf32 (f32 on the C backend)",
     AXE_DTYPE_F32,
     AXE_DTYPE_F32,
     AXE_DTYPE_F32,
     {16, 8, 8},
     {"((4,8),(2,2)):((16,1),(8,64))", "((4,8),2):((8,1),32)",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
     AXE_DTYPE_I8,
     AXE_DTYPE_I8,
     AXE_DTYPE_I32,
     {16, 8, 32},
     {"((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
     AXE_DTYPE_E4M3,
     AXE_DTYPE_E4M3,
     AXE_DTYPE_F32,
     {16, 8, 32},
     {"((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
     AXE_DTYPE_E5M2,
     AXE_DTYPE_E5M2,
     AXE_DTYPE_F32,
     {16, 8, 32},
     {"((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
     AXE_DTYPE_E4M3,
     AXE_DTYPE_E5M2,
     AXE_DTYPE_F32,
     {16, 8, 32},
     {"((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32",
     AXE_DTYPE_E5M2,
     AXE_DTYPE_E4M3,
     AXE_DTYPE_F32,
     {16, 8, 32},
     {"((4,8),(4,2,2)):((64,1),(16,8,256))", "((4,8),(4,2)):((32,1),(8,128))",
      "((4,8),(2,2)):((32,1),(16,8))"}},
    {"mma.sync.aligned.m8n8k4.f64",
     AXE_DTYPE_F64,
     AXE_DTYPE_F64,
     AXE_DTYPE_F64,
     {8, 8, 4},
     {"((4,8),1):((8,1),0)", "((4,8),1):((8,1),0)", "((4,8),2):((16,1),8)"}},
};
#define NATOMS ((int)(sizeof atoms / sizeof atoms[0]))

/* Rows and columns of operand "o" (0 A, 1 B, 2 C) of "a". */
static void tile_shape(const ax_atom *a, int o, int64_t *shape)
{
    shape[0] = a->mnk[o == 1 ? 1 : 0];
    shape[1] = a->mnk[o == 2 ? 1 : 2];
}

/* Invert the TV layout: lane[x], val[x] for row-major tile index x. */
static axe_status invert_tv(const ax_atom *a, int o, ax_frag *f)
{
    axe_cute_layout tv;
    int64_t size, i, pos;
    AXE_TRY(axe_parse_cute_layout(a->tv[o], strlen(a->tv[o]), &tv, NULL));
    AXE_TRY(axe_cute_size(&tv, &size));
    tile_shape(a, o, f->shape);
    if (size != f->shape[0] * f->shape[1] || size > AX_FRAG_MAX)
        return AXE_ERR_INVALID;
    f->nvals = size / 32;
    memset(f->lane, 0xff, sizeof f->lane);
    for (i = 0; i < size; i++) {
        int64_t r, c;
        AXE_TRY(axe_cute_eval(&tv, i, &pos));
        r = pos % f->shape[0];
        c = pos / f->shape[0];
        if (pos < 0 || pos >= size || f->lane[r * f->shape[1] + c] != 0xff)
            return AXE_ERR_INVALID;
        f->lane[r * f->shape[1] + c] = (uint8_t)(i % 32);
        f->val[r * f->shape[1] + c] = (uint8_t)(i / 32);
    }
    return AXE_OK;
}

static int64_t frag_axis(const ax_frag *f, int64_t x, bool lane)
{
    return lane ? f->lane[x] : f->val[x];
}

/* One iter (extent, stride, axis) starting at weight "w" of the table. */
static bool next_iter(const ax_frag *f, int64_t w, int64_t total, axe_iter *it)
{
    int64_t run = 1, e, dl = frag_axis(f, w, true) - frag_axis(f, 0, true);
    int64_t dv = frag_axis(f, w, false) - frag_axis(f, 0, false);
    if ((dl != 0) == (dv != 0))
        return false;
    memset(it->axis, 0, sizeof it->axis);
    strcpy(it->axis, dl != 0 ? "laneid" : "m");
    it->stride = dl != 0 ? dl : dv;
    while (w * (run + 1) <= total &&
           frag_axis(f, w * run, true) - frag_axis(f, 0, true) == dl * run &&
           frag_axis(f, w * run, false) - frag_axis(f, 0, false) == dv * run)
        run++;
    for (e = run; (total / w) % e != 0; e--)
        ;
    it->extent = e;
    return true;
}

/* The Axe layout of the fragment table, checked at every index. */
static axe_status frag_layout(const ax_frag *f, axe_layout *out)
{
    axe_iter its[AXE_LAYOUT_MAX_SHARD];
    int64_t w = 1, total = f->shape[0] * f->shape[1], x;
    int n = 0, i;
    while (w < total) {
        if (n == AXE_LAYOUT_MAX_SHARD || !next_iter(f, w, total, &its[n]))
            return AXE_ERR_INVALID;
        w *= its[n++].extent;
    }
    axe_layout_init(out);
    for (i = n - 1; i >= 0; i--)
        AXE_TRY(axe_layout_push_shard(out, its[i].extent, its[i].stride,
                                      its[i].axis));
    for (x = 0; x < total; x++) {
        axe_point pt, want;
        memset(&want, 0, sizeof want);
        AXE_TRY(axe_layout_apply_base(out, x, &pt, NULL));
        AXE_TRY(axe_point_add(&want, "laneid", f->lane[x]));
        AXE_TRY(axe_point_add(&want, "m", f->val[x]));
        if (!axe_point_equal(&pt, &want))
            return AXE_ERR_INVALID;
    }
    return AXE_OK;
}

/* The value of axis "axis" at point "pt" (its last entry; 0 when it has
 * none or "axis" is NULL). */
static int64_t axis_value(const axe_point *pt, const char *axis)
{
    int64_t v = 0;
    int k;
    for (k = 0; axis != NULL && k < pt->n; k++)
        if (strcmp(pt->axis[k], axis) == 0)
            v = pt->v[k];
    return v;
}

/* Each atom tile x of the outer layout: its storage offset outer_m(x) *
 * span_m(atom) into "out" and, when "owner" is not NULL, the warp of its
 * base point (the value of the axis "warp"; 0 when "warp" is NULL). A
 * tile has at most AX_MMA_MAX_WARPS points: the outer layout's replicas
 * are on "warp" only (outer_on), and sema's check_cover makes the thread
 * iters tile the scope's at most 1024 threads exactly, so its points lie
 * on distinct warps of at most 32. */
static axe_status outer_tiles(ax_arena *ar, const axe_layout *outer,
                              const int64_t *counts, int64_t span,
                              const char *warp, int64_t **out, int64_t **owner)
{
    int64_t x, n = counts[0] * counts[1];
    axe_point pts[AX_MMA_MAX_WARPS];
    int cnt;
    if ((*out = axe__arena_alloc(ar, (size_t)n * sizeof **out)) == NULL ||
        (owner != NULL &&
         (*owner = axe__arena_alloc(ar, (size_t)n * sizeof **owner)) == NULL))
        return AXE_ERR_NO_MEMORY;
    for (x = 0; x < n; x++) {
        AXE_TRY(axe_layout_apply_set(outer, &x, NULL, 1, pts, AX_MMA_MAX_WARPS,
                                     &cnt, NULL));
        (*out)[x] = axis_value(&pts[0], "m") * span;
        if (owner != NULL)
            (*owner)[x] = axis_value(&pts[0], warp);
    }
    return AXE_OK;
}

/* The atom whose A has dtype "d", B "bd" and C "acc", if any. */
static const ax_atom *atom_for(axe_dtype d, axe_dtype bd, axe_dtype acc)
{
    int i;
    for (i = 0; i < NATOMS; i++)
        if (atoms[i].dtype == d && atoms[i].bdtype == bd && atoms[i].acc == acc)
            return &atoms[i];
    return NULL;
}

/* The next atom after "prev" (NULL: the first) for the dtypes, in table
 * order (the largest K of the dtypes first), or NULL. */
static const ax_atom *next_atom(const ax_atom *prev, axe_dtype d, axe_dtype bd,
                                axe_dtype acc)
{
    int i = prev == NULL ? 0 : (int)(prev - atoms) + 1;
    for (; i < NATOMS; i++)
        if (atoms[i].dtype == d && atoms[i].bdtype == bd && atoms[i].acc == acc)
            return &atoms[i];
    return NULL;
}

/* The iters [lo, hi) of "l" as "(e,...):(s@axis,...)" ("e:s" for one;
 * no axis for m) into "t". */
static void put_iters(ax_text *t, const axe_layout *l, int lo, int hi)
{
    int i;
    axe__text_put(t, "%s", hi - lo > 1 ? "(" : "");
    for (i = lo; i < hi; i++)
        axe__text_put(t, "%s%lld", i > lo ? "," : "",
                      (long long)l->shard[i].extent);
    axe__text_put(t, "%s:%s", hi - lo > 1 ? ")" : "", hi - lo > 1 ? "(" : "");
    for (i = lo; i < hi; i++)
        axe__text_put(
            t, "%s%lld%s%s", i > lo ? "," : "", (long long)l->shard[i].stride,
            strcmp(l->shard[i].axis, "m") != 0 ? "@" : "",
            strcmp(l->shard[i].axis, "m") != 0 ? l->shard[i].axis : "");
    axe__text_put(t, "%s", hi - lo > 1 ? ")" : "");
}

/* One fragment for --explain: its 2-D shape, its layout and the iters of
 * each dimension (rows, columns), e.g. "A [16, 8]: S[(2,8,2,4):(1,4@laneid,
 * 2,1@laneid)], rows (2,8):(1,4@laneid), columns (2,4):(2,1@laneid)". */
static void describe_frag(ax_text *t, const ax_atom *a, int o)
{
    ax_frag f;
    axe_layout atom, grouped;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    char text[160];
    if (invert_tv(a, o, &f) != AXE_OK || frag_layout(&f, &atom) != AXE_OK ||
        axe_layout_group(&atom, f.shape, 2, &grouped, seps, NULL) != AXE_OK)
        return;
    (void)axe_print_layout(&atom, text, sizeof text);
    axe__text_put(t, "      %c [%lld, %lld]: %s, rows ", "ABC"[o],
                  (long long)f.shape[0], (long long)f.shape[1], text);
    put_iters(t, &grouped, seps[0], seps[1]);
    axe__text_put(t, ", columns ");
    put_iters(t, &grouped, seps[1], seps[2]);
    axe__text_put(t, "\n");
}

/* The tensor-core atom for the dtypes of gemm "s" with the smallest K
 * (the last of the dtypes in table order), if any: its name and (M, N,
 * K). */
bool axe__mma_atom_of(const axe_program *p, const ax_stmt *s, const char **name,
                      int64_t *mnk)
{
    axe_dtype d = p->tensors[s->args[1].tensor].dtype,
              bd = p->tensors[s->args[2].tensor].dtype,
              acc = p->tensors[s->args[0].tensor].dtype;
    const ax_atom *a = atom_for(d, bd, acc), *x;
    for (x = a; x != NULL; x = next_atom(x, d, bd, acc))
        a = x;
    if (a == NULL)
        return false;
    *name = a->name;
    memcpy(mnk, a->mnk, sizeof a->mnk);
    return true;
}

/* The grouped fragment "o" of gemm "s"'s atom number "which"
 * (compiler_synth.h). */
axe_status axe__mma_frag_grouped(const axe_program *p, const ax_stmt *s,
                                 int which, int o, axe_layout *grouped,
                                 int *seps, int64_t *nvals, int64_t *mnk)
{
    axe_dtype d = p->tensors[s->args[1].tensor].dtype,
              bd = p->tensors[s->args[2].tensor].dtype,
              acc = p->tensors[s->args[0].tensor].dtype;
    const ax_atom *a = atom_for(d, bd, acc);
    ax_frag f;
    axe_layout atom;
    for (int i = 0; a != NULL && i < which; i++)
        a = next_atom(a, d, bd, acc);
    if (a == NULL || which < 0)
        return AXE_ERR_UNSUPPORTED;
    AXE_TRY(invert_tv(a, o, &f));
    AXE_TRY(frag_layout(&f, &atom));
    AXE_TRY(axe_layout_group(&atom, f.shape, 2, grouped, seps, NULL));
    *nvals = f.nvals;
    memcpy(mnk, a->mnk, sizeof a->mnk);
    return AXE_OK;
}

/* For --explain: the atom of gemm "s"'s dtypes and its fragments, each
 * with its 2-D shape and the iters of its rows and columns. */
void axe__mma_describe(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_atom *a = atom_for(p->tensors[s->args[1].tensor].dtype,
                                p->tensors[s->args[2].tensor].dtype,
                                p->tensors[s->args[0].tensor].dtype);
    int o;
    for (o = 0; s->mma != NULL && o < NATOMS; o++)
        if (strcmp(atoms[o].name, s->mma->atom) == 0)
            a = &atoms[o]; /* the atom the schedule took */
    if (a == NULL)
        return;
    axe__text_put(t,
                  "    atom for these dtypes: %s, (M, N, K) = (%lld, %lld, "
                  "%lld); fragments over laneid and m:\n",
                  a->name, (long long)a->mnk[0], (long long)a->mnk[1],
                  (long long)a->mnk[2]);
    for (o = 0; o < 3; o++)
        describe_frag(t, a, o);
    if (s->tf32)
        axe__text_put(t, "    tf32: A and B rounded to tf32 as "
                         "cvt.rna.tf32.f32 does (10 mantissa bits, ties "
                         "away from zero), products exact in f32, summed in "
                         "f32 in the order of K\n");
}

/* "r" is a whole register tensor distributed over the threads of "sc". */
static axe_status check_operand(const axe_program *p, const ax_ref *r,
                                ax_scope sc, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int d;
    bool whole = !r->is_view;
    for (d = 0; whole && d < r->ndim; d++)
        whole = (r->start[d] == NULL ||
                 (r->start[d]->kind == AX_EX_INT && r->start[d]->value == 0)) &&
                r->len[d] == t->shape[d];
    if (t->mem != AX_MEM_REGISTER || !t->distributed || t->owner != sc ||
        !whole)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is not a whole register tensor distributed "
                         "over %s%s%s",
                         t->name,
                         sc == AX_SCOPE_WARP ? "a warp's lanes" : "the ",
                         sc == AX_SCOPE_WARP ? ""
                         : p->core           ? "core"
                                             : axe__scope_name(sc),
                         sc == AX_SCOPE_WARP ? "" : "'s threads");
    return AXE_OK;
}

/* The outer layout's shard iters are on memory, or on "warp" (the axis
 * that numbers the scope's warps; NULL: none) only; its replica iters
 * (allowed only with "replicas": a register A held by several warps) on
 * "warp" only. */
static bool outer_on(const axe_layout *l, const char *warp, bool replicas)
{
    int i;
    for (i = 0; i < l->nshard; i++)
        if (l->shard[i].extent != 1 &&
            axe__iter_rank_stride(&l->shard[i]) != 0 &&
            (warp == NULL || strcmp(l->shard[i].axis, warp) != 0))
            return false;
    for (i = 0; i < l->nreplica; i++)
        if (l->replica[i].extent != 1 &&
            (!replicas || warp == NULL ||
             strcmp(l->replica[i].axis, warp) != 0))
            return false;
    return true;
}

/* The register operand "t" (operand "o": 0 A, 1 B) over its atom
 * fragment by evaluation (axe__mma_reg_values): m->regs[o] and the warps
 * of each atom tile in *held; "perm" when m->offset[o] (a tile's outer
 * offset, from is_tile_inner) is not set, the registers then in another
 * order than the atom's and offset[o] the register of each tile's value
 * 0. "text" is the fragment's layout, for the reason. */
static axe_status reg_values(axe_program *p, const ax_tensor *t, int o,
                             const char *warp, ax_mma *m, const char *text,
                             uint64_t **held, axe_diag *why)
{
    const ax_frag *f = &m->frag[o];
    int64_t n, x;
    axe_diag d;
    axe_status st;
    axe_diag_clear(&d);
    st = axe__mma_reg_values(p->arena, t, f, warp, "AB"[o], &m -> regs[o], held,
                             &d);
    if (st == AXE_ERR_CAPACITY) /* from axe__mma_reg_values' points */
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' puts an element on more than %d threads (a "
                         "register operand's element lies on one lane of "
                         "each warp that holds its atom tile)",
                         t->name, AX_MMA_MAX_POINTS);
    if (st == AXE_ERR_UNSUPPORTED)
        return axe__fail(why, st, -1,
                         "'%s' is not a tile of the %c fragment [%lld, %lld] "
                         "%s: %s",
                         t->name, "ABC"[o], (long long)f -> shape[0],
                         (long long)f -> shape[1], text, d.message);
    AXE_TRY(st);
    if (m->offset[o] != NULL) {
        for (x = 0; x < (t->shape[0] / f->shape[0]) *
                            (t->shape[1] / f->shape[1]) * f->nvals;
             x++)
            AXE_ASSERT(m->regs[o][x] ==
                       m->offset[o][x / f->nvals] + x % f->nvals);
        return AXE_OK;
    }
    m->perm[o] = true;
    (void)snprintf(m->outer[o], sizeof m->outer[o], "none");
    n = (t->shape[0] / f->shape[0]) * (t->shape[1] / f->shape[1]);
    m->offset[o] = axe__arena_alloc(p->arena, (size_t)n * sizeof(int64_t));
    if (m->offset[o] == NULL)
        return AXE_ERR_NO_MEMORY;
    for (x = 0; x < n; x++)
        m->offset[o][x] = m->regs[o][x * f->nvals];
    return AXE_OK;
}

/* Operand "o" (0 A, 1 B, 2 C) of "s" as a tile of the atom's fragment,
 * the outer layout on memory and "warp" only; with "held" (the register
 * operand of mma_reg_a or mma_reg_b) the warps of each atom tile and the
 * register of each value (reg_values), its registers in any order. */
static axe_status tile_of_atom(axe_program *p, const ax_stmt *s,
                               const ax_atom *a, int o, const char *warp,
                               ax_mma *m, int64_t **owner, uint64_t **held,
                               axe_diag *why)
{
    const ax_ref *r = &s->args[o == 2 ? 0 : o + 1];
    const ax_tensor *t = &p->tensors[r->tensor];
    axe_layout atom, outer, canon;
    int64_t counts[2], span;
    bool found = false;
    axe_diag d;
    char text[128];
    if (invert_tv(a, o, &m->frag[o]) != AXE_OK ||
        frag_layout(&m->frag[o], &atom) != AXE_OK)
        return axe__fail(why, AXE_ERR_INVALID, -1, "bad atom table");
    counts[0] = t->shape[0] / m->frag[o].shape[0];
    counts[1] = t->shape[1] / m->frag[o].shape[1];
    (void)axe_print_layout(&atom, text, sizeof text);
    axe_diag_clear(&d);
    if (axe_layout_canonicalize(&t->layout, AXE_TARGET_NONE, &canon, &d) !=
            AXE_OK ||
        t->shape[0] % m->frag[o].shape[0] != 0 ||
        t->shape[1] % m->frag[o].shape[1] != 0 ||
        axe_layout_is_tile_inner(&atom, &canon, t->shape, m->frag[o].shape, 2,
                                 AXE_TARGET_NONE, &outer, &found,
                                 &d) != AXE_OK ||
        !found || !outer_on(&outer, warp, held != NULL)) {
        if (held == NULL)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' is not a tile of the %c fragment [%lld, "
                             "%lld] %s%s%s",
                             t->name, "ABC"[o],
                             (long long)m -> frag[o].shape[0],
                             (long long)m->frag[o].shape[1], text,
                             d.message[0] ? ": " : "", d.message);
        return reg_values(p, t, o, warp, m, text, held, why);
    }
    (void)axe_print_layout(&outer, m->outer[o], sizeof m->outer[o]);
    AXE_TRY(axe_layout_span(&atom, "m", &span));
    AXE_TRY(outer_tiles(p->arena, &outer, counts, span, warp, &m->offset[o],
                        owner));
    return held == NULL ? AXE_OK
                        : reg_values(p, t, o, warp, m, text, held, why);
}

static axe_status no_atom(axe_dtype dab, axe_dtype dc, axe_diag *why)
{
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "no mma atom for %s inputs with %s accumulate (f16 or "
                     "bf16 with f32: m16n8k16, m16n8k8; f32: m16n8k8 (tf32 "
                     "on cuda); f64: m8n8k4; i8 with i32, e4m3 or e5m2 "
                     "with f32: m16n8k32)",
                     axe_dtype_name(dab), axe_dtype_name(dc));
}

/* gemm.mma_atom's atom: the first of the dtypes (in table order) whose
 * fragments A, B and C tile the registers; the first atom's reason when
 * none does. */
static axe_status regs_atom(axe_program *p, const ax_stmt *s, const ax_atom **a,
                            ax_mma *m, axe_diag *why)
{
    axe_dtype d = (*a)->dtype, bd = (*a)->bdtype, acc = (*a)->acc;
    axe_diag first, d2;
    const ax_atom *x;
    int o;
    axe_diag_clear(&first);
    for (x = *a; x != NULL; x = next_atom(x, d, bd, acc)) {
        axe_status st = AXE_OK;
        axe_diag_clear(&d2);
        m->atom = x->name;
        m->from_memory = false;
        for (o = 0; st == AXE_OK && o < 3; o++) {
            /* the same for every atom */
            AXE_TRY(check_operand(p, &s->args[o == 2 ? 0 : o + 1],
                                  AX_SCOPE_WARP, why));
            st = tile_of_atom(p, s, x, o, NULL, m, NULL, NULL, &d2);
        }
        if (st == AXE_OK) {
            *a = x;
            memcpy(m->mnk, x->mnk, sizeof m->mnk);
            return AXE_OK;
        }
        if (st != AXE_ERR_UNSUPPORTED) {
            if (why != NULL)
                *why = d2;
            return st;
        }
        if (x == *a)
            first = d2;
    }
    if (why != NULL)
        *why = first;
    return AXE_ERR_UNSUPPORTED;
}

/* gemm.mma_atom (see the file comment). */
axe_status axe__gemm_mma(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit)
{
    axe_dtype dc = p->tensors[s->args[0].tensor].dtype,
              dab = p->tensors[s->args[1].tensor].dtype;
    const ax_atom *a = atom_for(dab, p->tensors[s->args[2].tensor].dtype, dc);
    ax_mma *m;
    if (s->scope != AX_SCOPE_WARP)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "an mma atom runs on one warp, not at %s scope",
                         axe__stmt_scope_name(p, s));
    if (a == NULL)
        return no_atom(dab, dc, why);
    m = axe__arena_alloc(p->arena, sizeof *m);
    if (m == NULL)
        return AXE_ERR_NO_MEMORY;
    memset(m, 0, sizeof *m);
    AXE_TRY(regs_atom(p, s, &a, m, why));
    m->tiles[0] = p->tensors[s->args[0].tensor].shape[0] / a->mnk[0];
    m->tiles[1] = p->tensors[s->args[0].tensor].shape[1] / a->mnk[1];
    m->tiles[2] = p->tensors[s->args[1].tensor].shape[1] / a->mnk[2];
    memset(plan, 0, sizeof *plan);
    plan->binding = 0;
    plan->vec = 1;
    if (commit)
        s->mma = m;
    return AXE_OK;
}

/* The scope's warp axis of a gemm at scope "sc" (NULL at warp scope). */
static const char *warp_axis(ax_scope sc)
{
    return sc == AX_SCOPE_CTA         ? "warpid"
           : sc == AX_SCOPE_WARPGROUP ? "wid_in_wg"
                                      : NULL;
}

/* What gemm.mma_smem, gemm.mma_reg_a and gemm.mma_reg_b check once,
 * whatever the atom: the scope, an atom for the dtypes (the first in
 * *first), B in memory (a register with "reg" 2: mma_reg_b), C a whole
 * register distributed over the scope. */
static axe_status collective_checks(axe_program *p, ax_stmt *s, int reg,
                                    const ax_atom **first, axe_diag *why)
{
    const ax_tensor *tc = &p->tensors[s->args[0].tensor],
                    *tb = &p->tensors[s->args[2].tensor];
    axe_dtype dab = p->tensors[s->args[1].tensor].dtype;
    *first = atom_for(dab, tb->dtype, tc->dtype);
    if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "an mma atom runs on the lanes of warps, not at %s "
                         "scope",
                         axe__stmt_scope_name(p, s));
    if (*first == NULL)
        return no_atom(dab, tc->dtype, why);
    if (tb->mem == AX_MEM_REGISTER && reg != 2)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is a register: B is read from shared or global "
                         "memory (mma_reg_b takes B from registers, mma_atom "
                         "A, B and C in one warp's)",
                         tb->name);
    return check_operand(p, &s->args[0], s->scope, why);
}

/* "warp 3" or "warps 0, 2" of the bit set "h" into "buf". */
static void warps_text(uint64_t h, char *buf, size_t cap)
{
    size_t len;
    int w, n = 0;
    for (w = 0; w < AX_MMA_MAX_WARPS; w++)
        n += (int)((h >> w) & 1);
    len = (size_t)snprintf(buf, cap, "warp%s", n == 1 ? "" : "s");
    for (w = 0, n = 0; w < AX_MMA_MAX_WARPS && len < cap; w++)
        if ((h >> w) & 1)
            len += (size_t)snprintf(buf + len, cap - len, "%s %d",
                                    n++ ? "," : "", w);
}

/* Every warp that holds a C atom tile (mi, ni) holds the atom tiles of
 * register operand "o" (0 A: row mi, 1 B: row ni, all of K), so that it
 * multiplies its own fragments: one warp per tile, or several (replica
 * iters on the warp axis: A replicated over the warps of C's columns, B
 * over those of C's rows). "held": the warps of each tile of "o". */
static axe_status rows_held(const axe_program *p, const ax_stmt *s,
                            const ax_mma *m, int o, const uint64_t *held,
                            axe_diag *why)
{
    int64_t mi, ni, ki;
    for (mi = 0; mi < m->tiles[0]; mi++)
        for (ni = 0; ni < m->tiles[1]; ni++)
            for (ki = 0; ki < m->tiles[2]; ki++) {
                int64_t w = m->owner[mi * m->tiles[1] + ni],
                        r = o == 0 ? mi : ni;
                uint64_t h = held[r * m->tiles[2] + ki];
                char ws[8 + AX_MMA_MAX_WARPS * 4];
                if ((h >> w) & 1)
                    continue;
                warps_text(h, ws, sizeof ws);
                return axe__fail(
                    why, AXE_ERR_UNSUPPORTED, -1,
                    "the atom tile (%lld, %lld) of '%s' is held by %s but "
                    "C's tile (%lld, %lld) by warp %lld: each warp "
                    "multiplies the %c fragments it holds",
                    (long long)r, (long long)ki,
                    p->tensors[s->args[o + 1].tensor].name, ws, (long long)mi,
                    (long long)ni, (long long)w, "AB"[o]);
            }
    return AXE_OK;
}

/* One candidate atom "a" of gemm.mma_smem, or with "reg" 1 (2)
 * gemm.mma_reg_a (gemm.mma_reg_b): K a multiple of the atom's K, C a tile
 * of its C fragment over the scope's warps, and A and B their fragments'
 * tables (mma_smem) or the register operand a tile of its fragment held
 * by the warps of C's rows (A) or columns (B); the new ax_mma in *out. */
static axe_status atom_tiles_of_c(axe_program *p, ax_stmt *s, const ax_atom *a,
                                  int reg, ax_mma **out, axe_diag *why)
{
    const ax_tensor *tc = &p->tensors[s->args[0].tensor];
    int64_t k = axe__ref_len(&s->args[1], 2);
    uint64_t *held = NULL;
    ax_mma *m;
    if (k % a->mnk[2] != 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "K = %lld is not a multiple of the atom's K = %lld",
                         (long long)k, (long long)a->mnk[2]);
    m = axe__arena_alloc(p->arena, sizeof *m);
    if (m == NULL)
        return AXE_ERR_NO_MEMORY;
    memset(m, 0, sizeof *m);
    m->atom = a->name;
    m->from_memory = true;
    m->warp = warp_axis(s->scope);
    if ((reg != 2 && invert_tv(a, 1, &m->frag[1]) != AXE_OK) ||
        (reg != 1 && invert_tv(a, 0, &m->frag[0]) != AXE_OK))
        return axe__fail(why, AXE_ERR_INVALID, -1, "bad atom table");
    AXE_TRY(tile_of_atom(p, s, a, 2, m->warp, m, &m->owner, NULL, why));
    m->tiles[0] = tc->shape[0] / a->mnk[0];
    m->tiles[1] = tc->shape[1] / a->mnk[1];
    m->tiles[2] = k / a->mnk[2];
    memcpy(m->mnk, a->mnk, sizeof m->mnk);
    if (reg != 0) {
        AXE_TRY(check_operand(p, &s->args[reg], s->scope, why));
        AXE_TRY(tile_of_atom(p, s, a, reg - 1, m->warp, m, NULL, &held, why));
        AXE_TRY(rows_held(p, s, m, reg - 1, held, why));
        m->reg = reg;
    }
    *out = m;
    return AXE_OK;
}

/* A and B, but the register operand "reg" (0: none), are affine in the
 * digits of C's plan. */
static axe_status operands_affine(const axe_program *p, const ax_stmt *s,
                                  const ax_plan *plan, int reg, axe_diag *why)
{
    int i;
    for (i = 1; i < 3; i++)
        if (i != reg && !plan->affine[i])
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' is not affine in the digits of C's "
                             "plan: the atom loop addresses A and B by "
                             "strides",
                             p->tensors[s->args[i].tensor].name);
    return AXE_OK;
}

/* "m16n8k16" of an atom's name into "buf". */
static void shape_name(const char *name, char *buf, size_t cap)
{
    const char *x = strstr(name, ".m");
    size_t n = 0;
    if (x != NULL)
        for (x++; x[n] != '\0' && x[n] != '.' && x[n] != ' '; n++)
            ;
    (void)snprintf(buf, cap, "%.*s", (int)n, x != NULL ? x : name);
}

/* The cost of candidate "m" (docs/compiler.md "Instruction choice"):
 * warp 0's mma.sync count (its C atom tiles x the atom K steps) plus the
 * cost of the chosen load leaf of each operand in shared memory
 * (compiler_synth_inst.c; a register A or an operand in global memory
 * adds nothing). */
static double smem_cost(const axe_program *p, const ax_stmt *s, const ax_mma *m,
                        const ax_plan *plan, int64_t *mmas)
{
    int64_t x, n = m->tiles[0] * m->tiles[1];
    double c;
    *mmas = 0;
    for (x = 0; x < n; x++)
        *mmas += m->owner == NULL || m->owner[x] == 0;
    *mmas *= m->tiles[2];
    c = (double)*mmas;
    for (int o = 0; o < 2; o++) {
        ax_inst_choice ch;
        axe_diag d;
        if (axe__inst_choose_on(p, s, m, plan, o, &ch, &d) == AXE_OK &&
            ch.chosen >= 0)
            c += ch.leaf[ch.chosen].cost;
    }
    return c;
}

/* The end of m->shapes and the room left there. */
static char *shapes_end(ax_mma *m, size_t *room)
{
    size_t len = strlen(m->shapes);
    *room = sizeof m->shapes - len;
    return m->shapes + len;
}

/* The weighed atoms (the chosen "best", the runner-up "second", those
 * that do not apply with their reasons) into m->shapes and m->shape. */
static void shapes_text(ax_mma *m, const char *const *names, const double *cost,
                        const int64_t *mmas, const axe_diag *whys, int n,
                        int best, int second)
{
    char *e;
    size_t room;
    int w[2] = {best, second};
    memset(m->shape, 0, sizeof m->shape);
    for (int i = 0; i < 2 && w[i] >= 0; i++) {
        shape_name(names[w[i]], m->shape[i], sizeof m->shape[i]);
        m->shape_cost[i] = cost[w[i]];
        m->shape_mmas[i] = mmas[w[i]];
    }
    (void)snprintf(m->shapes, sizeof m->shapes,
                   "%s, cost %.17g (%lld mma.sync and the loads); "
                   "runner-up: ",
                   m->shape[0], cost[best], (long long)mmas[best]);
    e = shapes_end(m, &room);
    if (second >= 0)
        (void)snprintf(e, room, "%s, cost %.17g (%lld mma.sync and the loads)",
                       m->shape[1], cost[second], (long long)mmas[second]);
    else
        (void)snprintf(e, room, "none");
    for (int i = 0; i < n; i++)
        if (cost[i] < 0) {
            char sh[32];
            shape_name(names[i], sh, sizeof sh);
            e = shapes_end(m, &room);
            (void)snprintf(e, room, "; %s does not apply: %s", sh,
                           whys[i].message);
        }
}

/* An f32 gemm without tf32 runs f32 FMA on the atom's fragments on every
 * target (no mma.sync: tf32 rounds the inputs): the shape texts say what
 * runs ("f32 FMA m16n8k8") and its cost is its count of warp 0's atom
 * steps (the mma model's cost weighs mma.sync and fragment loads, which
 * do not run; there is no other way to weigh it against). */
static void fma_text(ax_mma *m)
{
    char sh[16]; /* an atom's name ("m16n8k16") */
    (void)snprintf(sh, sizeof sh, "%.15s", m->shape[0]);
    (void)snprintf(m->shape[0], sizeof m->shape[0], "f32 FMA %s", sh);
    m->shape_cost[0] = (double)m->shape_mmas[0];
    (void)snprintf(m->shapes, sizeof m->shapes,
                   "%s, cost %.17g (%lld atom steps of f32 FMA on the %s "
                   "fragments; tf32 mma.sync only when the kernel asks for "
                   "it: gemm(C, A, B, tf32)); runner-up: none",
                   m->shape[0], m->shape_cost[0], (long long)m->shape_mmas[0],
                   sh);
    memset(m->shape[1], 0, sizeof m->shape[1]);
}

/* The plan of gemm.mma_smem (C's per-thread plan, A and B affine in its
 * digits) or gemm.mma_reg_a / mma_reg_b (the register operand "reg" left
 * out of it); the same for every atom. */
static axe_status atoms_plan(axe_program *p, ax_stmt *s, int reg, ax_plan *plan,
                             axe_diag *why)
{
    if (reg != 0)
        AXE_TRY(axe__plan_build_skip(p, s, AX_PLAN_BOUND, 0, reg, plan, why));
    else
        AXE_TRY(axe__sched_thread_loop(p, s, plan, why));
    return operands_affine(p, s, plan, reg, why);
}

/* The candidates of weigh_atoms: per atom of the dtypes from "first",
 * its tiling (cost 0) or, when it does not apply, cost -1 and the
 * reason. */
typedef struct mma_cands {
    int n;
    ax_mma *m[AX_MMA_SHAPES];
    const char *names[AX_MMA_SHAPES];
    double cost[AX_MMA_SHAPES];
    int64_t mmas[AX_MMA_SHAPES];
    axe_diag whys[AX_MMA_SHAPES];
} mma_cands;

static axe_status atom_candidates(axe_program *p, ax_stmt *s,
                                  const ax_atom *first, int reg, mma_cands *c,
                                  axe_diag *why)
{
    const ax_atom *x;
    c->n = 0;
    for (x = first; x != NULL && c->n < AX_MMA_SHAPES;
         x = next_atom(x, first->dtype, first->bdtype, first->acc), c->n++) {
        int i = c->n;
        axe_status st;
        axe_diag_clear(&c->whys[i]);
        c->names[i] = x->name;
        c->mmas[i] = 0;
        st = atom_tiles_of_c(p, s, x, reg, &c->m[i], &c->whys[i]);
        if (st != AXE_OK && st != AXE_ERR_UNSUPPORTED) {
            if (why != NULL)
                *why = c->whys[i];
            return st;
        }
        c->cost[i] = st == AXE_OK ? 0 : -1;
    }
    return AXE_OK;
}

/* gemm.mma_smem and gemm.mma_reg_a over the atoms of the dtypes from
 * "first" (f16: m16n8k16, m16n8k8): each that applies (atom_tiles_of_c)
 * is weighed by smem_cost on the plan; the cheapest in *out (ties: table
 * order); the first atom's reason when none applies. */
static axe_status weigh_atoms(axe_program *p, ax_stmt *s, const ax_atom *first,
                              int reg, ax_plan *plan, ax_mma **out,
                              axe_diag *why)
{
    mma_cands c;
    int i, best = -1, second = -1;
    AXE_TRY(atom_candidates(p, s, first, reg, &c, why));
    for (i = 0; i < c.n && best < 0; i++)
        best = c.cost[i] < 0 ? -1 : i;
    if (best < 0) {
        if (why != NULL)
            *why = c.whys[0];
        return AXE_ERR_UNSUPPORTED;
    }
    AXE_TRY(atoms_plan(p, s, reg, plan, why));
    best = -1;
    for (i = 0; i < c.n; i++) {
        if (c.cost[i] < 0)
            continue;
        c.cost[i] = smem_cost(p, s, c.m[i], plan, &c.mmas[i]);
        if (best < 0 || c.cost[i] < c.cost[best]) {
            second = best;
            best = i;
        } else if (second < 0 || c.cost[i] < c.cost[second])
            second = i;
    }
    shapes_text(c.m[best], c.names, c.cost, c.mmas, c.whys, c.n, best, second);
    if (p->tensors[s->args[1].tensor].dtype == AXE_DTYPE_F32 && !s->tf32)
        fma_text(c.m[best]);
    *out = c.m[best];
    return AXE_OK;
}

/* gemm.mma_smem: C is a register tile of the atom's C fragment whose outer
 * layout spreads the atom tiles over the scope's warps (warpid, wid_in_wg)
 * and memory; A and B are read from shared or global memory (ldmatrix on a
 * GPU). The per-thread plan bound by C gives A's and B's strides per
 * coordinate digit; on the C backend each lane loops over its warp's atom
 * tiles (the owner of each tile from the outer layout) and accumulates
 * its C fragment values over the atom K tiles, then K within the atom,
 * from A and B in memory (the atom's reference implementation). Among the
 * atoms of the dtypes (m16n8k16 and m16n8k8 for f16), each that tiles C
 * with K a multiple of its K is weighed (weigh_atoms). */
axe_status axe__gemm_mma_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                              axe_diag *why, bool commit)
{
    const ax_tensor *ta = &p->tensors[s->args[1].tensor];
    const ax_atom *first;
    ax_mma *m;
    if (ta->mem == AX_MEM_REGISTER)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is a register: mma_smem reads A and B "
                         "from shared or global memory (mma_reg_a takes A "
                         "from registers)",
                         ta->name);
    AXE_TRY(collective_checks(p, s, 0, &first, why));
    AXE_TRY(weigh_atoms(p, s, first, 0, plan, &m, why));
    if (commit)
        s->mma = m;
    return AXE_OK;
}

/* gemm.mma_reg_a: as gemm.mma_smem with A a register tile of the atom's A
 * fragment (attention's P V: P is the first gemm's C, and the A fragment
 * of m16n8k16 has the C fragment's rows), its atom tiles held by the
 * warps of C's rows. B is read from memory at the strides of C's plan
 * (A left out of it); on the C backend each lane reads the A fragment
 * values of its warp's lanes, as gemm.mma_atom does, so the operator runs
 * between two barriers. The atoms are weighed as for gemm.mma_smem (A
 * costs no loads). */
axe_status axe__gemm_mma_reg_a(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit)
{
    const ax_tensor *ta = &p->tensors[s->args[1].tensor];
    const ax_atom *first;
    ax_mma *m;
    if (ta->mem != AX_MEM_REGISTER)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is in memory: mma_reg_a takes A from "
                         "registers (mma_smem reads it from memory)",
                         ta->name);
    AXE_TRY(collective_checks(p, s, 1, &first, why));
    AXE_TRY(weigh_atoms(p, s, first, 1, plan, &m, why));
    if (commit)
        s->mma = m;
    return AXE_OK;
}

/* gemm.mma_reg_b: gemm.mma_reg_a's mirror, B a register tile of the
 * atom's B fragment whose atom tiles are held by the warps of C's columns
 * (replicated over the warps of C's rows when there are several), A read
 * from memory at the strides of C's plan (B left out of it). */
axe_status axe__gemm_mma_reg_b(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit)
{
    const ax_tensor *ta = &p->tensors[s->args[1].tensor],
                    *tb = &p->tensors[s->args[2].tensor];
    const ax_atom *first;
    ax_mma *m;
    if (tb->mem != AX_MEM_REGISTER || ta->mem == AX_MEM_REGISTER)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is %s: mma_reg_b takes B from registers and "
                         "A from memory",
                         tb->mem != AX_MEM_REGISTER ? tb->name : ta->name,
                         tb->mem != AX_MEM_REGISTER ? "in memory"
                                                    : "a register");
    AXE_TRY(collective_checks(p, s, 2, &first, why));
    AXE_TRY(weigh_atoms(p, s, first, 2, plan, &m, why));
    if (commit)
        s->mma = m;
    return AXE_OK;
}
