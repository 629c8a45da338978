/*
 * fstool.c --- a test tool for other projects' images (t_foreign.sh).
 *
 *	e2secrm-fstool flag IMAGE
 *	e2secrm-fstool tree IMAGE
 *	e2secrm-fstool records IMAGE
 *
 * tree lists what a user can read of the filesystem: every name reached
 * from the root, with its type, mode, size, link target, and for a
 * regular file a crc32c per mapped block as it reads (a block under an
 * unwritten extent reads as zeros, whatever it holds).  Blocks are never
 * copied out, so a file of terabytes with a few blocks costs a few
 * reads, where debugfs' rdump would write them all.  Names come in
 * directory order; a directory met twice is listed once.
 *
 * flag turns another project's image (e2fsprogs' own test images, say) into
 * one where every file, live or deleted, is +s, so that every path of
 * e2secrm meets the image's damage.  A record counts as having held a
 * file when its mode, links count or deletion time is non-zero; records
 * past a group's bg_itable_unused mark, or in an INODE_UNINIT group, are
 * left alone, as the kernel would never have written them.  Records are
 * written back through libext2fs, so their checksums stay as valid as
 * they were: one that failed its checksum before is left as it was.
 * records lists every record in use (its bit set in the inode bitmap)
 * with a crc32c of its bytes as the inode table holds them, read raw,
 * not through ext2fs_read_inode (which would mend nothing, but would
 * refuse a record that fails its checksum): two lists of one image
 * before and after a run differ exactly where a live record was edited.
 * Exit status: 0 done (flag prints the count of records flagged), 1 the
 * image cannot be opened, read or written.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

struct tree {
	ext2_filsys		fs;
	ext2fs_inode_bitmap	seen;		/* directories listed */
	char			path[4096];
	unsigned char		*buf;
	int			depth;
};

static void list_dir(struct tree *t, ext2_ino_t dir);

struct file_walk {
	struct tree		*t;
	ext2_ino_t		ino;
	struct ext2_inode	*inode;
};

/* One mapped block of a regular file: where it sits in the file, and
 * what it reads as. */
static int list_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct file_walk *f = priv;
	blk64_t pblk;
	int flags = 0;
	__u32 crc = 0;

	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if (ext2fs_bmap2(fs, f->ino, f->inode, NULL, 0, blockcnt, &flags,
			 &pblk) || pblk != *blocknr)
		return 0;
	if (flags & BMAP_RET_UNINIT)
		memset(f->t->buf, 0, fs->blocksize);
	else if (io_channel_read_blk64(fs->io, *blocknr, 1, f->t->buf))
		memset(f->t->buf, 0xff, fs->blocksize);
	crc = ext2fs_crc32c_le(~0U, f->t->buf, fs->blocksize);
	printf("%s @%lld %08x\n", f->t->path, (long long)blockcnt, crc);
	return 0;
}

static void list_inode(struct tree *t, ext2_ino_t ino)
{
	ext2_filsys fs = t->fs;
	struct ext2_inode inode;
	struct file_walk f;
	char target[EXT2_MAX_BLOCK_SIZE + 1];
	size_t len;

	if (ext2fs_read_inode(fs, ino, &inode)) {
		printf("%s unreadable\n", t->path);
		return;
	}
	printf("%s mode %o size %llu links %u\n", t->path, inode.i_mode,
	       (unsigned long long)EXT2_I_SIZE(&inode), inode.i_links_count);
	if (LINUX_S_ISLNK(inode.i_mode)) {
		len = 0;
		if (ext2fs_is_fast_symlink(&inode)) {
			len = strnlen((char *)inode.i_block,
				      sizeof(inode.i_block));
			memcpy(target, inode.i_block, len);
		} else if (inode.i_flags & EXT4_INLINE_DATA_FL) {
			if (ext2fs_inline_data_get(fs, ino, &inode, target,
						   &len))
				len = 0;
		} else if (inode.i_block[0] &&
			   !io_channel_read_blk64(fs->io, inode.i_block[0], 1,
						  t->buf)) {
			len = strnlen((char *)t->buf, fs->blocksize);
			memcpy(target, t->buf, len);
		}
		target[len] = 0;
		printf("%s -> %s\n", t->path, target);
	} else if (LINUX_S_ISDIR(inode.i_mode)) {
		list_dir(t, ino);
	} else if (LINUX_S_ISREG(inode.i_mode) &&
		   ext2fs_inode_has_valid_blocks2(fs, &inode) &&
		   !(inode.i_flags & EXT4_INLINE_DATA_FL)) {
		f.t = t;
		f.ino = ino;
		f.inode = &inode;
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY |
				      BLOCK_FLAG_DATA_ONLY, NULL, list_block,
				      &f);
	} else if (LINUX_S_ISREG(inode.i_mode) &&
		   (inode.i_flags & EXT4_INLINE_DATA_FL) &&
		   !ext2fs_inline_data_get(fs, ino, &inode, t->buf, &len)) {
		printf("%s inline %08x\n", t->path,
		       ext2fs_crc32c_le(~0U, t->buf, len));
	}
}

static int list_entry(struct ext2_dir_entry *de, int offset, int blocksize,
		      char *buf, void *priv)
{
	struct tree *t = priv;
	size_t at = strlen(t->path);
	int len = ext2fs_dirent_name_len(de);

	(void)offset;
	(void)blocksize;
	(void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (at + 1 + len >= sizeof(t->path))
		return 0;
	t->path[at] = '/';
	memcpy(t->path + at + 1, de->name, len);
	t->path[at + 1 + len] = 0;
	if (de->inode && de->inode <= t->fs->super->s_inodes_count)
		list_inode(t, de->inode);
	else
		printf("%s inode %u\n", t->path, de->inode);
	t->path[at] = 0;
	return 0;
}

static void list_dir(struct tree *t, ext2_ino_t dir)
{
	if (t->depth > 64 || ext2fs_test_inode_bitmap2(t->seen, dir))
		return;
	ext2fs_mark_inode_bitmap2(t->seen, dir);
	t->depth++;
	if (ext2fs_dir_iterate(t->fs, dir, 0, NULL, list_entry, t))
		printf("%s unreadable directory\n", t->path);
	t->depth--;
}

static int tree(ext2_filsys fs)
{
	struct tree t;

	memset(&t, 0, sizeof(t));
	t.fs = fs;
	t.buf = malloc(fs->blocksize);
	if (!t.buf || ext2fs_allocate_inode_bitmap(fs, "seen", &t.seen))
		return 1;
	list_inode(&t, EXT2_ROOT_INO);
	ext2fs_free_inode_bitmap(t.seen);
	free(t.buf);
	return 0;
}

/* Every record in use, and a crc32c of its raw bytes. */
static int records(ext2_filsys fs)
{
	unsigned int size = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t ipg = fs->super->s_inodes_per_group;
	ext2_ino_t ino, per = fs->blocksize / size;
	unsigned char *buf;
	blk64_t table, last = 0;
	dgrp_t g;

	if (ext2fs_read_inode_bitmap(fs))
		return 1;
	buf = malloc(fs->blocksize);
	if (!buf)
		return 1;
	for (ino = 1; ino <= fs->super->s_inodes_count; ino++) {
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		g = (ino - 1) / ipg;
		table = ext2fs_inode_table_loc(fs, g) +
			((ino - 1) % ipg) / per;
		if (table != last) {
			if (io_channel_read_blk64(fs->io, table, 1, buf)) {
				printf("%u unreadable\n", ino);
				last = 0;
				continue;
			}
			last = table;
		}
		printf("%u %08x\n", ino, ext2fs_crc32c_le(~0U, buf +
		       ((ino - 1) % ipg) % per * size, size));
	}
	free(buf);
	return 0;
}

static int ever_used(const struct ext2_inode *inode)
{
	return inode->i_mode || inode->i_links_count || inode->i_dtime;
}

int main(int argc, char **argv)
{
	unsigned char buf[EXT2_MAX_BLOCK_SIZE];
	struct ext2_inode *inode = (struct ext2_inode *)buf;
	ext2_filsys fs;
	ext2_ino_t ino, ipg;
	unsigned long flagged = 0;
	errcode_t err;
	dgrp_t g;
	int size;

	if (argc != 3 || (strcmp(argv[1], "flag") && strcmp(argv[1], "tree") &&
			  strcmp(argv[1], "records"))) {
		fprintf(stderr, "usage: %s flag|tree|records IMAGE\n",
			argv[0]);
		return 1;
	}
	err = ext2fs_open(argv[2], EXT2_FLAG_64BITS |
			  EXT2_FLAG_IGNORE_CSUM_ERRORS |
			  (argv[1][0] == 'f' ? EXT2_FLAG_RW : 0), 0, 0,
			  unix_io_manager, &fs);
	if (err) {
		com_err(argv[0], err, "while opening %s", argv[2]);
		return 1;
	}
	if (argv[1][0] == 't') {
		err = tree(fs);
		ext2fs_close_free(&fs);
		return !!err;
	}
	if (argv[1][0] == 'r') {
		err = records(fs);
		ext2fs_close_free(&fs);
		return !!err;
	}
	size = EXT2_INODE_SIZE(fs->super);
	if (size > (int)sizeof(buf))
		size = sizeof(buf);
	ipg = fs->super->s_inodes_per_group;
	for (ino = 1; ino <= fs->super->s_inodes_count; ino++) {
		g = (ino - 1) / ipg;
		if (ext2fs_has_group_desc_csum(fs) &&
		    (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT) ||
		     (ino - 1) % ipg >= ipg - ext2fs_bg_itable_unused(fs, g)))
			continue;
		/* A record that fails its checksum is left as it is. */
		fs->flags &= ~EXT2_FLAG_IGNORE_CSUM_ERRORS;
		err = ext2fs_read_inode_full(fs, ino, inode, size);
		fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
		if (err || !ever_used(inode) ||
		    (inode->i_flags & EXT2_SECRM_FL))
			continue;
		inode->i_flags |= EXT2_SECRM_FL;
		err = ext2fs_write_inode_full(fs, ino, inode, size);
		if (err) {
			com_err(argv[0], err, "while writing inode %u", ino);
			ext2fs_close_free(&fs);
			return 1;
		}
		flagged++;
	}
	err = ext2fs_close_free(&fs);
	if (err) {
		com_err(argv[0], err, "while closing %s", argv[2]);
		return 1;
	}
	printf("%lu\n", flagged);
	return 0;
}
