/* test-err.c: suite err -- the library's error codes and their strings (common/err.c). */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "err.h"

Test(err, strerror_names_every_code)
{
	for (int r = 0; r > SE_ERR_MAX_; r--) {
		const char *s = se_strerror(r);

		cr_assert(s && *s && strcmp(s, "unknown error") != 0, "code %d", r);
		for (int q = 0; q > r; q--)
			cr_assert_str_neq(s, se_strerror(q));
	}
	static const int outside[] = { 1, 42, SE_ERR_MAX_, SE_ERR_MAX_ - 1, -1000 };

	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		cr_assert_str_eq(se_strerror(outside[i]), "unknown error");
}
