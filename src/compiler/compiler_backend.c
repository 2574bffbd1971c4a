/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of backends and what the passes ask of them (see
 * compiler_backend.h): the target and architecture options, whether a
 * backend has a schedule, and the program's code for its target. A new
 * backend is a new folder under backend/ and one line in "backends".
 * Invariant: a compiled program's options name a backend of the table and
 * one of its architectures (0 stands for the default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_backend.h"

static const ax_backend *const backends[] = {
    &axe__backend_c, &axe__backend_cuda, &axe__backend_mpi, &axe__backend_trn};
#define NBACKENDS ((int)(sizeof backends / sizeof backends[0]))

const ax_backend *axe__backend_find(const char *name)
{
    int k;
    if (name == NULL || name[0] == '\0')
        return &axe__backend_c;
    for (k = 0; k < NBACKENDS; k++)
        if (strcmp(backends[k]->name, name) == 0)
            return backends[k];
    return NULL;
}

const ax_backend *axe__backend_of(const axe_program *p)
{
    const ax_backend *b = axe__backend_find(p->opts.target);
    return b != NULL ? b : &axe__backend_c;
}

int axe__backend_arch(const axe_program *p)
{
    const ax_backend *b = axe__backend_of(p);
    if (b->narchs == 0)
        return 0;
    return p->opts.arch != 0 ? p->opts.arch : b->archs[0].number;
}

const char *axe__backend_arch_name(const ax_backend *b, int arch)
{
    int k;
    for (k = 0; k < b->narchs; k++)
        if (b->archs[k].number == arch)
            return b->archs[k].name;
    return "";
}

/* "c, cuda" */
static void target_list(char *buf, size_t cap)
{
    size_t n = 0;
    int k;
    buf[0] = '\0';
    for (k = 0; k < NBACKENDS && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "",
                              backends[k]->name);
}

/* "sm_80, sm_86" */
static void arch_list(const ax_backend *b, char *buf, size_t cap)
{
    size_t n = 0;
    int k;
    buf[0] = '\0';
    for (k = 0; k < b->narchs && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "",
                              b->archs[k].name);
}

axe_status axe__backend_check_options(const axe_kernel_options *o,
                                      axe_diag *diag)
{
    const ax_backend *b;
    char list[128];
    if (memchr(o->target, '\0', sizeof o->target) == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the target name is not terminated");
    b = axe__backend_find(o->target);
    target_list(list, sizeof list);
    if (b == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "unknown target '%s' (targets: %s)", o->target, list);
    if (o->arch == 0 || axe__backend_arch_name(b, o->arch)[0] != '\0')
        return AXE_OK;
    if (b->narchs == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "target %s has no architectures (arch %d given)",
                         b->name, o->arch);
    arch_list(b, list, sizeof list);
    return axe__fail(diag, AXE_ERR_INVALID, -1,
                     "target %s has no architecture %d (%s)", b->name, o->arch,
                     list);
}

/* The number of architecture "spelling" of "b", or -1. */
static int parse_arch(const ax_backend *b, const char *spelling)
{
    int k;
    for (k = 0; k < b->narchs; k++)
        if (strcmp(b->archs[k].name, spelling) == 0)
            return b->archs[k].number;
    return -1;
}

axe_status axe_kernel_options_target(axe_kernel_options *o, const char *target,
                                     const char *arch, axe_diag *diag)
{
    axe_kernel_options t;
    const ax_backend *b;
    char list[128];
    axe_diag_clear(diag);
    if (o == NULL || target == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "no options or target");
    b = axe__backend_find(target);
    target_list(list, sizeof list);
    if (b == NULL || target[0] == '\0')
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "unknown target '%.40s' (targets: %s)", target, list);
    t = *o;
    memset(t.target, 0, sizeof t.target);
    strcpy(t.target, b->name);
    t.arch = 0;
    if (arch != NULL && b->narchs == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "target %s has no architectures ('%.40s' given)",
                         b->name, arch);
    if (arch != NULL && (t.arch = parse_arch(b, arch)) < 0) {
        arch_list(b, list, sizeof list);
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "'%.40s' is no architecture of target %s (%s)", arch,
                         b->name, list);
    }
    AXE_TRY(axe__backend_check_options(&t, diag));
    *o = t;
    return AXE_OK;
}

axe_status axe__backend_schedule(const axe_program *p, const ax_stmt *s,
                                 const char *name, axe_diag *why)
{
    const ax_backend *b = axe__backend_of(p);
    int k, arch = axe__backend_arch(p);
    if (b->schedules == NULL)
        return AXE_OK;
    for (k = 0; k < b->nschedules; k++) {
        const ax_backend_sched *e = &b->schedules[k];
        if (strcmp(e->name, name) != 0 ||
            (e->op != NULL && strcmp(e->op, axe__op_name(s->op)) != 0))
            continue;
        if (arch >= e->min_arch)
            return AXE_OK;
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "target %s %s has no %s.%s (it needs %s or later)",
                         b->name, axe__backend_arch_name(b, arch),
                         axe__op_name(s->op), name,
                         axe__backend_arch_name(b, e->min_arch));
    }
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "the %s backend has no %s.%s yet", b->name,
                     axe__op_name(s->op), name);
}

const char *axe_program_target(const axe_program *p, const char **arch)
{
    const ax_backend *b = axe__backend_of(p);
    if (arch != NULL)
        *arch = axe__backend_arch_name(b, axe__backend_arch(p));
    return b->name;
}

void axe__backend_prepare(axe_program *p, const ax_backend *b)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        p->tensors[i].words16 = false;
    if (b->prepare != NULL)
        b->prepare(p);
}

size_t axe_program_emit(axe_program *p, const char *file, char *buf, size_t cap)
{
    ax_text t;
    axe__text_init(&t, p->arena);
    axe__backend_prepare(p, axe__backend_of(p));
    axe__backend_of(p)->emit(&t, p, file != NULL ? file : "<input>");
    if (t.status != AXE_OK)
        return 0;
    if (cap > 0) {
        size_t n = t.len < cap ? t.len : cap - 1;
        memcpy(buf, t.buf, n);
        buf[n] = '\0';
    }
    return t.len;
}

/* The headers embedded in the library (cmake/embed_text.cmake). */
extern const unsigned char axe_trn_sim_h[];
extern const size_t axe_trn_sim_h_len;

const char *axe_runtime_header(const char *name, size_t *len)
{
    bool trn = name != NULL && strcmp(name, "compiler_trn_sim.h") == 0;
    if (len != NULL)
        *len = trn ? axe_trn_sim_h_len : 0;
    return trn ? (const char *)axe_trn_sim_h : NULL;
}
