#!/bin/sh
# check-layers.sh --- holds lib/ to its layers (lib/layers.txt).
#
# lib/ is a folder per layer, named as the layer.  What a file calls is
# read from the objects the build made (nm: the symbols each lib/*/*.o
# leaves undefined, and which lib/*/*.o defines them),
# what it includes from its source (#include "x.h" of a private header;
# e2secrm.h, the public header, and e2secrmP.h, what lib/ shares inside
# itself, are not ranked).  It
# fails when a file calls or includes a file of a higher layer, when two
# files call each other (through others too), when a file of lib/ calls
# into the command (e2secrm/), when the command includes e2secrmP.h, when
# a file has no layer or lies in another layer's folder, or when a file
# of lib/ or of the command calls
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
for c in "$src"/lib/*.c "$src"/lib/*.h "$src"/lib/*/*.c "$src"/lib/*/*.h; do
	[ -f "$c" ] || continue
	f=$(basename "$c"); f=${f%.*}
	[ "$f" = e2secrm ] || [ "$f" = e2secrmP ] && continue
	sed -n 's/^#include "\([a-z_0-9]*\)\.h".*/\1/p' "$c" |
	while read -r h; do
		[ "$h" = e2secrm ] || [ "$h" = e2secrmP ] ||
			[ "$h" = "$f" ] && continue
		echo "$f $h lib #include"
	done
done | sort -u >"$tmp/includes"

status=0

# Each file in the folder of its layer: the tree shows the layers.  The
# faces (e2secrm.h, e2secrmP.h) and compile_et's e2sr_err stay at the top.
for c in "$src"/lib/*/*.c "$src"/lib/*/*.h "$src"/lib/*.c "$src"/lib/*.h; do
	[ -f "$c" ] || continue
	f=$(basename "$c"); f=${f%.*}
	d=$(basename "$(dirname "$c")")
	case $f in e2secrm | e2secrmP | e2sr_err) continue ;; esac
	l=$(awk -v f="$f" '$1 == f { print $3 }' "$tmp/rank")
	if [ -n "$l" ] && [ "$d" != "$l" ]; then
		echo "lib/$d/$f: its layer is $l, its folder should be lib/$l"
		status=1
	fi
done

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
	}' "$tmp/rank" "$tmp/calls" "$tmp/includes" || status=1

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
if grep -l '^#include "e2secrmP.h"' "$src"/e2secrm/*.c "$src"/e2secrm/*.h \
	2>/dev/null; then
	echo "  (the command includes lib/'s private header)"
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
		"lib/layers.txt; no cycles; no libc allocation in lib/ or" \
		"the command"
fi
exit $status
