/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI backend's entry points inside its folder: the exchange plan of
 * a device operator (compiler_target_mpi.c) and the program's C
 * (compiler_emit_mpi.c), which its ax_backend value emits.
 */
#ifndef AXE_COMPILER_MPI_H
#define AXE_COMPILER_MPI_H

#include "compiler_dist.h"
#include "compiler_internal.h"

/* The most digits of a plan the runtime runs: compiler_mpi_rt.h's
 * AXE_MPI_MAX_DIGITS (the planner's AX_DIST_MAX_DIGITS is 64); its
 * replica digits (AXE_MPI_MAX_REPS, 16) are at most
 * AXE_LAYOUT_MAX_REPLICA (8) already. */
#define AX_MPI_MAX_DIGITS 32

/* device gemm "s" (compiler_emit_mpi_gemm.c), planned as "g": the plans
 * of the operands' copies first (their schedules of type "sched") and,
 * with "host" (the mpi target), the copies' buffers, the partial buffer
 * and the local GEMM function; the call of all at its place ("copied":
 * g's mask of operands copied first). */
void axe__emit_mpi_gemm(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_dist_gemm *g, const char *sched, bool host);
void axe__emit_mpi_gemm_call(ax_text *t, const axe_program *p, const ax_stmt *s,
                             int copied);
/* "NAME_tab[]" (tabled digits' cells, if any), "NAME_digit[]" and
 * "NAME_rep[]" (src replicas, then dst's): the digit
 * table of "pl" as static data of compiler_mpi_rt.h's types. */
void axe__emit_mpi_table(ax_text *t, const char *name, const ax_dist_plan *pl);
/* The entry check of main() (compiler_emit_mpi_entry.c): the tensor
 * parameters' digit tables, AX_NPARAM, AX_KERNEL and the functions main()
 * calls; after AX_NDEV is defined. */
void axe__emit_mpi_entry(ax_text *t, const axe_program *p);
/* The runner of chunks(N) gemms; the frees of their schedules and of
 * the copies first ("copied[k]": device op k's ax_dist_gemm.copied, a
 * mask of operands). */
void axe__emit_mpi_gemm_runner(ax_text *t, const axe_program *p);
void axe__emit_mpi_gemm_free(ax_text *t, const axe_program *p,
                             const int *copied);
/* The program's C for every rank (see compiler_emit_mpi.c). */
void axe__emit_mpi(ax_text *t, const axe_program *p, const char *file);

#endif
