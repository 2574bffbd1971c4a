/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA code of a tensor-core gemm (the choices: compiler_cuda_mma.c).
 *   - gemm.mma_atom (A, B, C registers of one warp): per K tile of atoms,
 *     each A and B atom tile's fragment packed from the thread's own
 *     registers into 32-bit registers in PTX order (value u*j + e of the
 *     tile is bits 8*size*e of register j), then one mma.sync per (MI, NI)
 *     atom tile, in place on C's registers. Every register index is a
 *     literal (the plan's offsets), so nothing lives in local memory.
 *   - gemm.mma_smem (A, B in memory, C registers of a warp, warpgroup or
 *     CTA): each warp's first row and column of atom tiles from its warp
 *     number, then per K tile of atoms the fragments of the distinct A
 *     rows and B columns of its tiles (ldmatrix, each lane giving the row
 *     address of its matrix, or per-thread loads at the quad form's
 *     coordinates; swizzled addresses per access), then one mma.sync per
 *     atom tile. gemm.mma_reg_a: the same with A's fragments packed from
 *     the thread's registers (as mma_atom), one block per K tile.
 *   - tf32 (an f32 gemm(C, A, B, tf32)): as the other atoms, each A and B
 *     register the f32 element converted by cvt.rna.tf32.f32.
 *   - f32 (no atom: tf32 only when asked for): the same tiles with f32
 *     FMA in the logical order of K, each lane reading the A and B values
 *     of its C values from memory (mma_smem) or, by __shfl_sync, from the
 *     lanes that hold them in the quad form (mma_atom).
 * The wrappers (axe_ptx_*, docs: notes' cuda_wrappers contract) are
 * emitted only when called, inline PTX under #ifndef AXE_CUDA_EMULATE;
 * the CPU emulation defines them from the PTX ISA.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

static void ind_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* ---- wrappers ------------------------------------------------------- */

/* "{%lo, ..., %hi-1}" */
static void asm_regs(ax_text *t, int lo, int n)
{
    int i;
    axe__text_put(t, "{");
    for (i = 0; i < n; i++)
        axe__text_put(t, "%s%%%d", i ? ", " : "", lo + i);
    axe__text_put(t, "}");
}

static void asm_ops(ax_text *t, const char *cons, const char *arr, int n,
                    bool first)
{
    int i;
    for (i = 0; i < n; i++)
        axe__text_put(t, "%s\"%s\"(%s[%d])", first && i == 0 ? "" : ", ", cons,
                      arr, i);
}

static void mma_wrapper(ax_text *t, const axe__cuda_atom *a)
{
    bool f64 = a->c == AXE_DTYPE_F64, s32 = a->c == AXE_DTYPE_I32;
    int na = f64 ? 1 : 4, nb = f64 ? 1 : 2, nc = f64 ? 2 : 4;
    na = a->na != 0 ? a->na : na;
    nb = a->nb != 0 ? a->nb : nb;
    const char *at = f64 ? "double" : "uint32_t", *ct = f64   ? "double"
                                                        : s32 ? "int32_t"
                                                              : "float";
    const char *ac = f64 ? "d" : "r", *cc = f64 ? "d" : s32 ? "r" : "f";
    char out[4];
    axe__text_put(t,
                  "static __device__ __forceinline__ void %s(%s d[%d], "
                  "const %s a[%d], const %s b[%d], const %s c[%d])\n{\n"
                  "    asm volatile(\"%s \"\n                 \"",
                  a->wrap, ct, nc, at, na, at, nb, ct, nc, a->ptx);
    asm_regs(t, 0, nc);
    axe__text_put(t, ", ");
    asm_regs(t, nc, na);
    axe__text_put(t, ", ");
    asm_regs(t, nc + na, nb);
    axe__text_put(t, ", ");
    asm_regs(t, nc + na + nb, nc);
    axe__text_put(t, ";\\n\"\n                 : ");
    (void)snprintf(out, sizeof out, "=%s", cc);
    asm_ops(t, out, "d", nc, true);
    axe__text_put(t, "\n                 : ");
    asm_ops(t, ac, "a", na, true);
    asm_ops(t, ac, "b", nb, false);
    asm_ops(t, cc, "c", nc, false);
    axe__text_put(t, ");\n}\n");
}

static void ldmatrix_wrapper(ax_text *t, int n, bool trans)
{
    axe__text_put(t,
                  "static __device__ __forceinline__ void "
                  "axe_ptx_ldmatrix_x%d%s(uint32_t r[%d], const void *row)\n"
                  "{\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x%d%s"
                  ".shared.b16 ",
                  n, trans ? "_trans" : "", n, n, trans ? ".trans" : "");
    asm_regs(t, 0, n);
    axe__text_put(t, ", [%%%d];\\n\"\n                 : ", n);
    asm_ops(t, "=r", "r", n, true);
    axe__text_put(t, "\n                 : \"r\"((unsigned)"
                     "__cvta_generic_to_shared(row)));\n}\n");
}

/* cvt.rna.tf32.f32: the tf32 bits of an f32 (low 13 bits zero). */
static void cvt_tf32_wrapper(ax_text *t)
{
    axe__text_put(t, "static __device__ __forceinline__ uint32_t "
                     "axe_ptx_cvt_rna_tf32(float f)\n{\n    uint32_t r;\n"
                     "    asm(\"cvt.rna.tf32.f32 %%0, %%1;\\n\" : \"=r\"(r) : "
                     "\"f\"(f));\n    return r;\n}\n");
}

static void wrappers_open(ax_text *t, bool *any)
{
    if (!*any)
        axe__text_put(t, "\n#ifndef AXE_CUDA_EMULATE /* the PTX "
                         "instructions (emulated otherwise) */\n");
    *any = true;
}

/* The wrappers "body" calls, inline PTX (see the file comment). */
void axe__emit_cuda_ptx_wrappers(ax_text *t, const char *body)
{
    static const int xs[] = {1, 2, 4};
    char name[64];
    int i, tr;
    bool any = false;
    const axe__cuda_atom *a;
    for (i = 0; (a = axe__cuda_atom_at(i)) != NULL; i++) {
        (void)snprintf(name, sizeof name, "%s(", a->wrap);
        if (strstr(body, name) == NULL)
            continue;
        wrappers_open(t, &any);
        mma_wrapper(t, a);
    }
    if (strstr(body, "axe_ptx_cvt_rna_tf32(") != NULL) {
        wrappers_open(t, &any);
        cvt_tf32_wrapper(t);
    }
    for (i = 0; i < 3; i++)
        for (tr = 0; tr < 2; tr++) {
            (void)snprintf(name, sizeof name, "axe_ptx_ldmatrix_x%d%s(", xs[i],
                           tr ? "_trans" : "");
            if (strstr(body, name) == NULL)
                continue;
            wrappers_open(t, &any);
            ldmatrix_wrapper(t, xs[i], tr != 0);
        }
    if (any)
        axe__text_put(t, "#endif\n");
}

/* ---- shared helpers -------------------------------------------------- */

/* "(var == 1L ? v1 : var == 2L ? v2 : ... v0)" over v[0..n): the value
 * at var, v[0] where no other matches. */
static void put_chain(ax_text *t, const char *var, const int64_t *v, int64_t n)
{
    int64_t i;
    axe__text_put(t, "(");
    for (i = 1; i < n; i++)
        if (v[i] != v[0])
            axe__text_put(t, "%s == %lldL ? %lldL : ", var, (long long)i,
                          (long long)v[i]);
    axe__text_put(t, "%lldL)", (long long)v[0]);
}

/* Operand "i"'s element at gemm coordinates "row" (M for A, N for B) and
 * "k" (C expressions) through the access macro "mac" ("AXE_AT(": its
 * address, for an ldmatrix row address, whose wrapper records the
 * access; "AXE_LD(": the read; "AXE_LDV(uint2, ": a vector read from
 * it; the emulation's race detector sees the reads): mac name,
 * swizzle(base + digits), line). */
static void put_elem(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                     const char *row, const char *k, const char *mac)
{
    const ax_plan *plan = s->plan;
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    int rd = i == 1 ? 0 : 1, d;
    ax_base b;
    axe__plan_base(p, &s->args[i], &b);
    axe__text_put(t, "%s%s, ", mac, tn->cname);
    axe__emit_swizzle_open(t, p, &s->args[i]);
    axe__text_put(t, "%lldL", (long long)b.cst);
    for (d = 0; d < b.ndyn; d++) {
        axe__text_put(t, " + ");
        axe__expr_print_c(t, p, b.dyn[d]);
        axe__text_put(t, " * %lldL", (long long)b.scale[d]);
    }
    for (d = 0; d < plan->nloops; d++)
        if (plan->loops[d].stride[i] != 0 &&
            (plan->loops[d].dim == rd || plan->loops[d].dim == 2))
            axe__text_put(t, " + (%s) / %lldL %% %lldL * %lldL",
                          plan->loops[d].dim == 2 ? k : row,
                          (long long)plan->loops[d].weight,
                          (long long)plan->loops[d].extent,
                          (long long)plan->loops[d].stride[i]);
    axe__emit_swizzle_close(t, p, &s->args[i]);
    axe__text_put(t, ", %d)", s->line);
}

/* Element e of a 32-bit register of "dt" read by "elem" ... : the cast
 * that puts it at its bits (low element first). */
static void put_pack_open(ax_text *t, axe_dtype dt, int e)
{
    int size = axe_dtype_size(dt);
    axe__text_put(t, "%s((uint32_t)%s", e ? " | " : "",
                  size == 1 ? "(uint8_t)" : "");
}

static void put_pack_close(ax_text *t, axe_dtype dt, int e)
{
    if (e > 0)
        axe__text_put(t, " << %d", 8 * axe_dtype_size(dt) * e);
    axe__text_put(t, ")");
}

/* An f32 fragment register (tf32 atoms only) is the element converted by
 * cvt.rna.tf32.f32; an f64 one the element itself. */
static const char *tf32_pre(axe_dtype dt)
{
    return dt == AXE_DTYPE_F32 ? "axe_ptx_cvt_rna_tf32(" : "";
}

static const char *tf32_post(axe_dtype dt)
{
    return dt == AXE_DTYPE_F32 ? ")" : "";
}

static const char *frag_type(const axe__cuda_atom *a)
{
    return a->a == AXE_DTYPE_F64 ? "double" : "uint32_t";
}

static void forms(const axe_program *p, const ax_stmt *s, axe__cuda_form *f)
{
    int o;
    for (o = 0; o < 3; o++)
        (void)axe__cuda_frag_form(
            &s->mma->frag[o],
            o == 2 ? 2
                   : axe__cuda_unit(p->tensors[s->args[o + 1].tensor].dtype),
            &f[o]);
}

/* ---- gemm.mma_atom ---------------------------------------------------- */

/* The register of value "v" of operand "o"'s atom tile "x" (row tile
 * times KI plus K tile): the table of a register operand (mma_reg_a,
 * mma_reg_b), else the tile's storage offset plus v. */
static int64_t val_reg(const ax_mma *m, int o, int64_t x, int64_t v)
{
    if (m->regs[o] != NULL)
        return m->regs[o][x * m->frag[o].nvals + v];
    return m->offset[o][x] + v;
}

/* A fragment register of 16-bit values "lo" and "hi" of "tn", held two
 * to a 32-bit word (words16): the word itself where they are its halves
 * in order, else the two halves packed. */
static void words_reg(ax_text *t, const ax_tensor *tn, int64_t lo, int64_t hi)
{
    if (lo % 2 == 0 && hi == lo + 1)
        axe__text_put(t, "%s[%lldL];\n", tn->cname, (long long)(lo / 2));
    else
        axe__text_put(t,
                      "(uint32_t)ax_ld16(%s, %lldL) | (uint32_t)ax_ld16(%s, "
                      "%lldL) << 16;\n",
                      tn->cname, (long long)lo, tn->cname, (long long)hi);
}

/* ax_X[tile][j] = the packed register j of operand "o"'s atom tile "x"
 * (row tile times KI plus K tile) from the thread's array. */
static void pack_regs(ax_text *t, const axe_program *p, const ax_stmt *s, int o,
                      const axe__cuda_form *f, int64_t tile, int64_t x, int ind)
{
    const ax_tensor *tn = &p->tensors[s->args[o + 1].tensor];
    int j, e;
    for (j = 0; j < f->nregs; j++) {
        ind_put(t, ind);
        axe__text_put(t, "ax_%c[%lld][%d] = ", "ab"[o], (long long)tile, j);
        if (tn->dtype == AXE_DTYPE_F64 || tn->dtype == AXE_DTYPE_F32) {
            axe__text_put(t, "%s%s[%lldL]%s;\n", tf32_pre(tn->dtype), tn->cname,
                          (long long)val_reg(s->mma, o, x, j),
                          tf32_post(tn->dtype));
            continue;
        }
        if (tn->words16) {
            words_reg(t, tn, val_reg(s->mma, o, x, 2 * j),
                      val_reg(s->mma, o, x, 2 * j + 1));
            continue;
        }
        for (e = 0; e < f->unit; e++) {
            put_pack_open(t, tn->dtype, e);
            axe__text_put(t, "%s[%lldL]", tn->cname,
                          (long long)val_reg(s->mma, o, x, f->unit * j + e));
            put_pack_close(t, tn->dtype, e);
        }
        axe__text_put(t, ";\n");
    }
}

static void atom_regs(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const axe__cuda_atom *a, int ind)
{
    const ax_mma *m = s->mma;
    const char *c = p->tensors[s->args[0].tensor].cname;
    axe__cuda_form f[3];
    int64_t mi, ni, ki, oc;
    forms(p, s, f);
    for (ki = 0; ki < m->tiles[2]; ki++) {
        ind_put(t, ind);
        axe__text_put(t, "{ /* atom K tile %lld */\n", (long long)ki);
        ind_put(t, ind + 1);
        axe__text_put(t, "%s ax_a[%lld][%d], ax_b[%lld][%d];\n", frag_type(a),
                      (long long)m->tiles[0], f[0].nregs,
                      (long long)m->tiles[1], f[1].nregs);
        for (mi = 0; mi < m->tiles[0]; mi++)
            pack_regs(t, p, s, 0, &f[0], mi, mi * m->tiles[2] + ki, ind + 1);
        for (ni = 0; ni < m->tiles[1]; ni++)
            pack_regs(t, p, s, 1, &f[1], ni, ni * m->tiles[2] + ki, ind + 1);
        for (mi = 0; mi < m->tiles[0]; mi++)
            for (ni = 0; ni < m->tiles[1]; ni++) {
                oc = m->offset[2][mi * m->tiles[1] + ni];
                ind_put(t, ind + 1);
                axe__text_put(t,
                              "%s(&%s[%lldL], ax_a[%lld], ax_b[%lld], "
                              "&%s[%lldL]);\n",
                              a->wrap, c, (long long)oc, (long long)mi,
                              (long long)ni, c, (long long)oc);
            }
        ind_put(t, ind);
        axe__text_put(t, "}\n");
    }
}

/* f32 register gemm: C value v of tile (mi, ni) accumulates, for each
 * 4-wide block of K, A's register (its row block, the K block) of lane
 * (laneid & ~3) | kk and B's register (the K block) of the lane holding
 * the C value's column, fetched with __shfl_sync. */
static void f32_value(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const axe__cuda_form *f, int64_t mi, int64_t ni,
                      int64_t ki, int v, int ind)
{
    const ax_mma *m = s->mma;
    const char *cn = p->tensors[s->args[0].tensor].cname,
               *an = p->tensors[s->args[1].tensor].cname,
               *bn = p->tensors[s->args[2].tensor].cname;
    int64_t oc = m->offset[2][mi * m->tiles[1] + ni] + v,
            oa = m->offset[0][mi * m->tiles[2] + ki],
            ob = m->offset[1][ni * m->tiles[2] + ki], kb;
    int jc = v / 2, e = v % 2, ja, jb;
    ind_put(t, ind);
    axe__text_put(t, "{\n");
    ind_put(t, ind + 1);
    axe__text_put(t, "float ax_acc = %s[%lldL];\n", cn, (long long)oc);
    for (kb = 0; kb < m->frag[0].shape[1]; kb += 4) {
        for (ja = 0; ja < f[0].nregs; ja++)
            if (f[0].r0[ja] == f[2].r0[jc] && f[0].c0[ja] == kb)
                break;
        for (jb = 0; jb < f[1].nregs; jb++)
            if (f[1].c0[jb] == kb)
                break;
        ind_put(t, ind + 1);
        axe__text_put(
            t,
            "for (int ax_kk = 0; ax_kk < 4; ++ax_kk)\n%*sax_acc = ax_acc + "
            "__shfl_sync(0xffffffffu, %s[%lldL], (int)(laneid & ~3L) | "
            "ax_kk) * __shfl_sync(0xffffffffu, %s[%lldL], 4 * (%d + 2 * "
            "(int)(laneid %% 4L)) + ax_kk);\n",
            (ind + 2) * 4, "", an, (long long)(oa + ja), bn,
            (long long)(ob + jb), (int)f[2].c0[jc] + e);
    }
    ind_put(t, ind + 1);
    axe__text_put(t, "%s[%lldL] = ax_acc;\n", cn, (long long)oc);
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

static void atom_f32(ax_text *t, const axe_program *p, const ax_stmt *s,
                     int ind)
{
    const ax_mma *m = s->mma;
    axe__cuda_form f[3];
    int64_t mi, ni, ki;
    int v;
    forms(p, s, f);
    for (mi = 0; mi < m->tiles[0]; mi++)
        for (ni = 0; ni < m->tiles[1]; ni++)
            for (ki = 0; ki < m->tiles[2]; ki++)
                for (v = 0; v < m->frag[2].nvals; v++)
                    f32_value(t, p, s, f, mi, ni, ki, v, ind);
}

/* ---- gemm.mma_smem ---------------------------------------------------- */

/* The distinct values of tile[3i + which] into "u"; their count. */
static int distinct(const axe__cuda_tiles *tl, int which, int64_t *u)
{
    int i, j, n = 0;
    for (i = 0; i < tl->n; i++) {
        for (j = 0; j < n && u[j] != tl->tile[3 * i + which]; j++)
            ;
        if (j == n)
            u[n++] = tl->tile[3 * i + which];
    }
    return n;
}

static int index_of(const int64_t *u, int n, int64_t v)
{
    int j;
    for (j = 0; j < n && u[j] != v; j++)
        ;
    return j;
}

/* The lane's coordinates of element "e" of register "j" of the warp's
 * atom tile row (or column) "base + rel" of operand "o" (quad form) into
 * "row" and "k" (C expressions, 160 bytes each). */
static void quad_coords(const ax_stmt *s, int o, const axe__cuda_form *f,
                        int64_t rel, int j, int e, char *row, char *k)
{
    const ax_mma *m = s->mma;
    (void)snprintf(row, 160, "(%s + %lldL) * %lldL + %lldL + laneid / 4L",
                   o == 0 ? "ax_mi0" : "ax_ni0", (long long)rel,
                   (long long)m->mnk[o], (long long)f->r0[j]);
    (void)snprintf(k, 160, "ax_ki * %lldL + %lldL + %dL * (laneid %% 4L)",
                   (long long)m->mnk[2], (long long)(f->c0[j] + e), f->unit);
}

/* The fragment of operand "o" by the instruction choice's per-thread
 * vector loads ("ld": n registers per load): load g of
 * uint32_t/uint2/uint4 from the first element of register order[g n],
 * its words to registers order[g n + i] (tf32: each word's f32
 * converted). */
static void load_vec(ax_text *t, const axe_program *p, const ax_stmt *s, int o,
                     const axe__cuda_operand *ld, const axe__cuda_form *f,
                     int idx, int64_t rel, int ind)
{
    static const char *const vt[] = {"", "uint32_t", "uint2", "", "uint4"};
    static const char *const w[] = {"x", "y", "z", "w"};
    axe_dtype dt = p->tensors[s->args[o + 1].tensor].dtype;
    const int n = ld->vec, *order = ld->order;
    int g, i;
    char row[160], k[160], mac[32];
    if (n != 1 && n != 2 && n != 4) {
        t->status = AXE_ERR_INVALID; /* axe__cuda_load_of said VEC */
        return;
    }
    if (f->nregs % n != 0) {
        t->status = AXE_ERR_INVALID; /* the choice's groups tile them */
        return;
    }
    (void)snprintf(mac, sizeof mac, "AXE_LDV(%s, ", vt[n]);
    for (g = 0; g < f->nregs / n; g++) {
        quad_coords(s, o, f, rel, order[g * n], 0, row, k);
        ind_put(t, ind + 1);
        axe__text_put(t, "{\n");
        ind_put(t, ind + 2);
        axe__text_put(t, "const %s ax_v = ", vt[n]);
        put_elem(t, p, s, o + 1, row, k, mac);
        axe__text_put(t, ";\n");
        for (i = 0; i < n; i++) {
            ind_put(t, ind + 2);
            axe__text_put(t, "ax_%c[%d][%d] = %s%sax_v%s%s%s%s;\n", "ab"[o],
                          idx, order[g * n + i], tf32_pre(dt),
                          dt == AXE_DTYPE_F32 ? "__uint_as_float(" : "",
                          n > 1 ? "." : "", n > 1 ? w[i] : "",
                          dt == AXE_DTYPE_F32 ? ")" : "", tf32_post(dt));
        }
        ind_put(t, ind + 1);
        axe__text_put(t, "}\n");
    }
}

/* The fragment of operand "o" (0 A, 1 B) of the warp's atom tile row (or
 * column) "base + rel" in ax_X[idx], by ldmatrix, per-thread vector loads
 * or per-thread element loads, as "ld" says. */
static void load_frag(ax_text *t, const axe_program *p, const ax_stmt *s, int o,
                      const axe__cuda_operand *ld, const axe__cuda_form *f,
                      int idx, int64_t rel, int ind)
{
    const ax_mma *m = s->mma;
    const ax_tensor *tn = &p->tensors[s->args[o + 1].tensor];
    const char *base = o == 0 ? "ax_mi0" : "ax_ni0";
    axe__cuda_load how = ld->how;
    int64_t ra = m->mnk[o], ka = m->mnk[2];
    char row[160], k[160];
    int j, e;
    ind_put(t, ind);
    axe__text_put(t, "{\n");
    if (how == AXE_CUDA_LOAD_VEC) {
        load_vec(t, p, s, o, ld, f, idx, rel, ind);
    } else if (how != AXE_CUDA_LOAD_THREAD) {
        bool tr = how == AXE_CUDA_LOAD_LDMATRIX_TRANS;
        if (f->nregs > 1) {
            ind_put(t, ind + 1);
            axe__text_put(t, "const long ax_j = laneid / 8L %% %dL;\n",
                          f->nregs);
        }
        ind_put(t, ind + 1);
        axe__text_put(t, "const long ax_r = (%s + %lldL) * %lldL + ", base,
                      (long long)rel, (long long)ra);
        put_chain(t, "ax_j", f->r0, f->nregs);
        axe__text_put(t, "%s, ax_k = ax_ki * %lldL + ",
                      tr ? "" : " + laneid % 8L", (long long)ka);
        put_chain(t, "ax_j", f->c0, f->nregs);
        axe__text_put(t, "%s;\n", tr ? " + laneid % 8L" : "");
        ind_put(t, ind + 1);
        axe__text_put(t, "axe_ptx_ldmatrix_x%d%s(ax_%c[%d], ", f->nregs,
                      tr ? "_trans" : "", "ab"[o], idx);
        put_elem(t, p, s, o + 1, "ax_r", "ax_k", "AXE_AT(");
        axe__text_put(t, ");\n");
    } else {
        for (j = 0; j < f->nregs; j++) {
            ind_put(t, ind + 1);
            axe__text_put(t, "ax_%c[%d][%d] = ", "ab"[o], idx, j);
            for (e = 0; e < f->unit; e++) {
                quad_coords(s, o, f, rel, j, e, row, k);
                if (axe_dtype_size(tn->dtype) < 4)
                    put_pack_open(t, tn->dtype, e);
                axe__text_put(t, "%s", tf32_pre(tn->dtype));
                put_elem(t, p, s, o + 1, row, k, "AXE_LD(");
                axe__text_put(t, "%s", tf32_post(tn->dtype));
                if (axe_dtype_size(tn->dtype) < 4)
                    put_pack_close(t, tn->dtype, e);
            }
            axe__text_put(t, ";\n");
        }
    }
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The fragments of the warp's A rows of atom K tile "ki" (a literal), or
 * -1: ax_ki, at run time: gemm.mma_reg_a packs them from the thread's
 * registers (warp 0's offsets: axe__cuda_mma_refusal checked that every
 * warp's are the same), gemm.mma_smem loads them. */
static void smem_mma(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const axe__cuda_atom *a, const axe__cuda_operand *ld,
                     const axe__cuda_tiles *tl, int64_t ki, int ind)
{
    const ax_mma *m = s->mma;
    const char *c = p->tensors[s->args[0].tensor].cname;
    axe__cuda_form f[3];
    int64_t um[AXE_CUDA_MAX_TILES], un[AXE_CUDA_MAX_TILES];
    int nm = distinct(tl, 1, um), nn = distinct(tl, 2, un), i;
    forms(p, s, f);
    ind_put(t, ind);
    axe__text_put(t, "%s ax_a[%d][%d], ax_b[%d][%d];\n", frag_type(a), nm,
                  f[0].nregs, nn, f[1].nregs);
    for (i = 0; i < nm; i++)
        if (m->reg == 1)
            pack_regs(t, p, s, 0, &f[0], i,
                      (tl->mi0[0] + um[i]) * m->tiles[2] + ki, ind);
        else
            load_frag(t, p, s, 0, &ld[0], &f[0], i, um[i], ind);
    for (i = 0; i < nn; i++)
        if (m->reg == 2)
            pack_regs(t, p, s, 1, &f[1], i,
                      (tl->ni0[0] + un[i]) * m->tiles[2] + ki, ind);
        else
            load_frag(t, p, s, 1, &ld[1], &f[1], i, un[i], ind);
    for (i = 0; i < tl->n; i++) {
        ind_put(t, ind);
        axe__text_put(t, "%s(&%s[%lldL], ax_a[%d], ax_b[%d], &%s[%lldL]);\n",
                      a->wrap, c, (long long)tl->tile[3 * i],
                      index_of(um, nm, tl->tile[3 * i + 1]),
                      index_of(un, nn, tl->tile[3 * i + 2]), c,
                      (long long)tl->tile[3 * i]);
    }
}

/* f32 gemm.mma_smem: each C value of each of the warp's tiles over the
 * atom's K in order, A and B read from memory. */
static void smem_f32(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const axe__cuda_tiles *tl, int ind)
{
    const ax_mma *m = s->mma;
    const char *cn = p->tensors[s->args[0].tensor].cname;
    axe__cuda_form f[3];
    int i, v;
    forms(p, s, f);
    for (i = 0; i < tl->n; i++)
        for (v = 0; v < m->frag[2].nvals; v++) {
            int64_t oc = tl->tile[3 * i] + v;
            ind_put(t, ind);
            axe__text_put(t,
                          "{\n%*sconst long ax_r = (ax_mi0 + %lldL) * %lldL "
                          "+ %lldL + laneid / 4L, ax_c = (ax_ni0 + %lldL) * "
                          "%lldL + %lldL + 2L * (laneid %% 4L);\n",
                          (ind + 1) * 4, "", (long long)tl->tile[3 * i + 1],
                          (long long)m->mnk[0], (long long)f[2].r0[v / 2],
                          (long long)tl->tile[3 * i + 2], (long long)m->mnk[1],
                          (long long)(f[2].c0[v / 2] + v % 2));
            ind_put(t, ind + 1);
            axe__text_put(t, "float ax_acc = %s[%lldL];\n", cn, (long long)oc);
            ind_put(t, ind + 1);
            axe__text_put(t,
                          "for (long ax_k = ax_ki * %lldL; ax_k < ax_ki * "
                          "%lldL + %lldL; ++ax_k)\n",
                          (long long)m->mnk[2], (long long)m->mnk[2],
                          (long long)m->mnk[2]);
            ind_put(t, ind + 2);
            axe__text_put(t, "ax_acc = ax_acc + ");
            put_elem(t, p, s, 1, "ax_r", "ax_k", "AXE_LD(");
            axe__text_put(t, " * ");
            put_elem(t, p, s, 2, "ax_c", "ax_k", "AXE_LD(");
            axe__text_put(t, ";\n");
            ind_put(t, ind + 1);
            axe__text_put(t, "%s[%lldL] = ax_acc;\n", cn, (long long)oc);
            ind_put(t, ind);
            axe__text_put(t, "}\n");
        }
}

/* gemm.mma_reg_a (mma_reg_b): one block per atom K tile (A's (B's)
 * registers are literal indices), ax_ki a constant in it for the other
 * operand's loads. */
static void reg_steps(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const axe__cuda_atom *a, const axe__cuda_operand *ld,
                      const axe__cuda_tiles *tl, int ind)
{
    int64_t ki;
    if (a == NULL) {
        t->status = AXE_ERR_INVALID; /* the check refused it before */
        return;
    }
    for (ki = 0; ki < s->mma->tiles[2]; ki++) {
        ind_put(t, ind);
        axe__text_put(t,
                      "{ /* atom K tile %lld: %c from registers */\n%*sconst "
                      "long ax_ki = %lldL;\n",
                      (long long)ki, 'A' + s->mma->reg - 1, (ind + 1) * 4, "",
                      (long long)ki);
        smem_mma(t, p, s, a, ld, tl, ki, ind + 1);
        ind_put(t, ind);
        axe__text_put(t, "}\n");
    }
}

static void smem(ax_text *t, const axe_program *p, const ax_stmt *s,
                 const axe__cuda_atom *a, int ind)
{
    const ax_mma *m = s->mma;
    axe__cuda_tiles tl;
    axe__cuda_operand ld[2];
    const char *why;
    int o;
    if (!axe__cuda_warp_tiles(p, s, &tl, &why)) {
        t->status = AXE_ERR_INVALID; /* the check refused it before */
        return;
    }
    /* each loaded operand's instruction, chosen once for every tile */
    memset(ld, 0, sizeof ld);
    for (o = 0; o < 2 && a != NULL; o++)
        if (o != m->reg - 1)
            axe__cuda_load_of(p, s, o, &ld[o]);
    ind_put(t, ind);
    axe__text_put(
        t, "const long ax_w = %s, ax_mi0 = ", m->warp != NULL ? m->warp : "0L");
    put_chain(t, "ax_w", tl.mi0, tl.nwarps);
    axe__text_put(t, ", ax_ni0 = ");
    put_chain(t, "ax_w", tl.ni0, tl.nwarps);
    axe__text_put(t, ";\n");
    ind_put(t, ind);
    axe__text_put(t, "(void)ax_w;\n");
    if (m->reg != 0) {
        ind_put(t, ind);
        axe__text_put(t, "(void)%s;\n", m->reg == 1 ? "ax_mi0" : "ax_ni0");
        reg_steps(t, p, s, a, ld, &tl, ind);
        return;
    }
    ind_put(t, ind);
    axe__text_put(t,
                  "for (long ax_ki = 0; ax_ki < %lldL; ++ax_ki) { /* atom K "
                  "tiles */\n",
                  (long long)m->tiles[2]);
    if (a != NULL)
        smem_mma(t, p, s, a, ld, &tl, -1, ind + 1);
    else
        smem_f32(t, p, s, &tl, ind + 1);
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The code of gemm "s" (see the file comment). */
void axe__emit_cuda_mma(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind)
{
    const axe__cuda_atom *a = axe__cuda_atom_of(p, s);
    ind_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): %s gemm -- schedule gemm.%s: %s; "
                  "cuda: %s */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  axe__scope_name(s->scope),
                  s->mma->from_memory ? axe__mma_smem_name(s->mma) : "mma_atom",
                  s->mma->atom,
                  a != NULL ? a->ptx : "f32 FMA on the fragments");
    if (s->mma->from_memory)
        smem(t, p, s, a, ind + 1);
    else if (a != NULL)
        atom_regs(t, p, s, a, ind + 1);
    else
        atom_f32(t, p, s, ind + 1);
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

/* --explain: the instructions (after "  cuda sm_80: "). */
void axe__cuda_mma_explain(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    static const char *const how[] = {"per-thread loads",
                                      "ldmatrix.sync.aligned.m8n8",
                                      "ldmatrix.sync.aligned.m8n8"};
    const axe__cuda_atom *a = axe__cuda_atom_of(p, s);
    axe__cuda_form f[3];
    axe__cuda_tiles tl;
    const char *why;
    int o;
    forms(p, s, f);
    if (a == NULL)
        axe__text_put(t, "f32 FMA on the m16n8k8 fragments in the order of K "
                         "(tf32 mma.sync only when the kernel asks for it, "
                         "gemm(C, A, B, tf32): an f32 gemm keeps f32 "
                         "accuracy)");
    else
        axe__text_put(t, "%s", a->ptx);
    if (a != NULL && s->tf32)
        axe__text_put(t, " (asked for by tf32; every A and B element "
                         "converted by cvt.rna.tf32.f32)");
    if (!s->mma->from_memory) {
        axe__text_put(t, ", %lld x %lld x %lld atom tiles, %s\n",
                      (long long)s->mma->tiles[0], (long long)s->mma->tiles[1],
                      (long long)s->mma->tiles[2],
                      a != NULL ? "fragments packed from the thread's "
                                  "registers"
                                : "A and B values from the lanes that hold "
                                  "them by __shfl_sync (shfl.sync.idx)");
        return;
    }
    if (axe__cuda_warp_tiles(p, s, &tl, &why))
        axe__text_put(t, ", %d atom tile%s per warp, %lld K step%s", tl.n,
                      tl.n == 1 ? "" : "s", (long long)s->mma->tiles[2],
                      s->mma->tiles[2] == 1 ? "" : "s");
    if (s->mma->reg != 0)
        axe__text_put(t,
                      "; %c: the thread's registers (the %c fragment's "
                      "layout%s), packed per atom K tile",
                      'A' + s->mma->reg - 1, 'A' + s->mma->reg - 1,
                      s->mma->perm[s->mma->reg - 1]
                          ? ", its registers in the operand's order"
                          : "");
    for (o = 0; o < 2 && a != NULL; o++) {
        axe__cuda_operand ld;
        axe__cuda_load l;
        int n;
        if (o == s->mma->reg - 1)
            continue; /* in registers */
        axe__cuda_load_of(p, s, o, &ld);
        l = ld.how;
        n = l == AXE_CUDA_LOAD_VEC ? ld.vec : 0;
        if (l == AXE_CUDA_LOAD_VEC)
            axe__text_put(t,
                          "; %c: per-thread ld.shared%s.b32 (%d fragment "
                          "register%s per load)",
                          "AB"[o],
                          n == 4   ? ".v4"
                          : n == 2 ? ".v2"
                                   : "",
                          n, n == 1 ? "" : "s");
        else
            axe__text_put(t, "; %c: %s", "AB"[o], how[l]);
        if (l == AXE_CUDA_LOAD_LDMATRIX || l == AXE_CUDA_LOAD_LDMATRIX_TRANS)
            axe__text_put(t, ".x%d%s.shared.b16", f[o].nregs,
                          l == AXE_CUDA_LOAD_LDMATRIX_TRANS ? ".trans" : "");
        axe__text_put(t, " (%s)", ld.why);
    }
    if (a == NULL)
        axe__text_put(t, "; A and B: per-thread loads");
    axe__text_put(t, "\n");
}
