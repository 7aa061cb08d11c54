# local-probe.m4
dnl This file is free software; the Free Software Foundation
dnl gives unlimited permission to copy and/or distribute it,
dnl with or without modifications, as long as this notice is preserved.

dnl Proves that a gnulib-local configure snippet runs in gl_INIT.
AC_DEFUN([gl_LOCAL_PROBE],
[
  AC_DEFINE([GL_LOCAL_PROBE_VALUE], [42],
    [Define to the value the local-probe placeholder module returns.])
])
