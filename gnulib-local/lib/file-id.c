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

#include <config.h>

#define FILE_ID_INLINE _GL_EXTERN_INLINE
#include "file-id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file-id-fs.h"
#include "flexmember.h"
#include "statx-subvol.h"
#include "u64-table.h"

#if defined __linux__
# include <sys/sysmacros.h>
# define FILE_ID_LINUX 1
#else
# define FILE_ID_LINUX 0
#endif

#ifndef AT_HANDLE_FID
# define AT_HANDLE_FID 0x200
#endif
#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0
#endif

static void
id_init (struct file_id *id, dev_t dev, ino_t ino, mode_t mode)
{
  id->ino = ino;
  id->dev = dev;
  id->subvol = 0;
  id->flags = S_ISDIR (mode) ? FILE_ID_DIR : 0;
  id->handle = NULL;
}

/* Consecutive files nearly always share a st_dev: the facts of the last
   one, where they cannot change while it is seen through one mount;
   LAST_FACTS is -1 if none.  */
static STATX_SUBVOL_THREAD_LOCAL dev_t last_dev;
static STATX_SUBVOL_THREAD_LOCAL int last_facts = -1;
static STATX_SUBVOL_THREAD_LOCAL uint64_t last_subvol;

/* Complete *ID, for which the kernel gave no subvolume.  STATX_SAID
   says whether that is what a statx answered, rather than an fstatat
   that could not ask.  */
static void
id_complete (struct file_id *id, int dirfd, char const *name, bool statx_said)
{
  uint64_t subvol = 0;
  int facts;
  if (0 <= last_facts && last_dev == id->dev)
    {
      facts = last_facts;
      subvol = last_subvol;
    }
  else
    {
      facts = file_id_fs_identify (id->dev, id->ino, dirfd, name,
                                   !!(id->flags & FILE_ID_DIR), statx_said,
                                   &subvol);
      if (facts & FILE_ID_FS_STABLE)
        {
          last_dev = id->dev;
          last_facts = facts;
          last_subvol = subvol;
        }
    }
  if (facts & FILE_ID_FS_EXACT)
    id->flags |= FILE_ID_EXACT;
  if (facts & FILE_ID_FS_SUBVOL)
    {
      id->subvol = subvol;
      id->flags |= FILE_ID_HAS_SUBVOL;
    }
}

void
file_id_from_stat (struct file_id *id, struct stat const *st,
                   int dirfd, char const *name)
{
  id_init (id, st->st_dev, st->st_ino, st->st_mode);
  id_complete (id, dirfd, name, false);
}

#if FILE_ID_LINUX && HAVE_STATX

int
file_id_statx (int dirfd, char const *name, int flags, unsigned int mask,
               struct statx *stx)
{
  /* The subvolume and the mount ID cost nothing more.  */
  /* A caller that asks for the mount ID gets the one it asked for.  */
  return statx_unless_refused (dirfd, name, flags,
                               (mask | STATX_SUBVOL_MASK
                                | (mask & (FILE_ID_STATX_MNT_ID
                                           | FILE_ID_STATX_MNT_ID_UNIQUE)
                                   ? 0 : FILE_ID_STATX_MNT_ID_UNIQUE)),
                               stx);
}

void
file_id_from_statx (struct file_id *id, struct statx const *stx,
                    int dirfd, char const *name)
{
  id_init (id, makedev (stx->stx_dev_major, stx->stx_dev_minor),
           stx->stx_ino, stx->stx_mode);
  if (file_id_fs_note (id->dev, stx))
    last_facts = -1;
  int64_t subvol = statx_subvol (stx);
  if (0 <= subvol)
    {
      id->subvol = subvol;
      id->flags |= FILE_ID_HAS_SUBVOL | FILE_ID_EXACT;
    }
  else
    id_complete (id, dirfd, name, true);
}

/* Inline: fts calls this for every directory, and each instruction
   counts against stock's fstatat.  The fields that struct stat has and
   statx does not (padding) are left as they are: nothing reads them.
   coreutils' src/statx.h has the same function, but in a program's
   header, not gnulib's: findutils has none to share.  */
static inline void
statx_to_stat (struct stat *st, struct statx const *stx)
{
  st->st_dev = makedev (stx->stx_dev_major, stx->stx_dev_minor);
  st->st_ino = stx->stx_ino;
  st->st_mode = stx->stx_mode;
  st->st_nlink = stx->stx_nlink;
  st->st_uid = stx->stx_uid;
  st->st_gid = stx->stx_gid;
  st->st_rdev = makedev (stx->stx_rdev_major, stx->stx_rdev_minor);
  st->st_size = stx->stx_size;
  st->st_blksize = stx->stx_blksize;
  st->st_blocks = stx->stx_blocks;
  st->st_atim.tv_sec = stx->stx_atime.tv_sec;
  st->st_atim.tv_nsec = stx->stx_atime.tv_nsec;
  st->st_mtim.tv_sec = stx->stx_mtime.tv_sec;
  st->st_mtim.tv_nsec = stx->stx_mtime.tv_nsec;
  st->st_ctim.tv_sec = stx->stx_ctime.tv_sec;
  st->st_ctim.tv_nsec = stx->stx_ctime.tv_nsec;
}

/* The name that NAME with FLAGS is for fstatat, for opening: "" with
   AT_EMPTY_PATH is DIRFD itself, and opening "" relative to it would
   fail.  */
static char const *
stat_at_name (char const *name, int flags)
{
  return (flags & AT_EMPTY_PATH) && !*name ? NULL : name;
}

/* file_id_stat_at where statx failed: out of line, so that the common
   case costs fewer instructions.  */
static _GL_ATTRIBUTE_NOINLINE int
stat_at_fallback (int dirfd, char const *name, struct stat *st, int flags,
                  struct file_id *id)
{
  if (!statx_note_refusal ())
    return -1;
  if (fstatat (dirfd, name, st, flags) != 0)
    return -1;
  file_id_from_stat (id, st, dirfd, stat_at_name (name, flags));
  return 0;
}

int
file_id_stat_at (int dirfd, char const *name, struct stat *st, int flags,
                 struct file_id *id)
{
  struct statx stx;
  /* fstatat never triggers an automount; neither must this.  The common
     case is written out here, since fts calls this for every directory:
     what file_id_from_statx does, without the calls.  */
  if (!statx_refused
      && statx (dirfd, name, flags | AT_NO_AUTOMOUNT,
                (STATX_BASIC_STATS | STATX_SUBVOL_MASK
                 | FILE_ID_STATX_MNT_ID_UNIQUE),
                &stx) == 0)
    {
      statx_to_stat (st, &stx);
      id->ino = st->st_ino;
      id->dev = st->st_dev;
      id->handle = NULL;
      id->flags = S_ISDIR (st->st_mode) ? FILE_ID_DIR : 0;
      if (file_id_fs_note (id->dev, &stx))
        last_facts = -1;
      int64_t subvol = statx_subvol (&stx);
      if (0 <= subvol)
        {
          id->subvol = subvol;
          id->flags |= FILE_ID_HAS_SUBVOL | FILE_ID_EXACT;
        }
      else
        {
          id->subvol = 0;
          id_complete (id, dirfd, stat_at_name (name, flags), true);
        }
      return 0;
    }
  return stat_at_fallback (dirfd, name, st, flags, id);
}

#else /* !(FILE_ID_LINUX && HAVE_STATX) */

int
file_id_statx (int dirfd, char const *name, int flags, unsigned int mask,
               struct statx *stx)
{
  (void) dirfd, (void) name, (void) flags, (void) mask, (void) stx;
  errno = ENOSYS;
  return -1;
}

void
file_id_from_statx (struct file_id *id, struct statx const *stx,
                    int dirfd, char const *name)
{
  /* No statx here, so no caller has a struct statx to give: an empty
     key that is never exact, rather than a crash.  */
  (void) stx, (void) dirfd, (void) name;
  id_init (id, 0, 0, 0);
}

int
file_id_stat_at (int dirfd, char const *name, struct stat *st, int flags,
                 struct file_id *id)
{
  if (fstatat (dirfd, name, st, flags) != 0)
    return -1;
  file_id_from_stat (id, st, dirfd,
                     (flags & AT_EMPTY_PATH) && !*name ? NULL : name);
  return 0;
}

#endif

/* File handles.  */

struct file_id_handle
{
  /* The metadata that tell files apart where handles cannot, if
     HAS_META.  */
  off_t size;
  nlink_t nlink;
  mode_t mode;
  struct timespec mtime;
  struct timespec ctime;
  int type;
  unsigned int bytes;           /* 0 if KIND is FILE_ID_HANDLES_NONE */
  unsigned char kind;           /* enum file_id_handles, never NFS */
  bool has_meta;
  unsigned char f_handle[FLEXIBLE_ARRAY_MEMBER];
};

#if FILE_ID_LINUX && HAVE_NAME_TO_HANDLE_AT && defined MAX_HANDLE_SZ
/* Whether the kernel refused AT_HANDLE_FID (before Linux 6.5).  */
static STATX_SUBVOL_THREAD_LOCAL bool no_handle_fid;
/* Whether name_to_handle_at is missing, or refused by a sandbox.  */
static STATX_SUBVOL_THREAD_LOCAL bool no_handles;

/* The length of the file system ID that a handle of knfsd, Linux's NFS
   server, holds for the ID type TYPE (fs/nfsd/nfsfh.h, key_len), or -1
   if TYPE is unknown.  */
static int
knfsd_fsid_len (unsigned char type)
{
  static signed char const len[] = { 8, 4, 12, 8, 8, 8, 16, 24 };
  return type < sizeof len ? len[type] : -1;
}

/* The length of a file ID of type TYPE (<linux/exportfs.h>) that names
   a file and no directory it is in, or -1 for types that hold a parent,
   and for those not known here.  */
static int
parentless_fid_len (unsigned char type)
{
  switch (type)
    {
    case 0x00: return 0;        /* FILEID_ROOT: the export's root */
    case 0x01: return 8;        /* FILEID_INO32_GEN */
    case 0x4d: return 20;       /* FILEID_BTRFS_WITHOUT_PARENT */
    case 0x81: return 12;       /* FILEID_INO64_GEN, XFS's 64-bit one */
    case 0xb1: return 16;       /* FILEID_BCACHEFS_WITHOUT_PARENT */
    default: return -1;
    }
}

/* Whether FH, a knfsd handle on DEV whose fsid has FSID_LEN bytes, is of
   the export, and of the file ID type, of the first such handles met on
   DEV.  Two exports of one server filesystem (/srv and /srv/sub, without
   fsid=) can share one client superblock, hence one st_dev, and knfsd
   gives a file a handle per export; and a filesystem can change its
   type (XFS remounted between inode32 and inode64) while clients keep
   the old handles.  Handles of two exports or two types tell nothing.  */
static bool
nfs_export_first (dev_t dev, unsigned char const *fh, int fsid_len)
{
  /* FH[3], the file ID type, is FILEID_ROOT for the export's root.  */
  unsigned char key[FILE_ID_NFS_EXPORT_MAX];
  int len = 3 + fsid_len;
  if (FILE_ID_NFS_EXPORT_MAX < len)
    return false;
  memcpy (key, fh, 3);
  memcpy (key + 3, fh + 4, fsid_len);
  return file_id_fs_nfs_export (dev, key, len, fh[3]);
}

/* Whether the file ID FID, of type TYPE, begins with INO, the inode
   number of the file it is said to name, in either byte order (the
   server's).  A FUSE filesystem exported by knfsd encodes its node ID,
   which high-level daemons give each name of a file apart, in the format
   of XFS's 64-bit handles: its handles then name paths.  */
static bool
nfs_fid_has_ino (unsigned char type, unsigned char const *fid, ino_t ino)
{
  if (type == 0x00)
    return true;
  int n = type == 0x01 ? 4 : 8;
  uint64_t le = 0, be = 0;
  for (int i = 0; i < n; i++)
    {
      le |= (uint64_t) fid[i] << (8 * i);
      be = be << 8 | fid[i];
    }
  return le == ino || be == ino;
}

/* The kind of the handle H of BYTES bytes that the Linux NFS client gave
   for a file on DEV.  It embeds the server's handle (fs/nfs/export.c:
   the 64-bit file ID, the file type, then a struct nfs_fh, a 16-bit
   length and the bytes).  That names a file only in a format known to
   carry no parent: knfsd's version 1 with a file ID type without parent
   that holds INO, the file's inode number, and of the export and type of
   the first such handles on DEV.  With the export option subtree_check,
   knfsd puts the parent directory in the handles of other files than
   directories, and two hard links in two directories get two handles;
   other servers' formats are unknown.  */
static enum file_id_handles
nfs_handle_kind (dev_t dev, ino_t ino, unsigned char const *h,
                 unsigned int bytes)
{
  enum { SIZE_OFFSET = 12, DATA_OFFSET = SIZE_OFFSET + 2 };
  unsigned short size;
  if (bytes < DATA_OFFSET)
    return FILE_ID_HANDLES_PATH;
  memcpy (&size, h + SIZE_OFFSET, sizeof size);
  if (bytes - DATA_OFFSET < size || size < 4)
    return FILE_ID_HANDLES_PATH;
  unsigned char const *fh = h + DATA_OFFSET;
  int fsid_len = knfsd_fsid_len (fh[2]);
  int fid_len = parentless_fid_len (fh[3]);
  return (fh[0] == 1 && fh[1] == 0 && 0 <= fsid_len && 0 <= fid_len
          && size == 4 + fsid_len + fid_len
          && nfs_fid_has_ino (fh[3], fh + 4 + fsid_len, ino)
          && nfs_export_first (dev, fh, fsid_len)
          ? FILE_ID_HANDLES_FILE : FILE_ID_HANDLES_PATH);
}
#endif

int
file_id_get_handle (struct file_id *id, int dirfd, char const *name,
                    int flags, struct stat const *st)
{
  enum file_id_handles kind = file_id_fs_handles (id->dev);
  int type = -1;
  unsigned int bytes = 0;
#if FILE_ID_LINUX && HAVE_NAME_TO_HANDLE_AT && defined MAX_HANDLE_SZ
  union
  {
    struct file_handle fh;
    unsigned char buf[sizeof (struct file_handle) + MAX_HANDLE_SZ];
  } u;
  /* A handle that proves nothing is not worth a system call.  */
  if (kind != FILE_ID_HANDLES_NONE && !no_handles)
    {
      int mnt_id;
      int hflags = ((flags & AT_SYMLINK_FOLLOW) ? AT_SYMLINK_FOLLOW : 0)
                   | (name ? 0 : AT_EMPTY_PATH);
      char const *hname = name ? name : "";
      int r = -1;
      /* A FID is all we need (we never open by handle), and some
         filesystems (overlayfs) give only that.  */
      if (!no_handle_fid)
        {
          u.fh.handle_bytes = MAX_HANDLE_SZ;
          r = name_to_handle_at (dirfd, hname, &u.fh, &mnt_id,
                                 hflags | AT_HANDLE_FID);
          if (r != 0 && errno == EINVAL)
            no_handle_fid = true;
        }
      if (r != 0 && no_handle_fid)
        {
          u.fh.handle_bytes = MAX_HANDLE_SZ;
          r = name_to_handle_at (dirfd, hname, &u.fh, &mnt_id, hflags);
        }
      if (r == 0)
        {
          type = u.fh.handle_type;
          bytes = u.fh.handle_bytes;
          if (kind == FILE_ID_HANDLES_NFS)
            kind = nfs_handle_kind (id->dev, id->ino, u.fh.f_handle, bytes);
        }
      else if (errno == ENOSYS || errno == EPERM)
        {
          /* Not here at all, or refused by a sandbox: the metadata
             alone still tell apart files that differ.  */
          no_handles = true;
          kind = FILE_ID_HANDLES_NONE;
        }
      else if (errno == EOPNOTSUPP)
        {
          /* A filesystem that cannot encode handles (overlayfs before
             Linux 6.6 without nfs_export).  */
          file_id_fs_no_handles (id->dev);
          kind = FILE_ID_HANDLES_NONE;
        }
      else
        return -1;
    }
  else
    kind = FILE_ID_HANDLES_NONE;
#else
  (void) dirfd, (void) name, (void) flags;
  kind = FILE_ID_HANDLES_NONE;
#endif
  if (kind == FILE_ID_HANDLES_NONE)
    bytes = 0;
  struct file_id_handle *h
    = malloc (FLEXSIZEOF (struct file_id_handle, f_handle, bytes));
  if (!h)
    return -1;
  h->has_meta = !!st;
  if (st)
    {
      h->size = st->st_size;
      h->nlink = st->st_nlink;
      h->mode = st->st_mode;
      h->mtime = st->st_mtim;
      h->ctime = st->st_ctim;
    }
  h->type = type;
  h->bytes = bytes;
  h->kind = kind;
#if FILE_ID_LINUX && HAVE_NAME_TO_HANDLE_AT && defined MAX_HANDLE_SZ
  memcpy (h->f_handle, u.fh.f_handle, bytes);
#endif
  free (id->handle);
  id->handle = h;
  return 0;
}

int
file_id_copy (struct file_id *dst, struct file_id const *src)
{
  *dst = *src;
  if (!src->handle)
    return 0;
  size_t n = FLEXSIZEOF (struct file_id_handle, f_handle, src->handle->bytes);
  dst->handle = malloc (n);
  if (!dst->handle)
    return -1;
  memcpy (dst->handle, src->handle, n);
  return 0;
}

static bool
timespec_eq (struct timespec a, struct timespec b)
{
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

enum file_id_answer
file_id_compare (struct file_id const *a, struct file_id const *b)
{
  if (a->ino != b->ino || a->dev != b->dev
      || ((a->flags ^ b->flags) & FILE_ID_DIR))
    return FILE_ID_DIFFERENT;
  if (a->flags & b->flags & FILE_ID_HAS_SUBVOL)
    return a->subvol == b->subvol ? FILE_ID_SAME : FILE_ID_DIFFERENT;
  if (a->flags & b->flags & FILE_ID_EXACT)
    return FILE_ID_SAME;
  struct file_id_handle const *ha = a->handle;
  struct file_id_handle const *hb = b->handle;
  if (!ha || !hb)
    return FILE_ID_UNKNOWN;
  /* Handles of two kinds are not compared.  On NFS they are one of the
     first export met on the st_dev, which identifies its file, and one
     of another export of the server's filesystem (/srv/sub seen as a
     directory of /srv and as its own export's root), which tells nothing
     (nfs_handle_kind): as where no handle could be had.  */
  bool handles = (ha->kind != FILE_ID_HANDLES_NONE && ha->kind == hb->kind);
  if (handles)
    {
      if (ha->type == hb->type && ha->bytes == hb->bytes
          && memcmp (ha->f_handle, hb->f_handle, ha->bytes) == 0)
        return FILE_ID_SAME;
      if (ha->kind == FILE_ID_HANDLES_FILE && hb->kind == FILE_ID_HANDLES_FILE)
        return FILE_ID_DIFFERENT;
    }
  /* The handles prove nothing.  Files whose metadata differ are
     different files.  Files that agree are alike if they have several
     links: hard links of one file, or copies with the same metadata (a
     snapshot's copy keeps them until it is changed, and a change within
     one tick of a coarse clock may keep them too).  With one link, or for
     directories, different handles that name paths say that they are two
     names, which one file has only through a bind mount: unknown.  Where
     no handle could have said anything, (st_dev, st_ino) and metadata
     are all there is, as for the stock tools: alike.  */
  if (!ha->has_meta || !hb->has_meta)
    return FILE_ID_UNKNOWN;
  if (ha->size != hb->size || ha->nlink != hb->nlink || ha->mode != hb->mode
      || !timespec_eq (ha->mtime, hb->mtime)
      || !timespec_eq (ha->ctime, hb->ctime))
    return FILE_ID_DIFFERENT;
  return (!handles || (!(a->flags & FILE_ID_DIR) && 1 < ha->nlink)
          ? FILE_ID_ALIKE : FILE_ID_UNKNOWN);
}

/* Whether the keys A and B, which file_id_compare calls different, are
   so only by their metadata, which handles that do not tell files apart
   leave as the only evidence.  */
static bool
different_by_meta (struct file_id const *a, struct file_id const *b)
{
  struct file_id_handle const *ha = a->handle;
  struct file_id_handle const *hb = b->handle;
  return (!((a->flags ^ b->flags) & FILE_ID_DIR)
          && !(a->flags & b->flags & FILE_ID_HAS_SUBVOL)
          && ha && hb
          && !(ha->kind == FILE_ID_HANDLES_FILE
               && hb->kind == FILE_ID_HANDLES_FILE));
}

/* Fetch afresh (AT_STATX_FORCE_SYNC) into *FRESH the status of NAME
   relative to DIRFD (NAME null: DIRFD itself), the file that ST
   describes: a FUSE or NFS client may cache another name's metadata of
   one file from before a change made through this one.  Return 0 if the
   file is still the one ST describes, else -1.  */
static int
fresh_stat (int dirfd, char const *name, struct stat const *st,
            struct stat *fresh)
{
#if FILE_ID_LINUX && HAVE_STATX && defined AT_STATX_FORCE_SYNC
  struct statx stx;
  int follow = S_ISLNK (st->st_mode) ? AT_SYMLINK_NOFOLLOW : 0;
  if (statx_unless_refused (dirfd, name ? name : "",
                            (follow | AT_STATX_FORCE_SYNC | AT_NO_AUTOMOUNT
                             | (name ? 0 : AT_EMPTY_PATH)),
                            STATX_BASIC_STATS, &stx) != 0)
    return -1;
  statx_to_stat (fresh, &stx);
  return fresh->st_dev == st->st_dev && fresh->st_ino == st->st_ino ? 0 : -1;
#else
  (void) dirfd, (void) name, (void) st, (void) fresh;
  errno = ENOSYS;
  return -1;
#endif
}

/* The key of NAME relative to DIRFD, with its handle, from the fresh
   status FRESH, into *ID.  Return 0, or -1.  */
static int
fresh_id (struct file_id *id, int dirfd, char const *name,
          struct stat const *fresh)
{
  file_id_from_stat (id, fresh, dirfd, name);
  return file_id_get_handle (id, dirfd, name,
                             S_ISLNK (fresh->st_mode) ? 0 : AT_SYMLINK_FOLLOW,
                             fresh);
}

/* Whether A and B hold the same metadata, as file_id_compare compares
   them.  */
static bool
same_meta (struct stat const *a, struct stat const *b)
{
  return (a->st_size == b->st_size && a->st_nlink == b->st_nlink
          && a->st_mode == b->st_mode
          && timespec_eq (a->st_mtim, b->st_mtim)
          && timespec_eq (a->st_ctim, b->st_ctim));
}

/* Whether the files that A_ST and B_ST describe are one file, as
   file_id_may_be_same and file_id_proven_same say.  */
static enum file_id_answer
same_file_at (int a_dirfd, char const *a_name, struct stat const *a_st,
              int b_dirfd, char const *b_name, struct stat const *b_st)
{
  if (a_st->st_ino != b_st->st_ino || a_st->st_dev != b_st->st_dev)
    return FILE_ID_DIFFERENT;
  struct file_id a, b;
  file_id_from_stat (&a, a_st, a_dirfd, a_name);
  file_id_from_stat (&b, b_st, b_dirfd, b_name);
  enum file_id_answer r = file_id_compare (&a, &b);
  if (r == FILE_ID_UNKNOWN
      && file_id_get_handle (&a, a_dirfd, a_name,
                             S_ISLNK (a_st->st_mode) ? 0 : AT_SYMLINK_FOLLOW,
                             a_st) == 0
      && file_id_get_handle (&b, b_dirfd, b_name,
                             S_ISLNK (b_st->st_mode) ? 0 : AT_SYMLINK_FOLLOW,
                             b_st) == 0)
    {
      r = file_id_compare (&a, &b);
      /* Metadata that differ prove two files only if both are fresh
         (the caller's two stats may have come from two caches) and A's
         did not change while B's were fetched (a writer in between).  */
      if (r == FILE_ID_DIFFERENT && different_by_meta (&a, &b))
        {
          struct stat fa, fb, fa2;
          file_id_release (&a);
          file_id_release (&b);
          r = (fresh_stat (a_dirfd, a_name, a_st, &fa) == 0
               && fresh_stat (b_dirfd, b_name, b_st, &fb) == 0
               && fresh_stat (a_dirfd, a_name, a_st, &fa2) == 0
               && same_meta (&fa, &fa2)
               && fresh_id (&a, a_dirfd, a_name, &fa) == 0
               && fresh_id (&b, b_dirfd, b_name, &fb) == 0
               ? file_id_compare (&a, &b) : FILE_ID_UNKNOWN);
        }
    }
  file_id_release (&a);
  file_id_release (&b);
  return r;
}

bool
file_id_may_be_same (int a_dirfd, char const *a_name, struct stat const *a_st,
                     int b_dirfd, char const *b_name, struct stat const *b_st)
{
  return (a_st->st_ino == b_st->st_ino && a_st->st_dev == b_st->st_dev
          && (same_file_at (a_dirfd, a_name, a_st, b_dirfd, b_name, b_st)
              != FILE_ID_DIFFERENT));
}

bool
file_id_proven_same (int a_dirfd, char const *a_name, struct stat const *a_st,
                     int b_dirfd, char const *b_name, struct stat const *b_st)
{
  return (a_st->st_ino == b_st->st_ino && a_st->st_dev == b_st->st_dev
          && (same_file_at (a_dirfd, a_name, a_st, b_dirfd, b_name, b_st)
              == FILE_ID_SAME));
}

/* A loop that metadata alone keep telling apart ends after this many.  */
enum { LOOP_BY_META_MAX = 64 };

bool
file_id_loop_at (struct file_id_loop *loop,
                 struct file_id const *dir, struct stat const *dir_st,
                 struct file_id const *anc, struct stat const *anc_st)
{
  if (dir->ino != anc->ino || dir->dev != anc->dev)
    return false;
  enum file_id_answer r = file_id_compare (dir, anc);
  if (r == FILE_ID_SAME)
    return true;
  if (r == FILE_ID_DIFFERENT
      ? different_by_meta (dir, anc)
      : dir_st && anc_st && !same_meta (dir_st, anc_st))
    return LOOP_BY_META_MAX < ++loop->by_meta;
  return r != FILE_ID_DIFFERENT && ++loop->alike == 2;
}

/* Digests.  */

static uint64_t
rotl64 (uint64_t x, int r)
{
  return (x << r) | (x >> (64 - r));
}

static uint64_t
get64 (unsigned char const *p)
{
  uint64_t v = 0;
  for (int i = 7; 0 <= i; i--)
    v = v << 8 | p[i];
  return v;
}

/* Store in OUT the 128-bit MurmurHash3 (x64 variant, by Austin Appleby,
   public domain) of the LEN bytes at DATA with SEED.  Bytes are read
   little-endian whatever the host's order.  */
static void
murmur3_128 (void const *data, size_t len, uint32_t seed, uint64_t out[2])
{
  unsigned char const *p = data;
  size_t nblocks = len / 16;
  uint64_t h1 = seed, h2 = seed;
  uint64_t const c1 = 0x87c37b91114253d5u, c2 = 0x4cf5ad432745937fu;
  for (size_t i = 0; i < nblocks; i++, p += 16)
    {
      uint64_t k1 = get64 (p), k2 = get64 (p + 8);
      k1 *= c1; k1 = rotl64 (k1, 31); k1 *= c2; h1 ^= k1;
      h1 = rotl64 (h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
      k2 *= c2; k2 = rotl64 (k2, 33); k2 *= c1; h2 ^= k2;
      h2 = rotl64 (h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
  uint64_t k1 = 0, k2 = 0;
  size_t tail = len & 15;
  for (size_t i = tail; 8 < i; i--)
    k2 = k2 << 8 | p[i - 1];
  if (8 < tail)
    {
      k2 *= c2; k2 = rotl64 (k2, 33); k2 *= c1; h2 ^= k2;
    }
  for (size_t i = tail < 8 ? tail : 8; 0 < i; i--)
    k1 = k1 << 8 | p[i - 1];
  if (tail)
    {
      k1 *= c1; k1 = rotl64 (k1, 31); k1 *= c2; h1 ^= k1;
    }
  h1 ^= len; h2 ^= len;
  h1 += h2; h2 += h1;
  h1 = u64_table_mix (h1); h2 = u64_table_mix (h2);
  h1 += h2; h2 += h1;
  out[0] = h1;
  out[1] = h2;
}

/* The low 8 bits of a struct file_id_digest's META.  */
enum
{
  DIGEST_DIR = 1 << 0,          /* the file is a directory (file-id.h's
                                   file_id_digest knows this bit) */
  DIGEST_HANDLE = 1 << 1,       /* the key had a handle */
  DIGEST_META = 1 << 2,         /* the handle had metadata */
  DIGEST_LINKS = 1 << 3,        /* the file has several links */
  DIGEST_KIND_SHIFT = 4,        /* then the handle's enum file_id_handles */
  DIGEST_KIND_MASK = 3 << DIGEST_KIND_SHIFT,
  DIGEST_FLAGS = 0xff
};

void
file_id_digest_of_handle (struct file_id const *id, struct file_id_digest *d)
{
  struct file_id_handle const *h = id->handle;
  d->handle[0] = d->handle[1] = 0;
  d->meta = id->flags & FILE_ID_DIR ? DIGEST_DIR : 0;
  if (!h)
    return;
  d->meta |= DIGEST_HANDLE | h->kind << DIGEST_KIND_SHIFT;
  if (h->kind != FILE_ID_HANDLES_NONE)
    {
      /* The type, the length and the bytes, as file_id_compare compares
         them.  A handle holds at most MAX_HANDLE_SZ (128) bytes.  */
      unsigned char buf[8 + 128];
      unsigned int n = h->bytes < 128 ? h->bytes : 128;
      uint32_t type = h->type, bytes = h->bytes;
      for (int i = 0; i < 4; i++)
        {
          buf[i] = type >> (8 * i);
          buf[4 + i] = bytes >> (8 * i);
        }
      memcpy (buf + 8, h->f_handle, n);
      murmur3_128 (buf, 8 + n, 0, d->handle);
    }
  if (h->has_meta)
    {
      uint64_t m[7] = { h->size, h->nlink, h->mode,
                        h->mtime.tv_sec, h->mtime.tv_nsec,
                        h->ctime.tv_sec, h->ctime.tv_nsec };
      unsigned char buf[sizeof m];
      for (size_t i = 0; i < sizeof m; i++)
        buf[i] = m[i / 8] >> (8 * (i % 8));
      uint64_t out[2];
      murmur3_128 (buf, sizeof buf, 1, out);
      d->meta |= ((out[0] & ~(uint64_t) DIGEST_FLAGS) | DIGEST_META
                  | (1 < h->nlink ? DIGEST_LINKS : 0));
    }
}

enum file_id_answer
file_id_digest_compare (struct file_id_digest const *a,
                        struct file_id_digest const *b)
{
  /* As file_id_compare does with the keys' handles and metadata.  */
  unsigned int fa = a->meta & DIGEST_FLAGS, fb = b->meta & DIGEST_FLAGS;
  if ((fa ^ fb) & DIGEST_DIR)
    return FILE_ID_DIFFERENT;
  if (!(fa & fb & DIGEST_HANDLE))
    return FILE_ID_UNKNOWN;
  int ka = (fa & DIGEST_KIND_MASK) >> DIGEST_KIND_SHIFT;
  int kb = (fb & DIGEST_KIND_MASK) >> DIGEST_KIND_SHIFT;
  bool handles = ka != FILE_ID_HANDLES_NONE && ka == kb;
  if (handles)
    {
      if (a->handle[0] == b->handle[0] && a->handle[1] == b->handle[1])
        return FILE_ID_SAME;
      if (ka == FILE_ID_HANDLES_FILE && kb == FILE_ID_HANDLES_FILE)
        return FILE_ID_DIFFERENT;
    }
  if (!(fa & fb & DIGEST_META))
    return FILE_ID_UNKNOWN;
  if ((a->meta ^ b->meta) & ~(uint64_t) DIGEST_FLAGS)
    return FILE_ID_DIFFERENT;
  return (!handles || (!(fa & DIGEST_DIR) && (fa & DIGEST_LINKS))
          ? FILE_ID_ALIKE : FILE_ID_UNKNOWN);
}

bool
file_id_numbers_identify (int dirfd, char const *name, struct stat const *st)
{
  /* From a stat, not a statx: a key has a subvolume only where the
     filesystem was examined as btrfs, which gives each subvolume a st_dev
     of its own; bcachefs, whose subvolumes share one, is not exact.
     file_id_compare takes btrfs's placeholders for one directory, as
     stock tools do (they are empty and read-only); a record must not.  */
  struct file_id id;
  file_id_from_stat (&id, st, dirfd, name);
  return (!file_id_needs_handle (&id)
          && !(S_ISDIR (st->st_mode)
               && file_id_fs_btrfs_placeholder (st->st_dev, st->st_ino)));
}

