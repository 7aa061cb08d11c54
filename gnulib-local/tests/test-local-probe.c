/* Test of the local-probe placeholder module.
   This file is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.  */

#include <config.h>

#include "local-probe.h"

#include "macros.h"

int
main (void)
{
  ASSERT (local_probe () == 42);
  return test_exit_status;
}
