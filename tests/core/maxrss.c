/*
 * tests/core/maxrss.c - run a command and write its peak resident memory:
 *
 *   maxrss FILE COMMAND [ARG...]
 *
 * writes the largest resident set of COMMAND (ru_maxrss of wait4, in
 * KiB) to FILE and exits with COMMAND's status (128 + N when killed by
 * signal N). For tests/core/test-memory.sh, which holds the models' memory
 * estimates to what runs use; GNU time is not on every machine.
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: maxrss FILE COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("maxrss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("maxrss: wait4");
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0) {
		perror(argv[1]);
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
