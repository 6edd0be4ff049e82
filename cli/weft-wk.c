/*
 * cli/weft-wk.c - weft-wk, the kernel tool: turns a model's kernel file
 * (NAME.wk, the portable dialect) into what the model's program needs:
 * NAME_kernels.c (host builds, program text, descriptor, signatures) and
 * NAME_kernels.h (kernel indexes and launch helpers that bind buffers by
 * name). docs/kernel-tool.md describes it.
 *
 * A standalone program on plain libc: the scanner is weft-wk-scan.c, the
 * writers weft-wk-emit.c; this file reads the command line, finds
 * weft/kernel.h and writes the outputs (each through a temporary file
 * that is renamed, so a failed run leaves the old outputs in place).
 *
 * Exit status: 0 done, 1 the kernel file (or an output) is wrong, with one
 * line "FILE:LINE: what is wrong" on stderr, 2 bad command line.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-wk.h"

#define EXIT_USAGE 2

#ifndef WEFT_WK_INCLUDEDIR
#define WEFT_WK_INCLUDEDIR "/usr/local/include"
#endif

static const char usage_text[] =
	"usage: weft-wk [-I DIR]... [-n NAME] [-o OUT.c] [-H OUT.h] FILE.wk\n"
	"       weft-wk --help | --version\n"
	"\n"
	"Turn a kernel file in weft's portable dialect into what a model's\n"
	"program needs: OUT.c (the kernels built as C for host backends, the\n"
	"program text for run-time compilers, NAME_program and NAME_sigs) and\n"
	"OUT.h (kernel indexes NAME_K_*, and per kernel a struct of its\n"
	"buffers and a launch helper that binds them by name).\n"
	"\n"
	"A kernel declares its buffers first in its body, by name only:\n"
	"WEFT_BUF(T, name); weft-wk numbers them in order (slots 0, 1, ...).\n"
	"Quoted includes are inlined from the including file's directory,\n"
	"<weft/NAME.h> and <weft/NAME.wk> (weft's kit) from the -I\n"
	"directories; each file once. Names that OpenCL C or CUDA reserve\n"
	"and constructs outside the dialect are refused with their line.\n"
	"\n"
	"  -I DIR    look for weft/kernel.h and the kit files that\n"
	"            <weft/NAME.h> and <weft/NAME.wk> include under DIR\n"
	"            first (then in " WEFT_WK_INCLUDEDIR ")\n"
	"  -n NAME   the model name, prefix of every generated symbol\n"
	"            ([a-z][a-z0-9_]*; default: FILE's name without .wk)\n"
	"  -o OUT.c  the C file to write (default: NAME_kernels.c)\n"
	"  -H OUT.h  the header to write (default: NAME_kernels.h)\n"
	"\n"
	"Exit status: 0 done, 1 an error in the kernel file (one line,\n"
	"FILE:LINE: what is wrong), 2 a bad command line.\n";

/* ---- utilities (weft-wk.h) ----------------------------------------------- */

static void out_of_memory(void)
{
	fputs("weft-wk: out of memory\n", stderr);
	exit(EXIT_FAILURE);
}

void *wk_xalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *wk_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *wk_xstrndup(const char *s, size_t n)
{
	char *p = wk_xalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *wk_xstrdup(const char *s)
{
	return wk_xstrndup(s, strlen(s));
}

void wk_str_addn(wk_str *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 256;

		while (s->len + n + 1 > cap)
			cap *= 2;
		s->p = wk_xrealloc(s->p, cap);
		s->cap = cap;
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = '\0';
}

void wk_str_add(wk_str *s, const char *p)
{
	wk_str_addn(s, p, strlen(p));
}

void wk_str_printf(wk_str *s, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		wk_str_addn(s, small, (size_t)n);
		return;
	}
	wk_str_addn(s, "", 0);
	if (s->len + (size_t)n + 1 > s->cap) {
		s->cap = s->len + (size_t)n + 1;
		s->p = wk_xrealloc(s->p, s->cap);
	}
	va_start(ap, fmt);
	vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

/* The most a kernel source may hold: a file that goes on (/dev/zero) is
 * refused, "File too large", rather than read. */
#define WK_FILE_MAX (16u << 20)

char *wk_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	wk_str s = { 0 };
	char buf[65536];
	size_t n;
	int err;

	if (!f)
		return NULL;
	while (s.len <= WK_FILE_MAX && (n = fread(buf, 1, sizeof buf, f)) > 0)
		wk_str_addn(&s, buf, n);
	err = ferror(f)		    ? (errno ? errno : EIO)
	      : s.len > WK_FILE_MAX ? EFBIG
				    : 0;
	fclose(f);
	if (err) {
		free(s.p);
		errno = err;
		return NULL;
	}
	wk_str_addn(&s, "", 0);
	*len = s.len;
	return s.p;
}

/* ---- the command --------------------------------------------------------- */

typedef struct wk_opts {
	const char **inc;
	size_t n_inc;
	const char *name, *out_c, *out_h, *file;
} wk_opts;

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("weft-wk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (weft-wk --help for usage)\n", stderr);
	return EXIT_USAGE;
}

/* An option's value: the rest of the word (-IDIR) or the next word. */
static const char *opt_value(int argc, char **argv, int *i)
{
	if (argv[*i][2])
		return argv[*i] + 2;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

/* -1 when the command is done (help, version), else 0 or an exit status. */
static int parse_args(int argc, char **argv, wk_opts *o)
{
	int i, dashdash = 0;

	o->inc = wk_xalloc((size_t)argc * sizeof *o->inc);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (dashdash || a[0] != '-' || !a[1]) {
			if (o->file)
				return usage_error("one kernel file only: %s",
						   a);
			o->file = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return -1;
		} else if (!strcmp(a, "--version")) {
			puts("weft-wk (weft) " PACKAGE_VERSION);
			return -1;
		} else if (strchr("InoH", a[1])) {
			v = opt_value(argc, argv, &i);
			if (!v || !v[0])
				return usage_error("%s needs a value", a);
			if (a[1] == 'I')
				o->inc[o->n_inc++] = v;
			else if (a[1] == 'n')
				o->name = v;
			else if (a[1] == 'o')
				o->out_c = v;
			else
				o->out_h = v;
		} else {
			return usage_error("unknown option %s", a);
		}
	}
	if (!o->file)
		return usage_error("no kernel file given");
	return 0;
}

static int valid_name(const char *s)
{
	if (!(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

/* FILE's name without its directory and ".wk". Caller frees. */
static char *default_name(const char *file)
{
	const char *b = strrchr(file, '/');
	size_t n;

	b = b ? b + 1 : file;
	n = strlen(b);
	if (n > 3 && !strcmp(b + n - 3, ".wk"))
		n -= 3;
	return wk_xstrndup(b, n);
}

const char wk_includedir[] = WEFT_WK_INCLUDEDIR;

char *wk_kit_path(const wk_prog *prog, const char *name)
{
	wk_str p = { 0 };
	FILE *f;

	for (size_t i = 0; i <= prog->n_inc; i++) {
		p.len = 0;
		wk_str_add(&p, i < prog->n_inc ? prog->inc[i] : wk_includedir);
		wk_str_printf(&p, "/%s", name);
		f = fopen(p.p, "rb");
		if (f) {
			fclose(f);
			return p.p;
		}
	}
	free(p.p);
	return NULL;
}

/* weft/kernel.h under the -I directories, then the installed one. */
static char *find_kernel_h(const wk_prog *prog, char **path)
{
	char *p = wk_kit_path(prog, "weft/kernel.h");
	char *text;
	size_t len;

	if (!p)
		return NULL;
	text = wk_read_file(p, &len);
	if (!text) {
		free(p);
		return NULL;
	}
	*path = p;
	return text;
}

static void remove_tmp(const char *path)
{
	wk_str tmp = { 0 };

	wk_str_printf(&tmp, "%s.tmp", path);
	remove(tmp.p);
	free(tmp.p);
}

/* Write text to path through path.tmp; the rename is done by the caller
 * once every output is written. */
static int write_tmp(const char *path, const wk_str *text)
{
	wk_str tmp = { 0 };
	FILE *f;
	int ok;

	wk_str_printf(&tmp, "%s.tmp", path);
	f = fopen(tmp.p, "wb");
	if (!f) {
		fprintf(stderr, "weft-wk: cannot write %s: %s\n", tmp.p,
			strerror(errno));
		free(tmp.p);
		return -1;
	}
	ok = fwrite(text->p, 1, text->len, f) == text->len;
	ok = fclose(f) == 0 && ok;
	if (!ok) {
		fprintf(stderr, "weft-wk: cannot write %s: %s\n", tmp.p,
			strerror(errno));
		remove(tmp.p);
	}
	free(tmp.p);
	return ok ? 0 : -1;
}

static int commit(const char *path)
{
	wk_str tmp = { 0 };
	int rc = 0;

	wk_str_printf(&tmp, "%s.tmp", path);
	if (rename(tmp.p, path)) {
		fprintf(stderr, "weft-wk: cannot rename %s to %s: %s\n", tmp.p,
			path, strerror(errno));
		remove(tmp.p);
		rc = -1;
	}
	free(tmp.p);
	return rc;
}

/* Both outputs, or neither: each is written to its .tmp first. */
static int write_outputs(const char *c_path, const char *h_path,
			 const wk_prog *prog, const char *kh,
			 const char *kh_path)
{
	wk_str c = { 0 }, h = { 0 };
	int rc = -1;

	wk_emit_c(&c, prog, kh, kh_path, c_path);
	wk_emit_h(&h, prog);
	if (write_tmp(c_path, &c))
		goto out;
	if (write_tmp(h_path, &h)) {
		remove_tmp(c_path);
		goto out;
	}
	if (commit(c_path) || commit(h_path))
		goto out;
	rc = 0;
out:
	free(c.p);
	free(h.p);
	return rc;
}

int main(int argc, char **argv)
{
	wk_opts o = { 0 };
	wk_prog prog = { 0 };
	wk_str c_path = { 0 }, h_path = { 0 };
	char *name = NULL, *kh = NULL, *kh_path = NULL;
	int rc = parse_args(argc, argv, &o);

	if (rc) {
		free(o.inc);
		return rc < 0 ? 0 : rc;
	}
	name = o.name ? wk_xstrdup(o.name) : default_name(o.file);
	if (o.out_c)
		wk_str_add(&c_path, o.out_c);
	else
		wk_str_printf(&c_path, "%s_kernels.c", name);
	if (o.out_h)
		wk_str_add(&h_path, o.out_h);
	else
		wk_str_printf(&h_path, "%s_kernels.h", name);
	if (!strcmp(c_path.p, h_path.p)) {
		rc = usage_error("-o and -H name the same file, %s", c_path.p);
		goto out;
	}
	rc = EXIT_FAILURE;
	if (!valid_name(name)) {
		fprintf(stderr,
			"weft-wk: %s: the model name '%s' must match "
			"[a-z][a-z0-9_]*%s\n",
			o.file, name, o.name ? "" : " (give one with -n NAME)");
		goto out;
	}
	prog.name = name;
	prog.inc = o.inc;
	prog.n_inc = o.n_inc;
	kh = find_kernel_h(&prog, &kh_path);
	if (!kh) {
		fprintf(stderr,
			"weft-wk: weft/kernel.h not found under the -I "
			"directories nor in %s\n",
			WEFT_WK_INCLUDEDIR);
		goto out;
	}
	if (wk_scan(&prog, o.file) || wk_check_names(&prog) ||
	    wk_check_text(&prog)) {
		fprintf(stderr, "%s\n", prog.err);
		goto out;
	}
	if (write_outputs(c_path.p, h_path.p, &prog, kh, kh_path))
		goto out;
	rc = 0;
out:
	wk_prog_free(&prog);
	free(kh);
	free(kh_path);
	free(name);
	free(c_path.p);
	free(h_path.p);
	free(o.inc);
	return rc;
}
