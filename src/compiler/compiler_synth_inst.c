/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Instruction choice for the shared-memory operands of gemm.mma_smem
 * (compiler_synth_inst.h): each leaf is evaluated on the operand's real
 * addresses, not predicted. For warp 0's atom tiles of the operand and
 * every atom K step, the element at (row, k) of the tile lives at the
 * swizzled address swz(base + plan digits), base's dynamic terms at 0.
 *   ldmatrix .xN (N = the fragment's 32-bit registers, 1, 2 or 4; 8- and
 *     16-bit elements): the fragment must be in quad form (value u*j + e
 *     of lane l at (r0[j] + l/4, c0[j] + u*(l%4) + e), u elements per
 *     register) and each of the 8N rows that lanes give (row l%8 of
 *     matrix l/8, from (r0[j], c0[j])) 16 consecutive bytes on a 16-byte
 *     boundary; dynamic base terms multiples of 16 bytes. One instruction
 *     per atom tile, 16-byte lanes.
 *   ldmatrix .xN.trans (16-bit): the same with the rows along the tile's
 *     rows: lane l gives column c0[j] + l%8 from row r0[j].
 *   ld.shared.v4.b32 / .v2.b32 / .b32 (N = 4, 2, 1 fragment registers of
 *     32 bits per load; elements of 8, 16 or 32 bits, .b32 not for 32-bit
 *     ones, where it is the per-thread load): lane 0's registers at the
 *     first atom tile and K step, in address order, give the groups of N
 *     (each from a 4N-byte boundary, the only grouping a single load can
 *     fill); legal when, for every lane, every atom tile of the operand
 *     (every warp's) and every K step, each group's registers are 4N
 *     consecutive bytes from a 4N-byte boundary (element e of the group's
 *     register i at byte 4i + e * size), and every dynamic base term is
 *     a multiple of 4N bytes. One instruction per group, 4N-byte lanes.
 *   per-thread loads: one load per fragment value (nvals per atom tile,
 *     32 lanes of one element each), always legal.
 * Each instruction's wavefronts come from the bank model (axe__bank_count:
 * 32 banks of 4 bytes, phases of 8 lanes for 16-byte accesses). Cost =
 * wavefronts + instructions (a shared-memory cycle per wavefront and an
 * issue slot per instruction); the cheapest legal leaf wins, ties in the
 * order ldmatrix, ldmatrix.trans, .v4, .v2, .b32, per-thread.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_smem.h"
#include "compiler_synth_inst.h"

typedef struct inst_ctx {
    const axe_program *p;
    const ax_stmt *s;
    const ax_mma *m;
    const ax_plan *plan;
    int o;
    int64_t eb, unit, nregs;
    ax_base base;
    const axe_layout_swizzle *sw;
    int64_t pos[AX_WARP][AX_FRAG_MAX / AX_WARP];
    int64_t r0[AX_FRAG_MAX_REGS], c0[AX_FRAG_MAX_REGS];
    bool quad;
} inst_ctx;

/* The swizzled element address of (row, k) of the operand: row along M
 * (A) or N (B), k along K, in the whole operand. */
static axe_status elem_addr(const inst_ctx *c, int64_t row, int64_t k,
                            int64_t *out)
{
    const ax_plan *plan = c->plan;
    int64_t co[3] = {0, 0, 0}, off = c->base.cst;
    co[c->o == 0 ? 0 : 1] = row;
    co[2] = k;
    for (int i = 0; i < plan->nloops; i++)
        off += co[plan->loops[i].dim] / plan->loops[i].weight %
               plan->loops[i].extent * plan->loops[i].stride[c->o + 1];
    if (c->sw == NULL) {
        *out = off;
        return AXE_OK;
    }
    return axe__swizzle_addr(c->sw, off, out);
}

/* The quad form of the fragment (file comment), in c->r0/c0. */
static bool quad_form(inst_ctx *c)
{
    const ax_frag *f = &c->m->frag[c->o];
    int64_t u = c->unit, w = f->shape[1];
    if (f->nvals % u != 0 || f->nvals / u > AX_FRAG_MAX_REGS)
        return false;
    c->nregs = f->nvals / u;
    for (int64_t j = 0; j < c->nregs; j++) {
        c->r0[j] = c->pos[0][u * j] / w;
        c->c0[j] = c->pos[0][u * j] % w;
        for (int64_t l = 0; l < AX_WARP; l++)
            for (int64_t e = 0; e < u; e++) {
                int64_t x = c->pos[l][u * j + e];
                if (x / w != c->r0[j] + l / 4 ||
                    x % w != c->c0[j] + u * (l % 4) + e)
                    return false;
            }
    }
    return true;
}

static void leaf_fail(ax_inst_leaf *l, const char *why)
{
    l->legal = false;
    (void)snprintf(l->why, sizeof l->why, "%s", why);
}

axe_status axe__inst_leaf_add(ax_inst_leaf *l, const ax_tile_access *acc, int n,
                              int64_t elem_bits, const axe_layout_swizzle *sw,
                              axe_diag *diag)
{
    ax_ways w;
    AXE_TRY(axe__tile_ways(acc, n, elem_bits, sw, &w, diag));
    l->instructions += n;
    l->wavefronts += w.wavefronts;
    l->ways = w.max > l->ways ? w.max : l->ways;
    return AXE_OK;
}

/* Adds one warp-wide access of "width" bytes per lane from the byte
 * addresses (swizzled already) of "a" to leaf "l". */
static axe_status add_access(ax_inst_leaf *l, ax_tile_access *a, int width,
                             axe_diag *diag)
{
    a->vec = width;
    return axe__inst_leaf_add(l, a, 1, 8, NULL, diag);
}

/* The ldmatrix of the atom tile at (tr, tk) (first row, first k). */
static axe_status ldmatrix_tile(const inst_ctx *c, bool trans, int64_t tr,
                                int64_t tk, ax_inst_leaf *l, axe_diag *diag)
{
    int64_t run = 16 / c->eb;
    ax_tile_access a;
    memset(&a, 0, sizeof a);
    for (int64_t ln = 0; ln < 8 * c->nregs; ln++) {
        int64_t j = ln / 8, row = tr + c->r0[j] + (trans ? 0 : ln % 8),
                k = tk + c->c0[j] + (trans ? ln % 8 : 0), a0, ae;
        AXE_TRY(elem_addr(c, row, k, &a0));
        if (a0 * c->eb % 16 != 0) {
            leaf_fail(l, "a row's first element is not on a 16-byte "
                         "boundary");
            return AXE_OK;
        }
        for (int64_t e = 1; e < run; e++) {
            AXE_TRY(
                elem_addr(c, row + (trans ? e : 0), k + (trans ? 0 : e), &ae));
            if (ae != a0 + e) {
                leaf_fail(l, trans ? "the 16 bytes along the tile's rows "
                                     "are not consecutive"
                                   : "the 16 bytes along K are not "
                                     "consecutive");
                return AXE_OK;
            }
        }
        a.active[ln] = true;
        a.elem[ln] = a0 * c->eb;
    }
    return add_access(l, &a, 16, diag);
}

/* The per-thread loads of the atom tile at (tr, tk). */
static axe_status thread_tile(const inst_ctx *c, int64_t tr, int64_t tk,
                              ax_inst_leaf *l, axe_diag *diag)
{
    const ax_frag *f = &c->m->frag[c->o];
    ax_tile_access a;
    for (int64_t v = 0; v < f->nvals; v++) {
        memset(&a, 0, sizeof a);
        for (int ln = 0; ln < AX_WARP; ln++) {
            int64_t x = c->pos[ln][v], addr;
            AXE_TRY(elem_addr(c, tr + x / f->shape[1], tk + x % f->shape[1],
                              &addr));
            a.active[ln] = true;
            a.elem[ln] = addr * c->eb;
        }
        AXE_TRY(add_access(l, &a, (int)c->eb, diag));
    }
    return AXE_OK;
}

/* Whether warp 0 holds a C atom tile in tile row (A) or column (B) "t". */
static bool warp0_uses(const ax_mma *m, int o, int64_t t)
{
    for (int64_t x = 0; x < m->tiles[1 - o]; x++) {
        int64_t i = o == 0 ? t * m->tiles[1] + x : x * m->tiles[1] + t;
        if (m->owner == NULL || m->owner[i] == 0)
            return true;
    }
    return false;
}

/* Why ldmatrix (k 0 or 1) cannot apply before evaluating any address
 * (NULL: it may). */
static const char *ldmatrix_precheck(const inst_ctx *c, int k)
{
    int64_t w = 16 / c->eb;
    if (c->eb != 1 && c->eb != 2)
        return "ldmatrix moves 8- and 16-bit elements only";
    if (k == AX_INST_LDMATRIX_TRANS && c->eb != 2)
        return "ldmatrix .trans moves 16-bit elements only";
    if (!c->quad || (c->nregs != 1 && c->nregs != 2 && c->nregs != 4))
        return "the fragment is no tile of ldmatrix's 8x8 matrices";
    for (int64_t j = 0; j < c->nregs; j++)
        if ((k == AX_INST_LDMATRIX ? c->c0[j] : c->r0[j]) % w != 0)
            return "the fragment's matrices do not start on 16-byte rows";
    for (int i = 0; i < c->base.ndyn; i++)
        if (axe__expr_gcd(c->base.dyn[i]) * c->base.scale[i] % w != 0)
            return "a dynamic offset of the operand is not a multiple of "
                   "16 bytes";
    return NULL;
}

/* Registers per load of vector leaf "k" (0: not one). */
int axe__inst_vec_regs(ax_inst_kind k)
{
    return k == AX_INST_V4 ? 4 : k == AX_INST_V2 ? 2 : k == AX_INST_B32 ? 1 : 0;
}

/* The byte address of element "e" of register "j" of lane "ln" of the
 * atom tile at (tr, tk). */
static axe_status reg_byte(const inst_ctx *c, int64_t tr, int64_t tk, int ln,
                           int64_t j, int64_t e, int64_t *out)
{
    const ax_frag *f = &c->m->frag[c->o];
    int64_t x = c->pos[ln][c->unit * j + e], a;
    AXE_TRY(elem_addr(c, tr + x / f->shape[1], tk + x % f->shape[1], &a));
    *out = a * c->eb;
    return AXE_OK;
}

/* Why vector leaf of "n" registers cannot apply before evaluating any
 * address (false: it may), into l->why. */
static bool vec_precheck(const inst_ctx *c, int64_t n, ax_inst_leaf *l)
{
    const char *why = NULL;
    if (c->eb > 4)
        why = "the elements are wider than the 32-bit registers";
    else if (n == 1 && c->eb == 4)
        why = "32-bit elements: the per-thread loads are 32-bit already";
    else if (c->nregs == 0 || c->nregs % n != 0)
        why = "the fragment's registers do not come in groups of the "
              "vector";
    for (int i = 0; why == NULL && i < c->base.ndyn; i++)
        if (axe__expr_gcd(c->base.dyn[i]) * c->base.scale[i] * c->eb %
                (4 * n) !=
            0)
            why = "a dynamic offset of the operand is not a multiple of the "
                  "vector's bytes";
    if (why != NULL)
        leaf_fail(l, why);
    return why != NULL;
}

/* The groups of vector leaf "l" ("n" registers each) from lane 0 at the
 * first atom tile and K step: each register at a 4n-byte boundary leads
 * the registers at the next 4-byte words. False when some register is
 * left out (l->why says so). */
static axe_status vec_order(const inst_ctx *c, int64_t n, ax_inst_leaf *l,
                            bool *ok)
{
    int64_t a[AX_FRAG_MAX_REGS], cnt = 0;
    for (int64_t j = 0; j < c->nregs; j++)
        AXE_TRY(reg_byte(c, 0, 0, 0, j, 0, &a[j]));
    for (int64_t j = 0; j < c->nregs; j++) {
        if (a[j] % (4 * n) != 0)
            continue;
        for (int64_t i = 0; i < n; i++) {
            int64_t q = 0;
            while (q < c->nregs && a[q] != a[j] + 4 * i)
                q++;
            if (q == c->nregs || cnt >= c->nregs)
                break;
            l->order[cnt++] = (int)q;
        }
        if (cnt % n != 0)
            break;
    }
    *ok = cnt == c->nregs;
    if (!*ok)
        leaf_fail(l, "lane 0's registers are not the vector's consecutive, "
                     "aligned 32-bit words");
    return AXE_OK;
}

/* Whether every lane's groups of "n" registers are 4n consecutive bytes
 * from a 4n-byte boundary in the atom tile "t" (of the operand's rows or
 * columns) at K step "ks"; the first address of group g of lane ln into
 * first[g][ln] (NULL: not wanted). The first lane that fails, in lane
 * order, is named in "why" ("": none fails). */
static axe_status vec_tile(const inst_ctx *c, int64_t n, const ax_inst_leaf *l,
                           int64_t t, int64_t ks, int64_t (*first)[AX_WARP],
                           char *why, size_t cap)
{
    const ax_mma *m = c->m;
    int64_t ng = c->nregs / n, tr = t * m->mnk[c->o], tk = ks * m->mnk[2];
    for (int ln = 0; ln < AX_WARP; ln++)
        for (int64_t q = 0; q < ng; q++) {
            int64_t a0, ae;
            AXE_TRY(reg_byte(c, tr, tk, ln, l->order[q * n], 0, &a0));
            if (first != NULL)
                first[q][ln] = a0;
            if (a0 % (4 * n) != 0) {
                (void)snprintf(why, cap,
                               "lane %d's vector does not start on a "
                               "boundary of its bytes (atom tile %lld, K "
                               "step %lld)",
                               ln, (long long)t, (long long)ks);
                return AXE_OK;
            }
            for (int64_t i = 0; i < n; i++)
                for (int64_t e = 0; e < c->unit; e++) {
                    AXE_TRY(
                        reg_byte(c, tr, tk, ln, l->order[q * n + i], e, &ae));
                    if (ae != a0 + 4 * i + e * c->eb) {
                        (void)snprintf(why, cap,
                                       "lane %d's registers are not "
                                       "consecutive bytes (atom tile %lld, "
                                       "K step %lld)",
                                       ln, (long long)t, (long long)ks);
                        return AXE_OK;
                    }
                }
        }
    return AXE_OK;
}

/* Vector leaf "k": legal over every atom tile of the operand and K step,
 * counted over warp 0's (each tile's addresses evaluated once, in one
 * pass: linear in the groups; an illegal leaf keeps no counts). */
static axe_status eval_vec(const inst_ctx *c, int k, ax_inst_leaf *l,
                           axe_diag *diag)
{
    const ax_mma *m = c->m;
    int64_t n = axe__inst_vec_regs((ax_inst_kind)k), first[16][AX_WARP];
    char why[sizeof l->why + 64] = ""; /* room for any 64-bit numbers */
    bool ok;
    l->regs = (int)n;
    if (vec_precheck(c, n, l))
        return AXE_OK;
    AXE_TRY(vec_order(c, n, l, &ok));
    for (int64_t t = 0; ok && why[0] == '\0' && t < m->tiles[c->o]; t++)
        for (int64_t ks = 0; why[0] == '\0' && ks < m->tiles[2]; ks++) {
            bool w0 = warp0_uses(m, c->o, t);
            AXE_TRY(
                vec_tile(c, n, l, t, ks, w0 ? first : NULL, why, sizeof why));
            for (int64_t g = 0; w0 && why[0] == '\0' && g < c->nregs / n; g++) {
                ax_tile_access a;
                memset(&a, 0, sizeof a);
                for (int ln = 0; ln < AX_WARP; ln++) {
                    a.active[ln] = true;
                    a.elem[ln] = first[g][ln];
                }
                AXE_TRY(add_access(l, &a, (int)(4 * n), diag));
            }
        }
    if (!ok || why[0] != '\0') {
        l->instructions = l->wavefronts = l->ways = 0;
        if (why[0] != '\0')
            leaf_fail(l, why);
        return AXE_OK;
    }
    l->cost = (double)(l->wavefronts + l->instructions);
    (void)snprintf(l->why, sizeof l->why,
                   "%d fragment register%s (%d bytes) per lane per load",
                   (int)n, n == 1 ? "" : "s", (int)(4 * n));
    return AXE_OK;
}

/* Leaf "k" over warp 0's atom tiles and every K step. */
static axe_status eval_leaf(const inst_ctx *c, int k, ax_inst_leaf *l,
                            axe_diag *diag)
{
    const ax_mma *m = c->m;
    const char *pre = k == AX_INST_LDMATRIX || k == AX_INST_LDMATRIX_TRANS
                          ? ldmatrix_precheck(c, k)
                          : NULL;
    memset(l, 0, sizeof *l);
    l->legal = true;
    l->regs = (int)c->nregs;
    if (axe__inst_vec_regs((ax_inst_kind)k) > 0)
        return eval_vec(c, k, l, diag);
    if (pre != NULL) {
        leaf_fail(l, pre);
        return AXE_OK;
    }
    for (int64_t t = 0; t < m->tiles[c->o]; t++)
        for (int64_t ks = 0; warp0_uses(m, c->o, t) && ks < m->tiles[2]; ks++) {
            int64_t tr = t * m->mnk[c->o], tk = ks * m->mnk[2];
            if (k == AX_INST_THREAD)
                AXE_TRY(thread_tile(c, tr, tk, l, diag));
            else
                AXE_TRY(ldmatrix_tile(c, k == AX_INST_LDMATRIX_TRANS, tr, tk, l,
                                      diag));
            if (!l->legal)
                return AXE_OK;
        }
    l->cost = (double)(l->wavefronts + l->instructions);
    (void)snprintf(l->why, sizeof l->why, "%s",
                   k == AX_INST_THREAD     ? "one load per fragment value"
                   : k == AX_INST_LDMATRIX ? "16-byte rows along K"
                                           : "16-byte rows along M or N");
    return AXE_OK;
}

static axe_status setup(inst_ctx *c, const axe_program *p, const ax_stmt *s,
                        const ax_mma *m, const ax_plan *plan, int o,
                        axe_diag *diag)
{
    const ax_ref *r;
    const ax_tensor *t;
    const ax_frag *f;
    memset(c, 0, sizeof *c);
    if (s->op != AX_OP_GEMM || m == NULL || !m->from_memory || plan == NULL ||
        o < 0 || o > 1)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "instruction choice: op %d is no gemm.mma_smem",
                         s->index);
    r = &s->args[o + 1];
    t = &p->tensors[r->tensor];
    if (t->mem != AX_MEM_SHARED)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "instruction choice: '%s' is not in shared memory",
                         t->name);
    if (t->dtype == AXE_DTYPE_F32 && !s->tf32)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "instruction choice: an f32 gemm without tf32 "
                         "reads '%s' per FMA, not by fragments",
                         t->name);
    c->p = p;
    c->s = s;
    c->m = m;
    c->plan = plan;
    c->o = o;
    c->eb = axe_dtype_size(t->dtype);
    c->unit = c->eb < 4 ? 4 / c->eb : 1;
    c->sw = r->is_view ? &r->view.swizzle : &t->layout.swizzle;
    c->sw = c->sw->present ? c->sw : NULL;
    axe__plan_base(p, r, &c->base);
    f = &m->frag[o];
    if (f->nvals > AX_FRAG_MAX / AX_WARP ||
        f->shape[0] * f->shape[1] != AX_WARP * f->nvals)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "instruction choice: the fragment of '%s' is not "
                         "32 lanes of values",
                         t->name);
    for (int64_t x = 0; x < f->shape[0] * f->shape[1]; x++)
        c->pos[f->lane[x]][f->val[x]] = x;
    c->nregs = f->nvals % c->unit == 0 && f->nvals / c->unit <= AX_FRAG_MAX_REGS
                   ? f->nvals / c->unit
                   : 0;
    c->quad = quad_form(c);
    return AXE_OK;
}

axe_status axe__inst_choose_on(const axe_program *p, const ax_stmt *s,
                               const ax_mma *m, const ax_plan *plan, int o,
                               ax_inst_choice *out, axe_diag *diag)
{
    inst_ctx c;
    memset(out, 0, sizeof *out);
    out->chosen = out->runner = -1;
    AXE_TRY(setup(&c, p, s, m, plan, o, diag));
    out->ksteps = m->tiles[2];
    for (int k = 0; k < AX_INST_KINDS; k++) {
        const ax_inst_leaf *l = &out->leaf[k];
        AXE_TRY(eval_leaf(&c, k, &out->leaf[k], diag));
        if (!l->legal)
            continue;
        if (out->chosen < 0 || l->cost < out->leaf[out->chosen].cost) {
            out->runner = out->chosen;
            out->chosen = k;
        } else if (out->runner < 0 || l->cost < out->leaf[out->runner].cost)
            out->runner = k;
    }
    return AXE_OK;
}

axe_status axe__inst_choose(const axe_program *p, const ax_stmt *s, int o,
                            ax_inst_choice *out, axe_diag *diag)
{
    return axe__inst_choose_on(p, s, s->mma, s->plan, o, out, diag);
}

int axe__inst_thread_leaf(const ax_inst_choice *ch)
{
    int best = -1;
    for (int k = AX_INST_V4; k < AX_INST_KINDS; k++)
        if (ch->leaf[k].legal &&
            (best < 0 || ch->leaf[k].cost < ch->leaf[best].cost))
            best = k;
    return best;
}

void axe__inst_name(ax_inst_kind k, const ax_inst_leaf *l, char *buf,
                    size_t cap)
{
    if (axe__inst_vec_regs(k) > 0)
        (void)snprintf(buf, cap, "ld.shared%s.b32",
                       k == AX_INST_V4   ? ".v4"
                       : k == AX_INST_V2 ? ".v2"
                                         : "");
    else if (k == AX_INST_THREAD)
        (void)snprintf(buf, cap, "per-thread loads");
    else
        (void)snprintf(buf, cap, "ldmatrix.x%d%s", l->regs,
                       k == AX_INST_LDMATRIX_TRANS ? ".trans" : "");
}

static void put_leaf(ax_text *t, const ax_inst_choice *ch, int k)
{
    const ax_inst_leaf *l = &ch->leaf[k];
    char name[48];
    axe__inst_name((ax_inst_kind)k, l, name, sizeof name);
    if (!l->legal) {
        axe__text_put(t, "%s not legal: %s", name, l->why);
        return;
    }
    axe__text_put(t,
                  "%s, cost %lld (%lld instructions, %lld wavefronts, "
                  "%lld-way)",
                  name, (long long)l->cost, (long long)l->instructions,
                  (long long)l->wavefronts, (long long)l->ways);
}

void axe__inst_choose_both(const axe_program *p, const ax_stmt *s,
                           ax_inst_choice ch[2])
{
    axe_diag d;
    for (int o = 0; o < 2; o++) {
        memset(&d, 0, sizeof d);
        if (axe__inst_choose(p, s, o, &ch[o], &d) != AXE_OK)
            ch[o].chosen = -1;
    }
}

bool axe__inst_explains(const axe_program *p, const ax_stmt *s)
{
    return s->mma != NULL && s->mma->from_memory &&
           axe__backend_of(p)->smem_load_insts;
}

void axe__inst_explain(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const ax_inst_choice ch[2])
{
    if (s->mma == NULL || !s->mma->from_memory)
        return;
    if (s->mma->shapes[0] != '\0')
        axe__text_put(t, "  mma shape choice: %s\n", s->mma->shapes);
    if (!axe__inst_explains(p, s))
        return;
    for (int o = 0; o < 2; o++) {
        const ax_inst_choice *c = &ch[o];
        if (c->chosen < 0)
            continue;
        axe__text_put(t,
                      "  instruction choice for %c '%s' (warp 0, %lld K "
                      "step%s): ",
                      "AB"[o], p -> tensors[s->args[o + 1].tensor].name,
                      (long long)c->ksteps, c->ksteps == 1 ? "" : "s");
        put_leaf(t, c, c->chosen);
        axe__text_put(t, "; runner-up: ");
        if (c->runner >= 0)
            put_leaf(t, c, c->runner);
        else
            axe__text_put(t, "none");
        for (int k = 0; k < AX_INST_KINDS; k++)
            if (!c->leaf[k].legal) {
                axe__text_put(t, "; ");
                put_leaf(t, c, k);
            }
        axe__text_put(t, "\n");
    }
}
