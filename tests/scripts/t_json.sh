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

# -n says what -y does, kind by kind: every count of the table of kinds
# (lib/stages/kinds.c) that a dry run finds is what the wet run wipes, on the
# debugfs-made image above (removed names kept in slack) and on one the
# kernel made (deletions, names in journal copies, a zero-ranged live +s
# file), with and without --all-free --free-inodes.
# agree NAME IMAGE MIN-KINDS [OPTIONS]: MIN-KINDS kinds at least found.
agree() {
	name=$1 img=$2 least=$3
	shift 3
	cp --sparse=always "$img" "$T/an.img"
	cp --sparse=always "$img" "$T/ay.img"
	run_e2secrm -n --no-state "$@" --json "$T/an.json" --json-plan \
		"$T/an.img"
	run_e2secrm -y --no-state "$@" --json "$T/ay.json" --json-plan \
		"$T/ay.img"
	n_found=$(jq -S -c .found "$T/an.json" 2>/dev/null)
	y_found=$(jq -S -c .found "$T/ay.json" 2>/dev/null)
	y_wiped=$(jq -S -c .wiped "$T/ay.json" 2>/dev/null)
	kinds=$(jq '[.found | to_entries[] | select(.key != "bytes" and
		.value > 0)] | length' "$T/an.json" 2>/dev/null)
	if [ -n "$n_found" ] && [ "$n_found" = "$y_found" ] &&
	   [ "$n_found" = "$y_wiped" ] && [ "${kinds:-0}" -ge "$least" ]; then
		pass "json agree $name: -y wipes what -n found, kind by kind ($kinds kinds)"
	else
		fail "json agree $name: -y wipes what -n found" \
			"$kinds kinds; -n found $n_found; -y found $y_found, wiped $y_wiped"
	fi
	# Action by action: what -n plans is what -y plans and writes, in
	# that order, and every kind found has its actions.
	n_plan=$(jq -c .actions "$T/an.json" 2>/dev/null)
	y_plan=$(jq -c .actions "$T/ay.json" 2>/dev/null)
	y_done=$(jq -c .written "$T/ay.json" 2>/dev/null)
	n_written=$(jq '.written | length' "$T/an.json" 2>/dev/null)
	acts=$(jq '.actions | length' "$T/an.json" 2>/dev/null)
	akinds=$(jq '[.actions[].kind] | unique | length' "$T/an.json" \
		2>/dev/null)
	if [ -n "$n_plan" ] && [ "$n_plan" != null ] &&
	   [ "$n_plan" = "$y_plan" ] && [ "$n_plan" = "$y_done" ] &&
	   [ "$n_written" = 0 ] && [ "${akinds:-0}" -ge "$least" ]; then
		pass "json plan $name: -y writes the $acts actions -n plans ($akinds kinds), in order"
	else
		fail "json plan $name: -y writes the actions -n plans" \
			"$acts actions of $akinds kinds; -n written $n_written"
		printf '%s\n' "$n_plan" | jq -c '.[]' >"$T/n.act" 2>/dev/null
		printf '%s\n' "$y_done" | jq -c '.[]' >"$T/y.act" 2>/dev/null
		diff "$T/n.act" "$T/y.act" | head -20
	fi
}

# The debugfs-made image: rebuilt, since the loop above wiped it.
mkimg "$I" 16M -t ext4
printf 'write %s s.bin\n' "$T/secret" | dfs "$I"
printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\n' $((fl | 1)) | dfs "$I"
agree "debugfs image" "$I" 3
agree "debugfs image, --all-free --free-inodes" "$I" 4 --all-free --free-inodes

if why=$(can_loop_mount); then
	K=$T/k.img
	mkimg "$K" 64M -t ext4 -b 4096
	kmount "$K"
	mkdir "$T/mnt/d"
	i=1
	while [ $i -le 30 ]; do
		head -c $((i * 5000)) /dev/urandom >"$T/mnt/d/s$i"
		chattr +s "$T/mnt/d/s$i"
		head -c 3000 /dev/urandom >"$T/mnt/p$i"
		i=$((i + 1))
	done
	sync
	rm "$T/mnt/d/s1" "$T/mnt/d/s2" "$T/mnt/d/s3" "$T/mnt"/d/s1[0-9]
	fallocate -z -o 4096 -l 8192 "$T/mnt/d/s25"
	sync
	kumount
	agree "kernel image" "$K" 4
	agree "kernel image, --all-free --free-inodes" "$K" 5 \
		--all-free --free-inodes
	agree "kernel image, --sanitize" "$K" 5 --sanitize
else
	skip "json agree kernel image" "$why"
fi

# Text as written: a label, and a device path (a symbolic link to the
# image), in UTF-8, in Latin-1 and with control characters, come back
# exactly from --json and from --record's JSON, as jq and Python read
# them.  UTF-8 is in the file as it is, not escaped byte by byte; a byte
# that is not UTF-8 is \udcXY, which Python's surrogateescape turns back
# into the byte (the decoding e2secrm(7), THE JSON REPORT, documents).
# bytes_back WANT-LABEL WANT-PATH FILE...: Python's reading of each file
# gives back both, byte for byte.
bytes_back() {
	python3 - "$@" <<'PY'
import json, os, sys
label, path = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
for name in sys.argv[3:]:
    with open(name, encoding="utf-8") as f:
        d = json.load(f)
    dev = d["device"] if "program" in d else d["device"]["path"]
    got = [s.encode("utf-8", "surrogateescape")
           for s in (d["filesystem"]["label"], dev)]
    if got != [label, path]:
        sys.exit("%s: %r, not %r" % (name, got, [label, path]))
PY
}
if ! command -v python3 >/dev/null; then
	skip "json text as written" "python3 missing"
else
	for kind in utf-8 cjk latin-1 control; do
		case $kind in
		utf-8)	label=$(printf 'donn\303\251es')
			raw=$label ;;
		cjk)	label=$(printf '\346\227\245\346\234\254')
			raw=$label ;;
		latin-1) label=$(printf 'donn\351es')
			raw='donn\udce9es' ;;
		control) label=$(printf 'a\tb\001c')
			raw='a\tb\u0001c' ;;
		esac
		L=$T/label.img
		mkimg "$L" 8M -t ext4
		tune2fs -L "$label" "$L" >/dev/null 2>&1
		link="$T/by-label-$label.img"
		ln -sf "$L" "$link"
		rm -f "$T/l.json" "$T/l.rec" "$T/l.rec.json"
		run_e2secrm -n --no-state --json "$T/l.json" \
			--record "$T/l.rec" "$link"
		why=
		for f in "$T/l.json" "$T/l.rec.json"; do
			jq -e . "$f" >/dev/null 2>&1 ||
				why="$why; $f does not parse (jq)"
			# The bytes in the file, as the JSON writer put them.
			grep -qF "\"$raw\"" "$f" ||
				why="$why; $f has no \"$raw\""
			[ "$kind" = latin-1 ] && continue
			[ "$(jq -r .filesystem.label "$f")" = "$label" ] ||
				why="$why; jq: label $(jq .filesystem.label "$f")"
		done
		[ "$(jq -r .device "$T/l.json")" = "$link" ] &&
		[ "$(jq -r .device.path "$T/l.rec.json")" = "$link" ] ||
			[ "$kind" = latin-1 ] ||
			why="$why; jq: path $(jq .device "$T/l.json")"
		e=$(bytes_back "$label" "$link" "$T/l.json" "$T/l.rec.json" 2>&1) ||
			why="$why; python3: $e"
		if [ "$rc" = 0 ] && [ -z "$why" ]; then
			pass "json text as written ($kind): label and path come back exactly (jq, python3)"
		else
			fail "json text as written ($kind)" "rc=$rc$why"
		fi
	done
fi
