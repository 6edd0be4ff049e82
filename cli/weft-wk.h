/*
 * cli/weft-wk.h - what the parts of weft-wk share: the program scanned
 * from a kernel file (weft-wk-scan.c) and handed to the writers of the
 * generated C file and header (weft-wk-emit.c). docs/kernel-tool.md says
 * what the tool takes and gives.
 */
#ifndef WEFT_WK_H
#define WEFT_WK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <weft/program.h>

#define WK_MAX_BUFS WEFT_KERNEL_MAX_BUFS

/* A growable, NUL-terminated byte string. */
typedef struct wk_str {
	char *p;
	size_t len, cap;
} wk_str;

/* One WEFT_BUF(T, name) of a kernel; its slot is its index. */
typedef struct wk_bufdecl {
	char *type; /* T, its whitespace and comments collapsed */
	char *name;
	const char *file;
	unsigned line;
} wk_bufdecl;

typedef struct wk_kernel {
	char *name;
	const char *file; /* where WEFT_KERNEL(name) is written */
	unsigned line;
	int kit; /* written in a kit file (<weft/NAME.h>): may be weft_* */
	wk_bufdecl bufs[WK_MAX_BUFS];
	unsigned n_bufs;
} wk_kernel;

/* A run of program-text lines that come from one file, for the map of
 * the embedded text in the generated file's comment. */
typedef struct wk_span {
	const char *file;
	unsigned first, last; /* lines of the program text, from 1 */
	unsigned from;	      /* the file's line at `first` */
	int kit;	      /* the file is part of weft's kit */
} wk_span;

typedef struct wk_prog {
	const char *name; /* the model name: the prefix of every symbol */

	/* Where <weft/NAME.h> kit files are looked for: the -I directories
	 * in order, then the installed include directory. */
	const char *const *inc;
	size_t n_inc;

	uint32_t needs; /* WEFT_CAP_* the program text needs */
	/* The lines of `text` where <weft/math.h> was included (its #line
	 * directive, or the empty line of a repeated include): it needs
	 * WEFT_CAP_F64 unless a WEFT_HAS_F64 test guards it (weft-wk-check.c
	 * reads the conditionals). */
	unsigned *math_at;
	size_t n_math_at;

	/* The rewritten kernel text, with #line directives to the original
	 * files: the host build, and the program text after weft/kernel.h. */
	wk_str text;
	unsigned text_lines; /* lines in `text` so far */
	wk_span *spans;
	size_t n_spans, cap_spans;

	wk_kernel *kernels;
	size_t n_kernels, cap_kernels;

	/* Every path the program read (main file first); they own the
	 * strings that kernels, buffers and braces point to. */
	char **files; /* as shown in messages and #line directives */
	char **canon; /* realpath(), to include each file once */
	size_t n_files, cap_files;

	char err[1024]; /* "FILE:LINE: what is wrong" once something failed */
} wk_prog;

/* ---- weft-wk.c ----------------------------------------------------------- */

void *wk_xalloc(size_t n);
void *wk_xrealloc(void *p, size_t n);
char *wk_xstrdup(const char *s);
char *wk_xstrndup(const char *s, size_t n);
void wk_str_addn(wk_str *s, const char *p, size_t n);
void wk_str_add(wk_str *s, const char *p);
void wk_str_printf(wk_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole file; NULL with errno set when it cannot be read. */
char *wk_read_file(const char *path, size_t *len);

/* The path of the kit file `name` (e.g. "weft/math.h") under prog->inc,
 * then the installed include directory, or NULL when it is in none of
 * them. Caller frees. */
char *wk_kit_path(const wk_prog *prog, const char *name);
/* The installed include directory, for messages. */
extern const char wk_includedir[];

/* ---- weft-wk-scan.c ------------------------------------------------------ */

/* Scan the kernel file `path` into prog (name already set): inline its
 * includes, number its buffers, collect its kernels. 0, or -1 with
 * prog->err set. */
int wk_scan(wk_prog *prog, const char *path);
void wk_prog_free(wk_prog *prog);

/* ---- weft-wk-check.c ----------------------------------------------------- */

/* Read the scanned program text: set prog->needs (the WEFT_CAP_* bits its
 * tokens need) and refuse what OpenCL C or CUDA reserve and what is not in
 * the dialect. 0, or -1 with prog->err set ("FILE:LINE: ..."). */
int wk_check_text(wk_prog *prog);

/* ---- weft-wk-emit.c ------------------------------------------------------ */

/* The identifier base of kernel k's generated names: the kernel name when
 * it starts with "NAME_", else "NAME_" followed by it. Caller frees. */
char *wk_kernel_base(const wk_prog *prog, const wk_kernel *k);
/* Its index constant: NAME_K_ then the upper-cased kernel name without a
 * leading "NAME_". Caller frees. */
char *wk_kernel_enum(const wk_prog *prog, const wk_kernel *k);

/* Refuse kernel names that would clash with weft's names or with each
 * other once turned into generated names. 0, or -1 with prog->err set. */
int wk_check_names(wk_prog *prog);

/* The generated C file and header, whole, into out. kernel_h is the text
 * of weft/kernel.h (found at kernel_h_path); c_path is where the C file
 * goes (its own #line directive names it). */
void wk_emit_c(wk_str *out, const wk_prog *prog, const char *kernel_h,
	       const char *kernel_h_path, const char *c_path);
void wk_emit_h(wk_str *out, const wk_prog *prog);

#endif /* WEFT_WK_H */
