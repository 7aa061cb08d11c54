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

/* Hard-link tables: files by identity, each with a value of the
   caller's (the name of its first copy or archive member), for the tools
   that keep a file's links together (cp -a, tar, cpio, rsync -H).  The
   table decides which files are one; the caller only supplies the
   evidence it has of its own.  A file is a member's link if
   - file_id_compare proves them the same file;
   - nothing proves them different and the member is a file the caller
     made (FILE_ID_LINKS_MADE: cp's new directories, so that copying a
     directory into itself is caught however little the view tells); a
     file added as made is another member's link only if proven the same
     (that member is then marked made);
   - the two only look alike (FILE_ID_ALIKE: hard links of one file, or
     on a view that cannot tell files apart, a snapshot's copy) and
     CHECK (MEMBER_VALUE, ARG) says that the new one has the member's
     content; for directories, which are never linked, CHECK is asked
     wherever nothing proves them different, so that the caller's own
     evidence (cp: one source named twice) can decide.
   Everything else is another file: files that may differ are never
   linked, so nothing is lost.  Keys are kept without their handles, as
   file_id_digest (about 90 bytes per member).  The table hashes only
   (st_dev, st_ino), which is an equivalence; the files that share a pair
   are compared one by one, in the order added.  */

struct file_id_links;

enum { FILE_ID_LINKS_MADE = 1 };

/* Free LINKS and its values.  */
extern void file_id_links_free (struct file_id_links *links);

/* Return a new empty table whose values FREE_VALUE (if not NULL) frees,
   or NULL if out of memory.  */
extern struct file_id_links *file_id_links_alloc (void (*free_value) (void *))
  _GL_ATTRIBUTE_MALLOC _GL_ATTRIBUTE_DEALLOC (file_id_links_free, 1);

/* Add the file ID with VALUE (and FLAGS: 0 or FILE_ID_LINKS_MADE) to
   LINKS unless it is a member's link, as decided above with CHECK and
   ARG (CHECK may be NULL: no content is ever equal).  Return 1 if added
   (LINKS then owns VALUE), 0 if it is a member's link (*FOUND is then that
   member's value), -1 if out of memory.  */
extern int file_id_links_add (struct file_id_links *links,
                              struct file_id const *id, void *value,
                              int flags,
                              bool (*check) (void const *, void *),
                              void *arg, void **found)
  _GL_ATTRIBUTE_NONNULL ((1, 2, 7));

/* The value of the member that ID is proven to be, or that ID cannot be
   proven other than and that was added with FILE_ID_LINKS_MADE; NULL if
   none (so values should not be NULL).  */
extern void *file_id_links_find (struct file_id_links const *links,
                                 struct file_id const *id)
  _GL_ATTRIBUTE_NONNULL ((1, 2)) _GL_ATTRIBUTE_PURE;

/* Remove from LINKS, and free the value of, the member last added of
   those that IS (VALUE, ARG) accepts and that ID is not proven another
   file than.  */
extern void file_id_links_remove (struct file_id_links *links,
                                  struct file_id const *id,
                                  bool (*is) (void const *, void const *),
                                  void const *arg)
  _GL_ATTRIBUTE_NONNULL ((1, 2, 3));

#ifdef __cplusplus
}
#endif

#endif /* FILE_ID_SET_H */
