/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Swizzled shared memory: a shared tensor's layout may be
 * `Swizzle<M,B,S>(tile)` (docs/notation.md, TIRx's ComposeLayout). The
 * plans address the tile as for any layout (affine per digit, or from
 * coordinates); every generated access then maps that tile address
 * through the swizzle (ax_swz, an XOR of address bits), as the library's
 * apply does for the reference. Invariant: ax_swz(a) equals the library's
 * swizzled address for every a >= 0 below 2^40 (sema keeps M + S + B <=
 * 40, so no shift overflows), and an aligned run of w <= 2^M tile
 * addresses stays an aligned run of w storage addresses, which is what
 * vectorization needs (axe__swizzle_run).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* The swizzle that operand "r"'s addresses go through: its view's, or
 * (not a view) its tensor's; NULL when none. */
static const axe_layout_swizzle *ref_swizzle(const axe_program *p,
                                             const ax_ref *r)
{
    const axe_layout_swizzle *sw =
        r->is_view ? &r->view.swizzle : &p->tensors[r->tensor].layout.swizzle;
    return sw->present ? sw : NULL;
}

/* Whether operand "r" is addressed through a swizzle. */
bool axe__ref_swizzled(const axe_program *p, const ax_ref *r)
{
    return ref_swizzle(p, r) != NULL;
}

/* The aligned runs of tile addresses that the swizzle of "r" keeps
 * contiguous: 2^M (INT64_MAX when "r" is not swizzled). */
int64_t axe__swizzle_run(const axe_program *p, const ax_ref *r)
{
    const axe_layout_swizzle *sw = ref_swizzle(p, r);
    return sw == NULL ? INT64_MAX : (int64_t)1 << sw->per_element;
}

/* The swizzle of "r" changes only address bits below the returned one
 * (0 when "r" is not swizzled): the B bits it writes start at M (inner)
 * or M + S (outer). So it maps each aligned block of 2^n addresses (n
 * the count returned) onto itself, and with it any block of a multiple
 * of 2^n addresses that starts at a multiple of its size. */
int axe__swizzle_bits(const axe_program *p, const ax_ref *r)
{
    const axe_layout_swizzle *sw = ref_swizzle(p, r);
    if (sw == NULL)
        return 0;
    return (int)(sw->per_element + sw->len + (sw->inner ? 0 : sw->atom));
}

/* Opens the swizzle of operand "r"'s address (nothing when not swizzled);
 * axe__emit_swizzle_close closes it. */
void axe__emit_swizzle_open(ax_text *t, const axe_program *p, const ax_ref *r)
{
    if (ref_swizzle(p, r) != NULL)
        axe__text_put(t, "ax_swz(");
}

void axe__emit_swizzle_close(ax_text *t, const axe_program *p, const ax_ref *r)
{
    const axe_layout_swizzle *sw = ref_swizzle(p, r);
    if (sw != NULL)
        axe__text_put(t, ", %d, %d, %d, %d)", (int)sw->per_element,
                      (int)sw->len, (int)sw->atom, sw->inner ? 1 : 0);
}

/* "Swizzle<M,B,S>" or "Swizzle<M,B,S,outer>" of operand "r" into "buf"
 * ("" when not swizzled). */
void axe__swizzle_text(const axe_program *p, const ax_ref *r, char *buf,
                       size_t cap)
{
    const axe_layout_swizzle *sw = ref_swizzle(p, r);
    if (sw == NULL)
        (void)snprintf(buf, cap, "%s", "");
    else
        (void)snprintf(buf, cap, "Swizzle<%d,%d,%d%s>", (int)sw->per_element,
                       (int)sw->len, (int)sw->atom, sw->inner ? "" : ",outer");
}

axe_status axe__swizzle_i4_store(const axe_program *p, const ax_ref *r,
                                 axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const axe_layout_swizzle *sw = &r->view.swizzle;
    if (!r->is_view || !sw->present || t->dtype != AXE_DTYPE_I4 ||
        sw->len == 0 || sw->per_element >= 1)
        return AXE_OK;
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, r->off,
                     "'%s' is packed i4: its view's Swizzle<%d,%d,%d%s> "
                     "moves element address bit 0: a store through it "
                     "splits or swaps a byte's nibbles (stores need M >= 1; "
                     "Swizzle<M + 1,B,S> swizzles bytes as Swizzle<M,B,S>; "
                     "reads may have M = 0)",
                     t->name, (int)sw->per_element, (int)sw->len, (int)sw->atom,
                     sw->inner ? "" : ",outer");
}

/* A swizzle "sw" on tensor "t" (declared, or of a view of it at "off"):
 * the tensor is shared, and M + S + B <= 40 so that no shift of ax_swz
 * overflows (addresses are far below 2^40). The i4 rule (M >= 1) is
 * sema's for the declared swizzle and axe__swizzle_i4_store's for a view
 * written through. */
axe_status axe__swizzle_check(const ax_tensor *t, const axe_layout_swizzle *sw,
                              long off, axe_diag *diag)
{
    if (t->mem != AX_MEM_SHARED)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, off,
                         "tensor '%s': a swizzled layout (Swizzle<M,B,S>) "
                         "is supported on shared tensors only, not on a %s "
                         "tensor",
                         t->name, axe__mem_name(t->mem));
    if (sw->per_element + sw->atom + sw->len > 40)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, off,
                         "tensor '%s': Swizzle<%d,%d,%d> moves address bits "
                         "up to %d; a kernel supports M + S + B <= 40",
                         t->name, (int)sw->per_element, (int)sw->len,
                         (int)sw->atom,
                         (int)(sw->per_element + sw->atom + sw->len));
    return AXE_OK;
}

/* The exact storage addresses [*lo, *top] of a view without a dynamic
 * offset, by applying its layout (swizzle included) to every index. */
static axe_status view_extremes(const ax_ref *r, int64_t size, int64_t *lo,
                                int64_t *top, axe_diag *diag)
{
    int64_t x;
    *lo = INT64_MAX;
    *top = INT64_MIN;
    for (x = 0; x < size; x++) {
        axe_point pt;
        int k;
        AXE_TRY(axe_layout_apply_base(&r->view, x, &pt, diag));
        for (k = 0; k < pt.n; k++)
            if (strcmp(pt.axis[k], "m") == 0) {
                *lo = pt.v[k] < *lo ? pt.v[k] : *lo;
                *top = pt.v[k] > *top ? pt.v[k] : *top;
            }
    }
    return AXE_OK;
}

/* The storage addresses [*lo, *top] that a swizzled view "r" reaches,
 * given its bounds before the swizzle: exact when it has no dynamic
 * offset and at most 2^22 elements; otherwise widened to the aligned
 * blocks of 2^(M+S+B) addresses, each of which the swizzle maps into
 * itself. */
axe_status axe__swizzle_view_bounds(const axe_program *p, const ax_ref *r,
                                    int64_t *lo, int64_t *top, axe_diag *diag)
{
    const axe_layout_swizzle *sw = &r->view.swizzle;
    int64_t block, size;
    AXE_TRY(axe__swizzle_check(&p->tensors[r->tensor], sw, r->off, diag));
    if (r->view_dyn == NULL &&
        axe_layout_size(&r->view, NULL, &size) == AXE_OK &&
        size <= ((int64_t)1 << 22))
        return view_extremes(r, size, lo, top, diag);
    block = (int64_t)1 << (sw->per_element + sw->atom + sw->len);
    if (*lo >= 0)
        *lo = *lo / block * block;
    if (*top >= 0 && *top <= INT64_MAX - block)
        *top = (*top / block + 1) * block - 1;
    return AXE_OK;
}

static const char swz_text[] =
    "/* Swizzle<M,B,S> of the tile address a (docs/notation.md): inner xors\n"
    " * bits [M+S, M+S+B) into [M, M+B), outer bits [M, M+B) into\n"
    " * [M+S, M+S+B). */\n"
    "static inline long ax_swz(long a, int m, int b, int s, int inner)\n{\n"
    "    long mask = ((1L << b) - 1) << m;\n"
    "    return inner ? a ^ ((a >> s) & mask) : a ^ ((a & mask) << s);\n"
    "}\n\n";

/* The swizzle helper, when the generated code "body" calls it. */
void axe__emit_swizzle_helpers(ax_text *t, const char *body)
{
    if (body != NULL && strstr(body, "ax_swz(") != NULL)
        axe__text_put(t, "%s", swz_text);
}
