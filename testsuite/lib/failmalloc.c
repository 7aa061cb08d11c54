/* failmalloc -- an allocator that fails from its Nth call on, for
   LD_PRELOAD: memory running out, for the tools under test.

   FAILMALLOC_AT=N      the Nth call (1 for the first) to malloc, calloc,
                        realloc or the aligned allocators, and every one
                        after it, fails with ENOMEM; 0 or unset: none does
   FAILMALLOC_COUNT=F   at exit, write to file F how many calls were made

   Only the program's own calls count: those of the dynamic loader
   before libc is ready go elsewhere.  free is libc's.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void *__libc_memalign (size_t, size_t);

static unsigned long calls, fail_at;
static int ready;

/* Whether this call fails.  getenv allocates nothing.  */
static int
fails (void)
{
  if (!ready)
    {
      char const *at = getenv ("FAILMALLOC_AT");
      fail_at = at ? strtoul (at, NULL, 10) : 0;
      ready = 1;
    }
  calls++;
  if (fail_at && fail_at <= calls)
    {
      errno = ENOMEM;
      return 1;
    }
  return 0;
}

void *
malloc (size_t n)
{
  return fails () ? NULL : __libc_malloc (n);
}

void *
calloc (size_t n, size_t s)
{
  return fails () ? NULL : __libc_calloc (n, s);
}

void *
realloc (void *p, size_t n)
{
  return fails () ? NULL : __libc_realloc (p, n);
}

void *
memalign (size_t a, size_t n)
{
  return fails () ? NULL : __libc_memalign (a, n);
}

void *
aligned_alloc (size_t a, size_t n)
{
  return memalign (a, n);
}

int
posix_memalign (void **p, size_t a, size_t n)
{
  if (fails ())
    return ENOMEM;
  void *r = __libc_memalign (a, n);
  if (!r)
    return ENOMEM;
  *p = r;
  return 0;
}

void *
valloc (size_t n)
{
  return memalign (sysconf (_SC_PAGESIZE), n);
}

/* The count, without stdio (which allocates).  */
static void __attribute__ ((destructor))
report (void)
{
  char const *f = getenv ("FAILMALLOC_COUNT");
  if (!f)
    return;
  int fd = open (f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  char buf[32];
  int i = sizeof buf;
  unsigned long c = calls;
  buf[--i] = '\n';
  do
    buf[--i] = '0' + c % 10;
  while ((c /= 10) != 0);
  ssize_t ignored = write (fd, buf + i, sizeof buf - i);
  (void) ignored;
  close (fd);
}
