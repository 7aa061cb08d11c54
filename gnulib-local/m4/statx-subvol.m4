# statx-subvol.m4
# serial 2
dnl Copyright (C) 2026 Free Software Foundation, Inc.
dnl This file is free software; the Free Software Foundation
dnl gives unlimited permission to copy and/or distribute it,
dnl with or without modifications, as long as this notice is preserved.

AC_DEFUN([gl_STATX_SUBVOL],
[
  AC_REQUIRE([AC_USE_SYSTEM_EXTENSIONS])
  AC_CHECK_FUNCS_ONCE([statx])
  dnl Linux 6.10 added stx_subvol; older headers have padding there.
  AC_CHECK_MEMBERS([struct statx.stx_subvol], [], [],
    [[#include <sys/stat.h>]])
])
