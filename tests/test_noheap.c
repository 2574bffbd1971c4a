/* SPDX-License-Identifier: Apache-2.0 */
/*
 * No heap in the algebra. This program defines malloc, calloc, realloc,
 * free, aligned_alloc, posix_memalign and memalign itself: the executable's
 * definitions interpose on the C library's for every caller, the statically
 * linked libaxe included, and forward to glibc's allocator (__libc_*).
 * While an operation runs the hook is armed: every allocation is counted
 * and refused (NULL), every free counted. The rows are axe-bench's own
 * cases (bench/bench_cases.c and bench/bench_axe.c, through their op
 * wrappers, so the test covers exactly what the benchmark times): the
 * pycute suite, every CuTe algebra operation on realistic layouts, the
 * 2..16-mode scaling series, and the Axe layout algebra (apply,
 * canonicalize, group, tile, is_tile_inner/outer, slice, direct sum) on
 * realistic layouts and over 2..16 shard iters. Each row must allocate and
 * free nothing and succeed (an Axe recovery or slice must find its
 * answer); an operation still pending (AXE_ERR_UNSUPPORTED) is listed,
 * and its allocation check still runs. Under a sanitizer that owns malloc,
 * or off glibc, the program exits 77 (skipped).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

#include "../bench/bench.h"
#include "../bench/bench_axe.c"
#include "../bench/bench_cases.c"
#include "../bench/bench_ops.c"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NOHEAP_SKIP "a sanitizer runtime owns malloc"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define NOHEAP_SKIP "a sanitizer runtime owns malloc"
#endif
#endif
#if !defined(NOHEAP_SKIP) && !defined(__GLIBC__)
#define NOHEAP_SKIP "the allocator hook needs glibc's __libc_malloc"
#endif

#ifndef NOHEAP_SKIP

static volatile int armed;
static volatile long allocs;
static volatile long frees;

/* Count an allocation if armed; true if it must be refused. */
static int refuse(void)
{
    if (!armed)
        return 0;
    allocs++;
    return 1;
}

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);
void *memalign(size_t align, size_t size);

void *malloc(size_t size) { return refuse() ? NULL : __libc_malloc(size); }

void *calloc(size_t n, size_t size)
{
    return refuse() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return refuse() ? NULL : __libc_realloc(p, size);
}

void free(void *p)
{
    if (armed && p != NULL)
        frees++;
    __libc_free(p);
}

void *memalign(size_t align, size_t size)
{
    return refuse() ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    return refuse() ? NULL : __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    void *p = refuse() ? NULL : __libc_memalign(align, size);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

/* The hook is live: an armed malloc through an opaque pointer is counted
 * and refused, and nothing is counted once disarmed. */
static void check_hook(void)
{
    void *(*volatile alloc)(size_t) = malloc;
    void *p;
    allocs = 0;
    armed = 1;
    p = alloc(64);
    armed = 0;
    TL_CHECK(p == NULL && allocs == 1,
             "hook: an armed malloc gave %p, counted %ld", p, (long)allocs);
    p = alloc(64);
    TL_CHECK(p != NULL && allocs == 1, "hook: a disarmed malloc failed");
    free(p);
}

/* Run case "c" once, armed; "pending" counts UNSUPPORTED operations. */
static void check_case(const bench_case *c, int *pending)
{
    static bench_io io;
    const bench_op *op = bench_op_find(c->op);
    axe_status st;
    int modes;
    if (op == NULL) {
        TL_CHECK(0, "%s/%s: unknown op", c->op, c->name);
        return;
    }
    st = bench_prepare(c, op, &io, &modes);
    TL_CHECK(st == AXE_OK, "%s/%s: operands: %s", c->op, c->name,
             axe_status_name(st));
    if (st != AXE_OK)
        return;
    allocs = frees = 0;
    armed = 1;
    st = op->run(&io);
    armed = 0;
    TL_CHECK(allocs == 0 && frees == 0,
             "%s/%s (%s): %ld allocations, %ld frees", c->op, c->name, c->a,
             (long)allocs, (long)frees);
    TL_CHECK(st == AXE_OK || st == AXE_ERR_UNSUPPORTED, "%s/%s (%s): %s", c->op,
             c->name, c->a, axe_status_name(st));
    TL_CHECK(st != AXE_OK || op->operands[0] != 'X' || io.axe.found,
             "%s/%s (%s): no answer found", c->op, c->name, c->a);
    if (st == AXE_ERR_UNSUPPORTED) {
        printf("pending (UNSUPPORTED): %s/%s, %d modes\n", c->op, c->name,
               modes);
        (*pending)++;
    }
}

int main(void)
{
    static bench_case cases[256];
    const bench_case *fixed;
    int n = bench_fixed_cases(&fixed), pending = 0;
    for (int i = 0; i < n; i++)
        cases[i] = fixed[i];
    n += bench_scaling_cases(cases + n, 256 - n);
    n += bench_axe_cases(cases + n, 256 - n);
    check_hook();
    for (int i = 0; i < n; i++)
        check_case(&cases[i], &pending);
    printf("test_noheap: %d operations run with a refusing allocator, "
           "%d still pending\n",
           n, pending);
    return tl_finish();
}

#else

int main(void)
{
    printf("test_noheap: skipped: %s\n", NOHEAP_SKIP);
    printf("0 passed, 0 failed\n");
    return 77;
}

#endif
