/*
 * core/output/outdir.c - the output directory: one run at a time, a new set
 * written beside it, the commit that puts the new set in its place in one
 * step, and what killed runs left.
 *
 * For an output directory DIR = PARENT/BASE (output.h has the names):
 *
 *   prepare  check DIR (weft__outputs_check); create PARENT; lock
 *            PARENT/.BASE.weft-lock (flock, our pid written in it: a
 *            second run is refused naming it); put back a set that a
 *            killed commit left aside, remove leftovers; create the new
 *            set TMP = PARENT/.BASE.weft-new-XXXXXX.
 *   commit   close (fsync) every file of TMP; write TMP/.weft-outputs,
 *            the manifest; hard-link into TMP the files of DIR that weft
 *            did not write; fsync TMP; then the one step: exchange TMP and
 *            DIR (renameat2 RENAME_EXCHANGE). The old set, now at TMP's
 *            name, is renamed PARENT/.BASE.weft-old-XXXXXX and removed.
 *
 * A crash before the exchange leaves DIR as it was (and TMP, removed by
 * the next run); after it, DIR is the new set (and the old one aside,
 * removed by the next run). Where the filesystem cannot exchange (some
 * network filesystems), DIR is renamed aside and TMP into place; a crash
 * between the two renames leaves no DIR, and the next run into it puts
 * the newer complete set (the one whose manifest is complete) back.
 *
 * The manifest lists the files weft wrote, then a line ".". Removing a
 * set removes only what weft wrote: the files its manifest lists, the
 * hard links of files carried over, and the temporary files an older weft
 * wrote (.NAME.XXXXXX); anything else found in a replaced set (a file
 * created in DIR during the commit) is moved into the new set.
 */
#include "output/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_ALNUM \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#define OUT_MANIFEST_MAX (1u << 20) /* bytes of a manifest read */

/* Test hook COMMIT_KILL=N (util.h: weft__test_hook) kills the process with
 * SIGKILL at the commit's point N (1 to 7, in order), so that tests can
 * check what a crash at each instant leaves. */
static void out_point(int n)
{
	const char *v = weft__test_hook("COMMIT_KILL");

	if (v && atoi(v) == n)
		raise(SIGKILL);
}

/* ---- names ----------------------------------------------------------------
 */

/* PARENT/.BASE followed by suffix, in new memory. */
static char *out_sibling(const weft__outputs *set, const char *suffix)
{
	size_t n = strlen(set->parent) + strlen(set->base) + strlen(suffix) + 3;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/.%s%s", set->parent, set->base, suffix);
	return p;
}

/* name is ".BASE" + kind + six characters of mkdtemp's alphabet. */
static int out_is_leftover(const char *base, const char *kind, const char *name)
{
	size_t nb = strlen(base), nk = strlen(kind);

	if (name[0] != '.' || strncmp(name + 1, base, nb) != 0 ||
	    strncmp(name + 1 + nb, kind, nk) != 0)
		return 0;
	name += 1 + nb + nk;
	return strlen(name) == 6 && strspn(name, OUT_ALNUM) == 6;
}

/* A list of file names (a manifest). */
typedef struct out_names {
	char **v;
	size_t n;
} out_names;

static void out_names_free(out_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int out_names_has(const out_names *l, const char *name, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && memcmp(l->v[i], name, len) == 0)
			return 1;
	return 0;
}

static int out_names_add(out_names *l, const char *name, size_t len)
{
	char **grown = realloc(l->v, (l->n + 1) * sizeof *grown);

	if (!grown)
		return -1;
	l->v = grown;
	if (!(l->v[l->n] = strndup(name, len)))
		return -1;
	l->n++;
	return 0;
}

/* DIR/.weft-outputs: its names, and whether it ends with "." (the set was
 * complete). A missing or unreadable manifest gives no names. */
static void out_manifest_read(const char *dir, out_names *l, int *complete)
{
	char *path = weft__path_join(dir, WEFT__OUT_MANIFEST);
	FILE *f = path ? fopen(path, "re") : NULL;
	char line[4096];
	size_t total = 0;

	*complete = 0;
	while (f && total < OUT_MANIFEST_MAX && fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");
		total += len + 1;
		*complete = len == 1 && line[0] == '.';
		if (!*complete && len && out_names_add(l, line, len) != 0)
			break;
	}
	if (f)
		fclose(f);
	free(path);
}

/* A file weft wrote into a set whose manifest is `old` (and, with set,
 * one of the new set's names): the manifest, a listed name, or an older
 * weft's temporary file .NAME.XXXXXX of a listed name. */
static int out_is_weft(const weft__outputs *set, const out_names *old,
		       const char *name)
{
	size_t len = strlen(name);

	if (strcmp(name, WEFT__OUT_MANIFEST) == 0 ||
	    out_names_has(old, name, len) ||
	    (set && set->tree && strcmp(name, set->tree) == 0) ||
	    (set && weft__outputs_find(set, name)))
		return 1;
	if (name[0] != '.' || len < 9 || name[len - 7] != '.' ||
	    strspn(name + len - 6, OUT_ALNUM) != 6)
		return 0;
	if (out_names_has(old, name + 1, len - 8))
		return 1;
	for (const weft_output *o = set ? set->head : NULL; o;
	     o = weft__output_next(o)) {
		const char *n = weft__output_name(o);
		if (strlen(n) == len - 8 && memcmp(n, name + 1, len - 8) == 0)
			return 1;
	}
	return 0;
}

static void out_note(weft__outputs *set, const char *fmt, const char *a,
		     const char *b)
{
	if (!set->note[0])
		weft__fmt(set->note, sizeof set->note, fmt, a, b);
}

/* ---- checking the directory -----------------------------------------------
 */

/* dir without trailing slashes ("/" stays), in new memory. */
static char *out_trim(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strndup(dir, n);
}

/* 1 when the current directory is dir or inside it. */
static int out_holds_cwd(const char *dir)
{
	char *real = realpath(dir, NULL), *cwd = getcwd(NULL, 0);
	size_t n = real ? strlen(real) : 0;
	int in = real && cwd && strncmp(cwd, real, n) == 0 &&
		 (cwd[n] == '/' || cwd[n] == '\0' || n == 1);

	free(real);
	free(cwd);
	return in;
}

/* The first subdirectory of dir (which exists) that its manifest does not
 * list (an ensemble's runs), into buf; 0 when none. */
static int out_subdir(const char *dir, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	out_names listed = { 0 };
	struct dirent *e;
	struct stat sb;
	int found = 0, complete;

	out_manifest_read(dir, &listed, &complete);
	while (d && !found && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    out_names_has(&listed, e->d_name, strlen(e->d_name)))
			continue;
		found = fstatat(dirfd(d), e->d_name, &sb,
				AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(sb.st_mode);
		if (found)
			weft__escape(buf, size, e->d_name, strlen(e->d_name));
	}
	if (d)
		closedir(d);
	out_names_free(&listed);
	return found;
}

static weft_status out_check_existing(weft_context *ctx, const char *section,
				      const char *key, const char *dir,
				      const struct stat *sb)
{
	char sub[256];

	if (!S_ISDIR(sb->st_mode))
		return weft__fail(ctx, WEFT_E_IO,
				  "%s: %s directory %s exists and is not a "
				  "directory",
				  key, section, dir);
	if (out_holds_cwd(dir))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: it is the current directory or holds "
				  "it; a run replaces its %s directory as a "
				  "whole: name a directory of its own, such as "
				  "weft-out",
				  key, section);
	if (out_subdir(dir, sub, sizeof sub))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: %s directory %s holds a directory, "
				  "'%s', that weft did not write; a run "
				  "replaces its %s directory as a whole and "
				  "carries over files only: move it, or choose "
				  "another [%s] directory",
				  key, section, dir, sub, section, section);
	return WEFT_OK;
}

/* The set is written beside dir first, in PARENT/.BASE.weft-new-XXXXXX/
 * with its manifest: a directory too long for those paths is refused
 * before anything is made (key: "FILE:LINE: [output] directory = ..."). */
static weft_status out_check_length(weft_context *ctx, const char *key,
				    const char *d)
{
	char path[PATH_MAX];
	const char *last = strrchr(d, '/');
	int base = (int)(last ? last + 1 - d : 0);

	if (weft__fmt_path(ctx, path, sizeof path,
			   "a run writes its set beside it first, in",
			   "%.*s.%s%sXXXXXX/%s", base, d, d + base,
			   WEFT__OUT_NEW, WEFT__OUT_MANIFEST) == WEFT_OK)
		return WEFT_OK;
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: %s", key,
			  weft__context_error(ctx));
}

weft_status weft__outputs_check(weft_context *ctx, const char *section,
				const char *dir, const char *where)
{
	char key[WEFT__MSG_MAX / 2], shown[400];
	char *d = out_trim(dir);
	const char *last;
	struct stat sb;
	weft_status st = WEFT_OK;

	if (!d)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	section = section ? section : "output";
	weft__path_shown(shown, sizeof shown, dir);
	weft__where_key(key, sizeof key, where, section, "directory", shown);
	last = strrchr(d, '/');
	last = last ? last + 1 : d;
	if (stat(d, &sb) == 0)
		st = out_check_existing(ctx, section, key, d, &sb);
	else if (errno != ENOENT && errno != ENOTDIR)
		st = weft__fail(ctx, WEFT_E_IO, "%s: %s", key, strerror(errno));
	if (st == WEFT_OK &&
	    (!last[0] || strcmp(last, ".") == 0 || strcmp(last, "..") == 0))
		st = weft__fail(ctx, WEFT_E_CONFIG,
				"%s: name the directory itself (the root "
				"directory, '.' and '..' cannot be replaced by "
				"a run's set)",
				key);
	if (st == WEFT_OK)
		st = out_check_length(ctx, key, d);
	free(d);
	return st;
}

/* ---- preparing ------------------------------------------------------------
 */

/* "output" or "checkpoint", for messages. */
static const char *out_section(const weft__outputs *set)
{
	return set->section ? set->section : "output";
}

/* mkdir -p: create dir and its missing parents. */
static weft_status out_mkdirs(weft_context *ctx, const weft__outputs *set,
			      const char *dir)
{
	char *p = weft__strdup(dir);
	weft_status st = WEFT_OK;

	if (!p)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st = weft__fail(ctx, WEFT_E_IO,
					"cannot create %s directory %s: %s",
					out_section(set), p, strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return st;
}

/* set->dir, and the directory replaced (a symlink's target), split into
 * parent and base. */
static weft_status out_split(weft_context *ctx, weft__outputs *set,
			     const char *dir)
{
	struct stat sb;
	char *slash;

	set->dir = out_trim(dir);
	if (set->dir && lstat(set->dir, &sb) == 0 && S_ISLNK(sb.st_mode))
		set->real = realpath(set->dir, NULL);
	else if (set->dir)
		set->real = weft__strdup(set->dir);
	if (!set->real)
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot resolve %s directory %s: %s",
				  out_section(set), dir, strerror(errno));
	slash = strrchr(set->real, '/');
	set->parent = !slash ? weft__strdup(".")
		      : slash == set->real
			      ? weft__strdup("/")
			      : strndup(set->real, (size_t)(slash - set->real));
	set->base = weft__strdup(slash ? slash + 1 : set->real);
	if (!set->parent || !set->base)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	return WEFT_OK;
}

/* The other run's pid, from its lock file, into buf. */
static void out_lock_owner(int fd, char *buf, size_t size)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof text - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	text[strspn(text, "0123456789")] = '\0';
	weft__fmt(buf, size, "%s", text[0] ? text : "unknown");
}

static weft_status out_lock(weft_context *ctx, weft__outputs *set)
{
	char *path = out_sibling(set, WEFT__OUT_LOCK);
	char pid[32];
	int fd, n;

	if (!path)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int busy = fd >= 0 && errno == EWOULDBLOCK;
		weft_status st;
		if (busy)
			out_lock_owner(fd, pid, sizeof pid);
		st = busy ? weft__fail(ctx, WEFT_E_IO,
				       "%s directory %s is in use by another "
				       "run (pid %s, which holds %s): wait for "
				       "it to end, or choose another [%s] "
				       "directory",
				       out_section(set), set->dir, pid, path,
				       out_section(set))
			  : weft__fail(ctx, WEFT_E_IO,
				       "cannot lock %s directory %s (%s): %s",
				       out_section(set), set->dir, path,
				       strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return st;
	}
	free(path);
	n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* The lock holds without the pid; messages say "unknown". */
	}
	set->lock_fd = fd;
	return WEFT_OK;
}

/* The leftovers of BASE of one kind in PARENT, as names. */
static void out_leftovers(const weft__outputs *set, const char *kind,
			  out_names *l)
{
	DIR *d = opendir(set->parent);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (out_is_leftover(set->base, kind, e->d_name))
			out_names_add(l, e->d_name, strlen(e->d_name));
	if (d)
		closedir(d);
}

/* The output directory is missing and a commit was cut between its two
 * renames: put back the new set when it is complete, else the old one. */
static void out_recover(weft__outputs *set)
{
	out_names news = { 0 }, olds = { 0 }, names = { 0 };
	char *found = NULL, *path;
	struct stat sb;
	int complete;

	if (lstat(set->real, &sb) == 0 || errno != ENOENT)
		return;
	out_leftovers(set, WEFT__OUT_NEW, &news);
	out_leftovers(set, WEFT__OUT_OLD, &olds);
	for (size_t i = 0; !found && i < news.n; i++) {
		path = weft__path_join(set->parent, news.v[i]);
		out_manifest_read(path ? path : "", &names, &complete);
		out_names_free(&names);
		if (complete)
			found = path;
		else
			free(path);
	}
	if (!found && olds.n)
		found = weft__path_join(set->parent, olds.v[0]);
	if (found && rename(found, set->real) != 0)
		out_note(set, "could not put %s back in place: %s", found,
			 strerror(errno));
	free(found);
	out_names_free(&news);
	out_names_free(&olds);
}

/* Remove an entry of d: a file, or a set's tree (an ensemble's runs). */
static int out_unlink(DIR *d, const char *dir, const char *name)
{
	char *path;

	if (unlinkat(dirfd(d), name, 0) == 0)
		return 1;
	if (errno != EISDIR && errno != EPERM)
		return 0;
	if ((path = weft__path_join(dir, name)))
		weft__rm_tree(path);
	free(path);
	return 1;
}

/* Remove an unfinished new set: everything in it is weft's outputs or
 * hard links to files of the output directory. */
static void out_remove_new(weft__outputs *set, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			out_unlink(d, path, e->d_name);
	if (d)
		closedir(d);
	if (rmdir(path) != 0)
		out_note(set, "kept %s: cannot remove it: %s", path,
			 strerror(errno));
}

/* 1 when the entry of d named name is the file of the same name in the
 * output directory (a hard link carried over into the set). */
static int out_is_carried(const weft__outputs *set, DIR *d, const char *name)
{
	char *path = weft__path_join(set->real, name);
	struct stat a, b;
	int same = path && lstat(path, &b) == 0 &&
		   fstatat(dirfd(d), name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
		   a.st_ino == b.st_ino && a.st_dev == b.st_dev;

	free(path);
	return same;
}

/* Move a file that weft did not write from a replaced set into the
 * output directory, unless a file of that name is there. */
static int out_move_in(const weft__outputs *set, DIR *d, const char *name)
{
	char *path = weft__path_join(set->real, name);
	int moved = path &&
		    faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
		    renameat(dirfd(d), name, AT_FDCWD, path) == 0;

	free(path);
	return moved;
}

/* Remove a replaced set: what weft wrote goes, anything else moves into
 * the output directory. with_new: the names of set's new outputs count as
 * weft's too (the set they replace may predate manifests). */
static void out_remove_old(weft__outputs *set, const char *path, int with_new)
{
	out_names old = { 0 };
	DIR *d = opendir(path);
	struct dirent *e;
	int complete, removed = 0;

	out_manifest_read(path, &old, &complete);
	while (d && (e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (out_is_weft(with_new ? set : NULL, &old, name) ||
		    out_is_carried(set, d, name))
			removed += out_unlink(d, path, name);
		else
			out_move_in(set, d, name);
		if (removed == 1 && with_new)
			out_point(6); /* in a commit's removal only */
	}
	if (d)
		closedir(d);
	out_names_free(&old);
	if (rmdir(path) != 0)
		out_note(set, "kept %s: it holds files weft did not write (%s)",
			 path, strerror(errno));
}

/* What killed runs left beside the output directory. */
static void out_clean(weft__outputs *set)
{
	out_names news = { 0 }, olds = { 0 };

	out_leftovers(set, WEFT__OUT_NEW, &news);
	out_leftovers(set, WEFT__OUT_OLD, &olds);
	for (size_t i = 0; i < news.n + olds.n; i++) {
		int is_new = i < news.n;
		char *path = weft__path_join(
			set->parent, is_new ? news.v[i] : olds.v[i - news.n]);
		if (path && is_new)
			out_remove_new(set, path);
		else if (path)
			out_remove_old(set, path, 0);
		free(path);
	}
	out_names_free(&news);
	out_names_free(&olds);
}

static mode_t out_umask(void)
{
	mode_t m = umask(022);
	umask(m);
	return m;
}

/* TMP, with the output directory's mode (or a new directory's). */
static weft_status out_mktmp(weft_context *ctx, weft__outputs *set)
{
	struct stat sb;
	mode_t mode = stat(set->real, &sb) == 0 ? sb.st_mode & 07777
						: 0777 & ~out_umask();

	set->tmp = out_sibling(set, WEFT__OUT_NEW "XXXXXX");
	if (!set->tmp)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (!mkdtemp(set->tmp)) {
		weft__fail(ctx, WEFT_E_IO,
			   "cannot create %s beside %s directory %s: %s",
			   set->tmp, out_section(set), set->dir,
			   strerror(errno));
		free(set->tmp);
		set->tmp = NULL;
		return WEFT_E_IO;
	}
	chmod(set->tmp, mode);
	return WEFT_OK;
}

weft_status weft__outputs_prepare(weft_context *ctx, weft__outputs *set,
				  const char *dir, const char *where)
{
	weft_status st;

	set->lock_fd = -1;
	set->tail = &set->head;
	if ((st = weft__outputs_check(ctx, set->section, dir, where)) ||
	    (st = out_split(ctx, set, dir)) ||
	    (st = out_mkdirs(ctx, set, set->parent)) ||
	    (st = out_lock(ctx, set)))
		return st;
	out_recover(set);
	out_clean(set);
	return out_mktmp(ctx, set);
}

/* ---- committing -----------------------------------------------------------
 */

static int out_fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd >= 0 ? fsync(fd) : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

/* TMP/.weft-outputs: the new set's names, then ".". */
static weft_status out_manifest_write(weft_context *ctx, weft__outputs *set)
{
	char *path = weft__path_join(set->tmp, WEFT__OUT_MANIFEST);
	FILE *f = path ? fopen(path, "wxe") : NULL;
	int bad;

	for (const weft_output *o = set->head; f && o; o = weft__output_next(o))
		fprintf(f, "%s\n", weft__output_name(o));
	if (f && set->tree)
		fprintf(f, "%s\n", set->tree);
	bad = !f || fputs(".\n", f) < 0 || fflush(f) != 0 ||
	      fsync(fileno(f)) != 0;
	if ((f && fclose(f) != 0) || bad) {
		weft__fail(ctx, WEFT_E_IO, "cannot write %s: %s",
			   path ? path : WEFT__OUT_MANIFEST, strerror(errno));
		free(path);
		return WEFT_E_IO;
	}
	free(path);
	return WEFT_OK;
}

/* Hard-link into TMP one file of the output directory that weft did not
 * write; a directory there (made during the run) fails the commit. */
static weft_status out_carry_one(weft_context *ctx, weft__outputs *set, DIR *d,
				 int tfd, const char *name)
{
	char shown[256];
	struct stat sb;

	weft__escape(shown, sizeof shown, name, strlen(name));
	if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(sb.st_mode))
		return weft__fail(ctx, WEFT_E_IO,
				  "%s directory %s holds a directory, '%s', "
				  "that weft did not write; nothing was "
				  "replaced: move it, and run again",
				  out_section(set), set->dir, shown);
	if (linkat(dirfd(d), name, tfd, name, 0) != 0)
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot carry %s/%s, which weft did not "
				  "write, over into the new set: %s; nothing "
				  "was replaced",
				  set->dir, shown, strerror(errno));
	return WEFT_OK;
}

static weft_status out_carry(weft_context *ctx, weft__outputs *set)
{
	out_names old = { 0 };
	DIR *d = opendir(set->real);
	int tfd, complete;
	struct dirent *e;
	weft_status st = WEFT_OK;

	if (!d)
		return errno == ENOENT ? WEFT_OK
				       : weft__fail(ctx, WEFT_E_IO,
						    "cannot read %s: %s",
						    set->dir, strerror(errno));
	tfd = open(set->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	out_manifest_read(set->real, &old, &complete);
	while (st == WEFT_OK && (e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
		    !out_is_weft(set, &old, name))
			st = out_carry_one(ctx, set, d, tfd, name);
	}
	out_names_free(&old);
	if (tfd >= 0)
		close(tfd);
	closedir(d);
	return st;
}

/* The old set, now at TMP's name, renamed PARENT/.BASE.weft-old-XXXXXX
 * (XXXXXX: TMP's) and removed. */
static void out_retire(weft__outputs *set, const char *at)
{
	char suffix[32];
	char *old;

	weft__fmt(suffix, sizeof suffix, "%s%s", WEFT__OUT_OLD,
		  set->tmp + strlen(set->tmp) - 6);
	old = out_sibling(set, suffix);
	if (old && strcmp(at, old) != 0 && rename(at, old) != 0) {
		free(old);
		old = weft__strdup(at);
	}
	out_point(5);
	out_fsync_dir(set->parent);
	if (old)
		out_remove_old(set, old, 1);
	free(old);
}

/* Where the filesystem cannot exchange: the old set aside, then the new
 * one into place (DIR is missing in between: out_recover()). */
static weft_status out_swap_renames(weft_context *ctx, weft__outputs *set)
{
	char suffix[32];
	char *old;

	weft__fmt(suffix, sizeof suffix, "%s%s", WEFT__OUT_OLD,
		  set->tmp + strlen(set->tmp) - 6);
	if (!(old = out_sibling(set, suffix)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (rename(set->real, old) != 0) {
		weft__fail(ctx, WEFT_E_IO, "cannot rename %s to %s: %s",
			   set->dir, old, strerror(errno));
		free(old);
		return WEFT_E_IO;
	}
	out_point(4);
	if (rename(set->tmp, set->real) != 0) {
		int e = errno;
		rename(old, set->real);
		free(old);
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot rename %s to %s: %s; nothing was "
				  "replaced",
				  set->tmp, set->dir, strerror(e));
	}
	set->committed = 1;
	out_retire(set, old);
	free(old);
	return WEFT_OK;
}

/* The one step: the new set in place of the old (or of nothing). */
static weft_status out_swap(weft_context *ctx, weft__outputs *set)
{
	/* Test hook COMMIT_RENAME: the two renames of filesystems that
	 * cannot exchange, on any. */
	int renames = weft__test_hook("COMMIT_RENAME") != NULL;
	struct stat sb;

	if (lstat(set->real, &sb) != 0) {
		if (rename(set->tmp, set->real) != 0)
			return weft__fail(ctx, WEFT_E_IO,
					  "cannot rename %s to %s: %s",
					  set->tmp, set->dir, strerror(errno));
		set->committed = 1;
		out_point(4);
		out_fsync_dir(set->parent);
		return WEFT_OK;
	}
	if (renames || renameat2(AT_FDCWD, set->tmp, AT_FDCWD, set->real,
				 RENAME_EXCHANGE) != 0) {
		if (renames || errno == EINVAL || errno == ENOSYS ||
		    errno == EOPNOTSUPP)
			return out_swap_renames(ctx, set);
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot exchange %s and %s: %s; nothing was "
				  "replaced",
				  set->tmp, set->dir, strerror(errno));
	}
	set->committed = 1;
	out_point(4);
	out_retire(set, set->tmp);
	return WEFT_OK;
}

weft_status weft__outputs_commit(weft_context *ctx, weft__outputs *set)
{
	weft_status st;

	for (weft_output *o = set->head; o; o = weft__output_next(o))
		if ((st = weft__output_close(o)))
			return st;
	out_point(1);
	if ((st = out_manifest_write(ctx, set)))
		return st;
	out_point(2);
	if ((st = out_carry(ctx, set)))
		return st;
	if (out_fsync_dir(set->tmp) != 0)
		return weft__fail(ctx, WEFT_E_IO, "cannot write %s: %s",
				  set->tmp, strerror(errno));
	out_point(3);
	if (weft__cancelled(ctx))
		return weft__cancel_fail(ctx,
					 "committing the outputs into %s "
					 "(nothing was replaced)",
					 set->dir);
	if ((st = out_swap(ctx, set)))
		return st;
	out_point(7);
	return WEFT_OK;
}

weft_status weft__outputs_renew(weft_context *ctx, weft__outputs *set)
{
	weft__outputs_free_files(set);
	if (set->tmp && !set->committed)
		out_remove_new(set, set->tmp);
	free(set->tmp);
	set->tmp = NULL;
	set->committed = 0;
	return out_mktmp(ctx, set);
}

void weft__outputs_discard(weft__outputs *set)
{
	weft__outputs_free_files(set);
	if (!set->dir)
		return;
	if (set->tmp && !set->committed)
		out_remove_new(set, set->tmp);
	if (set->lock_fd >= 0)
		close(set->lock_fd);
	free(set->tmp);
	free(set->dir);
	free(set->real);
	free(set->parent);
	free(set->base);
	memset(set, 0, sizeof *set);
	set->tail = &set->head;
	set->lock_fd = -1;
}
