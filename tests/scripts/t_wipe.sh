# t_wipe.sh --- the first real wipe, on images made with mke2fs and
# debugfs across ext2/ext3/ext4, 1k and 4k blocks and feature sets.
#
# Each image holds: deleted +s files whose names, contents and EA block
# carry SECRET tokens (debugfs' rm keeps the block map in the free record); a
# live +s file and a live plain file with KEEP tokens; a deleted file
# without the flag with a FREE token.  After e2secrm: no SECRET byte in the
# raw image, KEEP files bit-exact, FREE token untouched (the default mode
# wipes only what belongs to +s files), e2fsck -fn clean, a second run
# finds nothing, and a dry run before changed nothing.
. "$(dirname "$0")/../lib.sh"

# ea_block IMG NAME: the EA block number debugfs reports for a file.
ea_block() {
	debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p'
}

# build IMG SIZE SECRET_BYTES MKE2FS-OPTIONS...
build() {
	img=$1 size=$2 sbytes=$3
	shift 3
	mkimg "$img" "$size" "$@" || return 1
	if [ -n "$frag" ]; then
		# Every other block free: the secret gets a deep extent tree.
		head -c 1024 /dev/urandom >"$T/one"
		i=0
		while [ $i -lt 200 ]; do
			echo "write $T/one frag$i"
			i=$((i + 1))
		done | dfs "$img"
		i=0
		while [ $i -lt 200 ]; do
			echo "rm frag$i"
			i=$((i + 2))
		done | dfs "$img"
	fi
	canary "$T/secret" "SECRET-CONTENT-$$-token" "$sbytes"
	canary "$T/keep" "KEEP-LIVE-$$-token" 30000
	canary "$T/keeps" "KEEP-PLUS-S-$$-token" 9000
	canary "$T/free" "FREE-PLAIN-$$-token" 9000
	canary "$T/eaval" "SECRET-XATTR-$$-token" 600
	dfs "$img" <<EOT
write $T/keep keep.txt
write $T/keeps keeps.txt
write $T/secret SECRET-NAME-1
write $T/free free.txt
mkdir dir
cd dir
write $T/secret SECRET-NAME-2
cd /
EOT
	# The +s flag on top of whatever flags the file has (extents).
	for f in keeps.txt SECRET-NAME-1 dir/SECRET-NAME-2; do
		fl=$(debugfs -R "stat $f" "$img" 2>/dev/null |
			sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
		printf 'set_inode_field %s flags 0x%x\n' "$f" \
			$((fl | 1)) | dfs "$img"
	done
	echo "ea_set -f $T/eaval SECRET-NAME-1 user.secret" | dfs "$img"
	ea=$(ea_block "$img" SECRET-NAME-1)
	if [ -n "$inline_dir" ]; then
		# As the kernel would: a transaction holds the inode table
		# block of the inline directory, name and inode number in it.
		bs=$(dumpe2fs -h "$img" 2>/dev/null |
			awk '/^Block size:/ {print $3}')
		itb=$(debugfs -R "imap dir" "$img" 2>/dev/null |
			sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
		dd if="$img" of="$T/itb" bs="$bs" skip="$itb" count=1 \
			2>/dev/null
		printf 'jo\njw -b %s %s\njc\n' "$itb" "$T/itb" | dfs "$img"
		e2fsck -y -E journal_only "$img" >/dev/null 2>&1
	fi
	dfs "$img" <<EOT
rm SECRET-NAME-1
rm dir/SECRET-NAME-2
rm free.txt
EOT
	# debugfs' rm leaves the EA block allocated; the kernel frees it.
	# freeb does not fix the free counts, e2fsck does (and only that).
	if [ -n "$ea" ] && [ "$ea" != 0 ]; then
		echo "freeb $ea" | dfs "$img"
		e2fsck -fy "$img" >/dev/null 2>&1 || :
	fi
}

# case NAME SIZE SECRET_BYTES MKE2FS-OPTIONS...
wipe_case() {
	name=$1
	shift
	img="$T/w.img"
	rm -f "$img"
	if ! build "$img" "$@"; then
		fail "$name: build" "mke2fs $*"
		return
	fi
	if ! e2fsck -fn "$img" >"$T/fsck0" 2>&1; then
		fail "$name: build" "image not clean before the run"
		return
	fi
	keep_sum=$(sha256sum <"$T/keep")
	keeps_sum=$(sha256sum <"$T/keeps")
	nsecret=$(count "SECRET-" "$img")
	if [ "$nsecret" = 0 ]; then
		fail "$name: build" "no secret in the image to start with"
		return
	fi

	before=$(sha "$img")
	run_e2secrm -n -v "$img"
	if [ "$rc" = 4 ] && [ "$(sha "$img")" = "$before" ]; then
		pass "$name: dry run exits 4, writes nothing"
	else
		fail "$name: dry run" "rc=$rc $err"
	fi
	# Inventory: two deleted +s files, one live; the map kinds expected.
	ndel=$(echo "$out" | grep -c '^inode [0-9]* generation [0-9]*: deleted')
	nlive=$(echo "$out" | grep -c '^inode [0-9]* generation [0-9]*: live')
	kinds_ok=1
	for k in $expect_kinds; do
		echo "$out" | grep -q "^    $k " || kinds_ok=0
	done
	if [ "$ndel" = 2 ] && [ "$nlive" = 1 ] && [ "$kinds_ok" = 1 ]; then
		pass "$name: inventory lists 2 deleted, 1 live, map: $expect_kinds"
	else
		fail "$name: inventory" "deleted=$ndel live=$nlive kinds=$kinds_ok"
	fi

	run_e2secrm -y "$img"
	[ "$rc" = 1 ] && pass "$name: wipe exits 1" ||
		fail "$name: wipe exits 1" "rc=$rc $err $out"

	# An inline directory's only entry is unlinked by zeroing its inode
	# field: the journal copy of the inode table says whose name it was.
	n=$(count "SECRET-" "$img")
	[ "$n" = 0 ] && pass "$name: no secret left ($nsecret before)" ||
		fail "$name: no secret left" "$n lines still hold it"

	k1=$(debugfs -R "cat keep.txt" "$img" 2>/dev/null | sha256sum)
	k2=$(debugfs -R "cat keeps.txt" "$img" 2>/dev/null | sha256sum)
	if [ "$k1" = "$keep_sum" ] && [ "$k2" = "$keeps_sum" ]; then
		pass "$name: live files bit-exact"
	else
		fail "$name: live files bit-exact" "contents differ"
	fi

	[ "$(count "FREE-PLAIN-" "$img")" -gt 0 ] &&
		pass "$name: deleted file without +s untouched" ||
		fail "$name: deleted file without +s untouched" "FREE gone"

	e2fsck -fn "$img" >"$T/fsck" 2>&1 &&
		pass "$name: e2fsck -fn clean" ||
		fail "$name: e2fsck -fn clean" "$(tail -3 "$T/fsck")"

	run_e2secrm -y "$img"
	if [ "$rc" = 0 ] && echo "$out" | grep -q 'nothing to wipe'; then
		pass "$name: second run finds nothing"
	else
		fail "$name: second run finds nothing" "rc=$rc"
	fi
}

expect_kinds="data indirect ea-block"
wipe_case "ext2 1k" 16M 40000 -t ext2 -b 1024
expect_kinds="data indirect ea-block"
wipe_case "ext2 4k" 16M 90000 -t ext2 -b 4096
expect_kinds="data indirect ea-block"
wipe_case "ext3 1k" 16M 300000 -t ext3 -b 1024
expect_kinds="data indirect ea-block"
wipe_case "ext3 4k" 16M 90000 -t ext3 -b 4096
expect_kinds="data ea-block"
wipe_case "ext4 1k" 16M 40000 -t ext4 -b 1024
wipe_case "ext4 4k" 16M 90000 -t ext4 -b 4096
expect_kinds="data extent-tree ea-block" frag=1
wipe_case "ext4 4k extent tree depth 1" 16M 200000 -t ext4 -b 4096
frag= expect_kinds="data ea-block"
wipe_case "ext4 64bit metadata_csum" 32M 90000 -t ext4 \
	-O 64bit,metadata_csum
wipe_case "ext4 uninit_bg" 32M 90000 -t ext4 -O ^metadata_csum,uninit_bg
wipe_case "ext4 no flex_bg" 32M 90000 -t ext4 -O ^flex_bg
inline_dir=1
wipe_case "ext4 inline_data" 16M 90000 -t ext4 -O inline_data
inline_dir=
