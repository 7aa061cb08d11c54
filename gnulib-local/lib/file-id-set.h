/* Sets of files, by struct file_id, for hard-link bookkeeping.
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

/* Like di-set for (st_dev, st_ino) pairs, but for struct file_id keys: a
   file is in the set if a member is the SAME file or ALIKE; UNKNOWN
   counts as different, so that files that may differ are never merged
   (du's counting).  Exact keys cost what di-set's pairs cost: an inode
   number in a table per (dev, subvolume).  Keys that need a handle
   (NFS, FUSE) are kept as their inode number and file_id_digest, 32
   bytes and no allocation per key: within twice di-set's memory.  */

#ifndef FILE_ID_SET_H
#define FILE_ID_SET_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

#include "file-id.h"

#ifdef __cplusplus
extern "C" {
#endif

struct file_id_set;

/* Return a new empty set, or NULL if out of memory.  */
extern struct file_id_set *file_id_set_alloc (void)
  _GL_ATTRIBUTE_MALLOC;

/* Free SET and what it owns.  */
extern void file_id_set_free (struct file_id_set *set);

/* Add *ID to SET unless a member is the same file.  Release ID's handle
   in either case (ID->handle is then NULL).  Return 1 if added, 0 if
   SET already had the file, -1 if out of memory.  */
extern int file_id_set_insert (struct file_id_set *set, struct file_id *id)
  _GL_ATTRIBUTE_NONNULL ((1, 2));

#ifdef __cplusplus
}
#endif

#endif /* FILE_ID_SET_H */
