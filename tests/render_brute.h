/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Random Axe layouts over the axes m, laneid, warpid and a brute-force
 * evaluation of their defining equation D(x) + r + O, written here
 * independently of the library, for the render tests (test_render.c,
 * test_render_bands.c). Invariant: brute() reads only the layout's
 * shard/replica/offset lists, never axe_layout_apply*. The random numbers
 * are testlib.h's seeded tl_range.
 */
#ifndef AXE_TESTS_RENDER_BRUTE_H
#define AXE_TESTS_RENDER_BRUTE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/layout.h"
#include "axe/render.h"
#include "testlib.h"

/* Stop on a failed setup step (the random layouts are built valid). */
static inline void rb_must(axe_status st)
{
    if (st != AXE_OK) {
        fprintf(stderr, "test setup failed: %s\n", axe_status_name(st));
        exit(2);
    }
}

static const char *const pool[3] = {"m", "laneid", "warpid"};

static inline axe_layout random_axe(void)
{
    axe_layout l;
    int ns = (int)tl_range(1, 4), nr = (int)tl_range(0, 2);
    axe_layout_init(&l);
    for (int i = 0; i < ns; i++)
        rb_must(axe_layout_push_shard(&l, tl_range(1, 4), tl_range(0, 6),
                                      pool[tl_range(0, 2)]));
    for (int i = 0; i < nr; i++)
        rb_must(axe_layout_push_replica(&l, tl_range(1, 3), tl_range(1, 9),
                                        pool[tl_range(0, 2)]));
    if (tl_range(0, 1))
        rb_must(
            axe_layout_add_offset(&l, pool[tl_range(0, 2)], tl_range(0, 7)));
    return l;
}

/* The value on axis "a" of point number "p" (lex over the replica) of x. */
static inline int64_t brute(const axe_layout *l, int64_t x, int64_t p,
                            const char *a)
{
    int64_t v = 0;
    for (int i = l->nshard - 1; i >= 0; i--) {
        int64_t d = i == 0 ? x : x % l->shard[i].extent;
        x = i == 0 ? 0 : x / l->shard[i].extent;
        v += strcmp(l->shard[i].axis, a) == 0 ? d * l->shard[i].stride : 0;
    }
    for (int i = l->nreplica - 1; i >= 0; i--) {
        int64_t d = p % l->replica[i].extent;
        p /= l->replica[i].extent;
        v += strcmp(l->replica[i].axis, a) == 0 ? d * l->replica[i].stride : 0;
    }
    for (int i = 0; i < l->noffset; i++)
        v += strcmp(l->offset[i].axis, a) == 0 ? l->offset[i].value : 0;
    return v;
}

static inline int64_t replicas(const axe_layout *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->nreplica; i++)
        n *= l->replica[i].extent;
    return n;
}

/* Default options drawing a rows x cols grid (shape [rows, cols]). */
static inline void rb_grid(axe_render_options *o, int64_t rows, int64_t cols)
{
    axe_render_options_init(o);
    o->ndims = 2;
    o->shape[0] = rows;
    o->shape[1] = cols;
}

#endif
