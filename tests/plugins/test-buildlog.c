/*
 * tests/plugins/test-buildlog.c - a run-time compiler's log as the
 * backends show it (plugins/common/buildlog.h). NVIDIA's OpenCL compiler
 * ignores the program text's #line directives and numbers the whole text
 * ("<kernel>:195:2: error: ..."), where the other compilers name the
 * kernel file's lines: weft__build_log_reline() rewrites such a log to
 * say what the directives say, and leaves lines before any directive
 * (the prelude's) and a log that needs nothing alone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buildlog.h"
#include "tap.h"

/* The program text in three pieces, as the OpenCL backend passes them:
 * a prelude, a directive naming the program, the program (with weft-wk's
 * own directives, one naming no file). Physical lines: 1-3 the prelude,
 * 4 the directive, 5-6 brokenprog:1-2, 7 a directive, 8-9 walk.wk:40-41,
 * 10 a directive without a file, 11 walk.wk:100. The second piece has no
 * final newline: the compiler joins the pieces as they are. */
static const char *const texts[] = {
	"one\ntwo\nthree\n",
	"#line 1 \"brokenprog\"\n",
	"x\ny\n  # line 40 \"walk.wk\"\nz\nw\n#line 100\nv",
};

static char *reline(const char *log)
{
	size_t lens[3];

	for (int i = 0; i < 3; i++)
		lens[i] = strlen(texts[i]);
	return weft__build_log_reline(log, texts, lens, 3);
}

static void check(const char *log, const char *want, const char *what)
{
	char *got = reline(log);

	if (!want) {
		tap_ok(got == NULL, "%s: left as it is", what);
		if (got)
			tap_diag("got: %s", got);
	} else {
		tap_ok(got && strcmp(got, want) == 0, "%s", what);
		if (!got || strcmp(got, want) != 0)
			tap_diag("got: %s\nwant: %s", got ? got : "(null)",
				 want);
	}
	free(got);
}

int main(void)
{
	char out[256];
	unsigned left;

	check("<kernel>:5:3: error: use of undeclared identifier 'x'\n"
	      "<kernel>:9:18: error: variadic arguments are not allowed\n"
	      "<kernel>:11:1: warning: unused\n"
	      "3 errors generated.\n",
	      "brokenprog:1:3: error: use of undeclared identifier 'x'\n"
	      "walk.wk:41:18: error: variadic arguments are not allowed\n"
	      "walk.wk:100:1: warning: unused\n"
	      "3 errors generated.\n",
	      "NVIDIA's <kernel>:L: each line as its #line directive says");
	check("<kernel>:2:1: error: in the prelude\n"
	      "note: see <kernel>:8:4: here\n",
	      "<kernel>:2:1: error: in the prelude\n"
	      "note: see walk.wk:40:4: here\n",
	      "a line before any directive stays; a reference inside a line "
	      "is mapped");
	check("brokenprog:1:3: error: use of undeclared identifier 'x'\n", NULL,
	      "a log that already names the kernel file's lines");
	check("<kernel>:2:1: error: in the prelude\n<kernel>:x: odd\n", NULL,
	      "a log whose references all lie before any directive");
	check("", NULL, "an empty log");

	weft__build_log_excerpt("a\nwalk.wk:40:18: warning: w\n"
				"walk.wk:41:2: error: e\n",
				out, sizeof out, &left);
	tap_ok(strcmp(out, "walk.wk:41:2: error: e | walk.wk:40:18: warning: "
			   "w") == 0 &&
		       left == 0,
	       "the excerpt: errors first, then warnings, each line whole");
	tap_diag("%s", out);
	return tap_done();
}
