/* Test of file identities.
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

/* Check the module on the filesystem of the current directory, in a
   scratch directory of its own: make check runs it where the build is,
   and the project's test suite on each of its real filesystems.  */

#include <config.h>

#include "file-id.h"

#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"
/* An older gnulib's macros.h (diffutils 3.10's) has no test_exit_status:
   its ASSERT always aborts.  */
#ifndef CONTINUE_AFTER_ASSERT
# define test_exit_status EXIT_SUCCESS
#endif

/* The checks make check runs, in a scratch directory.  */
static void
self_test (void)
{
  char dir[] = "test-file-id.tmpXXXXXX";
  ASSERT (mkdtemp (dir));

  /* The first key of the process on this filesystem, made through ""
     and AT_EMPTY_PATH as fts re-stats a directory it has opened, is the
     key made through the name: "" is the descriptor itself, and nothing
     learned from a failed look-up is kept.  */
  {
    struct stat st1, st2;
    struct file_id k1, k2;
    int dfd = open (dir, O_RDONLY | O_DIRECTORY);
    ASSERT (0 <= dfd);
    ASSERT (file_id_stat_at (dfd, "", &st1, AT_EMPTY_PATH, &k1) == 0);
    ASSERT (file_id_stat_at (AT_FDCWD, dir, &st2, 0, &k2) == 0);
    ASSERT (k1.flags == k2.flags && k1.subvol == k2.subvol);
    ASSERT (file_id_compare (&k1, &k2) == file_id_compare (&k2, &k2));
    ASSERT (close (dfd) == 0);
  }

  ASSERT (chdir (dir) == 0);
  FILE *f = fopen ("a", "w");
  ASSERT (f && fputs ("a\n", f) >= 0 && fclose (f) == 0);
  f = fopen ("b", "w");
  ASSERT (f && fputs ("bb\n", f) >= 0 && fclose (f) == 0);
  ASSERT (link ("a", "a-link") == 0);
  ASSERT (mkdir ("d", 0700) == 0);
  ASSERT (symlink ("a", "s") == 0);
  bool have_fifo = mkfifo ("p", 0600) == 0;

  struct file_id a, a2, al, b, d, s, sf;
  struct stat st, st2;

  /* One file, its hard link, another file, a directory.  */
  ASSERT (file_id_stat_at (AT_FDCWD, "a", &st, 0, &a) == 0);
  ASSERT (file_id_stat_at (AT_FDCWD, "a", &st2, 0, &a2) == 0);
  ASSERT (st.st_ino == a.ino && st.st_dev == a.dev);
  ASSERT (st.st_size == 2 && S_ISREG (st.st_mode) && st.st_nlink == 2);
  ASSERT (file_id_compare (&a, &a2) != FILE_ID_DIFFERENT);
  ASSERT (file_id_stat_at (AT_FDCWD, "a-link", &st2, 0, &al) == 0);
  ASSERT (file_id_compare (&a, &al) != FILE_ID_DIFFERENT);
  ASSERT (file_id_hash (&a, 1021) == file_id_hash (&al, 1021));
  ASSERT (file_id_stat_at (AT_FDCWD, "b", &st2, 0, &b) == 0);
  ASSERT (file_id_compare (&a, &b) == FILE_ID_DIFFERENT);
  ASSERT (file_id_stat_at (AT_FDCWD, "d", &st2, 0, &d) == 0);
  ASSERT (S_ISDIR (st2.st_mode) && (d.flags & FILE_ID_DIR));
  ASSERT (file_id_compare (&a, &d) == FILE_ID_DIFFERENT);

  /* With AT_SYMLINK_NOFOLLOW, a symlink is itself...  */
  ASSERT (file_id_stat_at (AT_FDCWD, "s", &st2, AT_SYMLINK_NOFOLLOW, &s) == 0);
  ASSERT (S_ISLNK (st2.st_mode));
  ASSERT (file_id_compare (&a, &s) == FILE_ID_DIFFERENT);
  /* ... and its target with it.  */
  ASSERT (file_id_stat_at (AT_FDCWD, "s", &st2, 0, &sf) == 0);
  ASSERT (file_id_compare (&a, &sf) != FILE_ID_DIFFERENT);

  /* One-off checks: hard links are one file, other files are not, and a
     symbolic link is followed only if its status was.  */
  {
    struct stat sa, sl, sb, ss, ssf;
    ASSERT (lstat ("a", &sa) == 0 && lstat ("a-link", &sl) == 0
            && lstat ("b", &sb) == 0 && lstat ("s", &ss) == 0
            && stat ("s", &ssf) == 0);
    ASSERT (file_id_may_be_same (AT_FDCWD, "a", &sa, AT_FDCWD, "a-link", &sl));
    ASSERT (file_id_proven_same (AT_FDCWD, "a", &sa, AT_FDCWD, "a-link", &sl));
    ASSERT (!file_id_may_be_same (AT_FDCWD, "a", &sa, AT_FDCWD, "b", &sb));
    ASSERT (!file_id_proven_same (AT_FDCWD, "a", &sa, AT_FDCWD, "b", &sb));
    ASSERT (!file_id_may_be_same (AT_FDCWD, "a", &sa, AT_FDCWD, "s", &ss));
    ASSERT (file_id_may_be_same (AT_FDCWD, "a", &sa, AT_FDCWD, "s", &ssf));
    int dfd = open (".", O_RDONLY | O_DIRECTORY);
    struct stat sd, sdot;
    ASSERT (0 <= dfd && fstat (dfd, &sd) == 0 && stat (".", &sdot) == 0);
    ASSERT (file_id_may_be_same (dfd, NULL, &sd, AT_FDCWD, ".", &sdot));
    /* Asked by descriptor or by name, of a directory or a file: one
       answer for one filesystem (which answer depends on where the test
       runs; the suite's file-id.exp checks each filesystem).  */
    bool by_fd = file_id_numbers_identify (dfd, NULL, &sd);
    ASSERT (file_id_numbers_identify (AT_FDCWD, ".", &sdot) == by_fd);
    ASSERT (file_id_numbers_identify (AT_FDCWD, "a", &sa) == by_fd);
    ASSERT (close (dfd) == 0);
  }

  /* The stat fields match fstatat's.  */
  struct stat ref;
  ASSERT (fstatat (AT_FDCWD, "a", &ref, 0) == 0);
  ASSERT (file_id_stat_at (AT_FDCWD, "a", &st, 0, &a2) == 0);
  ASSERT (ref.st_dev == st.st_dev && ref.st_ino == st.st_ino
          && ref.st_mode == st.st_mode && ref.st_nlink == st.st_nlink
          && ref.st_uid == st.st_uid && ref.st_size == st.st_size
          && ref.st_blocks == st.st_blocks
          && ref.st_mtim.tv_sec == st.st_mtim.tv_sec
          && ref.st_mtim.tv_nsec == st.st_mtim.tv_nsec
          && ref.st_ctim.tv_nsec == st.st_ctim.tv_nsec);

  /* Errors: no crash, errno as fstatat's, the key untouched.  */
  errno = 0;
  ASSERT (file_id_stat_at (AT_FDCWD, "missing", &st, 0, &a2) == -1);
  ASSERT (errno == ENOENT);
  errno = 0;
  ASSERT (file_id_stat_at (AT_FDCWD, "a/x", &st, 0, &a2) == -1);
  ASSERT (errno == ENOTDIR);
  errno = 0;
  ASSERT (file_id_stat_at (-1, "a", &st, 0, &a2) == -1);
  ASSERT (errno == EBADF);

  /* A FIFO is stated without being opened (this would block).  */
  if (have_fifo)
    {
      struct file_id p;
      ASSERT (file_id_stat_at (AT_FDCWD, "p", &st, 0, &p) == 0);
      ASSERT (S_ISFIFO (st.st_mode));
    }

  /* Keys that (dev, ino) cannot settle.  Make them look like those of a
     view with one st_dev for several subvolumes: no subvolume, not
     exact.  Handles of a local filesystem prove nothing here (none is
     taken), so the metadata decide: "different" needs proof.  */
  struct file_id ha, hal, hb;
  ASSERT (file_id_stat_at (AT_FDCWD, "a", &st, 0, &ha) == 0);
  ASSERT (file_id_stat_at (AT_FDCWD, "a-link", &st2, 0, &hal) == 0);
  ha.flags &= ~(FILE_ID_EXACT | FILE_ID_HAS_SUBVOL);
  hal.flags &= ~(FILE_ID_EXACT | FILE_ID_HAS_SUBVOL);
  ASSERT (file_id_needs_handle (&ha));
  ASSERT (file_id_compare (&ha, &hal) == FILE_ID_UNKNOWN);
  ASSERT (file_id_get_handle (&ha, AT_FDCWD, "a", 0, &st) == 0);
  ASSERT (file_id_get_handle (&hal, AT_FDCWD, "a-link", 0, &st2) == 0);
  /* Two links of one file with equal metadata: alike.  */
  ASSERT (file_id_compare (&ha, &hal) == FILE_ID_ALIKE);
  {
    /* Another file posing as a twin of a: same dev and ino, another
       size: different.  */
    struct stat stb;
    ASSERT (file_id_stat_at (AT_FDCWD, "b", &stb, 0, &hb) == 0);
    hb.ino = ha.ino;
    hb.flags = ha.flags;
    ASSERT (file_id_compare (&ha, &hb) == FILE_ID_UNKNOWN);
    ASSERT (file_id_get_handle (&hb, AT_FDCWD, "b", 0, &stb) == 0);
    ASSERT (file_id_compare (&ha, &hb) == FILE_ID_DIFFERENT);
    /* Without metadata (a file the caller changes), nothing proves it.  */
    struct file_id nm = hb;
    nm.handle = NULL;
    ASSERT (file_id_get_handle (&nm, AT_FDCWD, "b", 0, NULL) == 0);
    ASSERT (file_id_compare (&ha, &nm) == FILE_ID_UNKNOWN);
    file_id_release (&nm);
    struct file_id copy;
    ASSERT (file_id_copy (&copy, &ha) == 0);
    ASSERT (file_id_compare (&copy, &ha) == FILE_ID_ALIKE);
    file_id_release (&copy);
    /* With one link too: where no handle could tell, (st_dev, st_ino)
       and metadata are all there is, as for the stock tools.  */
    struct file_id u, v;
    struct stat sb1;
    ASSERT (file_id_stat_at (AT_FDCWD, "b", &sb1, 0, &u) == 0);
    ASSERT (sb1.st_nlink == 1);
    u.flags = v.flags = ha.flags;
    v.ino = u.ino, v.dev = u.dev, v.subvol = u.subvol, v.handle = NULL;
    ASSERT (file_id_get_handle (&u, AT_FDCWD, "b", 0, &sb1) == 0);
    ASSERT (file_id_get_handle (&v, AT_FDCWD, "a", 0, &sb1) == 0);
    ASSERT (file_id_compare (&u, &v) == FILE_ID_ALIKE);
    /* And for directories.  */
    u.flags |= FILE_ID_DIR;
    v.flags |= FILE_ID_DIR;
    ASSERT (file_id_compare (&u, &v) == FILE_ID_ALIKE);
    /* Digests answer as the keys do.  */
    struct file_id *keys[] = { &ha, &hal, &hb, &u, &v };
    for (int x = 0; x < 5; x++)
      for (int y = 0; y < 5; y++)
        {
          struct file_id_digest dx, dy;
          file_id_digest (keys[x], &dx);
          file_id_digest (keys[y], &dy);
          if (keys[x]->ino == keys[y]->ino && keys[x]->dev == keys[y]->dev)
            ASSERT (file_id_digest_compare (&dx, &dy)
                    == file_id_compare (keys[x], keys[y]));
        }
    {
      struct file_id_digest d1, d2;
      struct file_id bare = ha;
      bare.handle = NULL;
      file_id_digest (&bare, &d1);
      file_id_digest (&ha, &d2);
      ASSERT (file_id_digest_compare (&d1, &d2) == FILE_ID_UNKNOWN);
    }
    file_id_release (&u);
    file_id_release (&v);
    file_id_release (&hb);
  }

  file_id_release (&ha);
  file_id_release (&hal);
  /* Where handles prove nothing, none is asked for: the metadata alone,
     without a system call, whatever the name.  */
  ASSERT (file_id_get_handle (&ha, AT_FDCWD, "missing", 0, &st) == 0);
  ASSERT (ha.handle != NULL);
  file_id_release (&ha);

  unlink ("a");
  unlink ("a-link");
  unlink ("b");
  unlink ("s");
  unlink ("p");
  rmdir ("d");
  ASSERT (chdir ("..") == 0);
  ASSERT (rmdir (dir) == 0);
}

/* The loop rule, on keys that nothing but metadata tells apart (no
   subvolume, not exact, no handle), as a FUSE view leaves them.  */
static void
loop_test (void)
{
  struct file_id a = { .ino = 256, .dev = 42, .flags = FILE_ID_DIR };
  struct file_id b = a;
  struct file_id c = a;
  c.ino = 257;
  struct stat sa = { .st_mode = S_IFDIR | 0755, .st_nlink = 2 };
  struct stat sb = sa;
  sb.st_mtim.tv_sec = 1;

  /* Other numbers: no match at all.  */
  struct file_id_loop loop = { 0 };
  ASSERT (!file_id_loop_at (&loop, &a, &sa, &c, &sa));
  ASSERT (loop.alike == 0 && loop.by_meta == 0);

  /* Alike: the first match is a snapshot within its source, the second
     a loop.  */
  ASSERT (!file_id_loop_at (&loop, &a, &sa, &b, &sa));
  ASSERT (file_id_loop_at (&loop, &a, &sa, &b, &sa));
  /* Without statuses, as the keys say: the same.  */
  loop = (struct file_id_loop) { 0 };
  ASSERT (!file_id_loop_at (&loop, &a, NULL, &b, NULL));
  ASSERT (file_id_loop_at (&loop, &a, NULL, &b, NULL));

  /* Keys that prove nothing, with statuses whose metadata differ: 64
     matches are other directories, the 65th a loop.  (Keys proven
     different by their handles' metadata take the same count; making
     such handles needs a FUSE view.)  */
  loop = (struct file_id_loop) { 0 };
  for (int i = 0; i < 64; i++)
    ASSERT (!file_id_loop_at (&loop, &a, &sa, &b, &sb));
  ASSERT (file_id_loop_at (&loop, &a, &sa, &b, &sb));

  /* Exact keys: the same directory is a loop at once, another never.  */
  struct file_id e = a;
  e.flags |= FILE_ID_EXACT;
  struct file_id f = e;
  loop = (struct file_id_loop) { 0 };
  ASSERT (file_id_loop_at (&loop, &e, &sa, &f, &sb));
  e.flags |= FILE_ID_HAS_SUBVOL;
  f.flags |= FILE_ID_HAS_SUBVOL;
  f.subvol = 1;
  loop = (struct file_id_loop) { 0 };
  for (int i = 0; i < 100; i++)
    ASSERT (!file_id_loop_at (&loop, &e, &sa, &f, &sa));
}

int
main (void)
{
  self_test ();
  loop_test ();
  return test_exit_status;
}
