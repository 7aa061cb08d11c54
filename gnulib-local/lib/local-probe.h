/* Placeholder module: proves that gnulib-local modules reach the trees.
   This file is free software: you can redistribute it and/or modify
   it under the terms of the GNU Lesser General Public License as
   published by the Free Software Foundation; either version 2.1 of the
   License, or (at your option) any later version.  */

#ifndef LOCAL_PROBE_H
#define LOCAL_PROBE_H

#if !_GL_CONFIG_H_INCLUDED
 #error "Please include config.h first."
#endif

/* Return GL_LOCAL_PROBE_VALUE, which configure defined.  */
extern int local_probe (void) _GL_ATTRIBUTE_CONST;

#endif
