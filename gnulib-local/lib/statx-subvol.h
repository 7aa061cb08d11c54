/* The subvolume that statx reports.
   Copyright (C) 2026 Free Software Foundation, Inc.

   This file is free software: you can redistribute it and/or modify
   it under the terms of the GNU Lesser General Public License as
   published by the Free Software Foundation; either version 2.1 of the
   License, or (at your option) any later version.

   This file is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* Linux 6.10 added STATX_SUBVOL, the ID of the btrfs or bcachefs
   subvolume that holds a file, as stx_subvol at offset 0xa0 of struct
   statx, where older headers (Linux 6.1, glibc 2.36) have padding.  For
   programs that call statx themselves (stat, ls): ask for
   STATX_SUBVOL_MASK, and read the answer with statx_subvol.  Older
   kernels ignore the bit, and then report no subvolume.  Modules that
   fall back to fstatat where statx is refused share statx_refused.  */

#ifndef STATX_SUBVOL_H
#define STATX_SUBVOL_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* What this module and those built on it (file-id, file-id-fs) learn
   is each thread's own: threads that walk at once, each with its own
   FTS as upstream allows, then share no state and take no lock.  Linked
   into a program, as gnulib is, that costs nothing per access; in a
   shared library each access would be a call (__tls_get_addr).  A
   compiler with neither keyword makes the state the process's, and the
   modules not thread-safe.  */
#if 201112 <= __STDC_VERSION__
# define STATX_SUBVOL_THREAD_LOCAL _Thread_local
#elif 201103 <= __cplusplus
# define STATX_SUBVOL_THREAD_LOCAL thread_local
#elif defined __GNUC__
# define STATX_SUBVOL_THREAD_LOCAL __thread
#else
# define STATX_SUBVOL_THREAD_LOCAL
#endif

_GL_INLINE_HEADER_BEGIN
#ifndef STATX_SUBVOL_INLINE
# define STATX_SUBVOL_INLINE _GL_INLINE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The mask bit, 0 where struct statx is missing.  Not named STATX_SUBVOL,
   which the system's headers may define some day.  */
#if defined STATX_SUBVOL
# define STATX_SUBVOL_MASK STATX_SUBVOL
#elif defined STATX_BASIC_STATS && defined __linux__
# define STATX_SUBVOL_MASK 0x00008000U
#else
# define STATX_SUBVOL_MASK 0
#endif

#if defined STATX_BASIC_STATS
/* The subvolume ID that STX reports, or -1 if it reports none.  */
STATX_SUBVOL_INLINE int64_t
statx_subvol (struct statx const *stx)
{
  if (! (stx->stx_mask & STATX_SUBVOL_MASK))
    return -1;
# if HAVE_STRUCT_STATX_STX_SUBVOL
  return stx->stx_subvol;
# else
  /* The kernel fills the padding of older headers' struct statx.  */
  uint64_t v;
  memcpy (&v, (char const *) stx + 0xa0, sizeof v);
  return v;
# endif
}

# if HAVE_STATX
/* Whether statx is known to be unusable: the kernel lacks it (ENOSYS),
   or a sandbox refuses it (EPERM: seccomp profiles of container runtimes
   answer system calls they do not know with it, and statx gives it for
   no other reason).  Callers use fstatat instead.  The calling thread's.  */
extern STATX_SUBVOL_THREAD_LOCAL bool statx_refused;

/* Set statx_refused if statx has just failed with errno ENOSYS, or with
   EPERM and a statx of "/" is refused too.  Return statx_refused.  */
extern bool statx_note_refusal (void);

/* Like statx (DIRFD, NAME, FLAGS, MASK, STX), but once statx_refused,
   fail with errno ENOSYS without a system call; a refusal is noted, and
   errno set to ENOSYS.  */
extern int statx_unless_refused (int dirfd, char const *name, int flags,
                                 unsigned int mask, struct statx *stx);
# endif
#endif

#ifdef __cplusplus
}
#endif

_GL_INLINE_HEADER_END

#endif /* STATX_SUBVOL_H */
