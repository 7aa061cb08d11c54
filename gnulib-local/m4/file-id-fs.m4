# file-id-fs.m4
# serial 1
dnl Copyright (C) 2026 Free Software Foundation, Inc.
dnl This file is free software; the Free Software Foundation
dnl gives unlimited permission to copy and/or distribute it,
dnl with or without modifications, as long as this notice is preserved.

AC_DEFUN([gl_FILE_ID_FS],
[
  AC_REQUIRE([AC_USE_SYSTEM_EXTENSIONS])
  AC_CHECK_FUNCS_ONCE([statx])
  AC_CHECK_HEADERS_ONCE([linux/btrfs.h])
])
