/*
 * exec-probe: calls one exec entry point the way a program would, and
 * reports what it returned; or, as the program exec'd, reports what it got.
 *
 *   exec-probe [OPTION...] ENTRY FILE ARG0 [ARG...]
 *   exec-probe marker CODE [ARG...]   print "marker ARG...", exit CODE
 *   exec-probe state                  print errno at start, open fds, SigIgn/SigBlk
 *   exec-probe args                   print argc, argv and the environment's size
 *                                     (also what a NULL or empty argv runs)
 *   exec-probe fdis FD PATH           print whether FD is open on PATH
 *
 * ENTRY is execve, execv, execvp, execvpe, execl, execle, execlp, fexecve,
 * execveat (FILE's directory and base name), execveat-fd (FILE opened, with
 * AT_EMPTY_PATH), execveat-cwd (AT_FDCWD and FILE), fexecve-memfd (a copy
 * of FILE that has no path), posix_spawn,
 * posix_spawnp, system or popen.  system and popen
 * run the last ARG (FILE ARG0 ARG... is then "sh sh -c CMD").  errno is
 * 1234 just before the call, so what the call did to it shows.  Output:
 * exec family "ret=-1 errno=E" (then exit 99); posix_spawn* "ret=R
 * errno=E" and, when a child started, its end; system its status; popen the
 * child's output, then its status or "ret=NULL errno=E".  A status reads
 * "exit=N" or "signal=N".  A call that returns and leaves an fd open says so.
 *
 * Options, applied in this order before the call:
 *   -p PATH   set PATH ("-": unset it)
 *   -u        unsetenv LD_PRELOAD and SHELLESC_* (a program scrubbing its env)
 *   -L LIBS   set LD_PRELOAD to LIBS (a program putting in its own)
 *   -s        ignore SIGUSR1, block SIGUSR2
 *   -c HOW    close every fd >= 3 with HOW (closefrom or close_range), after
 *             opening one more, and check that one was closed
 *   -d        dup2 /dev/null onto the session socket's number and check it
 *   -a HOW    posix_spawn* with one file action: closefrom (fds >= 3), close
 *             (the socket's number), dup2 or open (/dev/null onto it)
 *   -e        a fresh envp { PROBE_FRESH=1, PATH=/nonexistent }
 *   -D N=V    put N=V in front of envp: a duplicate ahead of the variable
 *             the environment has (up to 8; applied last)
 *   -E        envp NULL      -A  argv NULL      -Z  argv { NULL }
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"

#define PROBE_SENTINEL 1234
#define PROBE_EXEC_RETURNED 99
#define PROBE_USAGE 98

extern char **environ;

struct probe {
	const char *entry, *file;
	char **argv, **envp;
	bool argv_given, envp_given;	/* -A/-Z, -e/-E: replace ours */
	const char *action;		/* -a */
	char *dups[9];			/* -D */
	int ndups;
};

static void
probe_status(const char *prefix, int st)
{
	if (WIFEXITED(st))
		printf("%sexit=%d\n", prefix, WEXITSTATUS(st));
	else
		printf("%ssignal=%d\n", prefix, WTERMSIG(st));
}

static int
probe_exec_failed(int ret, int e)
{
	printf("ret=%d errno=%d\n", ret, e);
	return PROBE_EXEC_RETURNED;
}

/* execl and friends take the arguments one by one: pass up to 8, NULL-padded. */
static int
probe_execl(const struct probe *p)
{
	char *a[9] = { 0 };
	int r;

	for (int i = 0; p->argv && i < 8 && p->argv[i]; i++)
		a[i] = p->argv[i];
	errno = PROBE_SENTINEL;
	if (strcmp(p->entry, "execl") == 0)
		r = execl(p->file, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], (char *)NULL);
	else if (strcmp(p->entry, "execlp") == 0)
		r = execlp(p->file, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], (char *)NULL);
	else
		r = execle(p->file, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], (char *)NULL, p->envp);
	return probe_exec_failed(r, errno);
}

/* A copy of FILE in a memfd: a program that has no path. */
static int
probe_memfd(const char *file)
{
	int in = open(file, O_RDONLY | O_CLOEXEC), fd = memfd_create("probe", MFD_CLOEXEC);
	char buf[65536];
	ssize_t n;

	while (in >= 0 && fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return -1;
	if (in >= 0)
		close(in);
	return in < 0 ? -1 : fd;
}

/*
 * fexecve and execveat-fd on FILE opened close-on-exec (fexecve-memfd: on a
 * copy of it in a memfd); execveat on (dir of
 * FILE, its base name); execveat-cwd on (AT_FDCWD, FILE).
 */
static int
probe_exec_fd(const struct probe *p)
{
	bool whole = strcmp(p->entry, "fexecve") == 0 || strcmp(p->entry, "execveat-fd") == 0;
	char dir[4096], base[4096];
	int fd = AT_FDCWD, r;

	snprintf(dir, sizeof(dir), "%s", p->file);
	snprintf(base, sizeof(base), "%s", p->file);
	if (strcmp(p->entry, "fexecve-memfd") == 0)
		fd = probe_memfd(p->file);
	else if (whole)
		fd = open(p->file, O_RDONLY | O_CLOEXEC);
	else if (strcmp(p->entry, "execveat") == 0)
		fd = open(dirname(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && fd != AT_FDCWD)
		return probe_exec_failed(-1, errno);	/* as the exec would have */
	errno = PROBE_SENTINEL;
	if (strncmp(p->entry, "fexecve", 7) == 0)
		r = fexecve(fd, p->argv, p->envp);
	else if (whole)
		r = execveat(fd, "", p->argv, p->envp, AT_EMPTY_PATH);
	else
		r = execveat(fd, fd == AT_FDCWD ? p->file : basename(base), p->argv, p->envp, 0);
	return probe_exec_failed(r, errno);
}

/* The session socket's number (what a program could stumble on). */
static int
probe_socket_fd(void)
{
	const char *v = getenv("SHELLESC_ESCALATE_SOCKET");

	return v ? atoi(v) : -1;
}

/* -a: one file action that touches the socket (or everything but stdio). */
static int
probe_file_action(posix_spawn_file_actions_t *fa, const char *how, int null)
{
	int s = probe_socket_fd();

	posix_spawn_file_actions_init(fa);
	if (how == NULL)
		return 0;
	if (strcmp(how, "closefrom") == 0)
		return posix_spawn_file_actions_addclosefrom_np(fa, 3);
	if (strcmp(how, "close") == 0)
		return posix_spawn_file_actions_addclose(fa, s);
	if (strcmp(how, "dup2") == 0)
		return posix_spawn_file_actions_adddup2(fa, null, s);
	return posix_spawn_file_actions_addopen(fa, s, "/dev/null", O_RDONLY, 0);
}

static int
probe_spawn(const struct probe *p)
{
	posix_spawn_file_actions_t fa;
	int r, e, st, null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid;

	if ((r = probe_file_action(&fa, p->action, null)) != 0) {
		printf("file action: %s\n", strerror(r));
		return PROBE_USAGE;
	}
	errno = PROBE_SENTINEL;
	if (strcmp(p->entry, "posix_spawn") == 0)
		r = posix_spawn(&pid, p->file, &fa, NULL, p->argv, p->envp);
	else
		r = posix_spawnp(&pid, p->file, &fa, NULL, p->argv, p->envp);
	e = errno;
	posix_spawn_file_actions_destroy(&fa);
	close(null);
	if (r != 0) {
		printf("ret=%d errno=%d\n", r, e);
		return 0;
	}
	if (waitpid(pid, &st, 0) != pid)
		return PROBE_USAGE;
	printf("ret=%d errno=%d ", r, e);
	probe_status("", st);
	return 0;
}

/* The command of system/popen: the last argument. */
static const char *
probe_command(const struct probe *p)
{
	size_t n = 0;

	while (p->argv && p->argv[n])
		n++;
	return n > 0 ? p->argv[n - 1] : NULL;
}

static int
probe_system(const struct probe *p)
{
	int st = system(probe_command(p));

	probe_status("", st);
	return 0;
}

static int
probe_popen(const struct probe *p)
{
	char buf[4096];
	size_t n;
	FILE *fp;

	errno = PROBE_SENTINEL;
	if ((fp = popen(probe_command(p), "r")) == NULL) {
		printf("ret=NULL errno=%d\n", errno);
		return 0;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, n, stdout);
	probe_status("", pclose(fp));
	return 0;
}

static int
probe_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d) != NULL)
		n++;
	if (d)
		closedir(d);
	return n;
}

/* A call that returns: run it, and tell if it left an fd behind. */
static int
probe_returning(const struct probe *p, int (*call)(const struct probe *))
{
	int before = probe_count_fds(), r = call(p), after = probe_count_fds();

	if (after != before)
		printf("fds: %d before, %d after\n", before, after);
	return r;
}

static int
probe_call(const struct probe *p)
{
	int r;

	fflush(stdout);		/* an exec would lose what is buffered */
	if (strncmp(p->entry, "execl", 5) == 0)
		return probe_execl(p);
	if (strncmp(p->entry, "fexecve", 7) == 0 || strncmp(p->entry, "execveat", 8) == 0)
		return probe_exec_fd(p);
	if (strncmp(p->entry, "posix_spawn", 11) == 0)
		return probe_returning(p, probe_spawn);
	if (strcmp(p->entry, "system") == 0)
		return probe_returning(p, probe_system);
	if (strcmp(p->entry, "popen") == 0)
		return probe_returning(p, probe_popen);
	errno = PROBE_SENTINEL;
	if (strcmp(p->entry, "execve") == 0)
		r = execve(p->file, p->argv, p->envp);
	else if (strcmp(p->entry, "execv") == 0)
		r = execv(p->file, p->argv);
	else if (strcmp(p->entry, "execvp") == 0)
		r = execvp(p->file, p->argv);
	else if (strcmp(p->entry, "execvpe") == 0)
		r = execvpe(p->file, p->argv, p->envp);
	else
		return PROBE_USAGE;
	return probe_exec_failed(r, errno);
}

/* --- what the exec'd program reports --------------------------------- */

static int
probe_marker(int argc, char **argv)
{
	printf("marker");
	for (int i = 3; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return argc > 2 ? atoi(argv[2]) : 0;
}

static void
probe_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	printf("fds:");
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
			printf(" %s", de->d_name);
	printf("\n");
	if (d)
		closedir(d);
}

static int
probe_state(int errno_at_start)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	printf("errno=%d\n", errno_at_start);
	probe_fds();
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "SigIgn:", 7) == 0 || strncmp(line, "SigBlk:", 7) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
	return 0;
}

/* argc, argv, and how many variables are not shellesc's own. */
static int
probe_args(int argc, char **argv)
{
	int n = 0;

	printf("argc=%d\n", argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	for (char **e = environ; e && *e; e++)
		n += strncmp(*e, "LD_PRELOAD=", 11) != 0 && strncmp(*e, "SHELLESC_", 9) != 0;
	printf("env=%d\n", n);
	return 0;
}

static int
probe_fdis(const char *fd, const char *path)
{
	struct stat a, b;
	bool same = fstat(atoi(fd), &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;

	printf("fd is %s%s\n", same ? "" : "not ", path);
	return 0;
}

/* --- options ---------------------------------------------------------- */

/* Close every fd >= 3, then check that a freshly opened one went too. */
static void
probe_close_all(const char *how)
{
	int fd = open("/dev/null", O_RDONLY);

	if (strcmp(how, "closefrom") == 0)
		closefrom(3);
	else
		close_range(3, ~0U, 0);
	printf("%s: %s\n", how, fcntl(fd, F_GETFD) < 0 && errno == EBADF ? "closed" : "left open");
}

/* dup2 /dev/null onto the socket's number: the program must get what it asked for. */
static void
probe_dup2(void)
{
	int fd = open("/dev/null", O_RDONLY), target = probe_socket_fd();
	struct stat a, b;

	if (target < 0 || dup2(fd, target) != target || fstat(fd, &a) != 0 ||
	    fstat(target, &b) != 0 || a.st_rdev != b.st_rdev || !S_ISCHR(b.st_mode))
		printf("dup2: failed\n");
	else
		printf("dup2: ok\n");
	close(fd);
}

static void
probe_signals(void)
{
	sigset_t usr2;

	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
}

static char *probe_fresh_env[] = { "PROBE_FRESH=1", "PATH=/nonexistent", NULL };
static char *probe_empty_argv[] = { NULL };

/* -D: the entries given, then envp (malloc'd; the program execs or exits). */
static char **
probe_with_dups(const struct probe *p)
{
	size_t n = 0;
	char **v;

	while (p->envp && p->envp[n])
		n++;
	if ((v = calloc((size_t)p->ndups + n + 1, sizeof(char *))) == NULL)
		exit(PROBE_USAGE);
	memcpy(v, p->dups, sizeof(char *) * (size_t)p->ndups);
	if (n > 0)
		memcpy(v + p->ndups, p->envp, sizeof(char *) * n);
	return v;
}

/* Options up to ENTRY; returns the index of ENTRY. */
static int
probe_options(int argc, char **argv, struct probe *p)
{
	int c;

	while ((c = getopt(argc, argv, "+p:uL:sc:da:eEAZD:")) != -1) {
		switch (c) {
		case 'p':
			strcmp(optarg, "-") == 0 ? unsetenv("PATH") : setenv("PATH", optarg, 1);
			break;
		case 'u':
			unsetenv("LD_PRELOAD");
			unsetenv("SHELLESC_ESCALATE_SOCKET");
			unsetenv(SHELLESC_ENV_PROXY_PATH);
			break;
		case 'L': setenv("LD_PRELOAD", optarg, 1); break;
		case 's': probe_signals(); break;
		case 'c': probe_close_all(optarg); break;
		case 'd': probe_dup2(); break;
		case 'a': p->action = optarg; break;
		case 'e': p->envp = probe_fresh_env, p->envp_given = true; break;
		case 'E': p->envp = NULL, p->envp_given = true; break;
		case 'A': p->argv = NULL, p->argv_given = true; break;
		case 'Z': p->argv = probe_empty_argv, p->argv_given = true; break;
		case 'D':
			if (p->ndups == 8)
				exit(PROBE_USAGE);
			p->dups[p->ndups++] = optarg;
			break;
		default: exit(PROBE_USAGE);
		}
	}
	return optind;
}

int
main(int argc, char **argv)
{
	int errno_at_start = errno, i;
	struct probe p = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && strcmp(argv[1], "marker") == 0)
		return probe_marker(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "state") == 0)
		return probe_state(errno_at_start);
	if (argc < 2 || strcmp(argv[1], "args") == 0)
		return probe_args(argc, argv);
	if (argc == 4 && strcmp(argv[1], "fdis") == 0)
		return probe_fdis(argv[2], argv[3]);
	i = probe_options(argc, argv, &p);
	if (argc - i < 2)
		return PROBE_USAGE;
	p.entry = argv[i];
	p.file = argv[i + 1];
	if (!p.argv_given)
		p.argv = argv + i + 2;
	if (!p.envp_given)
		p.envp = environ;
	if (p.ndups > 0)
		p.envp = probe_with_dups(&p);
	return probe_call(&p);
}
