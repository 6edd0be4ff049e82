/*
 * cli/weft-wk-emit.c - what weft-wk writes from a scanned kernel file: the
 * C file with the host builds, the program text, the program descriptor
 * and the kernels' signatures (NAME_kernels.c), and the header that the
 * model's host code includes (NAME_kernels.h). docs/kernel-tool.md shows
 * both for an example.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/backend.h>

#include "weft-wk.h"

#define HIDDEN "__attribute__((visibility(\"hidden\")))"

/* ---- names --------------------------------------------------------------- */

/* The kernel's name without the model's prefix "NAME_", or all of it. */
static const char *short_name(const wk_prog *prog, const wk_kernel *k)
{
	size_t n = strlen(prog->name);

	if (!strncmp(k->name, prog->name, n) && k->name[n] == '_' &&
	    k->name[n + 1])
		return k->name + n + 1;
	return k->name;
}

char *wk_kernel_base(const wk_prog *prog, const wk_kernel *k)
{
	wk_str s = { 0 };

	if (short_name(prog, k) != k->name ||
	    (k->kit && !strncmp(k->name, "weft_", 5)))
		wk_str_add(&s, k->name);
	else
		wk_str_printf(&s, "%s_%s", prog->name, k->name);
	return s.p;
}

static void add_upper(wk_str *s, const char *p)
{
	for (; *p; p++) {
		char c = (char)toupper((unsigned char)*p);

		wk_str_addn(s, &c, 1);
	}
}

char *wk_kernel_enum(const wk_prog *prog, const wk_kernel *k)
{
	wk_str s = { 0 };

	add_upper(&s, prog->name);
	wk_str_add(&s, "_K_");
	add_upper(&s, short_name(prog, k));
	return s.p;
}

static int name_error(wk_prog *prog, const wk_kernel *k, const char *fmt,
		      const char *arg)
{
	int n = snprintf(prog->err, sizeof prog->err,
			 "%s:%u: kernel %s: ", k->file, k->line, k->name);

	if (n > 0 && (size_t)n < sizeof prog->err)
		snprintf(prog->err + n, sizeof prog->err - (size_t)n, fmt, arg);
	return -1;
}

int wk_check_names(wk_prog *prog)
{
	size_t n = strlen(prog->name);

	for (size_t i = 0; i < prog->n_kernels; i++) {
		const wk_kernel *k = &prog->kernels[i];
		const char *s = k->name, *taken = NULL;
		size_t len = strlen(s);
		char *base, *en;

		if (s[0] == '_' || s[len - 1] == '_' || strstr(s, "__"))
			return name_error(prog, k,
					  "a kernel's name must not begin or "
					  "end with '_' nor hold '%s' (those "
					  "names are weft's)",
					  "__");
		if ((!strncmp(s, "weft_", 5) && !k->kit) ||
		    !strncmp(s, "WEFT_", 5))
			return name_error(prog, k,
					  "names that begin with %s are the "
					  "dialect's (its kit files' kernels)",
					  k->kit ? "WEFT_" : "weft_");
		if (!strncmp(s, prog->name, n) && s[n] == '_' &&
		    (!strcmp(s + n + 1, "program") ||
		     !strcmp(s + n + 1, "sigs")))
			return name_error(prog, k,
					  "%s is the name of a generated "
					  "symbol",
					  s);
		base = wk_kernel_base(prog, k);
		en = wk_kernel_enum(prog, k);
		for (size_t j = 0; j < i && !taken; j++) {
			char *b2 = wk_kernel_base(prog, &prog->kernels[j]);
			char *e2 = wk_kernel_enum(prog, &prog->kernels[j]);

			if (!strcmp(base, b2) || !strcmp(en, e2))
				taken = prog->kernels[j].name;
			free(b2);
			free(e2);
		}
		if (taken) {
			char what[256];

			snprintf(what, sizeof what,
				 "its generated names (%s_launch, %s) are "
				 "those of kernel %s",
				 base, en, taken);
			free(base);
			free(en);
			return name_error(prog, k, "%s", what);
		}
		free(base);
		free(en);
	}
	return 0;
}

/* ---- helpers ------------------------------------------------------------- */

static unsigned count_nl(const char *s, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* A file name inside a C comment: never "*" "/". */
static void add_in_comment(wk_str *o, const char *s)
{
	for (; *s; s++) {
		wk_str_addn(o, s, 1);
		if (s[0] == '*' && s[1] == '/')
			wk_str_addn(o, " ", 1);
	}
}

/* s[0..n) as C string literals, one per line of the text. */
static void add_c_lines(wk_str *o, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		char prev = 0;

		wk_str_add(o, "\t\"");
		for (; i < n && s[i] != '\n'; i++) {
			unsigned char c = (unsigned char)s[i];
			char esc[8];

			if (c == '\\' || c == '"')
				wk_str_printf(o, "\\%c", c);
			else if (c == '?' && prev == '?') /* no trigraphs */
				wk_str_add(o, "\\?");
			else if (c == '\t' || (c >= 0x20 && c < 0x7f))
				wk_str_addn(o, (const char *)&c, 1);
			else {
				snprintf(esc, sizeof esc, "\\%03o", c);
				wk_str_add(o, esc);
			}
			prev = (char)c;
		}
		if (i < n) {
			wk_str_add(o, "\\n");
			i++;
		}
		wk_str_add(o, "\"\n");
	}
}

/* Append sep and word at column *col, or a newline, indent (which ends at
 * column indent_col) and word when the line would pass 80 columns. */
static void add_item(wk_str *o, size_t *col, const char *sep, const char *word,
		     const char *indent, size_t indent_col)
{
	size_t w = strlen(sep) + strlen(word);

	if (*col + w > 80 && *col > indent_col) {
		wk_str_printf(o, "\n%s%s", indent, word);
		*col = indent_col + strlen(word);
		return;
	}
	wk_str_printf(o, "%s%s", sep, word);
	*col += w;
}

/* ---- NAME_kernels.c ------------------------------------------------------ */

/* The WEFT_CAP_* bits of needs by name, joined with sep; none for 0. */
static void add_needs(wk_str *o, uint32_t needs, const char *sep,
		      const char *none)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} caps[] = {
		{ WEFT_CAP_F64, "WEFT_CAP_F64" },
		{ WEFT_CAP_F32_EXACT, "WEFT_CAP_F32_EXACT" },
		{ WEFT_CAP_SUBNORMAL, "WEFT_CAP_SUBNORMAL" },
		{ WEFT_CAP_ATOMIC64, "WEFT_CAP_ATOMIC64" },
	};
	const char *s = "";

	if (!needs)
		wk_str_add(o, none);
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++)
		if (needs & caps[i].bit) {
			wk_str_printf(o, "%s%s", s, caps[i].name);
			s = sep;
		}
}

static void c_map(wk_str *o, const wk_prog *p, const char *kh_path,
		  unsigned kh_lines)
{
	wk_str_add(o, " * Lines of the program text:\n");
	wk_str_printf(o, " *   %u-%u: weft/kernel.h (", 1u, kh_lines);
	add_in_comment(o, kh_path);
	wk_str_add(o, ")\n");
	for (size_t i = 0; i < p->n_spans; i++) {
		const wk_span *s = &p->spans[i];

		wk_str_printf(o, " *   %u-%u: ", kh_lines + s->first,
			      kh_lines + s->last);
		add_in_comment(o, s->file);
		wk_str_printf(o, ":%u-%u\n", s->from,
			      s->from + (s->last - s->first));
	}
}

static void c_tables(wk_str *o, const wk_prog *p)
{
	const char *m = p->name;
	size_t n = p->n_kernels;

	wk_str_printf(o,
		      "/* The kernels in file order, with their host builds. "
		      "*/\n"
		      "static const weft_kernel_desc %s__kernels[%zu] = {\n",
		      m, n);
	for (size_t i = 0; i < n; i++)
		wk_str_printf(o, "\t{ \"%s\", %s },\n", p->kernels[i].name,
			      p->kernels[i].name);
	wk_str_add(o, "};\n\n/* Their buffers by name, in slot order. */\n");
	for (size_t i = 0; i < n; i++) {
		const wk_kernel *k = &p->kernels[i];

		if (!k->n_bufs)
			continue;
		size_t col = 8;

		wk_str_printf(o,
			      "static const char *const %s__%s_bufs[] = {\n\t",
			      m, k->name);
		for (unsigned b = 0; b < k->n_bufs; b++) {
			wk_str q = { 0 };

			wk_str_printf(&q, "\"%s\"%s", k->bufs[b].name,
				      b + 1 < k->n_bufs ? "," : "");
			add_item(o, &col, b ? " " : "", q.p, "\t", 8);
			free(q.p);
		}
		wk_str_add(o, "\n};\n");
	}
	wk_str_printf(o,
		      "\nextern " HIDDEN
		      "\nconst weft_kernel_sig %s_sigs[%zu];\n" HIDDEN
		      "\nconst weft_kernel_sig %s_sigs[%zu] = {\n",
		      m, n, m, n);
	for (size_t i = 0; i < n; i++) {
		const wk_kernel *k = &p->kernels[i];

		if (k->n_bufs)
			wk_str_printf(o, "\t{ \"%s\", %s__%s_bufs, %u },\n",
				      k->name, m, k->name, k->n_bufs);
		else
			wk_str_printf(o, "\t{ \"%s\", NULL, 0 },\n", k->name);
	}
	wk_str_printf(o,
		      "};\n\n"
		      "extern " HIDDEN
		      "\nconst weft_program_desc %s_program;\n" HIDDEN
		      "\nconst weft_program_desc %s_program = {\n"
		      "\t.struct_size = sizeof(weft_program_desc),\n"
		      "\t.name = \"%s\",\n"
		      "\t.source = %s__source,\n"
		      "\t.source_len = sizeof %s__source - 1,\n"
		      "\t.kernels = %s__kernels,\n"
		      "\t.n_kernels = %zu,\n"
		      "\t.needs = ",
		      m, m, m, m, m, m, n);
	add_needs(o, p->needs, " | ", "0");
	wk_str_add(o, ",\n};\n");
}

/* a * b + c stays two roundings in the host build, as on every other
 * target: neither GCC nor Clang may fuse it into an fma here, whatever
 * -ffp-contract or -march the model is built with. Clang's
 * -ffp-contract=fast (and -ffast-math) ignores FP_CONTRACT, but not
 * exceptions(maytrap): its operations are then never fused. */
static void c_no_contraction(wk_str *o)
{
	wk_str_add(o, "/* Floats as on every target: no a * b + c fused into "
		      "one rounding, even with\n"
		      " * -ffp-contract=fast. */\n"
		      "#if defined(__clang__)\n"
		      "#pragma STDC FP_CONTRACT OFF\n"
		      "#if defined(__x86_64__) || defined(__i386__)\n"
		      "#pragma clang fp exceptions(maytrap)\n"
		      "#endif\n"
		      "#elif defined(__GNUC__)\n"
		      "#pragma GCC optimize(\"fp-contract=off\")\n"
		      "#endif\n");
}

void wk_emit_c(wk_str *o, const wk_prog *p, const char *kh, const char *kh_path,
	       const char *c_path)
{
	size_t kh_len = strlen(kh);
	unsigned kh_lines = count_nl(kh, kh_len);

	if (kh_len && kh[kh_len - 1] != '\n')
		kh_lines++;
	wk_str_add(o, "/* ");
	add_in_comment(o, c_path);
	wk_str_add(o, " - generated by weft-wk " PACKAGE_VERSION " from ");
	add_in_comment(o, p->files[0]);
	wk_str_printf(o,
		      "; do not edit.\n"
		      " *\n"
		      " * Model %s: its kernels compiled as C for host "
		      "backends, the program\n"
		      " * text that run-time compilers get (weft/kernel.h, "
		      "then the kernel file\n"
		      " * with its includes inlined and its buffers "
		      "numbered), the program's\n"
		      " * descriptor %s_program and the kernels' signatures "
		      "%s_sigs.\n"
		      " *\n",
		      p->name, p->name, p->name);
	wk_str_printf(o,
		      " * What it needs of a device (%s_program.needs, from "
		      "its text:\n"
		      " * weft_f64 or <weft/math.h>, weft_f32 or a float "
		      "literal, weft_atomic_add_u64):\n *   ",
		      p->name);
	add_needs(o, p->needs, ", ", "none");
	wk_str_add(o, "\n *\n");
	c_map(o, p, kh_path, kh_lines);
	wk_str_add(o, " */\n");
	c_no_contraction(o);
	wk_str_add(o, "#include <weft/kernel_host.h>\n"
		      "#include <weft/kernel.h>\n"
		      "#include <weft/model.h>\n"
		      "#include <weft/backend.h>\n\n");
	wk_str_addn(o, p->text.p, p->text.len);
	wk_str_printf(o, "#line %u \"", count_nl(o->p, o->len) + 2);
	for (const char *s = c_path; *s; s++) {
		if (*s == '"' || *s == '\\')
			wk_str_addn(o, "\\", 1);
		wk_str_addn(o, s, 1);
	}
	wk_str_add(o, "\"\n\n");
	wk_str_printf(
		o,
		"/* The program text for run-time compilers: "
		"weft/kernel.h, then the\n"
		" * kernels as above. (Longer than the 4095 bytes ISO C "
		"promises every\n"
		" * compiler takes; GCC and Clang take any length.) */\n"
		"#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
		"static const char %s__source[] =\n",
		p->name);
	add_c_lines(o, kh, kh_len);
	add_c_lines(o, p->text.p, p->text.len);
	wk_str_add(o, "\t\"\";\n\n");
	c_tables(o, p);
}

/* ---- NAME_kernels.h ------------------------------------------------------ */

static void h_kernel(wk_str *o, const wk_prog *p, const wk_kernel *k)
{
	char *base = wk_kernel_base(p, k), *en = wk_kernel_enum(p, k);
	size_t col = 3 + strlen(k->name) + 1;
	wk_str w = { 0 };

	/* The comment: the buffers in slot order and where it is written. */
	wk_str_printf(o, "/* %s:", k->name);
	for (unsigned b = 0; b < k->n_bufs; b++) {
		w.len = 0;
		wk_str_printf(&w, "%s%s", k->bufs[b].name,
			      b + 1 < k->n_bufs ? "," : "");
		add_item(o, &col, " ", w.p, " * ", 3);
	}
	if (!k->n_bufs)
		add_item(o, &col, " ", "no buffers", " * ", 3);
	w.len = 0;
	wk_str_add(&w, "(");
	add_in_comment(&w, k->file);
	wk_str_printf(&w, ":%u) */", k->line);
	add_item(o, &col, " ", w.p, " * ", 3);
	wk_str_add(o, "\n");
	/* The helper's first line, or two when one would be too long. */
	w.len = 0;
	if (k->n_bufs)
		wk_str_printf(&w, "%s_launch(%s_bufs b, uint32_t extent)", base,
			      base);
	else
		wk_str_printf(&w, "%s_launch(uint32_t extent)", base);
	if (k->n_bufs) {
		wk_str_printf(o, "typedef struct %s_bufs {\n", base);
		for (unsigned b = 0; b < k->n_bufs; b++)
			wk_str_printf(o, "\tweft_buf *%s; /* slot %u: %s */\n",
				      k->bufs[b].name, b, k->bufs[b].type);
		wk_str_printf(o, "} %s_bufs;\n\n", base);
	}
	wk_str_printf(o,
		      "static inline weft_launch%s%s\n"
		      "{\n"
		      "\tweft_launch l = {\n"
		      "\t\t.kernel = %s,\n"
		      "\t\t.n_bufs = %u,\n",
		      strlen(w.p) + 26 > 80 ? "\n" : " ", w.p, en, k->n_bufs);
	if (k->n_bufs) {
		wk_str_add(o, "\t\t.bufs = {");
		col = 26;
		for (unsigned b = 0; b < k->n_bufs; b++) {
			wk_str item = { 0 };

			wk_str_printf(&item, "b.%s%s", k->bufs[b].name,
				      b + 1 < k->n_bufs ? "," : " },");
			add_item(o, &col, " ", item.p, "\t\t\t  ", 26);
			free(item.p);
		}
		wk_str_add(o, "\n");
	}
	wk_str_add(o, "\t\t.extent = extent,\n"
		      "\t};\n"
		      "\treturn l;\n"
		      "}\n\n");
	free(w.p);
	free(base);
	free(en);
}

void wk_emit_h(wk_str *o, const wk_prog *p)
{
	wk_str guard = { 0 };

	add_upper(&guard, p->name);
	wk_str_add(&guard, "_KERNELS_H");
	wk_str_printf(o,
		      "/* %s_kernels.h - generated by weft-wk " PACKAGE_VERSION
		      " from ",
		      p->name);
	add_in_comment(o, p->files[0]);
	wk_str_printf(o,
		      "; do not edit.\n"
		      " *\n"
		      " * Model %s's kernels for its host code: their "
		      "indexes, the program\n"
		      " * descriptor and the signatures (defined in "
		      "%s_kernels.c), and per\n"
		      " * kernel a struct of its buffers by name and a "
		      "launch helper that binds\n"
		      " * them in slot order. A buffer left out is NULL, "
		      "which the core refuses\n"
		      " * for a launch. The helper sets the extent; set "
		      ".extent_buf and\n"
		      " * .extent_offset on the launch it returns for a "
		      "count read on the device.\n"
		      " */\n"
		      "#ifndef %s\n"
		      "#define %s\n\n"
		      "#include <weft/model.h>\n\n"
		      "/* Indexes into %s_program.kernels, in file order. */\n"
		      "enum %s_kernel_index {\n",
		      p->name, p->name, guard.p, guard.p, p->name, p->name);
	for (size_t i = 0; i < p->n_kernels; i++) {
		char *en = wk_kernel_enum(p, &p->kernels[i]);

		wk_str_printf(o, "\t%s, /* %s */\n", en, p->kernels[i].name);
		free(en);
	}
	free(guard.p);
	guard = (wk_str){ 0 };
	add_upper(&guard, p->name);
	wk_str_printf(o,
		      "\t%s_N_KERNELS\n"
		      "};\n\n"
		      "extern " HIDDEN "\nconst weft_program_desc %s_program;\n"
		      "extern " HIDDEN
		      "\nconst weft_kernel_sig %s_sigs[%s_N_KERNELS];\n\n",
		      guard.p, p->name, p->name, guard.p);
	for (size_t i = 0; i < p->n_kernels; i++)
		h_kernel(o, p, &p->kernels[i]);
	wk_str_add(&guard, "_KERNELS_H");
	wk_str_printf(o, "#endif /* %s */\n", guard.p);
	free(guard.p);
}
