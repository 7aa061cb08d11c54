/* Identify files by (filesystem, subvolume, inode number).
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

/* (st_dev, st_ino) does not identify a file where one st_dev covers
   several btrfs or bcachefs subvolumes: snapshots repeat the inode numbers
   of their source, and an NFS client, a FUSE view or overlayfs shows one
   st_dev for all of them.  A struct file_id adds the subvolume ID where the
   kernel reports it (statx STATX_SUBVOL, Linux 6.10+; the btrfs ioctls on
   older kernels) and says when (st_dev, st_ino) alone cannot decide; a file
   handle then settles most of those cases.

   The filesystem part of the key is st_dev: it names a mounted filesystem
   instance, so two mounted filesystems that share a UUID (a copied image,
   an LVM snapshot) stay apart.  The UUID names the filesystem across
   mounts; file_id_fs_uuid (file-id-fs.h) returns it for printing.  Sets
   of keys are in file-id-set.h.  See file-id.txt for what the modules
   promise on each filesystem and kernel.  What a key's handle proves is
   decided with what the calling thread has learned of its filesystem
   (file-id-fs.h; on NFS, the first export met): compare keys made by
   one thread.  */

#ifndef FILE_ID_H
#define FILE_ID_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/stat.h>

_GL_INLINE_HEADER_BEGIN
#ifndef FILE_ID_INLINE
# define FILE_ID_INLINE _GL_INLINE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The answer to "are these the same file?".  "Different" needs proof:
   different subvolume IDs from the kernel; different file handles of a
   format known to name files, not paths (not FUSE, whose handles name
   paths; on NFS only handles of Linux's knfsd that hold no parent
   directory, which subtree_check exports add, and of one export);
   otherwise different
   metadata (size, mode, link count, mtime, ctime) from fresh stats.
   Equal subvolume IDs with equal (st_dev, st_ino), equal handles, or
   (st_dev, st_ino) where they identify a file prove "same".  Anything
   else is ALIKE or UNKNOWN.  ALIKE: the metadata agree, and the files
   are non-directories with several links (two links of one file, or a
   copy not changed since: a snapshot keeps the metadata), or no handle
   could have told them apart (then the metadata are all there is, as for
   the stock tools; so do handles of two kinds, which are not compared:
   on NFS, of two exports).  UNKNOWN: handles that name paths differ, for
   a directory or a file with one link (two names, which one file has
   only through a bind mount), or nothing is known.  Callers resolve ALIKE and
   UNKNOWN according to what is at stake:
   - guards that protect data (cp's "are the same file", copying a
     directory into itself, rm's --preserve-root) treat both as SAME,
     as the tools always did;
   - hard-link bookkeeping (du's counting, find -samefile) treats ALIKE
     as SAME and UNKNOWN as DIFFERENT, so that files that may differ are
     never merged; cp -a links an ALIKE pair only after comparing their
     contents;
   - loop detection treats UNKNOWN and ALIKE directories as different,
     but bounds the repetitions of one (dev, ino) on a path
     (file_id_loop_at), so that a walk ends even where directories have
     no identity.  */
enum file_id_answer
{
  FILE_ID_DIFFERENT = 0,
  FILE_ID_SAME = 1,
  FILE_ID_ALIKE = 2,
  FILE_ID_UNKNOWN = -1
};

/* Flags of a struct file_id.  */
enum
{
  /* SUBVOL holds the subvolume ID (0 where the filesystem has none).  */
  FILE_ID_HAS_SUBVOL = 1 << 0,
  /* (dev, subvol, ino) identifies the file: equal keys are one file.  */
  FILE_ID_EXACT = 1 << 1,
  /* The file is a directory.  */
  FILE_ID_DIR = 1 << 2
};

struct file_id_handle;

struct file_id
{
  ino_t ino;
  dev_t dev;
  uint64_t subvol;
  unsigned int flags;
  /* NULL, or a handle from file_id_get_handle, owned by this key.  */
  struct file_id_handle *handle;
};

/* Like fstatat (DIRFD, NAME, ST, FLAGS), and also fill *ID.  It costs one
   statx call, which asks for the subvolume and the mount ID too; a file on
   a mount not met before costs one call more (statmount; before Linux
   6.8 a few: an O_PATH open of its directory, statfs), and on btrfs under
   a kernel without STATX_SUBVOL one ioctl per subvolume.  Another st_dev seen through a mount already met
   (another btrfs subvolume) costs nothing more.  Nothing but a directory
   is ever opened.  Return 0, or -1 with errno set.  */
extern int file_id_stat_at (int dirfd, char const *name, struct stat *st,
                            int flags, struct file_id *id)
  _GL_ATTRIBUTE_NONNULL ((2, 3, 5));

/* Like statx (DIRFD, NAME, FLAGS, MASK, STX), but also ask for the
   subvolume, at no extra cost.  Return 0, or -1 with errno set (ENOSYS
   where the kernel has no statx).  */
struct statx;
extern int file_id_statx (int dirfd, char const *name, int flags,
                          unsigned int mask, struct statx *stx)
  _GL_ATTRIBUTE_NONNULL ((2, 5));

/* Fill *ID for the file that ST or STX (from file_id_statx) describes,
   found as NAME relative to DIRFD, for the rare lookups described at
   file_id_stat_at.  DIRFD may be AT_FDCWD; with NAME null, DIRFD is an
   open descriptor of the file itself, which must be a directory if the
   file is one.  */
extern void file_id_from_stat (struct file_id *id, struct stat const *st,
                               int dirfd, char const *name)
  _GL_ATTRIBUTE_NONNULL ((1, 2));
extern void file_id_from_statx (struct file_id *id, struct statx const *stx,
                                int dirfd, char const *name)
  _GL_ATTRIBUTE_NONNULL ((1, 2));

/* Whether A and B are the same file.  */
extern enum file_id_answer file_id_compare (struct file_id const *a,
                                            struct file_id const *b)
  _GL_ATTRIBUTE_NONNULL ((1, 2)) _GL_ATTRIBUTE_PURE;

/* Two names of files, each with its status: whether they are one file.
   A_ST and B_ST describe the files found as A_NAME relative to A_DIRFD
   and B_NAME relative to B_DIRFD (a null name: the descriptor itself);
   a symbolic link is followed if and only if its status was, i.e. if
   the status is not a symbolic link's.  Nothing is looked up unless the
   two share (st_dev, st_ino); then at most a statfs per filesystem not
   met before and, where that does not settle it, one file handle per
   file; where only metadata differ, they are fetched again with
   AT_STATX_FORCE_SYNC (a FUSE client may cache each name's metadata of
   one file apart), all three of A, B and A again, so that a writer in
   between proves nothing.  */

/* Whether the two may be one file: true unless proven two.  For the
   guards that protect data, which refuse what may be one file (cp's and
   ln's "are the same file", cat's "input file is output file", rm's
   --preserve-root), and the questions whose stock answer is "the same"
   where nothing tells (test -ef, tail -F's "replaced").  */
extern bool file_id_may_be_same (int a_dirfd, char const *a_name,
                                 struct stat const *a_st,
                                 int b_dirfd, char const *b_name,
                                 struct stat const *b_st)
  _GL_ATTRIBUTE_NONNULL ((3, 6));

/* Whether the two are proven one file.  For shortcuts that skip work
   because two names are one file (cp's "specified more than once", a
   comparison that need not read), which must do the work where nothing
   tells.  */
extern bool file_id_proven_same (int a_dirfd, char const *a_name,
                                 struct stat const *a_st,
                                 int b_dirfd, char const *b_name,
                                 struct stat const *b_st)
  _GL_ATTRIBUTE_NONNULL ((3, 6));

/* Loops.  A walk checks each directory it enters against those on its
   path with the same device and inode numbers; so does a resolution of
   symbolic links against the directories where it met each link before.
   Where one st_dev covers several subvolumes, a snapshot within its
   source repeats its source's numbers once on a path, while a loop that
   a view makes itself (a bind mount seen through FUSE) may show new
   file handles and equal metadata at every level, and one through a
   directory that is being written to, new metadata.  */
struct file_id_loop
{
  int alike;            /* matches nothing proves another directory */
  int by_meta;          /* matches proven others by metadata alone */
};

/* Whether DIR, a directory about to be entered (with status DIR_ST, or
   NULL), loops to ANC (status ANC_ST, or NULL), which has its device and
   inode numbers: proven the same directory; or the second such match
   that nothing proves another, with metadata that agree where both
   statuses are given; or the 65th proven another by metadata alone,
   which a writer keeps changing.  Call it for each match, with one
   *LOOP per directory entered, zeroed.  No system call.  */
extern bool file_id_loop_at (struct file_id_loop *loop,
                             struct file_id const *dir,
                             struct stat const *dir_st,
                             struct file_id const *anc,
                             struct stat const *anc_st)
  _GL_ATTRIBUTE_NONNULL ((1, 2, 4));

/* A hash of ID for a table of TABLE_SIZE buckets.  Keys that might be the
   same file (equal dev and ino) hash alike, so that a lookup meets every
   candidate; compare them with file_id_compare.  */
FILE_ID_INLINE size_t _GL_ATTRIBUTE_NONNULL ((1)) _GL_ATTRIBUTE_PURE
file_id_hash (struct file_id const *id, size_t table_size)
{
  /* Stock tar's hash of its link table: tables of the same keys then
     fill and grow as stock's do, whatever device numbers a subvolume and
     its snapshots get (mixing the device in made tar -c cost 0.999 to
     1.022 of stock's instructions by device number; this, 1.011).  As
     with stock's, the copies of one file in K snapshots whose device
     numbers differ in their low bits only share a bucket: tar given the
     K snapshots walks chains of K.  Inline: tables rehash every key as
     they grow.  */
  uintmax_t h = id->ino ^ id->dev;
  return h % table_size;
}

/* Whether ID needs a handle to be told apart from a key with its dev and
   ino: true where the kernel gives no subvolume and the filesystem is
   known to show several inode namespaces under one st_dev (NFS, FUSE,
   other network filesystems, overlayfs and btrfs without STATX_SUBVOL).  */
FILE_ID_INLINE bool _GL_ATTRIBUTE_NONNULL ((1)) _GL_ATTRIBUTE_PURE
file_id_needs_handle (struct file_id const *id)
{
  /* Inline, as file_id_release: tar asks both for every file it
     archives.  */
  return !(id->flags & (FILE_ID_EXACT | FILE_ID_HAS_SUBVOL));
}

/* Whether the device and inode numbers of the file that ST describes,
   found as NAME relative to DIRFD (NAME null: DIRFD itself, which must
   be a directory if the file is one), identify it: for records that keep
   nothing else and outlive the walk that made them (tar -g's snapshot
   file), where a match nothing else can prove must not be taken for the
   same file.  False wherever one st_dev covers several inode namespaces
   or nothing tells (NFS, FUSE, 9p, CIFS, bcachefs, overlayfs over layers
   that do, an unexaminable filesystem), and for the placeholders that
   btrfs snapshots hold for nested subvolumes, which share one st_dev and
   inode number; true on other local filesystems and on btrfs, whose
   subvolumes each have a st_dev.  Costs what file_id_from_stat costs:
   nothing on a filesystem met before.  */
extern bool file_id_numbers_identify (int dirfd, char const *name,
                                      struct stat const *st)
  _GL_ATTRIBUTE_NONNULL ((3));

/* Attach to ID a file handle of NAME relative to DIRFD (NAME null: DIRFD
   itself), with the metadata of ST, which must come from a stat that
   asked for them (size, mode, link count, mtime and ctime): where handles
   cannot tell files apart, different metadata still do.  ST null: no
   metadata, for a file the caller is about to change (a directory it
   copies into).  At most one name_to_handle_at call, none where handles
   prove nothing (9p, CIFS: see file-id.txt) or a sandbox refused one
   already; the file is not opened and a symbolic link is followed only
   with AT_SYMLINK_FOLLOW in FLAGS.  Return 0, or -1 with errno set; *ID
   is then unchanged.  */
extern int file_id_get_handle (struct file_id *id, int dirfd,
                               char const *name, int flags,
                               struct stat const *st)
  _GL_ATTRIBUTE_NONNULL ((1));

/* Free what ID owns (its handle).  */
FILE_ID_INLINE void _GL_ATTRIBUTE_NONNULL ((1))
file_id_release (struct file_id *id)
{
  if (id->handle)
    {
      free (id->handle);
      id->handle = NULL;
    }
}

/* Copy SRC into *DST, with a copy of its handle.  Return 0, or -1 if out
   of memory (*DST then has no handle).  */
extern int file_id_copy (struct file_id *dst, struct file_id const *src)
  _GL_ATTRIBUTE_NONNULL ((1, 2));

/* A compact form of what file_id_compare needs of a key's handle and
   metadata, for sets that keep many keys (file-id-set): the handle's
   type, length and bytes as a 128-bit digest (MurmurHash3, x64 variant),
   the metadata (size, link count, mode, mtime, ctime) as a 56-bit one,
   and in the low 8 bits of META what else the comparison needs.  Only
   keys with equal dev and ino are ever compared, so a false "same" needs
   two of the handles of the files that share one (dev, ino) to collide:
   for N such files (a file and its snapshots' copies), odds below
   N * N / 2**129 for handles not made to collide.  A kernel filesystem
   makes its handles from inode, generation and subvolume numbers, which
   users cannot choose freely, and a server or FUSE daemon that made
   colliding ones could as well lie about identity outright.  So the
   digest is neither keyed (MurmurHash3's known collisions do not depend
   on its seed, so a seed would not help) nor cryptographic: gnulib's
   sha256 costs 3,630 instructions a handle (md5 800), which would add
   58% to tar -c's instructions where every file is digested (two
   operands through bindfs: 6,290 a file).
   Metadata that differ are taken as equal with odds of 2**-56 per pair
   compared, and that only where handles cannot tell (FUSE, whose
   handles name paths).  */
struct file_id_digest
{
  uint64_t handle[2];
  uint64_t meta;
};

/* Store in *D the digest of ID's handle and metadata.  */
extern void file_id_digest_of_handle (struct file_id const *id,
                                      struct file_id_digest *d)
  _GL_ATTRIBUTE_NONNULL ((1, 2));
FILE_ID_INLINE void _GL_ATTRIBUTE_NONNULL ((1, 2))
file_id_digest (struct file_id const *id, struct file_id_digest *d)
{
  /* Inline where there is no handle, as for every key on local
     filesystems: tar -c given two operands digests every file.  The low
     bit of META is the directory bit (DIGEST_DIR, file-id.c).  */
  if (id->handle)
    file_id_digest_of_handle (id, d);
  else
    {
      d->handle[0] = d->handle[1] = 0;
      d->meta = !!(id->flags & FILE_ID_DIR);
    }
}

/* Like file_id_compare, for keys with equal dev and ino that need a
   handle (file_id_needs_handle), from their digests A and B.  */
extern enum file_id_answer
file_id_digest_compare (struct file_id_digest const *a,
                        struct file_id_digest const *b)
  _GL_ATTRIBUTE_NONNULL ((1, 2)) _GL_ATTRIBUTE_PURE;

#ifdef __cplusplus
}
#endif

_GL_INLINE_HEADER_END

#endif /* FILE_ID_H */
