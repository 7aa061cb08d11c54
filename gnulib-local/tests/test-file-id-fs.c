/* Test of what identifies files on each filesystem.
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

/* On the filesystem of the current directory, in a scratch directory.  */

#include <config.h>

#include "file-id-fs.h"

#include <errno.h>
#include <fcntl.h>
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

int
main (void)
{
  char dir[] = "test-file-id-fs.tmpXXXXXX";
  ASSERT (mkdtemp (dir));
  ASSERT (chdir (dir) == 0);
  ASSERT (mkdir ("d", 0700) == 0);
  int fd = open ("a", O_WRONLY | O_CREAT | O_EXCL, 0600);
  ASSERT (0 <= fd && close (fd) == 0);
  bool have_fifo = mkfifo ("p", 0600) == 0;

  /* One st_dev is one filesystem, whatever the type.  */
  struct stat st, st2;
  ASSERT (stat (".", &st) == 0 && stat ("d", &st2) == 0);
  ASSERT (file_id_same_fs (AT_FDCWD, ".", &st, AT_FDCWD, "d", &st2));
  ASSERT (stat ("a", &st2) == 0);
  ASSERT (file_id_same_fs (AT_FDCWD, ".", &st, AT_FDCWD, "a", &st2));

  /* What is learned of a filesystem is learned once: the same answers
     through a directory, a file, and the directory's descriptor.  */
  uint64_t sv1 = 0, sv2 = 0, sv3 = 0;
  int f1 = file_id_fs_identify (st.st_dev, st.st_ino, AT_FDCWD, ".", true,
                                false, &sv1);
  int f2 = file_id_fs_identify (st2.st_dev, st2.st_ino, AT_FDCWD, "a", false,
                                false, &sv2);
  int dfd = open (".", O_RDONLY | O_DIRECTORY);
  ASSERT (0 <= dfd);
  int f3 = file_id_fs_identify (st.st_dev, st.st_ino, dfd, NULL, true,
                                false, &sv3);
  ASSERT (f1 == f2 && f2 == f3);
  ASSERT (!(f1 & FILE_ID_FS_SUBVOL) || (sv1 == sv2 && sv2 == sv3));
  ASSERT (!(f1 & FILE_ID_FS_SUBVOL) || (f1 & FILE_ID_FS_EXACT));
  enum file_id_handles h = file_id_fs_handles (st.st_dev);
  ASSERT (h == FILE_ID_HANDLES_NONE || h == FILE_ID_HANDLES_PATH
          || h == FILE_ID_HANDLES_FILE || h == FILE_ID_HANDLES_NFS);
  /* A st_dev never met: nothing known, no handle worth taking.  */
  ASSERT (file_id_fs_handles ((dev_t) -1) == FILE_ID_HANDLES_NONE);

  /* The UUID: the same through each file of the filesystem, and never
     by opening anything but a directory (a FIFO would block).  */
  unsigned char u1[16], u2[16];
  bool has1 = file_id_fs_uuid (st.st_dev, AT_FDCWD, ".", u1);
  bool has2 = file_id_fs_uuid (st.st_dev, dfd, NULL, u2);
  ASSERT (has1 == has2 && (!has1 || memcmp (u1, u2, 16) == 0));
  if (have_fifo)
    {
      ASSERT (stat ("p", &st2) == 0);
      bool has3 = file_id_fs_uuid (st2.st_dev, AT_FDCWD, "p", u2);
      ASSERT (has3 == has1 && (!has1 || memcmp (u1, u2, 16) == 0));
    }
  ASSERT (close (dfd) == 0);

  /* The canonical UUID text.  */
  static unsigned char const u[16] =
    { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
      0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
  char buf[FILE_ID_UUID_BUFSIZE];
  ASSERT (strcmp (file_id_uuid_str (u, buf),
                  "12345678-9abc-def0-0123-456789abcdef") == 0);

  /* The first knfsd export and file ID type met on a device are the
     only ones whose handles prove anything there; each device has its
     own, however many there are.  */
  static unsigned char const ex1[] = { 1, 0, 1, 0xaa, 0xbb, 0xcc, 0xdd };
  static unsigned char const ex2[] = { 1, 0, 1, 0xaa, 0xbb, 0xcc, 0xde };
  for (dev_t d = 1; d <= 100; d++)
    ASSERT (file_id_fs_nfs_export ((dev_t) (4000 + d),
                                   d % 2 ? ex1 : ex2, sizeof ex1, 0x81));
  dev_t nd = (dev_t) (4000 + 1);
  ASSERT (file_id_fs_nfs_export (nd, ex1, sizeof ex1, 0));
  ASSERT (file_id_fs_nfs_export (nd, ex1, sizeof ex1, 0x81));
  ASSERT (!file_id_fs_nfs_export (nd, ex1, sizeof ex1, 0x01));
  ASSERT (!file_id_fs_nfs_export (nd, ex2, sizeof ex2, 0x81));
  ASSERT (!file_id_fs_nfs_export (nd, ex1, sizeof ex1 - 1, 0x81));
  ASSERT (file_id_fs_nfs_export ((dev_t) (4000 + 2), ex2, sizeof ex2,
                                 0x81));

  /* Errors that say an interface is missing for good, and others.  */
  ASSERT (file_id_fs_unavailable (ENOSYS) && file_id_fs_unavailable (EPERM)
          && file_id_fs_unavailable (EOPNOTSUPP));
  ASSERT (!file_id_fs_unavailable (EMFILE) && !file_id_fs_unavailable (ENOENT)
          && !file_id_fs_unavailable (ESTALE));

  unlink ("a");
  unlink ("p");
  rmdir ("d");
  ASSERT (chdir ("..") == 0);
  ASSERT (rmdir (dir) == 0);
  return test_exit_status;
}
