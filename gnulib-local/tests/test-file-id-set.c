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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"
/* An older gnulib's macros.h (diffutils 3.10's) has no test_exit_status:
   its ASSERT always aborts.  */
#ifndef CONTINUE_AFTER_ASSERT
# define test_exit_status EXIT_SUCCESS
#endif

static int checks;

/* A content check that always says yes or no, and counts its calls.  */
static bool
yes (void const *value, void *arg)
{
  (void) value, (void) arg;
  checks++;
  return true;
}

static bool
no (void const *value, void *arg)
{
  (void) value, (void) arg;
  checks++;
  return false;
}

/* A check of the caller's own: equal names.  */
static bool
same_name (void const *value, void *arg)
{
  checks++;
  return strcmp (value, arg) == 0;
}

static bool
is (void const *value, void const *arg)
{
  return strcmp (value, arg) == 0;
}

/* Add ID to LINKS with a copy of NAME as its value; return what
   file_id_links_add returns, and in *FOUND the value found.  */
static int
add (struct file_id_links *links, struct file_id const *id, char const *name,
     int flags, bool (*check) (void const *, void *), void *arg,
     char const **found)
{
  char *v = strdup (name);
  ASSERT (v);
  void *f = NULL;
  int r = file_id_links_add (links, id, v, flags, check, arg, &f);
  ASSERT (0 <= r);
  if (!r)
    free (v);
  *found = f;
  return r;
}

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

  /* The same files in a hard-link table: the link is the file's link if
     proven so, or if a content check says so where they only look
     alike; another file posing as its twin is not, whatever the check
     says.  */
  {
    struct file_id_links *links = file_id_links_alloc (free);
    ASSERT (links);
    struct file_id kl, kt;
    struct stat stl;
    char const *found;
    ASSERT (file_id_stat_at (AT_FDCWD, "a-link", &stl, 0, &kl) == 0);
    kl.flags = ha.flags;
    ASSERT (file_id_get_handle (&kl, AT_FDCWD, "a-link", 0, &stl) == 0);
    ASSERT (add (links, &ha, "a", 0, NULL, NULL, &found) == 1);
    checks = 0;
    int r = add (links, &kl, "b", 0, no, NULL, &found);
    /* Proven the same without a check, or alike and refused.  */
    ASSERT (r == 0 ? checks == 0 && strcmp (found, "a") == 0 : checks == 1);
    ASSERT (add (links, &kl, "c", 0, yes, NULL, &found) == 0);
    ASSERT (strcmp (found, "a") == 0);
    ASSERT (file_id_copy (&kt, &ha) == 0);
    struct stat other = st;
    other.st_size++;
    ASSERT (file_id_get_handle (&kt, AT_FDCWD, "a", 0, &other) == 0);
    ASSERT (add (links, &kt, "t", 0, yes, NULL, &found) == 1);
    file_id_release (&kl);
    file_id_release (&kt);
    file_id_links_free (links);
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

  /* Hard-link tables with keys that nothing decides (no handle): a file
     is never taken for another, whatever the content check says; a
     directory is if the caller's check says so (cp: one source named
     twice), or if it is one the caller made; exact keys decide alone.
     Removal, of the first member of a (dev, ino) and of a later one.  */
  {
    struct file_id_links *links = file_id_links_alloc (free);
    ASSERT (links);
    char const *found;
    struct file_id f = { .ino = 9, .dev = 99 };
    ASSERT (add (links, &f, "p", 0, NULL, NULL, &found) == 1);
    checks = 0;
    ASSERT (add (links, &f, "q", 0, yes, NULL, &found) == 1);
    ASSERT (checks == 0);
    ASSERT (file_id_links_find (links, &f) == NULL);

    struct file_id d = { .ino = 7, .dev = 99, .flags = FILE_ID_DIR };
    ASSERT (add (links, &d, "x", 0, NULL, NULL, &found) == 1);
    ASSERT (add (links, &d, "y", 0, same_name, (void *) "y", &found) == 1);
    ASSERT (add (links, &d, "x", 0, same_name, (void *) "x", &found) == 0);
    ASSERT (strcmp (found, "x") == 0);
    ASSERT (file_id_links_find (links, &d) == NULL);
    struct file_id d2 = { .ino = 8, .dev = 99, .flags = FILE_ID_DIR };
    ASSERT (add (links, &d2, "m", FILE_ID_LINKS_MADE, NULL, NULL, &found)
            == 1);
    ASSERT (strcmp (file_id_links_find (links, &d2), "m") == 0);
    ASSERT (add (links, &d2, "n", 0, NULL, NULL, &found) == 0);
    ASSERT (strcmp (found, "m") == 0);
    struct file_id d3 = d2;
    d3.flags &= ~FILE_ID_DIR;
    ASSERT (file_id_links_find (links, &d3) == NULL);
    /* A directory made after a source with its numbers, which nothing
       tells apart from it and which has its name: recorded on its own,
       and found; removing takes the last one added.  */
    ASSERT (add (links, &d, "x", FILE_ID_LINKS_MADE, same_name, (void *) "x",
                 &found) == 1);
    ASSERT (strcmp (file_id_links_find (links, &d), "x") == 0);
    file_id_links_remove (links, &d, is, "x");
    ASSERT (file_id_links_find (links, &d) == NULL);
    ASSERT (add (links, &d, "x", 0, same_name, (void *) "x", &found) == 0);
    /* A made file proven the same as a member marks it made.  */
    struct file_id e3 = { .ino = 10, .dev = 100, .subvol = 256,
                          .flags = FILE_ID_EXACT | FILE_ID_HAS_SUBVOL };
    struct file_id f3 = { .ino = 10, .dev = 100 };
    ASSERT (add (links, &e3, "u", 0, NULL, NULL, &found) == 1);
    ASSERT (file_id_links_find (links, &f3) == NULL);
    ASSERT (add (links, &e3, "v", FILE_ID_LINKS_MADE, NULL, NULL, &found)
            == 0);
    ASSERT (strcmp (found, "u") == 0);
    ASSERT (strcmp (file_id_links_find (links, &f3), "u") == 0);

    struct file_id e1 = { .ino = 9, .dev = 100, .subvol = 256,
                          .flags = FILE_ID_EXACT | FILE_ID_HAS_SUBVOL };
    struct file_id e2 = e1;
    e2.subvol = 257;
    ASSERT (add (links, &e1, "e1", 0, NULL, NULL, &found) == 1);
    ASSERT (add (links, &e2, "e2", 0, yes, NULL, &found) == 1);
    ASSERT (add (links, &e2, "e2b", 0, NULL, NULL, &found) == 0);
    ASSERT (strcmp (found, "e2") == 0);
    file_id_links_remove (links, &e1, is, "e1");
    ASSERT (file_id_links_find (links, &e1) == NULL);
    ASSERT (strcmp (file_id_links_find (links, &e2), "e2") == 0);
    ASSERT (add (links, &e1, "e1b", 0, NULL, NULL, &found) == 1);
    file_id_links_remove (links, &e1, is, "e1b");
    ASSERT (file_id_links_find (links, &e1) == NULL);
    file_id_links_remove (links, &e2, is, "none");
    ASSERT (strcmp (file_id_links_find (links, &e2), "e2") == 0);

    /* Enough members for the table to grow.  */
    enum { N = 20000 };
    for (int round = 0; round < 2; round++)
      for (int i = 0; i < N; i++)
        {
          struct file_id k = { .ino = i, .dev = 101, .subvol = 5,
                               .flags = FILE_ID_EXACT | FILE_ID_HAS_SUBVOL };
          char name[32];
          sprintf (name, "%d", i);
          ASSERT (add (links, &k, name, 0, NULL, NULL, &found) == !round);
          ASSERT (round == 0 || strcmp (found, name) == 0);
        }
    file_id_links_free (links);
    file_id_links_free (NULL);
  }

  /* A directory recorded without a handle (file_id_get_handle failed)
     and met again with one: nothing proves them different, so the one
     the caller made is found (cp -R's "into itself" check).  */
  {
    ASSERT (mkdir ("dir", 0700) == 0);
    struct stat dst;
    struct file_id dn, dh;
    ASSERT (file_id_stat_at (AT_FDCWD, "dir", &dst, 0, &dn) == 0);
    file_id_release (&dn);
    dn.flags &= ~(FILE_ID_EXACT | FILE_ID_HAS_SUBVOL);
    ASSERT (dn.flags & FILE_ID_DIR);
    dh = dn;
    ASSERT (file_id_get_handle (&dh, AT_FDCWD, "dir", AT_SYMLINK_FOLLOW,
                                &dst) == 0);
    struct file_id_links *links = file_id_links_alloc (free);
    ASSERT (links);
    char const *found;
    ASSERT (add (links, &dn, "made", FILE_ID_LINKS_MADE, NULL, NULL, &found)
            == 1);
    char const *v = file_id_links_find (links, &dh);
    ASSERT (v && strcmp (v, "made") == 0);
    file_id_release (&dh);
    file_id_links_free (links);
    ASSERT (rmdir ("dir") == 0);
  }

  unlink ("a");
  unlink ("a-link");
  ASSERT (chdir ("..") == 0);
  ASSERT (rmdir (dir) == 0);
  return test_exit_status;
}
