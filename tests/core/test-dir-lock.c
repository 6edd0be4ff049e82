/*
 * tests/core/test-dir-lock.c - weft_dir_lock_take() and
 * weft_dir_lock_release() (weft.h), the lock of an output directory for a
 * program that writes into one itself: taken, it is PARENT/.BASE.weft-lock
 * with this process's pid; a second take is refused naming that pid and
 * the lock file; a release removes the file, and the lock can be taken
 * again; a path that names no replaceable directory and NULL arguments are
 * refused with WEFT_E_INVALID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <weft/weft.h>

#include "tap.h"

static weft_context *ctx;

static void refused(const char *dir, const char *what)
{
	weft_dir_lock *l = (weft_dir_lock *)1;
	weft_status st = weft_dir_lock_take(ctx, dir, &l);

	tap_ok(st == WEFT_E_INVALID && l == NULL, "%s is refused (status %d)",
	       what, (int)st);
	tap_contains(weft_context_error(ctx), "weft_dir_lock_take",
		     "  ...naming the call");
}

int main(void)
{
	char dir[600], lockfile[700], want[64], text[64] = "";
	weft_dir_lock *a = NULL, *b = NULL;
	FILE *f;

	if (weft_context_new(&ctx))
		tap_bail("out of memory");
	snprintf(dir, sizeof dir, "%s/out", tap_tmpdir());
	snprintf(lockfile, sizeof lockfile, "%s/.out.weft-lock", tap_tmpdir());
	snprintf(want, sizeof want, "%ld\n", (long)getpid());

	tap_ok(weft_dir_lock_take(ctx, dir, &a) == WEFT_OK && a,
	       "a directory is held");
	f = fopen(lockfile, "r");
	if (f) {
		if (!fgets(text, sizeof text, f))
			text[0] = '\0';
		fclose(f);
	}
	tap_ok(f && strcmp(text, want) == 0,
	       "its lock file is PARENT/.BASE.weft-lock with our pid");
	tap_ok(weft_dir_lock_take(ctx, dir, &b) == WEFT_E_IO && !b,
	       "a second take is refused");
	snprintf(text, sizeof text, "is in use by another run (pid %ld,",
		 (long)getpid());
	tap_contains(weft_context_error(ctx), text, "  ...naming the holder");
	tap_contains(weft_context_error(ctx), lockfile, "  ...and the lock");
	weft_dir_lock_release(a);
	tap_ok(access(lockfile, F_OK) != 0, "a release removes the lock file");
	tap_ok(weft_dir_lock_take(ctx, dir, &b) == WEFT_OK && b,
	       "then the directory can be held again");
	weft_dir_lock_release(b);
	weft_dir_lock_release(NULL);
	tap_ok(1, "releasing NULL does nothing");

	refused("", "an empty path");
	refused("/", "/");
	refused(".", "'.'");
	refused("somewhere/..", "a path ending in '..'");
	refused(NULL, "a NULL directory");
	tap_ok(weft_dir_lock_take(ctx, dir, NULL) == WEFT_E_INVALID,
	       "a NULL out is refused");
	tap_ok(weft_dir_lock_take(NULL, dir, &a) == WEFT_E_INVALID,
	       "a NULL context is refused");
	weft_context_free(ctx);
	return tap_done();
}
