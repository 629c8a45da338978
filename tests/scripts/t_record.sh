# t_record.sh --- `--record FILE`: the sanitisation record (FILE, text, and
# FILE.json) of runs on a loop device holding a kernel-made ext4 with a
# deleted +s file, and on an image file.  The JSON record parses and its
# counts, uuid, coverage and exit status are the --json report's of the
# same run; the device size and backing file are the loop device's; the
# text says the same; a dry run says so on its first line and leaves the
# image's sha256 unchanged; a symbolic link as the record is refused
# (exit 8) before the device is touched; a refused run still leaves a
# record saying so; the sha256 of an image file is that of the image
# after the run; a finished overwrite is Clear of its stated scope and
# no more, never Purge; the record names SP 800-88 Rev. 2, not Rev. 1;
# --record-field values (UTF-8 too) are in both files, an unknown key is
# a usage error (exit 16) that writes nothing; the command line is in
# both files.
. "$(dirname "$0")/../lib.sh"

NAMES="record: dry run|record: symlink refused|record: symlink refused (FILE.json)|record: -y matches --json|record: device facts|record: text form|record: image sha256|record: SP 800-88 category|record: not the device|record: refused run|record: a partition's disk|record: no temporary file left|record: SP 800-88 Rev. 2|record: --record-field|record: --record-field refused|record: command line"

why=$(can_loop_mount)
if [ $? != 0 ] || ! command -v losetup >/dev/null || ! command -v jq >/dev/null; then
	[ -n "$why" ] || why="losetup or jq missing"
	echo "$NAMES" | tr '|' '\n' | while read -r n; do
		skip "$n" "$why"
	done
	exit 0
fi

LOOP=
PLOOP=
record_cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	if [ -n "$PLOOP" ]; then
		partx -d "$PLOOP" 2>/dev/null
		losetup -d "$PLOOP" 2>/dev/null
	fi
	cleanup
}
trap record_cleanup EXIT

# tv LABEL FILE: the value on the text record's "LABEL: value" line.
tv() {
	sed -n "s/^ *$1: *//p" "$2" | head -n 1
}

# The image: a kernel-made ext4 with a deleted +s file and a live one.
I=$T/rec.img
mkimg "$I" 32M -t ext4 -L rec-test
kmount "$I" || { fail "record: dry run" "mount failed"; exit 0; }
canary "$T/mnt/secret.bin" "RSECRET-$$" 50000
canary "$T/mnt/keep.bin" "RKEEP-$$" 20000
chattr +s "$T/mnt/secret.bin"
sync
rm "$T/mnt/secret.bin"
kumount
cp "$I" "$T/file.img"		# the same state, for the image-file case
uuid=$(dumpe2fs -h "$I" 2>/dev/null | awk '/^Filesystem UUID/ {print $3}')

LOOP=$(losetup -f --show "$I") || { fail "record: dry run" "losetup"; exit 0; }

# --- dry run --------------------------------------------------------------
before=$(sha "$I")
run_e2secrm -n --record "$T/dry" "$LOOP"
sync
after=$(sha "$I")
first=$(head -n 1 "$T/dry" 2>/dev/null)
if [ "$rc" = 4 ] && [ "$first" = "DRY RUN: nothing was written" ] &&
   [ "$before" = "$after" ] &&
   jq -e '(.summary | startswith("DRY RUN: nothing was written")) and
	  .dry_run == true and .writes_began == false and
	  .nist_sp800_88.category == "none" and
	  .certificate.sanitization_description ==
	      "none (nothing was written)" and .exit_status == 4 and
	  .found.data_blocks > 0 and .wiped.data_blocks == 0' \
	  "$T/dry.json" >/dev/null 2>&1; then
	pass "record: dry run says so on its first line, image sha256 unchanged"
else
	fail "record: dry run" "rc=$rc first='$first' $before/$after $(cat "$T/dry.json" 2>&1 | head -c 400)"
fi

# --- a symbolic link as the record: refused before the device is touched --
echo precious >"$T/target"
ln -s "$T/target" "$T/link.rec"
before=$(sha "$I")
run_e2secrm -y --record "$T/link.rec" "$LOOP"
sync
after=$(sha "$I")
if [ "$rc" = 8 ] && [ "$(cat "$T/target")" = precious ] &&
   [ "$before" = "$after" ] && [ -L "$T/link.rec" ] &&
   echo "$err" | grep -q "record $T/link.rec is a symbolic link" &&
   ! echo "$out" | grep -q 'secure-delete inode'; then
	pass "record: a symbolic link is refused (exit 8), image unchanged"
else
	fail "record: symlink refused" "rc=$rc $before/$after err=$err out=$out"
fi
# The same for FILE.json.
ln -s "$T/target" "$T/jlink.json"
run_e2secrm -y --record "$T/jlink" "$LOOP"
sync
if [ "$rc" = 8 ] && [ "$(cat "$T/target")" = precious ] &&
   [ "$(sha "$I")" = "$before" ] && [ ! -e "$T/jlink" ]; then
	pass "record: a symbolic link as FILE.json is refused too"
else
	fail "record: symlink refused" "FILE.json: rc=$rc err=$err"
fi

# --- the wipe: the record against the JSON report of the same run ---------
run_e2secrm -y --record "$T/wipe" --json "$T/report.json" "$LOOP"
sync
secret_left=$(count "RSECRET-$$" "$I")
R=$T/wipe.json
J=$T/report.json
if [ "$rc" = 1 ] && [ "$secret_left" = 0 ] && jq -e . "$R" >/dev/null 2>&1 &&
   [ "$(jq -c '[.found, .wiped, .secure_delete_inodes, .coverage, .verify,
		.exit_status, .filesystem.uuid, .error]' "$R")" = \
     "$(jq -c '[.found, .wiped, .secure_delete_inodes, .coverage, .verify,
		.exit_status, .filesystem.uuid, .error]' "$J")" ] &&
   [ "$(jq -r .filesystem.uuid "$R")" = "$uuid" ] &&
   [ "$(jq -r .filesystem.label "$R")" = rec-test ] &&
   [ "$(jq .wiped.data_blocks "$R")" -gt 0 ] &&
   jq -e '.outcome == "completed" and .writes_began == true and
	  (.summary | startswith("COMPLETED"))' "$R" >/dev/null; then
	pass "record: -y record parses; counts, uuid, coverage, exit status = --json's"
else
	fail "record: -y matches --json" "rc=$rc left=$secret_left $(jq -c '[.found,.wiped,.exit_status]' "$R" 2>&1) vs $(jq -c '[.found,.wiped,.exit_status]' "$J" 2>&1)"
fi

size=$(blockdev --getsize64 "$LOOP")
img_size=$(stat -c %s "$I")
backing=$(readlink -f "$I")
if [ "$(jq -r .device.size_bytes "$R")" = "$size" ] &&
   [ "$size" = "$img_size" ] &&
   [ "$(jq -r .device.backing_file "$R")" = "$backing" ] &&
   [ "$(jq -r .device.kernel_name "$R")" = "$(basename "$LOOP")" ] &&
   [ "$(jq -r .device.type "$R")" = "block device" ] &&
   [ "$(jq -r .device.serial "$R")" = null ] &&
   [ "$(jq -r .host "$R")" = "$(uname -n)" ] &&
   [ "$(jq -r .tool.libext2fs_version "$R")" = \
     "$("$E2SECRM" -V 2>&1 | sed -n 's/.*Library version \([^,]*\),.*/\1/p')" ]
then
	pass "record: device size ($size), backing file, host and versions are the system's"
else
	fail "record: device facts" "size=$size/$img_size backing=$backing $(jq -c .device "$R")"
fi

W=$T/wipe
row() {	# row KIND FILE: "found wiped" of the text record's row
	awk -v k="$1" 'index($0, "  " k " ") == 1 {
		print $(NF - 1), $NF; exit }' "$2"
}
if [ "$(tv 'Exit status' "$W")" = "$(jq .exit_status "$R")" ] &&
   [ "$(tv UUID "$W")" = "$uuid" ] &&
   [ "$(tv Label "$W")" = rec-test ] &&
   [ "$(tv Size "$W")" = "$size bytes" ] &&
   [ "$(tv 'Backing file' "$W")" = "$backing" ] &&
   [ "$(tv Host "$W")" = "$(uname -n)" ] &&
   [ "$(tv 'Serial number' "$W")" = unknown ] &&
   [ "$(row 'freed data blocks' "$W")" = \
     "$(jq -r '"\(.found.data_blocks) \(.wiped.data_blocks)"' "$R")" ] &&
   [ "$(row 'deleted inode records' "$W")" = \
     "$(jq -r '"\(.found.inode_records) \(.wiped.inode_records)"' "$R")" ] &&
   [ "$(row 'stale journal copies' "$W")" = \
     "$(jq -r '"\(.found.journal_blocks) \(.wiped.journal_blocks)"' "$R")" ] &&
   [ "$(head -n 1 "$W")" = "$(jq -r .summary "$R")" ] &&
   grep -q '^    Post-sanitization destination: *not recorded$' "$W" &&
   grep -q '^    Title: *not recorded$' "$W" &&
   [ "$(tv 'Start (UTC)' "$W")" = "$(jq -r .start "$R")" ]; then
	pass "record: the text form has the JSON form's facts"
else
	fail "record: text form" "$(cat "$W")"
fi

# --- an image file: its sha256, after the run ------------------------------
F=$T/file.img
before=$(sha "$F")
run_e2secrm -y --sanitize --verify --no-state --record "$T/file" "$F"
after=$(sha "$F")
rsha=$(jq -r .device.image_sha256 "$T/file.json" 2>/dev/null)
if [ "$rc" = 1 ] && [ "$rsha" = "$after" ] && [ "$before" != "$after" ] &&
   [ "$(tv 'Image sha256' "$T/file")" = "$after (computed after the run)" ] &&
   [ "$(jq -r .device.size_bytes "$T/file.json")" = "$(stat -c %s "$F")" ] &&
   [ "$(jq -r .device.resolved_path "$T/file.json")" = "$(readlink -f "$F")" ]
then
	pass "record: an image file's sha256 is the image's after the run"
else
	fail "record: image sha256" "rc=$rc record=$rsha before=$before after=$after"
fi

# A finished overwrite is Clear, of the scope the options chose and no
# more: --sanitize of the file system's unused space, a targeted run of
# the residues it found.  The certificate's description is the
# category's, and every record says it is never Purge, nor the device.
if jq -e '.nist_sp800_88.category == "Clear" and
	  .nist_sp800_88.description ==
	      "Clear (logical, file-system level; see scope)" and
	  .certificate.sanitization_description ==
	      .nist_sp800_88.description and
	  (.nist_sp800_88.scope | startswith("the file system'"'"'s unused space")) and
	  (.certificate.verification_method | startswith("Full: sanitization verification")) and
	  .verify.blocks_read_back > 0 and .verify.mismatches == 0 and
	  (.nist_sp800_88.limits | test("never Purge") and
	   test("never sanitization of the whole device"))' \
	  "$T/file.json" >/dev/null 2>&1 &&
   jq -e '.nist_sp800_88.category == "Clear" and
	  (.nist_sp800_88.scope | startswith("the residues of secure-deletion")) and
	  .certificate.sanitization_description ==
	      .nist_sp800_88.description and
	  .certificate.method_used == "Overwrite: one pass of zeros"' \
	  "$R" >/dev/null 2>&1 &&
   grep -q '^    Sanitization description: *Clear (logical, file-system level; see scope)$' "$W" &&
   grep -q '^    Method used: *Overwrite: one pass of zeros$' "$W"; then
	pass "record: SP 800-88: an overwrite is Clear of its scope only (--sanitize: unused space; targeted: residues), never Purge"
else
	fail "record: SP 800-88 category" "$(jq -c .nist_sp800_88 "$T/file.json" "$R" 2>&1)"
fi

# Rev. 1 was withdrawn in September 2025: the record names Rev. 2 and
# IEEE 2883, in both files, and Rev. 1 in neither.
if grep -q 'SP 800-88 Rev. 2' "$W" && grep -q 'IEEE 2883' "$W" &&
   ! grep -q 'Rev\. 1' "$W" "$R" &&
   jq -e '.nist_sp800_88.revision == "Rev. 2" and
	  (.nist_sp800_88.guideline | test("SP 800-88 Rev. 2")) and
	  (.nist_sp800_88.techniques | test("IEEE 2883"))' "$R" >/dev/null 2>&1
then
	pass "record: names NIST SP 800-88 Rev. 2 and IEEE 2883, not Rev. 1"
else
	fail "record: SP 800-88 Rev. 2" "$(grep -n 'Rev\.\|IEEE' "$W" "$R")"
fi

# The record may be neither the device (an image would be replaced by its
# record) nor the --json report.
before=$(sha "$F")
run_e2secrm -y --record "$F" "$F"
rc1=$rc err1=$err
run_e2secrm -y --record "$T/same" --json "$T/same.json" "$F"
if [ "$rc1" = 8 ] && [ "$rc" = 8 ] && [ "$(sha "$F")" = "$before" ] &&
   echo "$err1" | grep -q "must be neither the device" &&
   [ ! -e "$T/same" ] && [ ! -e "$T/same.json" ]; then
	pass "record: neither the device nor the --json report (exit 8)"
else
	fail "record: not the device" "rc=$rc1/$rc err=$err1 $err"
fi

# --- a refused run still leaves a record saying nothing was written --------
head -c 1M /dev/zero >"$T/zero.img"
before=$(sha "$T/zero.img")
run_e2secrm -y --record "$T/refused" "$T/zero.img"
if [ "$rc" = 8 ] && [ "$(sha "$T/zero.img")" = "$before" ] &&
   head -n 1 "$T/refused" | grep -q '^REFUSED: nothing was written (' &&
   jq -e '.outcome == "refused" and .writes_began == false and
	  .exit_status == 8 and .error != null and .filesystem == null and
	  .nist_sp800_88.category == "none"' "$T/refused.json" >/dev/null 2>&1
then
	pass "record: a refused run's record says nothing was written"
else
	fail "record: refused run" "rc=$rc $(head -n 1 "$T/refused" 2>&1)"
fi

# A partition: its identity (and backing file) is its disk's, its size
# its own.  The image gets an MBR with one partition by hand; partx makes
# the kernel see it, and mknod the node (no udev needed).
P=$T/part.img
truncate -s 20M "$P"
printf '\203\0\0\0\0\10\0\0\0\230\0\0' |
	dd of="$P" bs=1 seek=450 conv=notrunc 2>/dev/null	# type 0x83, LBA 2048, 38912 sectors
printf '\125\252' | dd of="$P" bs=1 seek=510 conv=notrunc 2>/dev/null
if ! command -v partx >/dev/null; then
	skip "record: a partition's disk" "partx missing"
elif ! PLOOP=$(losetup -f --show "$P") || ! partx -a "$PLOOP" 2>/dev/null ||
     ! pdev=$(cat "/sys/class/block/$(basename "$PLOOP")p1/dev" 2>/dev/null); then
	fail "record: a partition's disk" "losetup/partx did not give a partition"
else
	mknod "$T/part1" b "${pdev%:*}" "${pdev#*:}"
	mkimg "$T/part1" 19456k -t ext4
	run_e2secrm -n --record "$T/prec" "$T/part1"
	psize=$(blockdev --getsize64 "$T/part1")
	if [ "$rc" = 0 ] && [ "$psize" = $((38912 * 512)) ] &&
	   [ "$(jq -r .device.kernel_name "$T/prec.json")" = "$(basename "$PLOOP")p1" ] &&
	   [ "$(jq -r .device.disk "$T/prec.json")" = "$(basename "$PLOOP")" ] &&
	   [ "$(jq -r .device.backing_file "$T/prec.json")" = "$(readlink -f "$P")" ] &&
	   [ "$(jq -r .device.size_bytes "$T/prec.json")" = "$psize" ]; then
		pass "record: a partition's backing file is its disk's, its size its own"
	else
		fail "record: a partition's disk" "rc=$rc size=$psize $(jq -c .device "$T/prec.json" 2>&1)"
	fi
	rm -f "$T/part1"
fi

# --record-field: what a person fills, in both files, UTF-8 as written;
# the last one given wins; a field not given is "not recorded", but the
# name, which is the operator's.
G=$T/fields.img
mkimg "$G" 8M -t ext4
name=$(printf 'Ren\303\251e \303\226berg')		# Renée Öberg
org=$(printf 'Soci\303\251t\303\251 \346\227\245\346\234\254')	# Société 日本
run_e2secrm -n --no-state --record "$T/fld" \
	--record-field "name=$name" --record-field title=Archivist \
	--record-field "organization=$org" --record-field "location=Lyon" \
	--record-field contact=x --record-field "contact=+33 1 23 45 67 89" \
	--record-field "media-source=asset 4711" \
	--record-field destination=recycling \
	--record-field confidentiality-before=restricted \
	--record-field confidentiality-after=public "$G"
FJ=$T/fld.json
if [ "$rc" = 0 ] && jq -e . "$FJ" >/dev/null 2>&1 &&
   [ "$(jq -r .certificate.name "$FJ")" = "$name" ] &&
   [ "$(jq -r .certificate.organization "$FJ")" = "$org" ] &&
   [ "$(tv Name "$T/fld")" = "$name" ] &&
   [ "$(tv Organization "$T/fld")" = "$org" ] &&
   grep -qF "$org" "$FJ" &&
   [ "$(jq -r '.certificate | [.title, .location, .contact, .media_source,
	.post_sanitization_destination, .confidentiality_before,
	.confidentiality_after] | join("|")' "$FJ")" = \
     "Archivist|Lyon|+33 1 23 45 67 89|asset 4711|recycling|restricted|public" ] &&
   [ "$(tv Title "$T/fld")|$(tv Location "$T/fld")|$(tv 'Phone or other contact' "$T/fld")|$(tv 'Media source' "$T/fld")|$(tv 'Post-sanitization destination' "$T/fld")|$(tv 'Pre-sanitization confidentiality' "$T/fld")|$(tv 'Post-sanitization confidentiality' "$T/fld")" = \
     "Archivist|Lyon|+33 1 23 45 67 89|asset 4711|recycling|restricted|public" ] &&
   [ "$(jq -r .certificate.name "$R")" = "$(jq -r .operator.name "$R")" ] &&
   [ "$(jq -r .certificate.location "$R")" = "not recorded" ] &&
   [ "$(tv Location "$W")" = "not recorded" ]; then
	pass "record: --record-field values (UTF-8 too) are in both files; not given, not recorded"
else
	fail "record: --record-field" "rc=$rc err=$err $(jq -c .certificate "$FJ" 2>&1)"
fi

# An unknown key, or no =, is a usage error: exit 16 naming it, nothing
# written, not even the record.
before=$(sha "$F")
run_e2secrm -y --record "$T/bad" --record-field "colour=blue" "$F"
rc1=$rc err1=$err
run_e2secrm -y --record "$T/bad" --record-field "name" "$F"
if [ "$rc1" = 16 ] && [ "$rc" = 16 ] && [ "$(sha "$F")" = "$before" ] &&
   echo "$err1" | grep -q 'unknown key "colour"' &&
   echo "$err" | grep -q -- '--record-field name: KEY=VALUE expected' &&
   [ ! -e "$T/bad" ] && [ ! -e "$T/bad.json" ]; then
	pass "record: an unknown --record-field key or no = exits 16, image byte-identical, no record"
else
	fail "record: --record-field refused" "rc=$rc1/$rc err=$err1 / $err"
fi

# The command line: an array of strings in JSON, quoted for a shell in
# the text, so that the shell reads back the same words.
run_e2secrm -n --no-state --record "$T/cmd" --record-field \
	"title=it's \$HOME" --record-field "organization=$org" "$G"
words=$(jq -r '.command_line[]' "$T/cmd.json" 2>/dev/null)
line=$(tv 'Command line' "$T/cmd")
back=$(eval "set -- $line"; for w in "$@"; do printf '%s\n' "$w"; done)
if [ "$rc" = 0 ] &&
   [ "$(jq -c '.command_line[1:]' "$T/cmd.json")" = \
     "$(jq -nc --arg o "$org" '["-n", "--no-state", "--record", $ARGS.positional[0],
	"--record-field", "title=it'"'"'s $HOME", "--record-field",
	"organization=\($o)", $ARGS.positional[1]]' \
	--args "$T/cmd" "$G")" ] &&
   [ "$(jq -r '.command_line[0]' "$T/cmd.json")" = "$E2SECRM" ] &&
   [ -n "$line" ] && [ "$back" = "$words" ]; then
	pass "record: the command line is in both files (JSON array; text a shell reads back)"
else
	fail "record: command line" "rc=$rc line=$line json=$(jq -c .command_line "$T/cmd.json" 2>&1)"
fi

# Nothing but the records is left in their directory: the temporary
# files were renamed or removed, also on the refusals above.
left=$(ls -A "$T" | grep '^\.' || true)
if [ -z "$left" ]; then
	pass "record: no temporary file left beside the records"
else
	fail "record: no temporary file left" "$left"
fi
