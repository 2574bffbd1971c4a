/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recasting a layout to another element width (CuTe's upcast<N>,
 * downcast<N> and recast_layout<Old,New>), leaf by leaf. Upcast by n (n old
 * elements become one): a stride divisible by n is divided by n; a stride d
 * with |d| dividing n becomes sign(d) and its extent s becomes
 * ceil(s / (n/|d|)); stride 0 stays. Downcast by n (one element becomes n):
 * a stride of +-1 keeps its stride and multiplies its extent by n, every
 * other stride is multiplied by n. Invariant: only integer strides are
 * recast; the laws (docs/algebra.md) are n * up(l)(x) == l(lift(x)) and
 * down(l)(x) == n * l(x / n) + sign * (x mod n) on the unit-stride leaves.
 * A composed layout is recast part by part (outer, offset, inner, as CuTe
 * does); a swizzle Sw<B,M,S> moves its base M by log2(n).
 */
#include "cute_internal.h"

static axe_status check_plain(const axe_cute_layout *l, int64_t n,
                              const char *what, axe_diag *diag)
{
    if (n < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the %s factor must be positive, got %lld", what,
                         (long long)n);
    for (int i = 0; i < l->shape.nleaf; i++)
        if (l->basis[i] != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "leaf %d has a scaled-basis stride; only "
                             "integer strides can be recast",
                             i);
    return AXE_OK;
}

/* Upcast one leaf s:d by n into "s", "d". */
static axe_status upcast_leaf(int64_t *s, int64_t *d, int64_t n, int leaf,
                              axe_diag *diag)
{
    int64_t ad;
    if (*d == INT64_MIN)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1, "stride overflows");
    ad = axe__abs(*d);
    if (*d % n == 0) {
        *d /= n;
    } else if (n % ad == 0) {
        *s = axe__ceildiv(*s, n / ad);
        *d = *d < 0 ? -1 : 1;
    } else if (*s == 1) {
        *d = 0;
    } else {
        return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                         "stride %lld of leaf %d neither divides nor is "
                         "divisible by the upcast factor %lld",
                         (long long)*d, leaf, (long long)n);
    }
    return AXE_OK;
}

/*
 * upcast("l", "n"): the layout of "l" in units of n elements. For every
 * coordinate x of the result, lift(x) (x with each sub-n leaf's coordinate
 * multiplied by n/|d|) is a coordinate of "l" and l(lift(x)) == n * up(x).
 */
axe_status axe_cute_upcast(const axe_cute_layout *l, int64_t n,
                           axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout r;
    axe__cute_copy(&r, l);
    AXE_TRY(check_plain(l, n, "upcast", diag));
    for (int i = 0; i < r.shape.nleaf; i++)
        AXE_TRY(upcast_leaf(&r.shape.v[i], &r.stride[i], n, i, diag));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/*
 * downcast("l", "n"): the layout of "l" in units of 1/n element. Unit
 * stride leaves grow n-fold, other strides scale by n, so that
 * down(x) == n * l(x') + sum sign(d) (x_k mod n) over the unit leaves k,
 * where x' is x with x_k replaced by x_k / n on those leaves.
 */
axe_status axe_cute_downcast(const axe_cute_layout *l, int64_t n,
                             axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout r;
    axe__cute_copy(&r, l);
    AXE_TRY(check_plain(l, n, "downcast", diag));
    for (int i = 0; i < r.shape.nleaf; i++) {
        int64_t *v = r.stride[i] == 1 || r.stride[i] == -1 ? &r.shape.v[i]
                                                           : &r.stride[i];
        if (axe__mul(*v, n, v) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "downcasting leaf %d by %lld overflows", i,
                             (long long)n);
    }
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* The factors of recast_layout<Old,New>: "up" = New/g, "down" = Old/g for
 * g = gcd(Old, New); both widths must be positive. */
static axe_status recast_factors(int64_t old_bits, int64_t new_bits,
                                 int64_t *up, int64_t *down, axe_diag *diag)
{
    int64_t g;
    if (old_bits <= 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the old element width must be positive, got %lld "
                         "bits",
                         (long long)old_bits);
    if (new_bits <= 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the new element width must be positive, got %lld "
                         "bits",
                         (long long)new_bits);
    g = axe__gcd(old_bits, new_bits);
    *up = new_bits / g;
    *down = old_bits / g;
    return AXE_OK;
}

/*
 * recast_layout<"old_bits","new_bits">("l") = downcast(upcast(l, New/g),
 * Old/g) with g = gcd(Old, New): the layout that addresses the same bytes
 * in elements of "new_bits" bits (CuTe applies the same pair of steps).
 */
axe_status axe_cute_recast(const axe_cute_layout *l, int64_t old_bits,
                           int64_t new_bits, axe_cute_layout *out,
                           axe_diag *diag)
{
    int64_t up, down;
    axe_cute_layout r;
    AXE_TRY(recast_factors(old_bits, new_bits, &up, &down, diag));
    AXE_TRY(axe_cute_upcast(l, up, &r, diag));
    AXE_TRY(axe_cute_downcast(&r, down, &r, diag));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* log2("n") if "n" is a power of two, else -1. */
static int exact_log2(int64_t n)
{
    int k = 0;
    if (n < 1 || (n & (n - 1)) != 0)
        return -1;
    while (((int64_t)1 << k) != n)
        k++;
    return k;
}

static axe_status not_power_of_two(int64_t n, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "a swizzle is recast only by a power of two, not by "
                     "%lld",
                     (long long)n);
}

/*
 * The swizzle "sw" in units of n = 2^k elements: S'(y >> k) == S(y) >> k
 * for every y >= 0 (CuTe's upcast<N> of a swizzle). When the low bits M <
 * k are dropped, the B' = max(B + M - k, 0) surviving target bits start at
 * 0; with a negative shift those would depend on dropped source bits, so
 * no swizzle is exact and the upcast is refused.
 */
static axe_status swizzle_upcast(const axe_swizzle *sw, int64_t n,
                                 axe_swizzle *out, axe_diag *diag)
{
    int k = exact_log2(n), m;
    if (k < 0)
        return not_power_of_two(n, diag);
    m = sw->base - k;
    if (m >= 0)
        return axe_swizzle_make(sw->bits, m, sw->shift, out, diag);
    if (sw->shift < 0 && sw->bits > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "Sw<%d,%d,%d> upcast by %lld would need the source "
                         "bits below bit %d that the upcast drops",
                         sw->bits, sw->base, sw->shift, (long long)n, k);
    return axe_swizzle_make(sw->bits + m > 0 ? sw->bits + m : 0, 0, sw->shift,
                            out, diag);
}

/* The swizzle "sw" in units of 1/n = 2^-k element: S'(y * n + r) ==
 * S(y) * n + r for r < n (CuTe's downcast<N> of a swizzle). */
static axe_status swizzle_downcast(const axe_swizzle *sw, int64_t n,
                                   axe_swizzle *out, axe_diag *diag)
{
    int k = exact_log2(n);
    if (k < 0)
        return not_power_of_two(n, diag);
    return axe_swizzle_make(sw->bits, sw->base + k, sw->shift, out, diag);
}

/* The offset of "c" as one integer: a coordinate offset of a layout outer
 * becomes its colex index over the outer shape. */
static axe_status composed_offset(const axe_cute_composed *c, int64_t *out,
                                  axe_diag *diag)
{
    if (axe_tuple_is_scalar(&c->offset)) {
        *out = c->offset.v[0];
        return AXE_OK;
    }
    if (c->kind == AXE_CUTE_OUTER_LAYOUT &&
        axe_tuple_crd2idx(&c->offset, &c->outer.shape, out) == AXE_OK)
        return AXE_OK;
    return axe__fail(diag, AXE_ERR_INVALID, -1,
                     "the composed offset is not an index of the outer");
}

/* upcast of every part of "c" by "n" (the offset must be a multiple). */
static axe_status composed_upcast(const axe_cute_composed *c, int64_t n,
                                  axe_cute_composed *out, axe_diag *diag)
{
    axe_cute_composed r = *c;
    int64_t off;
    AXE_TRY(composed_offset(c, &off, diag));
    if (off % n != 0)
        return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                         "the offset %lld is not a multiple of the upcast "
                         "factor %lld",
                         (long long)off, (long long)n);
    axe_tuple_scalar(off / n, &r.offset);
    AXE_TRY(axe_cute_upcast(&c->inner, n, &r.inner, diag));
    if (c->kind == AXE_CUTE_OUTER_SWIZZLE)
        AXE_TRY(swizzle_upcast(&c->swizzle, n, &r.swizzle, diag));
    else
        AXE_TRY(axe_cute_upcast(&c->outer, n, &r.outer, diag));
    *out = r;
    return AXE_OK;
}

/* downcast of every part of "c" by "n". */
static axe_status composed_downcast(const axe_cute_composed *c, int64_t n,
                                    axe_cute_composed *out, axe_diag *diag)
{
    axe_cute_composed r = *c;
    int64_t off;
    AXE_TRY(composed_offset(c, &off, diag));
    if (axe__mul(off, n, &off) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the downcast offset overflows");
    axe_tuple_scalar(off, &r.offset);
    AXE_TRY(axe_cute_downcast(&c->inner, n, &r.inner, diag));
    if (c->kind == AXE_CUTE_OUTER_SWIZZLE)
        AXE_TRY(swizzle_downcast(&c->swizzle, n, &r.swizzle, diag));
    else
        AXE_TRY(axe_cute_downcast(&c->outer, n, &r.outer, diag));
    *out = r;
    return AXE_OK;
}

/*
 * recast_layout<"old_bits","new_bits"> of a composed layout: outer, offset
 * and inner each recast (CuTe), upcast by New/g and then downcast by Old/g.
 * With a swizzle outer and offset divisible by n, upcast satisfies
 * up(c)(x) == c(lift(x)) >> log2(n); downcast satisfies down(c)(x * n + r)
 * == c(x) * n + r when inner's unit-stride leaf comes first.
 */
axe_status axe_cute_composed_recast(const axe_cute_composed *c,
                                    int64_t old_bits, int64_t new_bits,
                                    axe_cute_composed *out, axe_diag *diag)
{
    int64_t up, down;
    axe_cute_composed r = *c;
    AXE_TRY(recast_factors(old_bits, new_bits, &up, &down, diag));
    AXE_TRY(composed_upcast(&r, up, &r, diag));
    AXE_TRY(composed_downcast(&r, down, &r, diag));
    *out = r;
    return AXE_OK;
}
