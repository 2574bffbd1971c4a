/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's entry points inside its folder: the program's `.cu`
 * (compiler_emit_cuda.c), which its ax_backend value
 * (compiler_target_cuda.c) emits, with the collective schedules
 * (compiler_emit_cuda_reduce.c), the data-dependent start checks
 * (compiler_emit_cuda_check.c), shared memory, cp.async pipelines
 * (compiler_cuda_pipe.c)
 * (compiler_emit_cuda_smem.c) and the tensor-core gemm's instruction
 * choices (compiler_cuda_mma.c) and code (compiler_emit_cuda_mma.c).
 */
#ifndef AXE_COMPILER_CUDA_H
#define AXE_COMPILER_CUDA_H

#include "compiler_dist.h"
#include "compiler_internal.h"

/* The `.cu` of program "p" compiled from "file" into "t". */
void axe__emit_cuda(ax_text *t, const axe_program *p, const char *file);

/* The barrier over one instance of "scope" (warp: __syncwarp, warpgroup:
 * its named barrier, cta: __syncthreads), commented with "what". */
void axe__cuda_barrier(ax_text *t, ax_scope scope, int ind, const char *what);
/* reduce.smem, reduce.tree, copy.smem ("in_loop": inside a `for`, a last
 * barrier protects the scratch), and reduce.warp_shuffle. */
void axe__cuda_emit_staged(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int ind, bool in_loop);
void axe__cuda_emit_shuffle(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind);
/* --explain's instructions of a staged, argmax/argmin butterfly or grid
 * schedule (false: "s" has none). */
bool axe__cuda_explain_collective(ax_text *t, const axe_program *p,
                                  const ax_stmt *s);
/* The axe_ptx_* wrappers "body" calls (inline PTX inside #ifndef
 * AXE_CUDA_EMULATE: an emulated build defines them in its header). */
void axe__cuda_wrappers(ax_text *t, const axe_program *p, const char *body);
/* cp.async (compiler_emit_cuda_copy.c): whether copy "s" is made
 * asynchronous, the copy and its commit (its tensors become "pending"),
 * the wait before statement "next" (NULL: the block's end) when it could
 * observe a pending copy, the wrappers "body" calls, --explain's line. */
bool axe__cuda_async_copy(const axe_program *p, const ax_stmt *s);
void axe__cuda_emit_async(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind, uint64_t *pending);
void axe__cuda_async_wait(ax_text *t, const ax_stmt *next, int ind,
                          uint64_t *pending);
void axe__cuda_async_wrappers(ax_text *t, const char *body);
void axe__cuda_explain_async(ax_text *t, const axe_program *p,
                             const ax_stmt *s);
/* ldmatrix copies of packed i4 from shared memory into registers
 * (compiler_emit_cuda_ldsm.c, the choice: compiler_copy_ldsm.h): whether
 * copy "s" is one, its code, --explain's line for a candidate copy
 * (false: no candidate, nothing written). */
bool axe__cuda_ldsm_copy(const axe_program *p, const ax_stmt *s);

/* The prepare hook (compiler_cuda_words.c): which f16/bf16 register
 * tensors are held two to a 32-bit word (ax_tensor.words16), and
 * whether tensor "ti" is (whether or not the hook has run). */
void axe__cuda_prepare(axe_program *p);
bool axe__cuda_words16(const axe_program *p, int ti);
/* i4 -> f16 register casts by bit tricks (compiler_cuda_i4cast.c):
 * whether cast "s" is emitted so, its code; after dispatch (the
 * destination's words16 needs every plan), the --explain line of every
 * i4 -> f16 register cast in the list "s"; the helpers "body" calls. */
bool axe__cuda_i4_cast(const axe_program *p, const ax_stmt *s);
void axe__cuda_emit_i4_cast(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind);
axe_status axe__cuda_i4_cast_explain(const axe_program *p, ax_stmt *s);
void axe__cuda_i4_cast_helpers(ax_text *t, const char *body);
/* The helpers of f16 and bf16 pair arithmetic that "body" calls
 * (ax_hadd2, ax_hsub2, ax_hmul2, ax_badd2, ax_bsub2, ax_bmul2 for "p"'s
 * architecture, ax_h2pack, ax_h2dup: compiler_cuda_half2.c). */
void axe__cuda_half2_helpers(ax_text *t, const axe_program *p,
                             const char *body);
/* The --explain line "  word form: ..." of every f16/bf16 add, sub, mul,
 * max, min and neg into a register: a word at a time with which
 * instruction, or element by element and why (compiler_cuda_half2.c). */
axe_status axe__cuda_half2_explain(const axe_program *p, ax_stmt *s);
void axe__cuda_emit_ldsm(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int ind);
bool axe__cuda_explain_ldsm(ax_text *t, const axe_program *p, const ax_stmt *s);
/* A multi-stage cp.async pipeline over a `for` (compiler_cuda_pipe.c):
 * its stage count, the asynchronous copies into stage k % S
 * ("producers", consecutive in the body), the stage tensors (a bit each)
 * and the `sync` the wait_group S - 1 goes before. */
#define AXE_CUDA_MAX_PIPE 8
#define AXE_CUDA_MAX_STAGES 8
typedef struct axe__cuda_pipe {
    int stages, nprod;
    const ax_stmt *prod[AXE_CUDA_MAX_PIPE];
    int64_t pitch[AXE_CUDA_MAX_PIPE]; /* prod[j]'s stage size P */
    uint64_t tensors;
    const ax_stmt *wait_before;
} axe__cuda_pipe;
/* Whether `for` "loop" is pipelined (false: why, in "why"); whether "s"
 * is a producer of "pp" (NULL: none); the prologue before the loop, the
 * producers' issue of tile k + S - 1 with its commit, the wait before
 * pp->wait_before, the wait after the loop; after dispatch (every plan
 * known), a line at the end of the --explain of each asynchronous copy
 * directly in a `for`: pipelined, or why not. */
bool axe__cuda_pipe_of(const axe_program *p, const ax_stmt *loop,
                       axe__cuda_pipe *out, char *why, size_t cap);
bool axe__cuda_pipe_producer(const axe__cuda_pipe *pp, const ax_stmt *s);
void axe__cuda_pipe_prologue(ax_text *t, const axe_program *p,
                             const ax_stmt *loop, const axe__cuda_pipe *pp,
                             int ind);
void axe__cuda_pipe_issue(ax_text *t, const axe_program *p, const ax_stmt *loop,
                          const axe__cuda_pipe *pp, int ind);
void axe__cuda_pipe_wait(ax_text *t, const axe_program *p, const ax_stmt *loop,
                         const axe__cuda_pipe *pp, int ind);
void axe__cuda_pipe_drain(ax_text *t, int ind);
axe_status axe__cuda_pipe_explain(const axe_program *p);
/* The argmax/argmin value arrays of the operators of block "s". */
void axe__cuda_arg_storage(ax_text *t, const axe_program *p, const ax_stmt *s);

/* Data-dependent starts: the ax_backend hook that records a failure, the
 * device record, the host message and axe_error_NAME(), the launcher's
 * parts before and after the launch (all empty without such starts). */
void axe__cuda_start_error(ax_text *t, const axe_program *p, const ax_stmt *s,
                           const ax_ref *r, int d, const ax_expr *ld, int ind);
void axe__cuda_check_device(ax_text *t, const axe_program *p);
void axe__cuda_check_host(ax_text *t, const axe_program *p);
void axe__cuda_check_before(ax_text *t, const axe_program *p);
void axe__cuda_check_after(ax_text *t, const axe_program *p);

/* Shared memory: the CTA's bytes (16-byte aligned tensors), the dynamic
 * bytes (0 within 48 KiB: static arrays), the opt-in limit of an
 * architecture, a tensor's declaration, the dynamic base and the
 * launcher's cudaFuncSetAttribute. */
int64_t axe__cuda_shared_bytes(const axe_program *p);
int64_t axe__cuda_dynamic_shared(const axe_program *p);
int64_t axe__cuda_shared_limit(int arch);
void axe__cuda_shared_decl(ax_text *t, const axe_program *p, int i);
void axe__cuda_shared_base(ax_text *t, const axe_program *p);
void axe__cuda_shared_attr(ax_text *t, const axe_program *p);

/* A tensor-core instruction: A, B and C dtypes, the first architecture,
 * the wrapper the .cu calls and its PTX. */
typedef struct axe__cuda_atom {
    axe_dtype a, b, c;
    int arch;
    const char *wrap, *ptx;
    /* "k": the atom's K when the dtypes have several atoms (matched
     * against the plan's s->mma->mnk[2]), 0 otherwise; "na", "nb": A's
     * and B's registers when not the default (4 and 2; f64: 1 and 1) */
    int k, na, nb;
} axe__cuda_atom;

/* A fragment in quad form: value unit * j + e of lane l at (r0[j] + l / 4,
 * c0[j] + unit * (l % 4) + e) of the atom tile, j < nregs. */
typedef struct axe__cuda_form {
    int unit, nregs;
    int64_t r0[16], c0[16];
} axe__cuda_form;

typedef enum axe__cuda_load {
    AXE_CUDA_LOAD_THREAD,
    AXE_CUDA_LOAD_LDMATRIX,
    AXE_CUDA_LOAD_LDMATRIX_TRANS,
    AXE_CUDA_LOAD_VEC /* per-thread ld.shared[.v2/.v4].b32 of registers */
} axe__cuda_load;

/* How gemm.mma_smem loads one operand (axe__cuda_load_of, decided once
 * per operand): the instruction, why, and for AXE_CUDA_LOAD_VEC the
 * registers per load (1, 2, 4) and their order (load g fills order[g vec
 * .. g vec + vec), compiler_synth_inst.h). */
typedef struct axe__cuda_operand {
    axe__cuda_load how;
    const char *why;
    int vec;
    int order[AX_FRAG_MAX_REGS];
} axe__cuda_operand;

/* The atom tiles of gemm.mma_smem's warps: warp w holds, for each i < n,
 * the tile (mi0[w] + tile[3i+1], ni0[w] + tile[3i+2]) at C register
 * offset tile[3i]. */
#define AXE_CUDA_MAX_TILES 64
typedef struct axe__cuda_tiles {
    int64_t nwarps;
    int n;
    int64_t tile[3 * AXE_CUDA_MAX_TILES];
    int64_t mi0[32], ni0[32];
} axe__cuda_tiles;

/* compiler_cuda_mma.c: the atom of gemm "s"'s dtypes (NULL: f32, FMA on
 * the fragments); the elements per 32-bit register of a dtype; the quad
 * form of a fragment; how gemm.mma_smem loads operand "o" (0 A, 1 B) and
 * why; the warps' tiles; what of gemm "s" the backend refuses (NULL:
 * nothing). */
const axe__cuda_atom *axe__cuda_atom_of(const axe_program *p, const ax_stmt *s);
const axe__cuda_atom *axe__cuda_atom_at(int i);
int axe__cuda_unit(axe_dtype d);
bool axe__cuda_frag_form(const ax_frag *f, int unit, axe__cuda_form *out);
void axe__cuda_load_of(const axe_program *p, const ax_stmt *s, int o,
                       axe__cuda_operand *out);
/* The ldmatrix form of an operand of "size"-byte elements whose memory
 * holds aligned runs of "along_k" elements along K and "along_rows" along
 * its rows (M for A, N for B): .trans where the elements are 16-bit and
 * the rows' runs are the longer (its 8 x 8 matrices' rows lie along M or
 * N), else plain ldmatrix (rows along K; ties go to K). gemm.mma_smem
 * (axe__cuda_load_of, runs of 16 bytes or none) and the tensor-core
 * device gemm (compiler_emit_cuda_devgemm_mma.c, whose shared stages lie
 * along the form's rows) share it; each checks its own addresses. */
axe__cuda_load axe__cuda_ldsm_form(int size, int64_t along_k,
                                   int64_t along_rows);
bool axe__cuda_warp_tiles(const axe_program *p, const ax_stmt *s,
                          axe__cuda_tiles *out, const char **why);
const char *axe__cuda_mma_refusal(const axe_program *p, const ax_stmt *s);

/* compiler_emit_cuda_mma.c: the code of gemm "s" (gemm.mma_atom or
 * gemm.mma_smem) at indent "ind"; the wrappers "body" calls (inline PTX,
 * under #ifndef AXE_CUDA_EMULATE); the instructions for --explain. */
void axe__emit_cuda_mma(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind);
void axe__emit_cuda_ptx_wrappers(ax_text *t, const char *body);
void axe__cuda_mma_explain(ax_text *t, const axe_program *p, const ax_stmt *s);

/* compiler_emit_cuda_mesh.c: a mesh program's .cu (one per rank, MPI +
 * NCCL): the runtimes' includes, the plans, the communicator and its
 * setup (decls, before the launchers); axe_launch_NAME running every
 * segment's launch and the device operators between them (after the
 * segment launcher); each rank's main() (after the harness, renamed
 * axe_rank_main); the checks of a mesh program and --explain's NCCL line
 * of a device operator. */
void axe__cuda_mesh_decls(ax_text *t, const axe_program *p);
/* compiler_emit_cuda.c: the launcher's checks, each returning a CUDA
 * error code (reading and writing a `long ax_v`): runtime extents in [0,
 * nominal] (the kernel's bounds hold only there), float scalars finite,
 * pointers aligned for the widest vector access to them; a mesh
 * program's axe_launch_NAME runs them first, before any device operator
 * or launch. */
void axe__cuda_launch_checks(ax_text *t, const axe_program *p);
void axe__cuda_mesh_launcher(ax_text *t, const axe_program *p);
void axe__cuda_mesh_main(ax_text *t, const axe_program *p);
axe_status axe__cuda_mesh_check(const axe_program *p, axe_diag *diag);
void axe__cuda_devop_explain(ax_text *t, const axe_program *p,
                             const ax_stmt *s);
/* --explain's line of the NCCL call exchange plan "pl" takes, "what"
 * (e.g. "copy of A first: ") after "cuda: "; "dtype": the element type (a
 * float sum takes the ordered form). */
void axe__cuda_plan_explain(ax_text *t, const ax_dist_plan *pl, axe_dtype dtype,
                            const char *what);

/* compiler_emit_cuda_devgemm.c: a mesh program's device gemms: each one's
 * local GEMM kernel, buffers and runner ax_devK_run (decls, after the
 * NCCL setup), their frees (inside ax_mpi_free) and --explain's lines. */
void axe__cuda_devgemm_decls(ax_text *t, const axe_program *p);
void axe__cuda_devgemm_free(ax_text *t, const axe_program *p);
/* Whether some device operator of "p" runs through the runtime's
 * axe_nccl_exchange (all but a chunked device gemm with no copy first). */
bool axe__cuda_devops_exchange(const axe_program *p);
void axe__cuda_devgemm_explain(ax_text *t, const axe_program *p,
                               const ax_stmt *s);
/* How a local GEMM kernel stages one K step of an operand in shared
 * memory (axe__cuda_devgemm_load): the macros of the K step and of the
 * CTA's threads, the tile's stage index ("" or e.g. "[cs ^ 1]"), the zero
 * stored outside the local shapes, the loop's indentation, what precedes
 * a loop of one element per iteration (e.g. a pragma), whether the tile
 * is [k][row] (else [row][k]) and the elements per cp.async of 4, 8 or
 * 16 bytes (2, 4 or 8 two-byte elements along k for a [row][k] tile,
 * along the rows for a [k][row] one, as the operand's local layout
 * allows: axe__cuda_devgemm_vec; 1: a load and a
 * store per element). */
typedef struct axe__cuda_stage {
    const char *tk, *threads, *stage, *zero, *ind, *pragma;
    bool k_major;
    int vec;
} axe__cuda_stage;
/* The loads of one K step (k0 .. k0 + tk - 1) of operand "which" (1: A's
 * rows i0 .., 2: B's rows j0 ..) of device gemm "s" with plan "g" into
 * shared "as" or "bs", zero outside the local shapes, as "st" says. */
void axe__cuda_devgemm_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                            const ax_dist_gemm *g, int which,
                            const axe__cuda_stage *st);
/* The grid-strided loop over the 64 x 64 tiles of rows [r0, r1) of a
 * local GEMM's partial sums (plan "g"), opened: each tile's first row i0
 * and column j0. */
void axe__cuda_devgemm_tiles(ax_text *t, const ax_dist_gemm *g);
/* The elements per cp.async of device gemm "s"'s operand "which" (1: A,
 * 2: B; its copy where plan "g" copies it first) along "along" (0: its
 * rows, 1: K): the largest w of 16 bytes down to 2 elements such that
 * every group of w local indices along it starting at a multiple of w
 * (any index of the other dim) lies at w consecutive local addresses
 * starting at a multiple of w, else 1. From the local layout's iters: w
 * divides the other dim's strides, the length of the unit-stride run of
 * the dim's innermost iters, the strides of its iters outside it, and
 * the offset; a power of two divides them all where it divides their
 * bitwise or. A run's length is a multiple of w, so no group straddles
 * the local shape (compiler_emit_cuda_devgemm_fma.c). */
int axe__cuda_devgemm_vec(const axe_program *p, const ax_stmt *s,
                          const ax_dist_gemm *g, int which, int along);
/* The bytes of the widest vector access (1: none) of a device gemm's
 * local GEMM kernel to param tensor "ti", read in place as A or B (not
 * copied first): cp.async of 4, 8 or 16 bytes straight from the
 * caller's pointer (axe__cuda_devgemm_vec, axe__cuda_devgemm_mma_vec).
 * axe__cuda_launch_checks folds it into ti's alignment check; t's status
 * is set where a plan fails. */
int64_t axe__cuda_devgemm_align(ax_text *t, const axe_program *p, int ti);
/* compiler_emit_cuda_devgemm_fma.c: the kernel ax_devK_gemm_k of an f32,
 * f64 or i32 device gemm "s" with plan "g", and its --explain line. */
void axe__cuda_devgemm_fma_kernel(ax_text *t, const axe_program *p,
                                  const ax_stmt *s, const ax_dist_gemm *g);
void axe__cuda_devgemm_fma_explain(ax_text *t, const axe_program *p,
                                   const ax_stmt *s, const ax_dist_gemm *g);
/* compiler_emit_cuda_devgemm_mma.c: whether device gemm "s" runs its
 * local GEMM on tensor cores (f16 or bf16 A and B, f32 C), the tiling
 * macros of those kernels (once), the kernel ax_devK_gemm_k of "s" with
 * plan "g", and its --explain line. */
bool axe__cuda_devgemm_mma(const axe_program *p, const ax_stmt *s);
void axe__cuda_devgemm_mma_helpers(ax_text *t);
void axe__cuda_devgemm_mma_kernel(ax_text *t, const axe_program *p,
                                  const ax_stmt *s, const ax_dist_gemm *g);
void axe__cuda_devgemm_mma_explain(ax_text *t, const axe_program *p,
                                   const ax_stmt *s, const ax_dist_gemm *g);
/* The elements per cp.async of operand "which" (1: A, 2: B) into the
 * tensor-core kernel's stage (1: a load and a store each). */
int axe__cuda_devgemm_mma_vec(const axe_program *p, const ax_stmt *s,
                              const ax_dist_gemm *g, int which);

#endif
