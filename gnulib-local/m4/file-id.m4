# file-id.m4
# serial 2
dnl Copyright (C) 2026 Free Software Foundation, Inc.
dnl This file is free software; the Free Software Foundation
dnl gives unlimited permission to copy and/or distribute it,
dnl with or without modifications, as long as this notice is preserved.

AC_DEFUN([gl_FILE_ID],
[
  AC_REQUIRE([AC_USE_SYSTEM_EXTENSIONS])
  AC_CHECK_FUNCS_ONCE([statx name_to_handle_at])
])
