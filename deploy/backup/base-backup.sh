#!/usr/bin/env bash
# Take a base backup of the PostgreSQL cluster that serves Canasta, with a label and checksums.
#
#   base-backup.sh -d 'host=127.0.0.1 port=5432 user=postgres' -o /var/backups/canasta [-l LABEL]
#                  [-F t|p] [-X stream|none] [-k KEEP]
#
# Writes OUT/LABEL-YYYYmmddTHHMMSSZ/ (the directory name is printed on success):
#   base.tar.gz, pg_wal.tar.gz  (-F t, the default: pg_basebackup's gzip-compressed tar format)
#   or a plain copy of the data directory (-F p);
#   backup_manifest             PostgreSQL's own manifest of every file and its checksum;
#   SHA256SUMS                  sha256sum of every file above (restore.sh checks it first);
#   backup.info                 label, start time, server version, connection used.
# The backup is written to OUT/.LABEL-....partial and renamed when complete, so a directory
# without the leading dot is always a whole backup.
#
# -X stream (the default) also copies the WAL written while the backup ran, so the backup can be
# restored to its own end without the WAL archive; -X none relies on the archive for that WAL.
# Either way, recovery to a later point needs the archive (archive-wal.sh).
#
# -k KEEP removes the oldest complete backups of the same label beyond the KEEP newest (after
# this one succeeded). WAL segments older than the oldest kept backup can then be removed from the
# archive with pg_archivecleanup (docs/operations.md, "Backups and restore").
#
# The connecting role needs the REPLICATION attribute (or to be a superuser) and a replication
# entry in pg_hba.conf; the server needs max_wal_senders >= 2 for -X stream.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

conninfo=
out=
label=canasta
format=t
wal=stream
keep=0
while getopts ":d:o:l:F:X:k:h" opt; do
    case $opt in
    d) conninfo=$OPTARG ;;
    o) out=$OPTARG ;;
    l) label=$OPTARG ;;
    F) format=$OPTARG ;;
    X) wal=$OPTARG ;;
    k) keep=$OPTARG ;;
    *) usage ;;
    esac
done
[[ -n $conninfo && -n $out ]] || usage
[[ $format == t || $format == p ]] || usage
[[ $wal == stream || $wal == none ]] || usage
[[ $label =~ ^[A-Za-z0-9_-]+$ ]] || { echo "base-backup: the label must be [A-Za-z0-9_-]+" >&2; exit 2; }
[[ $keep =~ ^[0-9]+$ ]] || usage

PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name=$label-$stamp
partial=$out/.$name.partial
final=$out/$name

mkdir -p -- "$out"
rm -rf -- "$partial"
trap 'rm -rf -- "$partial"' EXIT

args=(-d "$conninfo" -D "$partial" -F "$format" -X "$wal" -l "$name" --checkpoint=fast
    --manifest-checksums=SHA256 --no-password)
if [[ $format == t ]]; then
    args+=(-z)
fi
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
"$PG_BIN/pg_basebackup" "${args[@]}"
if [[ $format == p ]]; then
    # A plain backup can be checked against its manifest at once.
    "$PG_BIN/pg_verifybackup" -n "$partial" >/dev/null
fi
version=$("$PG_BIN/psql" -X -At -d "$conninfo" -c 'show server_version')
{
    echo "label=$name"
    echo "started=$started"
    echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "format=$format"
    echo "wal=$wal"
    echo "server_version=$version"
} >"$partial/backup.info"
(
    cd -- "$partial"
    find . -type f -print0 | sort -z | xargs -0 sha256sum >"../.SHA256SUMS.$name"
    mv -- "../.SHA256SUMS.$name" SHA256SUMS
)
sync -f -- "$partial/SHA256SUMS"
mv -- "$partial" "$final"
trap - EXIT

if ((keep > 0)); then
    mapfile -t old < <(find "$out" -mindepth 1 -maxdepth 1 -type d -name "$label-*" | sort | head -n "-$keep")
    for dir in "${old[@]}"; do
        rm -rf -- "$dir"
    done
fi
echo "$final"
