/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status names and messages, generated from the one AXE_STATUS_MAP list, and
 * diagnostics. No state: everything here is a pure function of its arguments.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "axe/version.h"
#include "core_internal.h"

const char *axe_status_name(axe_status status)
{
    switch (status) {
    case AXE_OK:
        return "OK";
#define AXE__STATUS_NAME(name, value, msg)                                     \
    case AXE_ERR_##name:                                                       \
        return #name;
        AXE_STATUS_MAP(AXE__STATUS_NAME)
#undef AXE__STATUS_NAME
    }
    return "UNKNOWN_STATUS";
}

const char *axe_status_message(axe_status status)
{
    switch (status) {
    case AXE_OK:
        return "success";
#define AXE__STATUS_MSG(name, value, msg)                                      \
    case AXE_ERR_##name:                                                       \
        return msg;
        AXE_STATUS_MAP(AXE__STATUS_MSG)
#undef AXE__STATUS_MSG
    }
    return "unknown status";
}

void axe_diag_clear(axe_diag *diag)
{
    if (diag == NULL)
        return;
    diag->offset = -1;
    diag->message[0] = '\0';
}

const char *axe_version(void) { return AXE_VERSION_STRING; }

void axe__diag_vput(axe_diag *diag, const char *fmt, va_list ap)
{
    static const char mark[] = "...";
    size_t cap = sizeof diag->message;
    int n = vsnprintf(diag->message, cap, fmt, ap);
    if (n < 0)
        (void)snprintf(diag->message, cap, "(reason could not be formatted)");
    else if ((size_t)n >= cap)
        memcpy(diag->message + cap - sizeof mark, mark, sizeof mark);
}

axe_status axe__fail(axe_diag *diag, axe_status status, long offset,
                     const char *fmt, ...)
{
    va_list ap;
    if (diag == NULL)
        return status;
    diag->offset = offset;
    va_start(ap, fmt);
    axe__diag_vput(diag, fmt, ap);
    va_end(ap);
    return status;
}
