/* fmt.c: decimal digits without stdio (fmt.h). */
#include "config.h"

#include "fmt.h"

size_t
fmt_uint(char *out, unsigned long long v)
{
	char digits[FMT_UINT_SIZE];
	size_t n = 0, k = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		out[k++] = digits[--n];
	out[k] = '\0';
	return k;
}
