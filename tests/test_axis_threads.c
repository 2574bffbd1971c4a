/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The axis registry under concurrency (include/axe/axis.h: "Declarations
 * go to a small process-wide table guarded by a lock"). NTHREADS pthreads
 * at once declare names every thread declares the same way, names each
 * thread declares differently (a race: exactly one declaration wins),
 * names of their own, and look up built-in and declared names in between;
 * released together by a barrier, all threads walk the names in the same
 * order, so they declare each at about the same moment (a stress test: a
 * registry without its lock fails some runs, not every run).
 * Each thread records what it saw; the main thread checks afterwards (the
 * harness counters are not thread-safe): every lookup agrees with the one
 * declaration that was published, losers of a race were told INVALID and
 * all threads see the winner, and the table holds each name once (exactly
 * AXE_AXIS_DECLARED_MAX - NDISTINCT more names fit). Runs in its own
 * process, as the table is process-wide.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "testlib.h"

#define NTHREADS 8
#define NSHARED 10
#define NRACE 8
#define NOWN 5
#define NDISTINCT (NSHARED + NRACE + NTHREADS * NOWN)
#define ROUNDS 200

/* What one thread saw. */
typedef struct seen {
    int id;
    int declare_failures;           /* shared or own names refused */
    int lookup_mismatches;          /* a lookup that disagreed */
    axe_status race_status[NRACE];  /* its declaration of race<k> */
    axe_axis_kind race_kind[NRACE]; /* race<k> as it looked up after */
    axe_scope race_scope[NRACE];    /* ... and its scope */
} seen;

/* The declaration of shared name k (the same in every thread). */
static void shared_decl(int k, axe_axis_kind *kind, axe_scope *sub,
                        axe_scope *scope)
{
    *kind = k % 3 == 0   ? AXE_AXIS_THREAD
            : k % 3 == 1 ? AXE_AXIS_DEVICE
                         : AXE_AXIS_MEMORY;
    *sub = k % 3 == 0 ? AXE_SCOPE_THREAD : AXE_SCOPE_NONE;
    *scope = k % 3 == 0 ? AXE_SCOPE_WARP : AXE_SCOPE_NONE;
}

/* Thread "id"'s declaration of race name k: its own choice per thread. */
static void race_decl(int id, axe_axis_kind *kind, axe_scope *sub,
                      axe_scope *scope)
{
    static const axe_scope scopes[] = {AXE_SCOPE_CLUSTER, AXE_SCOPE_CTA,
                                       AXE_SCOPE_WARPGROUP, AXE_SCOPE_WARP};
    *kind = AXE_AXIS_THREAD;
    *sub = AXE_SCOPE_THREAD;
    *scope = scopes[id % 4];
    if (id >= 4) {
        *kind = id % 2 == 0 ? AXE_AXIS_DEVICE : AXE_AXIS_MEMORY;
        *sub = AXE_SCOPE_NONE;
        *scope = AXE_SCOPE_NONE;
    }
}

/* "name" looks up as (kind, sub, scope), registered. */
static bool looks_like(const char *name, axe_axis_kind kind, axe_scope sub,
                       axe_scope scope)
{
    axe_axis_info info;
    return axe_axis_lookup(name, &info, NULL) == AXE_OK && info.registered &&
           info.kind == kind && info.subscope == sub && info.scope == scope &&
           strcmp(info.name, name) == 0;
}

/* Declare shared name k, then check it and a built-in axis. */
static void round_shared(seen *s, int k)
{
    char name[AXE_AXIS_NAME_MAX];
    axe_axis_kind kind;
    axe_scope sub, scope;
    shared_decl(k, &kind, &sub, &scope);
    snprintf(name, sizeof name, "shared%d", k);
    if (axe_axis_declare(name, kind, sub, scope, NULL) != AXE_OK)
        s->declare_failures++;
    if (!looks_like(name, kind, sub, scope) ||
        !looks_like("laneid", AXE_AXIS_THREAD, AXE_SCOPE_THREAD,
                    AXE_SCOPE_WARP) ||
        !looks_like("gpuid", AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE))
        s->lookup_mismatches++;
}

/* Declare own name k of this thread and check it. */
static void round_own(seen *s, int k)
{
    char name[AXE_AXIS_NAME_MAX];
    snprintf(name, sizeof name, "own%d_%d", s->id, k);
    if (axe_axis_declare(name, AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE,
                         NULL) != AXE_OK)
        s->declare_failures++;
    if (!looks_like(name, AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE))
        s->lookup_mismatches++;
}

/* Declare race name k this thread's way; record the status and what the
 * name looks like afterwards (the winner's declaration). */
static void round_race(seen *s, int k)
{
    char name[AXE_AXIS_NAME_MAX];
    axe_axis_kind kind;
    axe_scope sub, scope;
    axe_axis_info info;
    race_decl(s->id, &kind, &sub, &scope);
    snprintf(name, sizeof name, "race%d", k);
    s->race_status[k] = axe_axis_declare(name, kind, sub, scope, NULL);
    if (axe_axis_lookup(name, &info, NULL) != AXE_OK || !info.registered) {
        s->lookup_mismatches++;
        return;
    }
    s->race_kind[k] = info.kind;
    s->race_scope[k] = info.scope;
    if (s->race_status[k] == AXE_OK && !looks_like(name, kind, sub, scope))
        s->lookup_mismatches++;
}

static pthread_barrier_t start;

static void *worker(void *arg)
{
    seen *s = arg;
    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++) {
        int k = r % (NSHARED + NRACE + NOWN);
        if (k < NSHARED)
            round_shared(s, k);
        else if (k < NSHARED + NRACE)
            round_race(s, k - NSHARED);
        else
            round_own(s, k - NSHARED - NRACE);
    }
    return NULL;
}

/* Race name k: the threads that won declared what everyone looked up;
 * exactly the threads whose declaration differs from it were refused. */
static void check_race(const seen *s, int k)
{
    axe_axis_info info;
    char name[AXE_AXIS_NAME_MAX];
    snprintf(name, sizeof name, "race%d", k);
    TL_CHECK(axe_axis_lookup(name, &info, NULL) == AXE_OK && info.registered,
             "%s is declared", name);
    for (int t = 0; t < NTHREADS; t++) {
        axe_axis_kind kind;
        axe_scope sub, scope;
        bool same;
        race_decl(t, &kind, &sub, &scope);
        same = kind == info.kind && scope == info.scope && sub == info.subscope;
        TL_CHECK(s[t].race_kind[k] == info.kind &&
                     s[t].race_scope[k] == info.scope,
                 "thread %d saw %s as %s/%s, the table has %s/%s", t, name,
                 axe_axis_kind_name(s[t].race_kind[k]),
                 axe_scope_name(s[t].race_scope[k]),
                 axe_axis_kind_name(info.kind), axe_scope_name(info.scope));
        TL_CHECK((s[t].race_status[k] == AXE_OK) == same &&
                     (same || s[t].race_status[k] == AXE_ERR_INVALID),
                 "thread %d declaring %s: status %s, its declaration %s the "
                 "winner's",
                 t, name, axe_status_name(s[t].race_status[k]),
                 same ? "equals" : "differs from");
    }
}

/* Each name once in the table: exactly the remaining capacity fits. */
static void check_capacity(void)
{
    int fitted = 0;
    axe_status st = AXE_OK;
    for (int k = 0; st == AXE_OK && k < AXE_AXIS_DECLARED_MAX; k++) {
        char name[AXE_AXIS_NAME_MAX];
        snprintf(name, sizeof name, "late%d", k);
        st = axe_axis_declare(name, AXE_AXIS_MEMORY, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, NULL);
        fitted += st == AXE_OK;
    }
    TL_CHECK(st == AXE_ERR_CAPACITY &&
                 fitted == AXE_AXIS_DECLARED_MAX - NDISTINCT,
             "after the threads, %d more names fit (want %d), last status %s",
             fitted, AXE_AXIS_DECLARED_MAX - NDISTINCT, axe_status_name(st));
}

int main(void)
{
    static seen s[NTHREADS];
    pthread_t th[NTHREADS];
    int started = 0;
    if (pthread_barrier_init(&start, NULL, NTHREADS) != 0)
        return 2;
    for (int t = 0; t < NTHREADS; t++) {
        s[t].id = t;
        if (pthread_create(&th[t], NULL, worker, &s[t]) == 0)
            started++;
    }
    if (started != NTHREADS) {
        fprintf(stderr, "could not start %d threads\n", NTHREADS);
        return 2;
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < NTHREADS; t++)
        TL_CHECK(s[t].declare_failures == 0 && s[t].lookup_mismatches == 0,
                 "thread %d: %d declarations refused, %d lookups disagreed", t,
                 s[t].declare_failures, s[t].lookup_mismatches);
    for (int k = 0; k < NRACE; k++)
        check_race(s, k);
    check_capacity();
    printf("%d threads declared %d names at once\n", NTHREADS, NDISTINCT);
    return tl_finish();
}
