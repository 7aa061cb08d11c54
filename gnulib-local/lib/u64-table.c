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

#include <config.h>

#include "u64-table.h"

#include <stdlib.h>

/* Keys come in runs (inode numbers, device numbers): mix all their bits,
   or linear probing piles them up.  */
uint64_t
u64_table_mix (uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdu;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53u;
  k ^= k >> 33;
  return k;
}

void
u64_table_init (struct u64_table *t, bool map)
{
  *t = (struct u64_table) { .map = map };
}

void
u64_table_clear (struct u64_table *t)
{
  free (t->keys);
  free (t->vals);
  u64_table_init (t, t->map);
}

/* The slot of KEY, not 0, in T, which has slots: KEY's own, or the
   empty one where it would go.  */
static size_t
slot (struct u64_table const *t, uint64_t key)
{
  size_t i = u64_table_mix (key) & t->mask;
  while (t->keys[i] != 0 && t->keys[i] != key)
    i = (i + 1) & t->mask;
  return i;
}

bool
u64_table_has (struct u64_table const *t, uint64_t key)
{
  if (key == 0)
    return t->has_zero;
  return t->keys && t->keys[slot (t, key)] == key;
}

void *
u64_table_get (struct u64_table const *t, uint64_t key)
{
  if (key == 0)
    return t->has_zero ? t->zero_val : NULL;
  if (!t->keys)
    return NULL;
  size_t i = slot (t, key);
  return t->keys[i] == key ? t->vals[i] : NULL;
}

/* Make room in T for one more key: allocate or double its slots.
   Return false if out of memory.  */
static bool
room (struct u64_table *t)
{
  /* Small at first: a snapshot's table may hold one hard link.  */
  size_t n = t->keys ? 2 * (t->mask + 1) : 16;
  if (SIZE_MAX / 2 / sizeof (uint64_t) < n)
    return false;
  uint64_t *keys = calloc (n, sizeof *keys);
  void **vals = t->map ? malloc (n * sizeof *vals) : NULL;
  if (!keys || (t->map && !vals))
    {
      free (keys);
      free (vals);
      return false;
    }
  struct u64_table new = *t;
  new.keys = keys;
  new.vals = vals;
  new.mask = n - 1;
  for (size_t i = 0; t->keys && i <= t->mask; i++)
    if (t->keys[i] != 0)
      {
        size_t j = slot (&new, t->keys[i]);
        keys[j] = t->keys[i];
        if (t->map)
          vals[j] = t->vals[i];
      }
  free (t->keys);
  free (t->vals);
  *t = new;
  return true;
}

int
u64_table_add (struct u64_table *t, uint64_t key)
{
  if (key == 0)
    {
      bool added = !t->has_zero;
      t->has_zero = true;
      return added;
    }
  /* One probe, unless the table must grow first.  */
  size_t i;
  if (t->keys)
    {
      i = slot (t, key);
      if (t->keys[i] == key)
        return 0;
    }
  if (!t->keys || t->mask + 1 < 2 * (t->count + 1))
    {
      if (!room (t))
        return -1;
      i = slot (t, key);
    }
  t->keys[i] = key;
  t->count++;
  return 1;
}

void **
u64_table_ref (struct u64_table *t, uint64_t key)
{
  if (key == 0)
    {
      if (!t->has_zero)
        {
          t->has_zero = true;
          t->zero_val = NULL;
        }
      return &t->zero_val;
    }
  size_t i;
  if (t->keys)
    {
      i = slot (t, key);
      if (t->keys[i] == key)
        return &t->vals[i];
    }
  if (!t->keys || t->mask + 1 < 2 * (t->count + 1))
    {
      if (!room (t))
        return NULL;
      i = slot (t, key);
    }
  t->keys[i] = key;
  t->vals[i] = NULL;
  t->count++;
  return &t->vals[i];
}

size_t
u64_table_count (struct u64_table const *t)
{
  return t->count + t->has_zero;
}
