#!/usr/bin/env python3
"""treecmp -- check a copy against its source, independently of the tools.

Usage: treecmp.py SRC DEST [--truth ROOT]... [--merge-alike]

Every entry below SRC must exist in DEST with the same type, every regular
file with the same content, every symbolic link with the same target, and
DEST must hold nothing more.  Hard links: two regular files of SRC must be
hard-linked in DEST exactly when they are the same file in the truth.  The
truth is, for each relative path, the first --truth root that holds it (the
local btrfs behind a view, or each overlay layer), where (st_dev, st_ino)
is reliable; without --truth, SRC itself.  With --merge-alike, a copy
group may also join whole source groups whose files agree in content and
in the truth's size, mode, link count, mtime and ctime: what a FUSE view,
whose file handles name paths, cannot tell apart (an unchanged snapshot
copy of a hard-linked file); such joins are listed.  Exit 0 when all
agree.
"""

import os
import stat
import sys


def walk(root, unreadable=None):
    """Relative path -> lstat result, for everything below ROOT.  Adds the
    directories that cannot be read to UNREADABLE (an NFS client cannot
    read the placeholder a btrfs snapshot holds for a nested subvolume)."""
    out = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        d = os.path.join(root, rel) if rel else root
        try:
            names = os.listdir(d)
        except OSError:
            if unreadable is None:
                raise
            unreadable.add(rel)
            continue
        for name in names:
            r = os.path.join(rel, name) if rel else name
            st = os.lstat(os.path.join(root, r))
            out[r] = st
            if stat.S_ISDIR(st.st_mode):
                stack.append(r)
    return out


def content(path):
    with open(path, "rb") as f:
        return f.read()


def main(argv):
    args = argv[1:]
    truths = []
    merge_alike = "--merge-alike" in args
    args = [a for a in args if a != "--merge-alike"]
    while "--truth" in args:
        i = args.index("--truth")
        truths.append(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, dest = args
    truths = truths or [src]
    errors = []
    unreadable = set()
    s = walk(src, unreadable)
    d = walk(dest)
    # Below an unreadable source directory, the copy cannot hold anything.
    for r in list(d):
        if any(r.startswith(u + "/") for u in unreadable):
            errors.append("in copy, below an unreadable source directory: " + r)
    for r in sorted(set(s) - set(d)):
        errors.append("missing in copy: " + r)
    for r in sorted(set(d) - set(s)):
        errors.append("not in source: " + r)
    src_groups = {}
    dest_groups = {}
    alike = {}
    for r in sorted(set(s) & set(d)):
        ss, ds = s[r], d[r]
        if stat.S_IFMT(ss.st_mode) != stat.S_IFMT(ds.st_mode):
            errors.append("type differs: " + r)
            continue
        if stat.S_ISLNK(ss.st_mode):
            if os.readlink(os.path.join(src, r)) != os.readlink(os.path.join(dest, r)):
                errors.append("symlink target differs: " + r)
        elif stat.S_ISREG(ss.st_mode):
            if content(os.path.join(src, r)) != content(os.path.join(dest, r)):
                errors.append("content differs: " + r)
            for t in truths:
                p = os.path.join(t, r)
                if os.path.lexists(p):
                    ts = os.lstat(p)
                    src_groups.setdefault((t, ts.st_dev, ts.st_ino), set()).add(r)
                    alike[r] = (content(p), ts.st_size, ts.st_mode, ts.st_nlink,
                                ts.st_mtime_ns, ts.st_ctime_ns)
                    break
            else:
                errors.append("no truth for: " + r)
            dest_groups.setdefault((ds.st_dev, ds.st_ino), set()).add(r)
    want = sorted(sorted(g) for g in src_groups.values())
    got = sorted(sorted(g) for g in dest_groups.values())
    if merge_alike and want != got:
        # Accept a copy group that is a union of whole source groups whose
        # files are all alike; count it as what the source had.
        whole = {frozenset(g) for g in src_groups.values()}
        joined = []
        for g in dest_groups.values():
            parts = [w for w in whole if w <= g]
            if (len(parts) > 1 and set().union(*parts) == g
                    and len({alike.get(r) for r in g}) == 1):
                joined.append(sorted(g))
        if joined:
            print("joined alike groups: %s" % joined)
            got = [g for g in got if g not in joined]
            want = [g for g in want
                    if not any(set(g) <= set(j) for j in joined)]
    if want != got:
        w = [g for g in want if g not in got]
        g = [g for g in got if g not in want]
        errors.append("hard links differ: source groups %s, copy groups %s" % (w, g))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
