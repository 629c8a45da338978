# t_unsafe.sh --- images whose bitmaps lie.  One wrong bit must never
# make e2secrm overwrite live data or metadata: where e2fsck would only
# fix a bit, e2secrm must leave the bytes alone (found in review).
. "$(dirname "$0")/../lib.sh"

# A deleted +s record whose map points into the inode table, which
# debugfs' kill_file then marks free: refused, image unchanged.
mkimg "$T/it.img" 16M -t ext2 -b 1024
itable=$(dumpe2fs "$T/it.img" 2>/dev/null |
	sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | head -1)
canary "$T/f" "IT-$$" 2000
dfs "$T/it.img" <<EOT
write $T/f victim
set_inode_field victim flags 0x1
set_inode_field victim block[0] $itable
kill_file victim
unlink victim
EOT
before=$(sha "$T/it.img")
run_e2secrm -y "$T/it.img"
if [ "$rc" = 8 ] && [ "$(sha "$T/it.img")" = "$before" ] &&
   echo "$err" | grep -q 'metadata block'; then
	pass "unsafe: map into the inode table, freed in the bitmap: refused"
else
	fail "unsafe: map into the inode table" "rc=$rc $err"
fi

# A live +s file whose block the bitmap calls free: its bytes stay.
mkimg "$T/live.img" 16M -t ext4
canary "$T/k" "LIVEKEEP-$$" 3000
dfs "$T/live.img" <<EOT
write $T/k keep
set_inode_field keep flags 0x80001
EOT
blk=$(debugfs -R "bmap keep 0" "$T/live.img" 2>/dev/null)
echo "freeb $blk" | dfs "$T/live.img"
run_e2secrm -y -f "$T/live.img"
got=$(debugfs -R "cat keep" "$T/live.img" 2>/dev/null | sha256sum)
if [ "$got" = "$(sha256sum <"$T/k")" ]; then
	pass "unsafe: live +s file with a free bit keeps its bytes (rc=$rc)"
else
	fail "unsafe: live +s file with a free bit" "contents changed"
fi

# A linked +s inode whose inode bit is clear: the bitmap and the names
# disagree, so nothing is proven free; refused whole, even with -f.
mkimg "$T/li.img" 16M -t ext4
dfs "$T/li.img" <<EOT
write $T/k keep
set_inode_field keep flags 0x80001
freei keep
EOT
before=$(sha "$T/li.img")
run_e2secrm -y -f "$T/li.img"
if [ "$(sha "$T/li.img")" = "$before" ] && [ $((rc & 8)) = 8 ] &&
   echo "$err" | grep -q 'named by directory 2 is marked free'; then
	pass "unsafe: linked inode with a clear bit is refused, nothing written (rc=$rc)"
else
	fail "unsafe: linked inode with a clear bit" "rc=$rc $out $err"
fi
