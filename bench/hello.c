/* A small C program for launch benchmarks: prints nothing, exits 0. */
int
main(void)
{
	return 0;
}
