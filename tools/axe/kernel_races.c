/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The races of an `axe run --check` (axe_program_reference_races): as
 * text, one `race on T[3,5]: ...` line per race the report kept, and as
 * the JSON member "races", an array of objects (tensor, index, address,
 * first and second access with thread, CTA, line and read/write, whether
 * the threads are of different CTAs, the count of racing accesses like
 * it, the message, and for a mesh program the device); null when
 * detection was skipped.
 */
#include <stdio.h>

#include "kernel_run.h"

static void json_access(const char *key, const axe_race_access *a)
{
    printf("\"%s\":{\"thread\":%lld,\"cta\":%lld,\"line\":%d,\"access\":"
           "\"%s\"}",
           key, (long long)a->thread, (long long)a->cta, a->line,
           a->write ? "write" : "read");
}

static void json_race(const axe_race *r)
{
    char msg[512];
    int d;
    (void)axe_race_text(r, msg, sizeof msg);
    printf("{\"tensor\":\"%s\",\"index\":", r->tensor);
    if (r->ndim < 0)
        printf("null");
    for (d = 0; d < r->ndim; d++)
        printf("%s%lld%s", d ? "," : "[", (long long)r->index[d],
               d + 1 == r->ndim ? "]" : "");
    printf(",\"address\":%lld,", (long long)r->address);
    json_access("first", &r->first);
    printf(",");
    json_access("second", &r->second);
    printf(",\"cross_cta\":%s,\"kind\":\"%s\",\"count\":%lld,"
           "\"message\":\"%s\"",
           r->cross_cta ? "true" : "false",
           r->uninit ? "uninitialized" : "race", (long long)r->count, msg);
    if (r->mesh) /* a mesh program's (kernel.h) */
        printf(",\"device\":%lld}", (long long)r->device);
    else
        printf("}");
}

/* `,"races":[...]` (null when "rep" is NULL: not detected). */
void kernel_races_json(const axe_race_report *rep)
{
    kernel_races_json_named("races", rep);
}

void kernel_races_json_named(const char *key, const axe_race_report *rep)
{
    int k;
    if (rep == NULL) {
        printf(",\"%s\":null", key);
        return;
    }
    printf(",\"%s\":[", key);
    for (k = 0; k < rep->n; k++) {
        printf("%s", k ? "," : "");
        json_race(&rep->race[k]);
    }
    printf("]");
}

/* One line per race kept, then how many accesses raced in all. */
void kernel_races_text(const axe_race_report *rep)
{
    char msg[512];
    int k;
    for (k = 0; k < rep->n; k++) {
        (void)axe_race_text(&rep->race[k], msg, sizeof msg);
        printf("%s\n", msg);
    }
    if (rep->count > 0)
        printf("%lld racing access%s in all\n", (long long)rep->count,
               rep->count == 1 ? "" : "es");
}
