/* file-id-probe -- the test suite's probe of the file-id module.
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

/* Asks the module about files on the suite's real filesystems
   (subvol.module/file-id.exp, built by make check against our findutils'
   gnulib; the module's own unit test is gnulib-local/tests/test-file-id.c):
     file-id-probe show FILE...     print "SUBVOL FLAGS UUID FILE" lines
     file-id-probe compare A B      print same, different, alike or unknown,
                                    comparing with handles where needed
                                    (status 3 if file_id_may_be_same or
                                    file_id_proven_same contradicts the
                                    keys: the latter, made without statx
                                    where a sandbox refuses it, may prove
                                    less)
     file-id-probe samefs A B       print same-fs or different-fs
     file-id-probe record DIR       record a key for every entry of DIR, as
                                    du or cp would (with a handle where
                                    needed), and print what that cost
     file-id-probe session          read such commands from standard
                                    input, one per line ("show F",
                                    "compare A B", "record D", "dev F"), in one
                                    process, answering each with its
                                    lines and then "ok" or "failed"
                                    (subvol.module/dev-reuse.exp)
     file-id-probe threads DIR...   walk each DIR in a thread of its
                                    own, all at once, with fts,
                                    file_id_stat_at (and a handle where
                                    needed) and canonicalize on every
                                    entry, and print "DIR ENTRIES
                                    CYCLES" for each (subvol.module/
                                    threads.exp runs it under helgrind)
   SUBVOL is "-" where unknown, UUID "?" where there is none.  */

#include <config.h>

#include "file-id.h"
#include "file-id-fs.h"

#include "canonicalize.h"
#include "fts_.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char const *
answer_name (enum file_id_answer a)
{
  return (a == FILE_ID_SAME ? "same"
          : a == FILE_ID_DIFFERENT ? "different"
          : a == FILE_ID_ALIKE ? "alike" : "unknown");
}

static int
get (char const *name, struct file_id *id, struct stat *st)
{
  if (file_id_stat_at (AT_FDCWD, name, st, AT_SYMLINK_NOFOLLOW, id) != 0)
    {
      fprintf (stderr, "file-id-probe: %s: %s\n", name, strerror (errno));
      return -1;
    }
  return 0;
}

static int
show (int argc, char **argv)
{
  int status = 0;
  for (int i = 0; i < argc; i++)
    {
      struct file_id id;
      struct stat st;
      unsigned char uuid[16];
      char buf[FILE_ID_UUID_BUFSIZE];
      if (get (argv[i], &id, &st) != 0)
        {
          status = 1;
          continue;
        }
      if (id.flags & FILE_ID_HAS_SUBVOL)
        printf ("%llu", (unsigned long long) id.subvol);
      else
        printf ("-");
      printf (" %s%s",
              id.flags & FILE_ID_EXACT ? "exact" : "inexact",
              id.flags & FILE_ID_DIR ? ",dir" : "");
      printf (" %s %s\n",
              (file_id_fs_uuid (id.dev, AT_FDCWD, argv[i], uuid)
               ? file_id_uuid_str (uuid, buf) : "?"),
              argv[i]);
    }
  return status;
}

/* Print "yes" or "no" for each FILE: whether its device and inode
   numbers identify it (file_id_numbers_identify).  */
static int
identifies (int argc, char **argv)
{
  int status = 0;
  for (int i = 0; i < argc; i++)
    {
      struct stat st;
      if (fstatat (AT_FDCWD, argv[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          fprintf (stderr, "file-id-probe: %s: %s\n", argv[i],
                   strerror (errno));
          status = 1;
          continue;
        }
      printf ("%s %s\n",
              file_id_numbers_identify (AT_FDCWD, argv[i], &st) ? "yes" : "no",
              argv[i]);
    }
  return status;
}

static int
compare (char const *a, char const *b)
{
  struct file_id ia, ib;
  struct stat sa, sb;
  if (get (a, &ia, &sa) != 0 || get (b, &ib, &sb) != 0)
    return 1;
  enum file_id_answer r = file_id_compare (&ia, &ib);
  if (r == FILE_ID_UNKNOWN)
    {
      /* As a caller recording the file would: take handles.  */
      if (file_id_get_handle (&ia, AT_FDCWD, a, 0, &sa) == 0
          && file_id_get_handle (&ib, AT_FDCWD, b, 0, &sb) == 0)
        r = file_id_compare (&ia, &ib);
    }
  /* The one-off checks, which have no statx to ask, must not contradict
     the keys.  */
  bool may = file_id_may_be_same (AT_FDCWD, a, &sa, AT_FDCWD, b, &sb);
  bool proven = file_id_proven_same (AT_FDCWD, a, &sa, AT_FDCWD, b, &sb);
  if (may != (r != FILE_ID_DIFFERENT) || (proven && r == FILE_ID_DIFFERENT))
    {
      fprintf (stderr, "file-id-probe: may be same %d, proven same %d,"
               " the keys %s\n", may, proven, answer_name (r));
      return 3;
    }
  printf ("%s\n", answer_name (r));
  file_id_release (&ia);
  file_id_release (&ib);
  return 0;
}

static int
samefs (char const *a, char const *b)
{
  struct stat sa, sb;
  if (stat (a, &sa) != 0 || stat (b, &sb) != 0)
    return 1;
  printf ("%s\n", (file_id_same_fs (AT_FDCWD, a, &sa, AT_FDCWD, b, &sb)
                   ? "same-fs" : "different-fs"));
  return 0;
}

static int
record (char const *dirname)
{
  DIR *dir = opendir (dirname);
  if (!dir)
    {
      perror (dirname);
      return 1;
    }
  int dfd = dirfd (dir);
  size_t n = 0, alloc = 0, handles = 0;
  struct file_id *ids = NULL;
  struct dirent *e;
  while ((e = readdir (dir)))
    {
      struct stat st;
      if (n == alloc)
        {
          alloc = alloc ? 2 * alloc : 1024;
          ids = realloc (ids, alloc * sizeof *ids);
          if (!ids)
            {
              perror ("file-id-probe");
              return 1;
            }
        }
      if (file_id_stat_at (dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW,
                           &ids[n]) != 0)
        continue;
      if (file_id_needs_handle (&ids[n])
          && file_id_get_handle (&ids[n], dfd, e->d_name, 0, &st) == 0)
        handles++;
      n++;
    }
  closedir (dir);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  printf ("entries %zu handles %zu key-bytes %zu peak-rss-kib %ld\n",
          n, handles, sizeof *ids, ru.ru_maxrss);
  for (size_t i = 0; i < n; i++)
    file_id_release (&ids[i]);
  free (ids);
  return 0;
}

/* Answer the commands read from standard input in this one process, so
   that what the module learned from one command may be used for the
   next: a test mounts another filesystem between two of them.  It keeps
   nothing open between commands, so that the filesystems can be
   unmounted.  */
static int
session (void)
{
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while (0 < (len = getline (&line, &size, stdin)))
    {
      if (line[len - 1] == '\n')
        line[len - 1] = '\0';
      char *args[3];
      int n = 0;
      for (char *tok = strtok (line, " "); tok && n < 3;
           tok = strtok (NULL, " "))
        args[n++] = tok;
      int status = 2;
      struct stat st;
      if (n == 2 && strcmp (args[0], "show") == 0)
        status = show (1, args + 1);
      else if (n == 3 && strcmp (args[0], "compare") == 0)
        status = compare (args[1], args[2]);
      else if (n == 2 && strcmp (args[0], "record") == 0)
        status = record (args[1]);
      else if (n == 2 && strcmp (args[0], "dev") == 0)
        {
          status = lstat (args[1], &st) != 0;
          if (!status)
            printf ("%u:%u\n", major (st.st_dev), minor (st.st_dev));
        }
      printf ("%s\n", status ? "failed" : "ok");
      fflush (stdout);
    }
  free (line);
  return 0;
}

/* One walk of the threads command.  */
struct walk
{
  char *dir;
  size_t entries;
  size_t cycles;
  int err;
};

static void *
walk (void *arg)
{
  struct walk *w = arg;
  char *dirs[] = { w->dir, NULL };
  /* FTS_CWDFD: the walks must not change the process's directory.
     FTS_TIGHT_CYCLE_CHECK, as find and du: every directory entered is
     checked, with a handle where the view needs one.  */
  FTS *fts = fts_open (dirs, FTS_PHYSICAL | FTS_CWDFD | FTS_TIGHT_CYCLE_CHECK,
                       NULL);
  if (!fts)
    {
      w->err = errno;
      return NULL;
    }
  for (;;)
    {
      errno = 0;
      FTSENT *e = fts_read (fts);
      if (!e)
        {
          if (errno)
            w->err = errno;
          break;
        }
      if (e->fts_info == FTS_DP)
        continue;
      if (e->fts_info == FTS_DC)
        w->cycles++;
      else if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR
               || e->fts_info == FTS_NS)
        w->err = e->fts_errno;
      struct file_id id;
      struct stat st;
      if (file_id_stat_at (AT_FDCWD, e->fts_path, &st, AT_SYMLINK_NOFOLLOW,
                           &id) != 0)
        w->err = errno;
      else
        {
          if (file_id_needs_handle (&id))
            file_id_get_handle (&id, AT_FDCWD, e->fts_path, 0, &st);
          file_id_release (&id);
        }
      /* CAN_MISSING: a dangling symbolic link is no error here.  */
      char *c = canonicalize_filename_mode (e->fts_path, CAN_MISSING);
      if (!c)
        w->err = errno;
      free (c);
      w->entries++;
    }
  if (fts_close (fts) != 0)
    w->err = errno;
  return NULL;
}

static int
threads (int argc, char **argv)
{
  struct walk *w = calloc (argc, sizeof *w);
  pthread_t *t = calloc (argc, sizeof *t);
  if (!w || !t)
    return 1;
  int status = 0;
  for (int i = 0; i < argc; i++)
    {
      w[i].dir = argv[i];
      int err = pthread_create (&t[i], NULL, walk, &w[i]);
      if (err)
        {
          fprintf (stderr, "file-id-probe: %s\n", strerror (err));
          return 1;
        }
    }
  for (int i = 0; i < argc; i++)
    {
      pthread_join (t[i], NULL);
      if (w[i].err)
        {
          fprintf (stderr, "file-id-probe: %s: %s\n", w[i].dir,
                   strerror (w[i].err));
          status = 1;
        }
      printf ("%s %zu %zu\n", w[i].dir, w[i].entries, w[i].cycles);
    }
  free (w);
  free (t);
  return status;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "session") == 0)
    return session ();
  if (argc > 2 && strcmp (argv[1], "show") == 0)
    return show (argc - 2, argv + 2);
  if (argc > 2 && strcmp (argv[1], "identifies") == 0)
    return identifies (argc - 2, argv + 2);
  if (argc == 4 && strcmp (argv[1], "compare") == 0)
    return compare (argv[2], argv[3]);
  if (argc == 4 && strcmp (argv[1], "samefs") == 0)
    return samefs (argv[2], argv[3]);
  if (argc == 3 && strcmp (argv[1], "record") == 0)
    return record (argv[2]);
  if (argc > 2 && strcmp (argv[1], "threads") == 0)
    return threads (argc - 2, argv + 2);
  fprintf (stderr, "usage: file-id-probe show FILE... | identifies FILE..."
           " | compare A B | samefs A B | record DIR | session"
           " | threads DIR...\n");
  return 2;
}
