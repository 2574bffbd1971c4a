/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The inverse of a Triton linear layout. With the input bits numbered
 * dimension by dimension (bit i of dim d is global bit off_d + i) and the
 * output bits likewise, the layout is an O x I matrix M over F2 whose
 * column j is the basis of input bit j. It is a bijection iff I = O and M
 * is invertible; Gauss-Jordan elimination of [M | 1] gives the rows of
 * M^-1, whose columns are the bases of the inverse. Invariant: every
 * vector is a uint64_t of at most 62 bits.
 */
#include <string.h>

#include "axe/linear.h"
#include "mapping_internal.h"

#define BITS_MAX 62

/* The first global bit of each dim of "bits" (n dims); the total. */
static int offsets(const int *bits, int n, int *off)
{
    int total = 0;
    for (int d = 0; d < n; d++) {
        off[d] = total;
        total += bits[d];
    }
    return total;
}

/* Row r of M: bit j set when input bit j's basis has output bit r. */
static void matrix_rows(const axe_linear *lin, const int *in_off,
                        const int *out_off, uint64_t *row)
{
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; o < lin->nout; o++)
                for (int b = 0; b < lin->out_bits[o]; b++)
                    if (lin->basis[d][i][o] >> b & 1)
                        row[out_off[o] + b] |= UINT64_C(1) << (in_off[d] + i);
}

/* Reduce [row | aug] (n x n) to [1 | M^-1]; false when M is singular. */
static bool gauss_jordan(uint64_t *row, uint64_t *aug, int n)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        while (p < n && !(row[p] >> c & 1))
            p++;
        if (p == n)
            return false;
        uint64_t t = row[p], u = aug[p];
        row[p] = row[c];
        aug[p] = aug[c];
        row[c] = t;
        aug[c] = u;
        for (int r = 0; r < n; r++)
            if (r != c && row[r] >> c & 1) {
                row[r] ^= row[c];
                aug[r] ^= aug[c];
            }
    }
    return true;
}

/* The inverse's basis of its input bit (o, b) on its output dim d. */
static int64_t inverse_value(const axe_linear *lin, const uint64_t *aug,
                             const int *in_off, int d, int global)
{
    int64_t v = 0;
    for (int i = 0; i < lin->in_bits[d]; i++)
        if (aug[in_off[d] + i] >> global & 1)
            v |= INT64_C(1) << i;
    return v;
}

axe_status axe_linear_invert(const axe_linear *lin, axe_linear *out,
                             axe_diag *diag)
{
    static const axe_linear empty;
    axe_linear inv = empty;
    uint64_t row[BITS_MAX] = {0}, aug[BITS_MAX];
    int in_off[AXE_LINEAR_MAX_DIMS], out_off[AXE_LINEAR_MAX_DIMS];
    int ni = offsets(lin->in_bits, lin->nin, in_off);
    int no = offsets(lin->out_bits, lin->nout, out_off);
    if (ni != no || ni > BITS_MAX)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "not a bijection: %d input bits, %d output bits", ni,
                         no);
    matrix_rows(lin, in_off, out_off, row);
    for (int r = 0; r < no; r++)
        aug[r] = UINT64_C(1) << r;
    if (!gauss_jordan(row, aug, ni))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "not a bijection: two inputs share an output (the "
                         "F2 matrix is singular)");
    inv.nin = lin->nout;
    inv.nout = lin->nin;
    memcpy(inv.in_name, lin->out_name, sizeof inv.in_name);
    memcpy(inv.in_bits, lin->out_bits, sizeof inv.in_bits);
    memcpy(inv.out_name, lin->in_name, sizeof inv.out_name);
    memcpy(inv.out_bits, lin->in_bits, sizeof inv.out_bits);
    for (int o = 0; o < lin->nout; o++)
        for (int b = 0; b < lin->out_bits[o]; b++)
            for (int d = 0; d < lin->nin; d++)
                inv.basis[o][b][d] =
                    inverse_value(lin, aug, in_off, d, out_off[o] + b);
    *out = inv;
    return AXE_OK;
}
