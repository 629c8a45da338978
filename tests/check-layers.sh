#!/bin/sh
# check-layers.sh --- holds lib/ to its layers (lib/layers.txt).
#
# lib/ is a folder per layer, named as the layer.  What a file calls is
# read from the objects the build made (nm: the symbols each lib/*/*.o
# leaves undefined, and which lib/*/*.o defines them),
# what it includes from its source (#include "x.h").  A .c file's layer
# is its row in lib/layers.txt; a header's is its folder's.  Each folder
# has one face, lib/LAYER/LAYER.h (lib/util/util.h, lib/journal/journal.h,
# ...): what the folders above may use of it.  Its other headers are its
# own.  lib/stages/ and lib/context/ have no face: what they offer is the
# command's, in lib/e2secrm.h.  lib/e2secrm.h, the public face (with
# compile_et's e2sr_err.h), sits at the top of lib/ and is not ranked:
# every file may include it, and it includes the journal's face for the
# types the context holds.
#
# It fails when a file calls a file of a higher layer, when two files
# call each other (through others too), when a file of lib/ calls into
# the command (e2secrm/), when a file includes a header of a folder above
# its own, when a file includes a header of another folder that is not
# that folder's face, when the command includes any header of lib/ but
# e2secrm.h (no exception: journal_map.c reads the history and the fast
# commits through e2secrm.h, which includes the journal's face), when a
# .c file has no layer or lies in another layer's folder, when a folder
# of lib/ is not a layer, or when a file of lib/ or of the command calls
# libc's allocator (malloc, free, strdup...) instead of libext2fs'
# (ext2fs_get_mem() and its kin, ext2fs_free_mem()).
#
# usage: check-layers.sh SRCDIR BUILDDIR
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.
set -u
src=${1:-.}
build=${2:-.}
table=$src/lib/layers.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2secrm-layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# file -> layer rank
awk '!/^#/ && NF > 1 { for (i = 2; i <= NF; i++) print $i, NR, $1 }' \
	"$table" >"$tmp/rank"

# defined symbols (lib and command) and undefined ones, per object
for o in "$build"/lib/*.o "$build"/lib/*/*.o "$build"/e2secrm/*.o; do
	[ -f "$o" ] || continue
	case $o in
	"$build"/lib/*) dir=lib ;;
	*) dir=e2secrm ;;
	esac
	f=$(basename "$o" .o)
	nm "$o" | awk -v f="$f" -v d="$dir" \
		'NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, d, f }
		 NF == 2 && $1 == "U" { print "U", $2, d, f }'
done >"$tmp/syms"
if ! grep -q '^D' "$tmp/syms"; then
	echo "check-layers: no objects under $build/lib: build first" >&2
	exit 2
fi

# edges "from to kind" between lib files: calls, then includes
awk 'FNR == NR { if ($1 == "D") def[$2] = $3 " " $4; next }
     $1 == "U" && $3 == "lib" && ($2 in def) {
	split(def[$2], t, " ")
	if (t[2] != $4)
		print $4, t[2], t[1], $2
     }' "$tmp/syms" "$tmp/syms" | sort -u >"$tmp/calls"
# includes "file folder header" between the folders of lib/: a header
# of the includer's own folder is its own business; lib/e2secrm.h and
# e2sr_err.h are the top.
for c in "$src"/lib/*/*.c "$src"/lib/*/*.h; do
	[ -f "$c" ] || continue
	d=$(basename "$(dirname "$c")")
	f=lib/$d/$(basename "$c")
	sed -n 's/^#include "\([a-z_0-9]*\.h\)".*/\1/p' "$c" |
	while read -r h; do
		[ -f "$src/lib/$d/$h" ] && continue
		for t in "$src"/lib/*/"$h"; do
			[ -f "$t" ] || continue
			echo "$f $d $(basename "$(dirname "$t")") $h"
			break
		done
	done
done | sort -u >"$tmp/includes"

status=0

# Each .c file in the folder of its layer: the tree shows the layers.
# compile_et's e2sr_err stays at the top with the public face.
for c in "$src"/lib/*/*.c "$src"/lib/*.c; do
	[ -f "$c" ] || continue
	f=$(basename "$c" .c)
	d=$(basename "$(dirname "$c")")
	[ "$f" = e2sr_err ] && continue
	l=$(awk -v f="$f" '$1 == f { print $3 }' "$tmp/rank")
	if [ -z "$l" ]; then
		echo "lib/$d/$f.c has no layer in $table"
		status=1
	elif [ "$d" != "$l" ]; then
		echo "lib/$d/$f.c: its layer is $l, its folder should be lib/$l"
		status=1
	fi
done

# Each folder a layer.
awk '!/^#/ && NF > 1 { print $1, NR }' "$table" >"$tmp/folders"
for d in "$src"/lib/*/; do
	d=$(basename "$d")
	if ! awk -v d="$d" '$1 == d { found = 1 } END { exit !found }' \
		"$tmp/folders"; then
		echo "lib/$d/ is no layer of $table"
		status=1
	fi
done

# A file includes its own folder's headers and the faces of the folders
# of its layer or below, nothing else: the folders above may change
# without it, and a folder's other headers are its own.
awk 'FNR == NR { rank[$1] = $2; next }
     {
	file = $1; from = $2; to = $3; h = $4
	if (rank[to] > rank[from]) {
		printf "%s (%s) includes lib/%s/%s, a folder above\n",
		       file, from, to, h
		bad = 1
	} else if (h != to ".h") {
		printf "%s includes lib/%s/%s, not lib/%s'"'"'s face (%s.h)\n",
		       file, to, h, to, to
		bad = 1
	}
     }
     END { exit bad }' "$tmp/folders" "$tmp/includes" || status=1

awk -v table="$table" '
	FNR == NR { rank[$1] = $2; name[$1] = $3; next }
	{
		from = $1; to = $2
		if ($3 == "e2secrm") {
			printf "lib/%s calls the command (e2secrm/%s): %s\n",
			       from, to, $4
			bad = 1
			next
		}
		if (!(from in rank) || !(to in rank)) {
			missing[(from in rank) ? to : from] = 1
			next
		}
		if (rank[to] > rank[from]) {
			printf "lib/%s (%s) uses lib/%s (%s), a layer above: %s\n",
			       from, name[from], to, name[to], $4
			bad = 1
		}
	}
	END {
		for (m in missing) {
			printf "lib/%s has no layer in %s\n", m, table
			bad = 1
		}
		exit bad
	}' "$tmp/rank" "$tmp/calls" || status=1

# Cycles among the calls: drop, again and again, the calls out of a file
# nothing left calls and the calls into a file that calls nothing left;
# in a graph without cycles nothing remains.
awk '$3 == "lib" { print $1, $2 }' "$tmp/calls" | sort -u >"$tmp/edges"
cp "$tmp/edges" "$tmp/left"
while :; do
	awk 'FNR == NR { out[$1]++; in_[$2]++; next }
	     (out[$2] > 0) && (in_[$1] > 0)' "$tmp/left" "$tmp/left" \
		>"$tmp/next"
	if cmp -s "$tmp/left" "$tmp/next"; then
		break
	fi
	mv "$tmp/next" "$tmp/left"
done
if [ -s "$tmp/left" ]; then
	echo "calls on cycles (or between them): these files reach themselves"
	awk '{ printf "  lib/%s -> lib/%s\n", $1, $2 }' "$tmp/left"
	status=1
fi

# The command sees lib/ through e2secrm.h alone.
for c in "$src"/e2secrm/*.c "$src"/e2secrm/*.h; do
	[ -f "$c" ] || continue
	sed -n 's/^#include "\([a-z_0-9]*\.h\)".*/\1/p' "$c" |
	while read -r h; do
		[ "$h" = e2secrm.h ] && continue
		for t in "$src"/lib/"$h" "$src"/lib/*/"$h"; do
			[ -f "$t" ] || continue
			echo "e2secrm/$(basename "$c") includes" \
				"${t#"$src"/}: the command sees lib/ through" \
				"e2secrm.h alone"
			break
		done
	done
done >"$tmp/cmd"
if [ -s "$tmp/cmd" ]; then
	cat "$tmp/cmd"
	status=1
fi

# lib/ and the command allocate as lib/ext2fs does.  The Makefile builds
# them with NO_INLINE_FUNCS, so ext2fs_get_mem() and its kin stay calls
# into libext2fs and a malloc() left undefined is the file's own.
# e2sr_err.c is compile_et's.
awk '$1 == "U" && $4 != "e2sr_err" &&
     $2 ~ /^(malloc|calloc|realloc|free|strdup|strndup|reallocarray|asprintf|vasprintf)$/ {
	printf "%s/%s calls %s(): allocate with ext2fs_get_mem() and" \
	       " its kin, free with ext2fs_free_mem()\n", $3, $4, $2
	bad = 1
     }
     END { exit bad }' "$tmp/syms" || status=1

n=$(wc -l <"$tmp/edges")
if [ $status = 0 ]; then
	echo "check-layers: $n calls between the files of lib/ follow" \
		"lib/layers.txt; no cycles; includes reach only a folder's" \
		"face, never up; no libc allocation in lib/ or the command"
fi
exit $status
