/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report of layout synthesis (issue 15 §3's `axe synth` shape): each
 * `auto` tensor's layout, each shared access's bank-conflict ways, each
 * anchor's instruction choice (chosen leaf, cost, runner-up) and each
 * rearrange with its shared-memory bytes; as text or as one JSON object.
 * Names are identifiers and the texts are the compiler's own (no quote or
 * backslash), so the JSON needs no escapes, except the accesses' note,
 * which quotes a diagnostic.
 */
#include <stdio.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_synth.h"

static void put_layout(ax_text *t, const axe_program *p, int i)
{
    char buf[512];
    (void)axe_print_layout(&p->tensors[i].layout, buf, sizeof buf);
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
        const ax_synth_choice *c = &r->choices[i];
        char label[48];
        axe__synth_label(p, c->op, label, sizeof label);
        axe__text_put(t, "%s\"%s\": {\"chosen\": \"%s\", \"cost\": ",
                      i ? ", " : "", label, c->chosen);
        put_cost(t, c->cost);
        if (c->runner_up[0] != '\0')
            axe__text_put(t, ", \"runner_up\": \"%s\"}", c->runner_up);
        else
            axe__text_put(t, ", \"runner_up\": null}");
    }
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

static void text_report(ax_text *t, const axe_program *p,
                        const ax_synth_report *r)
{
    int i;
    if (r == NULL) {
        axe__text_put(t, "no 'layout auto' tensor: nothing to synthesize\n");
        return;
    }
    for (i = 0; i < r->ntensors; i++) {
        axe__text_put(
            t, "%s %s: ", axe__mem_name(p->tensors[r->tensors[i].tensor].mem),
            p->tensors[r->tensors[i].tensor].name);
        put_layout(t, p, r->tensors[i].tensor);
        axe__text_put(t, "\n  %s\n", r->tensors[i].how);
    }
    for (i = 0; i < r->nchoices; i++) {
        char label[48];
        axe__synth_label(p, r->choices[i].op, label, sizeof label);
        axe__text_put(t, "instruction %s: ", label);
        put_choice(t, &r->choices[i], ")\n  runner-up: ");
    }
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
