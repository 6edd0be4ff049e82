/*
 * cli/weft-wk-scan.c - weft-wk's scanner: reads a kernel file, inlines its
 * quoted includes, numbers each kernel's buffers and collects the kernels.
 *
 * It knows just enough C to do that safely: comments, string and character
 * literals, preprocessor directives (kept as they are, except #include),
 * identifiers and braces. Everything is copied through unchanged except
 * three things: a quoted #include becomes the included file's text (once
 * per file), `#include <weft/kernel.h>` an empty line, and each
 * WEFT_BUF(T, name) gains its slot, WEFT_BUF(T, name, k). So every other
 * line of the kernel file stays a line of the program text, and #line
 * directives, where a file's text starts or resumes, point each line back
 * to its file (for the host build's compiler and the run-time ones).
 *
 * Each file must be complete in itself: its braces balanced, no kernel
 * or WEFT_BUF left open at its end.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-wk.h"

typedef struct wk_brace {
	const char *file;
	unsigned line;
} wk_brace;

/* What the scanner knows across files. */
typedef struct wk_scanner {
	wk_prog *prog;
	wk_brace *braces; /* the open braces, innermost last */
	size_t depth, cap;
	long cur;	       /* the kernel whose body we are in, or -1 */
	size_t body_depth;     /* depth inside that body's own braces */
	int want_body;	       /* WEFT_KERNEL(name) seen, its '{' not yet */
	int decls;	       /* still in the body's leading WEFT_BUFs */
	int want_semi;	       /* a WEFT_BUF(...) awaits its ';' */
	const char *pend_file; /* where the awaited thing was written */
	unsigned pend_line;
	size_t span;	   /* the open span of prog->spans, or NO_SPAN */
	unsigned end_line; /* the kernel file's last line */
} wk_scanner;

/* One file being read. */
typedef struct wk_src {
	const char *path; /* as shown */
	const char *s;
	size_t n;
	size_t i;	   /* next byte to look at */
	size_t done;	   /* bytes before this are copied to the outputs */
	size_t line_start; /* first byte of the current line */
	unsigned line;
	int kit; /* a file of weft's kit, or one that a kit file includes */
} wk_src;

#define NO_SPAN ((size_t)-1)

static int fail(wk_scanner *sc, const char *file, unsigned line,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(wk_scanner *sc, const char *file, unsigned line,
		const char *fmt, ...)
{
	char *e = sc->prog->err;
	size_t size = sizeof sc->prog->err;
	int k = snprintf(e, size, "%s:%u: ", file, line);
	va_list ap;

	if (k < 0 || (size_t)k >= size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e + k, size - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static unsigned count_lines(const char *p, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += p[i] == '\n';
	return k;
}

/* ---- output ---------------------------------------------------------------
 * Bytes go to the output (the program text, also the host build) lazily:
 * f->done marks what is copied, and a flush copies up to a point, so that
 * the scanner only steps in where it changes something. */

static void put(wk_scanner *sc, const char *p, size_t n)
{
	wk_str_addn(&sc->prog->text, p, n);
	sc->prog->text_lines += count_lines(p, n);
}

static void flush(wk_scanner *sc, wk_src *f, size_t upto)
{
	if (upto > f->done)
		put(sc, f->s + f->done, upto - f->done);
	f->done = upto;
}

/* `#line LINE "FILE"`: compilers, the host's and the run-time ones, then
 * name the kernel file's lines in their messages. */
static void host_line(wk_scanner *sc, unsigned line, const char *file)
{
	wk_str d = { 0 };

	wk_str_printf(&d, "#line %u \"", line);
	for (const char *p = file; *p; p++) {
		if (*p == '"' || *p == '\\')
			wk_str_addn(&d, "\\", 1);
		wk_str_addn(&d, p, 1);
	}
	wk_str_add(&d, "\"\n");
	put(sc, d.p, d.len);
	free(d.p);
}

/* The map of program-text lines to files: a span opens where a file's
 * text starts or resumes and closes where an include interrupts it. */
static void span_open(wk_scanner *sc, const char *file, unsigned from, int kit)
{
	wk_prog *p = sc->prog;

	if (p->n_spans == p->cap_spans) {
		p->cap_spans = p->cap_spans ? 2 * p->cap_spans : 8;
		p->spans =
			wk_xrealloc(p->spans, p->cap_spans * sizeof *p->spans);
	}
	p->spans[p->n_spans] = (wk_span){ .file = file,
					  .first = p->text_lines + 1,
					  .from = from,
					  .kit = kit };
	sc->span = p->n_spans++;
}

static void span_close(wk_scanner *sc)
{
	wk_prog *p = sc->prog;
	wk_span *s;

	if (sc->span == NO_SPAN)
		return;
	s = &p->spans[sc->span];
	s->last = p->text_lines;
	if (s->last < s->first)
		p->n_spans--; /* nothing came from it */
	sc->span = NO_SPAN;
}

/* ---- lexing helpers ------------------------------------------------------ */

/* The end of the block comment starting at j ("/" "*"), past its closing
 * "*" "/"; 0 when it is never closed. */
static size_t block_comment_end(const wk_src *f, size_t j)
{
	for (j += 2; j + 1 < f->n; j++)
		if (f->s[j] == '*' && f->s[j + 1] == '/')
			return j + 2;
	return 0;
}

/* The end of the line comment starting at j: its newline (not consumed),
 * following backslash-newline continuations. */
static size_t line_comment_end(const wk_src *f, size_t j)
{
	for (; j < f->n && f->s[j] != '\n'; j++)
		if (f->s[j] == '\\' && j + 1 < f->n && f->s[j + 1] == '\n')
			j++;
	return j;
}

/* The end of the literal starting at j (its quote), past the closing
 * quote; 0 when a newline or the end of the file comes first. */
static size_t literal_end(const wk_src *f, size_t j)
{
	char q = f->s[j];

	for (j++; j < f->n; j++) {
		if (f->s[j] == '\\' && j + 1 < f->n)
			j++;
		else if (f->s[j] == q)
			return j + 1;
		else if (f->s[j] == '\n')
			return 0;
	}
	return 0;
}

/* Skip white space, newlines and comments from j; the index of the next
 * significant byte (f->n at the end). Adds the newlines to *nl. */
static size_t skip_blank(const wk_src *f, size_t j, unsigned *nl)
{
	while (j < f->n) {
		size_t e;

		if (is_space(f->s[j]) || f->s[j] == '\n') {
			*nl += f->s[j] == '\n';
			j++;
		} else if (f->s[j] == '\\' && j + 1 < f->n &&
			   f->s[j + 1] == '\n') {
			(*nl)++;
			j += 2;
		} else if (f->s[j] == '/' && j + 1 < f->n &&
			   f->s[j + 1] == '*') {
			e = block_comment_end(f, j);
			e = e ? e : f->n;
			*nl += count_lines(f->s + j, e - j);
			j = e;
		} else if (f->s[j] == '/' && j + 1 < f->n &&
			   f->s[j + 1] == '/') {
			e = line_comment_end(f, j);
			*nl += count_lines(f->s + j, e - j);
			j = e;
		} else {
			break;
		}
	}
	return j;
}

/* The text of s[0..n) without comments, white space collapsed to single
 * spaces and trimmed: how a buffer's type is shown. */
static char *clean_text(const char *s, size_t n)
{
	wk_src f = { .s = s, .n = n };
	wk_str out = { 0 };
	int space = 0;
	unsigned nl = 0;

	for (size_t j = 0; j < n;) {
		size_t k = skip_blank(&f, j, &nl);

		if (k > j) {
			space = 1;
			j = k;
			continue;
		}
		if (space && out.len)
			wk_str_addn(&out, " ", 1);
		space = 0;
		wk_str_addn(&out, s + j, 1);
		j++;
	}
	if (!out.p)
		wk_str_addn(&out, "", 0);
	return out.p;
}

static int is_identifier(const char *s)
{
	if (!is_ident_start((unsigned char)s[0]))
		return 0;
	for (s++; *s; s++)
		if (!is_ident((unsigned char)*s))
			return 0;
	return 1;
}

/* ---- the kernel structure -------------------------------------------------
 * Every significant token passes through here. */

/* Fails when something else was due: a WEFT_BUF's ';', a kernel's body. */
static int pending(wk_scanner *sc)
{
	if (sc->want_semi)
		return fail(sc, sc->pend_file, sc->pend_line,
			    "WEFT_BUF(...) must be followed by ';'");
	if (sc->want_body)
		return fail(sc, sc->pend_file, sc->pend_line,
			    "WEFT_KERNEL(%s) must be followed by its body, "
			    "{ ... }",
			    sc->prog->kernels[sc->prog->n_kernels - 1].name);
	return 0;
}

/* Any token but a WEFT_BUF: it ends a body's declarations. */
static int token(wk_scanner *sc)
{
	if (pending(sc))
		return -1;
	if (sc->cur >= 0 && sc->depth == sc->body_depth)
		sc->decls = 0;
	return 0;
}

static int open_brace(wk_scanner *sc, const wk_src *f)
{
	if (sc->want_body) {
		sc->want_body = 0;
		sc->cur = (long)sc->prog->n_kernels - 1;
		sc->body_depth = sc->depth + 1;
		sc->decls = 1;
	} else if (token(sc)) {
		return -1;
	}
	if (sc->depth == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 16;
		sc->braces =
			wk_xrealloc(sc->braces, sc->cap * sizeof *sc->braces);
	}
	sc->braces[sc->depth++] = (wk_brace){ f->path, f->line };
	return 0;
}

static int close_brace(wk_scanner *sc, const wk_src *f, size_t base)
{
	if (token(sc))
		return -1;
	if (sc->depth <= base)
		return fail(sc, f->path, f->line,
			    "unbalanced braces: '}' without a '{' before it");
	sc->depth--;
	if (sc->cur >= 0 && sc->depth < sc->body_depth) {
		sc->cur = -1;
		sc->decls = 0;
	}
	return 0;
}

/* WEFT_KERNEL(name) or WEFT_KERNEL_SIMD(name) (the same kernel, written
 * to vectorise on the host): f->i just past the macro's name. */
static int kernel_head(wk_scanner *sc, wk_src *f)
{
	wk_prog *p = sc->prog;
	unsigned line = f->line, nl = 0;
	size_t j, name_at, name_end;
	wk_kernel *k;
	char *name;

	if (token(sc))
		return -1;
	if (sc->cur >= 0)
		return fail(sc, f->path, line,
			    "WEFT_KERNEL inside kernel %s (%s:%u): a kernel "
			    "ends with the '}' closing its body",
			    p->kernels[sc->cur].name, p->kernels[sc->cur].file,
			    p->kernels[sc->cur].line);
	if (sc->depth > 0)
		return fail(sc, f->path, line,
			    "WEFT_KERNEL inside braces opened at %s:%u",
			    sc->braces[sc->depth - 1].file,
			    sc->braces[sc->depth - 1].line);
	j = skip_blank(f, f->i, &nl);
	if (j >= f->n || f->s[j] != '(')
		goto bad;
	name_at = skip_blank(f, j + 1, &nl);
	for (name_end = name_at;
	     name_end < f->n && is_ident((unsigned char)f->s[name_end]);
	     name_end++)
		;
	j = skip_blank(f, name_end, &nl);
	if (name_end == name_at ||
	    !is_ident_start((unsigned char)f->s[name_at]) || j >= f->n ||
	    f->s[j] != ')')
		goto bad;
	name = wk_xstrndup(f->s + name_at, name_end - name_at);
	for (size_t i = 0; i < p->n_kernels; i++)
		if (!strcmp(p->kernels[i].name, name)) {
			fail(sc, f->path, line,
			     "kernel %s is already defined at %s:%u", name,
			     p->kernels[i].file, p->kernels[i].line);
			free(name);
			return -1;
		}
	if (p->n_kernels == p->cap_kernels) {
		p->cap_kernels = p->cap_kernels ? 2 * p->cap_kernels : 8;
		p->kernels = wk_xrealloc(p->kernels,
					 p->cap_kernels * sizeof *p->kernels);
	}
	k = &p->kernels[p->n_kernels++];
	memset(k, 0, sizeof *k);
	k->name = name;
	k->file = f->path;
	k->line = line;
	k->kit = f->kit;
	f->i = j + 1;
	f->line += nl;
	sc->want_body = 1;
	sc->pend_file = f->path;
	sc->pend_line = line;
	return 0;
bad:
	return fail(sc, f->path, line,
		    "WEFT_KERNEL must be followed by (name), the kernel's "
		    "name");
}

/* The arguments of WEFT_BUF from its '(' at j: their starts and ends (at
 * most four are recorded), their count in *n and the index of the closing
 * ')' in *close. -1 when it is never closed. */
static int buf_args(const wk_src *f, size_t j, size_t at[4], size_t end[4],
		    unsigned *n, size_t *close, unsigned *nl)
{
	unsigned depth = 0, k = 0;

	at[0] = j + 1;
	for (j++; j < f->n; j++) {
		char c = f->s[j];
		size_t e;

		if (c == '/' && j + 1 < f->n &&
		    (f->s[j + 1] == '*' || f->s[j + 1] == '/')) {
			e = skip_blank(f, j, nl);
			j = e - 1;
		} else if (c == '"' || c == '\'') {
			e = literal_end(f, j);
			if (!e)
				return -1;
			j = e - 1;
		} else if (c == '\n') {
			(*nl)++;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && depth) {
			depth--;
		} else if (c == ')' || (c == ',' && !depth)) {
			if (k < 4)
				end[k] = j;
			k++;
			if (c == ')')
				break;
			if (k < 4)
				at[k] = j + 1;
		}
	}
	if (j >= f->n)
		return -1;
	*n = k;
	*close = j;
	return 0;
}

/* WEFT_BUF(T, name): f->i is just past WEFT_BUF. */
static int buf_decl(wk_scanner *sc, wk_src *f)
{
	wk_prog *p = sc->prog;
	unsigned line = f->line, nl = 0, n;
	size_t j, close, at[4], end[4];
	wk_kernel *k;
	char *type, *name, slot[32];

	if (pending(sc))
		return -1;
	if (sc->cur < 0)
		return fail(sc, f->path, line,
			    "WEFT_BUF outside a kernel: a kernel declares its "
			    "buffers first in its body");
	k = &p->kernels[sc->cur];
	if (!sc->decls || sc->depth != sc->body_depth)
		return fail(sc, f->path, line,
			    "WEFT_BUF after a statement that is not a "
			    "WEFT_BUF: kernel %s must declare its buffers "
			    "first in its body",
			    k->name);
	j = skip_blank(f, f->i, &nl);
	if (j >= f->n || f->s[j] != '(')
		return fail(sc, f->path, line,
			    "WEFT_BUF must be followed by (T, name)");
	if (buf_args(f, j, at, end, &n, &close, &nl))
		return fail(sc, f->path, line, "WEFT_BUF( is never closed");
	if (n == 3)
		return fail(sc, f->path, line,
			    "slots are numbered by weft-wk: write "
			    "WEFT_BUF(T, name)");
	if (n != 2)
		return fail(sc, f->path, line,
			    "WEFT_BUF takes two arguments: WEFT_BUF(T, name)");
	type = clean_text(f->s + at[0], end[0] - at[0]);
	name = clean_text(f->s + at[1], end[1] - at[1]);
	if (!type[0] || !is_identifier(name)) {
		fail(sc, f->path, line,
		     "WEFT_BUF(%s, %s): write the element type, then the "
		     "buffer's name",
		     type, name);
		goto fail;
	}
	for (unsigned i = 0; i < k->n_bufs; i++)
		if (!strcmp(k->bufs[i].name, name)) {
			fail(sc, f->path, line,
			     "kernel %s already has a buffer named %s (%s:%u)",
			     k->name, name, k->bufs[i].file, k->bufs[i].line);
			goto fail;
		}
	if (k->n_bufs == WK_MAX_BUFS) {
		fail(sc, f->path, line,
		     "kernel %s declares more than %d buffers "
		     "(WEFT_KERNEL_MAX_BUFS)",
		     k->name, WK_MAX_BUFS);
		goto fail;
	}
	k->bufs[k->n_bufs] = (wk_bufdecl){ type, name, f->path, line };
	/* The closing ')' is copied with what follows. */
	flush(sc, f, close);
	snprintf(slot, sizeof slot, ", %u", k->n_bufs);
	put(sc, slot, strlen(slot));
	k->n_bufs++;
	f->i = close + 1;
	f->line += nl;
	sc->want_semi = 1;
	sc->pend_file = f->path;
	sc->pend_line = line;
	return 0;
fail:
	free(type);
	free(name);
	return -1;
}

/* ---- files and includes -------------------------------------------------- */

static int scan_file(wk_scanner *sc, const char *path, const char *from,
		     unsigned from_line, int kit);

/* The path of `name` included from the file shown as `from`: next to it. */
static char *include_path(const char *from, const char *name)
{
	const char *slash = strrchr(from, '/');
	wk_str s = { 0 };

	if (name[0] == '/' || !slash)
		return wk_xstrdup(name);
	wk_str_addn(&s, from, (size_t)(slash - from) + 1);
	wk_str_add(&s, name);
	return s.p;
}

/* The end of the directive starting at j ('#'): its final newline (not
 * consumed) or the end of the file. Adds inner newlines to *nl. */
static size_t directive_end(const wk_src *f, size_t j, unsigned *nl)
{
	while (j < f->n && f->s[j] != '\n') {
		size_t e = j + 1;

		if (f->s[j] == '\\' && j + 1 < f->n && f->s[j + 1] == '\n') {
			(*nl)++;
			e = j + 2;
		} else if (f->s[j] == '/' && j + 1 < f->n &&
			   f->s[j + 1] == '*') {
			e = block_comment_end(f, j);
			e = e ? e : f->n;
			*nl += count_lines(f->s + j, e - j);
		} else if (f->s[j] == '/' && j + 1 < f->n &&
			   f->s[j + 1] == '/') {
			e = line_comment_end(f, j);
			*nl += count_lines(f->s + j, e - j);
		} else if (f->s[j] == '"' || f->s[j] == '\'') {
			e = literal_end(f, j);
			e = e ? e : j + 1;
		}
		j = e;
	}
	return j;
}

/* weft's headers for host code: never in the program text. */
static const char *const host_headers[] = {
	"weft/agents.h",      "weft/backend.h",	   "weft/blocks.h",
	"weft/common.h",      "weft/distribute.h", "weft/env.h",
	"weft/graph.h",	      "weft/grid.h",	   "weft/harness.h",
	"weft/kernel_host.h", "weft/model.h",	   "weft/patches.h",
	"weft/program.h",     "weft/space.h",	   "weft/weft.h",
};

/* "weft/NAME.h" or "weft/NAME.wk", NAME of [a-z0-9_]: a kit file's name. */
static int is_kit_name(const char *name)
{
	const char *p = name + 5, *dot;

	if (strncmp(name, "weft/", 5))
		return 0;
	dot = strrchr(p, '.');
	if (!dot || dot == p || (strcmp(dot, ".h") && strcmp(dot, ".wk")))
		return 0;
	for (; p < dot; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

/* #include <name> (not weft/kernel.h) from f's line `line`: a kit file,
 * inlined like a quoted include; anything else is refused. The result is
 * scan_file's. */
static int kit_include(wk_scanner *sc, const wk_src *f, unsigned line,
		       const char *name)
{
	char *path;
	int rc;

	for (size_t i = 0; i < sizeof host_headers / sizeof *host_headers; i++)
		if (!strcmp(name, host_headers[i]))
			return fail(
				sc, f->path, line,
				"#include <%s>: a header for host C code, "
				"not kernel dialect; kernels include "
				"<weft/kernel.h>, kit files (<weft/math.h>, "
				"<weft/blocks.wk>, ...) and \"files\"",
				name);
	if (!is_kit_name(name))
		return fail(sc, f->path, line,
			    "#include <%s>: the program text must be "
			    "self-contained; include only \"files\" "
			    "(inlined), <weft/kernel.h> and weft's kit files "
			    "(<weft/NAME.h>, <weft/NAME.wk>)",
			    name);
	path = wk_kit_path(sc->prog, name);
	if (!path)
		return fail(sc, f->path, line,
			    "#include <%s>: no such kit file under the -I "
			    "directories nor in %s",
			    name, wk_includedir);
	if (!strcmp(name, "weft/math.h")) {
		wk_prog *p = sc->prog;

		/* Its text, or the empty line of a repeat, starts next. */
		p->math_at = wk_xrealloc(
			p->math_at, (p->n_math_at + 1) * sizeof *p->math_at);
		p->math_at[p->n_math_at++] = p->text_lines + 1;
	}
	rc = scan_file(sc, path, f->path, line, 1);
	free(path);
	return rc;
}

/* #include "name" or <name>, the directive being s[j..end). */
static int include(wk_scanner *sc, wk_src *f, size_t j, size_t end, unsigned nl)
{
	unsigned line = f->line, rest_nl = 0;
	char open, close;
	size_t name_at, name_end, r;
	char *name;
	int rc = 0;

	while (j < end && is_space(f->s[j]))
		j++;
	open = j < end ? f->s[j] : 0;
	close = open == '<' ? '>' : '"';
	if (open != '<' && open != '"')
		return fail(sc, f->path, line,
			    "#include must name a file: \"file\" next to this "
			    "one, or <weft/kernel.h>");
	name_at = j + 1;
	for (name_end = name_at; name_end < end && f->s[name_end] != close &&
				 f->s[name_end] != '\n';
	     name_end++)
		;
	if (name_end >= end || f->s[name_end] != close)
		return fail(sc, f->path, line, "#include: no closing %c",
			    close);
	r = skip_blank(f, name_end + 1, &rest_nl);
	if (r < end || nl)
		return fail(sc, f->path, line,
			    "#include: nothing but a comment may follow the "
			    "file's name, on the same line");
	if (token(sc))
		return -1;
	name = wk_xstrndup(f->s + name_at, name_end - name_at);
	/* The directive's line, its newline included, is replaced. */
	flush(sc, f, f->line_start);
	f->i = end < f->n ? end + 1 : end;
	f->done = f->i;
	f->line_start = f->i;
	f->line += 1;
	if (open == '<' && !strcmp(name, "weft/kernel.h")) {
		put(sc, "\n", 1); /* always at the top */
		free(name);
		return 0;
	}
	if (open == '<')
		rc = kit_include(sc, f, line, name);
	else {
		char *path = include_path(f->path, name);

		rc = scan_file(sc, path, f->path, line, f->kit);
		free(path);
	}
	free(name);
	if (rc < 0)
		return -1;
	if (rc > 0) { /* included before: an empty line */
		put(sc, "\n", 1);
		return 0;
	}
	host_line(sc, f->line, f->path);
	span_open(sc, f->path, f->line, f->kit);
	return 0;
}

/* A directive from '#' at f->i: #include is ours, the rest is copied. */
static int directive(wk_scanner *sc, wk_src *f)
{
	unsigned nl = 0;
	size_t end = directive_end(f, f->i, &nl);
	size_t j = f->i + 1;

	while (j < end && is_space(f->s[j]))
		j++;
	if (end - j >= 7 && !strncmp(f->s + j, "include", 7) &&
	    (j + 7 == end || !is_ident((unsigned char)f->s[j + 7])))
		return include(sc, f, j + 7, end, nl);
	f->i = end;
	f->line += nl;
	return 0;
}

static int scan_src(wk_scanner *sc, wk_src *f)
{
	size_t base = sc->depth;
	int bol = 1; /* only white space since the line began */

	while (f->i < f->n) {
		char c = f->s[f->i], d = f->i + 1 < f->n ? f->s[f->i + 1] : 0;
		size_t j = f->i, e;

		if (c == '\n') {
			f->i++;
			f->line++;
			f->line_start = f->i;
			bol = 1;
		} else if (is_space(c)) {
			f->i++;
		} else if (c == '\\' && d == '\n') {
			f->i += 2;
			f->line++;
		} else if (c == '/' && d == '*') {
			e = block_comment_end(f, j);
			if (!e)
				return fail(sc, f->path, f->line,
					    "unterminated comment");
			f->line += count_lines(f->s + j, e - j);
			f->i = e;
			bol = 0;
		} else if (c == '/' && d == '/') {
			e = line_comment_end(f, j);
			f->line += count_lines(f->s + j, e - j);
			f->i = e;
		} else if (c == '#' && bol) {
			if (directive(sc, f))
				return -1;
		} else if (c == '"' || c == '\'') {
			bol = 0;
			e = literal_end(f, j);
			if (!e)
				return fail(sc, f->path, f->line,
					    "unterminated %s",
					    c == '"' ? "string literal"
						     : "character literal");
			f->i = e;
			if (token(sc))
				return -1;
		} else if (is_ident_start((unsigned char)c)) {
			bol = 0;
			while (j < f->n && is_ident((unsigned char)f->s[j]))
				j++;
			e = f->i;
			f->i = j;
			if (j - e == 8 && !strncmp(f->s + e, "WEFT_BUF", 8)) {
				if (buf_decl(sc, f))
					return -1;
			} else if ((j - e == 11 &&
				    !strncmp(f->s + e, "WEFT_KERNEL", 11)) ||
				   (j - e == 16 &&
				    !strncmp(f->s + e, "WEFT_KERNEL_SIMD",
					     16))) {
				if (kernel_head(sc, f))
					return -1;
			} else if (token(sc)) {
				return -1;
			}
		} else if ((c >= '0' && c <= '9') ||
			   (c == '.' && d >= '0' && d <= '9')) {
			/* A preprocessing number, exponent signs included. */
			bol = 0;
			for (j++; j < f->n; j++) {
				char x = f->s[j];

				if ((x == '+' || x == '-') &&
				    strchr("eEpP", f->s[j - 1]))
					continue;
				if (!is_ident((unsigned char)x) && x != '.')
					break;
			}
			f->i = j;
			if (token(sc))
				return -1;
		} else {
			bol = 0;
			f->i++;
			if (c == '{') {
				if (open_brace(sc, f))
					return -1;
			} else if (c == '}') {
				if (close_brace(sc, f, base))
					return -1;
			} else if (c == ';' && sc->want_semi) {
				sc->want_semi = 0;
			} else if (token(sc)) {
				return -1;
			}
		}
	}
	flush(sc, f, f->n);
	if (f->n && f->s[f->n - 1] != '\n')
		put(sc, "\n", 1);
	if (sc->want_semi)
		return fail(sc, sc->pend_file, sc->pend_line,
			    "WEFT_BUF(...) must be followed by ';'");
	if (sc->want_body)
		return fail(sc, sc->pend_file, sc->pend_line,
			    "WEFT_KERNEL(%s) has no body, { ... }",
			    sc->prog->kernels[sc->prog->n_kernels - 1].name);
	if (sc->depth > base)
		return fail(sc, sc->braces[sc->depth - 1].file,
			    sc->braces[sc->depth - 1].line,
			    "unbalanced braces: this '{' is never closed");
	return 0;
}

/* Read and scan one file. 0 when scanned, 1 when it was included before
 * (nothing done), -1 on failure. `from` and from_line name the #include
 * that brought it, NULL for the kernel file itself. */
static int scan_file(wk_scanner *sc, const char *path, const char *from,
		     unsigned from_line, int kit)
{
	wk_prog *p = sc->prog;
	wk_src f = { .line = 1, .kit = kit };
	char *canon = realpath(path, NULL);
	const char *nul;
	int rc;

	if (!canon) {
		if (from)
			return fail(sc, from, from_line, "cannot read %s: %s",
				    path, strerror(errno));
		snprintf(p->err, sizeof p->err, "weft-wk: cannot read %s: %s",
			 path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < p->n_files; i++)
		if (!strcmp(p->canon[i], canon)) {
			free(canon);
			return 1;
		}
	if (p->n_files == p->cap_files) {
		p->cap_files = p->cap_files ? 2 * p->cap_files : 8;
		p->files =
			wk_xrealloc(p->files, p->cap_files * sizeof *p->files);
		p->canon =
			wk_xrealloc(p->canon, p->cap_files * sizeof *p->canon);
	}
	p->files[p->n_files] = wk_xstrdup(path);
	p->canon[p->n_files] = canon;
	f.path = p->files[p->n_files++];
	f.s = wk_read_file(path, &f.n);
	if (!f.s) {
		if (from)
			return fail(sc, from, from_line, "cannot read %s: %s",
				    path, strerror(errno));
		snprintf(p->err, sizeof p->err, "weft-wk: cannot read %s: %s",
			 path, strerror(errno));
		return -1;
	}
	nul = memchr(f.s, '\0', f.n);
	if (nul) {
		rc = fail(sc, f.path, 1 + count_lines(f.s, (size_t)(nul - f.s)),
			  "a NUL byte: a kernel file is text");
		free((char *)f.s);
		return rc;
	}
	span_close(sc); /* the includer's, reopened after this file */
	host_line(sc, 1, f.path);
	span_open(sc, f.path, 1, kit);
	rc = scan_src(sc, &f);
	span_close(sc);
	if (!from) /* the last line, for messages about the whole file */
		sc->end_line =
			f.n && f.s[f.n - 1] == '\n' ? f.line - 1 : f.line;
	free((char *)f.s);
	return rc;
}

int wk_scan(wk_prog *prog, const char *path)
{
	wk_scanner sc = { .prog = prog, .cur = -1, .span = NO_SPAN };
	int rc;

	rc = scan_file(&sc, path, NULL, 0, 0);
	free(sc.braces);
	if (rc < 0)
		return -1;
	if (!prog->n_kernels)
		return fail(&sc, prog->files[0], sc.end_line,
			    "no kernel: a kernel file defines at least one "
			    "WEFT_KERNEL(name) { ... }");
	return 0;
}

void wk_prog_free(wk_prog *prog)
{
	for (size_t i = 0; i < prog->n_kernels; i++) {
		free(prog->kernels[i].name);
		for (unsigned b = 0; b < prog->kernels[i].n_bufs; b++) {
			free(prog->kernels[i].bufs[b].type);
			free(prog->kernels[i].bufs[b].name);
		}
	}
	free(prog->kernels);
	for (size_t i = 0; i < prog->n_files; i++) {
		free(prog->files[i]);
		free(prog->canon[i]);
	}
	free(prog->files);
	free(prog->canon);
	free(prog->spans);
	free(prog->math_at);
	free(prog->text.p);
}
