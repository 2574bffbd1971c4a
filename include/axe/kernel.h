/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The axe kernel compiler (docs/compiler.md): a kernel written in the axe
 * kernel language (`*.axe`) is parsed, checked, dispatched (each operator
 * gets the first schedule of its registry whose predicate holds for the
 * operand layouts) and emitted as C99 that runs the whole thread hierarchy
 * on the CPU. A reference interpreter executes the same program from the
 * operators' logical semantics, independent of schedules, so generated code
 * can be checked element by element.
 *
 * Ownership: an axe_program is a handle; everything it holds (the IR, the
 * generated text) lives in one arena freed by axe_program_free. Text is
 * returned snprintf-style into caller buffers. Invariant: a program handed
 * out by axe_program_compile has passed every semantic check and has a
 * schedule for each operator.
 */
#ifndef AXE_KERNEL_H
#define AXE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axe/layout.h"
#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_KERNEL_MAX_DEFINES 16
#define AXE_KERNEL_MAX_FORCED 8
#define AXE_KERNEL_NAME_MAX 32
#define AXE_KERNEL_TARGET_MAX 16

/* The allocator hook of a program's arena; NULL members mean malloc/free. */
typedef struct axe_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*release)(void *ctx, void *ptr);
    void *ctx;
} axe_allocator;

/* The machine model of the Trainium-like accelerator target
 * (docs/compiler.md, "The accelerator model"): one NeuronCore-like core
 * with two scratchpads of "partitions" rows (P) and a free dimension
 * (F), SBUF of "sbuf_partition_bytes" per partition and PSUM of
 * "psum_partition_bytes" per partition in banks of "psum_bank_bytes";
 * a TensorEngine matmul of at most matmul_max_m x matmul_max_n x
 * matmul_max_k; and the timing model's costs. Every field is a positive
 * integer; axe_trn_model_default gives the documented defaults and
 * axe_kernel_options_trn sets one by name. */
typedef struct axe_trn_model {
    int64_t partitions;
    int64_t sbuf_partition_bytes;
    int64_t psum_partition_bytes;
    int64_t psum_bank_bytes;
    int64_t matmul_max_m, matmul_max_n, matmul_max_k;
    int64_t matmul_fixed_cycles;
    int64_t vector_fixed_cycles;
    int64_t vector_elems_per_cycle;
    int64_t dma_fixed_cycles;
    int64_t dma_bytes_per_cycle;
} axe_trn_model;

/* Compile-time parameters (`-D M=256`) and forced schedules
 * (`--schedule copy=thread_loop`). */
typedef struct axe_kernel_options {
    int ndefines;
    char define_name[AXE_KERNEL_MAX_DEFINES][AXE_KERNEL_NAME_MAX];
    int64_t define_value[AXE_KERNEL_MAX_DEFINES];
    int nforced;
    char forced_op[AXE_KERNEL_MAX_FORCED][AXE_KERNEL_NAME_MAX];
    char forced_schedule[AXE_KERNEL_MAX_FORCED][AXE_KERNEL_NAME_MAX];
    /* The backend the program is compiled for (axe_kernel_options_target):
     * "" or "c" (C99 for the CPU), "cuda"; and its architecture as a
     * number (CUDA: 80 for sm_80), 0 for the target's default. Dispatch
     * rejects the schedules the target does not have. */
    char target[AXE_KERNEL_TARGET_MAX];
    int arch;
    /* The naive variant (`axe compile --naive`; the reference of `axe run
     * --reference gpu-naive`, docs/compiler.md "The naive variant"):
     * every operator on the first schedule that applies in the naive
     * order (per-element loops before vectors, shared-memory reductions
     * before warp shuffles, scalar FMA before tensor cores) and, on the
     * CUDA target, no cp.async; no forced schedule is allowed. */
    bool naive;
    /* The accelerator model that sbuf and psum tensors are checked
     * against (axe_kernel_options_init: the defaults; a model of zeros,
     * as in options zeroed by memset, stands for the defaults too). */
    axe_trn_model trn;
} axe_kernel_options;

typedef enum axe_dtype {
    AXE_DTYPE_F16,
    AXE_DTYPE_BF16,
    AXE_DTYPE_F32,
    AXE_DTYPE_F64,
    AXE_DTYPE_I8,
    AXE_DTYPE_I32,
    AXE_DTYPE_E4M3, /* OCP FP8 E4M3 (stored in 8 bits, computed in float) */
    AXE_DTYPE_E5M2, /* OCP FP8 E5M2 */
    AXE_DTYPE_I4    /* 4-bit signed integer, packed two per byte: element x
                       of a tensor's storage is in byte x / 2, the low
                       nibble when x is even (CUTLASS's int4b_t order) */
} axe_dtype;

#define AXE_KERNEL_MAX_DIMS 8

/* One global tensor parameter of the kernel: its buffer holds "elems"
 * elements of "dtype" (the span of its layout, at the bound runtime
 * scalars when its extent depends on them; shape[0] too); "written" when some
 * operator writes it. Its logical shape is "shape[0 .. ndim)";
 * "row_major" when the buffer is the plain row-major array of that shape
 * (the layout maps the row-major index i of every coordinate to element
 * i, as a tensor declared without `layout` does; "elems" is then the
 * product of the shape), false for any other layout (padded, transposed,
 * offset, swizzled), whose buffer is "elems" elements addressed by the
 * layout. */
typedef struct axe_kernel_tensor {
    char name[AXE_KERNEL_NAME_MAX];
    axe_dtype dtype;
    int64_t elems;
    bool written;
    int ndim;
    int64_t shape[AXE_KERNEL_MAX_DIMS];
    bool row_major;
    /* A distributed tensor of a program with a mesh (docs/compiler.md,
     * "Distributed tensors"): "shape" and "elems" then describe the
     * logical tensor (its values are a row-major array of "elems",
     * "row_major" true; axe_program_mesh_local deals them out), and each
     * device's local buffer holds "local_elems" elements (the span of the
     * layout's m part, holes included). */
    bool distributed;
    int64_t local_elems;
} axe_kernel_tensor;

/* A runtime scalar parameter of the kernel (`M: i32`, or a float value
 * `eps: f32` that `fill` reads): its value is given at launch
 * (axe_program_bind, axe_program_bind_f; `axe run --arg M=100`). */
typedef struct axe_kernel_scalar {
    char name[AXE_KERNEL_NAME_MAX];
    axe_dtype dtype;
} axe_kernel_scalar;

typedef struct axe_program axe_program;

/* Empty options (no defines, no forced schedules, target c) with the
 * default accelerator model. */
AXE_API void axe_kernel_options_init(axe_kernel_options *o);
/* The default accelerator model: 128 partitions, SBUF 196608 bytes per
 * partition (24 MiB), PSUM 16384 bytes per partition in banks of 2048,
 * matmul at most 128 x 512 x 128, and the cycle costs of
 * docs/compiler.md. */
AXE_API void axe_trn_model_default(axe_trn_model *m);
/* Set the model field named "key" (the field names of axe_trn_model,
 * e.g. "partitions") to "value": AXE_ERR_INVALID with the reason in
 * "diag" for an unknown key or a value outside the field's range (named
 * in the reason). */
AXE_NODISCARD AXE_API axe_status axe_kernel_options_trn(axe_kernel_options *o,
                                                        const char *key,
                                                        int64_t value,
                                                        axe_diag *diag);
/* Add `-D name=value` / `--schedule op=name`; AXE_ERR_CAPACITY when full,
 * AXE_ERR_INVALID for a name that is too long or a schedule option that
 * axe_kernel_options_check_force refuses. "op" is an operator kind
 * ("copy": every copy) or a numbered operator ("copy#3": operator 3,
 * numbered in source order from 0 as axe_program_explain's `op N`, which
 * must be a copy); a numbered option wins over a kind-wide one. */
AXE_NODISCARD AXE_API axe_status axe_kernel_options_define(
    axe_kernel_options *o, const char *name, int64_t value);
AXE_NODISCARD AXE_API axe_status axe_kernel_options_force(axe_kernel_options *o,
                                                          const char *op,
                                                          const char *schedule);
/* Whether `--schedule op=schedule` is well-formed: "op" is `OP` or
 * `OP#N` with OP an operator name, "schedule" is one of OP's schedules,
 * and no option of "o" (may be NULL) targets "op" already. AXE_OK, or
 * AXE_ERR_INVALID with the reason in "diag". Whether operator N exists
 * and is an OP is checked by axe_program_compile. */
AXE_NODISCARD AXE_API axe_status
axe_kernel_options_check_force(const axe_kernel_options *o, const char *op,
                               const char *schedule, axe_diag *diag);

/* Compile for backend "target" ("c", "cuda"; docs/compiler.md,
 * "Backends") and architecture "arch" (NULL: the target's default; CUDA:
 * "sm_80" (default), "sm_86", "sm_89", "sm_90"). AXE_ERR_INVALID with the
 * reason in "diag" (may be NULL) for an unknown target, or an
 * architecture the target does not have. */
AXE_NODISCARD AXE_API axe_status
axe_kernel_options_target(axe_kernel_options *o, const char *target,
                          const char *arch, axe_diag *diag);

/* Parse, check and dispatch "text" (the source of a `.axe` file). On
 * failure "diag" holds the byte offset into "text" (-1 if none) and the
 * reason; AXE_ERR_SYNTAX for malformed text, AXE_ERR_INVALID /
 * AXE_ERR_DOMAIN / AXE_ERR_UNSUPPORTED / AXE_ERR_OVERFLOW for programs that
 * are well-formed but wrong, AXE_ERR_NO_MEMORY when the allocator fails.
 * "alloc" may be NULL. */
AXE_NODISCARD AXE_API axe_status axe_program_compile(
    const char *text, size_t len, const axe_kernel_options *opts,
    const axe_allocator *alloc, axe_program **out, axe_diag *diag);
/* As axe_program_compile; on failure "full" (snprintf-style: "cap" bytes,
 * "*full_len" the complete length; NULL, 0 and NULL accepted) receives
 * the complete diagnostic, which a diag may cut: the message on the first
 * line, then one note per line. "no schedule for OP" has a note
 * `OP.NAME: reason` for every schedule of OP (the diag's message lists
 * them on one line, cut with "..." at AXE_DIAG_MESSAGE_MAX). */
AXE_NODISCARD AXE_API axe_status axe_program_compile_full(
    const char *text, size_t len, const axe_kernel_options *opts,
    const axe_allocator *alloc, axe_program **out, axe_diag *diag, char *full,
    size_t cap, size_t *full_len);
/* Free "p" and everything it owns (NULL accepted). */
AXE_API void axe_program_free(axe_program *p);

/* The kernel's name and its global tensor parameters in order. */
AXE_API const char *axe_program_name(const axe_program *p);
AXE_API int axe_program_tensor_count(const axe_program *p);
AXE_API axe_kernel_tensor axe_program_tensor(const axe_program *p, int i);

/* The tolerances `axe run --check` compares tensor parameter "i" with
 * (as axe_dtype_tolerance's, normwise): its dtype's, except for the C of
 * a `device gemm` of f16 or bf16 A and B, whose f32 sums the CUDA
 * target's tensor cores order differently from the reference: "rtol" is
 * then 2 K eps (eps = 2^-23, f32's machine epsilon; K the largest such
 * gemm's K), or f32's where larger (docs/compiler.md, "Mixed
 * precision"). AXE_ERR_INVALID past the parameters or for a NULL
 * pointer. */
AXE_NODISCARD AXE_API axe_status axe_program_tensor_tolerance(
    const axe_program *p, int i, double *atol, double *rtol);

/* The layout tensor parameter "i" was declared with (a distributed
 * tensor's with its gpuid iters; docs/compiler.md), or AXE_ERR_INVALID
 * past the parameters. */
AXE_NODISCARD AXE_API axe_status axe_program_tensor_layout(const axe_program *p,
                                                           int i,
                                                           axe_layout *out);

/* The runtime scalar parameters in declaration order. */
AXE_API int axe_program_scalar_count(const axe_program *p);
AXE_API axe_kernel_scalar axe_program_scalar(const axe_program *p, int i);
/* Give the runtime scalars the values of one launch ("values": one per
 * scalar, in declaration order; NULL when there is none). Checks that
 * each value is an i32 and that every runtime extent, grid size and trip
 * count lies in [0, its largest value]; AXE_ERR_DOMAIN with the reason
 * otherwise (the earlier values stay). After it, axe_program_tensor,
 * axe_program_reference, axe_program_flops and axe_program_work use
 * these values. A program without runtime scalars needs no bind; one
 * with them reports 0 elements for a tensor of runtime extent, and its
 * reference fails, until bound. */
AXE_NODISCARD AXE_API axe_status axe_program_bind(axe_program *p,
                                                  const int64_t *values,
                                                  axe_diag *diag);
/* The same with the values as doubles, as float scalars (`eps: f32`,
 * also f64, f16, bf16) need: a float scalar's value must be finite and
 * is rounded to its dtype (finite after rounding too); an i32 scalar's
 * must be an integer in range. axe_program_bind gives a float scalar
 * its integer value. */
AXE_NODISCARD AXE_API axe_status axe_program_bind_f(axe_program *p,
                                                    const double *values,
                                                    axe_diag *diag);

/* The generated C99 (kernel, CTA driver and, under AXE_KERNEL_MAIN, a
 * harness main); "file" names the source in the header comment, its bytes
 * other than printable ASCII and '*', '/', '\\', '?', '%' written as %XX
 * (no name can end the comment or splice a line). Returns
 * the full length (snprintf-style); AXE_ERR_NO_MEMORY is reported as 0. */
AXE_API size_t axe_program_emit_c(axe_program *p, const char *file, char *buf,
                                  size_t cap);
/* The program's target ("c", "cuda") and architecture ("sm_80"; "" for a
 * target without architectures). */
AXE_API const char *axe_program_target(const axe_program *p, const char **arch);
/* The code of the program's target: C99 for "c" (axe_program_emit_c),
 * one self-contained CUDA C++ file (`.cu`) for "cuda"; "file" names the
 * source in the header comment. snprintf-style; AXE_ERR_NO_MEMORY is
 * reported as 0. */
AXE_API size_t axe_program_emit(axe_program *p, const char *file, char *buf,
                                size_t cap);
/* The text of a header that a target's code includes beside it, as
 * embedded in the library ("compiler_trn_sim.h": the accelerator
 * simulator that --target trn-sim's C includes), its length into "*len"
 * (if not NULL); NULL (length 0) for a name the library does not hold. */
AXE_API const char *axe_runtime_header(const char *name, size_t *len);
/* One paragraph per operator: the chosen schedule, the layouts it derived
 * and every rejected schedule with its reason (snprintf-style). */
AXE_API size_t axe_program_explain(const axe_program *p, char *buf, size_t cap);
/* Layout synthesis (docs/compiler.md, "Layout synthesis"): each `layout
 * auto` tensor's layout and why, each anchor's instruction choice (chosen,
 * cost, runner-up) and each rearrange, snprintf-style; "json": the one
 * object of `axe synth --json` ({"tensors": {}, ...} without auto
 * tensors). */
AXE_API size_t axe_program_synth(const axe_program *p, bool json, char *buf,
                                 size_t cap);
/* The schedule chosen for operator statement "i" (in source order) and
 * its operator name; NULL past the end. */
AXE_API const char *axe_program_schedule(const axe_program *p, int i,
                                         const char **op);
/* The note compile left on operator statement "i" (in source order), or
 * NULL: a gemm that fell back to scalar FMA (gemm.thread_fma) because K
 * is not a multiple of the K of the tensor-core atom for its dtypes; in
 * the naive variant an operator that keeps a schedule of special
 * instructions because no simpler one applies.
 * "offset" (NULL allowed) gets the operator's byte offset in the
 * source. */
AXE_API const char *axe_program_note(const axe_program *p, int i, long *offset);

/* Run the program's logical semantics on "buffers" (one per tensor
 * parameter, each of axe_program_tensor(p, i).elems elements): the
 * reference every backend is checked against. */
AXE_NODISCARD AXE_API axe_status axe_program_reference(const axe_program *p,
                                                       void *const *buffers,
                                                       axe_diag *diag);
/* Programs with a device mesh (docs/compiler.md, "Distributed tensors").
 * The mesh's device count P (0: the program declares no mesh). */
AXE_API int64_t axe_program_mesh_devices(const axe_program *p);
/* Device "device"'s local buffer "local" (local_elems elements) of
 * distributed tensor parameter "i", from the logical tensor's values
 * "logical" (row-major, elems elements): every element the device holds
 * (replicas included) at its address; the rest of the buffer (holes) 0.
 * AXE_ERR_INVALID for a tensor that is not distributed, AXE_ERR_DOMAIN for
 * a device outside 0 .. P-1. */
AXE_NODISCARD AXE_API axe_status axe_program_mesh_local(const axe_program *p,
                                                        int i, int64_t device,
                                                        const void *logical,
                                                        void *local,
                                                        axe_diag *diag);
/* The entry check's label of device "device"'s local buffer of distributed
 * tensor parameter "i" (docs/compiler.md, "The entry check"): "*elems"
 * the elements the device holds (replicas included; a tensor placed on
 * another device only: 0) and "*sum" the ids checksum, the sum mod 2^64
 * over them of mix(mix(x) + a), x the element's row-major logical index,
 * a its address in the local buffer (in elements), mix splitmix64's
 * finalizer. Errors as axe_program_mesh_local. */
AXE_NODISCARD AXE_API axe_status
axe_program_mesh_checksum(const axe_program *p, int i, int64_t device,
                          int64_t *elems, uint64_t *sum, axe_diag *diag);
/* The reference of a mesh program: "buffers" holds P x n local buffers,
 * buffers[d * n + i] device d's of tensor parameter i (n =
 * axe_program_tensor_count, local_elems elements each). The statements
 * between device operators run on every device's buffers in turn (each
 * such segment a launch of its own), device operators from their logical
 * definition. AXE_ERR_DOMAIN when a device operator reads a replicated
 * source whose replicas disagree (the reason names the element and two
 * devices); AXE_ERR_INVALID for a program without a mesh (whose reference
 * is axe_program_reference, which refuses mesh programs likewise). */
AXE_NODISCARD AXE_API axe_status axe_program_reference_mesh(
    const axe_program *p, void *const *buffers, axe_diag *diag);

/* The race detector of the reference (docs/compiler.md, "Races"): two
 * accesses to one element of a global or shared tensor race when
 * different threads make them, one of them writes, and no barrier
 * orders them (the same phase of one CTA), or when threads of different
 * CTAs make them (global tensors, whatever the phase). Which thread
 * makes an access inside a collective operator comes from the plan
 * dispatch chose. A report keeps one race per tensor, kind and pair of
 * source lines (the first found, up to AXE_RACE_MAX) and counts them
 * all. */
#define AXE_RACE_MAX 32
#define AXE_RACE_MAX_DIMS 8
/* The most elements (global and shared spans together) the detector
 * tracks: 64 bytes each. */
#define AXE_RACE_MAX_ELEMS ((int64_t)1 << 22)
/* Bytes of axe_race_access.iter, its terminating NUL included. */
#define AXE_RACE_ITER_MAX 64

typedef struct axe_race_access {
    int64_t thread; /* the thread in its CTA */
    int64_t cta;    /* (bz * grid_y + by) * grid_x + bx */
    int line;       /* source line of the operator */
    bool write;
    /* The values of the unrolled device loops around the operator ("k =
     * 1, j = 0", as --explain names them; a longer note is cut to fit and
     * ends in "..."), "" outside them. */
    char iter[AXE_RACE_ITER_MAX];
} axe_race_access;

typedef struct axe_race {
    char tensor[AXE_KERNEL_NAME_MAX];
    /* The element's logical index ("ndim" coordinates), or ndim -1 when
     * only a view reaches the address (padding). */
    int ndim;
    int64_t index[AXE_RACE_MAX_DIMS];
    int64_t address;               /* element offset in the tensor's storage */
    axe_race_access first, second; /* in the order the reference ran them */
    bool cross_cta;                /* threads of different CTAs */
    /* A read of shared memory before any write to the element in its
     * CTA (garbage on a GPU): "first" and "second" are that read. */
    bool uninit;
    int64_t count; /* racing accesses of this tensor, kind and lines */
    /* A mesh program's race: on device "device"'s local shards (the
     * index is the local shard's); false (device 0) without a mesh. */
    bool mesh;
    int64_t device;
} axe_race;

typedef struct axe_race_report {
    int64_t count; /* racing accesses found */
    int n;         /* races kept */
    axe_race race[AXE_RACE_MAX];
} axe_race_report;

/* axe_program_reference that also detects races into "races" (NULL: no
 * detection). AXE_ERR_CAPACITY, before anything runs (the buffers are
 * untouched), when the global and shared tensors span more than
 * AXE_RACE_MAX_ELEMS elements or the grid has more than 2^31 - 1
 * threads; AXE_ERR_OVERFLOW when a CTA passes 2^31 - 1 barriers or the
 * run 2^31 - 1 operator instances. */
AXE_NODISCARD AXE_API axe_status
axe_program_reference_races(const axe_program *p, void *const *buffers,
                            axe_race_report *races, axe_diag *diag);
/* axe_program_reference_mesh that also detects races into "races" (NULL:
 * no detection, see axe_program_reference_races): every segment
 * between device operators, on every device's local shards, as a launch
 * of its own; the report merges them (a race's "device" names the first
 * device it was found on; counts add up). AXE_ERR_CAPACITY before
 * anything runs as for one device. */
AXE_NODISCARD AXE_API axe_status
axe_program_reference_mesh_races(const axe_program *p, void *const *buffers,
                                 axe_race_report *races, axe_diag *diag);
/* "race on T[3,5]: written by thread 7 (line 12), read by thread 130
 * (line 15), no sync between" (snprintf-style); threads of different
 * CTAs are named with their CTA and the message ends "threads of
 * different CTAs"; an access inside an unrolled device loop names its
 * iteration: "(line 12, k = 1)". */
AXE_API size_t axe_race_text(const axe_race *r, char *buf, size_t cap);

/* Floating-point operations of one kernel launch: 2 M N K per gemm
 * instance (each scope instance of each CTA, times enclosing trips); a
 * gemm under an `if` is not counted (its instances depend on the
 * condition). A mesh program's count is one device's: a `device gemm`
 * adds its local GEMM's 2 Mloc Nloc Kloc (`axe run --ranks P --bench`
 * reports P times the count). */
AXE_API int64_t axe_program_flops(const axe_program *p);
/* The work of one launch, a measure of how long the reference and the C
 * backend take: the elements of every operator's shape (with its
 * broadcast dimensions; a gemm's M N K twice, multiply and add) times its
 * scope instances per CTA, enclosing trip counts and CTAs (a kernel-scope
 * operator counts once), plus the elements of every parameter; with a
 * mesh, that times the devices plus each device operator's work over its
 * logical shapes (copy: destination elements; reduce: source elements;
 * gemm: A's and B's elements plus 2 M N K); INT64_MAX when that
 * overflows. */
AXE_API int64_t axe_program_work(const axe_program *p);
/* Bytes of one element of "t" (1 for i4, which packs two elements per
 * byte: axe_dtype_bit_width, axe_dtype_storage), and its name ("f32"). */
AXE_API int axe_dtype_size(axe_dtype t);
/* Bits of one element of "t" (4 for i4). */
AXE_API int axe_dtype_bit_width(axe_dtype t);
/* Bytes that hold "n" consecutive elements of "t" from element 0: n times
 * its size, rounded up to whole bytes for i4 ((n + 1) / 2); -1 when "n" is
 * negative or the product overflows. */
AXE_API int64_t axe_dtype_storage(axe_dtype t, int64_t n);
AXE_API const char *axe_dtype_name(axe_dtype t);
/* The tolerances of a check against the reference (`axe run --check`,
 * Python's check=True; docs/compiler.md): an element "g" of a tensor of
 * dtype "t" matches the reference's "w" when both are finite and |g - w|
 * <= "atol" + "rtol" R, R the largest finite |ref| of the tensor
 * (normwise), or both are NaN, or both the same infinity. Integers have
 * zero tolerances (exact). AXE_ERR_INVALID for a value that is not a
 * dtype. */
AXE_NODISCARD AXE_API axe_status axe_dtype_tolerance(axe_dtype t, double *atol,
                                                     double *rtol);
/* The 16-bit float types: to_float is exact; from_float rounds to the
 * nearest value, ties to the even pattern, overflow to infinity, NaN to a
 * quiet NaN of the same sign. */
AXE_API float axe_f16_to_float(uint16_t h);
AXE_API uint16_t axe_f16_from_float(float f);
AXE_API float axe_bf16_to_float(uint16_t b);
AXE_API uint16_t axe_bf16_from_float(float f);
/* "f" rounded to tf32 as PTX cvt.rna.tf32.f32 does, kept in a float (its
 * 13 low mantissa bits zero): a finite value to the nearest value with 10
 * mantissa bits, ties away from zero, beyond the largest finite tf32
 * value by half an ulp or more to infinity; an infinity unchanged; NaN to
 * a quiet NaN of the same sign. What a gemm(C, A, B, tf32) does to its A
 * and B elements. */
AXE_API float axe_tf32_round(float f);
/* The OCP FP8 types e4m3 (bias 7, largest 448, no infinities, NaN =
 * S.1111.111) and e5m2 (bias 15, largest 57344, infinities): to_float is
 * exact; from_float rounds to the nearest value, ties to the even
 * pattern, and saturates as PTX cvt.rn.satfinite does: a value beyond the
 * largest finite one (after rounding), infinities included, gives the
 * largest finite value of its sign; NaN gives the NaN pattern 0x7f of
 * its sign. */
AXE_API float axe_e4m3_to_float(uint8_t x);
AXE_API uint8_t axe_e4m3_from_float(float f);
AXE_API float axe_e5m2_to_float(uint8_t x);
AXE_API uint8_t axe_e5m2_from_float(float f);

#ifdef __cplusplus
}
#endif

#endif
