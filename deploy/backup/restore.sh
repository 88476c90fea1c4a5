#!/usr/bin/env bash
# Restore a base backup (base-backup.sh) into a NEW data directory, replay the WAL archive up to
# a point in time, start the server there and wait until it is promoted (accepts writes).
#
#   restore.sh -b BACKUP_DIR -D NEW_DATA_DIR -a ARCHIVE_DIR -p PORT
#              [--target-name NAME | --target-time 'YYYY-mm-dd HH:MM:SS+00' | --target-lsn LSN]
#              [--timeout SECONDS] [--keep-archiving] [--config-from CONFIG_DIR]
#
# Run it as the operating-system user that owns PostgreSQL (postgres). Steps:
#   1. checks the backup's SHA256SUMS (and, for a plain backup, pg_verifybackup);
#   2. unpacks the backup into NEW_DATA_DIR (which must not exist or be empty), mode 0700;
#      With --config-from (a cluster whose configuration lives outside its data directory, as
#      Debian's /etc/postgresql/15/main: the backup then holds no postgresql.conf), copies
#      postgresql.conf, pg_hba.conf, pg_ident.conf and conf.d/ from CONFIG_DIR, and points
#      data_directory, hba_file and ident_file at the new directory (external_pid_file off), so
#      the restored server can never start on the original's data;
#   3. appends the recovery settings to NEW_DATA_DIR/postgresql.auto.conf:
#        restore_command = 'cp "ARCHIVE_DIR/%f" "%p"'
#        recovery_target_name / _time / _lsn (none given: replay the whole archive)
#        recovery_target_action = 'promote'
#        archive_mode = 'off' (unless --keep-archiving: a restored copy does not write into the
#        archive of the server it came from until an operator decides so)
#      and creates recovery.signal;
#   4. starts the server on 127.0.0.1:PORT (log: NEW_DATA_DIR/restore.log) and waits until it has
#      reached the target and left recovery; fails (printing the log's end) when the server stops
#      instead, e.g. when the archive does not reach the target.
# A recovery_target_time is compared with commit times; give it with a time zone.
# The server is left running; stop it with: pg_ctl -D NEW_DATA_DIR stop
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

backup=
data=
archive=
port=
target_kind=
target=
timeout=600
keep_archiving=0
config_from=
while (($#)); do
    case $1 in
    -b) backup=$2; shift 2 ;;
    -D) data=$2; shift 2 ;;
    -a) archive=$2; shift 2 ;;
    -p) port=$2; shift 2 ;;
    --target-name) target_kind=name; target=$2; shift 2 ;;
    --target-time) target_kind='time'; target=$2; shift 2 ;;
    --target-lsn) target_kind=lsn; target=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --keep-archiving) keep_archiving=1; shift ;;
    --config-from) config_from=$2; shift 2 ;;
    *) usage ;;
    esac
done
[[ -n $backup && -n $data && -n $archive && -n $port ]] || usage
[[ $port =~ ^[0-9]+$ && $timeout =~ ^[0-9]+$ ]] || usage
[[ $target != *"'"* ]] || { echo "restore: the target must not contain a quote" >&2; exit 2; }

PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
backup=$(cd -- "$backup" && pwd)
archive=$(cd -- "$archive" && pwd)

# 1. The backup is whole and unchanged.
(cd -- "$backup" && sha256sum --quiet -c SHA256SUMS)

# 2. Unpack it.
if [[ -e $data ]] && [[ -n $(ls -A -- "$data") ]]; then
    echo "restore: $data is not empty: restore into a new directory" >&2
    exit 1
fi
mkdir -p -- "$data"
chmod 0700 -- "$data"
data=$(cd -- "$data" && pwd)
if [[ -f $backup/base.tar.gz || -f $backup/base.tar ]]; then
    base=$(compgen -G "$backup/base.tar*" | head -n 1)
    tar -xf "$base" -C "$data"
    if wal_tar=$(compgen -G "$backup/pg_wal.tar*"); then
        tar -xf "$(head -n 1 <<<"$wal_tar")" -C "$data/pg_wal"
    fi
else
    "$PG_BIN/pg_verifybackup" -n "$backup" >/dev/null
    (cd -- "$backup" && tar -cf - --exclude=./SHA256SUMS --exclude=./backup.info .) | tar -xf - -C "$data"
fi
rm -f -- "$data/backup.info" "$data/SHA256SUMS"
if [[ -n $config_from ]]; then
    for file in postgresql.conf pg_hba.conf pg_ident.conf; do
        cp -- "$config_from/$file" "$data/$file"
    done
    if [[ -d $config_from/conf.d ]]; then
        cp -r -- "$config_from/conf.d" "$data/conf.d"
    fi
    {
        echo
        echo "# Added by restore.sh: this copy's own files, never the original's"
        echo "data_directory = '$data'"
        echo "hba_file = '$data/pg_hba.conf'"
        echo "ident_file = '$data/pg_ident.conf'"
        echo "external_pid_file = ''"
    } >>"$data/postgresql.conf"
fi
if [[ ! -f $data/postgresql.conf ]]; then
    echo "restore: the backup holds no postgresql.conf: give the original's configuration" \
        "directory with --config-from (e.g. /etc/postgresql/15/main)" >&2
    exit 1
fi

# 3. Recovery settings: the last setting of a name in postgresql.auto.conf wins.
{
    echo
    echo "# Added by restore.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from $backup"
    echo "restore_command = 'cp \"$archive/%f\" \"%p\"'"
    if [[ -n $target_kind ]]; then
        echo "recovery_target_$target_kind = '$target'"
    fi
    echo "recovery_target_action = 'promote'"
    echo "recovery_target_timeline = 'latest'"
    if ((keep_archiving == 0)); then
        echo "archive_mode = 'off'"
    fi
} >>"$data/postgresql.auto.conf"
touch "$data/recovery.signal"

# 4. Start and wait for the promotion.
log=$data/restore.log
"$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t "$timeout" \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=''" start >/dev/null || {
    echo "restore: the server did not start; the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
}
deadline=$((SECONDS + timeout))
while :; do
    state=$("$PG_BIN/psql" -X -At -h 127.0.0.1 -p "$port" -U "${PGUSER:-postgres}" -d postgres \
        -c 'select pg_is_in_recovery()' 2>/dev/null || true)
    if [[ $state == f ]]; then
        break
    fi
    if ! "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        echo "restore: the server stopped during recovery; the end of $log:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
    if ((SECONDS > deadline)); then
        echo "restore: still in recovery after ${timeout}s; the end of $log:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
    sleep 0.2
done
echo "restored into $data, promoted, listening on 127.0.0.1:$port"
