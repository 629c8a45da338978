/*
 * test_sanity.c --- the records whose flags or maps contradict each
 * other (lib/find/sanity.c), as a table: each row a record made with
 * debugfs -w on a fresh image, the reason e2sr_record_contradicts()
 * gives, and e2fsck -fn as the oracle: it questions the image exactly
 * when the row expects a reason.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "find.h"
#include "testimg.h"

#define EXT4	"-t ext4 -O inline_data,^has_journal -b 1024"
#define EXT4_NOINLINE	"-t ext4 -O ^has_journal -b 1024"
#define EXT3	"-t ext3 -O ^has_journal -b 1024"

struct row {
	const char		*name;
	const char		*mkfs;
	const char		*script;	/* makes /x */
	const char		*after;		/* then, given x's number */
	enum e2sr_question	want;
};

static const struct row rows[] = {
	{ "extent file", EXT4_NOINLINE, "write %s x\n", NULL, E2SR_Q_NONE },
	{ "inline file", EXT4, "write %s x\n", NULL, E2SR_Q_NONE },
	{ "inline directory", EXT4, "mkdir x\n", NULL, E2SR_Q_NONE },
	{ "block directory", EXT4_NOINLINE, "mkdir x\n", NULL,
	  E2SR_Q_NONE },
	{ "fast symlink", EXT4, "symlink x /target\n", NULL, E2SR_Q_NONE },
	{ "block-mapped file", EXT3, "write %s x\n", NULL, E2SR_Q_NONE },
	{ "device", EXT4, "mknod x b 8 1\n", NULL, E2SR_Q_NONE },
	{ "deleted, both flags (pass 1 asks nothing)", EXT4,
	  "write %s x\n", "rm x\nsif <%u> flags 0x10080000\n",
	  E2SR_Q_NONE },
	{ "inline data and extents", EXT4,
	  "write %s x\nsif x flags 0x10080000\n", NULL,
	  E2SR_Q_INLINE_EXTENTS },
	{ "inline data, no feature", EXT4_NOINLINE,
	  "write %s x\nsif x flags 0x10000000\n", NULL,
	  E2SR_Q_INLINE_FEATURE },
	{ "device with extents", EXT4,
	  "mknod x b 8 1\nsif x flags 0x80000\n", NULL,
	  E2SR_Q_SPECIAL_MAP },
	{ "fifo with inline data", EXT4,
	  "mknod x p\nsif x flags 0x10000000\n", NULL, E2SR_Q_SPECIAL_MAP },
	{ "extents, no feature", EXT3,
	  "write %s x\nsif x flags 0x80000\n", NULL,
	  E2SR_Q_EXTENTS_FEATURE },
	{ "htree flag on a file", EXT4_NOINLINE,
	  "write %s x\nsif x flags 0x81000\n", NULL, E2SR_Q_INDEX },
	{ "inline data, no system.data", EXT4,
	  "write %s x\nea_rm x system.data\n", NULL,
	  E2SR_Q_INLINE_NO_DATA },
	{ "inline directory, size not its data", EXT4,
	  "mkdir x\nsif x size 61\n", NULL, E2SR_Q_INLINE_SIZE },
	{ "fast symlink with extents", EXT4,
	  "symlink x /target\nsif x flags 0x80000\n", NULL,
	  E2SR_Q_SYMLINK },
	{ "fast symlink, size not its target", EXT4,
	  "symlink x /target\nsif x size 3\n", NULL, E2SR_Q_SYMLINK },
	{ "extents over a zeroed header", EXT4_NOINLINE,
	  "write %s x\nsif x block[0] 0\n", NULL, E2SR_Q_EXTENT_HEADER },
	{ "extent header, no flag", EXT4_NOINLINE,
	  "write %s x\nsif x flags 0\n", NULL, E2SR_Q_EXTENT_NOFLAG },
	{ "directory size not in blocks", EXT4_NOINLINE,
	  "mkdir x\nsif x size 1000\n", NULL, E2SR_Q_DIR_SIZE },
};

static void one_row(const struct row *r)
{
	char host[PATH_MAX], script[2 * PATH_MAX + 128];
	struct ext2_inode_large *inode = NULL;
	struct testimg t;
	ext2_filsys fs;
	ext2_ino_t ino;
	int isize, fsck;

	assert_int_equal(testimg_setup(&t), 0);
	assert_int_equal(testimg_mkfs(&t, r->mkfs), 0);
	/* Small enough for inline data, big enough for a block. */
	assert_int_equal(testimg_make_file(&t, "data", 40, 3), 0);
	assert_int_equal(testimg_path(&t, "data", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), r->script, host);
	assert_int_equal(testimg_debugfs(&t, script), 0);

	assert_int_equal(ext2fs_open(t.img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "x",
				      &ino), 0);
	ext2fs_free(fs);
	if (r->after) {
		snprintf(script, sizeof(script), r->after, ino);
		assert_int_equal(testimg_debugfs(&t, script), 0);
	}

	assert_int_equal(ext2fs_open(t.img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	isize = EXT2_INODE_SIZE(fs->super);
	assert_int_equal(ext2fs_get_memzero(isize, &inode), 0);
	assert_int_equal(ext2fs_read_inode2(fs, ino,
					    (struct ext2_inode *)inode, isize,
					    READ_INODE_NOCSUM), 0);
	if (e2sr_record_contradicts(fs, ino, inode, isize) != r->want)
		fail_msg("%s: reason %d, expected %d (%s)", r->name,
			 e2sr_record_contradicts(fs, ino, inode, isize),
			 r->want, e2sr_question_text(r->want));
	ext2fs_free_mem(&inode);
	ext2fs_free(fs);

	/* The oracle: e2fsck questions the image exactly then. */
	fsck = testimg_run("e2fsck -fn '%s' >/dev/null 2>&1", t.img);
	if ((fsck != 0) != (r->want != E2SR_Q_NONE))
		fail_msg("%s: e2fsck -fn exit %d, the predicate says %s",
			 r->name, fsck, e2sr_question_text(r->want));
	testimg_cleanup(&t);
}

static void test_rows(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		one_row(&rows[i]);
}

/* Every reason has a key and words for the report. */
static void test_texts(void **state)
{
	int why;

	(void)state;
	for (why = E2SR_Q_NONE; why < E2SR_Q_COUNT; why++) {
		assert_non_null(e2sr_question_key(why));
		assert_non_null(e2sr_question_text(why));
		assert_string_not_equal(e2sr_question_key(why), "?");
	}
	assert_string_equal(e2sr_question_key(E2SR_Q_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
