/*
 * cli/weft-wk-check.c - weft-wk's checks of the program text once it is
 * scanned: what the text needs of a device (weft_program_desc.needs) and
 * what the kernel dialect leaves out because a target refuses it.
 *
 * The text is read as tokens: comments, string and character literals are
 * skipped, and of the preprocessor directives #define is read as code (its
 * name and its body) and the conditionals (#if ... #endif) are followed:
 * a group of #if 0 is neither checked nor counted, and the groups of a
 * chain that tests WEFT_HAS_F64 (WEFT_HAS_ATOMIC64) are written for
 * devices with and without doubles (64-bit atomics), so their tokens need
 * no WEFT_CAP_F64 (WEFT_CAP_ATOMIC64). Every other directive (#pragma,
 * #error, ...) is left alone. Each line of the text is mapped back to its
 * file and line through prog->spans, so a refusal names FILE:LINE of the
 * kernel file or of the included file it is in.
 *
 * Refused, anywhere in code:
 *  - names that OpenCL C or CUDA reserve (half, uint, float4, global,
 *    kernel, threadIdx, class, ...): the text compiles on the host but
 *    not on that target;
 *  - types whose width or meaning differs between host and devices
 *    (double, float, long, bool, size_t, ...), with the dialect's type;
 *  - function pointers, and calls of C library functions (libm's sin,
 *    sqrt, ... with weft/math.h's function to use instead);
 *  - names that begin with __ or weft__: they are the implementation's
 *    (preludes and weft's kit files use them).
 * Only the model's own files are checked: weft's kit files (included as
 * <weft/NAME.h>) are the implementation, with branches per target that
 * use each target's own names; they count for `needs` all the same.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/backend.h>

#include "weft-wk.h"

/* ---- tokens -------------------------------------------------------------- */

typedef enum wk_tok_kind {
	TOK_IDENT,
	TOK_NUMBER,
	TOK_PUNCT,
	TOK_END /* the end of a #define: no construct spans it */
} wk_tok_kind;

typedef struct wk_tok {
	wk_tok_kind kind;
	const char *s;
	size_t n;
	unsigned line; /* line of the program text, from 1 */
	int defined;   /* the name a #define defines */
	unsigned cond; /* COND_* of the groups the token is in */
} wk_tok;

/* What a token's preprocessor groups say of it (wk_tok.cond): it is in a
 * group of a chain (#if, #elif, ..., #else, #endif) whose tests named
 * WEFT_HAS_F64, or WEFT_HAS_ATOMIC64, at or before the group. */
#define COND_F64      0x1u
#define COND_ATOMIC64 0x2u

/* One conditional chain open where the lexer is. */
typedef struct wk_cond {
	unsigned tests; /* COND_* of what its tests named so far */
	int taken;	/* a group before this one is always taken (#if 1) */
	int dead;	/* this group is never compiled (#if 0) */
} wk_cond;

typedef struct wk_toks {
	wk_tok *t;
	size_t n, cap;
	wk_cond *conds; /* the open chains, innermost last */
	size_t depth, cap_conds;
	unsigned cond; /* COND_* where the lexer is */
	int dead;      /* in a group never compiled: its tokens are dropped */
	const unsigned *math_at; /* wk_prog.math_at */
	size_t n_math_at;
	uint32_t needs; /* of the includes of <weft/math.h> */
} wk_toks;

static void tok_add(wk_toks *v, wk_tok t)
{
	if (v->dead)
		return;
	t.cond = v->cond;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->t = wk_xrealloc(v->t, v->cap * sizeof *v->t);
	}
	v->t[v->n++] = t;
}

static int id_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int id_char(int c)
{
	return id_start(c) || (c >= '0' && c <= '9');
}

static size_t directive(wk_toks *v, const char *s, size_t n, size_t i,
			unsigned *line);

/* Text line `line` starts: where <weft/math.h> was included, it needs
 * hardware double unless a WEFT_HAS_F64 test guards it, and subnormals
 * kept (its functions compute floats) unless it is in a dead group. */
static void math_line(wk_toks *v, unsigned line)
{
	for (size_t k = 0; k < v->n_math_at; k++)
		if (v->math_at[k] == line && !v->dead)
			v->needs |= WEFT_CAP_SUBNORMAL |
				    (v->cond & COND_F64 ? 0u : WEFT_CAP_F64);
}

/* The text from i as tokens, up to the end of the text or, in a directive
 * (dir set), the end of the directive's line. The index where it stopped
 * (a newline in a directive). *line counts the newlines passed. */
static size_t lex(wk_toks *v, const char *s, size_t n, size_t i, unsigned *line,
		  int dir)
{
	int bol = !dir;

	while (i < n) {
		char c = s[i], d = i + 1 < n ? s[i + 1] : 0;
		size_t j;

		if (c == '\n') {
			if (dir)
				return i;
			(*line)++;
			i++;
			bol = 1;
			math_line(v, *line);
		} else if (c == '\\' && d == '\n') {
			(*line)++;
			i += 2;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			i++;
		} else if (c == '/' && d == '*') {
			for (i += 2; i < n && !(s[i] == '*' && i + 1 < n &&
						s[i + 1] == '/');
			     i++)
				*line += s[i] == '\n';
			i = i < n ? i + 2 : n;
		} else if (c == '/' && d == '/') {
			while (i < n && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < n &&
				    s[i + 1] == '\n') {
					(*line)++;
					i++;
				}
				i++;
			}
		} else if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c && s[i] != '\n'; i++)
				if (s[i] == '\\' && i + 1 < n)
					i++;
			i = i < n && s[i] == c ? i + 1 : i;
			bol = 0;
		} else if (c == '#' && bol) {
			i = directive(v, s, n, i + 1, line);
		} else if (id_start((unsigned char)c)) {
			for (j = i; j < n && id_char((unsigned char)s[j]); j++)
				;
			tok_add(v, (wk_tok){ TOK_IDENT, s + i, j - i, *line, 0,
					     0 });
			i = j;
			bol = 0;
		} else if ((c >= '0' && c <= '9') ||
			   (c == '.' && d >= '0' && d <= '9')) {
			for (j = i + 1; j < n; j++) {
				if ((s[j] == '+' || s[j] == '-') &&
				    strchr("eEpP", s[j - 1]))
					continue;
				if (!id_char((unsigned char)s[j]) &&
				    s[j] != '.')
					break;
			}
			tok_add(v, (wk_tok){ TOK_NUMBER, s + i, j - i, *line, 0,
					     0 });
			i = j;
			bol = 0;
		} else {
			tok_add(v,
				(wk_tok){ TOK_PUNCT, s + i, 1, *line, 0, 0 });
			i++;
			bol = 0;
		}
	}
	return i;
}

static int word_is(const char *w, size_t n, const char *what)
{
	return strlen(what) == n && !strncmp(w, what, n);
}

/* The conditional directive w (n bytes: "if", "elif", "endif", ...) whose
 * tokens are e: the chains open and what their groups say (v->cond,
 * v->dead). Other directives change nothing. */
static void conditional(wk_toks *v, const char *w, size_t n, const wk_toks *e)
{
	unsigned tests = 0;
	int zero = 0, one = 0, is_if = word_is(w, n, "if");
	int is_elif = word_is(w, n, "elif");
	wk_cond *c;

	for (size_t k = 0; k < e->n; k++) {
		const wk_tok *t = &e->t[k];

		if (t->kind == TOK_IDENT && t->n == 12 &&
		    !strncmp(t->s, "WEFT_HAS_F64", 12))
			tests |= COND_F64;
		else if (t->kind == TOK_IDENT && t->n == 17 &&
			 !strncmp(t->s, "WEFT_HAS_ATOMIC64", 17))
			tests |= COND_ATOMIC64;
	}
	if (e->n == 1 && e->t[0].kind == TOK_NUMBER && e->t[0].n == 1) {
		zero = e->t[0].s[0] == '0';
		one = e->t[0].s[0] == '1';
	}
	if (is_if || word_is(w, n, "ifdef") || word_is(w, n, "ifndef")) {
		if (v->depth == v->cap_conds) {
			v->cap_conds = v->cap_conds ? 2 * v->cap_conds : 16;
			v->conds = wk_xrealloc(v->conds,
					       v->cap_conds * sizeof *v->conds);
		}
		v->conds[v->depth++] =
			(wk_cond){ tests, is_if && one, is_if && zero };
	} else if (!v->depth) {
		return; /* #elif, #else, #endif without #if: compilers say so */
	} else if (is_elif || word_is(w, n, "elifdef") ||
		   word_is(w, n, "elifndef")) {
		c = &v->conds[v->depth - 1];
		c->tests |= tests;
		c->dead = c->taken || (is_elif && zero);
		c->taken |= is_elif && one;
	} else if (word_is(w, n, "else")) {
		c = &v->conds[v->depth - 1];
		c->dead = c->taken;
	} else if (word_is(w, n, "endif")) {
		v->depth--;
	} else {
		return;
	}
	v->cond = 0;
	v->dead = 0;
	for (size_t k = 0; k < v->depth; k++) {
		v->cond |= v->conds[k].tests;
		v->dead |= v->conds[k].dead;
	}
}

/* The directive whose '#' is just before i: a #define is read as code
 * (its name marked); of any other the tokens are read, past comments
 * (a // one too) and literals, for the conditionals only. Returns the
 * index of the newline that ends it (or n). */
static size_t directive(wk_toks *v, const char *s, size_t n, size_t i,
			unsigned *line)
{
	wk_toks e = { 0 };
	size_t j, first;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	for (j = i; j < n && id_char((unsigned char)s[j]); j++)
		;
	if (j - i == 6 && !strncmp(s + i, "define", 6)) {
		first = v->n;
		i = lex(v, s, n, j, line, 1);
		if (v->n > first && v->t[first].kind == TOK_IDENT)
			v->t[first].defined = 1;
		tok_add(v, (wk_tok){ TOK_END, s + i, 0, *line, 0, 0 });
		return i;
	}
	first = i;
	i = lex(&e, s, n, j, line, 1);
	conditional(v, s + first, j - first, &e);
	free(e.t);
	return i;
}

/* ---- what is refused ----------------------------------------------------- */

typedef struct wk_word {
	const char *name;
	const char *why; /* the message after "'NAME' " */
} wk_word;

#define OCL_TYPE "is reserved in OpenCL C (a type name); rename it"
#define OCL_KW	 "is reserved in OpenCL C (a keyword); rename it"
#define OCL_AS	 "is reserved in OpenCL C (an address space); rename it"
#define CUDA_KW	 "is reserved in CUDA (a keyword); rename it"
#define CUDA_VAR "is reserved in CUDA (a built-in variable); rename it"
#define CXX_KW	 "is reserved in CUDA (a C++ keyword); rename it"

static const wk_word reserved[] = {
	{ "half", OCL_TYPE },
	{ "uchar", OCL_TYPE },
	{ "ushort", OCL_TYPE },
	{ "uint", OCL_TYPE },
	{ "ulong", OCL_TYPE },
	{ "quad", OCL_TYPE },
	{ "sampler_t", OCL_TYPE },
	{ "event_t", OCL_TYPE },
	{ "queue_t", OCL_TYPE },
	{ "ndrange_t", OCL_TYPE },
	{ "clk_event_t", OCL_TYPE },
	{ "reserve_id_t", OCL_TYPE },
	{ "cl_mem_fence_flags", OCL_TYPE },
	{ "kernel", OCL_KW },
	{ "__kernel", OCL_KW },
	{ "read_only", OCL_KW },
	{ "write_only", OCL_KW },
	{ "read_write", OCL_KW },
	{ "__read_only", OCL_KW },
	{ "__write_only", OCL_KW },
	{ "__read_write", OCL_KW },
	{ "uniform", OCL_KW },
	{ "pipe", OCL_KW },
	{ "global", OCL_AS },
	{ "local", OCL_AS },
	{ "constant", OCL_AS },
	{ "private", OCL_AS },
	{ "generic", OCL_AS },
	{ "__global", OCL_AS },
	{ "__local", OCL_AS },
	{ "__constant", OCL_AS },
	{ "__private", OCL_AS },
	{ "__generic", OCL_AS },
	{ "__device__", CUDA_KW },
	{ "__global__", CUDA_KW },
	{ "__shared__", CUDA_KW },
	{ "__host__", CUDA_KW },
	{ "__constant__", CUDA_KW },
	{ "__managed__", CUDA_KW },
	{ "__forceinline__", CUDA_KW },
	{ "__noinline__", CUDA_KW },
	{ "__restrict__", CUDA_KW },
	{ "threadIdx", CUDA_VAR },
	{ "blockIdx", CUDA_VAR },
	{ "blockDim", CUDA_VAR },
	{ "gridDim", CUDA_VAR },
	{ "warpSize", CUDA_VAR },
	{ "alignas", CXX_KW },
	{ "alignof", CXX_KW },
	{ "and", CXX_KW },
	{ "and_eq", CXX_KW },
	{ "asm", CXX_KW },
	{ "bitand", CXX_KW },
	{ "bitor", CXX_KW },
	{ "catch", CXX_KW },
	{ "char16_t", CXX_KW },
	{ "char32_t", CXX_KW },
	{ "class", CXX_KW },
	{ "compl", CXX_KW },
	{ "concept", CXX_KW },
	{ "consteval", CXX_KW },
	{ "constexpr", CXX_KW },
	{ "constinit", CXX_KW },
	{ "const_cast", CXX_KW },
	{ "decltype", CXX_KW },
	{ "delete", CXX_KW },
	{ "dynamic_cast", CXX_KW },
	{ "explicit", CXX_KW },
	{ "export", CXX_KW },
	{ "friend", CXX_KW },
	{ "mutable", CXX_KW },
	{ "namespace", CXX_KW },
	{ "new", CXX_KW },
	{ "noexcept", CXX_KW },
	{ "not", CXX_KW },
	{ "not_eq", CXX_KW },
	{ "nullptr", CXX_KW },
	{ "operator", CXX_KW },
	{ "or", CXX_KW },
	{ "or_eq", CXX_KW },
	{ "protected", CXX_KW },
	{ "public", CXX_KW },
	{ "reinterpret_cast", CXX_KW },
	{ "requires", CXX_KW },
	{ "static_assert", CXX_KW },
	{ "static_cast", CXX_KW },
	{ "template", CXX_KW },
	{ "this", CXX_KW },
	{ "thread_local", CXX_KW },
	{ "throw", CXX_KW },
	{ "try", CXX_KW },
	{ "typeid", CXX_KW },
	{ "typename", CXX_KW },
	{ "using", CXX_KW },
	{ "virtual", CXX_KW },
	{ "wchar_t", CXX_KW },
	{ "xor", CXX_KW },
	{ "xor_eq", CXX_KW },
	/* Not the dialect: each has the dialect's way instead. */
	{ "double", "is not in the kernel dialect: write weft_f64 (hardware "
		    "binary64 where the device has it)" },
	{ "float", "is not in the kernel dialect: write weft_f32" },
	{ "long", "is not in the kernel dialect (32 bits on some hosts, 64 "
		  "on devices): write weft_i64 or weft_u64" },
	{ "bool", "is not in the kernel dialect (its size differs between "
		  "targets and C needs a header for it): use an integer type, "
		  "weft_u8 or weft_u32" },
	{ "_Bool", "is not in the kernel dialect (its size differs between "
		   "targets): use an integer type, weft_u8 or weft_u32" },
	{ "true", "is not in the kernel dialect (C has no bool without a "
		  "header): write 1" },
	{ "false", "is not in the kernel dialect (C has no bool without a "
		   "header): write 0" },
	{ "_Complex", "is not in the kernel dialect" },
	{ "_Atomic", "is not in the kernel dialect: use weft_atomic_* on "
		     "buffers" },
	{ "_Thread_local", "is not in the kernel dialect" },
};

/* C library functions: refused when called (or declared) as functions. */
static const char *const libm_names[] = {
	"acos",	     "acosh",	"asin",	     "asinh",	 "atan",  "atan2",
	"atanh",     "cbrt",	"ceil",	     "copysign", "cos",	  "cosh",
	"erf",	     "erfc",	"exp",	     "exp10",	 "exp2",  "expm1",
	"fabs",	     "fdim",	"floor",     "fma",	 "fmax",  "fmin",
	"fmod",	     "frexp",	"hypot",     "ilogb",	 "ldexp", "lgamma",
	"llrint",    "llround", "log",	     "log10",	 "log1p", "log2",
	"logb",	     "lrint",	"lround",    "modf",	 "nan",	  "nearbyint",
	"nextafter", "pow",	"remainder", "remquo",	 "rint",  "round",
	"rsqrt",     "scalbn",	"sin",	     "sincos",	 "sinh",  "sqrt",
	"tan",	     "tanh",	"tgamma",    "trunc",	 "isnan", "isinf",
	"isfinite",  "signbit", "abs",	     "labs",
};

static const char *const libc_names[] = {
	"printf", "fprintf", "sprintf", "snprintf", "puts",   "putchar",
	"malloc", "calloc",  "realloc", "free",	    "abort",  "exit",
	"assert", "memcpy",  "memset",	"memmove",  "memcmp", "strlen",
	"strcmp", "strcpy",  "rand",	"srand",    "qsort",  "bsearch",
	"atoi",	  "atof",    "strtol",	"strtod",   "time",   "clock",
};

static int tok_is(const wk_tok *t, const char *w)
{
	return strlen(w) == t->n && !strncmp(t->s, w, t->n);
}

static int punct(const wk_tok *t, char c)
{
	return t->kind == TOK_PUNCT && t->s[0] == c;
}

/* OpenCL's vector types, charN ... doubleN, N of 2, 3, 4, 8, 16. */
static int vector_type(const wk_tok *t)
{
	static const char *const base[] = { "char",   "uchar", "short",
					    "ushort", "int",   "uint",
					    "long",   "ulong", "float",
					    "double", "half",  "bool" };

	for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
		size_t k = strlen(base[i]);
		const char *r = t->s + k;
		size_t rn = t->n - k;

		if (t->n <= k || strncmp(t->s, base[i], k))
			continue;
		if ((rn == 1 && strchr("234", r[0])) ||
		    (rn == 1 && r[0] == '8') ||
		    (rn == 2 && r[0] == '1' && r[1] == '6'))
			return 1;
	}
	return 0;
}

/* OpenCL's image types: image1d_t, image2d_array_depth_t, ... */
static int image_type(const wk_tok *t)
{
	return t->n > 7 && !strncmp(t->s, "image", 5) && t->s[5] >= '1' &&
	       t->s[5] <= '3' && !strncmp(t->s + t->n - 2, "_t", 2);
}

static int in_list(const wk_tok *t, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tok_is(t, list[i]))
			return 1;
	return 0;
}

/* A float literal: a decimal with '.' or an exponent, a hex with 'p'. */
static int float_literal(const wk_tok *t)
{
	int hex = t->n > 1 && t->s[0] == '0' &&
		  (t->s[1] == 'x' || t->s[1] == 'X');

	for (size_t i = 0; i < t->n; i++) {
		char c = t->s[i];

		if (c == '.' || (hex && (c == 'p' || c == 'P')) ||
		    (!hex && (c == 'e' || c == 'E')))
			return 1;
	}
	return 0;
}

/* ---- the check ----------------------------------------------------------- */

/* The file, its line and whether it is a kit file, of text line `line`. */
static const wk_span *span_of(const wk_prog *p, unsigned line)
{
	for (size_t i = 0; i < p->n_spans; i++)
		if (line >= p->spans[i].first && line <= p->spans[i].last)
			return &p->spans[i];
	return NULL;
}

static int refuse(wk_prog *p, const wk_tok *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(wk_prog *p, const wk_tok *t, const char *fmt, ...)
{
	const wk_span *sp = span_of(p, t->line);
	const char *file = sp ? sp->file : p->files[0];
	unsigned line = sp ? sp->from + (t->line - sp->first) : t->line;
	int k = snprintf(p->err, sizeof p->err, "%s:%u: ", file, line);
	va_list ap;

	if (k < 0 || (size_t)k >= sizeof p->err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + k, sizeof p->err - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

/* A libm function (its name without the f or l suffix is base_n long):
 * weft/math.h has the dialect's, identical on every backend. */
static int libm_refuse(wk_prog *p, const wk_tok *t, size_t base_n)
{
	char *path = wk_kit_path(p, "weft/math.h");
	char *math = NULL, name[64];
	size_t len, n = 0;

	if (path)
		math = wk_read_file(path, &len);
	free(path);
	/* weft_sqrtf for sqrtf, weft_sin for sinl: the one math.h defines */
	for (size_t k = t->n; math && !n && k >= base_n && k > 0; k--) {
		snprintf(name, sizeof name, "weft_%.*s(", (int)k, t->s);
		for (const char *at = strstr(math, name); at && !n;
		     at = strstr(at + 1, name))
			if (at == math || !id_char((unsigned char)at[-1]))
				n = k;
	}
	free(math);
	if (n)
		return refuse(p, t,
			      "'%.*s' is a C library function, not in the "
			      "kernel dialect (its results differ between "
			      "targets): use <weft/math.h>'s weft_%.*s, the "
			      "same bits on every backend",
			      (int)t->n, t->s, (int)n, t->s);
	return refuse(p, t,
		      "'%.*s' is a C library function, not in the kernel "
		      "dialect (its results differ between targets), nor in "
		      "<weft/math.h>: write it with the dialect's arithmetic",
		      (int)t->n, t->s);
}

/* What an identifier needs of the device. Exact floats need subnormals
 * kept too (a device that flushes them gives other bits); code in a group
 * of a WEFT_HAS_F64 (WEFT_HAS_ATOMIC64) test is written to compile
 * without doubles (64-bit atomics), but computes with them where the
 * device has them. */
static void ident_needs(wk_prog *p, const wk_tok *t)
{
	if (tok_is(t, "weft_f64"))
		p->needs |= WEFT_CAP_SUBNORMAL |
			    (t->cond & COND_F64 ? 0u : WEFT_CAP_F64);
	else if (tok_is(t, "weft_f32"))
		p->needs |= WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL;
	else if (tok_is(t, "weft_atomic_add_u64") && !(t->cond & COND_ATOMIC64))
		p->needs |= WEFT_CAP_ATOMIC64;
}

/* Names that begin with __ and are the language's: allowed. */
static const char *const std_names[] = {
	"__VA_ARGS__",	   "__LINE__", "__FILE__",
	"__func__",	   "__STDC__", "__STDC_VERSION__",
	"__STDC_HOSTED__", "__DATE__", "__TIME__",
};

/* One target's own macros: tested in #if lines (which are not checked),
 * refused elsewhere, where they exist on one target only. */
static const char *const target_macros[] = {
	"__OPENCL_VERSION__", "__OPENCL_C_VERSION__",
	"__CUDACC__",	      "__CUDA_ARCH__",
	"__NVCC__",
};

/* Refuse identifier t (the i-th of v) when the dialect does; next is the
 * token after it or NULL. */
static int check_ident(wk_prog *p, const wk_tok *t, const wk_tok *next)
{
	int call = next && punct(next, '(');

	for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
		if (tok_is(t, reserved[i].name))
			return refuse(p, t, "'%s' %s", reserved[i].name,
				      reserved[i].why);
	if (vector_type(t) || image_type(t))
		return refuse(p, t, "'%.*s' %s", (int)t->n, t->s, OCL_TYPE);
	if (in_list(t, target_macros,
		    sizeof target_macros / sizeof *target_macros))
		return refuse(p, t,
			      "'%.*s' is defined on one target only: test it "
			      "in #if, #ifdef or #elif lines",
			      (int)t->n, t->s);
	if (in_list(t, std_names, sizeof std_names / sizeof *std_names))
		return 0;
	if ((t->n > 2 && !strncmp(t->s, "__", 2)) ||
	    (t->n > 6 && !strncmp(t->s, "weft__", 6)))
		return refuse(p, t,
			      "'%.*s' is reserved for the implementation "
			      "(names that begin with __ or weft__); rename "
			      "it",
			      (int)t->n, t->s);
	if ((call || t->defined) &&
	    in_list(t, libm_names, sizeof libm_names / sizeof *libm_names))
		return libm_refuse(p, t, t->n);
	if ((call || t->defined) &&
	    in_list(t, libc_names, sizeof libc_names / sizeof *libc_names))
		return refuse(p, t,
			      "'%.*s' is a C library function: kernels have "
			      "no C library",
			      (int)t->n, t->s);
	return 0;
}

/* sinf, sinl, sqrtf, ... as libm names too. */
static int libm_suffixed(const wk_tok *t)
{
	wk_tok u = *t;

	if (t->n < 4 || (t->s[t->n - 1] != 'f' && t->s[t->n - 1] != 'l'))
		return 0;
	u.n--;
	return in_list(&u, libm_names, sizeof libm_names / sizeof *libm_names);
}

/* A buffer's element type must have one width everywhere: not size_t
 * and kin, whose width is the host's or the device's. */
static int check_buf_types(wk_prog *p)
{
	static const char *const widths[] = { "size_t", "ptrdiff_t", "intptr_t",
					      "uintptr_t" };

	for (size_t k = 0; k < p->n_kernels; k++)
		for (unsigned b = 0; b < p->kernels[k].n_bufs; b++) {
			const wk_bufdecl *d = &p->kernels[k].bufs[b];
			wk_toks v = { 0 };
			unsigned line = 1;

			lex(&v, d->type, strlen(d->type), 0, &line, 0);
			for (size_t i = 0; i < v.n; i++) {
				if (v.t[i].kind != TOK_IDENT ||
				    !in_list(&v.t[i], widths,
					     sizeof widths / sizeof *widths))
					continue;
				snprintf(p->err, sizeof p->err,
					 "%s:%u: buffer %s of kernel %s: %.*s "
					 "is as wide as the host's or the "
					 "device's pointers, which differ; "
					 "write weft_u32 or weft_u64",
					 d->file, d->line, d->name,
					 p->kernels[k].name, (int)v.t[i].n,
					 v.t[i].s);
				free(v.t);
				return -1;
			}
			free(v.t);
		}
	return 0;
}

int wk_check_text(wk_prog *p)
{
	wk_toks v = { 0 };
	unsigned line = 1;
	int rc = 0;

	if (check_buf_types(p))
		return -1;
	v.math_at = p->math_at;
	v.n_math_at = p->n_math_at;
	lex(&v, p->text.p, p->text.len, 0, &line, 0);
	free(v.conds);
	p->needs |= v.needs;
	for (size_t i = 0; i < v.n && !rc; i++) {
		const wk_tok *t = &v.t[i];
		const wk_tok *next = i + 1 < v.n ? &v.t[i + 1] : NULL;

		const wk_span *sp = span_of(p, t->line);

		if (t->kind == TOK_NUMBER && float_literal(t))
			p->needs |= WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL;
		if (t->kind == TOK_IDENT)
			ident_needs(p, t);
		/* Kit files are weft's own, with branches per target. */
		if ((t->kind != TOK_IDENT && t->kind != TOK_PUNCT) ||
		    (sp && sp->kit))
			continue;
		if (t->kind == TOK_IDENT) {
			rc = check_ident(p, t, next);
			if (!rc && libm_suffixed(t) &&
			    ((next && punct(next, '(')) || t->defined))
				rc = libm_refuse(p, t, t->n - 1);
			continue;
		}
		/* ( * name ) ( : a function pointer */
		if (punct(t, '(') && i + 4 < v.n && punct(&v.t[i + 1], '*') &&
		    v.t[i + 2].kind == TOK_IDENT && punct(&v.t[i + 3], ')') &&
		    punct(&v.t[i + 4], '('))
			rc = refuse(p, &v.t[i + 2],
				    "(*%.*s)(...): function pointers are not "
				    "in the kernel dialect (OpenCL C has none)",
				    (int)v.t[i + 2].n, v.t[i + 2].s);
	}
	free(v.t);
	return rc;
}
