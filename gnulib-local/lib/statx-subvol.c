/* The subvolume that statx reports, and whether statx can be used.
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

#include <config.h>

#define STATX_SUBVOL_INLINE _GL_EXTERN_INLINE
#include "statx-subvol.h"

#include <errno.h>
#include <fcntl.h>

#if defined STATX_BASIC_STATS && !HAVE_STRUCT_STATX_STX_SUBVOL
# include "verify.h"
/* stx_subvol is at 0xa0; the padding there must be in the struct.  */
verify (0xa8 <= sizeof (struct statx));
#endif

#if defined STATX_BASIC_STATS && HAVE_STATX
STATX_SUBVOL_THREAD_LOCAL bool statx_refused;

bool
statx_note_refusal (void)
{
  if (errno == ENOSYS)
    statx_refused = true;
  else if (errno == EPERM && !statx_refused)
    {
      /* EPERM is what a sandbox answers for a call it does not allow,
         but a FUSE daemon or a network filesystem may give it for one
         file: a sandbox refuses a statx of "/" as well.  */
      struct statx stx;
      if (statx (AT_FDCWD, "/", 0, STATX_TYPE, &stx) != 0
          && (errno == EPERM || errno == ENOSYS))
        statx_refused = true;
      errno = EPERM;
    }
  return statx_refused;
}

int
statx_unless_refused (int dirfd, char const *name, int flags,
                      unsigned int mask, struct statx *stx)
{
  if (statx_refused)
    {
      errno = ENOSYS;
      return -1;
    }
  int r = statx (dirfd, name, flags, mask, stx);
  if (r != 0 && statx_note_refusal ())
    errno = ENOSYS;
  return r;
}
#endif
