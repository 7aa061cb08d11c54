#!/usr/bin/env python3
"""record.py -- the stock build's results, kept and replayed.

The stock build's results change only when the stock build, the tests,
the guest kernels or the host's filesystem tools change.  testsuite/
stock-record keeps them, with checksums of all that; make check-stock
replays them where the checksums still hold and runs the suite for the
test files where one does not (testsuite/stock-replay).

  record.py keys TOOLS CACHE
      print the checksums: "env HASH" (stock build, guest kernels, host,
      the suite's common files), then "test FILE HASH" per test file
  record.py write OUTDIR TOOLS CACHE > RECORD
      a record of the full run in OUTDIR (run-suite --build stock)
  record.py stale RECORD TOOLS CACHE
      the test files whose results RECORD cannot give (one a line); on
      stderr, where the environment changed, what did
  record.py merge RECORD OUTDIR [RERUN]
      OUTDIR/subvol.sum and subvol.log: RECORD's results for the test
      files that RERUN (run-suite's outdir for the stale files) did not
      run, and RERUN's own
"""

import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.dirname(HERE)
RESULT = re.compile(r'^(PASS|FAIL|XPASS|XFAIL|KPASS|KFAIL|UNSUPPORTED|UNRESOLVED|UNTESTED): ')
RUNNING = re.compile(r'^Running (\S+) \.\.\.$')
# The host's packages whose behaviour the stock results depend on: the
# fixtures' tools, the guest's emulator and root, the harness.
HOST_PACKAGES = """btrfs-progs bindfs fuse3 libfuse3-3 e2fsprogs util-linux mount
  qemu-system-x86 busybox-static dejagnu expect tcl8.6 python3.11 coreutils
  libc6 bash kmod""".split()
# The suite's files that every test uses.  known-bugs and
# identity-inventory are not among them: the stock build's results do
# not read them (check ignores known-bugs for stock; the inventory test
# runs only on ours).  Of those, the ones that no run reads are skipped:
# the guests' download script and where it finds the archive (the guest
# kernels and root, which the key holds, are what it made).
COMMON = ['run-suite', 'lib', 'config', 'guest']
COMMON_SKIP = {'guest/README', 'lib/record.py', 'guest/fetch',
               'lib/apt-sources.sh'}


def sha(data):
    return hashlib.sha256(data).hexdigest()


def file_sha(path):
    with open(path, 'rb') as f:
        return sha(f.read())


def test_files():
    out = []
    for d in sorted(os.listdir(SUITE)):
        if d.startswith('subvol.') and os.path.isdir(os.path.join(SUITE, d)):
            for f in sorted(os.listdir(os.path.join(SUITE, d))):
                if f.endswith('.exp'):
                    out.append(d + '/' + f)
    return out


def binary_sha(path):
    """The checksum of an executable, without what depends on where it
    was built (debug information, the build ID computed over it)."""
    with open(path, 'rb') as f:
        magic = f.read(4)
    if magic != b'\x7fELF':
        return file_sha(path)
    with tempfile.NamedTemporaryFile() as t:
        subprocess.run(['objcopy', '--strip-debug',
                        '--remove-section=.note.gnu.build-id',
                        path, t.name], check=True)
        return file_sha(t.name)


def env_parts(tools, cache):
    parts = []
    for d in tools.split(':'):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            # config.status names the directory it was configured in
            # (rsync builds in its top directory, which holds it): a
            # record made in one clone would never hold in another.
            if (not os.path.isfile(p) or not os.access(p, os.X_OK)
                    or name.endswith(('.sh', '.pl', '.o', '.a'))
                    or name == 'config.status'):
                continue
            parts.append('tool %s %s' % (name, binary_sha(p)))
    for k in ('trixie', 'bookworm', 'userland-bookworm', 'userland-trixie'):
        stamp = os.path.join(cache, 'guest', k, 'stamp')
        if os.path.exists(stamp):
            with open(stamp) as f:
                parts.append('guest %s %s' % (k, f.read().strip()))
    parts.append('kernel %s' % ' '.join(os.uname()[2:4]))
    q = subprocess.run(['dpkg-query', '-W', '-f', '${Package} ${Version}\\n']
                       + HOST_PACKAGES, capture_output=True, text=True)
    parts.extend('package ' + l for l in q.stdout.splitlines())
    for c in COMMON:
        top = os.path.join(SUITE, c)
        paths = [top] if os.path.isfile(top) else [
            os.path.join(r, f) for r, _, fs in os.walk(top) for f in fs]
        for p in sorted(paths):
            rel = os.path.relpath(p, SUITE)
            if rel not in COMMON_SKIP:
                parts.append('file %s %s' % (rel, file_sha(p)))
    return parts


def keys(tools, cache, parts=None):
    if parts is None:
        parts = env_parts(tools, cache)
    k = {'env': sha('\n'.join(parts).encode())}
    for t in test_files():
        k[t] = file_sha(os.path.join(SUITE, t))
    return k


def test_name(path):
    """subvol.DIR/FILE.exp, from DejaGnu's path of a test file."""
    return '/'.join(path.split('/')[-2:])


def parse_pass(path):
    """(test file, result line) of a run's subvol.sum; a result not
    after a "Running" line has file None."""
    out = []
    current = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = RUNNING.match(line)
            if m:
                current = test_name(m.group(1))
            elif RESULT.match(line):
                out.append((current, line))
    return out


def passes(outdir):
    """The parts of run-suite's OUTDIR, in the order it adds them."""
    names = []
    if os.path.exists(os.path.join(outdir, 'host', 'subvol.sum')):
        names.append('host')
    names += sorted(d for d in os.listdir(outdir) if d.startswith('sandbox-'))
    for g in sorted(d for d in os.listdir(outdir)
                    if d.startswith('guest-') and os.path.isdir(os.path.join(outdir, d))):
        if os.path.exists(os.path.join(outdir, g, 'host', 'subvol.sum')):
            names.append(g + '/host')
        names += sorted(g + '/' + d for d in os.listdir(os.path.join(outdir, g))
                        if d.startswith('sandbox-'))
    return [(n, parse_pass(os.path.join(outdir, n, 'subvol.sum')))
            for n in names if os.path.exists(os.path.join(outdir, n, 'subvol.sum'))]


def read_record(path, parts=None):
    k, results = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#') or not line:
                continue
            kind, rest = line.split('\t', 1)
            if kind == 'key':
                name, h = rest.split('\t')
                k[name] = h
            elif kind == 'result':
                p, t, r = rest.split('\t', 2)
                results.append((p, t, r))
            elif kind == 'env' and parts is not None:
                parts.append(rest)
    return k, results


def cmd_keys(tools, cache):
    for name, h in keys(tools, cache).items():
        print(name, h)


def cmd_write(outdir, tools, cache):
    env = env_parts(tools, cache)
    k = keys(tools, cache, env)
    known = set(k)
    parts = passes(outdir)
    # Every result must come from a test file: a run-level failure (a
    # guest that did not run) is no record.
    for p, rs in parts:
        for t, r in rs:
            if t not in known:
                sys.exit('record.py: %s: a result of no test file (%s): %s'
                         % (p, t, r))
    with open(os.path.join(outdir, 'subvol.sum'), errors='replace') as f:
        combined = sum(1 for l in f if RESULT.match(l))
    total = sum(len(rs) for _, rs in parts)
    if combined != total:
        sys.exit('record.py: %s/subvol.sum has %d results, its parts %d'
                 % (outdir, combined, total))
    print('# The stock build\'s results (testsuite/lib/record.py), replayed by')
    print('# make check-stock where the checksums below still hold.  Made by')
    print('# make stock-record from a full run; do not edit.')
    for name, h in k.items():
        print('key\t%s\t%s' % (name, h))
    # What the env key sums, so that a stale record can say what changed
    # (a line each: a guest's stamp holds several).
    for e in env:
        print('env\t%s' % e.replace('\\', '\\\\').replace('\n', '\\n'))
    for p, rs in parts:
        for t, r in rs:
            print('result\t%s\t%s\t%s' % (p, t, r))


def cmd_stale(record, tools, cache):
    old_env = []
    old, _ = read_record(record, old_env)
    env = env_parts(tools, cache)
    now = keys(tools, cache, env)
    env_ok = old.get('env') == now['env']
    if not env_ok and old_env:
        # On stderr: what changed since the record was made.
        env = [e.replace('\\', '\\\\').replace('\n', '\\n') for e in env]
        gone, new = set(old_env) - set(env), set(env) - set(old_env)
        for e in sorted(gone):
            sys.stderr.write('record.py: was: %s\n' % e)
        for e in sorted(new):
            sys.stderr.write('record.py: now: %s\n' % e)
    for name, h in now.items():
        if name != 'env' and (not env_ok or old.get(name) != h):
            print(name)


def cmd_merge(record, outdir, rerun=None):
    _, results = read_record(record)
    fresh = []
    if rerun:
        fresh = passes(rerun)
    rerun_files = {t for _, rs in fresh for t, _ in rs}
    if rerun:
        # Test files that the rerun ran but that gave no result still
        # replace the record's (they ran: a test may have been emptied).
        with open(os.path.join(rerun, 'subvol.log'), errors='replace') as f:
            for line in f:
                m = RUNNING.match(line.rstrip('\n'))
                if m:
                    rerun_files.add(test_name(m.group(1)))
    existing = set(test_files())
    by_pass = {}
    order = []
    for p, t, r in results:
        if t in rerun_files or t not in existing:
            continue
        if p not in by_pass:
            by_pass[p] = []
            order.append(p)
        by_pass[p].append(('record', r))
    for p, rs in fresh:
        if p not in by_pass:
            by_pass[p] = []
            order.append(p)
        by_pass[p].extend(('run', r) for _, r in rs)
    replayed = sum(1 for p in order for s, _ in by_pass[p] if s == 'record')
    ran = sum(1 for p in order for s, _ in by_pass[p] if s == 'run')
    with open(os.path.join(outdir, 'subvol.sum'), 'w') as f:
        f.write('# Results of the stock build: %d replayed from %s, %d run now\n'
                % (replayed, os.path.relpath(record, SUITE), ran))
        for p in order:
            f.write('\n# %s\n' % p)
            for _, r in by_pass[p]:
                f.write(r + '\n')
        if rerun:
            # Run-level results of the rerun (a guest that did not run).
            with open(os.path.join(rerun, 'subvol.sum'), errors='replace') as g:
                attributed = {r for _, rs in fresh for _, r in rs}
                extra = [l.rstrip('\n') for l in g
                         if RESULT.match(l) and l.rstrip('\n') not in attributed]
            if extra:
                f.write('\n# the rerun\n' + '\n'.join(extra) + '\n')
    with open(os.path.join(outdir, 'subvol.log'), 'w') as f:
        f.write('Replayed %d results of test files whose checksums still hold.\n'
                % replayed)
        if rerun:
            with open(os.path.join(rerun, 'subvol.log'), errors='replace') as g:
                f.write(g.read())


def main(argv):
    cmds = {'keys': (cmd_keys, 2), 'write': (cmd_write, 3),
            'stale': (cmd_stale, 3), 'merge': (cmd_merge, (2, 3))}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.exit(__doc__)
    fn, n = cmds[argv[1]]
    args = argv[2:]
    if (isinstance(n, tuple) and len(args) not in n) or (isinstance(n, int) and len(args) != n):
        sys.exit(__doc__)
    fn(*args)


if __name__ == '__main__':
    main(sys.argv)
