/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Example 1: parse a CuTe layout, evaluate it on an index and on a
 * hierarchical coordinate, and print its size, cosize and canonical text —
 * the first worked example of the CuTe paper. Uses the public API only.
 */
#include <stdio.h>
#include <string.h>

#include "axe/axe.h"

int main(void)
{
    const char *text = "(3,(2,3)):(3,(12,1))";
    axe_cute_layout l;
    axe_tuple crd;
    axe_diag diag;
    int64_t size, cosize, at_index, at_crd;
    char buf[128];

    axe_diag_clear(&diag);
    if (axe_parse_cute_layout(text, strlen(text), &l, &diag) != AXE_OK ||
        axe_parse_tuple("(1,(1,2))", 9, &crd, &diag) != AXE_OK) {
        fprintf(stderr, "parse error at %ld: %s\n", diag.offset, diag.message);
        return 1;
    }
    if (axe_cute_size(&l, &size) != AXE_OK ||
        axe_cute_cosize(&l, &cosize) != AXE_OK ||
        axe_cute_eval(&l, 16, &at_index) != AXE_OK ||
        axe_cute_eval_crd(&l, &crd, &at_crd) != AXE_OK)
        return 1;
    axe_print_cute_layout(&l, buf, sizeof buf);
    printf("%s: size %lld, cosize %lld\n", buf, (long long)size,
           (long long)cosize);
    printf("L(16) = %lld, L(1,(1,2)) = %lld\n", (long long)at_index,
           (long long)at_crd);
    return at_index == 17 && at_crd == 17 && size == 18 && cosize == 21 ? 0 : 1;
}
