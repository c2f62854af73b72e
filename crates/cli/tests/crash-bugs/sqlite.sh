#!/bin/sh
# SQLite transactions in rollback-journal mode: the workload of the
# `scftl explore` suite (crates/cli/tests/explore.rs).
#   sqlite.sh setup            create db with table t
#   sqlite.sh work off|full N  N transactions of 20 rows each, with
#                              PRAGMA synchronous=OFF (the bug: SQLite
#                              never fsyncs, so the journal can reach the
#                              disk after the pages it protects) or FULL
#   sqlite.sh check            the database is whole
set -e
case "$1" in
setup)
    sqlite3 db 'pragma journal_mode=delete; create table t(k integer primary key, v text);' >/dev/null
    sync -f . ;;
work)
    i=0
    while [ "$i" -lt "$3" ]; do
        sql="pragma synchronous=$2; begin;"
        j=0
        while [ "$j" -lt 20 ]; do
            sql="$sql insert into t(v) values(hex(randomblob(300)));"
            j=$((j + 1))
        done
        sqlite3 db "$sql commit;"
        # Something else on the system asks for a flush now and then (a
        # journal commit of ext4 follows).
        if [ $((i % 4)) -eq 3 ]; then echo "$i" > other; sync other; fi
        i=$((i + 1))
    done ;;
check)
    test -e db || exit 0
    out=$(sqlite3 db 'pragma integrity_check; select count(*) % 20 from t;' 2>&1) || true
    # Whole, and holding whole transactions only.
    test "$out" = "ok
0" || { echo "$out"; exit 1; } ;;
esac
