#!/bin/sh
# The `scftl explore` table of docs/BENCHMARKS.md: crash states per
# contract for three real workloads on ext4, and states checked per second
# (mount with journal replay, the check, unmount, e2fsck -fn).
#   sh crates/bench/explore/workloads.sh [SCFTL] > crates/bench/results/explore.txt
# Needs root, nbdfuse, losetup, mkfs.ext4, sqlite3, git and tar.
set -u
SCFTL=${1:-target/release/scftl}
HERE=$(cd "$(dirname "$0")" && pwd)
BUGS=$HERE/../../cli/tests/crash-bugs
TAR=$(mktemp -d)/docs.tar
# A tarball of the first 60 packages' documentation (a few MB).
tar -C /usr/share/doc -cf "$TAR" $(ls /usr/share/doc | head -60)
run() {
    name=$1
    shift
    echo "## $name"
    /usr/bin/time -f "wall %e s" "$SCFTL" explore --fs ext4 --geometry medium --size 256MiB "$@" 2>&1 |
        grep -v '^scftl explore:\|^ *replay\|^    '
    echo
}
run "sqlite: 24 transactions of 20 rows, synchronous=FULL" \
    --setup "$BUGS/sqlite.sh setup" --workload "$BUGS/sqlite.sh work full 24" \
    --check "$BUGS/sqlite.sh check"
run "git: init, 6 commits of 20 files each" \
    --workload 'git init -q repo && cd repo && for c in 1 2 3 4 5 6; do for f in $(seq 20); do echo "$c $f" > "f$f"; done; git add -A && git -c user.name=x -c user.email=x@x commit -qm "c$c"; done' \
    --check 'test ! -e repo/.git/HEAD || git -C repo fsck --full --no-progress'
run "tar: extract $(du -k "$TAR" | cut -f1) KiB of documentation, then sync" \
    --workload "tar -xf $TAR && sync" \
    --check 'true'
