/* preloadenv.c: our preload library first in LD_PRELOAD, once (preloadenv.h). */
#include "config.h"

#include <string.h>

#include "preloadenv.h"

/* Append n bytes of s at out[*k] while they fit; *k counts them anyway. */
static void
preloadenv_put(char *out, size_t size, size_t *k, const char *s, size_t n)
{
	if (*k < size && n <= size - *k)
		memcpy(out + *k, s, n);
	*k += n;
}

size_t
preloadenv_first(char *out, size_t size, const char *lib, const char *list)
{
	size_t nlib = strlen(lib), k = 0, n;

	preloadenv_put(out, size, &k, lib, nlib);
	for (; list != NULL && *list != '\0'; list += n + (list[n] != '\0')) {
		n = strcspn(list, PRELOADENV_SEPS);
		if (n == 0 || (n == nlib && strncmp(list, lib, n) == 0))
			continue;
		preloadenv_put(out, size, &k, ":", 1);
		preloadenv_put(out, size, &k, list, n);
	}
	if (k < size)
		out[k] = '\0';
	return k;
}
