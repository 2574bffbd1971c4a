/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status codes, diagnostics and the export macros every public header uses.
 * The codes come from one X-macro list: 0 is success, errors are negative and
 * append-only. A diagnostic is caller-owned: where in the input (byte offset,
 * -1 when not about text) and why, in a sentence a user can act on.
 */
#ifndef AXE_STATUS_H
#define AXE_STATUS_H

#include <stddef.h>

#if defined(AXE_BUILDING) && defined(__GNUC__)
#define AXE_API __attribute__((visibility("default")))
#else
#define AXE_API
#endif

#if defined(__GNUC__)
#define AXE_NODISCARD __attribute__((warn_unused_result))
#else
#define AXE_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, message); AXE_OK = 0 is not in the list. */
#define AXE_STATUS_MAP(X)                                                      \
    X(INVALID, -1, "invalid argument")                                         \
    X(SYNTAX, -2, "syntax error")                                              \
    X(OVERFLOW, -3, "integer overflow")                                        \
    X(CAPACITY, -4, "capacity exceeded")                                       \
    X(NOT_COMPOSABLE, -5, "no layout equals this composition")                 \
    X(NOT_INJECTIVE, -6, "layout is not injective")                            \
    X(INCOMPATIBLE, -7, "shapes are not compatible")                           \
    X(DIVISIBILITY, -8, "divisibility condition violated")                     \
    X(DOMAIN, -9, "argument outside the domain")                               \
    X(NO_MEMORY, -10, "out of memory")                                         \
    X(UNSUPPORTED, -11, "operation not defined for this kind of operand")      \
    X(UNKNOWN_OP, -12, "unknown operation")                                    \
    X(IO, -13, "input/output error")

typedef enum axe_status {
    AXE_OK = 0,
#define AXE__STATUS_ENUM(name, value, msg) AXE_ERR_##name = value,
    AXE_STATUS_MAP(AXE__STATUS_ENUM)
#undef AXE__STATUS_ENUM
} axe_status;

#define AXE_DIAG_MESSAGE_MAX 256

/* A reason: "offset" into the parsed text (-1 if none) and "message" (a
 * reason longer than AXE_DIAG_MESSAGE_MAX - 1 bytes is cut and ends in "...";
 * axe_program_compile_full returns the whole diagnostic). */
typedef struct axe_diag {
    long offset;
    char message[AXE_DIAG_MESSAGE_MAX];
} axe_diag;

/* The name without AXE_ERR_ ("NOT_COMPOSABLE"); "OK" for AXE_OK. */
AXE_API const char *axe_status_name(axe_status status);
/* A one-line description of "status". */
AXE_API const char *axe_status_message(axe_status status);

/* Clear "diag" (NULL accepted). */
AXE_API void axe_diag_clear(axe_diag *diag);

/* "major.minor.patch" of the library actually linked. */
AXE_API const char *axe_version(void);

#ifdef __cplusplus
}
#endif

#endif
