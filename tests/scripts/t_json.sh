# t_json.sh --- `--json FILE`: the report parses (jq), its counts and exit
# status match the human report, `-` gives JSON alone on stdout, errors
# are reported in it, and it is never written through a symbolic link.
. "$(dirname "$0")/../lib.sh"

I=$T/j.img
mkimg "$I" 16M -t ext4
canary "$T/secret" "JSON-SECRET-$$" 50000
printf 'write %s s.bin\n' "$T/secret" | dfs "$I"
fl=$(debugfs -R "stat s.bin" "$I" 2>/dev/null |
	sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\n' $((fl | 1)) | dfs "$I"

# human COUNTER: the number the human report gives on its line.
human() {
	echo "$out" | awk -v k="$1" 'index($0, k) { print $(NF - 3); exit }'
}

for mode in -n -y; do
	run_e2secrm $mode --json "$T/r.json" "$I"
	if ! jq -e . "$T/r.json" >/dev/null 2>&1; then
		fail "json $mode: parses" "$(head -c 300 "$T/r.json")"
		continue
	fi
	pass "json $mode: parses"
	key=found
	[ "$mode" = -y ] && key=wiped
	ok=1
	[ "$(jq ".$key.data_blocks" "$T/r.json")" = "$(human 'freed data')" ] ||
		ok=0
	[ "$(jq ".$key.inode_records" "$T/r.json")" = \
	  "$(echo "$out" | awk '/deleted inode records/ { print $4; exit }')" ] ||
		ok=0
	[ "$(jq ".exit_status" "$T/r.json")" = "$rc" ] || ok=0
	[ "$(jq -r ".filesystem.uuid" "$T/r.json")" = \
	  "$(dumpe2fs -h "$I" 2>/dev/null | awk '/^Filesystem UUID/ {print $3}')" ] ||
		ok=0
	[ "$ok" = 1 ] && pass "json $mode: counts, uuid and exit status match" ||
		fail "json $mode: counts match" "$(cat "$T/r.json") / $out"
done

run_e2secrm -n --json - "$I"
if echo "$out" | jq -e '.exit_status == 0' >/dev/null 2>&1 &&
   echo "$err" | grep -q "secure-delete inode"; then
	pass "json -: JSON alone on stdout, the human report on stderr"
else
	fail "json -: JSON alone on stdout" "out=$out err=$err"
fi

head -c 1M /dev/zero >"$T/zero.img"
run_e2secrm -n --json "$T/e.json" "$T/zero.img"
if [ "$rc" = 8 ] && jq -e '.exit_status == 8 and .error != null and
   .filesystem == null' "$T/e.json" >/dev/null 2>&1; then
	pass "json: an error is in the report, exit 8"
else
	fail "json: an error is in the report" "rc=$rc $(cat "$T/e.json")"
fi

echo precious >"$T/target"
ln -s "$T/target" "$T/link.json"
run_e2secrm -n --json "$T/link.json" "$I"
if [ "$rc" = 8 ] && [ "$(cat "$T/target")" = precious ]; then
	pass "json: not written through a symbolic link (exit 8)"
else
	fail "json: not written through a symbolic link" "rc=$rc"
fi
