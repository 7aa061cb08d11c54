/* Test of open-addressing tables of 64-bit keys.
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

#include "u64-table.h"

#include "macros.h"
/* An older gnulib's macros.h (diffutils 3.10's) has no test_exit_status:
   its ASSERT always aborts.  */
#ifndef CONTINUE_AFTER_ASSERT
# define test_exit_status EXIT_SUCCESS
#endif

int
main (void)
{
  /* A set: runs of keys (inode numbers come in runs), widely spread
     keys, and 0, which is kept aside; enough to grow many times.  */
  struct u64_table s;
  u64_table_init (&s, false);
  ASSERT (!u64_table_has (&s, 0) && !u64_table_has (&s, 1));
  ASSERT (u64_table_count (&s) == 0);
  enum { N = 100000 };
  for (uint64_t i = 0; i < N; i++)
    {
      ASSERT (u64_table_add (&s, i) == 1);
      ASSERT (u64_table_add (&s, (i + 1) << 40) == 1);
    }
  ASSERT (u64_table_count (&s) == 2 * N);
  for (uint64_t i = 0; i < N; i++)
    {
      ASSERT (u64_table_add (&s, i) == 0);
      ASSERT (u64_table_has (&s, (i + 1) << 40));
      ASSERT (!u64_table_has (&s, i + N));
    }
  ASSERT (u64_table_has (&s, 0) && u64_table_has (&s, UINT64_C (1)));
  ASSERT (!u64_table_has (&s, UINT64_MAX));
  ASSERT (u64_table_add (&s, UINT64_MAX) == 1);
  ASSERT (u64_table_has (&s, UINT64_MAX));
  u64_table_clear (&s);
  ASSERT (u64_table_count (&s) == 0 && !u64_table_has (&s, 5));
  ASSERT (u64_table_add (&s, 5) == 1 && u64_table_has (&s, 5));
  u64_table_clear (&s);

  /* A map: values stay with their keys as the table grows; a key added
     by reference has a null value until set; 0 is a key too.  */
  static char vals[3];
  struct u64_table m;
  u64_table_init (&m, true);
  ASSERT (u64_table_get (&m, 7) == NULL);
  for (uint64_t i = 0; i < N; i++)
    {
      void **v = u64_table_ref (&m, i * 0x10001);
      ASSERT (v && *v == NULL);
      *v = &vals[i % 3];
    }
  ASSERT (u64_table_count (&m) == N);
  for (uint64_t i = 0; i < N; i++)
    {
      ASSERT (u64_table_get (&m, i * 0x10001) == &vals[i % 3]);
      void **v = u64_table_ref (&m, i * 0x10001);
      ASSERT (v && *v == &vals[i % 3]);
    }
  ASSERT (u64_table_get (&m, 2) == NULL);
  ASSERT (u64_table_count (&m) == N);
  ASSERT (u64_table_get (&m, 0) == &vals[0]);
  u64_table_clear (&m);
  ASSERT (u64_table_get (&m, 0) == NULL && u64_table_count (&m) == 0);

  return test_exit_status;
}
