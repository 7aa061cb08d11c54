#!/usr/bin/env python3
"""Make two different files that look alike.

Usage: alike.py BTRFS NAME [VIEW]

In the local btrfs BTRFS, make NAME-vol, a subvolume holding y and its
hard link y-link, and NAME-snap, a snapshot of it; then write new contents
of one size into NAME-vol/y and NAME-snap/y within one tick of the
kernel's coarse clock.  The two y are then different files with the same
inode number, size, mode, link count, mtime and ctime: what a view with one
st_dev (FUSE, NFS with subtree_check, 9p) cannot tell apart by metadata.
Nothing stats the files between the writes (a stat makes the next change
of a file take a fine-grained timestamp, Linux 6.13+), and the writes come
from one process.  Tried again with fresh subvolumes until stat, through
BTRFS and through VIEW (the same tree seen through the view) if given,
shows the metadata equal; at most 50 times.  Prints the two contents,
NAME-vol/y's first.  Exit status 1 if the pair could not be made.
"""

import os
import subprocess
import sys


def meta(path):
    st = os.lstat(path)
    return (st.st_size, st.st_mode, st.st_nlink, st.st_mtime_ns, st.st_ctime_ns)


def btrfs(*args):
    subprocess.run(["btrfs", "-q", "subvolume"] + list(args), check=True,
                   stdout=subprocess.DEVNULL)


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    top, name = sys.argv[1], sys.argv[2]
    view = sys.argv[3] if len(sys.argv) == 4 else None
    vol, snap = f"{top}/{name}-vol", f"{top}/{name}-snap"
    a, b = b"alike-content-of-vol\n", b"alike-content-of-snp\n"
    assert len(a) == len(b)
    for _ in range(50):
        for d in (snap, vol):
            if os.path.exists(d):
                btrfs("delete", d)
        btrfs("create", vol)
        with open(f"{vol}/y", "wb") as f:
            f.write(b"original\n")
        os.link(f"{vol}/y", f"{vol}/y-link")
        btrfs("snapshot", vol, snap)
        fds = [os.open(p, os.O_WRONLY | os.O_TRUNC) for p in
               (f"{vol}/y", f"{snap}/y")]
        os.write(fds[0], a)
        os.write(fds[1], b)
        for fd in fds:
            os.close(fd)
        roots = [top] + ([view] if view else [])
        if all(meta(f"{r}/{name}-vol/y") == meta(f"{r}/{name}-snap/y")
               for r in roots):
            sys.stdout.write(a.decode() + b.decode())
            return 0
    print("alike.py: could not make an alike pair", file=sys.stderr)
    return 1


sys.exit(main())
