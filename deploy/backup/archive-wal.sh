#!/usr/bin/env bash
# PostgreSQL's archive_command: copy one completed WAL segment (or a .history/.backup file)
# into the WAL archive, atomically.
#
#   archive_command = '/srv/canasta/deploy/backup/archive-wal.sh %p %f /var/lib/canasta/wal-archive'
#
# %p is the file's path relative to the data directory (the server runs the command there), %f
# its name. The file is copied to ARCHIVE/NAME.tmp, flushed to disk and renamed, so a reader
# (restore_command) never sees half a segment. A file already archived is accepted when it is
# byte for byte the same (the server may ask again after a crash between the copy and its own
# bookkeeping) and refused otherwise: an archive is never overwritten. A non-zero exit makes the
# server keep the segment and try again later.
set -euo pipefail

if (($# != 3)); then
    echo "usage: $0 WAL_PATH WAL_NAME ARCHIVE_DIR   (archive_command: '$0 %p %f ARCHIVE_DIR')" >&2
    exit 2
fi
src=$1
name=$2
archive=$3
dst=$archive/$name

if [[ -f $dst ]]; then
    if cmp -s -- "$src" "$dst"; then
        exit 0
    fi
    echo "archive-wal: $dst exists and differs from $src: refusing to overwrite it" >&2
    exit 1
fi
cp -- "$src" "$dst.tmp"
sync -- "$dst.tmp"
mv -- "$dst.tmp" "$dst"
sync -- "$archive"
