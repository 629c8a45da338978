#!/bin/sh
# demo.sh --- `make demo`: e2secrm on a small ext4 image made with mke2fs
# and debugfs (no mount needed), showing the secret before and after.
set -e
: "${E2SECRM:?E2SECRM must name the e2secrm binary}"
d=$(mktemp -d "${TMPDIR:-/tmp}/e2secrm-demo.XXXXXX")
trap 'rm -rf "$d"' EXIT
img="$d/demo.img"
secret="The vault combination is 31-41-59 (DEMO-SECRET-7f3a)"

say() { printf '\n== %s\n' "$*"; }

say "Making a 16 MiB ext4 image with two live files and one +s file"
mke2fs -q -F -t ext4 "$img" 16M
printf 'shopping list: eggs, milk\n' >"$d/notes.txt"
head -c 20000 /dev/urandom >"$d/photo.bin"
i=0
: >"$d/diary.txt"
while [ $i -lt 200 ]; do echo "$secret" >>"$d/diary.txt"; i=$((i + 1)); done
debugfs -w -f - "$img" >/dev/null 2>&1 <<EOT
write $d/notes.txt notes.txt
write $d/photo.bin photo.bin
write $d/diary.txt diary.txt
set_inode_field diary.txt flags 0x80001
rm diary.txt
EOT
echo "diary.txt was flagged secure-delete (chattr +s) and deleted."
before_notes=$(debugfs -R "cat notes.txt" "$img" 2>/dev/null | sha256sum)
before_photo=$(debugfs -R "cat photo.bin" "$img" 2>/dev/null | sha256sum)

say "The secret is still in the raw image:"
printf 'grep -a -c DEMO-SECRET demo.img: '
grep -a -c DEMO-SECRET "$img" || true

say "e2secrm -n -v demo.img (dry run)"
"$E2SECRM" -n -v "$img" || true

say "e2secrm -y -v demo.img (nobody to ask here: -y answers yes)"
"$E2SECRM" -y -v "$img" || status=$?
echo "exit status ${status:-0} (1: residues found and wiped)"

say "Afterwards"
printf 'grep -a -c DEMO-SECRET demo.img: '
n=$(grep -a -c DEMO-SECRET "$img" || true)
echo "$n"
after_notes=$(debugfs -R "cat notes.txt" "$img" 2>/dev/null | sha256sum)
after_photo=$(debugfs -R "cat photo.bin" "$img" 2>/dev/null | sha256sum)
if [ "$before_notes" = "$after_notes" ] &&
   [ "$before_photo" = "$after_photo" ]; then
	echo "live files notes.txt and photo.bin: unchanged (sha256)"
else
	echo "live files CHANGED" >&2
	exit 1
fi
e2fsck -fn "$img" >"$d/fsck.log" 2>&1 && echo "e2fsck -fn: clean" || {
	cat "$d/fsck.log"
	exit 1
}
"$E2SECRM" -y "$img" >/dev/null && echo "second run: nothing to wipe"
[ "$n" = 0 ]
