/* What identifies files on each filesystem, and its UUID.
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

/* Facts about a filesystem instance (a st_dev), learned once and cached:
   its type, whether (st_dev, st_ino) identifies its files, the subvolume
   where a st_dev is one btrfs subvolume, what its file handles prove,
   and its UUID.  Learning costs one system call per mount (statmount of
   the mount ID that statx gave; before Linux 6.8, an O_PATH open of a
   directory, statx and statfs), none for another st_dev of a mount
   already examined (another btrfs subvolume).  The cache is the calling
   thread's (thread-local), so that threads need no lock: each learns for
   itself (its own statmount calls and read of the mount table), and what
   a thread learned is not freed when it exits: 22 KB for its first 256
   st_dev values, and its copy of the mount table.  A st_dev seen through a mount other
   than the one it was learned through is learned again, since its
   number may have passed to another filesystem (Linux 6.8+; see
   "Lifetime" in file-id.txt).  */

#ifndef FILE_ID_FS_H
#define FILE_ID_FS_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Store in UUID the UUID of the filesystem that holds the file NAME
   relative to DIRFD (NAME null: DIRFD itself), whose st_dev is DEV.
   Cached per DEV.  Return true, or false if the filesystem has no UUID
   (or an all-zero one) or it cannot be known.  Never opens anything but
   a directory.  */
extern bool file_id_fs_uuid (dev_t dev, int dirfd, char const *name,
                             unsigned char uuid[16])
  _GL_ATTRIBUTE_NONNULL ((4));

/* Whether the files that A_ST and B_ST describe, found as A_NAME
   relative to A_DIRFD and B_NAME relative to B_DIRFD (a null name: the
   descriptor itself), are on one filesystem in the sense of "stay on
   this filesystem but cross its subvolumes" (find -xdev
   -cross-subvolumes, du -x and cp -x with --cross-subvolumes): true if
   they share st_dev, or if both filesystems are of one type that gives
   each subvolume its own st_dev (btrfs) and they have one UUID.
   A UUID alone is not enough: two mounted copies of an ext4 image share
   it, yet are two filesystems.  Free when the st_dev are equal; else at
   most one statfs and one UUID ioctl per mount not met before (cached;
   another subvolume of a mount met before costs nothing).  Never opens
   anything but a directory.  */
extern bool file_id_same_fs (int a_dirfd, char const *a_name,
                             struct stat const *a_st,
                             int b_dirfd, char const *b_name,
                             struct stat const *b_st)
  _GL_ATTRIBUTE_NONNULL ((3, 6));

/* Format UUID in canonical form into BUF; return BUF.  */
enum { FILE_ID_UUID_BUFSIZE = 37 };
extern char *file_id_uuid_str (unsigned char const uuid[16],
                               char buf[FILE_ID_UUID_BUFSIZE])
  _GL_ATTRIBUTE_NONNULL ((1, 2)) _GL_ATTRIBUTE_RETURNS_NONNULL;


/* The rest is for the file-id module, which makes keys from these facts.  */

/* What file_id_fs_identify says of a file.  */
enum
{
  /* (dev, subvolume, ino) identifies the file.  */
  FILE_ID_FS_EXACT = 1 << 0,
  /* *SUBVOL holds the subvolume of the file's st_dev.  */
  FILE_ID_FS_SUBVOL = 1 << 1,
  /* The same answer holds for every file of the st_dev from now on, so
     that the caller may keep it.  */
  FILE_ID_FS_STABLE = 1 << 2
};

/* What is known of the file with st_dev DEV and inode number INO (a
   directory if IS_DIR), found as NAME relative to DIRFD (NAME null:
   DIRFD itself), for which the kernel gave no subvolume: a statx that
   reported none if STATX_SAID, else a stat that could not ask.  Return
   FILE_ID_FS_* flags, and set *SUBVOL if FILE_ID_FS_SUBVOL is among
   them.  Where the filesystem cannot be examined (a sandbox refuses it,
   a file renamed meanwhile), (dev, ino) is taken as not identifying a
   file; out of memory, as identifying it, as stock tools take it.  */
extern int file_id_fs_identify (dev_t dev, ino_t ino, int dirfd,
                                char const *name, bool is_dir,
                                bool statx_said, uint64_t *subvol)
  _GL_ATTRIBUTE_NONNULL ((7));

/* What a difference between two file handles of a filesystem proves.
   "Different" needs proof: a handle proves a difference only where its
   format is known to name a file, not a path to it.  */
enum file_id_handles
{
  /* Handles prove nothing, or none is taken: a generic FID (Linux 6.7+
     on 9p, CIFS...) holds no more than (st_ino, generation), which a
     snapshot keeps; and filesystems whose handles are not known.  */
  FILE_ID_HANDLES_NONE,
  /* Equal handles are one file; different ones may be too: FUSE gives a
     handle per path, knfsd with subtree_check a handle per directory.  */
  FILE_ID_HANDLES_PATH,
  /* Equal handles are one file, different ones different files.  */
  FILE_ID_HANDLES_FILE,
  /* NFS: FILE or PATH, by the server's handle format.  */
  FILE_ID_HANDLES_NFS
};

/* What the file handles of the filesystem whose st_dev is DEV prove, as
   file_id_fs_identify learned; NONE if it was never examined.  */
extern enum file_id_handles file_id_fs_handles (dev_t dev)
  _GL_ATTRIBUTE_PURE;

/* Whether the directory with st_dev DEV and inode number INO is one of
   the placeholders that btrfs snapshots hold for nested subvolumes,
   which all share one st_dev and inode number 2.  Known only of a DEV
   that file_id_fs_identify examined.  */
extern bool file_id_fs_btrfs_placeholder (dev_t dev, ino_t ino)
  _GL_ATTRIBUTE_PURE;

/* Remember that the filesystem whose st_dev is DEV gives no handles.  */
extern void file_id_fs_no_handles (dev_t dev);

/* Whether KEY, the LEN bytes that name the export of a knfsd handle of
   a file on the NFS client device DEV (version, authentication and fsid
   types, fsid), and FID_TYPE, its file ID type (0: the export's root),
   are those of the first such handles met on DEV.  */
enum { FILE_ID_NFS_EXPORT_MAX = 3 + 24 };
extern bool file_id_fs_nfs_export (dev_t dev, unsigned char const *key,
                                   int len, unsigned char fid_type)
  _GL_ATTRIBUTE_NONNULL ((2));

#if defined STATX_BASIC_STATS
/* Remember what a statx STX of a file with st_dev DEV said of that
   st_dev: its mount and subvolume, so that other files of DEV whose
   status has neither (fstatat) cost no system call, and so that what
   was learned of another filesystem that had DEV before is not used.
   Cheap: an append when DEV or its mount differs from the last noted.
   Return whether it does, so that a caller that keeps what
   file_id_fs_identify said of the last st_dev asks again.  */
extern bool file_id_fs_note (dev_t dev, struct statx const *stx)
  _GL_ATTRIBUTE_NONNULL ((2));
#endif

/* Whether ERR, from a system call that examines a file, says that the
   interface is not available here for good: the kernel or the filesystem
   lacks it, or a sandbox refuses it (seccomp profiles answer EPERM).  */
extern bool file_id_fs_unavailable (int err) _GL_ATTRIBUTE_CONST;

/* The statx mask bits for mount IDs (Linux 5.8), and for unique ones
   (Linux 6.8), for older headers; 0 where statx has no mount ID.  A
   mount ID is reused once its mount is gone; a unique one never is.
   Asked for with the unique bit, stx_mnt_id holds the unique ID; older
   kernels ignore the bit.  */
#if defined STATX_MNT_ID
# define FILE_ID_STATX_MNT_ID STATX_MNT_ID
# if defined STATX_MNT_ID_UNIQUE
#  define FILE_ID_STATX_MNT_ID_UNIQUE STATX_MNT_ID_UNIQUE
# else
#  define FILE_ID_STATX_MNT_ID_UNIQUE 0x00004000U
# endif
#else
# define FILE_ID_STATX_MNT_ID 0
# define FILE_ID_STATX_MNT_ID_UNIQUE 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* FILE_ID_FS_H */
