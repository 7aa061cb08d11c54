/* Placeholder module: proves that gnulib-local modules reach the trees.
   This file is free software: you can redistribute it and/or modify
   it under the terms of the GNU Lesser General Public License as
   published by the Free Software Foundation; either version 2.1 of the
   License, or (at your option) any later version.  */

#include <config.h>

#include "local-probe.h"

int
local_probe (void)
{
  return GL_LOCAL_PROBE_VALUE;
}
