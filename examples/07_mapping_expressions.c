/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Example 7: a FuriosaAI mapping expression over named axes, read at a
 * buffer position, compared with an equivalent one, converted to the Axe
 * layout that maps each tensor index to its buffer position, and the
 * reason when a padded expression has no such layout. Uses the public API
 * only.
 */
#include <stdio.h>
#include <string.h>

#include "axe/axe.h"

static int parse(const char *text, const axe_mapping_axes *axes, axe_mapping *m)
{
    axe_mapping_env env = {axes, 0, NULL, NULL, 0, NULL, NULL, false};
    axe_diag diag;
    if (axe_parse_mapping(text, strlen(text), &env, m, &diag) == AXE_OK)
        return 1;
    fprintf(stderr, "%s: offset %ld: %s\n", text, diag.offset, diag.message);
    return 0;
}

int main(void)
{
    const char *decl = "axes![A = 8, B = 512]";
    const char *tensor[] = {"A", "B"};
    axe_mapping_axes axes;
    axe_mapping e, f;
    axe_mapping_cell cell;
    axe_layout l;
    axe_diag diag;
    char buf[256];
    bool same = false;
    axe_mapping_part part = {&e, "m", 1, false};
    if (axe_parse_mapping_axes(decl, strlen(decl), &axes, &diag) != AXE_OK ||
        !parse("m![B / 64, A, B % 64]", &axes, &e) ||
        !parse("m![[B / 64, A], B % 64]", &axes, &f) ||
        axe_mapping_map(&e, 130, &cell, &diag) != AXE_OK ||
        axe_mapping_equivalent(&e, &f, &same, &diag) != AXE_OK ||
        axe_mapping_to_layout(&part, 1, tensor, 2, &l, &diag) != AXE_OK)
        return 1;
    axe_print_mapping(&e, buf, sizeof buf);
    printf("%s at 130 holds A = %lld, B = %lld\n", buf,
           (long long)cell.coord[0], (long long)cell.coord[1]);
    axe_print_layout(&l, buf, sizeof buf);
    printf("equivalent to m![[B / 64, A], B %% 64]: %s; as an Axe layout: "
           "%s\n",
           same ? "yes" : "no", buf);
    if (!parse("m![A, B # 520]", &axes, &e) ||
        axe_mapping_to_layout(&part, 1, tensor, 2, &l, &diag) == AXE_OK)
        return 1;
    printf("m![A, B # 520] has no Axe layout: %s\n", diag.message);
    return cell.coord[0] == 2 && cell.coord[1] == 2 && same &&
                   strcmp(buf, "S[(8,8,64):(64,512,1)]") == 0
               ? 0
               : 1;
}
