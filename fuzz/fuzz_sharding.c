/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the sharding-spec text (include/axe/sharding.h):
 * the input is a format byte (jax, dtensor, alpa by value mod 3; the dim
 * count 1 + (value / 3) mod 3), then a mesh text up to the first newline,
 * then a spec text. Invariants, each checked with __builtin_trap: a failed
 * parse names an offset inside its text and a message; a parsed spec whose
 * layout exists converts back (axe_sharding_from_layout, its pending
 * reductions given) to a spec with the same layout, and its printed text
 * parses to a spec with the same layout again. Shapes are 2 * the device
 * count per dim, so every dim splits evenly.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/notation.h"
#include "axe/sharding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool cond)
{
    if (!cond)
        __builtin_trap();
}

static void check_failure(axe_status st, const axe_diag *d, size_t len)
{
    require(st != AXE_OK);
    require(d->offset >= -1 && d->offset <= (long)len);
    require(d->message[0] != '\0');
}

static void check_back(axe_sharding_format f, const axe_sharding *s,
                       const axe_mesh *m, const int64_t *shape, int n,
                       const axe_layout *l)
{
    static char text[1024];
    axe_sharding back, again;
    axe_layout l2;
    axe_diag d;
    size_t len;
    require(axe_sharding_from_layout(f, l, m, shape, n, s->partial,
                                     s->partial ? s->op : NULL, &back,
                                     &d) == AXE_OK);
    require(axe_sharding_to_layout(&back, m, shape, n, &l2, &d) == AXE_OK);
    require(axe_layout_equal(l, &l2));
    len = axe_print_sharding(f, &back, m, text, sizeof text);
    require(len > 0 && len < sizeof text);
    require(axe_parse_sharding(f, text, len, m, n, &again, &d) == AXE_OK);
    require(axe_sharding_to_layout(&again, m, shape, n, &l2, &d) == AXE_OK);
    require(axe_layout_equal(l, &l2));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data + 1;
    const char *nl;
    size_t mlen;
    axe_sharding_format f;
    axe_mesh m;
    axe_sharding s;
    axe_layout l;
    axe_diag d;
    axe_status st;
    int64_t p, shape[3];
    int n;
    if (size < 1)
        return 0;
    f = (axe_sharding_format)(data[0] % 3);
    n = 1 + (data[0] / 3) % 3;
    nl = memchr(text, '\n', size - 1);
    mlen = nl != NULL ? (size_t)(nl - text) : size - 1;
    axe_diag_clear(&d);
    st = axe_parse_mesh(text, mlen, &m, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, mlen);
        return 0;
    }
    if (nl == NULL || axe_mesh_devices(&m, &p) != AXE_OK || p > 4096)
        return 0;
    text = nl + 1;
    size -= mlen + 2;
    axe_diag_clear(&d);
    st = axe_parse_sharding(f, text, size, &m, n, &s, &d);
    if (st != AXE_OK) {
        check_failure(st, &d, size);
        return 0;
    }
    for (int k = 0; k < n; k++)
        shape[k] = 2 * p;
    if (axe_sharding_to_layout(&s, &m, shape, n, &l, &d) == AXE_OK)
        check_back(f, &s, &m, shape, n, &l);
    return 0;
}
