/* Test of sets of files by struct file_id.
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

#include "file-id-set.h"

#include <fcntl.h>
#if defined __GLIBC__
# include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"

int
main (void)
{
  char dir[] = "test-file-id-set.tmpXXXXXX";
  ASSERT (mkdtemp (dir));
  ASSERT (chdir (dir) == 0);
  FILE *f = fopen ("a", "w");
  ASSERT (f && fputs ("a\n", f) >= 0 && fclose (f) == 0);
  ASSERT (link ("a", "a-link") == 0);

  /* A key made to look like one of a view with one st_dev for several
     subvolumes: no subvolume, not exact, so a handle and the metadata
     decide.  */
  struct stat st;
  struct file_id ha;
  ASSERT (file_id_stat_at (AT_FDCWD, "a", &st, 0, &ha) == 0);
  ha.flags &= ~(FILE_ID_EXACT | FILE_ID_HAS_SUBVOL);
  ASSERT (file_id_get_handle (&ha, AT_FDCWD, "a", 0, &st) == 0);

  /* A link of the file, as a key of its own: the same file, once.  */
  {
    struct file_id_set *set = file_id_set_alloc ();
    ASSERT (set);
    struct file_id k, kl;
    struct stat stl;
    ASSERT (file_id_copy (&k, &ha) == 0);
    ASSERT (file_id_stat_at (AT_FDCWD, "a-link", &stl, 0, &kl) == 0);
    kl.flags = ha.flags;
    ASSERT (file_id_get_handle (&kl, AT_FDCWD, "a-link", 0, &stl) == 0);
    ASSERT (file_id_set_insert (set, &k) == 1);
    ASSERT (file_id_set_insert (set, &kl) == 0);
    ASSERT (kl.handle == NULL);
    /* Another file posing as its twin (same dev and ino, another size):
       another member.  */
    struct file_id kt;
    ASSERT (file_id_copy (&kt, &ha) == 0);
    struct stat other = st;
    other.st_size++;
    ASSERT (file_id_get_handle (&kt, AT_FDCWD, "a", 0, &other) == 0);
    ASSERT (file_id_set_insert (set, &kt) == 1);
    file_id_set_free (set);
  }

  /* Sets of keys that need their handles: the set keeps digests, in
     chunks.  New keys and members interleaved, enough of them to fill
     several chunks.  A key without a handle is never taken for a
     member.  */
  {
    struct file_id_set *set = file_id_set_alloc ();
    ASSERT (set);
    enum { N = 40000 };
    for (int round = 0; round < 3; round++)
      for (int i = 0; i < N; i++)
        if (round || i % 2 == 0)
          {
            struct file_id k;
            ASSERT (file_id_copy (&k, &ha) == 0);
            k.ino = i;
            ASSERT (file_id_set_insert (set, &k)
                    == (round == 0 || (round == 1 && i % 2)));
            ASSERT (k.handle == NULL);
          }
    struct file_id k = ha;
    k.handle = NULL;
    ASSERT (file_id_set_insert (set, &k) == 1);
    ASSERT (file_id_set_insert (set, &k) == 1);
    file_id_set_free (set);
  }
#if defined __GLIBC__ && 2 < __GLIBC__ + (33 <= __GLIBC_MINOR__)
  /* Memory per key that needs a handle: 32 bytes and a few of index,
     within twice the 21 to 27 bytes that di-set spends on a (dev, ino)
     pair.  */
  {
    struct mallinfo2 m0 = mallinfo2 ();
    struct file_id_set *set = file_id_set_alloc ();
    ASSERT (set);
    enum { N = 100000 };
    for (int i = 0; i < N; i++)
      {
        struct file_id k;
        ASSERT (file_id_copy (&k, &ha) == 0);
        k.ino = 1000 + 3 * i;
        ASSERT (file_id_set_insert (set, &k) == 1);
      }
    struct mallinfo2 m1 = mallinfo2 ();
    size_t used = (m1.uordblks + m1.hblkhd) - (m0.uordblks + m0.hblkhd);
    ASSERT (used / N <= 48);
    file_id_set_free (set);
  }
#endif
  file_id_release (&ha);

  /* Sets of exact keys: one (dev, subvolume) after another, and
     interleaved; the same inode numbers in each, 0 among them; enough of
     them for the tables to grow.  A key without a subvolume is in
     subvolume 0.  */
  {
    struct file_id_set *set = file_id_set_alloc ();
    ASSERT (set);
    static struct { dev_t dev; uint64_t subvol; unsigned int flags; }
      const g[] =
      {
        { 10, 256, FILE_ID_EXACT | FILE_ID_HAS_SUBVOL },
        { 10, 257, FILE_ID_EXACT | FILE_ID_HAS_SUBVOL },
        { 11, 0, FILE_ID_EXACT },
        { 12, 5, FILE_ID_EXACT | FILE_ID_HAS_SUBVOL },
      };
    enum { NG = sizeof g / sizeof *g, N = 20000 };
    for (int round = 0; round < 2; round++)
      {
        /* The last group alone first, then the others interleaved.  */
        for (int i = 0; i < N; i++)
          {
            struct file_id k = { .ino = 1000 + i, .dev = g[NG - 1].dev,
                                 .subvol = g[NG - 1].subvol,
                                 .flags = g[NG - 1].flags };
            ASSERT (file_id_set_insert (set, &k) == !round);
          }
        for (int i = 0; i < N; i++)
          for (int j = 0; j < NG - 1; j++)
            {
              struct file_id k = { .ino = i, .dev = g[j].dev,
                                   .subvol = g[j].subvol,
                                   .flags = g[j].flags };
              ASSERT (file_id_set_insert (set, &k) == !round);
            }
      }
    struct file_id k0 = { .ino = 0, .dev = 11, .subvol = 0,
                          .flags = FILE_ID_EXACT | FILE_ID_HAS_SUBVOL };
    ASSERT (file_id_set_insert (set, &k0) == 0);
    struct file_id k1 = { .ino = N, .dev = 10, .subvol = 256,
                          .flags = FILE_ID_EXACT | FILE_ID_HAS_SUBVOL };
    ASSERT (file_id_set_insert (set, &k1) == 1);
    ASSERT (file_id_set_insert (set, &k1) == 0);
    file_id_set_free (set);
    file_id_set_free (NULL);
  }

  unlink ("a");
  unlink ("a-link");
  ASSERT (chdir ("..") == 0);
  ASSERT (rmdir (dir) == 0);
  return test_exit_status;
}
