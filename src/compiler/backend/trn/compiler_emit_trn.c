/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for --target trn-sim: the C backend's program (its harness, loops
 * and conditions, axe__emit_c_hooked) in which every operator is engine
 * instructions of the simulator compiler_trn_sim.h: copy.dma a table of
 * DMA descriptors, copy.vector a table of vector-engine moves,
 * gemm.tensor_engine the plan's table of matmuls (compiler_trn_gemm.c).
 * The scratchpads are no arrays here: each sbuf (psum) tensor gets a
 * byte offset in every partition of the simulator's SBUF (PSUM), in
 * declaration order, at a multiple of its element size (of a PSUM bank);
 * each HBM tensor is the kernel's parameter, registered as a memory of
 * its own. The run ends with ax_trn_finish, which keeps the outcome for
 * k_NAME_trn_error and k_NAME_trn_cycles (a caller such as axe.kernel
 * reads them); the harness main prints it with ax_trn_report (the
 * cycles on stderr, or the first failed access and exit 1).
 */
#include <string.h>

#include "compiler_trn.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* The simulator's buffer of each tensor: memory, byte offset; the bytes
 * used per partition of SBUF and PSUM; the HBM tensors. */
typedef struct trn_layout {
    int mem[AX_MAX_TENSORS];
    int64_t off[AX_MAX_TENSORS];
    int64_t used[2];
    int nhbm;
} trn_layout;

static void outcome(ax_text *t, const axe_program *p);

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static void place(const axe_program *p, trn_layout *l)
{
    const axe_trn_model *m = &p->opts.trn;
    int i;
    memset(l, 0, sizeof *l);
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *x = &p->tensors[i];
        int64_t es = axe_dtype_size(x->dtype);
        int k = x->space == AX_SPACE_PSUM;
        if (x->space == AX_SPACE_NONE) {
            l->mem[i] = x->mem == AX_MEM_GLOBAL ? 2 + l->nhbm++ : -1;
            continue;
        }
        l->mem[i] = k;
        l->off[i] = round_up(l->used[k], k ? m->psum_bank_bytes : es);
        l->used[k] = l->off[i] + x->fspan * es;
    }
}

static int ty_code(axe_dtype d)
{
    return d == AXE_DTYPE_F16 ? 1 : d == AXE_DTYPE_BF16 ? 2 : 0;
}

/* The access macros of the engine instructions' element loops (the C
 * backend's, compiler_emit_op.c): element i of tensor t_X is
 * ax_trn_el's, through X's buffer (AX_B_t_X) as its C type (AX_T_t_X). */
static void access_macros(ax_text *t, const axe_program *p)
{
    int i;
    axe__text_put(
        t, "/* The engine instructions' element accesses (ax_trn_el). */\n"
           "#define AXE_LD(a, i, line) (*(const AX_T_##a *)ax_trn_el("
           "&ax_sim, AX_B_##a, (long long)(i), 0))\n"
           "#define AXE_ST(a, i, line) (*(AX_T_##a *)ax_trn_el(&ax_sim, "
           "AX_B_##a, (long long)(i), 1))\n");
    for (i = 0; i < p->ntensors; i++)
        axe__text_put(t, "#define AX_B_%s (&ax_buf[%d])\n#define AX_T_%s %s\n",
                      p->tensors[i].cname, i, p->tensors[i].cname,
                      axe__dtype_ctype(p->tensors[i].dtype));
}

static void decls(ax_text *t, const axe_program *p)
{
    const axe_trn_model *m = &p->opts.trn;
    trn_layout l;
    int i;
    place(p, &l);
    axe__text_put(
        t,
        "\n#include \"compiler_trn_sim.h\"\n\n"
        "/* The machine model (docs/compiler.md, \"The "
        "accelerator model\"). */\n"
        "static const ax_trn_model ax_model = {%lldLL, %lldLL, "
        "%lldLL, %lldLL, %lldLL, %lldLL, %lldLL, %lldLL, %lldLL, "
        "%lldLL, %lldLL, %lldLL};\n"
        "static ax_trn_sim ax_sim;\n"
        "/* Each tensor's buffer: name, memory (0 SBUF, 1 PSUM, 2 + "
        "k HBM tensor k), dtype, byte offset per partition, "
        "partitions, free elements, element bytes. */\n"
        "static const ax_trn_buf ax_buf[%d] = {\n",
        (long long)m->partitions, (long long)m->sbuf_partition_bytes,
        (long long)m->psum_partition_bytes, (long long)m->psum_bank_bytes,
        (long long)m->matmul_max_m, (long long)m->matmul_max_n,
        (long long)m->matmul_max_k, (long long)m->matmul_fixed_cycles,
        (long long)m->vector_fixed_cycles, (long long)m->vector_elems_per_cycle,
        (long long)m->dma_fixed_cycles, (long long)m->dma_bytes_per_cycle,
        p->ntensors);
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *x = &p->tensors[i];
        bool sp = x->space != AX_SPACE_NONE;
        axe__text_put(t,
                      "    {\"%s\", %d, %d, %lldLL, %lldLL, %lldLL, %dLL}%s\n",
                      x->name, l.mem[i] < 0 ? 0 : l.mem[i], ty_code(x->dtype),
                      (long long)l.off[i], (long long)(sp ? x->parts : 1),
                      (long long)(sp ? x->fspan : x->span),
                      axe_dtype_size(x->dtype), i + 1 < p->ntensors ? "," : "");
    }
    axe__text_put(t, "};\n");
    outcome(t, p);
    access_macros(t, p);
}

static void begin(ax_text *t, const axe_program *p)
{
    trn_layout l;
    int i;
    place(p, &l);
    axe__text_put(t,
                  "    ax_trn_init(&ax_sim, &ax_model, %lldLL, %lldLL, %d);\n",
                  (long long)l.used[0], (long long)l.used[1], l.nhbm);
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *x = &p->tensors[i];
        if (x->space != AX_SPACE_NONE)
            axe__text_put(t, "    ax_trn_check_buf(&ax_sim, &ax_buf[%d]);\n",
                          i);
        else if (l.mem[i] >= 2)
            axe__text_put(t,
                          "    ax_trn_hbm(&ax_sim, %d, (void *)%s, %lldLL);\n",
                          l.mem[i] - 2, x->cname,
                          (long long)(x->span * axe_dtype_size(x->dtype)));
    }
}

/* The run's end: the outcome kept for k_NAME_trn_error and
 * k_NAME_trn_cycles; the harness main prints it (and exits 1 on a
 * failure, as axe run expects). */
static void end(ax_text *t, const axe_program *p)
{
    (void)p;
    axe__text_put(t, "    ax_trn_finish(&ax_sim);\n"
                     "#ifdef AXE_KERNEL_MAIN\n"
                     "    ax_trn_report(&ax_sim);\n"
                     "#endif\n");
}

/* The outcome of the last launch, for a caller of the kernel function
 * (axe.kernel): its first failure, its cycles and per-engine counts. */
static void outcome(ax_text *t, const axe_program *p)
{
    axe__text_put(
        t,
        "\n/* The last launch's first failure (the instruction and the "
        "limit), or NULL. */\n"
        "const char *k_%s_trn_error(void)\n{\n"
        "    return ax_sim.failed ? ax_sim.err : NULL;\n}\n\n"
        "/* The last launch's simulated cycles; per engine (tensor, vector, "
        "scalar,\n * dma_in, dma_out) its instructions into count[k] and "
        "its busy cycles\n * into busy[k] (a NULL array: not wanted). "
        "*/\n"
        "long long k_%s_trn_cycles(long long *count, long long *busy)\n"
        "{\n    int k;\n"
        "    for (k = 0; k < AX_TRN_NENGINES; k++) {\n"
        "        if (count != NULL)\n            count[k] = "
        "ax_sim.count[k];\n"
        "        if (busy != NULL)\n            busy[k] = ax_sim.busy[k];\n"
        "    }\n    return ax_sim.cycles;\n}\n",
        p->name, p->name);
}

/* Descriptor "d" as an ax_trn_d initializer. */
static void desc_put(ax_text *t, const ax_trn_desc *d)
{
    int l, k;
    axe__text_put(t, "{{%lld, %lld, %lld, %lld}, %d, {", (long long)d->base[0],
                  (long long)d->base[1], (long long)d->base[2],
                  (long long)d->base[3], d->nlev);
    for (l = 0; l < AX_TRN_LEVELS; l++)
        axe__text_put(t, "%s%lld", l ? ", " : "",
                      (long long)(l < d->nlev ? d->n[l] : 1));
    axe__text_put(t, "}, {");
    for (l = 0; l < AX_TRN_LEVELS; l++) {
        axe__text_put(t, "%s{", l ? ", " : "");
        for (k = 0; k < 4; k++)
            axe__text_put(t, "%s%lld", k ? ", " : "",
                          (long long)(l < d->nlev ? d->step[l][k] : 0));
        axe__text_put(t, "}");
    }
    axe__text_put(t, "}}");
}

/* copy.dma or copy.vector: the descriptor table (one list per value of
 * the loops its starts read, at ax_off[c] .. ax_off[c + 1] - 1) and one
 * call each. */
static void emit_copy(ax_text *t, const axe_program *p, const ax_stmt *s,
                      int ind)
{
    const ax_trn_copy *c = s->tcopy;
    const char *sched = c->transpose ? "transpose" : c->dma ? "dma" : "vector";
    int64_t q;
    int k;
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d): core copy -- schedule copy.%s: %lld "
                  "%s */\n",
                  s->index, s->line, sched, (long long)c->ndesc,
                  c->transpose ? "TensorE transposes"
                  : c->dma     ? "DMA descriptors"
                               : "vector-engine moves");
    indent_put(t, ind + 1);
    axe__text_put(t, "static const ax_trn_d ax_d[%lld] = {\n",
                  (long long)c->ndesc);
    for (q = 0; q < c->ndesc; q++) {
        indent_put(t, ind + 2);
        desc_put(t, &c->d[q]);
        axe__text_put(t, "%s\n", q + 1 < c->ndesc ? "," : "");
    }
    indent_put(t, ind + 1);
    axe__text_put(t, "};\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "static const long ax_off[%lld] = {",
                  (long long)c->ncombo + 1);
    for (q = 0; q <= c->ncombo; q++)
        axe__text_put(t, "%s%lldL", q ? ", " : "", (long long)c->off[q]);
    axe__text_put(t, "};\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_c = "); /* ((v0) * t1 + v1) * t2 + v2 */
    for (k = 1; k < c->nloop; k++)
        axe__text_put(t, "(");
    if (c->nloop == 0)
        axe__text_put(t, "0");
    for (k = 0; k < c->nloop; k++)
        if (k == 0)
            axe__text_put(t, "v_%s", p->vars[c->loop_var[k]]);
        else
            axe__text_put(t, ") * %lldL + v_%s", (long long)c->loop_trip[k],
                          p->vars[c->loop_var[k]]);
    axe__text_put(t, ";\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "for (long ax_q = ax_off[ax_c]; ax_q < ax_off[ax_c + 1]; "
                     "++ax_q) {\n");
    indent_put(t, ind + 2);
    axe__text_put(t, "ax_sim.inst = ax_q - ax_off[ax_c];\n");
    indent_put(t, ind + 2);
    axe__text_put(t,
                  "ax_trn_%s(&ax_sim, \"op %d (line %d) copy.%s\", "
                  "&ax_buf[%d], &ax_buf[%d], &ax_d[ax_q]);\n",
                  c->transpose ? "transpose"
                  : c->dma     ? "dma"
                               : "move",
                  s->index, s->line, sched, s->args[1].tensor,
                  s->args[0].tensor);
    indent_put(t, ind + 1);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* gemm.tensor_engine: the plan's instruction table, its operand
 * regions' origins (ax_o0..2, from the loop variables when a region's start
 * moves) and one matmul each at origin + table address. */
static void emit_matmul(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind)
{
    const ax_trn_mm *mm = s->trn;
    axe__emit_trn_matmul_head(t, p, s, ind);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "static const long long ax_rs[3] = {%lldLL, %lldLL, "
                  "%lldLL}, ax_cs[3] = {%lldLL, %lldLL, %lldLL};\n",
                  (long long)mm->rstride[0], (long long)mm->rstride[1],
                  (long long)mm->rstride[2], (long long)mm->cstride[0],
                  (long long)mm->cstride[1], (long long)mm->cstride[2]);
    indent_put(t, ind + 1);
    axe__text_put(t, "for (long ax_q = 0; ax_q < %lldL; ++ax_q) {\n",
                  (long long)mm->ninst);
    indent_put(t, ind + 2);
    axe__text_put(t, "const long ax_b[3] = {ax_o0 + ax_mm[ax_q][0], ax_o1 + "
                     "ax_mm[ax_q][1], ax_o2 + ax_mm[ax_q][2]};\n");
    indent_put(t, ind + 2);
    axe__text_put(t, "ax_sim.inst = ax_q;\n");
    indent_put(t, ind + 2);
    axe__text_put(t,
                  "ax_trn_matmul(&ax_sim, \"op %d (line %d) matmul\", "
                  "&ax_buf[%d], &ax_buf[%d], &ax_buf[%d], ax_b, "
                  "%lldLL, %lldLL, %lldLL, ax_rs, ax_cs, %d, %d);\n",
                  s->index, s->line, s->args[0].tensor, s->args[1].tensor,
                  s->args[2].tensor, (long long)mm->shape[0],
                  (long long)mm->shape[1], (long long)mm->shape[2],
                  ty_code(p->tensors[s->args[1].tensor].dtype),
                  ty_code(p->tensors[s->args[2].tensor].dtype));
    indent_put(t, ind + 1);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* OP.vector, OP.scalar: one instruction of the engine, the C backend's
 * element loop (its arithmetic) between ax_trn_begin and ax_trn_end, its
 * accesses through the access macros (ax_trn_el). */
static void emit_engine(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind)
{
    const char *eng = s->tengine == AX_TRN_ENG_SCALAR ? "SCALAR" : "VECTOR";
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d): core %s -- schedule %s.%s: one "
                  "%s-engine instruction */\n",
                  s->index, s->line, axe__op_name(s->op), axe__op_name(s->op),
                  s->schedule, s->schedule);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "ax_trn_begin(&ax_sim, \"op %d (line %d) %s.%s\", "
                  "AX_TRN_%s);\n",
                  s->index, s->line, axe__op_name(s->op), s->schedule, eng);
    axe__emit_op(t, p, s, ind + 1, false);
    indent_put(t, ind + 1);
    axe__text_put(t, "ax_trn_end(&ax_sim);\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* One operator as instructions. A new engine schedule is a row of the
 * table in compiler_target_trn.c, a branch here, and an instruction in
 * compiler_trn_sim.h on its engine with cycles from the model, timed by
 * ax_trn_ready / ax_trn_issue / ax_trn_done as ax_trn_copy is. */
static void op(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    if (s->tcopy != NULL)
        emit_copy(t, p, s, ind);
    else if (s->trn != NULL)
        emit_matmul(t, p, s, ind);
    else if (s->tengine != AX_TRN_ENG_NONE)
        emit_engine(t, p, s, ind);
    else /* the backend's check refused it */
        t->status = AXE_ERR_UNSUPPORTED;
}

void axe__emit_trn(ax_text *t, const axe_program *p, const char *file)
{
    static const ax_c_hooks hooks = {decls, begin, end, op};
    axe__emit_c_hooked(t, p, file, &hooks);
}
