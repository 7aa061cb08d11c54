# bench/lib.sh -- what bench/run and bench/nfs-count (its part in the NFS
# guest) share: the tree, the command lines, counting system calls, and
# the stock reference where stock covers less.  Sourced, not run.
#
# The caller sets:
#   w          its scratch directory (for counters' output files)
#   bin_root   where the builds' copies are: bin_root/stock/find, ...
#   dest       where cp -a and rsync -aH copy (reset_dest mounts a tmpfs
#              there), unless cp_dest says otherwise
#   tmo        the time limit of each run, in seconds

# shellcheck shell=bash
# Names built at run time hide uses from shellcheck.
# shellcheck disable=SC2034,SC2154

wrap=()
counter=strace counter_note="strace -c -f" fh_event=

# populate DIR N: N entries in N/1000 directories; per directory 980 files
# (every 10th named x*, every 50th 16 KiB, the rest a line), 10 hard links
# and 10 symbolic links.
populate () {
  python3 - "$1" "$2" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in range(n // 1000):
    dp = os.path.join(root, "d%03d" % d)
    os.mkdir(dp)
    for i in range(980):
        k = d * 1000 + i
        name = ("x%07d" if k % 10 == 0 else "f%07d") % k
        with open(os.path.join(dp, name), "w") as f:
            f.write("y" * 16384 if k % 50 == 0 else name + "\n")
    for j in range(10):
        k = d * 1000 + j * 50
        target = "x%07d" % k
        os.link(os.path.join(dp, target), os.path.join(dp, "l%07d" % k))
        os.symlink(target, os.path.join(dp, "s%07d" % k))
EOF
}

# populate_small DIR: the small tree of the many-subvolumes btrfs, which
# holds it and many snapshots of it (as snapper or btrbk keep): 20
# entries, 2 of them directories: x0 and f1..f7, a hard link to x0 and a
# symbolic link to f1, and d/ with g0..g7.
populate_small () {
  local i
  echo x0 > "$1/x0"
  for i in 1 2 3 4 5 6 7; do echo "f$i" > "$1/f$i"; done
  ln "$1/x0" "$1/l0"
  ln -s f1 "$1/s0"
  mkdir "$1/d"
  for i in 0 1 2 3 4 5 6 7; do echo "g$i" > "$1/d/g$i"; done
}

# reset_dest: an empty tmpfs at $dest (no disk writeback in cp -a's runs),
# half the available memory at most.
reset_dest () {
  local mb
  mountpoint -q "$dest" && umount "$dest"
  mkdir -p "$dest"
  mb=$(awk '/^MemAvailable:/ { print int($2 / 2048) }' /proc/meminfo)
  mount -t tmpfs -o "size=${mb}m,nr_inodes=0" bench-dest "$dest"
}

# label CASE: how a case is printed.
label () {
  case $1 in
    find-name) echo "find -name" ;; find-printf) echo "find -printf" ;;
    du-s) echo "du -s" ;; cp-a) echo "cp -a" ;; stat) echo "stat (xargs)" ;;
    tar-c) echo "tar -c" ;; diff-r) echo "diff -r" ;;
    rsync-aH) echo "rsync -aH" ;;
  esac
}

# copies CASE: whether CASE writes a copy into $dest (cp -a, rsync -aH),
# which reset_dest empties before each run.
copies () { test "$1" = cp-a || test "$1" = rsync-aH; }

# set_cmd CASE BUILD LIST PATH...: the command line, in cmd.  BUILD is
# stock or patched (the tools in $bin_root/BUILD), or an alternative: bfs
# (for find -name) or btrfs-du (for du -s).  cp -a and rsync -aH copy
# into $cp_dest, else $dest;
# stat takes the names from the file LIST, through xargs.  The words in
# the array wrap (valgrind) go right before the tool, inside xargs for
# stat.
set_cmd () {
  local c=$1 b=$2 list=$3 bin=${bin_root:?}/$2 to=${cp_dest:-${dest:?}}
  shift 3
  case $b:$c in
    bfs:*) cmd=(bfs "$@" -name 'x*') ;;
    btrfs-du:*) cmd=(btrfs filesystem du -s "$@") ;;
    *:find-name) cmd=("${wrap[@]}" "$bin/find" "$@" -name 'x*') ;;
    *:find-printf) cmd=("${wrap[@]}" "$bin/find" "$@" -printf '%i %n %s\n') ;;
    *:du-s) cmd=("${wrap[@]}" "$bin/du" -s "$@") ;;
    *:cp-a) cmd=("${wrap[@]}" "$bin/cp" -a "$@" "$to/") ;;
    *:rsync-aH) cmd=("${wrap[@]}" "$bin/rsync" -aH "$@" "$to/") ;;
    # The archive on stdout; -P: no "Removing leading /" message.
    *:tar-c) cmd=("${wrap[@]}" "$bin/tar" -c -P -f - "$@") ;;
    # Two trees, with a line for each pair of files read and found equal.
    *:diff-r) cmd=("${wrap[@]}" "$bin/diff" -r -s "$@") ;;
    *:stat) cmd=(xargs -d '\n' -a "$list" "${wrap[@]}" "$bin/stat"
                 --printf '%i\n') ;;
  esac
}

# result CASE BUILD OUT: what a run produced (OUT is its stdout), to show
# what each build covered.
result () {
  case $2:$1 in
    btrfs-du:*) awk 'NR > 1 { t = t sep $1; sep = "+" } END { print t }' "$3" ;;
    *:find-*|*:stat|*:diff-r) echo "$(wc -l < "$3") lines" ;;
    *:du-s) echo "$(awk '{ t += $1 } END { print t + 0 }' "$3") KiB" ;;
    *:cp-a) echo "$(find "$dest" -mindepth 1 | wc -l) copied" ;;
    # With the groups of linked files: where stock links a snapshot's
    # copies to their sources, it makes fewer, larger groups (it covered
    # less), and stock given one operand a run is the reference.
    *:rsync-aH) echo "$(find "$dest" -mindepth 1 | wc -l) copied, $(find "$dest" -type f -links +1 -printf '%i\n' | sort -u | wc -l) link groups" ;;
    *:tar-c) tar -t -v -i -f "$3" 2>/dev/null \
               | awk '{ n++ } / link to / { l++ }
                      END { printf "%d members, %d links\n", n, l }' ;;
  esac
}

# digest CASE OUT: a checksum of what a run produced, in any order: its
# sorted stdout (OUT) or, for cp -a and rsync -aH, each copied entry's name, type,
# size, link count and link target, and every copied file's content; for
# tar -c, the listing of the archive (or archives, one after the other)
# in its order, with each member's size and link target.
digest () {
  if test "$1" = tar-c; then
    tar -t -v -i -f "$2" 2>/dev/null
  elif copies "$1"; then
    (cd "$dest" \
       && find . -mindepth 1 -printf '%p %y %s %n %l\n' | LC_ALL=C sort \
       && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r md5sum)
  else
    LC_ALL=C sort "$2"
  fi | md5sum | cut -c1-12
}

# count_calls OUT CMD...: run CMD once, counting its system calls and its
# children's (strace -c -f, or perf's raw_syscalls:sys_enter tracepoint,
# which counts in the kernel without stopping the tracee on each); sets
# calls, fh (its name_to_handle_at calls: what the patched tools add on
# NFS and FUSE; '-' where the counter cannot tell) and sc_st (the exit
# status).  The command's stdout goes to OUT.
#
# The tools run with malloc's thresholds fixed (count_tunables; both
# builds alike): glibc raises its mmap threshold as large blocks are
# freed, so whether cp's copy buffer (one st_blksize, 1 MiB over NFS) is
# mmapped for each file or kept in the heap depends on what else the run
# allocated before, not on the work: stock's cp -a over NFSv4.2, 5,006
# entries, made 120,203 calls given one operand and 128,050 given a
# second.  Fixed, buffers come from the heap and stay there, and the heap
# grows in few calls (top_pad): memory is for the RSS column to show.
count_tunables=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864
count_calls () {
  local out=$1
  shift
  rm -f "$w/strace" "$w/perf"
  : > "$w/$counter"
  if test $counter = strace; then
    if GLIBC_TUNABLES=$count_tunables \
         timeout -k 10 "$tmo" strace -c -f -o "$w/strace" "$@" \
         < /dev/null > "$out" 2> /dev/null
    then sc_st=0; else sc_st=$?; fi
    calls=$(awk '$NF == "total" { print $4 }' "$w/strace")
    fh=$(awk '$NF == "name_to_handle_at" { n = $4 } END { print n + 0 }' \
           "$w/strace")
  else
    if GLIBC_TUNABLES=$count_tunables \
         timeout -k 10 "$tmo" perf stat -x, -e raw_syscalls:sys_enter \
         ${fh_event:+-e "$fh_event"} -o "$w/perf" -- "$@" \
         < /dev/null > "$out" 2> /dev/null
    then sc_st=0; else sc_st=$?; fi
    calls=$(awk -F, '$3 == "raw_syscalls:sys_enter" { print $1 }' "$w/perf")
    fh=-
    test -z "$fh_event" \
      || fh=$(awk -F, -v e="$fh_event" '$3 == e { print $1 }' "$w/perf")
  fi
  # No count (the counter was killed, or did not count): '-', which
  # every gate fails.
  case $calls in ''|*[!0-9]*|0) calls=- fh=- ;; esac
  case $fh in -) ;; ''|*[!0-9]*) fh=- ;; esac
}

# calibrate DIR: choose the counter.  strace stops the tracee twice per
# call: under it cp -a runs some 60 times slower.  perf's
# raw_syscalls:sys_enter tracepoint counts in the kernel, at each call's
# entry, from the first exec on; strace -c counts calls that return, from
# the first execve on.  For one process the two differences cancel (perf
# leaves out that execve, strace the exit_group); perf is used only where
# it counts exactly what strace counts on every calibration command (cp -a,
# du -s, find -printf and stat of DIR), for both builds.  Under xargs
# (stat) perf also counts each batch's exit_group: the same for both
# builds.  Sets counter and counter_note; with force_strace=true, strace.
calibrate () {
  local cal_dir=$1 agree=yes cal='' b c n_strace n_perf
  counter=strace counter_note="strace -c -f" fh_event=
  if ${force_strace:-false} \
     || ! perf stat -x, -e raw_syscalls:sys_enter -o "$w/perf" -- true \
            > /dev/null 2>&1; then
    return 0
  fi
  # The handles, where the kernel traces system calls one by one (and,
  # with fh_ok=false, not at all).
  if ${fh_ok:-true} && perf stat -x, -e syscalls:sys_enter_name_to_handle_at -o "$w/perf" \
       -- true > /dev/null 2>&1; then
    fh_event=syscalls:sys_enter_name_to_handle_at
  fi
  for b in stock patched; do
    for c in "cp -a" "du -s" "find -printf" "stat"; do
      for counter in strace perf; do
        reset_dest
        case $c in
          cp*) count_calls /dev/null "$bin_root/$b/cp" -a "$cal_dir" "$dest/" ;;
          du*) count_calls /dev/null "$bin_root/$b/du" -s "$cal_dir" ;;
          find*) count_calls /dev/null "$bin_root/$b/find" "$cal_dir" \
                   -printf '%i %n %s\n' ;;
          stat) count_calls /dev/null "$bin_root/$b/stat" --printf '%i\n' \
                  "$cal_dir" "$cal_dir"/* ;;
        esac
        eval "n_$counter=\$calls"
      done
      cal="$cal${cal:+, }$b $c $n_strace/$n_perf"
      { test "$n_strace" = "$n_perf" && test "$n_perf" != 0; } || agree=no
    done
  done
  reset_dest
  if test $agree = yes; then
    counter=perf
    counter_note="perf stat -e raw_syscalls:sys_enter, which counted what strace -c -f counted on ${cal_dir#"$w"/} (strace/perf: $cal); for stat it also counts each xargs batch's exit"
  else
    counter=strace fh_event=
    counter_note="strace -c -f (perf's tracepoint disagreed with it on ${cal_dir#"$w"/}, strace/perf: $cal)"
  fi
}

# covered_less CASE OUT_STOCK OUT_PATCHED: whether stock, in its counting
# run (exit statuses in SCST, results in SRES), covered less than patched:
# it stopped, or skipped snapshots.  du's, cp's and rsync's stdout do not
# list what they covered; the others' must be the same.
covered_less () {
  test "${SCST[stock]}" != 0 || test "${SRES[stock]}" != "${SRES[patched]}" \
    || { test "$1" != du-s && ! copies "$1" && ! cmp -s "$2" "$3"; }
}

# split_ref CASE LIST EMPTY OPERAND...: what stock makes of the same
# entries when each operand is given on its own, where stock is right
# (one subvolume each): the sum of the runs, less one start-up (stock on
# the empty directory EMPTY, which covers one entry).  Sets ref_calls and
# ref_fh ('-' if a run was not counted), ref_st (the first non-zero exit
# status), and ref_res and ref_dig (what all the runs produced together,
# as result and digest give it).
split_ref () {
  local c=$1 list=$2 empty=$3 op olist=$w/split.list
  shift 3
  ! copies "$c" || reset_dest
  echo "$empty" > "$olist"
  set_cmd "$c" stock "$olist" "$empty"
  count_calls /dev/null "${cmd[@]}"
  ref_calls=$calls ref_fh=$fh ref_st=0
  test "$calls" = - || ref_calls=$((-calls))
  test "$fh" = - || ref_fh=$((-fh))
  ! copies "$c" || reset_dest
  : > "$w/split.out"
  for op; do
    awk -v p="$op" '$0 == p || index($0, p "/") == 1' "$list" > "$olist"
    set_cmd "$c" stock "$olist" "$op"
    count_calls "$w/split.one" "${cmd[@]}"
    cat "$w/split.one" >> "$w/split.out"
    if test "$calls" = - || test "$ref_calls" = -; then ref_calls=-
    else ref_calls=$((ref_calls + calls)); fi
    if test "$fh" = - || test "$ref_fh" = -; then ref_fh=-
    else ref_fh=$((ref_fh + fh)); fi
    test "$ref_st" != 0 || ref_st=$sc_st
  done
  ref_res=$(result "$c" stock "$w/split.out")
  ref_dig=$(digest "$c" "$w/split.out")
}
