/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trn-sim simulator (src/compiler/backend/trn/compiler_trn_sim.h;
 * docs/compiler.md, "The trn-sim backend and its timing model") called
 * directly: a 3-instruction program (DMA, matmul, vector move) whose
 * values and schedule are computed by hand below, then two more DMAs
 * that show the engines overlapping and a write waiting for a read,
 * then three engine instructions (scalar, vector, scalar) timed by hand;
 * and each run-time check (partition range, free range, matmul shape, PSUM
 * bank, capacity, alignment, DMA into PSUM, a vector move across
 * partitions, an engine instruction's element outside its tensor), its
 * message, and that nothing runs after a failure.
 */
#include <string.h>

#include "../src/compiler/backend/trn/compiler_trn_sim.h"
#include "testlib.h"

/* A small model: 4 partitions, 64 SBUF bytes and two 2048-byte PSUM
 * banks per partition, matmuls up to 4 x 512 x 4, DMA 10 + bytes / 4
 * cycles, a vector move 5 + elements per partition / 2, a matmul 3 + N. */
static const ax_trn_model model = {4, 64, 4096, 2048, 4,  512,
                                   4, 3,  5,    2,    10, 4};

/* Buffers: a and o in SBUF (4 x 4 f32 each, at bytes 0 and 16), c in
 * PSUM (4 x 4 f32 at byte 0), A in HBM (16 f32, row-major 4 x 4). */
static const ax_trn_buf ba = {"a", AX_TRN_SBUF, AX_TRN_F32, 0, 4, 4, 4};
static const ax_trn_buf bo = {"o", AX_TRN_SBUF, AX_TRN_F32, 16, 4, 4, 4};
static const ax_trn_buf bb = {"b", AX_TRN_SBUF, AX_TRN_F32, 32, 4, 4, 4};
static const ax_trn_buf bc = {"c", AX_TRN_PSUM, AX_TRN_F32, 0, 4, 4, 4};
static const ax_trn_buf bA = {"A", AX_TRN_HBM0, AX_TRN_F32, 0, 1, 16, 4};

/* Row p of A to partition p: partitions step 1 on the destination, the
 * source 4 elements further; the free elements step 1 on both. */
static const ax_trn_d load = {
    {0, 0, 0, 0}, 2, {4, 4, 1, 1}, {{0, 4, 1, 0}, {0, 1, 0, 1}, {0}, {0}}};
/* c -> o, partitions and free elements kept. */
static const ax_trn_d move = {
    {0, 0, 0, 0}, 2, {4, 4, 1, 1}, {{1, 0, 1, 0}, {0, 1, 0, 1}, {0}, {0}}};
static const long mm_base[3] = {0, 0, 0};
static const long long rs[3] = {4, 4, 4}, cs[3] = {1, 1, 1};

static float A[16];

static float o_at(const ax_trn_sim *s, int p, int f)
{
    float v;
    memcpy(&v, &s->mem[AX_TRN_SBUF].data[p * 64 + 16 + f * 4], sizeof v);
    return v;
}

static void start(ax_trn_sim *s)
{
    for (int i = 0; i < 16; i++)
        A[i] = (float)(i + 1);
    ax_trn_init(s, &model, 64, 4096, 1);
    ax_trn_hbm(s, 0, A, sizeof A);
    ax_trn_check_buf(s, &ba);
    ax_trn_check_buf(s, &bo);
    ax_trn_check_buf(s, &bb);
    ax_trn_check_buf(s, &bc);
}

static void release(ax_trn_sim *s)
{
    for (int k = 0; k < s->nmem; k++) {
        if (k < AX_TRN_HBM0)
            free(s->mem[k].data);
        free(s->mem[k].wdone);
        free(s->mem[k].rdone);
    }
    free(s->mem);
    free(s->op.lane);
    free(s->op.acc);
}

static float f_at(const ax_trn_sim *s, int p, int off, int f)
{
    float v;
    memcpy(&v, &s->mem[AX_TRN_SBUF].data[p * 64 + off + f * 4], sizeof v);
    return v;
}

/* Engine instructions after test_schedule's 78 cycles, by hand (a
 * written by DMA until 78, o by the move until 40; vector free at 40,
 * scalar at 0). A scalar instruction doubles o's free elements 0 and 1
 * (8 stores over 4 partitions: E = 2, 5 + ceil(2 / 2) = 6 cycles): it
 * waits for o, 40 to 46. A vector instruction sums each row of a into
 * b's element 0 as the C backend's reduce does (16 stores over 4
 * partitions: E = 4, 5 + 2 = 7 cycles): it waits for a, 78 to 85; b[p][0]
 * = 4p+1 + ... + 4p+4 = 16p + 10. A second scalar instruction on o
 * waits for the first only: 46 to 52, not after the vector one. */
static void engines(ax_trn_sim *s)
{
    float *x;
    int p, f;
    ax_trn_begin(s, "exp", AX_TRN_SCALAR);
    for (p = 0; p < 4; p++)
        for (f = 0; f < 2; f++) {
            float v = *(const float *)ax_trn_el(s, &bo, p * 4 + f, 0);
            *(float *)ax_trn_el(s, &bo, p * 4 + f, 1) = 2 * v;
        }
    ax_trn_end(s);
    TL_CHECK(!s->failed && s->free_at[AX_TRN_SCALAR] == 46 &&
                 s->busy[AX_TRN_SCALAR] == 6 && s->cycles == 78,
             "scalar instruction: free at %lld, busy %lld, cycles %lld: %s",
             s->free_at[AX_TRN_SCALAR], s->busy[AX_TRN_SCALAR], s->cycles,
             s->err);
    TL_CHECK(f_at(s, 0, 16, 0) == 552.0f && f_at(s, 3, 16, 3) == 480.0f,
             "scalar values %g %g", (double)f_at(s, 0, 16, 0),
             (double)f_at(s, 3, 16, 3));
    ax_trn_begin(s, "reduce", AX_TRN_VECTOR);
    for (p = 0; p < 4; p++)
        for (f = 0; f < 4; f++) {
            float v = *(const float *)ax_trn_el(s, &ba, p * 4 + f, 0);
            x = (float *)ax_trn_el(s, &bb, p * 4, 1);
            *x = f == 0 ? v : *x + v;
        }
    ax_trn_end(s);
    TL_CHECK(s->cycles == 85 && s->busy[AX_TRN_VECTOR] == 14 &&
                 f_at(s, 0, 32, 0) == 10.0f && f_at(s, 3, 32, 0) == 58.0f,
             "vector instruction: %lld cycles, busy %lld, b %g %g", s->cycles,
             s->busy[AX_TRN_VECTOR], (double)f_at(s, 0, 32, 0),
             (double)f_at(s, 3, 32, 0));
    ax_trn_begin(s, "exp again", AX_TRN_SCALAR);
    for (p = 0; p < 4; p++)
        *(float *)ax_trn_el(s, &bo, p * 4, 1) = 1.0f;
    ax_trn_end(s);
    TL_CHECK(s->free_at[AX_TRN_SCALAR] == 52 && s->cycles == 85,
             "second scalar instruction: free at %lld, cycles %lld",
             s->free_at[AX_TRN_SCALAR], s->cycles);
}

/* By hand: the DMA moves 64 bytes: 10 + 64 / 4 = 26 cycles, on dma_in
 * from 0 to 26. The matmul (M = N = K = 4) reads a, written at 26: 3 +
 * N = 7 cycles, tensor from 26 to 33; c[i][j] = sum_r a[r][i] a[r][j]
 * with a[r][i] = 4r + i + 1, so c[0][0] = 1 + 25 + 81 + 169 = 276, c[3][3]
 * = 16 + 64 + 144 + 256 = 480, c[0][3] = 1*4 + 5*8 + 9*12 + 13*16 = 360.
 * The move reads c, written at 33: 5 + 4 / 2 = 7 cycles, vector from 33
 * to 40. Then a DMA into b (no dependency): dma_in is free at 26, so
 * 26 to 52, while the tensor and vector engines run; and a DMA into a,
 * which the matmul read until 33: dma_in is free at 52, so 52 to 78. */
static void test_schedule(void)
{
    ax_trn_sim s;
    start(&s);
    ax_trn_dma(&s, "load", &bA, &ba, &load);
    ax_trn_matmul(&s, "mm", &bc, &ba, &ba, mm_base, 4, 4, 4, rs, cs, AX_TRN_F32,
                  AX_TRN_F32);
    ax_trn_move(&s, "move", &bc, &bo, &move);
    TL_CHECK(!s.failed, "3 instructions: %s", s.err);
    TL_CHECK(s.cycles == 40, "3 instructions: %lld cycles, not 40", s.cycles);
    TL_CHECK(s.busy[AX_TRN_DMA_IN] == 26 && s.busy[AX_TRN_TENSOR] == 7 &&
                 s.busy[AX_TRN_VECTOR] == 7 && s.count[AX_TRN_DMA_IN] == 1 &&
                 s.count[AX_TRN_TENSOR] == 1 && s.count[AX_TRN_VECTOR] == 1,
             "busy %lld %lld %lld", s.busy[AX_TRN_DMA_IN],
             s.busy[AX_TRN_TENSOR], s.busy[AX_TRN_VECTOR]);
    TL_CHECK(o_at(&s, 0, 0) == 276.0f && o_at(&s, 3, 3) == 480.0f &&
                 o_at(&s, 0, 3) == 360.0f && o_at(&s, 3, 0) == 360.0f,
             "values %g %g %g %g", (double)o_at(&s, 0, 0),
             (double)o_at(&s, 3, 3), (double)o_at(&s, 0, 3),
             (double)o_at(&s, 3, 0));
    ax_trn_dma(&s, "load b", &bA, &bb, &load);
    TL_CHECK(s.cycles == 52 && s.free_at[AX_TRN_DMA_IN] == 52,
             "overlapping DMA: %lld cycles, not 52", s.cycles);
    ax_trn_dma(&s, "load a again", &bA, &ba, &load);
    TL_CHECK(s.cycles == 78, "DMA after the matmul's read: %lld, not 78",
             s.cycles);
    engines(&s);
    release(&s);
}

/* "run" fails with "msg" and runs nothing after. */
static void expect_fail(void (*run)(ax_trn_sim *), const char *msg)
{
    ax_trn_sim s;
    long long before;
    start(&s);
    run(&s);
    TL_CHECK(s.failed && strstr(s.err, msg) != NULL, "expected '%s', got '%s'",
             msg, s.failed ? s.err : "no failure");
    before = s.count[AX_TRN_DMA_IN];
    ax_trn_dma(&s, "after", &bA, &ba, &load);
    TL_CHECK(s.count[AX_TRN_DMA_IN] == before, "ran after a failure: %s", msg);
    release(&s);
}

static void bad_partition(ax_trn_sim *s)
{
    ax_trn_d d = move;
    d.base[0] = d.base[2] = 1;
    s->inst = 3;
    ax_trn_move(s, "op 1 (line 15) copy.vector", &bc, &bo, &d);
}

static void bad_free(ax_trn_sim *s)
{
    ax_trn_d d = load;
    d.base[3] = 1;
    ax_trn_dma(s, "op 0 copy.dma", &bA, &ba, &d);
}

static void bad_shape(ax_trn_sim *s)
{
    ax_trn_matmul(s, "op 2 matmul", &bc, &ba, &ba, mm_base, 4, 4, 5, rs, cs,
                  AX_TRN_F32, AX_TRN_F32);
}

static void bad_bank(ax_trn_sim *s)
{
    static const ax_trn_buf wide = {"w", AX_TRN_PSUM, AX_TRN_F32, 0,
                                    4,   1024,        4};
    static const long base[3] = {0, 0, 510};
    static const long long wrs[3] = {4, 4, 1024};
    ax_trn_matmul(s, "op 2 matmul", &wide, &ba, &ba, base, 4, 4, 4, wrs, cs,
                  AX_TRN_F32, AX_TRN_F32);
}

static void bad_capacity(ax_trn_sim *s)
{
    release(s);
    ax_trn_init(s, &model, 65, 4096, 1);
}

static void bad_align(ax_trn_sim *s)
{
    static const ax_trn_buf odd = {"x", AX_TRN_SBUF, AX_TRN_F32, 2, 4, 4, 4};
    ax_trn_check_buf(s, &odd);
}

static void bad_psum_dma(ax_trn_sim *s)
{
    ax_trn_dma(s, "op 0 copy.dma", &bA, &bc, &load);
}

/* A transpose of a (4 partitions x 4, A's rows) into c, by hand: the DMA
 * writes a until 26 (10 + 64 / 4), then the tensor engine runs the
 * transpose for 3 + K = 7 cycles, to 33; c[p][f] = a[f][p] = 4f + p + 1
 * (level 0 steps a's partition and c's free element, level 1 the
 * reverse). */
static const ax_trn_d transpose = {
    {0, 0, 0, 0}, 2, {4, 4, 1, 1}, {{1, 0, 0, 1}, {0, 1, 1, 0}, {0}, {0}}};

static float c_at(const ax_trn_sim *s, int p, int f)
{
    float v;
    memcpy(&v, &s->mem[AX_TRN_PSUM].data[p * 4096 + f * 4], sizeof v);
    return v;
}

static void test_transpose(void)
{
    ax_trn_sim s;
    start(&s);
    ax_trn_dma(&s, "load", &bA, &ba, &load);
    ax_trn_transpose(&s, "tr", &ba, &bc, &transpose);
    TL_CHECK(!s.failed && s.cycles == 26 + 7 && s.busy[AX_TRN_TENSOR] == 7,
             "transpose: %lld cycles, busy %lld: %s", s.cycles,
             s.busy[AX_TRN_TENSOR], s.err);
    TL_CHECK(c_at(&s, 0, 0) == 1.0f && c_at(&s, 0, 3) == 13.0f &&
                 c_at(&s, 3, 0) == 4.0f && c_at(&s, 2, 1) == 7.0f,
             "transpose values %g %g %g %g", (double)c_at(&s, 0, 0),
             (double)c_at(&s, 0, 3), (double)c_at(&s, 3, 0),
             (double)c_at(&s, 2, 1));
    release(&s);
}

static void bad_transpose(ax_trn_sim *s)
{
    ax_trn_d d = transpose;
    d.n[0] = 5;
    ax_trn_transpose(s, "op 4 copy.transpose", &ba, &bc, &d);
}

static void bad_element(ax_trn_sim *s)
{
    ax_trn_begin(s, "op 9 (line 3) exp.scalar", AX_TRN_SCALAR);
    *(float *)ax_trn_el(s, &bo, 16, 1) = 1.0f;
    ax_trn_end(s);
}

static void bad_cross(ax_trn_sim *s)
{
    ax_trn_d d = move;
    d.base[2] = 1;
    d.n[0] = 3;
    ax_trn_move(s, "op 1 copy.vector", &bc, &bo, &d);
}

int main(void)
{
    test_schedule();
    test_transpose();
    expect_fail(bad_transpose, "trn-sim: op 4 copy.transpose 0: no transpose "
                               "within the model's matmul (K partitions by "
                               "1 up to 4, M up to 4)");
    expect_fail(bad_partition,
                "trn-sim: op 1 (line 15) copy.vector 3: partition 4 of 'c' "
                "outside its partitions 0..3 (the model has 4)");
    expect_fail(bad_free, "trn-sim: op 0 copy.dma 0: free element 4 of 'a' "
                          "outside 0..3");
    expect_fail(bad_shape, "trn-sim: op 2 matmul 0: matmul 4 x 4 x 5 outside "
                           "the model's 1..4 x 1..512 x 1..4");
    expect_fail(bad_bank, "trn-sim: op 2 matmul 0: row 0 of C ('w') crosses "
                          "a PSUM bank of 2048 bytes");
    expect_fail(bad_capacity, "trn-sim: the tensors take 65 SBUF and 4096 "
                              "PSUM bytes per partition, beyond the model's "
                              "64 and 4096");
    expect_fail(bad_align,
                "trn-sim: tensor 'x' at byte 2 is not aligned to 4 bytes");
    expect_fail(bad_psum_dma,
                "trn-sim: op 0 copy.dma 0: DMA does not reach PSUM ('c')");
    expect_fail(bad_element, "trn-sim: op 9 (line 3) exp.scalar 0: partition "
                             "4 of 'o' outside its partitions 0..3 (the "
                             "model has 4)");
    expect_fail(bad_cross, "trn-sim: op 1 copy.vector 0: the vector engine "
                           "keeps partitions, this move changes them");
    return tl_finish();
}
