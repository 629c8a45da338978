# t_sanitize.sh --- the disposal modes on kernel-made filesystems:
# --free-inodes (xattrs and symlink targets of deleted files, records past
# bg_itable_unused), unwritten extents under --all-free, --skip-zero,
# --sanitize as the sum of them, and -C progress per stage.  Each mode:
# its residue gone from the raw image, live files bit-exact, e2fsck -fn
# clean, a dry run writes nothing, a second run finds nothing to do.
. "$(dirname "$0")/../lib.sh"

if ! why=$(can_loop_mount); then
	skip "sanitize: kernel-made residues" "$why"
	exit 0
fi

# A filesystem with: a deleted file's bytes under a live file's
# fallocated (unwritten) extent, deleted files with in-inode xattrs and
# fast symlinks, a live file and a live xattr to keep.
build() {
	img=$1
	mkimg "$img" 64M -t ext4 -I 256 || return 1
	kmount "$img" || return 1
	canary "$T/mnt/old" "SAN-UNWRITTEN-$$" 4000000
	sync
	python3 - "$T/mnt" "$$" <<'EOF' || return 1
import os, sys
d, tag = sys.argv[1], sys.argv[2]
for i in range(40):
    p = os.path.join(d, "f%d" % i)
    open(p, "w").write("x")
    os.setxattr(p, "user.k", b"SAN-XATTR-" + tag.encode())
    os.symlink("SAN-LINK-" + tag, os.path.join(d, "l%d" % i))
k = os.path.join(d, "keep")
open(k, "w").write("SAN-KEEP-" + tag + "\n")
os.setxattr(k, "user.k", b"SAN-KEEPX-" + tag.encode())
EOF
	sync
	rm "$T/mnt/old"
	sync
	fallocate -l 8M "$T/mnt/prealloc"
	rm -f "$T/mnt"/f[0-9]* "$T/mnt"/l[0-9]*
	sha256sum "$T/mnt/keep" | cut -d' ' -f1 >"$T/keep.sha"
	kumount
}

# keep_ok IMG: the live file and its xattr, bit-exact; the preallocated
# file still 8 MiB of zeros with its extent unwritten.
keep_ok() {
	kmount "$1" ro || return 1
	ok=1
	[ "$(sha256sum "$T/mnt/keep" | cut -d' ' -f1)" = "$(cat "$T/keep.sha")" ] ||
		ok=0
	python3 -c "import os,sys; sys.exit(os.getxattr('$T/mnt/keep','user.k') != b'SAN-KEEPX-$$')" ||
		ok=0
	{ [ "$(stat -c %s "$T/mnt/prealloc")" = 8388608 ] &&
	  cmp -s -n 8388608 "$T/mnt/prealloc" /dev/zero; } || ok=0
	kumount
	debugfs -R "stat prealloc" "$1" 2>/dev/null | grep -q '\[u\]' || ok=0
	[ "$ok" = 1 ]
}

# Journal copies of inode table blocks are --all-journal's: count only
# what is outside the journal.
outside_journal() {
	debugfs -R "dump <8> $T/j.bin" "$2" >/dev/null 2>&1
	echo $(( $(count "$1" "$2") - $(count "$1" "$T/j.bin") ))
}

check_common() {
	name=$1 img=$2
	e2fsck -fn "$img" >/dev/null 2>&1 && pass "$name: e2fsck -fn clean" ||
		fail "$name: e2fsck -fn clean" "not clean"
	keep_ok "$img" && pass "$name: live files and xattrs kept" ||
		fail "$name: live files and xattrs kept" "changed"
}

# --- --free-inodes
build "$T/a.img" || { fail "free-inodes: build" "kernel image"; exit 0; }
# (The kernel clears a fast symlink's target at unlink; the journal's
# copies of the table keep it, for --all-journal.)
before=$(outside_journal "SAN-XATTR-$$" "$T/a.img")
[ "$before" -gt 0 ] &&
	pass "free-inodes: deleted records keep their xattrs" ||
	fail "free-inodes: deleted records keep their xattrs" "$before"
s0=$(sha "$T/a.img")
run_e2secrm -n --free-inodes --json "$T/a.json" "$T/a.img"
n=$(echo "$out" | sed -n 's/^ *free inode records *\([0-9]*\) records.*/\1/p')
[ "$rc" = 4 ] && [ "${n:-0}" -ge 80 ] && [ "$(sha "$T/a.img")" = "$s0" ] &&
	pass "free-inodes: -n reports the records, writes nothing" ||
	fail "free-inodes: -n reports the records, writes nothing" \
		"rc=$rc n=$n"
[ "$(jq .found.free_inode_records "$T/a.json")" = "$n" ] &&
	pass "free-inodes: JSON count matches the report" ||
	fail "free-inodes: JSON count matches the report" \
		"$(jq -c .found "$T/a.json")"
run_e2secrm -y --free-inodes --verify "$T/a.img"
[ "$rc" = 1 ] && pass "free-inodes: wipe exits 1" ||
	fail "free-inodes: wipe exits 1" "rc=$rc $err"
[ "$(outside_journal "SAN-XATTR-$$" "$T/a.img")" = 0 ] &&
[ "$(outside_journal "SAN-LINK-$$" "$T/a.img")" = 0 ] &&
	pass "free-inodes: no xattr or link target left in the tables" ||
	fail "free-inodes: no xattr or link target left in the tables" \
		"$(outside_journal "SAN-XATTR-$$" "$T/a.img")"
[ "$(count "SAN-UNWRITTEN-$$" "$T/a.img")" -gt 0 ] &&
	pass "free-inodes: leaves free and unwritten blocks alone" ||
	fail "free-inodes: leaves free and unwritten blocks alone" "gone"
check_common "free-inodes" "$T/a.img"
run_e2secrm -y --free-inodes "$T/a.img"
[ "$rc" = 0 ] && pass "free-inodes: second run finds nothing" ||
	fail "free-inodes: second run finds nothing" "rc=$rc $out"

# Records past bg_itable_unused: e2fsck lowers the mark over them.
mkimg "$T/t.img" 32M -t ext4 -I 256 -N 4096
kmount "$T/t.img"
mkdir "$T/mnt/d"
python3 - "$T/mnt/d" "$$" <<'EOF'
import os, sys
for i in range(600):
    p = os.path.join(sys.argv[1], "t%d" % i)
    open(p, "w").write("x")
    os.setxattr(p, "user.k", b"SAN-TAIL-" + sys.argv[2].encode())
EOF
sync
rm -rf "$T/mnt/d"
kumount
e2fsck -fy "$T/t.img" >/dev/null 2>&1
unused=$(dumpe2fs "$T/t.img" 2>/dev/null |
	 sed -n 's/.*, \([0-9]*\) unused inodes/\1/p' | head -1)
tb=$(outside_journal "SAN-TAIL-$$" "$T/t.img")
run_e2secrm -y --free-inodes "$T/t.img"
ta=$(outside_journal "SAN-TAIL-$$" "$T/t.img")
[ "$tb" -gt 0 ] && [ "$ta" = 0 ] && [ "$rc" = 1 ] &&
	pass "free-inodes: records past the unused mark zeroed" ||
	fail "free-inodes: records past the unused mark zeroed" \
		"before $tb after $ta rc=$rc unused=$unused"
e2fsck -fn "$T/t.img" >/dev/null 2>&1 &&
	pass "free-inodes: tail case e2fsck -fn clean" ||
	fail "free-inodes: tail case e2fsck -fn clean" "not clean"

# --- unwritten extents under --all-free, with --skip-zero
build "$T/b.img" || { fail "all-free: build" "kernel image"; exit 0; }
[ "$(count "SAN-UNWRITTEN-$$" "$T/b.img")" -gt 0 ] &&
	pass "all-free: old bytes sit under an unwritten extent" ||
	fail "all-free: old bytes sit under an unwritten extent" "not found"
run_e2secrm -n --all-free "$T/b.img"
echo "$out" | grep -Eq '^ *unwritten extents +[0-9]+ blocks +8388608 bytes' &&
	pass "all-free: -n counts the unwritten blocks" ||
	fail "all-free: -n counts the unwritten blocks" "$out"
run_e2secrm -y --all-free --skip-zero --verify "$T/b.img"
sk=$(echo "$out" | sed -n 's/.*: \([0-9]*\) blocks already zero.*/\1/p')
[ "$rc" = 1 ] && [ "${sk:-0}" -gt 0 ] &&
	pass "all-free: --skip-zero writes only what is not zero" ||
	fail "all-free: --skip-zero writes only what is not zero" \
		"rc=$rc skipped=$sk"
[ "$(count "SAN-UNWRITTEN-$$" "$T/b.img")" = 0 ] &&
	pass "all-free: unwritten extents zeroed" ||
	fail "all-free: unwritten extents zeroed" "old bytes left"
check_common "all-free" "$T/b.img"

# --- --sanitize: everything that is not live, in one run
build "$T/c.img" || { fail "sanitize: build" "kernel image"; exit 0; }
run_e2secrm -y --sanitize -C 3 "$T/c.img" 3>"$T/progress"
[ "$rc" = 1 ] && pass "sanitize: exits 1" ||
	fail "sanitize: exits 1" "rc=$rc $err"
left=
for tok in SAN-UNWRITTEN SAN-XATTR SAN-LINK; do
	[ "$(count "$tok-$$" "$T/c.img")" = 0 ] || left="$left $tok"
done
[ -z "$left" ] && pass "sanitize: no residue anywhere in the image" ||
	fail "sanitize: no residue anywhere in the image" "left:$left"
check_common "sanitize" "$T/c.img"

# -C fd: per stage, counts never go back and each stage ends at its max.
if awk -v dev="$T/c.img" '
	$4 != dev { bad = 1 }
	$1 == st && $2 < cur { bad = 1 }
	$1 != st { if (st != "" && cur != max) bad = 1; seen[$1] = 1 }
	{ st = $1; cur = $2; max = $3 }
	END { if (cur != max) bad = 1
	      exit bad || !(1 in seen) || !(6 in seen) || !(7 in seen) ||
		   !(8 in seen) || !(9 in seen) }' "$T/progress"; then
	pass "sanitize: -C progress per stage, monotonic, to 100%"
else
	fail "sanitize: -C progress per stage, monotonic, to 100%" \
		"$(head -20 "$T/progress" | tr '\n' ';')"
fi

# -C 0 on a terminal: e2fsck's bar.
if command -v script >/dev/null 2>&1; then
	build "$T/d.img"
	script -qc "$E2SECRM -y --sanitize -C 0 $T/d.img" /dev/null \
		>"$T/bar" 2>&1
	tr '\r' '\n' <"$T/bar" | grep -Eq '^.*: Wiping all free blocks +\|=+\| 100%' &&
		pass "progress: -C 0 draws a bar per stage" ||
		fail "progress: -C 0 draws a bar per stage" \
			"$(tr '\r' '\n' <"$T/bar" | grep '|' | tail -3)"
else
	skip "progress: -C 0 draws a bar per stage" "no script(1)"
fi
