/*
 * bench/circles-bruteforce.c - the circles model against an O(N^2)
 * reference: every pair of agents, no bins.
 *
 *   circles-bruteforce DIMS RADIUS REPULSE BEFORE.csv AFTER.csv
 *
 * BEFORE.csv and AFTER.csv are circles-agents.csv ([circles] agents_csv =
 * true) of two runs with the same configuration, K - 1 and K steps (K >=
 * 1): positions after step K - 1, and positions and neighbour counts
 * after step K. For every agent: its neighbours within the radius
 * (0 < separation < radius, separation = sqrtf of the sum of squares in
 * f32, as FLAME GPU 2 and the model compute it) counted over every other
 * agent must equal the model's count EXACTLY; and its position after step
 * K must equal the reference's (the average push summed in id order with
 * the C library's sinf, where the model sums in bin order with weft_sinf)
 * within 1e-5 absolute. Prints the largest position difference and
 * "ok N agents"; exits 1 on a difference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct agents {
	unsigned n;
	float *x, *y, *z;
	unsigned *near;
} agents;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "circles-bruteforce: %s: %s\n", what, why);
	exit(1);
}

static void load(const char *path, agents *a)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned cap = 1024, id, nb, cd;
	float x, y, z;

	if (!f)
		die(path, "cannot open");
	memset(a, 0, sizeof *a);
	a->x = malloc(cap * sizeof(float));
	a->y = malloc(cap * sizeof(float));
	a->z = malloc(cap * sizeof(float));
	a->near = malloc(cap * sizeof(unsigned));
	if (!fgets(line, sizeof line, f) || strncmp(line, "id,x,y,z", 8))
		die(path, "not a circles-agents.csv");
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%u,%f,%f,%f,%u,%u", &id, &x, &y, &z, &nb,
			   &cd) != 6 ||
		    id != a->n)
			die(path, "a line is not id,x,y,z,neighbours,"
				  "candidates in id order");
		if (a->n == cap) {
			cap *= 2;
			a->x = realloc(a->x, cap * sizeof(float));
			a->y = realloc(a->y, cap * sizeof(float));
			a->z = realloc(a->z, cap * sizeof(float));
			a->near = realloc(a->near, cap * sizeof(unsigned));
			if (!a->x || !a->y || !a->z || !a->near)
				die(path, "out of memory");
		}
		a->x[a->n] = x;
		a->y[a->n] = y;
		a->z[a->n] = z;
		a->near[a->n++] = nb;
	}
	fclose(f);
}

static void drop(agents *a)
{
	free(a->x);
	free(a->y);
	free(a->z);
	free(a->near);
}

int main(int argc, char **argv)
{
	agents b, a;
	int dims, rc = 1;
	float radius, repulse;
	double worst = 0;

	if (argc != 6) {
		fprintf(stderr, "usage: circles-bruteforce DIMS RADIUS "
				"REPULSE BEFORE.csv AFTER.csv\n");
		return 2;
	}
	dims = atoi(argv[1]);
	radius = strtof(argv[2], NULL);
	repulse = strtof(argv[3], NULL);
	load(argv[4], &b);
	load(argv[5], &a);
	if (a.n != b.n || !a.n)
		die(argv[5], "not the agents of BEFORE.csv");
	for (unsigned i = 0; i < b.n; i++) {
		float fx = 0, fy = 0, fz = 0, c;
		unsigned count = 0;
		double d;

		for (unsigned j = 0; j < b.n; j++) {
			float x21, y21, z21 = 0, sep, k;

			if (j == i)
				continue;
			x21 = b.x[j] - b.x[i];
			y21 = b.y[j] - b.y[i];
			if (dims == 3) {
				z21 = b.z[j] - b.z[i];
				sep = sqrtf(x21 * x21 + y21 * y21 + z21 * z21);
			} else {
				sep = sqrtf(x21 * x21 + y21 * y21);
			}
			if (sep < radius && sep > 0.0f) {
				k = sinf((sep / radius) * 3.141f * -2.0f) *
				    repulse;
				fx += k * (x21 / sep);
				fy += k * (y21 / sep);
				fz += k * (z21 / sep);
				count++;
			}
		}
		if (count != a.near[i]) {
			fprintf(stderr,
				"circles-bruteforce: agent %u: %u neighbours "
				"within the radius, the reference %u\n",
				i, a.near[i], count);
			goto drop_agents;
		}
		c = count > 0 ? (float)count : 1.0f;
		d = fabs((double)(b.x[i] + fx / c) - a.x[i]);
		d = fmax(d, fabs((double)(b.y[i] + fy / c) - a.y[i]));
		if (dims == 3)
			d = fmax(d, fabs((double)(b.z[i] + fz / c) - a.z[i]));
		worst = fmax(worst, d);
		if (d > 1e-5) {
			fprintf(stderr,
				"circles-bruteforce: agent %u: position "
				"differs by %g from the reference\n",
				i, d);
			goto drop_agents;
		}
	}
	printf("max position difference %.3g\nok %u agents\n", worst, a.n);
	rc = 0;
drop_agents:
	drop(&a);
	drop(&b);
	return rc;
}
