/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Example 2: the CuTe paper's composition (6,2):(8,2) ∘ (4,3):(3,1), a
 * logical divide by a tiler, and a composition that has no layout, which
 * comes back as a status with the reason. Uses the public API only.
 */
#include <stdio.h>
#include <string.h>

#include "axe/axe.h"

static int parse(const char *s, axe_cute_object *o)
{
    axe_diag d;
    if (axe_parse_cute(s, strlen(s), o, &d) == AXE_OK)
        return 0;
    fprintf(stderr, "%s: %s\n", s, d.message);
    return 1;
}

int main(void)
{
    static axe_cute_object a, b, t;
    axe_cute_layout r;
    axe_diag d;
    char buf[256];
    axe_status s;

    if (parse("(6,2):(8,2)", &a) || parse("(4,3):(3,1)", &b) ||
        parse("<4:1, 8:2>", &t))
        return 1;
    if (axe_cute_compose(&a.layout, &b.layout, &r, &d) != AXE_OK)
        return 1;
    axe_print_cute_layout(&r, buf, sizeof buf);
    printf("(6,2):(8,2) o (4,3):(3,1) = %s\n", buf);
    if (strcmp(buf, "((2,2),3):((24,2),8)") != 0)
        return 1;

    if (parse("(8,16):(20,1)", &a) ||
        axe_cute_divide(AXE_CUTE_DIVIDE_LOGICAL, &a.layout, &t.tiler, &r, &d) !=
            AXE_OK)
        return 1;
    axe_print_cute_layout(&r, buf, sizeof buf);
    printf("logical_divide((8,16):(20,1), <4:1, 8:2>) = %s\n", buf);

    if (parse("(4,8):(2,1)", &a) || parse("33:5", &b))
        return 1;
    s = axe_cute_compose(&a.layout, &b.layout, &r, &d);
    printf("(4,8):(2,1) o 33:5: %s: %s\n", axe_status_name(s), d.message);
    return s == AXE_ERR_NOT_COMPOSABLE ? 0 : 1;
}
