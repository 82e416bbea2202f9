/*
 * libnoop_preload.so: an LD_PRELOAD library with one function and no
 * constructor.  What loading it costs every program is the floor of any
 * LD_PRELOAD interposer, shellesc's and sudo's included.
 */
#include "config.h"

int shellesc_bench_noop(void);

int
shellesc_bench_noop(void)
{
	return 0;
}
