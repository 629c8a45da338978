# t_journal_map.sh --- `e2secrm --journal-map`: every journal copy listed
# with what it is, checked against the filesystem's own layout and owners,
# on a journal written by debugfs and on one written by the kernel.
. "$(dirname "$0")/../lib.sh"

# map_has NAME PATTERN: the listing in $out has a line matching PATTERN.
map_has() {
	if echo "$out" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1" "no line like '$2' in: $(echo "$out" | head -20)"
	fi
}

# debugfs-made: copies of an inode table block and of a directory block.
I=$T/dfs.img
mkimg "$I" 32M -t ext4 -b 4096
echo hello >"$T/f"
printf 'mkdir d\ncd d\nwrite %s f\n' "$T/f" | dfs "$I"
dino=$(debugfs -R "stat d" "$I" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dblk=$(debugfs -R "bmap d 0" "$I" 2>/dev/null)
itb=$(debugfs -R "imap d" "$I" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
dd if="$I" of="$T/dirblk" bs=4096 skip="$dblk" count=1 2>/dev/null
dd if="$I" of="$T/itblk" bs=4096 skip="$itb" count=1 2>/dev/null
printf 'jo\njw -b %s %s\njw -b %s %s\njc\n' "$dblk" "$T/dirblk" \
	"$itb" "$T/itblk" | dfs "$I"
# Replay as e2fsck would, so the listing reads a clean filesystem.
e2fsck -y -E journal_only "$I" >/dev/null 2>&1
before=$(sha "$I")
run_e2secrm --journal-map "$I"
if [ "$rc" != 0 ]; then
	fail "journal map: debugfs journal" "exit $rc: $err"
else
	pass "journal map: debugfs journal"
	map_has "journal map: directory copy names its directory" \
		"^ +[0-9]+ +[0-9]+ +$dblk +dir +$dino +0 +committed"
	map_has "journal map: inode table copy names its inodes" \
		"^ +[0-9]+ +[0-9]+ +$itb +itable +[0-9]+-[0-9]+ "
	map_has "journal map: header says the journal is empty" \
		"internal journal, .*, empty"
fi
[ "$before" = "$(sha "$I")" ] && pass "journal map: image unchanged" ||
	fail "journal map: image unchanged" "sha256 changed"

# Needs recovery: listed through the in-memory replay, nothing written.
I=$T/rec.img
mkimg "$I" 32M -t ext4 -b 4096
printf 'jo\njw -b 5000 %s\njc\n' "$T/dirblk" | dfs "$I"
before=$(sha "$I")
run_e2secrm --journal-map "$I"
if [ "$rc" = 0 ] && [ "$before" = "$(sha "$I")" ] &&
   echo "$out" | grep -q "read as replayed in memory"; then
	pass "journal map: needs recovery, listed without writing"
	map_has "journal map: live copy listed" \
		"^ +[0-9]+ +[0-9]+ +5000 +free .*committed"
else
	fail "journal map: needs recovery, listed without writing" \
		"rc=$rc out=$out err=$err"
fi

# Kernel-made: a +s file created and deleted in a directory; the stale
# transactions still hold its inode table block and the directory block.
if why=$(can_loop_mount); then
	I=$T/kern.img
	mkimg "$I" 64M -t ext4
	mount -o loop "$I" "$T/mnt" && MNT_DEV=1
	mkdir "$T/mnt/d"
	echo secret >"$T/mnt/d/s.txt"
	chattr +s "$T/mnt/d/s.txt"
	sino=$(stat -c %i "$T/mnt/d/s.txt")
	dino=$(stat -c %i "$T/mnt/d")
	sync
	rm "$T/mnt/d/s.txt"
	sync
	umount "$T/mnt" && MNT_DEV=
	run_e2secrm --journal-map "$I"
	[ "$rc" = 0 ] && pass "journal map: kernel journal" ||
		fail "journal map: kernel journal" "exit $rc: $err"
	found=$(echo "$out" | awk -v ino="$sino" '$4 == "itable" {
		split($5, r, "-"); if (ino >= r[1] && ino <= r[2]) n++ }
		END { print n + 0 }')
	[ "$found" -ge 1 ] &&
		pass "journal map: kernel copies of the +s inode's table block" ||
		fail "journal map: kernel copies of the +s inode's table block" \
			"none for inode $sino"
	map_has "journal map: kernel copies of its directory block" \
		"^ +[0-9]+ +[0-9]+ +[0-9]+ +dir +$dino +0 "
else
	skip "journal map: kernel journal" "$why"
fi

# Kernel fast commits: fsync of new files logs create tags with the names.
if why=$(can_loop_mount); then
	I=$T/fc.img
	# Another process's sync between a file's creation and its fsync
	# commits it whole, and the fsync then writes no fast commit: the
	# image is made again, three times at most.
	try=0
	while [ $try -lt 3 ]; do
		try=$((try + 1))
		mkimg "$I" 64M -t ext4 -O fast_commit
		# commit=600: no timed full commit between the fsyncs.
		mount -o loop,commit=600 "$I" "$T/mnt" && MNT_DEV=1
		mkdir "$T/mnt/d"
		sync
		for i in 1 2 3; do
			echo "data $i" >"$T/mnt/d/fcname$i"
			xfs_io -c fsync "$T/mnt/d/fcname$i"
		done
		umount "$T/mnt" && MNT_DEV=
		run_e2secrm --journal-map "$I"
		n=$(echo "$out" | grep -c " create .*name fcname[0-9]")
		[ "$rc" = 0 ] && [ "$n" -ge 1 ] && break
	done
	if [ "$rc" = 0 ] && [ "$n" -ge 1 ]; then
		pass "journal map: fast-commit create tags with names ($n, try $try)"
	else
		fail "journal map: fast-commit create tags with names" \
			"rc=$rc, $n found: $(echo "$out" | tail -8)"
	fi
	echo "$out" | grep -q "fast-commit area [0-9]*-[0-9]*: " &&
		pass "journal map: fast-commit area located after unmount" ||
		fail "journal map: fast-commit area located after unmount" \
			"no area line"
else
	skip "journal map: fast-commit tags" "$why"
fi
