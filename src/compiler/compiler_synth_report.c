/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report of layout synthesis (issue 15 §3's `axe synth` shape): each
 * `auto` tensor's layout, each shared access's bank-conflict ways, each
 * anchor's instruction choice (chosen leaf, cost, runner-up), each
 * tensor-core gemm's operand loads and mma shape (compiler_synth_inst.c,
 * compiler_mma.c: "gemm#N.A", "gemm#N.B" on a backend that issues those
 * loads, "gemm#N.shape", with or without `auto` tensors), each copy from
 * shared memory into a register where ldmatrix is legal ("copy#N.load",
 * compiler_copy_ldsm.c, on such a backend too) and each
 * rearrange with its shared-memory
 * bytes; as text or as one JSON object.
 * Names are identifiers and the texts are the compiler's own (no quote or
 * backslash), so the JSON needs no escapes, except the accesses' note,
 * which quotes a diagnostic.
 */
#include <stdio.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_backend.h"
#include "compiler_copy_ldsm.h"
#include "compiler_synth.h"
#include "compiler_synth_inst.h"

static void put_layout(ax_text *t, const axe_program *p, int i)
{
    /* a scratchpad tensor's declared layout (P, F, Bank) after sema */
    const ax_tensor *x = &p->tensors[i];
    bool pl = x->space != AX_SPACE_NONE && x->playout.nshard > 0;
    char buf[512];
    (void)axe_print_layout(pl ? &x->playout : &x->layout, buf, sizeof buf);
    axe__text_put(t, "%s", buf);
}

static void put_cost(ax_text *t, double c) { axe__text_put(t, "%.17g", c); }

/* "CHOSEN (cost C" SEP "RUNNER (cost R)" or SEP "none", and a newline:
 * one anchor choice, as `axe synth` and --explain print it. */
static void put_choice(ax_text *t, const ax_synth_choice *c, const char *sep)
{
    axe__text_put(t, "%s (cost ", c->chosen);
    put_cost(t, c->cost);
    axe__text_put(t, "%s%s", sep, c->runner_up[0] ? c->runner_up : "none");
    if (c->runner_up[0] != '\0') {
        axe__text_put(t, " (cost ");
        put_cost(t, c->runner_cost);
        axe__text_put(t, ")");
    }
    axe__text_put(t, "\n");
}

/* "PREFIXno ldmatrix leaf for copy#N ('q'): REASON" where anchor choice
 * "c" says why copy N (the anchor or a tied copy) has none ("no ldmatrix
 * leaf of its own" where a tied copy of the anchor's gave some). */
static void put_no_ldsm(ax_text *t, const axe_program *p,
                        const ax_synth_choice *c, const char *prefix)
{
    char label[48];
    const ax_stmt *s;
    if (c->no_ldsm[0] == '\0' || c->no_ldsm_op < 0)
        return;
    s = p->ops[c->no_ldsm_op];
    axe__synth_label(p, c->no_ldsm_op, label, sizeof label);
    axe__text_put(t, "%sno ldmatrix leaf%s for %s ('%s'): %s\n", prefix,
                  c->no_ldsm_own ? " of its own" : "", label,
                  p->tensors[s->args[0].tensor].name, c->no_ldsm);
}

/* The load leaf of copy "s" from shared memory into a register where
 * ldmatrix is legal (compiler_copy_ldsm.c): ldmatrix or the plan's
 * per-thread loads, the other the runner-up. Only on a backend that
 * issues it (smem_load_insts: CUDA): the choice is made on every target
 * (it keeps synthesized layouts the same on all), but the C backend
 * reads the tile element by element. */
static bool copy_choice(const axe_program *p, const ax_stmt *s,
                        ax_synth_choice *c)
{
    const ax_ldsm *l = axe__ldsm_of(s);
    char name[2][AX_SYNTH_TEXT];
    if (l == NULL || !axe__backend_of(p)->smem_load_insts)
        return false;
    axe__inst_name(l->trans ? AX_INST_LDMATRIX_TRANS : AX_INST_LDMATRIX,
                   &l->leaf[0], name[0], sizeof name[0]);
    (void)snprintf(name[1], sizeof name[1], "per-thread %lld-byte loads",
                   (long long)l->access_bytes);
    memset(c, 0, sizeof *c);
    c->op = s->index;
    (void)snprintf(c->chosen, sizeof c->chosen, "%s", name[!l->chosen]);
    c->cost = l->leaf[!l->chosen].cost;
    (void)snprintf(c->runner_up, sizeof c->runner_up, "%s", name[l->chosen]);
    c->runner_cost = l->leaf[l->chosen].cost;
    return true;
}

/* The instruction choices of gemm "s" as dispatched (gemm.mma_smem,
 * gemm.mma_reg_a): the load leaf of each operand in shared memory
 * (axe__inst_choose; as copy_choice, only on a backend that issues it)
 * and the mma shape (s->mma->shape), into "out" (3 at most) with their
 * label suffixes ".A", ".B", ".shape"; their number. */
static int gemm_choices(const axe_program *p, const ax_stmt *s,
                        ax_synth_choice *out, const char **suffix)
{
    static const char *const sfx[3] = {".A", ".B", ".shape"};
    const ax_mma *m = s->mma;
    int n = 0;
    if (copy_choice(p, s, out)) {
        suffix[0] = ".load";
        return 1;
    }
    if (s->op != AX_OP_GEMM || m == NULL || !m->from_memory)
        return 0;
    ax_inst_choice chs[2];
    memset(chs, 0, sizeof chs);
    chs[0].chosen = chs[1].chosen = -1;
    if (axe__inst_explains(p, s))
        axe__inst_choose_both(p, s, chs);
    for (int o = 0; o < 2; o++) {
        const ax_inst_choice *ch = &chs[o];
        ax_synth_choice *c = &out[n];
        if (ch->chosen < 0)
            continue;
        memset(c, 0, sizeof *c);
        c->op = s->index;
        axe__inst_name((ax_inst_kind)ch->chosen, &ch->leaf[ch->chosen],
                       c->chosen, sizeof c->chosen);
        c->cost = ch->leaf[ch->chosen].cost;
        if (ch->runner >= 0) {
            axe__inst_name((ax_inst_kind)ch->runner, &ch->leaf[ch->runner],
                           c->runner_up, sizeof c->runner_up);
            c->runner_cost = ch->leaf[ch->runner].cost;
        }
        suffix[n++] = sfx[o];
    }
    if (m->shape[0][0] != '\0') {
        ax_synth_choice *c = &out[n];
        memset(c, 0, sizeof *c);
        c->op = s->index;
        (void)snprintf(c->chosen, sizeof c->chosen, "%s", m->shape[0]);
        c->cost = m->shape_cost[0];
        (void)snprintf(c->runner_up, sizeof c->runner_up, "%s", m->shape[1]);
        c->runner_cost = m->shape_cost[1];
        suffix[n++] = sfx[2];
    }
    return n;
}

/* "LABEL.SUFFIX" of choice "c" into "buf". */
static void choice_label(const axe_program *p, const ax_synth_choice *c,
                         const char *suffix, char *buf, size_t cap)
{
    char label[48];
    axe__synth_label(p, c->op, label, sizeof label);
    (void)snprintf(buf, cap, "%s%s", label, suffix);
}

/* One choice as a JSON member (after "first" others: a comma). */
static void json_choice(ax_text *t, const char *label, const ax_synth_choice *c,
                        bool first)
{
    axe__text_put(t, "%s\"%s\": {\"chosen\": \"%s\", \"cost\": ",
                  first ? "" : ", ", label, c->chosen);
    put_cost(t, c->cost);
    if (c->runner_up[0] != '\0')
        axe__text_put(t, ", \"runner_up\": \"%s\"}", c->runner_up);
    else
        axe__text_put(t, ", \"runner_up\": null}");
}

/* The gemms' instruction choices, as JSON members (after "n" others) or
 * as text lines. */
static void gemm_instructions(ax_text *t, const axe_program *p, bool json,
                              int n)
{
    for (int i = 0; i < p->nops; i++) {
        ax_synth_choice ch[3];
        const char *suffix[3];
        int k = gemm_choices(p, p->ops[i], ch, suffix);
        for (int j = 0; j < k; j++) {
            char label[64];
            choice_label(p, &ch[j], suffix[j], label, sizeof label);
            if (json)
                json_choice(t, label, &ch[j], n++ == 0);
            else {
                axe__text_put(t, "instruction %s: ", label);
                put_choice(t, &ch[j], ")\n  runner-up: ");
            }
        }
    }
}

/* One "accesses" record, as JSON or as a line of text. */
static void put_access(ax_text *t, const axe_program *p,
                       const ax_synth_access *a, bool json)
{
    char label[48];
    axe__synth_label(p, a->op, label, sizeof label);
    if (json)
        axe__text_put(t,
                      "{\"op\": \"%s\", \"tensor\": \"%s\", "
                      "\"ways_before\": %lld, \"ways_after\": %lld}",
                      label, p->tensors[a->tensor].name,
                      (long long)a->ways_before, (long long)a->ways_after);
    else
        axe__text_put(t,
                      "access %s %s: ways %lld -> %lld (bank model; "
                      "before: row-major or unswizzled, after: the layout "
                      "used)\n",
                      label, p->tensors[a->tensor].name,
                      (long long)a->ways_before, (long long)a->ways_after);
}

static void text_accesses(ax_text *t, const axe_program *p,
                          const ax_synth_report *r)
{
    for (int i = 0; i < r->naccesses; i++)
        put_access(t, p, &r->accesses[i], false);
    if (r->accesses_note[0] != '\0')
        axe__text_put(t, "%s\n", r->accesses_note);
}

/* "s" as a JSON string (a diagnostic may hold quotes). */
static void put_json_string(ax_text *t, const char *s)
{
    axe__text_put(t, "\"");
    for (; *s != '\0'; s++)
        if (*s == '"' || *s == '\\')
            axe__text_put(t, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            axe__text_put(t, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            axe__text_put(t, "%c", *s);
    axe__text_put(t, "\"");
}

static void json_tensors(ax_text *t, const axe_program *p,
                         const ax_synth_report *r)
{
    int i;
    axe__text_put(t, "{\"tensors\": {");
    for (i = 0; r != NULL && i < r->ntensors; i++) {
        axe__text_put(t, "%s\"%s\": \"", i ? ", " : "",
                      p->tensors[r->tensors[i].tensor].name);
        put_layout(t, p, r->tensors[i].tensor);
        axe__text_put(t, "\"");
    }
    axe__text_put(t, "}, \"accesses\": [");
    for (i = 0; r != NULL && i < r->naccesses; i++) {
        axe__text_put(t, "%s", i ? ", " : "");
        put_access(t, p, &r->accesses[i], true);
    }
    axe__text_put(t, "]");
    if (r != NULL && r->accesses_note[0] != '\0') {
        axe__text_put(t, ", \"accesses_note\": ");
        put_json_string(t, r->accesses_note);
    }
}

static void json_rest(ax_text *t, const axe_program *p,
                      const ax_synth_report *r)
{
    int i;
    axe__text_put(t, ", \"instructions\": {");
    for (i = 0; r != NULL && i < r->nchoices; i++) {
        char label[48];
        axe__synth_label(p, r->choices[i].op, label, sizeof label);
        json_choice(t, label, &r->choices[i], i == 0);
    }
    gemm_instructions(t, p, true, i);
    axe__text_put(t, "}, \"rearranges\": [");
    for (i = 0; r != NULL && i < r->nrearranges; i++) {
        const ax_synth_rearrange *e = &r->rearranges[i];
        char label[48];
        axe__synth_label(p, e->op, label, sizeof label);
        axe__text_put(t,
                      "%s{\"op\": \"%s\", \"tensor\": \"%s\", "
                      "\"smem_bytes\": %lld}",
                      i ? ", " : "", label, p->tensors[e->tensor].name,
                      (long long)e->smem_bytes);
    }
    axe__text_put(t, "]}\n");
}

/* "  no ldmatrix rows from copy#N ('q'): REASON" where shared tensor
 * entry "e" has a reason (compiler_synth_shared.c). */
static void put_no_rows(ax_text *t, const axe_program *p,
                        const ax_synth_tensor *e)
{
    char label[48];
    const ax_stmt *s;
    if (e->no_ldsm[0] == '\0' || e->no_ldsm_op < 0)
        return;
    s = p->ops[e->no_ldsm_op];
    axe__synth_label(p, e->no_ldsm_op, label, sizeof label);
    axe__text_put(t, "  no ldmatrix rows from %s ('%s'): %s\n", label,
                  p->tensors[s->args[0].tensor].name, e->no_ldsm);
}

static void text_report(ax_text *t, const axe_program *p,
                        const ax_synth_report *r)
{
    int i;
    if (r == NULL) {
        axe__text_put(t, "no 'layout auto' tensor: nothing to synthesize\n");
        gemm_instructions(t, p, false, 0);
        return;
    }
    for (i = 0; i < r->ntensors; i++) {
        const ax_tensor *x = &p->tensors[r->tensors[i].tensor];
        axe__text_put(t, "%s %s: ",
                      x->space == AX_SPACE_PSUM   ? "psum"
                      : x->space == AX_SPACE_SBUF ? "sbuf"
                                                  : axe__mem_name(x->mem),
                      x->name);
        put_layout(t, p, r->tensors[i].tensor);
        axe__text_put(t, "\n  %s\n", r->tensors[i].how);
        put_no_rows(t, p, &r->tensors[i]);
    }
    for (i = 0; i < r->nchoices; i++) {
        char label[48];
        axe__synth_label(p, r->choices[i].op, label, sizeof label);
        axe__text_put(t, "instruction %s: ", label);
        put_choice(t, &r->choices[i], ")\n  runner-up: ");
        put_no_ldsm(t, p, &r->choices[i], "  ");
    }
    gemm_instructions(t, p, false, 0);
    text_accesses(t, p, r);
    for (i = 0; i < r->nrearranges; i++) {
        char label[48];
        axe__synth_label(p, r->rearranges[i].op, label, sizeof label);
        axe__text_put(t,
                      "rearrange %s: '%s' through %lld bytes of shared "
                      "memory (copy.smem)\n",
                      label, p->tensors[r->rearranges[i].tensor].name,
                      (long long)r->rearranges[i].smem_bytes);
    }
}

/* The --explain lines under operator "s": its anchor choice and its
 * rearrange. */
void axe__synth_explain(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_synth_report *r = p->synth;
    int i;
    if (s->rearrange)
        axe__text_put(t,
                      "  rearrange(%s, %s): a copy between two register "
                      "layouts, always staged through shared memory "
                      "(copy.smem)\n",
                      p->tensors[s->args[0].tensor].name,
                      p->tensors[s->args[1].tensor].name);
    for (i = 0; r != NULL && i < r->nchoices; i++)
        if (r->choices[i].op == s->index) {
            axe__text_put(t, "  synthesis anchor: ");
            put_choice(t, &r->choices[i], "); runner-up: ");
            put_no_ldsm(t, p, &r->choices[i], "  synthesis: ");
        }
    for (i = 0; r != NULL && i < r->nrearranges; i++)
        if (r->rearranges[i].op == s->index)
            axe__text_put(t,
                          "  synthesis: the register layouts differ: a "
                          "rearrange through %lld bytes of shared memory\n",
                          (long long)r->rearranges[i].smem_bytes);
}

size_t axe_program_synth(const axe_program *p, bool json, char *buf, size_t cap)
{
    ax_text t;
    size_t n;
    if (cap > 0)
        buf[0] = '\0';
    if (p == NULL)
        return 0;
    axe__text_init(&t, p->arena);
    if (json) {
        json_tensors(&t, p, p->synth);
        json_rest(&t, p, p->synth);
    } else
        text_report(&t, p, p->synth);
    if (t.status != AXE_OK || t.buf == NULL)
        return 0;
    n = t.len;
    if (n < cap)
        memcpy(buf, t.buf, n + 1);
    else if (cap > 0) {
        memcpy(buf, t.buf, cap - 1);
        buf[cap - 1] = '\0';
    }
    return n;
}
