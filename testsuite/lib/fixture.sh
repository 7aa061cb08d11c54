#!/bin/bash
# fixture.sh -- build and tear down the real filesystems the suite runs on.
#
#   fixture.sh up NAME WORKDIR     mount fixture NAME at WORKDIR/NAME, unless
#                                  it is up already
#   fixture.sh down WORKDIR        unmount everything under WORKDIR, free
#                                  its loop devices and remove it
#   fixture.sh tree KIND DIR       make a scratch tree DIR (see tree below)
#
# NAME is btrfs, bindfs, overlay, container, ext4clones, ext4, tmpfs,
# nfs3, nfs42, nfs3-subtree, nfs42-subtree, 9p or automount.
# Exit status 77, with the reason on stderr, when this machine cannot
# provide the fixture (not root, no loop devices, no FUSE, no NFS...).
#
# The btrfs layout, seen the same way through bindfs, NFS and 9p:
#   top-file                  a file in the top-level subvolume (ID 5)
#   vol/                      a subvolume
#     f, restore.txt          plain files
#     x, x-link               a hard-linked pair
#     hl/h, hl/dir/h-link     a hard-linked pair in two directories
#     dir/g, sym -> f         a subdirectory and a symbolic link
#     dir/up -> ..            a symbolic link loop (for find -L)
#     nested/n                a nested subvolume
#   snap-ro/                  read-only snapshot of vol
#   snap/                     read-write snapshot of vol, where x (and so
#                             x-link) was then rewritten in place; it shows
#                             nested as an empty placeholder (inode 2)
# vol/restore.txt was rewritten after the snapshots, so snap/restore.txt
# holds the old content: restoring it is a copy between different files.
#
# nfs3 and nfs42 are the btrfs exported with no_subtree_check (the
# default), nfs3-subtree and nfs42-subtree the same with subtree_check:
# the server then puts a file's directory in its handle, and two links of
# one file in two directories get two handles.  9p is the host's btrfs
# shared into a QEMU guest with QEMU's multidevs=warn: one st_dev, the
# host's inode numbers.  container is an overlayfs whose layers are
# directories of one ext4, as a container's root: (st_dev, st_ino)
# identifies its files.  automount is a tmpfs tree holding auto/, an
# autofs direct mount point that mounts a tmpfs on first use (in the QEMU
# guest, which has autofs).

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)

unsupported () { echo "$*" >&2; exit 77; }
fail () { echo "fixture: $*" >&2; exit 1; }

need_root () {
  test "$(id -u)" = 0 || unsupported "needs root (mounts and loop devices)"
}
need_loop () {
  need_root
  test -e /dev/loop-control || modprobe loop 2>/dev/null
  test -e /dev/loop-control || unsupported "no loop devices (/dev/loop-control)"
}
need_cmd () {
  for c; do
    command -v "$c" >/dev/null 2>&1 || unsupported "'$c' is not installed"
  done
}
need_fs () {
  grep -qw "$1" /proc/filesystems || modprobe "$1" 2>/dev/null
  grep -qw "$1" /proc/filesystems || unsupported "this kernel has no $1"
}

# make_image FILE SIZE-MB
make_image () { rm -f "$1"; truncate -s "${2}M" "$1"; }

up_btrfs_layout () {
  local m=$1
  echo top > "$m/top-file"
  btrfs -q subvolume create "$m/vol" >/dev/null
  echo f > "$m/vol/f"
  echo x-original > "$m/vol/x"
  ln "$m/vol/x" "$m/vol/x-link"
  mkdir "$m/vol/dir"
  echo g > "$m/vol/dir/g"
  ln -s f "$m/vol/sym"
  ln -s .. "$m/vol/dir/up"
  mkdir -p "$m/vol/hl/dir"
  echo h > "$m/vol/hl/h"
  ln "$m/vol/hl/h" "$m/vol/hl/dir/h-link"
  echo old > "$m/vol/restore.txt"
  btrfs -q subvolume create "$m/vol/nested" >/dev/null
  echo n > "$m/vol/nested/n"
  btrfs -q subvolume snapshot -r "$m/vol" "$m/snap-ro" >/dev/null
  btrfs -q subvolume snapshot "$m/vol" "$m/snap" >/dev/null
  # In place, so that the inode numbers stay those of vol.
  echo x-changed-in-snap 1<> "$m/snap/x"
  truncate -s 18 "$m/snap/x"
  echo new 1<> "$m/vol/restore.txt"
}

up () {
  local name=$1 w=$2 m
  mkdir -p "$w" || fail "cannot create $w"
  m=$w/$name
  # Up already (the runs of one machine share their fixtures).
  test ! -f "$w/.up-$name" || return 0
  case $name in
    btrfs)
      need_loop; need_fs btrfs; need_cmd mkfs.btrfs btrfs
      make_image "$w/btrfs.img" 256
      mkfs.btrfs -q -f "$w/btrfs.img" >/dev/null || fail "mkfs.btrfs failed"
      mkdir -p "$m"
      mount -o loop "$w/btrfs.img" "$m" || fail "cannot mount btrfs"
      up_btrfs_layout "$m" || fail "cannot populate btrfs" ;;
    bindfs)
      need_root; need_cmd bindfs
      test -e /dev/fuse || modprobe fuse 2>/dev/null
      test -e /dev/fuse || unsupported "no /dev/fuse"
      mountpoint -q "$w/btrfs" || up btrfs "$w"
      mkdir -p "$m"
      bindfs "$w/btrfs" "$m" || unsupported "bindfs cannot mount here"
      ;;
    overlay)
      # Two btrfs subvolumes as layers: each holds a hard-linked pair with
      # the same inode number as the other's, and the lower one a nested
      # subvolume whose root, like the overlay's, has inode 256.
      need_loop; need_fs btrfs; need_fs overlay; need_cmd mkfs.btrfs btrfs
      make_image "$w/overlay.img" 128
      mkfs.btrfs -q -f "$w/overlay.img" >/dev/null || fail "mkfs.btrfs failed"
      local l=$w/overlay-layers
      mkdir -p "$l" "$m"
      mount -o loop "$w/overlay.img" "$l" || fail "cannot mount btrfs"
      btrfs -q subvolume create "$l/lower" >/dev/null
      echo p-content > "$l/lower/p1"
      ln "$l/lower/p1" "$l/lower/p1-link"
      mkdir -p "$l/lower/hl/dir"
      echo h > "$l/lower/hl/h"
      ln "$l/lower/hl/h" "$l/lower/hl/dir/h-link"
      btrfs -q subvolume create "$l/lower/nested" >/dev/null
      echo n > "$l/lower/nested/n"
      btrfs -q subvolume create "$l/upper" >/dev/null
      echo q-content-differs > "$l/upper/q1"
      ln "$l/upper/q1" "$l/upper/q1-link"
      btrfs -q subvolume create "$l/work" >/dev/null
      test "$(stat -c %i "$l/lower/p1")" = "$(stat -c %i "$l/upper/q1")" \
        || fail "overlay layers: p1 and q1 should share an inode number"
      mount -t overlay overlay \
        -o "lowerdir=$l/lower,upperdir=$l/upper,workdir=$l/work" "$m" \
        || unsupported "cannot mount overlayfs over btrfs subvolumes here" ;;
    container)
      # A container's root: an overlayfs whose layers are directories of
      # one ext4.  Both layers hold a hard-linked pair in two directories.
      need_loop; need_fs ext4; need_fs overlay; need_cmd mkfs.ext4
      make_image "$w/container.img" 32
      mkfs.ext4 -q -F "$w/container.img" || fail "mkfs.ext4 failed"
      local c=$w/container-layers
      mkdir -p "$c" "$m"
      mount -o loop "$w/container.img" "$c" || fail "cannot mount ext4"
      mkdir -p "$c/lower" "$c/upper" "$c/work"
      populate_plain "$c/lower"
      mkdir "$c/upper/u" "$c/upper/dir"
      echo u > "$c/upper/u/k"
      ln "$c/upper/u/k" "$c/upper/dir/k-link"
      mount -t overlay overlay \
        -o "lowerdir=$c/lower,upperdir=$c/upper,workdir=$c/work" "$m" \
        || unsupported "cannot mount overlayfs over ext4 here" ;;
    ext4clones)
      # One ext4 image and a byte copy of it: equal UUIDs, equal inode
      # numbers, different filesystems; then the copy's c is rewritten.
      need_loop; need_fs ext4; need_cmd mkfs.ext4
      make_image "$w/clone1.img" 32
      mkfs.ext4 -q -F "$w/clone1.img" || fail "mkfs.ext4 failed"
      mkdir -p "$w/clone1" "$w/clone2"
      mount -o loop "$w/clone1.img" "$w/clone1" || fail "cannot mount ext4"
      echo c-in-clone1 > "$w/clone1/c"
      echo h > "$w/clone1/h"
      ln "$w/clone1/h" "$w/clone1/h-link"
      mkdir "$w/clone1/d"
      echo e > "$w/clone1/d/e"
      umount "$w/clone1"
      cp --sparse=always "$w/clone1.img" "$w/clone2.img"
      mount -o loop "$w/clone1.img" "$w/clone1" || fail "cannot mount ext4"
      mount -o loop "$w/clone2.img" "$w/clone2" || fail "cannot mount ext4 clone"
      echo c-in-clone2 1<> "$w/clone2/c"
      mkdir -p "$m"
      ln -sfn ../clone1 "$m/clone1" 2>/dev/null
      ln -sfn ../clone2 "$m/clone2" 2>/dev/null ;;
    ext4)
      need_loop; need_fs ext4; need_cmd mkfs.ext4
      make_image "$w/ext4.img" 32
      mkfs.ext4 -q -F "$w/ext4.img" || fail "mkfs.ext4 failed"
      mkdir -p "$m"
      mount -o loop "$w/ext4.img" "$m" || fail "cannot mount ext4"
      populate_plain "$m" ;;
    tmpfs)
      need_root
      mkdir -p "$m"
      mount -t tmpfs -o size=16m tmpfs "$m" || fail "cannot mount tmpfs"
      populate_plain "$m" ;;
    nfs3|nfs42|nfs3-subtree|nfs42-subtree)
      need_root
      test -x "$here/../guest/nfs" || unsupported "no NFS helper"
      grep -qw nfsd /proc/filesystems || modprobe nfsd 2>/dev/null
      grep -qw nfsd /proc/filesystems \
        || unsupported "no kernel NFS server here (the NFS cases run in the QEMU guest)"
      mountpoint -q "$w/btrfs" || up btrfs "$w"
      # One server for all four: the btrfs exported twice, the second
      # time with subtree_check, by the name $w/btrfs-subtree.
      if ! test -f "$w/.nfs-started"; then
        "$here/../guest/nfs" start "$w/btrfs" --subtree-check-at "$w/btrfs-subtree" >&2 \
          || fail "cannot start nfsd"
        touch "$w/.nfs-started"
      fi
      mkdir -p "$m"
      case $name in
        nfs3) "$here/../guest/nfs" mount 3 "$w/btrfs" "$m" ;;
        nfs42) "$here/../guest/nfs" mount 4.2 "$w/btrfs" "$m" ;;
        nfs3-subtree) "$here/../guest/nfs" mount 3 "$w/btrfs-subtree" "$m" ;;
        nfs42-subtree) "$here/../guest/nfs" mount 4.2 "$w/btrfs-subtree" "$m" ;;
      esac >&2 || fail "cannot mount $name" ;;
    9p)
      # A btrfs fixture of the host, shared into the guest by run-suite at
      # the path it has on the host (SUBVOL_9P_VIEW).
      test -n "${SUBVOL_9P_VIEW-}" \
        || unsupported "no 9p share of the host's btrfs (the 9p cases run in the QEMU guest)"
      grep -qs " ${SUBVOL_9P_VIEW} 9p " /proc/mounts \
        || unsupported "$SUBVOL_9P_VIEW is not a 9p mount here"
      mkdir -p "$m"
      mount --bind "$SUBVOL_9P_VIEW" "$m" || fail "cannot bind-mount $SUBVOL_9P_VIEW" ;;
    automount)
      need_root
      test -x "$here/../guest/autofs" || unsupported "no autofs helper"
      command -v automount >/dev/null 2>&1 \
        || unsupported "no automount daemon (the automount cases run in the QEMU guest)"
      grep -qw autofs /proc/filesystems || modprobe autofs 2>/dev/null
      grep -qw autofs /proc/filesystems || unsupported "this kernel has no autofs"
      mkdir -p "$m"
      mount -t tmpfs -o size=4m tmpfs "$m" || fail "cannot mount tmpfs"
      populate_plain "$m"
      "$here/../guest/autofs" start "$m/auto" tmpfs >&2 \
        || fail "cannot start the automount daemon"
      touch "$w/.autofs-started" ;;
    *) fail "unknown fixture $name" ;;
  esac
  touch "$w/.up-$name"
}

# The same small tree on filesystems where nothing may change.
populate_plain () {
  local m=$1
  echo f > "$m/f"
  echo x > "$m/x"
  ln "$m/x" "$m/x-link"
  mkdir -p "$m/dir/sub"
  echo g > "$m/dir/sub/g"
  ln -s f "$m/sym"
  mkdir -p "$m/hl/dir"
  echo h > "$m/hl/h"
  ln "$m/hl/h" "$m/hl/dir/h-link"
}

down () {
  w=$1
  test -d "$w" || return 0
  if test -f "$w/.nfs-started"; then
    for n in nfs3 nfs42 nfs3-subtree nfs42-subtree; do
      mountpoint -q "$w/$n" && umount -f "$w/$n"
    done
    "$here/../guest/nfs" stop >/dev/null 2>&1
  fi
  if test -f "$w/.autofs-started"; then
    "$here/../guest/autofs" stop >/dev/null 2>&1
  fi

  # Innermost first; lazily as a last resort, so teardown always ends.
  wr=$(realpath "$w")
  awk -v w="$wr/" 'index($5 "/", w) == 1 { print $5 }' /proc/self/mountinfo \
    | sort -r | while read -r mp; do
      umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null
    done
  for img in "$wr"/*.img; do
    test -f "$img" || continue
    losetup -j "$img" -O NAME -n 2>/dev/null | while read -r dev; do
      losetup -d "$dev" 2>/dev/null
    done
  done
  rm -rf --one-file-system "$wr"
}

# A scratch tree for the tools that change or delete what they walk (rm,
# chmod, chown, chgrp), so that the shared layouts above stay intact.
# With btrfs: DIR is a subvolume holding f, dir/g, a nested subvolume
# nested/ (n, d/e) and snap/, a snapshot of nested: through a one-st_dev
# view DIR, nested and snap all have inode number 256, nested and snap
# one path below DIR.  With plain: the same names, as plain directories.
tree () {
  local kind=$1 t=$2
  test ! -e "$t" || fail "$t already exists"
  case $kind in
    btrfs) btrfs -q subvolume create "$t" >/dev/null || fail "cannot create $t" ;;
    plain) mkdir "$t" || fail "cannot create $t" ;;
    *) fail "unknown tree kind $kind" ;;
  esac
  echo f > "$t/f"
  mkdir "$t/dir"
  echo g > "$t/dir/g"
  case $kind in
    btrfs) btrfs -q subvolume create "$t/nested" >/dev/null ;;
    plain) mkdir "$t/nested" ;;
  esac || fail "cannot create $t/nested"
  echo n > "$t/nested/n"
  mkdir "$t/nested/d"
  echo e > "$t/nested/d/e"
  case $kind in
    btrfs) btrfs -q subvolume snapshot "$t/nested" "$t/snap" >/dev/null ;;
    plain) cp -a "$t/nested" "$t/snap" ;;
  esac || fail "cannot create $t/snap"
}

case ${1-} in
  up) test $# = 3 || fail "usage: fixture.sh up NAME WORKDIR"; up "$2" "$3" ;;
  down) test $# = 2 || fail "usage: fixture.sh down WORKDIR"; down "$2" ;;
  tree) test $# = 3 || fail "usage: fixture.sh tree btrfs|plain DIR"; tree "$2" "$3" ;;
  *) fail "usage: fixture.sh up NAME WORKDIR | down WORKDIR | tree KIND DIR" ;;
esac
