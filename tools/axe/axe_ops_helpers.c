/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe operations that construct layouts: row_major and the helpers of
 * TIRx's Python layer (storage, pack / unpack, broadcast, permute_dims,
 * permute_by_groups, trainium, to_psum, the TMEM and shared-memory layouts
 * of tcgen05). Each is one call into include/axe/layout.h; what is decided
 * here is how the request's arguments map onto the call (defaults as in
 * TIRx: broadcast at the end on `m`, wg_local_layout with 128 rows).
 * Invariant: integer arguments that the library takes as int are range
 * checked before the call.
 */
#include <string.h>

#include "axe_ops.h"

#include "core_internal.h"

axe_status axop_row_major(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    axe_layout out;
    int n = -1;
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    AXE_TRY(axe_layout_row_major(axop_list(args, AXOP_SHAPE)->v, n, &out));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* The integer list "k" as ints (each in [lo, hi]) into "out". */
static axe_status int_list(const axop_args *args, axop_key k, int64_t lo,
                           int64_t hi, int *out, axe_diag *diag)
{
    const axop_ints *l = axop_list(args, k);
    for (int i = 0; i < l->n; i++) {
        if (l->v[i] < lo || l->v[i] > hi)
            return axop_fail(diag, AXE_ERR_INVALID,
                             "\"%s\"[%d] = %lld is outside [%lld, %lld]",
                             axop_key_name(k), i, (long long)l->v[i],
                             (long long)lo, (long long)hi);
        out[i] = (int)l->v[i];
    }
    return AXE_OK;
}

/* Integer argument "k" as an int in [lo, hi]. */
static axe_status small_int(const axop_args *args, axop_key k, int64_t lo,
                            int64_t hi, int *out, axe_diag *diag)
{
    int64_t v = axop_int(args, k);
    if (v < lo || v > hi)
        return axop_fail(
            diag, AXE_ERR_INVALID, "\"%s\" = %lld is outside [%lld, %lld]",
            axop_key_name(k), (long long)v, (long long)lo, (long long)hi);
    *out = (int)v;
    return AXE_OK;
}

/* A one-letter argument ("datapath", "operand") as a char. */
static axe_status letter(const axop_args *args, axop_key k, char *out,
                         axe_diag *diag)
{
    const char *s = axop_str(args, k);
    if (strlen(s) != 1)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "\"%s\" is one letter, not \"%s\"", axop_key_name(k),
                         s);
    *out = s[0];
    return AXE_OK;
}

axe_status axop_storage(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_storage(axop_layout(args, AXOP_LAYOUT), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_pack(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_pack(axop_layout(args, AXOP_LAYOUT),
                            axop_int(args, AXOP_NUM), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_unpack(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_unpack(axop_layout(args, AXOP_LAYOUT),
                              axop_int(args, AXOP_NUM), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* broadcast(num, position = -1, axis = "m"). */
axe_status axop_broadcast(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    axe_layout out;
    int pos = -1;
    const char *axis =
        axop_has(args, AXOP_AXIS) ? axop_str(args, AXOP_AXIS) : "m";
    if (axop_has(args, AXOP_POSITION))
        AXE_TRY(small_int(args, AXOP_POSITION, -AXE_LAYOUT_MAX_SHARD - 1,
                          AXE_LAYOUT_MAX_SHARD, &pos, diag));
    AXE_TRY(axe_layout_broadcast(axop_layout(args, AXOP_LAYOUT),
                                 axop_int(args, AXOP_NUM), pos, axis, &out,
                                 diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_permute_dims(const axop_args *args, axop_result *res,
                             axe_diag *diag)
{
    int perm[AXOP_LIST_MAX];
    axe_layout out;
    AXE_TRY(int_list(args, AXOP_PERM, 0, AXOP_LIST_MAX, perm, diag));
    AXE_TRY(axe_layout_permute_dims(axop_layout(args, AXOP_LAYOUT), perm,
                                    axop_list(args, AXOP_PERM)->n, &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_permute_by_groups(const axop_args *args, axop_result *res,
                                  axe_diag *diag)
{
    int perm[AXOP_LIST_MAX], seps[AXOP_LIST_MAX];
    axe_layout out;
    AXE_TRY(int_list(args, AXOP_PERM, 0, AXOP_LIST_MAX, perm, diag));
    AXE_TRY(int_list(args, AXOP_SEPS, 0, AXOP_LIST_MAX, seps, diag));
    AXE_TRY(axe_layout_permute_by_groups(
        axop_layout(args, AXOP_LAYOUT), seps, axop_list(args, AXOP_SEPS)->n,
        perm, axop_list(args, AXOP_PERM)->n, &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_trainium(const axop_args *args, axop_result *res,
                         axe_diag *diag)
{
    axe_layout out;
    int n = -1;
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    AXE_TRY(axe_layout_trainium(axop_str(args, AXOP_ANNOTATION),
                                axop_list(args, AXOP_SHAPE)->v, n, &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_to_psum(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_to_psum(axop_layout(args, AXOP_LAYOUT), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* tmem_datapath_layout(datapath, rows, cols, sub_slab = 0). */
axe_status axop_tmem_datapath_layout(const axop_args *args, axop_result *res,
                                     axe_diag *diag)
{
    axe_layout out;
    char dp;
    int sub = 0;
    AXE_TRY(letter(args, AXOP_DATAPATH, &dp, diag));
    if (axop_has(args, AXOP_SUB_SLAB))
        AXE_TRY(
            small_int(args, AXOP_SUB_SLAB, INT32_MIN, INT32_MAX, &sub, diag));
    AXE_TRY(axe_layout_tmem_datapath(dp, axop_int(args, AXOP_ROWS),
                                     axop_int(args, AXOP_COLS), sub, &out,
                                     diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* tmem_mma_operand_layout(operand, shape, dtype, M, cta_group, ws = false,
 * group = none). */
axe_status axop_tmem_mma_operand_layout(const axop_args *args, axop_result *res,
                                        axe_diag *diag)
{
    const axop_ints *group = axop_list(args, AXOP_GROUP);
    bool has_group = axop_has(args, AXOP_GROUP);
    axe_layout out;
    char operand;
    int n = -1, cta;
    AXE_TRY(letter(args, AXOP_OPERAND, &operand, diag));
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    AXE_TRY(small_int(args, AXOP_CTA_GROUP, INT32_MIN, INT32_MAX, &cta, diag));
    AXE_TRY(axe_layout_tmem_mma_operand(
        operand, axop_list(args, AXOP_SHAPE)->v, n, axop_str(args, AXOP_DTYPE),
        axop_int(args, AXOP_M), cta,
        axop_has(args, AXOP_WS) && axop_flag(args, AXOP_WS),
        has_group ? group->v : NULL, has_group ? group->n : 0, &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* wg_local_layout(cols, rows = 128). */
axe_status axop_wg_local_layout(const axop_args *args, axop_result *res,
                                axe_diag *diag)
{
    axe_layout out;
    int64_t rows = axop_has(args, AXOP_ROWS) ? axop_int(args, AXOP_ROWS) : 128;
    AXE_TRY(axe_layout_wg_local(axop_int(args, AXOP_COLS), rows, &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_mma_shared_layout(const axop_args *args, axop_result *res,
                                  axe_diag *diag)
{
    axe_layout out;
    int n = -1, mode;
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    AXE_TRY(
        small_int(args, AXOP_SWIZZLE_MODE, INT32_MIN, INT32_MAX, &mode, diag));
    AXE_TRY(axe_layout_mma_shared(axop_str(args, AXOP_DTYPE), mode,
                                  axop_list(args, AXOP_SHAPE)->v, n, &out,
                                  diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}
