/*
 * journal_dev.c --- where the journal lives and how its blocks are read.
 *
 * Owns locating the journal (the internal journal inode, mapped through
 * libext2fs whatever its block map, or an external journal device
 * matched by UUID as e2fsck -j does), checking its superblock against the
 * filesystem, reading its blocks in large physically contiguous runs, and
 * rewriting its superblock after recovery.  Nothing here interprets
 * transactions: that is journal_recover.c's and journal_walk.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal_io.h"

/* The largest run one read asks for. */
#define JOURNAL_WINDOW_BYTES	(1024 * 1024)

#define JSB_OFF(f)	offsetof(struct e2sr_jbd2_sb, f)

struct map_priv {
	blk64_t		*pmap;
	blk64_t		count;
	blk64_t		fs_blocks;
	blk64_t		first_data;
	errcode_t	err;
};

static int map_block(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blocknr,
		     e2_blkcnt_t blockcnt,
		     blk64_t ref_blk EXT2FS_ATTR((unused)),
		     int ref_offset EXT2FS_ATTR((unused)), void *priv_data)
{
	struct map_priv *m = priv_data;

	if (blockcnt < 0)
		return 0;
	if ((blk64_t)blockcnt >= m->count)
		return 0;	/* past i_size: not journal */
	if (*blocknr < m->first_data || *blocknr >= m->fs_blocks) {
		m->err = E2SR_ERR_JOURNAL_BAD_BLOCK;
		return BLOCK_ABORT;
	}
	m->pmap[blockcnt] = *blocknr;
	return 0;
}

/* The blocks of one leaf extent, as map_block() takes them one by one. */
static int map_extent(struct map_priv *m, const struct ext2fs_extent *e)
{
	__u64 i;

	for (i = 0; i < e->e_len; i++) {
		if (e->e_lblk + i >= m->count)
			return 0;
		if (e->e_pblk + i < m->first_data ||
		    e->e_pblk + i >= m->fs_blocks) {
			m->err = E2SR_ERR_JOURNAL_BAD_BLOCK;
			return -1;
		}
		m->pmap[e->e_lblk + i] = e->e_pblk + i;
	}
	return 0;
}

/*
 * An extent-mapped journal, extent by extent: block by block, through
 * ext2fs_block_iterate3()'s callback, a 1 GiB journal took 8 ms, in
 * every open (twice in a run that writes).  Any error of the tree: 1,
 * and the caller maps it block by block, which says what it says.
 */
static int map_by_extents(ext2_filsys fs, ext2_ino_t ino,
			  struct ext2_inode *inode, struct map_priv *m)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	errcode_t err;
	int ret = 1;

	if (!(inode->i_flags & EXT4_EXTENTS_FL) ||
	    ext2fs_extent_open2(fs, ino, inode, &h))
		return 1;
	err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
	while (!err) {
		if ((e.e_flags & EXT2_EXTENT_FLAGS_LEAF) &&
		    !(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) &&
		    map_extent(m, &e))
			break;
		err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT, &e);
	}
	if (err == EXT2_ET_EXTENT_NO_NEXT || m->err)
		ret = 0;
	ext2fs_extent_free(h);
	return ret;
}

/* Map the journal inode's blocks; *count is the journal's length. */
static errcode_t map_internal(ext2_filsys fs, ext2_ino_t ino, blk64_t **pmap,
			      __u32 *count)
{
	struct ext2_inode inode;
	struct map_priv m;
	__u64 n;
	errcode_t err;

	if (ino < 1 || ino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	n = EXT2_I_SIZE(&inode) / fs->blocksize;
	if (n < E2SR_JBD2_MIN_BLOCKS || n > 0xffffffffULL ||
	    n > ext2fs_blocks_count(fs->super))
		return E2SR_ERR_JOURNAL_BAD_SB;

	memset(&m, 0, sizeof(m));
	m.count = n;
	m.fs_blocks = ext2fs_blocks_count(fs->super);
	m.first_data = fs->super->s_first_data_block;
	err = ext2fs_get_arrayzero(n, sizeof(*m.pmap), &m.pmap);
	if (err)
		return err;
	if (map_by_extents(fs, ino, &inode, &m)) {
		memset(m.pmap, 0, n * sizeof(*m.pmap));
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY |
					    BLOCK_FLAG_DATA_ONLY, NULL,
					    map_block, &m);
	}
	if (!err)
		err = m.err;
	if (err) {
		ext2fs_free_mem(&m.pmap);
		return err;
	}
	*pmap = m.pmap;
	*count = n;
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The journal gets a channel of its own, so that it outlives the
 * filesystem handles the open sequence makes and frees, and so that a dry
 * run's view can read it whatever block size its own channel is at.  On
 * the filesystem's device it is opened without O_EXCL: the filesystem's
 * handle holds that.
 */
static errcode_t open_channel(ext2_filsys fs, const char *path, int flags,
			      struct e2sr_journal *j)
{
	errcode_t err;

	if (fs->flags & EXT2_FLAG_RW)
		flags |= IO_FLAG_RW;
	/* The filesystem's io manager, whatever it wraps. */
	err = fs->io->manager->open(path, flags, &j->io);
	if (!err)
		err = io_channel_set_blksize(j->io, fs->blocksize);
	return err;
}

static errcode_t open_internal(ext2_filsys fs, struct e2sr_journal *j,
			       char *detail, size_t len)
{
	__u32 count = 0, i;
	errcode_t err;

	err = map_internal(fs, fs->super->s_journal_inum, &j->pmap, &count);
	if (err)
		return err;
	err = open_channel(fs, fs->device_name, 0, j);
	if (err)
		return err;
	j->nblocks = count;
	if (!j->pmap[0])
		return E2SR_ERR_JOURNAL_BAD_SB;
	err = io_channel_read_blk64(j->io, j->pmap[0], 1, j->sbuf);
	if (err)
		return err;
	err = e2sr_jsb_parse(j->sbuf, fs->blocksize, fs->blocksize, &j->jsb);
	if (err == E2SR_ERR_JOURNAL_BAD_CSUM) {
		j->sb_csum_bad = 1;
		err = 0;
	}
	if (err)
		return err;
	/* As e2fsck: a shorter s_maxlen is allowed, a longer one is not. */
	if (j->jsb.maxlen > count) {
		snprintf(detail, len, "journal says %u blocks, inode has %u",
			 j->jsb.maxlen, count);
		return E2SR_ERR_JOURNAL_BAD_SB;
	}
	j->nblocks = j->jsb.maxlen;
	for (i = 0; i < j->nblocks; i++) {
		if (!j->pmap[i]) {
			snprintf(detail, len, "journal block %u is a hole", i);
			return E2SR_ERR_JOURNAL_BAD_BLOCK;
		}
	}
	err = ext2fs_get_array(j->nblocks, sizeof(*j->sorted), &j->sorted);
	if (err)
		return err;
	memcpy(j->sorted, j->pmap, (size_t)j->nblocks * sizeof(*j->sorted));
	/* mke2fs lays a journal out in order: sorted already, mostly. */
	for (i = 1; i < j->nblocks; i++)
		if (j->sorted[i] < j->sorted[i - 1])
			break;
	if (i < j->nblocks)
		qsort(j->sorted, j->nblocks, sizeof(*j->sorted), cmp_blk);
	return 0;
}

/*
 * An external journal device carries an ext2 superblock with the
 * journal_dev feature whose UUID the filesystem names, then the journal
 * superblock in the next block; at most one filesystem may use it.
 */
static errcode_t open_external(ext2_filsys fs, const char *path,
			       struct e2sr_journal *j, char *detail,
			       size_t len)
{
	struct ext2_super_block esb;
	blk64_t dev_blocks = 0;
	unsigned int start;
	errcode_t err;

	err = open_channel(fs, path, IO_FLAG_EXCLUSIVE, j);
	if (err)
		return err;
	j->external = 1;
	err = io_channel_set_blksize(j->io, SUPERBLOCK_OFFSET);
	if (!err)
		err = io_channel_read_blk64(j->io, 1, -SUPERBLOCK_SIZE, &esb);
	if (!err)
		err = io_channel_set_blksize(j->io, fs->blocksize);
	if (err)
		return err;
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(&esb);
#endif
	if (esb.s_magic != EXT2_SUPER_MAGIC ||
	    !ext2fs_has_feature_journal_dev(&esb)) {
		snprintf(detail, len, "%s is not an external journal", path);
		return E2SR_ERR_JOURNAL_EXT_MISMATCH;
	}
	if (memcmp(esb.s_uuid, fs->super->s_journal_uuid,
		   sizeof(esb.s_uuid))) {
		snprintf(detail, len, "%s is another filesystem's journal",
			 path);
		return E2SR_ERR_JOURNAL_EXT_MISMATCH;
	}
	if ((unsigned int)EXT2_BLOCK_SIZE(&esb) != fs->blocksize) {
		snprintf(detail, len, "%s has another block size", path);
		return E2SR_ERR_JOURNAL_EXT_MISMATCH;
	}

	start = ext2fs_journal_sb_start(fs->blocksize);
	err = io_channel_read_blk64(j->io, start, 1, j->sbuf);
	if (err)
		return err;
	err = e2sr_jsb_parse(j->sbuf, fs->blocksize, fs->blocksize, &j->jsb);
	if (err == E2SR_ERR_JOURNAL_BAD_CSUM) {
		j->sb_csum_bad = 1;
		err = 0;
	}
	if (err)
		return err;
	if (j->jsb.nr_users > 1) {
		snprintf(detail, len, "%s is shared by %u filesystems", path,
			 j->jsb.nr_users);
		return E2SR_ERR_JOURNAL_UNSUP;
	}
	if (j->jsb.nr_users == 1 &&
	    memcmp(j->sbuf + JSB_OFF(s_users), fs->super->s_uuid,
		   sizeof(fs->super->s_uuid))) {
		snprintf(detail, len, "%s does not list this filesystem",
			 path);
		return E2SR_ERR_JOURNAL_EXT_MISMATCH;
	}
	if (j->jsb.first <= start) {
		snprintf(detail, len, "log starts inside the superblocks");
		return E2SR_ERR_JOURNAL_BAD_SB;
	}
	err = ext2fs_get_device_size2(path, fs->blocksize, &dev_blocks);
	if (!err && dev_blocks && dev_blocks < j->jsb.maxlen) {
		snprintf(detail, len, "journal says %u blocks, device %llu",
			 j->jsb.maxlen, (unsigned long long)dev_blocks);
		return E2SR_ERR_TRUNCATED;
	}
	j->nblocks = j->jsb.maxlen;
	return 0;
}

/*
 * Where the log ends on a file system with fast commits, after a clean
 * unmount too.  The kernel sets the journal's fast-commit feature at
 * every mount that uses the area and clears it when it empties the
 * journal, so the superblock alone then calls the area part of the log
 * (jsb.last is s_maxlen).  But every transaction such a mount wrote
 * turned at the area (jbd2's j_last): a walk that went on into the area
 * would take its bytes for the copies of a transaction that reached the
 * turn, and leave the copies at the log's start to none.  So the area
 * is set aside as while mounted, as jbd2 sizes it (s_num_fc_blks, 256
 * when 0, and only if the log keeps its minimum: else the kernel used
 * none; ext4_fc_init() clears the file system's feature when it cannot
 * enable them).  A mount that wrote the whole journal as log (a kernel
 * without fast-commit support) is not told apart: its transactions
 * that crossed the area are read as a gap.
 */
static void fc_area_set_aside(ext2_filsys fs, struct e2sr_journal *j)
{
	struct e2sr_jsb *jsb = &j->jsb;
	__u32 fc;

	if (jsb->fc_blocks || jsb->version != 2 ||
	    !ext2fs_has_feature_fast_commit(fs->super))
		return;
	fc = e2sr_get_be32(j->sbuf + JSB_OFF(s_num_fc_blks));
	if (!fc)
		fc = E2SR_JBD2_FC_DEFAULT_BLOCKS;
	if (fc >= jsb->maxlen - jsb->first ||
	    jsb->maxlen - fc < E2SR_JBD2_MIN_BLOCKS ||
	    (jsb->start && jsb->start >= jsb->maxlen - fc))
		return;
	jsb->fc_blocks = fc;
	jsb->last = jsb->maxlen - fc;
}

errcode_t e2sr_journal_open(ext2_filsys fs, const char *ext_journal,
			    struct e2sr_journal **ret, char *detail,
			    size_t detail_len)
{
	struct e2sr_journal *j;
	errcode_t err;

	*ret = NULL;
	if (!ext2fs_has_feature_journal(fs->super))
		return E2SR_ERR_NO_JOURNAL;
	if (!fs->super->s_journal_inum && !ext_journal) {
		snprintf(detail, detail_len, "give it with -j");
		return E2SR_ERR_JOURNAL_EXTERNAL;
	}
	err = ext2fs_get_memzero(sizeof(*j), &j);
	if (err)
		return err;
	j->blocksize = fs->blocksize;
	err = ext2fs_get_mem(fs->blocksize, &j->sbuf);
	if (err) {
		ext2fs_free_mem(&j);
		return err;
	}
	if (fs->super->s_journal_inum) {
		if (ext_journal) {
			snprintf(detail, detail_len,
				 "the filesystem has an internal journal");
			err = E2SR_ERR_JOURNAL_EXT_MISMATCH;
		} else {
			err = open_internal(fs, j, detail, detail_len);
		}
	} else {
		err = open_external(fs, ext_journal, j, detail, detail_len);
	}
	if (!err) {
		fc_area_set_aside(fs, j);
		j->win_cap = JOURNAL_WINDOW_BYTES / j->blocksize;
		if (!j->win_cap)
			j->win_cap = 1;
		err = ext2fs_get_array(j->win_cap, j->blocksize, &j->win);
	}
	if (err) {
		e2sr_journal_close(j);
		return err;
	}
	*ret = j;
	return 0;
}

void e2sr_journal_close(struct e2sr_journal *j)
{
	if (!j)
		return;
	if (j->io)
		io_channel_close(j->io);
	ext2fs_free_mem(&j->pmap);
	ext2fs_free_mem(&j->sorted);
	ext2fs_free_mem(&j->sbuf);
	ext2fs_free_mem(&j->win);
	ext2fs_free_mem(&j->written);
	ext2fs_free_mem(&j->zeroed);
	ext2fs_free_mem(&j->fc_dirty);
	ext2fs_free_mem(&j);
}

/*
 * Where journal block @jblock is on the journal's device; 0 past the
 * journal's end.  Callers check the range before they read or write
 * (e2sr_journal_read, e2sr_wipe_journal_place); the runs the writer
 * gathers ask before that check, from the plan's numbers.
 */
blk64_t e2sr_journal_phys(const struct e2sr_journal *j, __u32 jblock)
{
	if (jblock >= j->nblocks)
		return 0;
	return j->pmap ? j->pmap[jblock] : jblock;
}

/* Whether a filesystem block is one of the internal journal's. */
int e2sr_journal_owns(const struct e2sr_journal *j, blk64_t fs_block)
{
	size_t lo = 0, hi;

	if (!j->sorted)
		return 0;
	hi = j->nblocks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->sorted[mid] == fs_block)
			return 1;
		if (j->sorted[mid] < fs_block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Read [jblock, jblock + count) in physically contiguous runs. */
errcode_t e2sr_journal_read(struct e2sr_journal *j, __u32 jblock,
			    __u32 count, void *buf)
{
	unsigned char *p = buf;
	__u32 n;
	errcode_t err;

	if (jblock >= j->nblocks || count > j->nblocks - jblock)
		return E2SR_ERR_JOURNAL_BAD_BLOCK;
	while (count) {
		blk64_t phys = e2sr_journal_phys(j, jblock);

		for (n = 1; n < count &&
		     e2sr_journal_phys(j, jblock + n) == phys + n; n++)
			;
		err = io_channel_read_blk64(j->io, phys, n, p);
		if (err)
			return err;
		p += (size_t)n * j->blocksize;
		jblock += n;
		count -= n;
	}
	return 0;
}

/*
 * A pass that reads only some blocks of the log, in log order, says
 * which, as a bit per block of [@first, @first + @len); NULL when it is
 * done.  A miss then fills the window from the block asked for through
 * the last wanted one that follows it closely, not a whole window: the
 * blocks between are not copied for nothing.
 */
void e2sr_journal_want(struct e2sr_journal *j, const __u8 *map, __u32 first,
		       __u32 len)
{
	j->want = map;
	j->want_first = first;
	j->want_len = map ? len : 0;
}

/*
 * Log blocks [@jblock, +@count) are about to be written by this run
 * (wrapping at the log's end): what it read of them is no longer so.
 */
void e2sr_journal_note_write(struct e2sr_journal *j, __u32 jblock,
			     __u32 count)
{
	__u32 len = j->jsb.last - j->jsb.first, i;

	/* The fast-commit area, set aside past the log's last. */
	if (jblock >= j->jsb.last) {
		j->fc_unknown = 1;
		return;
	}
	if (!j->written && !j->written_lost &&
	    ext2fs_get_memzero(len / 8 + 1, &j->written))
		j->written_lost = 1;
	for (; count; count--, jblock++) {
		if (jblock >= j->jsb.last)
			jblock = j->jsb.first;
		if (jblock < j->jsb.first || !j->written) {
			j->written_lost = 1;
			continue;
		}
		i = jblock - j->jsb.first;
		j->written[i >> 3] |= 1 << (i & 7);
	}
}

/*
 * The same, for blocks the write leaves all zero (whole copies zeroed):
 * what they hold is known without reading them again.
 */
void e2sr_journal_note_zero(struct e2sr_journal *j, __u32 jblock, __u32 count)
{
	__u32 len = j->jsb.last - j->jsb.first, i;

	if (jblock >= j->jsb.last) {
		/* The fast-commit area: those blocks are zero now. */
		for (; count && jblock < j->jsb.maxlen; count--, jblock++) {
			i = jblock - j->jsb.last;
			if (j->fc_dirty)
				j->fc_dirty[i >> 3] &= ~(1 << (i & 7));
		}
		return;
	}
	e2sr_journal_note_write(j, jblock, count);
	if (!j->zeroed && ext2fs_get_memzero(len / 8 + 1, &j->zeroed))
		return;		/* only written, then */
	for (; count; count--, jblock++) {
		if (jblock >= j->jsb.last)
			jblock = j->jsb.first;
		if (jblock < j->jsb.first)
			continue;
		i = jblock - j->jsb.first;
		j->zeroed[i >> 3] |= 1 << (i & 7);
	}
}

/* Whether this run left log block @jblock all zero. */
int e2sr_journal_zeroed(const struct e2sr_journal *j, __u32 jblock)
{
	__u32 i = jblock - j->jsb.first;

	return j->zeroed && jblock >= j->jsb.first && jblock < j->jsb.last &&
	       (j->zeroed[i >> 3] & (1 << (i & 7)));
}

/*
 * Whether the fast-commit area set aside past the log is all zero as
 * this run leaves it, as far as the run can say: proven so and not
 * written (fc_quiet), or read whole and every block it found not all
 * zero zeroed since.
 */
int e2sr_journal_fc_zero(const struct e2sr_journal *j)
{
	__u32 n = j->jsb.maxlen - j->jsb.last, i;

	if (!j->jsb.fc_blocks || j->fc_unknown)
		return 0;
	if (j->fc_quiet)
		return 1;
	if (!j->fc_seen)
		return 0;
	for (i = 0; j->fc_dirty && i < n; i++)
		if (j->fc_dirty[i >> 3] & (1 << (i & 7)))
			return 0;
	return 1;
}

/*
 * What the run learnt of the fast-commit area through @from, handed to
 * @to that replaces it (the read-write journal after the checks).
 */
void e2sr_journal_take_fc(struct e2sr_journal *to, struct e2sr_journal *from)
{
	to->fc_quiet = from->fc_quiet;
	to->fc_seen = from->fc_seen;
	to->fc_unknown = from->fc_unknown;
	ext2fs_free_mem(&to->fc_dirty);
	to->fc_dirty = from->fc_dirty;
	from->fc_dirty = NULL;
}

/* Whether this run wrote log block @jblock (or may have). */
int e2sr_journal_wrote(const struct e2sr_journal *j, __u32 jblock)
{
	__u32 i = jblock - j->jsb.first;

	if (j->written_lost)
		return 1;
	return j->written && jblock >= j->jsb.first && jblock < j->jsb.last &&
	       (j->written[i >> 3] & (1 << (i & 7)));
}

/* Wanted blocks this far apart are read in one go. */
#define WANT_GAP	4

static int wanted(const struct e2sr_journal *j, __u32 jblock)
{
	__u32 i = jblock - j->want_first;

	return jblock >= j->want_first && i < j->want_len &&
	       (j->want[i >> 3] & (1 << (i & 7)));
}

/* The read window emptied: a block read next comes from the device. */
void e2sr_journal_drop_window(struct e2sr_journal *j)
{
	j->win_count = 0;
}

/*
 * One block through the read window: the recovery passes go forward
 * through the log, so a miss refills the window from that block on (as
 * far as the pass wants, e2sr_journal_want).  The pointer stays valid
 * until the next call.
 */
errcode_t e2sr_journal_block(struct e2sr_journal *j, __u32 jblock,
			     const unsigned char **block)
{
	__u32 n;
	errcode_t err;

	if (jblock >= j->nblocks)
		return E2SR_ERR_JOURNAL_BAD_BLOCK;
	if (j->win_count && jblock >= j->win_first &&
	    jblock - j->win_first < j->win_count) {
		*block = j->win + (size_t)(jblock - j->win_first) *
			 j->blocksize;
		return 0;
	}
	n = j->nblocks - jblock;
	if (n > j->win_cap)
		n = j->win_cap;
	if (j->want) {
		__u32 k, last = 0;

		for (k = 1; k < n && k - last <= WANT_GAP; k++)
			if (wanted(j, jblock + k))
				last = k;
		n = last + 1;
	}
	j->win_count = 0;
	err = e2sr_journal_read(j, jblock, n, j->win);
	if (err)
		return err;
	j->win_first = jblock;
	j->win_count = n;
	*block = j->win;
	return 0;
}

/*
 * Rewrite the journal superblock as recovery leaves it; with CSUM_V2/V3
 * its checksum is recomputed over the first 1024 bytes.
 */
errcode_t e2sr_journal_write_sb(struct e2sr_journal *j, __u32 sequence,
				__u32 start, __s32 errno_val)
{
	unsigned char *p = j->sbuf;
	__u32 crc;
	errcode_t err;

	e2sr_put_be32(p + JSB_OFF(s_sequence), sequence);
	e2sr_put_be32(p + JSB_OFF(s_start), start);
	e2sr_put_be32(p + JSB_OFF(s_errno), (__u32)errno_val);
	if (j->jsb.csum_version) {
		e2sr_put_be32(p + JSB_OFF(s_checksum), 0);
		crc = e2sr_crc32c_le(~0U, p, E2SR_JBD2_SB_SIZE);
		e2sr_put_be32(p + JSB_OFF(s_checksum), crc);
	}
	err = io_channel_write_blk64(j->io,
				     j->external ?
				     (blk64_t)ext2fs_journal_sb_start(
					     j->blocksize) :
				     j->pmap[0], 1, p);
	if (!err)
		err = io_channel_flush(j->io);
	j->sb_written = 1;
	if (!err) {
		j->jsb.sequence = sequence;
		j->jsb.start = start;
		j->jsb.errno_val = errno_val;
		j->win_count = 0;
	}
	return err;
}
