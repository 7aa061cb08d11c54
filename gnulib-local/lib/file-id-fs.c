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

#include <config.h>

#include "file-id-fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statx-subvol.h"
#include "u64-table.h"

#if defined __linux__
# include <sys/ioctl.h>
# include <sys/statfs.h>
# include <sys/syscall.h>
# include <sys/sysmacros.h>
# include <sys/utsname.h>
# if HAVE_LINUX_BTRFS_H
#  include <linux/btrfs.h>
# endif
# include <linux/fs.h>
# include <linux/magic.h>
/* Not in older kernels' <linux/magic.h> (Linux 6.1's).  */
# ifndef BCACHEFS_SUPER_MAGIC
#  define BCACHEFS_SUPER_MAGIC 0xca451a4e
# endif
# define FILE_ID_LINUX 1
#else
# define FILE_ID_LINUX 0
#endif

#if FILE_ID_LINUX && HAVE_STATX
# define HAVE_STX_MNT_ID (FILE_ID_STATX_MNT_ID != 0)
#else
# define HAVE_STX_MNT_ID 0
#endif

#ifndef AT_EMPTY_PATH
# define AT_EMPTY_PATH 0
#endif
#ifndef FS_IOC_GETFSUUID
struct fsuuid2
{
  uint8_t len;
  uint8_t uuid[16];
};
# define FS_IOC_GETFSUUID _IOR (0x15, 0, struct fsuuid2)
#endif

/* Other errors (EMFILE, ENOMEM, a file renamed meanwhile) are no fact
   about the filesystem and are never remembered as one.  */
bool
file_id_fs_unavailable (int err)
{
  return (err == ENOSYS || err == EPERM || err == EACCES || err == ENOTTY
          || err == EOPNOTSUPP || err == ENOTSUP || err == EINVAL);
}

/* What is known of one filesystem instance (one st_dev).  */
enum
{
  FS_MULTIPLEX = 1 << 0,        /* (dev, ino) alone may not identify a file */
  FS_SUBVOL = 1 << 2,           /* SUBVOL is the dev's subvolume */
  FS_UUID_TRIED = 1 << 3,
  FS_HAS_UUID = 1 << 4,
  FS_LEARNED = 1 << 5,          /* fs_learn has examined it */
  FS_TYPE_KNOWN = 1 << 6,       /* F_TYPE holds the filesystem's type */
  FS_MNT_ID = 1 << 7,           /* MNT_ID holds the ID of a mount of it */
  FS_SUBVOL_SEEN = 1 << 8       /* statx gave SUBVOL, not yet learned */
};
struct fs_info
{
  dev_t dev;
  unsigned int flags;
  unsigned char handles;        /* enum file_id_handles */
  uint64_t subvol;
  uint64_t mnt_id;
  unsigned long f_type;
  unsigned char uuid[16];
  /* The export and file ID type of the first knfsd handles met.  */
  unsigned char nfs_len;        /* 0: none met yet */
  unsigned char nfs_fid_type;   /* 0: none met yet */
  unsigned char nfs_export[FILE_ID_NFS_EXPORT_MAX];
};

/* What is known of each st_dev met, and the last one found: consecutive
   files nearly always share one.  Entries are never freed or moved.
   Anonymous device numbers (tmpfs, FUSE, NFS, btrfs subvolumes) are
   reused as soon as a filesystem is unmounted, so an entry is forgotten
   when a statx shows its st_dev through a mount that it was not learned
   through (see notes_flush).  */
static STATX_SUBVOL_THREAD_LOCAL struct u64_table fs_table
  = { .map = true };
static STATX_SUBVOL_THREAD_LOCAL struct fs_info *fs_last;

static struct fs_info *
fs_find (dev_t dev)
{
  if (fs_last && fs_last->dev == dev)
    return fs_last;
  struct fs_info *fi = u64_table_get (&fs_table, dev);
  if (fi)
    fs_last = fi;
  return fi;
}

/* Return DEV's entry, adding one if there is none.  Return NULL if out of
   memory, in which case callers answer as if nothing were known.  */
static struct fs_info *
fs_get_raw (dev_t dev)
{
  if (fs_last && fs_last->dev == dev)
    return fs_last;
  void **slot = u64_table_ref (&fs_table, dev);
  if (!slot)
    return NULL;
  struct fs_info *fi = *slot;
  if (!fi)
    {
      /* Entries are carved from blocks: one malloc per 256 st_devs, few
         long-lived blocks amid the caller's allocations.  */
      static STATX_SUBVOL_THREAD_LOCAL struct fs_info *block;
      static STATX_SUBVOL_THREAD_LOCAL size_t block_left;
      if (!block_left)
        {
          enum { N = 256 };
          struct fs_info *b = malloc (N * sizeof *b);
          if (!b)
            return NULL;
          block = b;
          block_left = N;
        }
      fi = block++;
      block_left--;
      *fi = (struct fs_info) { .dev = dev };
      *slot = fi;
    }
  fs_last = fi;
  return fi;
}

/* What statx said of st_dev values, in the order met: the mount each was
   seen through, and its subvolume (-1: none, or a btrfs placeholder's).
   file_id_fs_note only appends here; the table takes them in when
   something needs it (fs_get), so a walk that never examines a
   filesystem (find on local btrfs, where statx gives every directory's
   subvolume) pays no more than an append per subvolume.  */
struct fs_noted
{
  dev_t dev;
  uint64_t mnt_id;
  int64_t subvol;
};
static STATX_SUBVOL_THREAD_LOCAL struct fs_noted *noted;
static STATX_SUBVOL_THREAD_LOCAL size_t noted_count;
static STATX_SUBVOL_THREAD_LOCAL size_t noted_alloc;
/* The note made last, if NOTED_ANY.  */
static STATX_SUBVOL_THREAD_LOCAL struct fs_noted noted_last;
static STATX_SUBVOL_THREAD_LOCAL bool noted_any;

/* The flags of what is learned, not merely noted, of a st_dev.  */
enum { FS_FACTS = FS_LEARNED | FS_TYPE_KNOWN | FS_UUID_TRIED };

static void fs_forget (struct fs_info *fi);
static bool mount_has_facts (uint64_t mnt_id, struct fs_info const *fi);

/* Enter note N into the table.  A st_dev seen through a mount that its
   entry was not learned through, nor registered for since, may be
   another filesystem's: one unmounted and another mounted meanwhile.
   Mount IDs that statx gives with STATX_MNT_ID_UNIQUE are never reused,
   so the entry is then forgotten and learned again; so is one learned
   without a mount ID (from fstatat alone).  That costs a learning each
   time a st_dev's files are met through another bind mount of its
   filesystem than the last: a learning from the mount's facts, at no
   system call, where that mount was examined.  */
static void
note_enter (struct fs_noted const *n)
{
  struct fs_info *fi = fs_get_raw (n->dev);
  if (!fi)
    return;
  if (fi->flags & FS_MNT_ID
      ? fi->mnt_id != n->mnt_id && !mount_has_facts (n->mnt_id, fi)
      : fi->flags & FS_FACTS)
    fs_forget (fi);
  if (fi->flags & FS_LEARNED)
    return;
  fi->mnt_id = n->mnt_id;
  fi->flags |= FS_MNT_ID;
  if (0 <= n->subvol)
    {
      fi->subvol = n->subvol;
      fi->flags |= FS_SUBVOL_SEEN;
    }
}

/* Enter the noted st_dev values into the table.  */
static void
notes_flush (void)
{
  for (size_t i = 0; i < noted_count; i++)
    note_enter (&noted[i]);
  noted_count = 0;
}

/* DEV's entry, with what was noted of it, added if new; NULL if out of
   memory.  */
static struct fs_info *
fs_get (dev_t dev)
{
  if (noted_count)
    notes_flush ();
  return fs_get_raw (dev);
}

/* The entries that fs_learn examined, by the ID of the mount it looked
   through (STATX_MNT_ID_UNIQUE: never reused).  Every st_dev seen
   through one mount belongs to its superblock: the same type and the
   same facts, only the subvolume differs.  So a st_dev first seen
   through a known mount (one per btrfs subvolume) is learned from that
   mount's entry at no system call.  */
static STATX_SUBVOL_THREAD_LOCAL struct u64_table mount_facts
  = { .map = true };

/* Whether FI holds what was learned through the mount with ID MNT_ID:
   it was learned through that mount (and may have been learned again,
   from another mount of the same filesystem, while that one lived).  */
static bool
mount_has_facts (uint64_t mnt_id, struct fs_info const *fi)
{
  return ((fi->flags & FS_LEARNED)
          && u64_table_get (&mount_facts, mnt_id) == fi);
}

#if FILE_ID_LINUX
/* The entry that holds what was learned through the mount with ID
   MNT_ID, or NULL.  An entry learned again since, through another mount
   (its st_dev passed to another filesystem: a btrfs subvolume deleted,
   its number given to a new mount), no longer does.  */
static struct fs_info *
mount_entry (uint64_t mnt_id)
{
  struct fs_info *m = u64_table_get (&mount_facts, mnt_id);
  return (m && (m->flags & FS_LEARNED) && (m->flags & FS_MNT_ID)
          && m->mnt_id == mnt_id ? m : NULL);
}

/* Whether fs_learn examined a mount of a local btrfs, and statx gave
   its subvolume (Linux 6.10+; not glibc's emulation of statx, where the
   kernel or a sandbox refuses it).  */
static STATX_SUBVOL_THREAD_LOCAL bool btrfs_examined;

/* Learn FI, not yet examined, from the entry of the mount with ID MNT_ID
   if it has one.  SUBVOL is FI's subvolume where the kernel reported it
   for a file of FI other than the placeholder that a btrfs snapshot holds
   for a nested subvolume, else -1.  Return whether FI is now learned.  */
static bool
fs_learn_from_mount (struct fs_info *fi, uint64_t mnt_id, int64_t subvol)
{
  struct fs_info const *m = mount_entry (mnt_id);
  if (!m || m == fi)
    return false;
  fi->flags |= FS_LEARNED | FS_TYPE_KNOWN | FS_MNT_ID
               | (m->flags & FS_MULTIPLEX);
  fi->f_type = m->f_type;
  fi->handles = m->handles;
  fi->mnt_id = mnt_id;
  if (0 <= subvol && m->f_type == BTRFS_SUPER_MAGIC
      && !(fi->flags & FS_MULTIPLEX))
    {
      fi->subvol = subvol;
      fi->flags |= FS_SUBVOL;
    }
  /* One UUID names every subvolume of the filesystem.  */
  if ((m->flags & FS_UUID_TRIED) && !(fi->flags & FS_UUID_TRIED))
    {
      memcpy (fi->uuid, m->uuid, sizeof fi->uuid);
      fi->flags |= m->flags & (FS_UUID_TRIED | FS_HAS_UUID);
    }
  return true;
}
#endif

#if FILE_ID_LINUX
/* What kind of mount ID open_dir_of got, if any.  */
enum
{
  MNT_ID_REUSABLE = 1,          /* mountinfo's kind of mount ID */
  MNT_ID_UNIQUE = 2             /* never reused (Linux 6.8+) */
};

/* Open with O_PATH, for fstatfs and as a base for openat, the directory
   NAME relative to DIRFD if IS_DIR, else NAME's parent; never the file
   itself, which may be a FIFO or a device.  IS_DIR comes from the
   caller's stat, so NAME is followed only if the caller followed it.
   NAME null means DIRFD itself, which is then returned whatever it is.
   Return a descriptor of a file on the filesystem whose st_dev is DEV
   (the file itself if IS_DIR: inode INO), or -1 with errno set.
   *CLOSE_IT says whether the caller must close it.  Set *MNT_ID and
   *MNT_ID_KIND to its mount's ID, and *SUBVOL to its subvolume or -1,
   as far as the kernel tells.
   O_PATH needs no permission on the file, and without O_DIRECTORY it
   triggers no automount: stock tools that only stat an automount point
   never mount it, and neither must this.  */
static int
open_dir_of (int dirfd, char const *name, bool is_dir, dev_t dev, ino_t ino,
             bool *close_it, uint64_t *mnt_id, unsigned int *mnt_id_kind,
             int64_t *subvol)
{
  int fd;
  *close_it = false;
  if (!name)
    fd = dirfd;
  else
    {
      char const *open_name = name;
      char *parent = NULL;
      if (!is_dir)
        {
          char const *slash = strrchr (name, '/');
          if (!slash)
            open_name = ".";
          else if (slash == name)
            open_name = "/";
          else
            {
              parent = strndup (name, slash - name);
              if (!parent)
                return -1;
              open_name = parent;
            }
        }
      fd = openat (dirfd, open_name, O_PATH | O_NOCTTY | O_CLOEXEC);
      int e = errno;
      free (parent);
      errno = e;
      if (fd < 0)
        return -1;
      *close_it = true;
    }
  struct stat st;
  *mnt_id_kind = 0;
  *subvol = -1;
  int r = -1;
# if HAVE_STATX && HAVE_STX_MNT_ID
  /* The mount ID (unique where the kernel has such IDs) and the
     subvolume come with the same call.  */
  struct statx stx;
  r = statx_unless_refused (fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT,
                            (STATX_TYPE | STATX_INO | STATX_SUBVOL_MASK
                             | FILE_ID_STATX_MNT_ID
                             | FILE_ID_STATX_MNT_ID_UNIQUE),
                            &stx);
  if (r == 0)
    {
      st.st_dev = makedev (stx.stx_dev_major, stx.stx_dev_minor);
      st.st_ino = stx.stx_ino;
      st.st_mode = stx.stx_mode;
      *mnt_id = stx.stx_mnt_id;
      *mnt_id_kind = ((stx.stx_mask & FILE_ID_STATX_MNT_ID_UNIQUE
                       ? MNT_ID_UNIQUE : 0)
                      | (stx.stx_mask & FILE_ID_STATX_MNT_ID
                         ? MNT_ID_REUSABLE : 0));
      *subvol = statx_subvol (&stx);
    }
  else if (errno != ENOSYS)
    r = -2;
# endif
  if (r == -1)
    r = fstat (fd, &st);
  if (r != 0)
    {
      int e = errno;
      if (*close_it)
        close (fd);
      *close_it = false;
      errno = e;
      return -1;
    }
  if (st.st_dev != dev || (is_dir && st.st_ino != ino)
      || (name && !S_ISDIR (st.st_mode)))
    {
      /* Renamed meanwhile: nothing to learn now.  */
      if (*close_it)
        close (fd);
      *close_it = false;
      errno = ESTALE;
      return -1;
    }
  return fd;
}

/* Return a descriptor open for reading, as ioctls need, of the directory
   that FD (from open_dir_of) refers to, or -1.  Never one of an autofs
   mount point (F_TYPE, FD's filesystem type): opening it would mount
   what it stands for.  The caller closes the result.  */
static int
reopen_dir (int fd, unsigned long f_type)
{
  if (f_type == AUTOFS_SUPER_MAGIC)
    {
      errno = ENOTTY;
      return -1;
    }
  return openat (fd, ".", O_RDONLY | O_DIRECTORY | O_NOCTTY | O_NONBLOCK
                 | O_CLOEXEC);
}

/* The mounts, from /proc/self/mountinfo: whether each is 9p, by mount ID
   and by device.  Read once, and again only for a mount not in it (one
   mounted since).  Devices looked up in vain are added, as not 9p.  */
static STATX_SUBVOL_THREAD_LOCAL struct u64_table mounts_by_id
  = { .map = true };
static STATX_SUBVOL_THREAD_LOCAL struct u64_table mounts_by_dev
  = { .map = true };
static char const mount_9p[] = "9p";
static char const mount_other[] = "other";
/* In MOUNTS_BY_DEV: looked up in vain, no mount's own device.  */
static char const mount_none[] = "none";
/* Whether the table was read at least once.  */
static STATX_SUBVOL_THREAD_LOCAL bool mounts_loaded;

static bool
mounts_add (struct u64_table *t, uint64_t key, bool nine_p)
{
  void **v = u64_table_ref (t, key);
  if (v && !*v)
    *v = (void *) (nine_p ? mount_9p : mount_other);
  return !!v;
}

/* Parse the unsigned decimal number at *P, and step over it and the
   character that ends it.  */
static uint64_t
parse_num (char const **p)
{
  uint64_t n = 0;
  for (; '0' <= **p && **p <= '9'; (*p)++)
    n = 10 * n + (**p - '0');
  if (**p)
    (*p)++;
  return n;
}

/* /proc/self/mountinfo, whole, as a string that the caller frees; NULL
   if it cannot be read.  One buffer and a scan by hand (mountinfo_next):
   the whole table costs fewer instructions than stdio and sscanf would,
   and gnulib's mountlist gives neither mount IDs nor overlayfs's layers.  */
static char *
mountinfo_read (void)
{
  int fd = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t size = 0, used = 0;
  char *buf = NULL;
  for (;;)
    {
      if (size - used < 4096)
        {
          size_t n = size ? 2 * size : 64 * 1024;
          char *p = realloc (buf, n + 1);
          if (!p)
            break;
          buf = p;
          size = n;
        }
      ssize_t r = read (fd, buf + used, size - used);
      if (r <= 0)
        {
          /* A part of the table would pass for the whole: mountinfo
             users take a mount missing from it as a fact.  */
          if (r == 0)
            {
              close (fd);
              buf[used] = '\0';
              return buf;
            }
          break;
        }
      used += r;
    }
  close (fd);
  free (buf);
  return NULL;
}

/* One line of mountinfo: "ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS
   [TAGS...] - TYPE SOURCE SUPEROPTIONS".  */
struct mountinfo_line
{
  uint64_t id;
  dev_t dev;
  char *type;                   /* null-terminated, as the rest */
  char *source;
  char *options;                /* the superblock's */
};

/* Parse the line at *P of a mountinfo string into *L, ending each field
   with a null byte, and step *P past it.  Return false at the end.  A
   line without the fields after " - " gets empty ones.  */
static bool
mountinfo_next (char **p, struct mountinfo_line *l)
{
  char *line = *p;
  if (!*line)
    return false;
  char *end = strchr (line, '\n');
  if (end)
    {
      *end = '\0';
      *p = end + 1;
    }
  else
    *p = line + strlen (line);
  char const *q = line;
  l->id = parse_num (&q);
  parse_num (&q);
  unsigned int major = parse_num (&q);
  unsigned int minor = parse_num (&q);
  l->dev = makedev (major, minor);
  /* Fields that are missing are empty: the line's own null byte.  */
  char *nul = line + strlen (line);
  char *sep = strstr (q, " - ");
  l->type = sep ? sep + 3 : nul;
  char *sp = strchr (l->type, ' ');
  l->source = sp ? (*sp = '\0', sp + 1) : nul;
  sp = strchr (l->source, ' ');
  l->options = sp ? (*sp = '\0', sp + 1) : nul;
  return true;
}

/* Read the mount table into MOUNTS.  */
static void
mounts_read (void)
{
  char *buf = mountinfo_read ();
  if (!buf)
    return;
  u64_table_clear (&mounts_by_id);
  u64_table_clear (&mounts_by_dev);
  struct mountinfo_line l;
  for (char *p = buf; mountinfo_next (&p, &l); )
    {
      bool nine_p = strcmp (l.type, "9p") == 0;
      if (! (mounts_add (&mounts_by_id, l.id, nine_p)
             && mounts_add (&mounts_by_dev, l.dev, nine_p)))
        break;
    }
  free (buf);
  mounts_loaded = true;
}

/* Whether the mount with ID MNT_ID (if BY_ID) or, else, whose device is
   DEV is a 9p filesystem, as /proc/self/mountinfo says; false if
   unknown.  */
static bool
mountinfo_9p (bool by_id, uint64_t mnt_id, dev_t dev)
{
  for (int pass = 0; pass < 2; pass++)
    {
      char const *m = (by_id ? u64_table_get (&mounts_by_id, mnt_id)
                       : u64_table_get (&mounts_by_dev, dev));
      if (m)
        return m == mount_9p;
      if (pass == 0)
        mounts_read ();
    }
  /* Not a mount's own device (a btrfs subvolume), or not there.  */
  if (!by_id)
    {
      void **v = u64_table_ref (&mounts_by_dev, dev);
      if (v && !*v)
        *v = (void *) mount_none;
    }
  return false;
}

#if HAVE_STATX && HAVE_STX_MNT_ID
/* Whether DEV is no mount's own device, as the mount table read once
   says: false if it cannot be read.  */
static bool
mountinfo_unlisted (dev_t dev)
{
  if (!mounts_loaded)
    mounts_read ();
  if (!mounts_loaded)
    return false;
  char const *m = u64_table_get (&mounts_by_dev, dev);
  return !m || m == mount_none;
}
#endif

/* Set FI's filesystem type from fstatfs of the directory of NAME
   relative to DIRFD (see open_dir_of).  Return the descriptor used,
   which the caller closes if *CLOSE_IT, or -1 with errno set if the type
   cannot be known (then nothing is left open).  */
static int
fs_type_learn (struct fs_info *fi, int dirfd, char const *name, bool is_dir,
               ino_t ino, bool *close_it, int64_t *subvol)
{
  uint64_t mnt_id = 0;
  unsigned int mnt_id_kind;
  int fd = open_dir_of (dirfd, name, is_dir, fi->dev, ino, close_it,
                        &mnt_id, &mnt_id_kind, subvol);
  struct statfs sf;
  if (fd < 0 || fstatfs (fd, &sf) != 0)
    {
      int e = errno;
      if (*close_it)
        close (fd);
      *close_it = false;
      /* Refused for good (a sandbox): a type that no test matches, so
         that it is not asked again for every file.  */
      if (file_id_fs_unavailable (e))
        {
          fi->f_type = 0;
          fi->flags |= FS_TYPE_KNOWN;
        }
      errno = e;
      return -1;
    }
  fi->f_type = (unsigned long) sf.f_type & 0xffffffffUL;
  if (mnt_id_kind & MNT_ID_UNIQUE)
    {
      fi->mnt_id = mnt_id;
      fi->flags |= FS_MNT_ID;
    }
  switch (fi->f_type)
    {
    case FUSE_SUPER_MAGIC: case NFS_SUPER_MAGIC: case SMB_SUPER_MAGIC:
    case CIFS_SUPER_MAGIC: case SMB2_SUPER_MAGIC: case V9FS_MAGIC:
    case CEPH_SUPER_MAGIC: case AFS_FS_MAGIC: case AFS_SUPER_MAGIC:
    case OVERLAYFS_SUPER_MAGIC: case AUTOFS_SUPER_MAGIC:
      break;
    default:
      /* On 9p, statfs gives the f_type of the filesystem that the server
         shares (9P2000.L): btrfs or ext4, say.  A share that spans
         several of the server's filesystems or subvolumes repeats inode
         numbers under one st_dev, and only the mount table tells: read
         once, found by mount ID, or else by st_dev, which is a 9p
         mount's own.  9p's st_dev is anonymous (major 0): a filesystem
         on a block device needs no look-up.  */
      if (major (fi->dev) == 0
          && mountinfo_9p (!!(mnt_id_kind & MNT_ID_REUSABLE), mnt_id,
                           fi->dev))
        fi->f_type = V9FS_MAGIC;
      break;
    }
  fi->flags |= FS_TYPE_KNOWN;
  return fd;
}

# if HAVE_STATX && HAVE_STX_MNT_ID
/* statmount (Linux 6.8+), where the system's headers lack it: the
   request and the head of the answer, all that is asked for.  Its
   number is 457 on the architectures named here, which number new
   system calls alike since Linux 5.1 (alpha, mips and x32 add an
   offset).  */
#  if !defined __NR_statmount \
      && ((defined __x86_64__ && !defined __ILP32__) || defined __i386__ \
          || defined __aarch64__ || defined __arm__ || defined __riscv \
          || defined __powerpc__ || defined __s390__ || defined __loongarch__)
#   define __NR_statmount 457
#  endif
#  ifndef STATMOUNT_SB_BASIC
#   define STATMOUNT_SB_BASIC 0x00000001U
#  endif
/* The heads of the kernel's struct mnt_id_req (its first version) and
   struct statmount.  */
struct mount_req
{
  uint32_t size;
  uint32_t spare;
  uint64_t mnt_id;
  uint64_t param;
};
struct mount_sb
{
  uint32_t size;
  uint32_t spare;
  uint64_t mask;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint64_t magic;
};

#  ifdef __NR_statmount
/* Whether statmount is refused for good (an old kernel, a sandbox).  */
static STATX_SUBVOL_THREAD_LOCAL bool statmount_refused;
/* Whether it answered once.  */
static STATX_SUBVOL_THREAD_LOCAL bool statmount_answered;
#  endif

/* Whether mount_magic may answer.  */
static bool
mount_magic_works (void)
{
#  ifdef __NR_statmount
  return !statmount_refused;
#  else
  return false;
#  endif
}

/* Note that the kernel gives no unique mount IDs (before Linux 6.8), so
   that statmount, which came with them, is not used.  */
static void
mount_magic_unusable (void)
{
#  ifdef __NR_statmount
  statmount_refused = true;
#  endif
}

/* The magic number of the superblock of the mount whose unique ID is
   MNT_ID, and in *SB_DEV the superblock's device; 0 if they cannot be
   had.  */
static unsigned long
mount_magic (uint64_t mnt_id, dev_t *sb_dev)
{
#  ifdef __NR_statmount
  if (!statmount_refused)
    {
      struct mount_req req = { sizeof req, 0, mnt_id, STATMOUNT_SB_BASIC };
      struct mount_sb sb;
      if (syscall (__NR_statmount, &req, &sb, sizeof sb, 0) == 0)
        {
          statmount_answered = true;
          if (! (sb.mask & STATMOUNT_SB_BASIC))
            return 0;
          *sb_dev = makedev (sb.dev_major, sb.dev_minor);
          return sb.magic & 0xffffffffUL;
        }
      /* ENOENT (the mount gone, or in another namespace) says nothing of
         other mounts, nor does EPERM or EACCES once statmount has
         answered (a mount whose root a chroot hides, a security
         module's refusal); before that, they are a sandbox's.  */
      int e = errno;
      statmount_refused = (e == ENOSYS || e == EINVAL
                           || (!statmount_answered
                               && (e == EPERM || e == EACCES)));
    }
#  else
  (void) mnt_id, (void) sb_dev;
#  endif
  return 0;
}

/* Set FI's filesystem type from the superblock of the mount that statx
   saw it through (FI->mnt_id): one call per mount, where fs_type_learn
   opens a directory, checks it, asks fstatfs and closes it, and reads
   the mount table for a 9p mount's.  It walks no path, so it triggers no
   automount, and on 9p it gives 9p's own type (statfs gives that of the
   server's filesystem).  SUBVOL, IS_DIR and INO are as for fs_learn.
   Return false, learning nothing, where it cannot tell, or where what
   remains to learn needs a descriptor: the subvolume of a btrfs that
   statx did not report (Linux 6.8 and 6.9).  Nor for an overlayfs's
   file with a st_dev other than the overlay's (a layer's, where the
   layers are on several filesystems): as before, that cannot be
   examined, and must not decide for the mount.  */
static bool
fs_type_from_mount (struct fs_info *fi, int64_t subvol, bool is_dir,
                    ino_t ino)
{
  dev_t sb_dev;
  unsigned long magic = mount_magic (fi->mnt_id, &sb_dev);
  if (!magic
      || (magic == BTRFS_SUPER_MAGIC && subvol < 0 && ! (is_dir && ino == 2))
      || (magic == OVERLAYFS_SUPER_MAGIC && sb_dev != fi->dev))
    return false;
  fi->f_type = magic;
  fi->flags |= FS_TYPE_KNOWN;
  return true;
}
# endif

/* Whether the running kernel reports STATX_SUBVOL where a filesystem has
   subvolumes (Linux 6.10+), overlayfs passing its layers' through.  By
   version, not by a probe: statx sets STATX_SUBVOL only for files of a
   filesystem that has subvolumes, so a kernel that does not know it
   looks the same as one that does wherever no such file is at hand.
   A kernel that reports it under an older version number (a backport)
   is only taken for one that does not: the safe side.  */
static bool
kernel_reports_subvol (void)
{
  /* 0: not yet asked; 1: yes; -1: no.  */
  static STATX_SUBVOL_THREAD_LOCAL int known;
  if (!known)
    {
      struct utsname u;
      int major, minor;
      known = (uname (&u) == 0
               && sscanf (u.release, "%d.%d", &major, &minor) == 2
               && (6 < major || (major == 6 && 10 <= minor))
               ? 1 : -1);
    }
  return 0 < known;
}

/* Whether a layer of an overlayfs, the directory NAME, is on a
   filesystem where (st_dev, st_ino) identifies a file: not one with
   subvolumes, not a network or FUSE filesystem, not another overlay.  */
static bool
layer_exact (char const *name)
{
  int fd = open (name, O_PATH | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct statfs sf;
  bool ok = fstatfs (fd, &sf) == 0;
  close (fd);
  if (!ok)
    return false;
  switch ((unsigned long) sf.f_type & 0xffffffffUL)
    {
    case BTRFS_SUPER_MAGIC: case BCACHEFS_SUPER_MAGIC:
    case OVERLAYFS_SUPER_MAGIC: case FUSE_SUPER_MAGIC: case NFS_SUPER_MAGIC:
    case SMB_SUPER_MAGIC: case CIFS_SUPER_MAGIC: case SMB2_SUPER_MAGIC:
    case V9FS_MAGIC: case CEPH_SUPER_MAGIC: case AFS_FS_MAGIC:
    case AFS_SUPER_MAGIC:
      return false;
    default:
      return true;
    }
}

/* Decode, in place, the octal escapes (\ooo) with which
   /proc/self/mountinfo shows special characters.  Return false if S
   holds a backslash that is no such escape, or one that decodes to a
   backslash: a layer list escaped that way is not worth guessing at.  */
static bool
mountinfo_unescape (char *s)
{
  char *d = s;
  for (; *s; s++)
    {
      if (*s != '\\')
        *d++ = *s;
      else if ('0' <= s[1] && s[1] <= '3' && '0' <= s[2] && s[2] <= '7'
               && '0' <= s[3] && s[3] <= '7')
        {
          char c = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
          if (c == '\\' || c == '\0')
            return false;
          *d++ = c;
          s += 3;
        }
      else
        return false;
    }
  *d = '\0';
  return true;
}

/* Whether every layer of the overlayfs whose st_dev is DEV is on a
   filesystem where (st_dev, st_ino) identifies a file, as
   /proc/self/mountinfo names the layers: then so does the overlay, and
   its keys are exact.  False whenever that cannot be read or checked
   (a container does not see the layers of its root filesystem).  */
static bool
overlay_layers_exact (dev_t dev)
{
  char *buf = mountinfo_read ();
  if (!buf)
    return false;
  bool found = false, exact = false;
  struct mountinfo_line l;
  for (char *p = buf; !found && mountinfo_next (&p, &l); )
    {
      if (l.dev != dev)
        continue;
      if (strcmp (l.type, "overlay") != 0)
        break;
      found = true;
      int layers = 0;
      exact = true;
      char *osave;
      for (char *o = strtok_r (l.options, ",", &osave); exact && o;
           o = strtok_r (NULL, ",", &osave))
        {
          char *v;
          if (strncmp (o, "lowerdir=", 9) == 0)
            v = o + 9;
          else if (strncmp (o, "lowerdir+=", 10) == 0
                   || strncmp (o, "datadir+=", 9) == 0)
            v = strchr (o, '=') + 1;
          else if (strncmp (o, "upperdir=", 9) == 0)
            v = o + 9;
          else
            continue;
          if (!mountinfo_unescape (v))
            exact = false;
          /* Layers are separated by ':' (data-only ones by "::").  A
             name with ':' in it fails below, as no such layer exists.  */
          for (char *layer = strtok_r (v, ":", &v); exact && layer;
               layer = strtok_r (NULL, ":", &v))
            {
              exact = layer_exact (layer);
              layers++;
            }
        }
      exact = exact && 0 < layers;
    }
  free (buf);
  return exact;
}
#endif

/* Forget what is known of FI's st_dev, which may now be another
   filesystem's; with it, what the mount table said of that st_dev and
   of mount IDs that may have been reused since it was read.  The first
   knfsd export met on the st_dev is kept: it only limits what handles
   prove, and two exports of one server filesystem share one client
   st_dev, each seen through a mount of its own.  */
static void
fs_forget (struct fs_info *fi)
{
  struct fs_info old = *fi;
  *fi = (struct fs_info) { .dev = old.dev, .nfs_len = old.nfs_len,
                           .nfs_fid_type = old.nfs_fid_type };
  memcpy (fi->nfs_export, old.nfs_export, sizeof fi->nfs_export);
#if FILE_ID_LINUX
  if (old.flags & FS_FACTS)
    {
      u64_table_clear (&mounts_by_id);
      u64_table_clear (&mounts_by_dev);
      mounts_loaded = false;
    }
#endif
}

/* What fs_learn answers for a filesystem that cannot be examined now
   (a file renamed meanwhile, EMFILE...): nothing is known, and nothing
   is cached, so that a later file tries again.  Its (dev, ino) may not
   identify a file, and its handles prove nothing.  */
static STATX_SUBVOL_THREAD_LOCAL struct fs_info fs_unknown
  = { .flags = FS_MULTIPLEX | FS_LEARNED, .handles = FILE_ID_HANDLES_NONE };

/* Learn what we need of the filesystem of a file (dev DEV, a directory if
   IS_DIR, NAME relative to DIRFD) that the kernel gave no subvolume for.
   Return its cache entry, &fs_unknown if it cannot be examined now, or
   NULL if out of memory.  A filesystem that can never be examined here
   (a sandbox refuses it) is taken as one where (dev, ino) may not
   identify a file: its keys compare as unknown unless their metadata
   differ, which callers resolve safely.  */
static struct fs_info *
fs_learn (dev_t dev, ino_t ino, int dirfd, char const *name, bool is_dir)
{
  /* An entry that file_id_fs_note, file_id_fs_uuid or file_id_same_fs
     made may exist without having been examined.  */
  struct fs_info *fi = fs_get (dev);
  if (!fi || (fi->flags & FS_LEARNED))
    return fi;
#if FILE_ID_LINUX
  /* A st_dev that statx showed through a mount already examined (another
     subvolume of a btrfs) costs nothing.  */
  if ((fi->flags & FS_MNT_ID)
      && fs_learn_from_mount (fi, fi->mnt_id,
                              (fi->flags & FS_SUBVOL_SEEN
                               ? (int64_t) fi->subvol : -1)))
    return fi;
  /* A st_dev that only fstatat showed (cp's status of each file) for a
     directory with inode number 256, the root of a btrfs subvolume, that
     no mount has as its own device: another subvolume of a btrfs.  Each
     has an anonymous st_dev of its own (its mount lists the superblock's
     device, which no file but a snapshot's placeholder shows), so (dev,
     ino) identifies its files and nothing is needed but that: no system
     call per subvolume.  The mount table is read once; a mount made since
     (an automount this walk triggered) with a root of inode number 256
     would be taken the same way, as stock tools take every filesystem.
     The subvolume ID is not learned: where statx reports subvolumes, as
     it did for the btrfs examined, callers that print it have it from
     statx.  */
# if HAVE_STATX && HAVE_STX_MNT_ID
  if (!(fi->flags & FS_MNT_ID) && btrfs_examined && !statx_refused && is_dir
      && ino == 256 /* BTRFS_FIRST_FREE_OBJECTID */
      && mountinfo_unlisted (dev))
    {
      fi->flags |= FS_LEARNED | FS_TYPE_KNOWN;
      fi->f_type = BTRFS_SUPER_MAGIC;
      return fi;
    }
  /* A st_dev that only fstatat showed: one statx of the file itself,
     which opens nothing, says whether it is another subvolume of a known
     mount, and gives the mount ID to learn a new mount by.  */
  if (!(fi->flags & FS_MNT_ID)
      && (u64_table_count (&mount_facts) || mount_magic_works ())
      && !statx_refused)
    {
      struct statx stx;
      bool ok = statx_unless_refused (dirfd, name ? name : "",
                                      ((name ? AT_SYMLINK_NOFOLLOW
                                        : AT_EMPTY_PATH)
                                       | AT_NO_AUTOMOUNT),
                                      (STATX_TYPE | STATX_INO
                                       | STATX_SUBVOL_MASK
                                       | FILE_ID_STATX_MNT_ID_UNIQUE),
                                      &stx) == 0;
      if (ok && !(stx.stx_mask & FILE_ID_STATX_MNT_ID_UNIQUE))
        mount_magic_unusable ();
      else if (ok && makedev (stx.stx_dev_major, stx.stx_dev_minor) == dev
               && stx.stx_ino == ino)
        {
          int64_t subvol = (! (S_ISDIR (stx.stx_mode) && ino == 2)
                            ? statx_subvol (&stx) : -1);
          if (fs_learn_from_mount (fi, stx.stx_mnt_id, subvol))
            return fi;
          fi->mnt_id = stx.stx_mnt_id;
          fi->flags |= FS_MNT_ID;
          if (0 <= subvol)
            {
              fi->subvol = subvol;
              fi->flags |= FS_SUBVOL_SEEN;
            }
        }
    }
# endif
  bool close_it = false;
  int64_t subvol = (fi->flags & FS_SUBVOL_SEEN ? (int64_t) fi->subvol : -1);
  int fd = -1;
# if HAVE_STATX && HAVE_STX_MNT_ID
  if (! ((fi->flags & FS_MNT_ID)
         && fs_type_from_mount (fi, subvol, is_dir, ino)))
# endif
    {
      fd = fs_type_learn (fi, dirfd, name, is_dir, ino, &close_it, &subvol);
      if (fd < 0)
        {
          if (!file_id_fs_unavailable (errno))
            return &fs_unknown;
          fi->flags |= FS_LEARNED | FS_MULTIPLEX;
          fi->handles = FILE_ID_HANDLES_NONE;
          return fi;
        }
    }
  fi->flags |= FS_LEARNED;
  switch (fi->f_type)
    {
    case FUSE_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = FILE_ID_HANDLES_PATH;
      break;
    case NFS_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = FILE_ID_HANDLES_NFS;
      break;
    case OVERLAYFS_SUPER_MAGIC:
      /* Exact where its layers are (a container's root on ext4 or xfs);
         else, over btrfs subvolumes on a kernel that does not report
         them, its handles embed the layers' own.  */
      if (!overlay_layers_exact (dev))
        {
          fi->flags |= FS_MULTIPLEX;
          fi->handles = FILE_ID_HANDLES_FILE;
        }
      break;
    case SMB_SUPER_MAGIC: case CIFS_SUPER_MAGIC: case SMB2_SUPER_MAGIC:
    case V9FS_MAGIC: case CEPH_SUPER_MAGIC: case AFS_FS_MAGIC:
    case AFS_SUPER_MAGIC: case BCACHEFS_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = FILE_ID_HANDLES_NONE;
      break;
    case BTRFS_SUPER_MAGIC:
      /* Locally each btrfs subvolume has its own st_dev, so (dev, ino) is
         exact and one subvolume ID serves the whole dev: from the statx
         that open_dir_of made (Linux 6.10+), else from a lookup.  Not
         for the empty placeholder (inode 2) that a snapshot holds for a
         nested subvolume: all placeholders share the superblock's
         st_dev, and belong to no subvolume the kernel would name.  */
      if (is_dir && ino == 2)
        break;
      if (0 <= subvol)
        {
          fi->subvol = subvol;
          fi->flags |= FS_SUBVOL;
          btrfs_examined = true;
          break;
        }
# if HAVE_LINUX_BTRFS_H
      {
        int rfd = fd < 0 ? -1 : reopen_dir (fd, fi->f_type);
        struct btrfs_ioctl_ino_lookup_args args;
        memset (&args, 0, sizeof args);
        args.treeid = 0;
        args.objectid = 256; /* BTRFS_FIRST_FREE_OBJECTID: the root dir */
        if (0 <= rfd && ioctl (rfd, BTRFS_IOC_INO_LOOKUP, &args) == 0)
          {
            fi->subvol = args.treeid;
            fi->flags |= FS_SUBVOL;
          }
        if (0 <= rfd)
          close (rfd);
      }
# endif
      break;
    default:
      break;
    }
  if (close_it)
    close (fd);
  if (fi->flags & FS_MNT_ID)
    {
      void **v = u64_table_ref (&mount_facts, fi->mnt_id);
      if (v && !mount_entry (fi->mnt_id))
        *v = fi;
    }
#else
  (void) ino, (void) dirfd, (void) name, (void) is_dir;
  fi->flags |= FS_LEARNED;
#endif
  return fi;
}

int
file_id_fs_identify (dev_t dev, ino_t ino, int dirfd, char const *name,
                     bool is_dir, bool statx_said, uint64_t *subvol)
{
  /* Consecutive files nearly always share a filesystem.  */
  struct fs_info *fi = (fs_last && fs_last->dev == dev
                        && (fs_last->flags & FS_LEARNED) && !noted_count
                        ? fs_last
                        : fs_learn (dev, ino, dirfd, name, is_dir));
#if FILE_ID_LINUX
  /* On a kernel that reports subvolumes, an overlay that reports none
     has no layer with subvolumes: (dev, ino) is what identifies its
     files, as for stock tools.  */
  if (fi && fi != &fs_unknown && statx_said
      && (fi->flags & FS_MULTIPLEX) && fi->f_type == OVERLAYFS_SUPER_MAGIC
      && kernel_reports_subvol ())
    fi->flags &= ~FS_MULTIPLEX;
#else
  (void) statx_said;
#endif
  /* Not stable: what is not known yet, and an overlay that a statx
     with no subvolume may yet prove exact.  */
  int stable = (fi && fi != &fs_unknown && (fi->flags & FS_LEARNED)
#if FILE_ID_LINUX
                && ! ((fi->flags & FS_MULTIPLEX)
                      && fi->f_type == OVERLAYFS_SUPER_MAGIC)
#endif
                ? FILE_ID_FS_STABLE : 0);
  if (fi && (fi->flags & FS_MULTIPLEX))
    return stable;
  if (fi && (fi->flags & FS_SUBVOL))
    {
      *subvol = fi->subvol;
      return FILE_ID_FS_EXACT | FILE_ID_FS_SUBVOL | stable;
    }
  return FILE_ID_FS_EXACT | stable;
}

enum file_id_handles
file_id_fs_handles (dev_t dev)
{
  struct fs_info const *fi = fs_find (dev);
  return fi ? fi->handles : FILE_ID_HANDLES_NONE;
}

bool
file_id_fs_btrfs_placeholder (dev_t dev, ino_t ino)
{
#if FILE_ID_LINUX
  struct fs_info const *fi;
  return (ino == 2 && (fi = fs_find (dev)) && (fi->flags & FS_TYPE_KNOWN)
          && fi->f_type == BTRFS_SUPER_MAGIC);
#else
  (void) dev, (void) ino;
  return false;
#endif
}

void
file_id_fs_no_handles (dev_t dev)
{
  struct fs_info *fi = fs_find (dev);
  if (fi)
    fi->handles = FILE_ID_HANDLES_NONE;
}

bool
file_id_fs_nfs_export (dev_t dev, unsigned char const *key, int len,
                       unsigned char fid_type)
{
  struct fs_info *fi = fs_get (dev);
  if (!fi || len <= 0 || FILE_ID_NFS_EXPORT_MAX < len)
    return false;
  if (!fi->nfs_len)
    {
      fi->nfs_len = len;
      memcpy (fi->nfs_export, key, len);
    }
  else if (! (fi->nfs_len == len && memcmp (fi->nfs_export, key, len) == 0))
    return false;
  if (fid_type == 0)
    return true;
  if (fi->nfs_fid_type == 0)
    fi->nfs_fid_type = fid_type;
  return fi->nfs_fid_type == fid_type;
}

#if FILE_ID_LINUX && HAVE_STATX
/* Note what statx STX says of the st_dev of its file: the mount it was
   seen through and, unless the file is a placeholder that a btrfs
   snapshot holds for a nested subvolume, the subvolume.  Other files of
   that st_dev, whose status has neither (fstatat), are then learned from
   the mount's facts: one examination per mount, not per subvolume.  */
bool
file_id_fs_note (dev_t dev, struct statx const *stx)
{
# if HAVE_STX_MNT_ID
  if (noted_any && noted_last.dev == dev
      && noted_last.mnt_id == stx->stx_mnt_id)
    return false;
  if (! (stx->stx_mask & FILE_ID_STATX_MNT_ID_UNIQUE))
    return false;
  noted_last = (struct fs_noted) {
    dev, stx->stx_mnt_id,
    (! (S_ISDIR (stx->stx_mode) && stx->stx_ino == 2)
     ? statx_subvol (stx) : -1)
  };
  noted_any = true;
  if (noted_count == noted_alloc)
    {
      /* Few, large steps: blocks freed amid a walk's allocations would
         slow its mallocs.  */
      size_t n = noted_alloc ? 4 * noted_alloc : 256;
      struct fs_noted *p = (n <= SIZE_MAX / sizeof *p
                            ? realloc (noted, n * sizeof *p) : NULL);
      if (!p)
        {
          /* Out of memory: enter it now, so that no mount goes
             unnoticed.  */
          notes_flush ();
          note_enter (&noted_last);
          return true;
        }
      noted = p;
      noted_alloc = n;
    }
  noted[noted_count++] = noted_last;
  return true;
# else
  (void) dev, (void) stx;
  return false;
# endif
}

#endif

/* Fill FI's UUID, if not tried yet, through NAME relative to DIRFD (NAME
   null: DIRFD itself), a directory with inode number INO if IS_DIR, else
   a file in the directory to open.  Return whether FI has a UUID.  A
   failure that says nothing of the filesystem (EMFILE, a rename) leaves
   it to be tried again.  */
static bool
fs_uuid_learn (struct fs_info *fi, int dirfd, char const *name, bool is_dir,
               ino_t ino)
{
  if (!(fi->flags & FS_UUID_TRIED))
    {
#if FILE_ID_LINUX
      bool close_it;
      int64_t subvol;
      int fd = fs_type_learn (fi, dirfd, name, is_dir, ino, &close_it,
                              &subvol);
      int rfd = fd < 0 ? -1 : reopen_dir (fd, fi->f_type);
      if (rfd < 0)
        {
          if (file_id_fs_unavailable (errno))
            fi->flags |= FS_UUID_TRIED;
          if (close_it)
            close (fd);
          return false;
        }
      fi->flags |= FS_UUID_TRIED;
      static unsigned char const zero[16];
      struct fsuuid2 u;
      memset (&u, 0, sizeof u);
      if (ioctl (rfd, FS_IOC_GETFSUUID, &u) == 0 && u.len == 16)
        memcpy (fi->uuid, u.uuid, 16);
# if HAVE_LINUX_BTRFS_H
      else if (fi->f_type == BTRFS_SUPER_MAGIC)
        {
          /* btrfs answers ENOTTY to the generic ioctl.  */
          struct btrfs_ioctl_fs_info_args args;
          memset (&args, 0, sizeof args);
          if (ioctl (rfd, BTRFS_IOC_FS_INFO, &args) == 0)
            memcpy (fi->uuid, args.fsid, 16);
          else if (is_dir && ino == 2 && name)
            {
              /* The empty placeholder that a snapshot holds for a nested
                 subvolume answers no btrfs ioctl; it belongs to the
                 filesystem of the directory that holds it.  */
              size_t len = strlen (name);
              char *up = malloc (len + sizeof "/..");
              int pfd = -1;
              if (up)
                {
                  memcpy (up, name, len);
                  strcpy (up + len, "/..");
                  pfd = openat (dirfd, up, O_RDONLY | O_DIRECTORY
                                | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
                }
              free (up);
              memset (&args, 0, sizeof args);
              if (0 <= pfd && ioctl (pfd, BTRFS_IOC_FS_INFO, &args) == 0)
                memcpy (fi->uuid, args.fsid, 16);
              if (0 <= pfd)
                close (pfd);
            }
        }
# endif
      if (memcmp (fi->uuid, zero, 16) != 0)
        fi->flags |= FS_HAS_UUID;
      /* One UUID serves every st_dev of the mount.  */
      struct fs_info *m = ((fi->flags & FS_MNT_ID)
                           ? mount_entry (fi->mnt_id) : NULL);
      if (m && !(m->flags & FS_UUID_TRIED))
        {
          memcpy (m->uuid, fi->uuid, sizeof m->uuid);
          m->flags |= fi->flags & (FS_UUID_TRIED | FS_HAS_UUID);
        }
      close (rfd);
      if (close_it)
        close (fd);
#else
      (void) dirfd, (void) name, (void) is_dir, (void) ino;
      fi->flags |= FS_UUID_TRIED;
#endif
    }
  return !!(fi->flags & FS_HAS_UUID);
}

bool
file_id_fs_uuid (dev_t dev, int dirfd, char const *name,
                 unsigned char uuid[16])
{
  struct fs_info *fi = fs_get (dev);
  if (!fi)
    return false;
  if (!(fi->flags & FS_UUID_TRIED))
    {
      struct stat st;
      bool ok = (name
                 ? fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW)
                 : fstat (dirfd, &st)) == 0;
      /* A symbolic link that the caller followed: DEV is its target's.  */
      if (ok && name && st.st_dev != dev)
        ok = fstatat (dirfd, name, &st, 0) == 0;
      /* NAME is no longer on DEV (renamed meanwhile): learn nothing now.  */
      if (ok && st.st_dev != dev)
        return false;
      bool is_dir = ok && S_ISDIR (st.st_mode);
      fs_uuid_learn (fi, dirfd, name, is_dir, is_dir ? st.st_ino : 0);
    }
  if (!(fi->flags & FS_HAS_UUID))
    return false;
  memcpy (uuid, fi->uuid, 16);
  return true;
}

/* Whether the filesystem of the file that ST describes, found as NAME
   relative to DIRFD, is of a type that gives each subvolume its own
   st_dev and names them all with one UUID (btrfs); if so, set *FIP to
   its cache entry, with its UUID tried.  */
static bool
fs_with_subvolumes (int dirfd, char const *name, struct stat const *st,
                    struct fs_info **fip)
{
  struct fs_info *fi = fs_get (st->st_dev);
  if (!fi)
    return false;
  bool is_dir = S_ISDIR (st->st_mode);
#if FILE_ID_LINUX
  /* Another subvolume of a mount already examined costs nothing.  */
  if (!(fi->flags & (FS_TYPE_KNOWN | FS_LEARNED)) && (fi->flags & FS_MNT_ID))
    fs_learn_from_mount (fi, fi->mnt_id,
                         (fi->flags & FS_SUBVOL_SEEN
                          ? (int64_t) fi->subvol : -1));
  if (!(fi->flags & FS_TYPE_KNOWN))
    {
      bool close_it;
      int64_t subvol;
      int fd = fs_type_learn (fi, dirfd, name, is_dir, st->st_ino,
                              &close_it, &subvol);
      if (close_it)
        close (fd);
    }
  /* Not bcachefs: one st_dev there covers all its subvolumes, and two
     with one UUID are copies of one image.  */
  if (! ((fi->flags & FS_TYPE_KNOWN) && fi->f_type == BTRFS_SUPER_MAGIC))
    return false;
  if (!fs_uuid_learn (fi, dirfd, name, is_dir, st->st_ino))
    return false;
  *fip = fi;
  return true;
#else
  (void) dirfd, (void) name, (void) is_dir;
  return false;
#endif
}

bool
file_id_same_fs (int a_dirfd, char const *a_name, struct stat const *a_st,
                 int b_dirfd, char const *b_name, struct stat const *b_st)
{
  if (a_st->st_dev == b_st->st_dev)
    return true;
  struct fs_info *a, *b;
  if (! (fs_with_subvolumes (a_dirfd, a_name, a_st, &a)
         && fs_with_subvolumes (b_dirfd, b_name, b_st, &b)))
    return false;
  return a->f_type == b->f_type && memcmp (a->uuid, b->uuid, 16) == 0;
}

char *
file_id_uuid_str (unsigned char const uuid[16], char buf[FILE_ID_UUID_BUFSIZE])
{
  static char const hex[] = "0123456789abcdef";
  char *p = buf;
  for (int i = 0; i < 16; i++)
    {
      if (i == 4 || i == 6 || i == 8 || i == 10)
        *p++ = '-';
      *p++ = hex[uuid[i] >> 4];
      *p++ = hex[uuid[i] & 0xf];
    }
  *p = '\0';
  return buf;
}

