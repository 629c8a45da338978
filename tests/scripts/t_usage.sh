# t_usage.sh --- command line: usage errors exit 16 with usage on stderr,
# -V names the version and the libext2fs it runs with.
. "$(dirname "$0")/../lib.sh"

run_e2secrm
if [ "$rc" = 16 ] && echo "$err" | grep -q '^Usage: '; then
	pass "usage: no device"
else
	fail "usage: no device" "rc=$rc err=$err"
fi

run_e2secrm -Q img
if [ "$rc" = 16 ] && echo "$err" | grep -q 'Usage: '; then
	pass "usage: unknown option"
else
	fail "usage: unknown option" "rc=$rc"
fi

run_e2secrm a.img b.img
[ "$rc" = 16 ] && pass "usage: two devices" || fail "usage: two devices" "rc=$rc"

run_e2secrm -m shred img
if [ "$rc" = 16 ] && echo "$err" | grep -q 'unknown wipe method'; then
	pass "usage: bad method"
else
	fail "usage: bad method" "rc=$rc"
fi

run_e2secrm -C x img
[ "$rc" = 16 ] && pass "usage: bad -C" || fail "usage: bad -C" "rc=$rc"

run_e2secrm --record '' img
if [ "$rc" = 16 ] && echo "$err" | grep -q -- '--record needs a file name'; then
	pass "usage: empty --record"
else
	fail "usage: empty --record" "rc=$rc err=$err"
fi

run_e2secrm --metrics '' img
if [ "$rc" = 16 ] && echo "$err" | grep -q -- '--metrics needs a file name'; then
	pass "usage: empty --metrics"
else
	fail "usage: empty --metrics" "rc=$rc err=$err"
fi

run_e2secrm --help
if [ "$rc" = 0 ] && echo "$out" | grep -q -- '--record FILE'; then
	pass "usage: --help lists --record"
else
	fail "usage: --help lists --record" "rc=$rc"
fi

run_e2secrm -V
if [ "$rc" = 0 ] && echo "$err" | grep -q 'Using EXT2FS Library version'; then
	pass "version"
else
	fail "version" "rc=$rc err=$err"
fi

# -C fd: one "stage current max device" line per update on that fd.
mkimg "$T/p.img" 16M -t ext4
"$E2SECRM" -n -C 3 "$T/p.img" >/dev/null 2>&1 3>"$T/progress"
if grep -Eq "^1 [0-9]+ [0-9]+ $T/p.img\$" "$T/progress"; then
	pass "progress: -C 3 writes scan lines"
else
	fail "progress: -C 3 writes scan lines" "$(head -2 "$T/progress")"
fi

# make install honours DESTDIR and prefix.
top=$(cd "$(dirname "$0")/../.." && pwd)
if make -s -C "$top" install DESTDIR="$T/root" prefix=/opt/e2 \
	>/dev/null 2>&1 && [ -x "$T/root/opt/e2/sbin/e2secrm" ] &&
   [ -f "$T/root/opt/e2/share/man/man8/e2secrm.8" ] &&
   [ -f "$T/root/opt/e2/share/man/man7/e2secrm.7" ]; then
	pass "make install DESTDIR prefix"
else
	fail "make install DESTDIR prefix" "files missing"
fi

# Every option --help lists has its entry in e2secrm.8's OPTIONS (the
# reference; the longer explanations are in e2secrm.7).
man8=$top/man/e2secrm.8
tags=$(sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/{/^\.TP/{n;p;}}' "$man8" |
	sed 's/\\-/-/g')
run_e2secrm --help
undoc=
for o in $(echo "$out" | sed -n 's/^	\(-[-a-zA-Z]*\).*/\1/p'); do
	echo "$tags" | grep -Eq -- "(^|[ \"])$o([ \",]|\$)" ||
		undoc="$undoc $o"
done
if [ -n "$tags" ] && [ -z "$undoc" ]; then
	pass "usage: every option of --help has an entry in e2secrm.8"
else
	fail "usage: every option of --help has an entry in e2secrm.8" \
		"missing:$undoc"
fi

# Options that contradict each other: refused before the device is
# touched, exit 16, both named; the image byte-identical.
U=$T/u.img
mkimg "$U" 4M -t ext4
before=$(sha "$U")
for pair in "-n -y" "-n -p" "-p -y" "--state-dir $T/sd --no-state" \
	    "--verify -n" "--all-free --all-free-if-lost" \
	    "--sanitize --all-free-if-lost" "--journal-map -y" \
	    "--journal-map -p" "--journal-map --sanitize" \
	    "--journal-map -m random" "--journal-map --verify"; do
	# shellcheck disable=SC2086
	run_e2secrm $pair "$U"
	a=$(echo "$pair" | cut -d' ' -f1)
	b=$(echo "$pair" | awk '{ print $NF }')
	[ "$b" = random ] && b=-m
	[ "$b" = "$T/sd" ] && b=--state-dir
	if [ "$rc" = 16 ] && [ "$(sha "$U")" = "$before" ] &&
	   echo "$err" | grep -q -- "$a and .*cannot be given together" &&
	   echo "$err" | grep -q -- " $b"; then
		pass "usage: $pair refused (16), both named, image untouched"
	else
		fail "usage: $pair refused" "rc=$rc err=$err"
	fi
	[ -e "$T/sd" ] && fail "usage: $pair made the state directory" "$T/sd"
done

# -C names a descriptor that is not open: refused as e2fsck does.
run_e2secrm -n -C 99 "$U"
if [ "$rc" = 16 ] && echo "$err" | grep -q 'progress file descriptor 99'; then
	pass "usage: -C of a descriptor not open"
else
	fail "usage: -C of a descriptor not open" "rc=$rc err=$err"
fi

# Nobody to ask, neither -y nor -p: nothing written, exit 8, and what to
# give instead; -n and -y still run.
run_e2secrm "$U" </dev/null
if [ "$rc" = 8 ] && [ "$(sha "$U")" = "$before" ] && [ -z "$out" ] &&
   echo "$err" | grep -q 'need a terminal' && echo "$err" | grep -q -- '-y'
then
	pass "usage: no terminal and no -y: refused (8), nothing written"
else
	fail "usage: no terminal and no -y" "rc=$rc out=$out err=$err"
fi
run_e2secrm -n "$U" </dev/null
[ "$rc" = 0 ] && pass "usage: no terminal, -n runs" ||
	fail "usage: no terminal, -n runs" "rc=$rc err=$err"
run_e2secrm -p "$U" </dev/null
[ "$rc" = 0 ] && pass "usage: no terminal, -p runs" ||
	fail "usage: no terminal, -p runs" "rc=$rc err=$err"

# -p, as e2fsck -p: no question, one line on stdout, and on stderr only
# what needs a person.
P=$T/p.img
mkimg "$P" 8M -t ext4
canary "$T/sec" "PREEN-SECRET-$$" 20000
printf 'write %s sec\nset_inode_field sec flags 0x80001\nrm sec\n' "$T/sec" |
	dfs "$P"
cp "$P" "$T/p2.img"
run_e2secrm -p "$P" </dev/null
if [ "$rc" = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [ -z "$err" ] &&
   echo "$out" | grep -q "^$P: [0-9]* residues wiped, [0-9]* bytes$" &&
   [ "$(count "PREEN-SECRET-$$" "$P")" = 0 ]; then
	pass "usage: -p wipes, says one line"
else
	fail "usage: -p wipes, says one line" "rc=$rc out=$out err=$err"
fi
run_e2secrm -p "$P" </dev/null
[ "$rc" = 0 ] && [ "$out" = "$P: clean" ] && [ -z "$err" ] &&
	pass "usage: -p on a clean filesystem: '$out'" ||
	fail "usage: -p on a clean filesystem" "rc=$rc out=$out err=$err"
# A map lost: the one line, and why on stderr with what answers it.
printf 'sif <12> block[0] 0\nsif <12> block[1] 0\nsif <12> block[2] 0\n' |
	dfs "$T/p2.img"
printf 'sif <12> block[3] 0\nsif <12> block[4] 0\n' | dfs "$T/p2.img"
run_e2secrm -p --no-state "$T/p2.img" </dev/null
if [ $((rc & 4)) = 4 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
   [ "$(echo "$err" | wc -l)" = 1 ] &&
   echo "$err" | grep -q 'residue left: .*lost a block map.*--all-free-if-lost'
then
	pass "usage: -p leaving residue: exit $rc, why on stderr"
else
	fail "usage: -p leaving residue" "rc=$rc out=$out err=$err"
fi

# -v names a live +s file by its path; a deleted one never.
V=$T/v.img
mkimg "$V" 8M -t ext4
printf 'mkdir d\nwrite %s d/live-secret\nset_inode_field d/live-secret flags 0x80001\nwrite %s d/VGONE-%s\nset_inode_field d/VGONE-%s flags 0x80001\nrm d/VGONE-%s\n' \
	"$T/sec" "$T/sec" $$ $$ $$ | dfs "$V"
run_e2secrm -n -v "$V"
if echo "$out" | grep -q '^inode 13 .*live.* path /d/live-secret flags' &&
   ! echo "$out" | grep -q "VGONE"; then
	pass "usage: -v names a live +s file by path, never a deleted one"
else
	fail "usage: -v paths" "$(echo "$out" | grep '^inode')"
fi
