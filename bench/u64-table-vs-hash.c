/* u64-table against gnulib's hash, for the header's measured reason.
   A set of N inode numbers, each added twice, as file-id-set adds a
   tree's files: heap held after the inserts (mallinfo2), and under
   valgrind --tool=callgrind the instructions.  gnulib's hash is used as
   di-set uses it: the key in the pointer slot (no allocation per key on
   64-bit hosts), modulo as hasher, default tuning.  Build and run from a
   built tree:
     D=diffutils/lib
     cc -O2 -I$D bench/u64-table-vs-hash.c $D/u64-table.c $D/hash.c \
        $D/bitrotate.c -o /tmp/u64-vs-hash
     /tmp/u64-vs-hash u64|hash N [seq|spread]  */
#include <config.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "u64-table.h"
#include "hash.h"

static size_t
ino_hash (void const *p, size_t n)
{
  return (uintptr_t) p % n;
}

static bool
ino_eq (void const *a, void const *b)
{
  return a == b;
}

int
main (int argc, char **argv)
{
  bool u64 = strcmp (argv[1], "u64") == 0;
  size_t n = strtoul (argv[2], NULL, 10);
  bool spread = argc > 3 && strcmp (argv[3], "spread") == 0;
  struct mallinfo2 m0 = mallinfo2 (); size_t before = m0.uordblks + m0.hblkhd;
  struct u64_table t;
  Hash_table *h = NULL;
  size_t found = 0;
  if (u64)
    u64_table_init (&t, false);
  else
    h = hash_initialize (0, NULL, ino_hash, ino_eq, NULL);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      {
        uint64_t k = 256 + (spread ? i * 7919 + (i >> 3) * 1000003 : i);
        if (u64)
          found += u64_table_add (&t, u64_table_mix (k)) == 0;
        else
          found += hash_insert_if_absent (h, (void *) (uintptr_t) k, NULL) == 0;
      }
  struct mallinfo2 m1 = mallinfo2 (); size_t held = m1.uordblks + m1.hblkhd - before;
  printf ("%s n=%zu %s: %zu bytes held, %.1f per key, %zu found again\n",
          argv[1], n, spread ? "spread" : "seq", held, (double) held / n,
          found);
  return 0;
}
