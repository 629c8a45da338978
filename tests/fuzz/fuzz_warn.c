/*
 * fuzz_warn.c --- every message libext2fs prints is a finding.
 *
 * The engine prints nothing; libext2fs does, through com_err, when it is
 * handed a number it does not accept (ext2fs_warn_bitmap: "Illegal block
 * number passed to ext2fs_test_block_bitmap #4294967295 for ...").  The
 * library survives those, but each is an on-disk number that reached it
 * unchecked, which the design forbids, and a call the library does not
 * check the same way would be a bug.  So every fuzz target installs this
 * hook before its first input: the message is printed and the run aborts,
 * and libFuzzer keeps the input as a crash.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <et/com_err.h>

static void fuzz_warn_hook(const char *whoami, errcode_t code,
			   const char *fmt, va_list args)
{
	fprintf(stderr, "fuzz: libext2fs warned: %s%s%s ",
		whoami ? whoami : "", whoami ? ": " : "",
		code ? error_message(code) : "");
	vfprintf(stderr, fmt, args);
	fprintf(stderr, "\n");
	abort();
}

__attribute__((constructor))
static void fuzz_warn_install(void)
{
	set_com_err_hook(fuzz_warn_hook);
}
