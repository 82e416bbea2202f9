/*
 * target-chain.c: what the kernel runs for a script.  "#!/bin/rm -f" in
 * the first line of ./s makes execve("./s", ["s", "x"]) run /bin/rm with
 * ["/bin/rm", "-f", "./s", "x"] (fs/binfmt_script.c): the interpreter's
 * name, its one argument, the script's name as the exec named it, then
 * the script's arguments; an interpreter that is a script itself repeats
 * this.  Each program of the chain, with that argv, is decided by the
 * rules as if run directly (the strictest decision wins), so a #! line
 * cannot run what the rules deny.  A dynamic loader in the chain
 * ("#!/lib64/ld-linux-x86-64.so.2 /bin/rm") stands for the program it
 * loads, as when it is run directly (target-loader.c).
 *
 * target.c reads the chain, once, as it opens the interpreters
 * (common/binfmt.c through target-file.c); the links are added here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

void
target_chain_clear(struct target *t)
{
	for (size_t i = 0; i < TARGET_CHAIN; i++) {
		struct target_link *l = &t->link[i];

		free(l->path);
		free(l->name);
		free(l->arg);
		free(l->argv);
		memset(l, 0, sizeof(*l));
		memset(&t->interp[i], 0, sizeof(t->interp[i]));
	}
	t->pub.interp = NULL;
	t->pub.ninterp = 0;
}

int
target_chain_add(struct target *t, const char *name, const char *arg,
    const struct target_file *f, bool loader)
{
	size_t i = t->pub.ninterp;
	struct target_link *l = &t->link[i];

	if (i >= TARGET_CHAIN)
		return 0;
	t->pub.ninterp++;
	l->loader = loader;
	l->has_arg = arg != NULL;
	t->interp[i].dev = f->st.st_dev;
	t->interp[i].ino = f->st.st_ino;
	if ((l->name = strdup(name)) == NULL || (arg && (l->arg = strdup(arg)) == NULL) ||
	    (f->path && (l->path = strdup(f->path)) == NULL))
		return -ENOMEM;
	t->interp[i].path = l->path;
	return 0;
}

static int
target_chain_set(struct target *t, size_t i, char **argv, size_t argc)
{
	if (argv == NULL)
		return -ENOMEM;
	t->link[i].argv = argv;
	t->interp[i].argv = argv;
	t->interp[i].argc = argc;
	return 0;
}

/* argv of link i: its name, its argument, then the argv of what it runs
 * (the previous link's, or the script's name and arguments). */
static int
target_chain_argv(struct target *t, size_t i)
{
	struct target_link *l = &t->link[i];
	char *const *prev = i ? t->link[i - 1].argv : t->pub.argv;
	size_t nprev = i ? t->interp[i - 1].argc : (t->pub.argc ? t->pub.argc : 1);
	char **argv = calloc(2 + nprev + 1, sizeof(char *));
	size_t k = 0;

	if (argv == NULL)
		return -ENOMEM;
	argv[k++] = l->name;
	if (l->has_arg)
		argv[k++] = l->arg;
	argv[k++] = i ? prev[0] : (char *)t->named;
	for (size_t j = 1; j < nprev && prev[j] != NULL; j++)
		argv[k++] = prev[j];
	return target_chain_set(t, i, argv, k);
}

/* Link i is the loader: the program it runs (its argv: PROGRAM, or
 * --argv0's value, and what follows) is one more link. */
static int
target_chain_loader(struct target *t, struct peer *p, size_t i)
{
	char *const *argv = t->link[i].argv, *argv0 = NULL;
	size_t argc = t->interp[i].argc, n = t->pub.ninterp;
	bool opts = false;
	size_t at = target_loader_program(argv, argc, &argv0, &opts);
	struct target_file f;
	char **out;
	int fd, r;

	if (at == 0 || n >= TARGET_CHAIN || walk_open(p, argv[at], &fd) != 0)
		return 0;	/* it runs nothing else, or fails */
	if ((r = target_file_read(fd, &f)) == 0 &&
	    (r = target_chain_add(t, argv[at], NULL, &f, false)) == 0) {
		out = calloc(argc - at + 1, sizeof(char *));
		for (size_t k = 0; out != NULL && k < argc - at; k++)
			out[k] = argv[at + k];
		if (out != NULL && argv0 != NULL)
			out[0] = argv0;
		r = target_chain_set(t, n, out, argc - at);
	}
	free(f.path);
	close(fd);
	return r;
}

int
target_chain(struct target *t, struct peer *p)
{
	int r;

	for (size_t i = 0; i < t->pub.ninterp; i++) {
		if (t->link[i].argv == NULL && (r = target_chain_argv(t, i)) != 0)
			return r;
		if (t->link[i].loader && (r = target_chain_loader(t, p, i)) != 0)
			return r;
	}
	t->pub.interp = t->pub.ninterp ? t->interp : NULL;
	return 0;
}
