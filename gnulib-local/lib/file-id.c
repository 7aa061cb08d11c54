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

#include "file-id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flexmember.h"
#include "hash.h"
#include "verify.h"

#if defined __linux__
# include <sys/ioctl.h>
# include <sys/statfs.h>
# include <sys/sysmacros.h>
# include <sys/utsname.h>
# if HAVE_LINUX_BTRFS_H
#  include <linux/btrfs.h>
# endif
# include <linux/fs.h>
# define FILE_ID_LINUX 1
#else
# define FILE_ID_LINUX 0
#endif

#if FILE_ID_LINUX && HAVE_STATX

/* Whether the kernel lacks statx, or a sandbox refuses it: seccomp
   profiles of container runtimes answer system calls they do not know
   with EPERM, which statx gives for no other reason.  */
static bool no_statx;

/* Older headers (Linux 6.1, glibc 2.36) lack what Linux 6.10 added:
   STATX_SUBVOL, and stx_subvol at offset 0xa0 of struct statx, where
   older struct statx definitions have padding.  */
# ifndef STATX_SUBVOL
#  define STATX_SUBVOL 0x00008000U
# endif
/* stx_mnt_id (Linux 5.8) is in struct statx where STATX_MNT_ID is.  A
   mount ID is reused once its mount is gone; a unique one (Linux 6.8+,
   STATX_MNT_ID_UNIQUE) never is, so only unique IDs key what is shared
   by mount.  Asked for with STATX_MNT_ID_UNIQUE, stx_mnt_id holds the
   unique ID; older kernels ignore the bit.  */
# ifdef STATX_MNT_ID
#  define HAVE_STX_MNT_ID 1
#  ifndef STATX_MNT_ID_UNIQUE
#   define STATX_MNT_ID_UNIQUE 0x00004000U
#  endif
# else
#  define HAVE_STX_MNT_ID 0
#  define STATX_MNT_ID 0
#  undef STATX_MNT_ID_UNIQUE
#  define STATX_MNT_ID_UNIQUE 0
# endif
# if HAVE_STRUCT_STATX_STX_SUBVOL
#  define STX_SUBVOL(stx) ((stx)->stx_subvol)
# else
verify (sizeof (struct statx) >= 0xa8);
static uint64_t
stx_subvol (struct statx const *stx)
{
  uint64_t v;
  memcpy (&v, (char const *) stx + 0xa0, sizeof v);
  return v;
}
#  define STX_SUBVOL(stx) stx_subvol (stx)
# endif
#endif

#if FILE_ID_LINUX
# include <linux/magic.h>
/* Not in older kernels' <linux/magic.h> (Linux 6.1's).  */
# ifndef BCACHEFS_SUPER_MAGIC
#  define BCACHEFS_SUPER_MAGIC 0xca451a4e
# endif
#endif

#ifndef AT_HANDLE_FID
# define AT_HANDLE_FID 0x200
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

/* Whether ERR, from a system call that examines a file, says that the
   interface is not available here for good: the kernel or the filesystem
   lacks it, or a sandbox refuses it (seccomp profiles answer EPERM).
   Other errors (EMFILE, ENOMEM, a file renamed meanwhile) are no fact
   about the filesystem and are never remembered as one.  */
static bool
unavailable (int err)
{
  return (err == ENOSYS || err == EPERM || err == EACCES || err == ENOTTY
          || err == EOPNOTSUPP || err == ENOTSUP || err == EINVAL);
}

/* What a difference between two file handles of a filesystem proves.
   "Different" needs proof: a handle proves a difference only where its
   format is known to name a file, not a path to it.  */
enum handle_kind
{
  /* Handles prove nothing, or none is taken: a generic FID (Linux 6.7+
     on 9p, CIFS...) holds no more than (st_ino, generation), which a
     snapshot keeps; and filesystems whose handles are not known.  */
  HANDLES_NONE,
  /* Equal handles are one file; different ones may be too: FUSE gives a
     handle per path, knfsd with subtree_check a handle per directory.  */
  HANDLES_PATH,
  /* Equal handles are one file, different ones different files.  */
  HANDLES_FILE,
  /* NFS: HANDLES_FILE or HANDLES_PATH, by the server's handle format.  */
  HANDLES_NFS
};

/* What is known of one filesystem instance (one st_dev).  */
enum
{
  FS_MULTIPLEX = 1 << 0,        /* (dev, ino) alone may not identify a file */
  FS_SUBVOL = 1 << 2,           /* SUBVOL is the dev's subvolume */
  FS_UUID_TRIED = 1 << 3,
  FS_HAS_UUID = 1 << 4,
  FS_LEARNED = 1 << 5,          /* fs_learn has examined it */
  FS_TYPE_KNOWN = 1 << 6,       /* F_TYPE holds statfs's f_type */
  FS_MNT_ID = 1 << 7,           /* MNT_ID holds the ID of a mount of it */
  FS_SUBVOL_SEEN = 1 << 8       /* statx gave SUBVOL, not yet learned */
};
struct fs_info
{
  dev_t dev;
  unsigned int flags;
  unsigned char handles;        /* enum handle_kind */
  uint64_t subvol;
  uint64_t mnt_id;
  unsigned long f_type;
  unsigned char uuid[16];
};

/* Tables from a 64-bit key to a non-null pointer, found by hashing:
   open addressing, linear probing, at most half full.  A btrfs with
   thousands of snapshots has a st_dev per subvolume, so searching a list
   would make a walk quadratic in them.  */
struct u64_slot
{
  uint64_t key;
  void *val;
};
struct u64_table
{
  struct u64_slot *slots;
  size_t mask;
  size_t count;
};

static size_t
u64_mix (uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdu;
  k ^= k >> 33;
  return k;
}

static void *
u64_get (struct u64_table const *t, uint64_t key)
{
  if (!t->slots)
    return NULL;
  for (size_t i = u64_mix (key) & t->mask; t->slots[i].val;
       i = (i + 1) & t->mask)
    if (t->slots[i].key == key)
      return t->slots[i].val;
  return NULL;
}

/* The slot of KEY in T: KEY's own, or the empty one where it would go,
   with room made for it.  Return NULL if out of memory.  */
static struct u64_slot *
u64_slot (struct u64_table *t, uint64_t key)
{
  if (!t->slots || t->mask + 1 < 2 * (t->count + 1))
    {
      size_t n = t->slots ? 2 * (t->mask + 1) : 64;
      if (SIZE_MAX / sizeof (struct u64_slot) < n)
        return NULL;
      struct u64_slot *s = malloc (n * sizeof *s);
      if (!s)
        return NULL;
      /* Only the values mark free slots; calloc would clear all.  */
      for (size_t i = 0; i < n; i++)
        s[i].val = NULL;
      for (size_t i = 0; t->slots && i <= t->mask; i++)
        if (t->slots[i].val)
          {
            size_t j = u64_mix (t->slots[i].key) & (n - 1);
            while (s[j].val)
              j = (j + 1) & (n - 1);
            s[j] = t->slots[i];
          }
      free (t->slots);
      t->slots = s;
      t->mask = n - 1;
    }
  size_t i = u64_mix (key) & t->mask;
  while (t->slots[i].val && t->slots[i].key != key)
    i = (i + 1) & t->mask;
  return &t->slots[i];
}

/* Fill SLOT, empty, from u64_slot (T, KEY), with KEY and VAL.  */
static void
u64_fill (struct u64_table *t, struct u64_slot *slot, uint64_t key, void *val)
{
  *slot = (struct u64_slot) { key, val };
  t->count++;
}

/* Add KEY, which is not in T, with the value VAL.  Return false if out
   of memory.  */
static bool
u64_put (struct u64_table *t, uint64_t key, void *val)
{
  struct u64_slot *slot = u64_slot (t, key);
  if (!slot)
    return false;
  u64_fill (t, slot, key, val);
  return true;
}

static void
u64_clear (struct u64_table *t)
{
  free (t->slots);
  *t = (struct u64_table) { NULL, 0, 0 };
}

/* What is known of each st_dev met, and the last one found: consecutive
   files nearly always share one.  Entries are never freed or moved.  */
static struct u64_table fs_table;
static struct fs_info *fs_last;

static struct fs_info *
fs_find (dev_t dev)
{
  if (fs_last && fs_last->dev == dev)
    return fs_last;
  struct fs_info *fi = u64_get (&fs_table, dev);
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
  struct u64_slot *slot = u64_slot (&fs_table, dev);
  if (!slot)
    return NULL;
  struct fs_info *fi = slot->val;
  if (!fi)
    {
      /* Entries are carved from blocks: one malloc per 256 st_devs, few
         long-lived blocks amid the caller's allocations.  */
      static struct fs_info *block;
      static size_t block_left;
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
      u64_fill (&fs_table, slot, dev, fi);
    }
  fs_last = fi;
  return fi;
}

/* What statx said of st_dev values, in the order met: the mount each was
   seen through, and its subvolume (-1: none, or a btrfs placeholder's).
   fs_note only appends here; the table takes them in when something
   needs it (fs_get), so a walk that never examines a filesystem (find
   on local btrfs, where statx gives every directory's subvolume) pays
   no more than an append per subvolume.  */
struct fs_noted
{
  dev_t dev;
  uint64_t mnt_id;
  int64_t subvol;
};
static struct fs_noted *noted;
static size_t noted_count;
static size_t noted_alloc;
static dev_t noted_last;        /* the st_dev noted last, if NOTED_ANY */
static bool noted_any;

/* Enter the noted st_dev values into the table.  */
static void
notes_flush (void)
{
  for (size_t i = 0; i < noted_count; i++)
    {
      struct fs_info *fi = fs_get_raw (noted[i].dev);
      if (!fi)
        break;
      if (fi->flags & FS_LEARNED)
        continue;
      if (!(fi->flags & FS_MNT_ID))
        {
          fi->mnt_id = noted[i].mnt_id;
          fi->flags |= FS_MNT_ID;
        }
      if (0 <= noted[i].subvol && !(fi->flags & FS_SUBVOL_SEEN))
        {
          fi->subvol = noted[i].subvol;
          fi->flags |= FS_SUBVOL_SEEN;
        }
    }
  noted_count = 0;
}

/* DEV's entry, with what was noted of it, added if new; NULL if out of
   memory.  */
static struct fs_info *
fs_get (dev_t dev)
{
  if (fs_last && fs_last->dev == dev)
    return fs_last;
  if (noted_count)
    notes_flush ();
  return fs_get_raw (dev);
}

#if FILE_ID_LINUX
/* The entries that fs_learn examined, by the ID of the mount it looked
   through.  Every st_dev seen through one mount belongs to its
   superblock: the same type and the same facts, only the subvolume
   differs.  So a st_dev first seen through a known mount (one per btrfs
   subvolume) is learned from that mount's entry at no system call.  */
static struct u64_table mount_facts;

/* Learn FI, not yet examined, from the entry of the mount with ID MNT_ID
   if it has one.  SUBVOL is FI's subvolume where the kernel reported it
   for a file of FI other than the placeholder that a btrfs snapshot holds
   for a nested subvolume, else -1.  Return whether FI is now learned.  */
static bool
fs_learn_from_mount (struct fs_info *fi, uint64_t mnt_id, int64_t subvol)
{
  struct fs_info const *m = u64_get (&mount_facts, mnt_id);
  if (!m)
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
  r = file_id_statx (fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT,
                     STATX_TYPE | STATX_INO | STATX_MNT_ID
                     | STATX_MNT_ID_UNIQUE, &stx);
  if (r == 0)
    {
      st.st_dev = makedev (stx.stx_dev_major, stx.stx_dev_minor);
      st.st_ino = stx.stx_ino;
      st.st_mode = stx.stx_mode;
      *mnt_id = stx.stx_mnt_id;
      *mnt_id_kind = ((stx.stx_mask & STATX_MNT_ID_UNIQUE ? MNT_ID_UNIQUE : 0)
                      | (stx.stx_mask & STATX_MNT_ID ? MNT_ID_REUSABLE : 0));
      *subvol = file_id_statx_subvol (&stx);
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
static struct u64_table mounts_by_id;
static struct u64_table mounts_by_dev;
static char const mount_9p[] = "9p";
static char const mount_other[] = "other";

static bool
mounts_add (struct u64_table *t, uint64_t key, bool nine_p)
{
  return (u64_get (t, key)
          || u64_put (t, key, (void *) (nine_p ? mount_9p : mount_other)));
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

/* Read the mount table into MOUNTS.  One buffer and a scan by hand: the
   whole table costs fewer instructions than stdio and sscanf would.  */
static void
mounts_read (void)
{
  int fd = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
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
        break;
      used += r;
    }
  close (fd);
  if (!buf)
    return;
  buf[used] = '\0';
  u64_clear (&mounts_by_id);
  u64_clear (&mounts_by_dev);
  for (char const *line = buf; *line; )
    {
      /* ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE ... */
      char const *end = strchr (line, '\n');
      if (!end)
        end = line + strlen (line);
      char const *p = line;
      uint64_t id = parse_num (&p);
      parse_num (&p);
      unsigned int major = parse_num (&p);
      unsigned int minor = parse_num (&p);
      char const *sep = strstr (p, " - ");
      bool nine_p = sep && sep < end && strncmp (sep + 3, "9p ", 3) == 0;
      if (! (mounts_add (&mounts_by_id, id, nine_p)
             && mounts_add (&mounts_by_dev, makedev (major, minor), nine_p)))
        break;
      line = *end ? end + 1 : end;
    }
  free (buf);
}

/* Whether the mount with ID MNT_ID (if BY_ID) or, else, whose device is
   DEV is a 9p filesystem, as /proc/self/mountinfo says; false if
   unknown.  */
static bool
mountinfo_9p (bool by_id, uint64_t mnt_id, dev_t dev)
{
  for (int pass = 0; pass < 2; pass++)
    {
      char const *m = (by_id ? u64_get (&mounts_by_id, mnt_id)
                       : u64_get (&mounts_by_dev, dev));
      if (m)
        return m == mount_9p;
      if (pass == 0)
        mounts_read ();
    }
  /* Not a mount's own device (a btrfs subvolume), or not there.  */
  if (!by_id)
    mounts_add (&mounts_by_dev, dev, false);
  return false;
}

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
      if (unavailable (e))
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

/* Whether the running kernel reports STATX_SUBVOL where a filesystem has
   subvolumes (Linux 6.10+), overlayfs passing its layers' through.  */
static bool
kernel_reports_subvol (void)
{
  static int known;             /* 0: not yet asked; 1: yes; -1: no */
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
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  if (!f)
    return false;
  char *line = NULL;
  size_t size = 0;
  bool found = false, exact = false;
  while (!found && getline (&line, &size, f) >= 0)
    {
      /* ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE
         SOURCE SUPEROPTIONS */
      unsigned int major, minor;
      if (sscanf (line, "%*u %*u %u:%u", &major, &minor) != 2
          || makedev (major, minor) != dev)
        continue;
      char *sep = strstr (line, " - ");
      if (!sep)
        break;
      char *type = sep + 3;
      char *source = strchr (type, ' ');
      char *opts = source ? strchr (source + 1, ' ') : NULL;
      if (!opts || strncmp (type, "overlay ", 8) != 0)
        break;
      found = true;
      opts[strcspn (opts, "\n")] = '\0';
      int layers = 0;
      exact = true;
      char *osave;
      for (char *o = strtok_r (opts + 1, ",", &osave); exact && o;
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
          for (char *l = strtok_r (v, ":", &v); exact && l;
               l = strtok_r (NULL, ":", &v))
            {
              exact = layer_exact (l);
              layers++;
            }
        }
      exact = exact && 0 < layers;
    }
  free (line);
  fclose (f);
  return exact;
}
#endif

/* What fs_learn answers for a filesystem that cannot be examined now
   (a file renamed meanwhile, EMFILE...): nothing is known, and nothing
   is cached, so that a later file tries again.  Its (dev, ino) may not
   identify a file, and its handles prove nothing.  */
static struct fs_info fs_unknown = { .flags = FS_MULTIPLEX | FS_LEARNED,
                                     .handles = HANDLES_NONE };

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
  /* An entry that fs_note, file_id_fs_uuid or file_id_same_fs made may
     exist without having been examined.  */
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
# if HAVE_STATX && HAVE_STX_MNT_ID
  /* A st_dev that only fstatat showed (cp's status of each file), once a
     mount has been examined: one statx of the file itself, which opens
     nothing, says whether it is another subvolume of a known mount.  */
  if (!(fi->flags & FS_MNT_ID) && mount_facts.count && !no_statx)
    {
      struct statx stx;
      if (statx (dirfd, name ? name : "",
                 (name ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) | AT_NO_AUTOMOUNT,
                 STATX_TYPE | STATX_INO | STATX_SUBVOL | STATX_MNT_ID_UNIQUE,
                 &stx) == 0
          && (stx.stx_mask & STATX_MNT_ID_UNIQUE)
          && makedev (stx.stx_dev_major, stx.stx_dev_minor) == dev
          && stx.stx_ino == ino
          && fs_learn_from_mount (fi, stx.stx_mnt_id,
                                  ((stx.stx_mask & STATX_SUBVOL)
                                   && ! (S_ISDIR (stx.stx_mode) && ino == 2)
                                   ? (int64_t) STX_SUBVOL (&stx) : -1)))
        return fi;
    }
# endif
  bool close_it;
  int64_t subvol;
  int fd = fs_type_learn (fi, dirfd, name, is_dir, ino, &close_it, &subvol);
  if (fd < 0)
    {
      if (!unavailable (errno))
        return &fs_unknown;
      fi->flags |= FS_LEARNED | FS_MULTIPLEX;
      fi->handles = HANDLES_NONE;
      return fi;
    }
  fi->flags |= FS_LEARNED;
  switch (fi->f_type)
    {
    case FUSE_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = HANDLES_PATH;
      break;
    case NFS_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = HANDLES_NFS;
      break;
    case OVERLAYFS_SUPER_MAGIC:
      /* Exact where its layers are (a container's root on ext4 or xfs);
         else, over btrfs subvolumes on a kernel that does not report
         them, its handles embed the layers' own.  */
      if (!overlay_layers_exact (dev))
        {
          fi->flags |= FS_MULTIPLEX;
          fi->handles = HANDLES_FILE;
        }
      break;
    case SMB_SUPER_MAGIC: case CIFS_SUPER_MAGIC: case SMB2_SUPER_MAGIC:
    case V9FS_MAGIC: case CEPH_SUPER_MAGIC: case AFS_FS_MAGIC:
    case AFS_SUPER_MAGIC: case BCACHEFS_SUPER_MAGIC:
      fi->flags |= FS_MULTIPLEX;
      fi->handles = HANDLES_NONE;
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
          break;
        }
# if HAVE_LINUX_BTRFS_H
      {
        int rfd = reopen_dir (fd, fi->f_type);
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
  if ((fi->flags & FS_MNT_ID) && !u64_get (&mount_facts, fi->mnt_id))
    u64_put (&mount_facts, fi->mnt_id, fi);
#else
  (void) ino, (void) dirfd, (void) name, (void) is_dir;
  fi->flags |= FS_LEARNED;
#endif
  return fi;
}

static void
id_init (struct file_id *id, dev_t dev, ino_t ino, mode_t mode)
{
  id->ino = ino;
  id->dev = dev;
  id->subvol = 0;
  id->flags = S_ISDIR (mode) ? FILE_ID_DIR : 0;
  id->handle = NULL;
}

/* Complete *ID, for which the kernel gave no subvolume.  STATX_SAID
   says whether that is what a statx answered, rather than an fstatat
   that could not ask.  */
static void
id_complete (struct file_id *id, int dirfd, char const *name, bool statx_said)
{
  /* Consecutive files nearly always share a filesystem.  */
  struct fs_info *fi = (fs_last && fs_last->dev == id->dev
                        && (fs_last->flags & FS_LEARNED)
                        ? fs_last
                        : fs_learn (id->dev, id->ino, dirfd, name,
                                    !!(id->flags & FILE_ID_DIR)));
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
  if (!fi || !(fi->flags & FS_MULTIPLEX))
    {
      id->flags |= FILE_ID_EXACT;
      if (fi && (fi->flags & FS_SUBVOL))
        {
          id->subvol = fi->subvol;
          id->flags |= FILE_ID_HAS_SUBVOL;
        }
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
  if (no_statx)
    {
      errno = ENOSYS;
      return -1;
    }
  /* The subvolume and the mount ID cost nothing more.  */
  /* A caller that asks for the mount ID gets the one it asked for.  */
  int r = statx (dirfd, name, flags,
                 (mask | STATX_SUBVOL
                  | (mask & (STATX_MNT_ID | STATX_MNT_ID_UNIQUE)
                     ? 0 : STATX_MNT_ID_UNIQUE)),
                 stx);
  if (r != 0 && (errno == ENOSYS || errno == EPERM))
    {
      no_statx = true;
      errno = ENOSYS;
    }
  return r;
}

int64_t
file_id_statx_subvol (struct statx const *stx)
{
  return stx->stx_mask & STATX_SUBVOL ? (int64_t) STX_SUBVOL (stx) : -1;
}

/* Note what statx STX says of the st_dev of its file: the mount it was
   seen through and, unless the file is a placeholder that a btrfs
   snapshot holds for a nested subvolume, the subvolume.  Other files of
   that st_dev, whose status has neither (fstatat), are then learned from
   the mount's facts: one examination per mount, not per subvolume.  */
static void
fs_note (dev_t dev, struct statx const *stx)
{
# if HAVE_STX_MNT_ID
  if (! (stx->stx_mask & STATX_MNT_ID_UNIQUE))
    return;
  noted_last = dev;
  noted_any = true;
  if (noted_count == noted_alloc)
    {
      /* Few, large steps: blocks freed amid a walk's allocations would
         slow its mallocs.  */
      size_t n = noted_alloc ? 4 * noted_alloc : 256;
      struct fs_noted *p = (n <= SIZE_MAX / sizeof *p
                            ? realloc (noted, n * sizeof *p) : NULL);
      if (!p)
        return;
      noted = p;
      noted_alloc = n;
    }
  noted[noted_count++] = (struct fs_noted) {
    dev, stx->stx_mnt_id,
    ((stx->stx_mask & STATX_SUBVOL)
     && ! (S_ISDIR (stx->stx_mode) && stx->stx_ino == 2)
     ? (int64_t) STX_SUBVOL (stx) : -1)
  };
# else
  (void) dev, (void) stx;
# endif
}

void
file_id_from_statx (struct file_id *id, struct statx const *stx,
                    int dirfd, char const *name)
{
  id_init (id, makedev (stx->stx_dev_major, stx->stx_dev_minor),
           stx->stx_ino, stx->stx_mode);
  if (! (noted_any && noted_last == id->dev))
    fs_note (id->dev, stx);
  if (stx->stx_mask & STATX_SUBVOL)
    {
      id->subvol = STX_SUBVOL (stx);
      id->flags |= FILE_ID_HAS_SUBVOL | FILE_ID_EXACT;
    }
  else
    id_complete (id, dirfd, name, true);
}

/* Inline: fts calls this for every directory, and each instruction
   counts against stock's fstatat.  The fields that struct stat has and
   statx does not (padding) are left as they are: nothing reads them.  */
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

int
file_id_stat_at (int dirfd, char const *name, struct stat *st, int flags,
                 struct file_id *id)
{
  /* "" with AT_EMPTY_PATH is DIRFD itself; opening "" relative to it
     would fail.  */
  char const *id_name = (flags & AT_EMPTY_PATH) && !*name ? NULL : name;
  struct statx stx;
  /* fstatat never triggers an automount; neither must this.  The common
     case is written out here, since fts calls this for every directory:
     what file_id_from_statx does, without the calls.  */
  if (!no_statx
      && statx (dirfd, name, flags | AT_NO_AUTOMOUNT,
                STATX_BASIC_STATS | STATX_SUBVOL | STATX_MNT_ID_UNIQUE,
                &stx) == 0)
    {
      statx_to_stat (st, &stx);
      id->ino = st->st_ino;
      id->dev = st->st_dev;
      id->handle = NULL;
      id->flags = S_ISDIR (st->st_mode) ? FILE_ID_DIR : 0;
      if (! (noted_any && noted_last == id->dev))
        fs_note (id->dev, &stx);
      if (stx.stx_mask & STATX_SUBVOL)
        {
          id->subvol = STX_SUBVOL (&stx);
          id->flags |= FILE_ID_HAS_SUBVOL | FILE_ID_EXACT;
        }
      else
        {
          id->subvol = 0;
          id_complete (id, dirfd, id_name, true);
        }
      return 0;
    }
  if (!no_statx)
    {
      if (errno != ENOSYS && errno != EPERM)
        return -1;
      no_statx = true;
    }
  if (fstatat (dirfd, name, st, flags) != 0)
    return -1;
  file_id_from_stat (id, st, dirfd, id_name);
  return 0;
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

int64_t
file_id_statx_subvol (struct statx const *stx)
{
  (void) stx;
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
  unsigned int bytes;           /* 0 if KIND is HANDLES_NONE */
  unsigned char kind;           /* enum handle_kind, never HANDLES_NFS */
  bool has_meta;
  unsigned char f_handle[FLEXIBLE_ARRAY_MEMBER];
};

#if FILE_ID_LINUX && HAVE_NAME_TO_HANDLE_AT && defined MAX_HANDLE_SZ
/* Whether the kernel refused AT_HANDLE_FID (before Linux 6.5).  */
static bool no_handle_fid;
/* Whether name_to_handle_at is missing, or refused by a sandbox.  */
static bool no_handles;

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

/* The kind of the handle H of BYTES bytes that the Linux NFS client gave.
   It embeds the server's handle (fs/nfs/export.c: the 64-bit file ID,
   the file type, then a struct nfs_fh, a 16-bit length and the bytes).
   That names a file only in a format known to carry no parent: knfsd's
   version 1 with a file ID type without parent.  With the export option
   subtree_check, knfsd puts the parent directory in the handles of other
   files than directories, and two hard links in two directories get two
   handles; other servers' formats are unknown.  */
static enum handle_kind
nfs_handle_kind (unsigned char const *h, unsigned int bytes)
{
  enum { SIZE_OFFSET = 12, DATA_OFFSET = SIZE_OFFSET + 2 };
  unsigned short size;
  if (bytes < DATA_OFFSET)
    return HANDLES_PATH;
  memcpy (&size, h + SIZE_OFFSET, sizeof size);
  if (bytes - DATA_OFFSET < size || size < 4)
    return HANDLES_PATH;
  unsigned char const *fh = h + DATA_OFFSET;
  int fsid_len = knfsd_fsid_len (fh[2]);
  int fid_len = parentless_fid_len (fh[3]);
  return (fh[0] == 1 && fh[1] == 0 && 0 <= fsid_len && 0 <= fid_len
          && size == 4 + fsid_len + fid_len
          ? HANDLES_FILE : HANDLES_PATH);
}
#endif

int
file_id_get_handle (struct file_id *id, int dirfd, char const *name,
                    int flags, struct stat const *st)
{
  struct fs_info *fi = fs_find (id->dev);
  enum handle_kind kind = fi ? fi->handles : HANDLES_NONE;
  int type = -1;
  unsigned int bytes = 0;
#if FILE_ID_LINUX && HAVE_NAME_TO_HANDLE_AT && defined MAX_HANDLE_SZ
  union
  {
    struct file_handle fh;
    unsigned char buf[sizeof (struct file_handle) + MAX_HANDLE_SZ];
  } u;
  /* A handle that proves nothing is not worth a system call.  */
  if (kind != HANDLES_NONE && !no_handles)
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
          if (kind == HANDLES_NFS)
            kind = nfs_handle_kind (u.fh.f_handle, bytes);
        }
      else if (errno == ENOSYS || errno == EPERM)
        {
          /* Not here at all, or refused by a sandbox: the metadata
             alone still tell apart files that differ.  */
          no_handles = true;
          kind = HANDLES_NONE;
        }
      else if (errno == EOPNOTSUPP)
        {
          /* A filesystem that cannot encode handles (overlayfs before
             Linux 6.6 without nfs_export).  */
          if (fi)
            fi->handles = HANDLES_NONE;
          kind = HANDLES_NONE;
        }
      else
        return -1;
    }
  else
    kind = HANDLES_NONE;
#else
  (void) dirfd, (void) name, (void) flags;
  kind = HANDLES_NONE;
#endif
  if (kind == HANDLES_NONE)
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

void
file_id_release (struct file_id *id)
{
  free (id->handle);
  id->handle = NULL;
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
  bool handles = ha->kind != HANDLES_NONE && hb->kind != HANDLES_NONE;
  if (handles)
    {
      if (ha->type == hb->type && ha->bytes == hb->bytes
          && memcmp (ha->f_handle, hb->f_handle, ha->bytes) == 0)
        return FILE_ID_SAME;
      if (ha->kind == HANDLES_FILE && hb->kind == HANDLES_FILE)
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

enum file_id_answer
file_id_same_file_at (int a_dirfd, char const *a_name, struct stat const *a_st,
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
    r = file_id_compare (&a, &b);
  file_id_release (&a);
  file_id_release (&b);
  return r;
}

size_t
file_id_hash (struct file_id const *id, size_t table_size)
{
  /* Like di-set and ino-map: the inode number carries nearly all the
     entropy; the device is folded in cheaply.  */
  uintmax_t h = id->ino ^ ((uintmax_t) id->dev * 0x9e3779b97f4a7c15u >> 7);
  return h % table_size;
}

bool
file_id_needs_handle (struct file_id const *id)
{
  return !(id->flags & (FILE_ID_EXACT | FILE_ID_HAS_SUBVOL));
}

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
          if (unavailable (errno))
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
                           ? u64_get (&mount_facts, fi->mnt_id) : NULL);
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
   st_dev and names them all with one UUID (btrfs, bcachefs); if so, set
   *FIP to its cache entry, with its UUID tried.  */
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
  if (! ((fi->flags & FS_TYPE_KNOWN)
         && (fi->f_type == BTRFS_SUPER_MAGIC
             || fi->f_type == BCACHEFS_SUPER_MAGIC)))
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

/* Sets of files.  */

/* Exact keys (all keys on local filesystems) go in open-addressing
   tables of inode numbers, one per (dev, subvolume): 8 bytes a key and
   no allocation per key, less memory than the (dev, ino) set du used
   before, which matters when every file is recorded.  The others, which
   may need their handles, go in a hash table of struct file_id.  An exact
   key without a subvolume counts as subvolume 0 there; compared with the
   same file's key with one, it would be taken for another file: never
   merged, which is the safe side for hard-link bookkeeping.
   gnulib's di-set keeps (dev, ino) pairs much like this, but it has no
   subvolume in its key and findutils does not import it; this module
   must build in both.  */
struct ino_table
{
  dev_t dev;
  uint64_t subvol;
  ino_t *slots;                 /* NSLOTS slots, a power of 2; or NULL */
  size_t nslots;
  size_t used;
  bool has_zero;                /* whether inode number 0 is a member */
};

struct file_id_set
{
  struct ino_table *inos;       /* NINOS tables, by first use */
  size_t ninos;
  size_t inos_alloc;
  size_t last;                  /* the table used last, if NINOS */
  size_t *inos_by_key;          /* INOS found by (dev, subvol): each slot
                                   an index into INOS plus 1, or 0 */
  size_t inos_by_key_mask;
  Hash_table *table;            /* or NULL until needed */
  char *chunk;                  /* the newest chunk of TABLE's entries,
                                   which links to the older ones; or NULL */
  size_t chunk_size;
  size_t chunk_used;
};

/* The entries of the hash table are keys, each with a copy of its handle
   right after it.  They are never removed one by one, so they are packed
   in chunks that the set owns, each chunk starting with a pointer to the
   one before: through FUSE, where every file has such a key, a malloc
   each for key and handle cost a fifth more memory and a brk call per
   thousand files.  gnulib's obstack would do this, but findutils does not
   import it; this module must build in both.  */
enum
{
  SET_ALIGN = (FLEXALIGNOF (struct file_id)
               < FLEXALIGNOF (struct file_id_handle)
               ? FLEXALIGNOF (struct file_id_handle)
               : FLEXALIGNOF (struct file_id)),
  SET_HANDLE_OFFSET = ((sizeof (struct file_id) + SET_ALIGN - 1)
                       & ~(SET_ALIGN - 1)),
  SET_CHUNK_HEAD = (sizeof (char *) + SET_ALIGN - 1) & ~(SET_ALIGN - 1),
  /* Chunks double from the first size to the last, which is well above
     malloc's mmap threshold: about one system call per 8,000 keys.  */
  SET_CHUNK_FIRST = 4096,
  SET_CHUNK_LAST = 1024 * 1024
};

/* Return N bytes in SET's chunks, at an offset in the chunk that is a
   multiple of SET_ALIGN, or NULL if out of memory.  N is a multiple of
   SET_ALIGN.  */
static char *
set_space (struct file_id_set *set, size_t n)
{
  if (set->chunk_size - set->chunk_used < n)
    {
      size_t size = (!set->chunk_size ? SET_CHUNK_FIRST
                     : set->chunk_size < SET_CHUNK_LAST
                     ? 2 * set->chunk_size : set->chunk_size);
      if (size - SET_CHUNK_HEAD < n)
        size = SET_CHUNK_HEAD + n;
      char *c = malloc (size);
      if (!c)
        return NULL;
      memcpy (c, &set->chunk, sizeof set->chunk);
      set->chunk = c;
      set->chunk_size = size;
      set->chunk_used = SET_CHUNK_HEAD;
    }
  char *p = set->chunk + set->chunk_used;
  set->chunk_used += n;
  return p;
}

static size_t
ino_slot (ino_t ino, size_t mask)
{
  /* Inode numbers come in runs: mix all the bits (MurmurHash3's
     finalizer), or linear probing piles them up.  */
  uint64_t h = ino;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return h & mask;
}

static size_t
ino_table_key (dev_t dev, uint64_t subvol)
{
  return u64_mix ((uint64_t) dev * 0x9e3779b97f4a7c15u ^ subvol);
}

/* The table for DEV and SUBVOL, added if new; NULL if out of memory.
   A walk meets one subvolume after another, so the last one almost
   always matches; the others are found by hashing (a btrfs may have
   thousands of subvolumes).  */
static struct ino_table *
ino_table_get (struct file_id_set *set, dev_t dev, uint64_t subvol)
{
  if (set->ninos)
    {
      struct ino_table *t = &set->inos[set->last];
      if (t->dev == dev && t->subvol == subvol)
        return t;
    }
  size_t mask = set->inos_by_key_mask;
  size_t j = ino_table_key (dev, subvol) & mask;
  for (; set->inos_by_key && set->inos_by_key[j]; j = (j + 1) & mask)
    {
      size_t i = set->inos_by_key[j] - 1;
      if (set->inos[i].dev == dev && set->inos[i].subvol == subvol)
        {
          set->last = i;
          return &set->inos[i];
        }
    }
  if (!set->inos_by_key || mask + 1 < 2 * (set->ninos + 1))
    {
      size_t n = set->inos_by_key ? 2 * (mask + 1) : 16;
      size_t *s = (n <= SIZE_MAX / sizeof *s ? calloc (n, sizeof *s) : NULL);
      if (!s)
        return NULL;
      for (size_t i = 0; i < set->ninos; i++)
        {
          size_t k = ino_table_key (set->inos[i].dev, set->inos[i].subvol);
          for (k &= n - 1; s[k]; k = (k + 1) & (n - 1))
            continue;
          s[k] = i + 1;
        }
      free (set->inos_by_key);
      set->inos_by_key = s;
      set->inos_by_key_mask = mask = n - 1;
      for (j = ino_table_key (dev, subvol) & mask; s[j]; j = (j + 1) & mask)
        continue;
    }
  if (set->ninos == set->inos_alloc)
    {
      size_t n = set->inos_alloc ? 2 * set->inos_alloc : 4;
      struct ino_table *p = (n <= SIZE_MAX / sizeof *p
                             ? realloc (set->inos, n * sizeof *p) : NULL);
      if (!p)
        return NULL;
      set->inos = p;
      set->inos_alloc = n;
    }
  struct ino_table *t = &set->inos[set->ninos];
  t->dev = dev;
  t->subvol = subvol;
  t->slots = NULL;
  t->nslots = t->used = 0;
  t->has_zero = false;
  set->inos_by_key[j] = set->ninos + 1;
  set->last = set->ninos++;
  return t;
}

static bool
ino_table_grow (struct ino_table *t)
{
  /* Small at first: a snapshot's table may hold one hard link.  */
  size_t n = t->nslots ? 2 * t->nslots : 16;
  ino_t *p = (n <= SIZE_MAX / sizeof *p ? calloc (n, sizeof *p) : NULL);
  if (!p)
    return false;
  for (size_t i = 0; i < t->nslots; i++)
    if (t->slots[i])
      {
        size_t j = ino_slot (t->slots[i], n - 1);
        while (p[j])
          j = (j + 1) & (n - 1);
        p[j] = t->slots[i];
      }
  free (t->slots);
  t->slots = p;
  t->nslots = n;
  return true;
}

/* Add INO to T: return 1 if it was not there, 0 if it was, -1 if out of
   memory.  An empty slot is 0, so that a new table comes zeroed from
   calloc; inode number 0 itself is kept aside.  */
static int
ino_table_insert (struct ino_table *t, ino_t ino)
{
  if (ino == 0)
    {
      bool added = !t->has_zero;
      t->has_zero = true;
      return added;
    }
  if (t->nslots <= 2 * (t->used + 1) && !ino_table_grow (t))
    return -1;
  size_t mask = t->nslots - 1;
  for (size_t j = ino_slot (ino, mask); ; j = (j + 1) & mask)
    {
      if (t->slots[j] == 0)
        {
          t->slots[j] = ino;
          t->used++;
          return 1;
        }
      if (t->slots[j] == ino)
        return 0;
    }
}

static size_t
set_hash (void const *x, size_t table_size)
{
  return file_id_hash (x, table_size);
}

/* Equality for the table: SAME is an equivalence (equal subvolumes,
   exact keys, or equal handles), and equal keys hash alike.  */
static bool
set_equal (void const *x, void const *y)
{
  enum file_id_answer same = file_id_compare (x, y);
  return same == FILE_ID_SAME || same == FILE_ID_ALIKE;
}

struct file_id_set *
file_id_set_alloc (void)
{
  struct file_id_set *set = malloc (sizeof *set);
  if (!set)
    return NULL;
  set->inos = NULL;
  set->ninos = set->inos_alloc = set->last = 0;
  set->inos_by_key = NULL;
  set->inos_by_key_mask = 0;
  set->table = NULL;
  set->chunk = NULL;
  set->chunk_size = set->chunk_used = 0;
  return set;
}

void
file_id_set_free (struct file_id_set *set)
{
  if (set)
    {
      for (size_t i = 0; i < set->ninos; i++)
        free (set->inos[i].slots);
      free (set->inos);
      free (set->inos_by_key);
      if (set->table)
        hash_free (set->table);
      for (char *c = set->chunk; c; )
        {
          char *prev;
          memcpy (&prev, c, sizeof prev);
          free (c);
          c = prev;
        }
      free (set);
    }
}

int
file_id_set_insert (struct file_id_set *set, struct file_id *id)
{
  if (id->flags & FILE_ID_EXACT)
    {
      struct ino_table *t
        = ino_table_get (set, id->dev,
                         id->flags & FILE_ID_HAS_SUBVOL ? id->subvol : 0);
      ino_t ino = id->ino;
      file_id_release (id);
      return t ? ino_table_insert (t, ino) : -1;
    }
  if (!set->table)
    {
      set->table = hash_initialize (1021, NULL, set_hash, set_equal, NULL);
      if (!set->table)
        {
          file_id_release (id);
          return -1;
        }
    }
  struct file_id_handle const *h = id->handle;
  size_t hsize = (h ? FLEXSIZEOF (struct file_id_handle, f_handle, h->bytes)
                  : 0);
  char *p = set_space (set, (SET_HANDLE_OFFSET
                             + ((hsize + SET_ALIGN - 1) & ~(SET_ALIGN - 1))));
  if (!p)
    {
      file_id_release (id);
      return -1;
    }
  struct file_id *e = (struct file_id *) p;
  *e = *id;
  if (h)
    {
      e->handle = (struct file_id_handle *) (p + SET_HANDLE_OFFSET);
      memcpy (e->handle, h, hsize);
    }
  file_id_release (id);
  int r = hash_insert_if_absent (set->table, e, NULL);
  if (r != 1)
    set->chunk_used = p - set->chunk;
  return r;
}
