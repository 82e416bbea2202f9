/*
 * static-probe: a statically linked program (no PT_INTERP, so no preload),
 * for the tests that check such targets are flagged.  Exits 7.
 */
int
main(void)
{
	return 7;
}
