# t_audit.sh --- --audit: the scope read, what is not wiped counted, and
# nothing written, ever.
#
# On a filesystem with a deleted +s file: --audit exits 4 and names what
# holds residue; after -y it exits 0; after -y --sanitize, --audit
# --sanitize exits 0, and 4 again once one free block holds a byte.  Every
# audit leaves the image byte-identical and writes no state file.
. "$(dirname "$0")/../lib.sh"

A=$T/a.img
mkimg "$A" 16M -t ext4 -b 1024
canary "$T/sec" "AUDIT-SECRET-$$" 40000
printf 'write %s sec\nset_inode_field sec flags 0x80001\nrm sec\n' "$T/sec" |
	dfs "$A"

# audit NAME WANT-RC ARGS...: an audit, the image unchanged, no state.
audit() {
	an=$1 want=$2
	shift 2
	b=$(sha "$A")
	rm -rf "$E2SECRM_STATE_DIR.audit"
	E2SECRM_STATE_DIR=$E2SECRM_STATE_DIR.audit run_e2secrm --audit "$@" \
		"$A" </dev/null
	if [ "$rc" = "$want" ] && [ "$(sha "$A")" = "$b" ] &&
	   [ ! -e "$E2SECRM_STATE_DIR.audit" ]; then
		pass "audit: $an: exit $rc, image and state untouched"
	else
		fail "audit: $an" "rc=$rc want $want; $(echo "$out" | tail -3) $err"
	fi
}

audit "a deleted +s file" 4 --json "$T/a.json" --record "$T/a.rec"
if [ "$(jq '.audit.kinds.inode_records.first[0]' "$T/a.json")" = 12 ] &&
   [ "$(jq '.audit.not_wiped > 0' "$T/a.json")" = true ] &&
   grep -q 'Verification method: *Full: sanitization verification by an' \
	"$T/a.rec" &&
   jq -r '.verification_method' "$T/a.rec.json" |
	grep -q 'independent read (--audit, nothing written).* not wiped' &&
   [ "$(jq -r .outcome "$T/a.rec.json")" = audit-not-wiped ] &&
   head -1 "$T/a.rec" | grep -q '^AUDIT: nothing was written'; then
	pass "audit: the JSON report and the record say what was read"
else
	fail "audit: the JSON report and the record" \
		"$(jq -c .audit "$T/a.json") $(grep -A2 Verification "$T/a.rec")"
fi
echo "$out" | grep -q 'freed data .* not wiped (blocks [0-9]' &&
   echo "$out" | grep -q 'deleted inode records .*1 not wiped (inodes 12)' &&
   echo "$out" | tail -1 | grep -q 'places not wiped$' &&
	pass "audit: names the kinds and first blocks not wiped" ||
	fail "audit: names the kinds and first blocks not wiped" "$out"
echo "$out" | grep -q "AUDIT-SECRET\|sec$" &&
	fail "audit: never prints a name" "$out" ||
	pass "audit: never prints a name"

run_e2secrm -y "$A"
[ "$rc" = 1 ] || fail "audit: -y wipes" "rc=$rc $err"
audit "after -y" 0
echo "$out" | tail -1 | grep -q 'holds only zeros' &&
	pass "audit: after -y, says all wiped" ||
	fail "audit: after -y, says all wiped" "$out"

run_e2secrm -y --sanitize "$A"
[ "$rc" = 1 ] || [ "$rc" = 0 ] || fail "audit: -y --sanitize" "rc=$rc $err"
audit "--sanitize after -y --sanitize" 0 --sanitize
echo "$out" | grep -q 'all free blocks .* read, 0 not wiped' &&
	pass "audit: --sanitize reads every free block" ||
	fail "audit: --sanitize reads every free block" "$out"

# One byte in one free block.
fb=$(debugfs -R "ffb 1 3000" "$A" 2>/dev/null | awk '{ print $NF }')
printf 'X' | dd of="$A" bs=1 seek=$((fb * 1024 + 100)) conv=notrunc \
	2>/dev/null
audit "one byte in free block $fb" 4 --sanitize
echo "$out" | grep -q "all free blocks .* 1 not wiped (blocks $fb)" &&
	pass "audit: names the free block holding a byte" ||
	fail "audit: names the free block holding a byte" "$out"
# The targeted scope does not read free space: nothing of a +s file there.
audit "targeted scope, the byte is no +s file's" 0

# -m random: random bytes cannot be judged; it says so.
audit "-m random" 4 --sanitize -m random
echo "$out" | grep -q 'only --verify, during the run, checks them' &&
	pass "audit: -m random says what it cannot judge" ||
	fail "audit: -m random says what it cannot judge" "$out"

run_e2secrm --audit -y "$A"
[ "$rc" = 16 ] && pass "audit: --audit -y refused (16)" ||
	fail "audit: --audit -y refused" "rc=$rc"
