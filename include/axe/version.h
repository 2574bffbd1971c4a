/* SPDX-License-Identifier: Apache-2.0 */
/* The single source of axe's version: CMake reads these three numbers. */
#ifndef AXE_VERSION_H
#define AXE_VERSION_H

#define AXE_VERSION_MAJOR 0
#define AXE_VERSION_MINOR 1
#define AXE_VERSION_PATCH 0
#define AXE_VERSION_STRING "0.1.0"

#endif
