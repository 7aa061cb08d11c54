/* Open-addressing tables of 64-bit keys: sets, and maps to pointers.
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

/* Keys such as inode numbers, st_dev values and mount IDs, found by
   hashing: linear probing in a power-of-2 array kept at most half full,
   8 bytes a slot for a set and 16 for a map, and no allocation per key.
   Measured against gnulib's hash as di-set uses it (the key in the
   pointer slot), with 10^5 and 10^6 inode numbers each added twice
   (bench/u64-table-vs-hash.c, x86-64): 17 to 21 bytes a key against 21
   to 26 for consecutive numbers and 33 to 34 for scattered ones; 21
   against 28 million instructions for 10^5 consecutive, 22 against 49
   for 10^5 scattered.  Keys are never removed one by one.  */

#ifndef U64_TABLE_H
#define U64_TABLE_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct u64_table
{
  uint64_t *keys;               /* MASK + 1 slots, 0 for an empty one */
  void **vals;                  /* a map's values, beside KEYS */
  size_t mask;
  size_t count;                 /* keys in KEYS, not counting key 0 */
  bool map;                     /* whether VALS is used */
  bool has_zero;                /* whether key 0, kept aside, is in */
  void *zero_val;
};

/* Initialize T, empty, as a set (MAP false) or a map.  Nothing is
   allocated until a key is added.  */
extern void u64_table_init (struct u64_table *t, bool map)
  _GL_ATTRIBUTE_NONNULL ((1));

/* Free what T holds; T is then empty, as from u64_table_init.  */
extern void u64_table_clear (struct u64_table *t)
  _GL_ATTRIBUTE_NONNULL ((1));

/* Whether KEY is in T.  */
extern bool u64_table_has (struct u64_table const *t, uint64_t key)
  _GL_ATTRIBUTE_NONNULL ((1)) _GL_ATTRIBUTE_PURE;

/* Add KEY to the set T.  Return 1 if added, 0 if it was there, -1 if
   out of memory.  */
extern int u64_table_add (struct u64_table *t, uint64_t key)
  _GL_ATTRIBUTE_NONNULL ((1));

/* The value of KEY in the map T, or NULL if KEY is not there.  */
extern void *u64_table_get (struct u64_table const *t, uint64_t key)
  _GL_ATTRIBUTE_NONNULL ((1)) _GL_ATTRIBUTE_PURE;

/* The place of KEY's value in the map T, KEY added with a null value if
   it was not there; NULL if out of memory.  The place is valid until
   the next key is added.  */
extern void **u64_table_ref (struct u64_table *t, uint64_t key)
  _GL_ATTRIBUTE_NONNULL ((1));

/* K with all its bits mixed (MurmurHash3's 64-bit finalizer), for
   tables of keys that come in runs, such as inode numbers.  */
extern uint64_t u64_table_mix (uint64_t k) _GL_ATTRIBUTE_CONST;

/* The number of keys in T.  */
extern size_t u64_table_count (struct u64_table const *t)
  _GL_ATTRIBUTE_NONNULL ((1)) _GL_ATTRIBUTE_PURE;

#ifdef __cplusplus
}
#endif

#endif /* U64_TABLE_H */
