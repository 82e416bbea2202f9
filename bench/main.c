/*
 * shellesc-bench [--builddir DIR] [--zsh PATH] [--bash PATH] [--sudo] [--rounds N]
 *                [--scale X] [--only SECTION] [--work-src DIR] [--json FILE]
 *                [--commit REV]
 *
 * Runs the benchmarks of docs/performance.md and prints one table; with
 * --json, writes it too.  REV names the code measured (bench/run.sh gives
 * `git describe --always --dirty`).  `make bench` runs it through bench/run.sh, which
 * installs and configures sudo's intercept mode when run as root.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bn_result {
	char section[24], name[96], value[32], unit[16], ratio[16], target[48], holds[16], note[200];
	double num, rat;
};

static struct bn_result results[128];
static size_t nresults;

const char *
bn_holds(bool ok)
{
	return ok ? "yes" : "NO";
}

static struct bn_result *
bn_add(const char *section, const char *name)
{
	struct bn_result *r = &results[nresults < 127 ? nresults++ : 127];

	memset(r, 0, sizeof(*r));
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->num = r->rat = BN_NAN;
	return r;
}

void
bn_row(const char *section, const char *name, double value, const char *unit,
    double ratio, const char *target, const char *holds, const char *note, ...)
{
	struct bn_result *r = bn_add(section, name);
	va_list ap;

	r->num = value;
	r->rat = ratio;
	snprintf(r->value, sizeof(r->value), fabs(value) >= 100 ? "%.0f" : fabs(value) >= 10 ? "%.1f" : "%.2f", value);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	if (!isnan(ratio))
		snprintf(r->ratio, sizeof(r->ratio), "%.2fx", ratio);
	snprintf(r->target, sizeof(r->target), "%s", target ? target : "");
	snprintf(r->holds, sizeof(r->holds), "%s", holds ? holds : "");
	if (note) {
		va_start(ap, note);
		vsnprintf(r->note, sizeof(r->note), note, ap);
		va_end(ap);
	}
	printf("  %-10s %-44s %10s %-8s %8s %s\n", r->section, r->name, r->value, r->unit, r->ratio, r->note);
	fflush(stdout);
}

void
bn_skip(const char *section, const char *name, const char *why, ...)
{
	struct bn_result *r = bn_add(section, name);
	va_list ap;

	snprintf(r->value, sizeof(r->value), "-");
	snprintf(r->holds, sizeof(r->holds), "not measured");
	va_start(ap, why);
	vsnprintf(r->note, sizeof(r->note), why, ap);
	va_end(ap);
	printf("  %-10s %-44s not measured: %s\n", r->section, r->name, r->note);
	fflush(stdout);
}

static void
bn_json_str(FILE *f, const char *k, const char *v, const char *sep)
{
	fprintf(f, "\"%s\": \"", k);
	for (; *v; v++)
		fprintf(f, *v == '"' || *v == '\\' ? "\\%c" : (unsigned char)*v < 0x20 ? "?" : "%c", *v);
	fprintf(f, "\"%s", sep);
}

static void
bn_json_num(FILE *f, const char *k, double v, const char *sep)
{
	if (isnan(v))
		fprintf(f, "\"%s\": null%s", k, sep);
	else
		fprintf(f, "\"%s\": %.6g%s", k, v, sep);
}

static void
bn_machine(char *buf, size_t size, double load[3])
{
	struct utsname u;
	char model[128] = "?", line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %127[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	uname(&u);
	snprintf(buf, size, "%s, %ld CPUs, Linux %s", model, sysconf(_SC_NPROCESSORS_ONLN), u.release);
	if (getloadavg(load, 3) != 3)
		load[0] = load[1] = load[2] = BN_NAN;
}

static void
bn_report(const char *json, const char *commit, const char *started, double load0[3])
{
	char machine[256], now[64];
	double load[3];
	time_t t = time(NULL);
	FILE *f;

	bn_machine(machine, sizeof(machine), load);
	strftime(now, sizeof(now), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("\n| section | measurement | value | unit | vs baseline | target | holds | note |\n");
	printf("|---|---|---:|---|---:|---|---|---|\n");
	for (size_t i = 0; i < nresults; i++) {
		struct bn_result *r = &results[i];

		printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->section, r->name, r->value,
		    r->unit, r->ratio, r->target, r->holds, r->note);
	}
	printf("\ncommit: %s\nmachine: %s\nstarted %s, ended %s; load average %.2f %.2f %.2f at the start, %.2f %.2f %.2f at the end\n",
	    commit, machine, started, now, load0[0], load0[1], load0[2], load[0], load[1], load[2]);
	if (json == NULL)
		return;
	if ((f = fopen(json, "w")) == NULL) {
		perror(json);
		return;
	}
	fprintf(f, "{\n  ");
	bn_json_str(f, "commit", commit, ", ");
	bn_json_str(f, "machine", machine, ", ");
	bn_json_str(f, "started", started, ", ");
	bn_json_str(f, "ended", now, ",\n  ");
	fprintf(f, "\"loadavg_start\": [%.2f, %.2f, %.2f], \"loadavg_end\": [%.2f, %.2f, %.2f],\n  \"rows\": [\n",
	    load0[0], load0[1], load0[2], load[0], load[1], load[2]);
	for (size_t i = 0; i < nresults; i++) {
		struct bn_result *r = &results[i];

		fprintf(f, "    {");
		bn_json_str(f, "section", r->section, ", ");
		bn_json_str(f, "name", r->name, ", ");
		bn_json_num(f, "value", r->num, ", ");
		bn_json_str(f, "unit", r->unit, ", ");
		bn_json_num(f, "ratio", r->rat, ", ");
		bn_json_str(f, "target", r->target, ", ");
		bn_json_str(f, "holds", r->holds, ", ");
		bn_json_str(f, "note", r->note, "");
		fprintf(f, "}%s\n", i + 1 < nresults ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	fclose(f);
	printf("written: %s\n", json);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(const struct bn_opts *);
	} sections[] = {
		{ "runpath", bn_runpath }, { "decide", bn_decide }, { "rules", bn_rules },
		{ "io", bn_io }, { "memory", bn_memory }, { "load", bn_load }, { "mcp", bn_mcp },
		{ "work", bn_work }, { "sockgate", bn_sockgate },
	};
	struct bn_opts o = { .builddir = ".", .rounds = 7, .scale = 1 };
	const char *json = NULL, *commit = "unknown";
	char started[64];
	double load0[3];
	time_t t = time(NULL);

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--sudo") == 0)
			o.sudo = true;
		else if (v && strcmp(argv[i], "--builddir") == 0 && ++i)
			o.builddir = v;
		else if (v && strcmp(argv[i], "--zsh") == 0 && ++i)
			o.zsh = *v ? v : NULL;
		else if (v && strcmp(argv[i], "--bash") == 0 && ++i)
			o.bash = *v ? v : NULL;
		else if (v && strcmp(argv[i], "--rounds") == 0 && ++i)
			o.rounds = atoi(v) > 0 ? atoi(v) : 1;
		else if (v && strcmp(argv[i], "--scale") == 0 && ++i)
			o.scale = atof(v) > 0 ? atof(v) : 1;
		else if (v && strcmp(argv[i], "--only") == 0 && ++i)
			o.only = v;
		else if (v && strcmp(argv[i], "--work-src") == 0 && ++i)
			o.work_src = *v ? v : NULL;
		else if (v && strcmp(argv[i], "--json") == 0 && ++i)
			json = v;
		else if (v && strcmp(argv[i], "--commit") == 0 && ++i)
			commit = v;
		else {
			fprintf(stderr, "usage: shellesc-bench [--builddir DIR] [--zsh PATH] [--bash PATH] [--sudo] "
			    "[--rounds N] [--scale X] [--only SECTION] [--work-src DIR] [--json FILE] "
			    "[--commit REV]\n");
			return 2;
		}
	}
	strftime(started, sizeof(started), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	if (getloadavg(load0, 3) != 3)
		load0[0] = load0[1] = load0[2] = BN_NAN;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (o.only && strcmp(o.only, sections[i].name) != 0)
			continue;
		printf("== %s\n", sections[i].name);
		sections[i].run(&o);
	}
	bn_report(json, commit, started, load0);
	return 0;
}
