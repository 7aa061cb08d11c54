/* Test of the subvolume that statx reports.
   Copyright (C) 2026 Free Software Foundation, Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

#include <config.h>

#include "statx-subvol.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "macros.h"
/* An older gnulib's macros.h (diffutils 3.10's) has no test_exit_status:
   its ASSERT always aborts.  */
#ifndef CONTINUE_AFTER_ASSERT
# define test_exit_status EXIT_SUCCESS
#endif

int
main (void)
{
#if defined STATX_BASIC_STATS
  /* Without the bit in the mask there is no subvolume, whatever the
     field holds; with it, the field at offset 0xa0.  */
  struct statx stx;
  memset (&stx, 0xff, sizeof stx);
  stx.stx_mask = STATX_BASIC_STATS;
  ASSERT (statx_subvol (&stx) == -1);
  uint64_t v = 256;
  memcpy ((char *) &stx + 0xa0, &v, sizeof v);
  stx.stx_mask |= STATX_SUBVOL_MASK;
  ASSERT (STATX_SUBVOL_MASK != 0);
  ASSERT (statx_subvol (&stx) == 256);

  /* A real statx: the subvolume is reported or not (ext4, tmpfs and
     kernels before Linux 6.10 report none), never garbage: the mask
     says which.  */
  memset (&stx, 0, sizeof stx);
  if (statx (AT_FDCWD, ".", 0, STATX_BASIC_STATS | STATX_SUBVOL_MASK, &stx)
      == 0)
    {
      int64_t sv = statx_subvol (&stx);
      ASSERT (sv == -1 ? !(stx.stx_mask & STATX_SUBVOL_MASK) : 0 <= sv);
    }
  else
    ASSERT (errno == ENOSYS || errno == EPERM);

# if HAVE_STATX
  /* Another failure is not a refusal; ENOSYS or EPERM is, and statx is
     then not called again: ENOSYS even for a name that exists.  */
  ASSERT (!statx_refused);
  errno = 0;
  ASSERT (statx_unless_refused (AT_FDCWD, "test-statx-subvol.nonexistent",
                                0, STATX_BASIC_STATS, &stx) == -1);
  ASSERT (errno == ENOENT || errno == ENOSYS);
  if (errno == ENOENT)
    {
      /* Neither another error nor an EPERM for one file, while statx
         of "/" works, is a refusal.  */
      ASSERT (!statx_refused);
      errno = EINVAL;
      ASSERT (!statx_note_refusal ());
      errno = EPERM;
      ASSERT (!statx_note_refusal ());
      ASSERT (errno == EPERM);
      errno = ENOSYS;
      ASSERT (statx_note_refusal ());
    }
  ASSERT (statx_refused);
  errno = 0;
  ASSERT (statx_unless_refused (AT_FDCWD, ".", 0, STATX_BASIC_STATS, &stx)
          == -1);
  ASSERT (errno == ENOSYS);
# endif
#else
  fputs ("Skipping test: no statx\n", stderr);
  return 77;
#endif
  return test_exit_status;
}
