/* SPDX-License-Identifier: MIT */
/* frontend/run/args.c and frontend/run/opt.c: the one option table of sandcap run and trace, the
 * iterator that reads it, value ranges, and sandcap kill's signals. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/args.h"
#include "run/run.h"
#include "macro.h"
#include "run/opt.h"
#include "policy.h"

#define ARGV(...) ((char *[]) { __VA_ARGS__, NULL })

/* What stderr got during one call: fd 2 goes to a temporary file meanwhile. */
static char captured[2048];
static int saved_fd = -1;

static void
capture_begin(void)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fflush(stderr);
	saved_fd = dup(2);
	assert_true(saved_fd >= 0);
	assert_int_equal(dup2(fileno(f), 2), 2);
	fclose(f);              /* fd 2 keeps the file open */
}

static const char *
capture_end(void)
{
	ssize_t n;

	fflush(stderr);
	assert_int_equal(lseek(2, 0, SEEK_SET), 0);
	n = read(2, captured, sizeof(captured) - 1);
	assert_true(n >= 0);
	captured[n] = '\0';
	assert_int_equal(dup2(saved_fd, 2), 2);
	close(saved_fd);
	saved_fd = -1;
	return captured;
}

/* run_args_parse(), with what it printed in captured[]. */
static int
parse(int argc, char **argv, struct run_opts *o)
{
	int r;

	capture_begin();
	r = run_args_parse(argc, argv, o);
	capture_end();
	return r;
}

/* A valid value for each option that takes one: an option added to the table without one
 * here fails test_every_option_is_classified_as_the_table_says. */
static const char *
sample_value(int id)
{
	switch (id) {
	case RUN_OPT_TIMEOUT: case RUN_OPT_GRACE: case RUN_OPT_CPU_TIME: return "1";
	case RUN_OPT_AS: case RUN_OPT_FSIZE: case RUN_OPT_STACK: return "1M";
	case RUN_OPT_CORE: return "0";
	case RUN_OPT_NOFILE: case RUN_OPT_NPROC: return "64";
	case RUN_OPT_MEMORY: case RUN_OPT_DISK: case RUN_OPT_OUTPUT_LIMIT: return "64M";
	case RUN_OPT_CPU: return "50%";
	case RUN_OPT_PIDS: return "8";
	case RUN_OPT_FS: return "ro";
	case RUN_OPT_NET: return "none";
	case RUN_OPT_ALLOW: return "example.com";
	case RUN_OPT_UNIX: return "host";
	case RUN_OPT_RW: case RUN_OPT_RO: case RUN_OPT_CHDIR: return "/tmp";
	case RUN_OPT_ENV: return "A=1";
	case RUN_OPT_ENV_DENY: return "X*";
	case RUN_OPT_REPORT: return "/tmp/r.json";
	case RUN_OPT_REPORT_FD: return "3";
	case RUN_OPT_PROFILE: return "p";
	case RUN_OPT_HEADROOM: return "10%";
	case RUN_OPT_RUNS: return "2";
	default: return NULL;
	}
}

/* Every reader of the table agrees with it on which options take a value: run_args_parse()
 * and trace_args_parse() leave exactly the command behind, in both spellings of a value,
 * and a flag never swallows the word after it (the --env-clear bug: a flag missing from a
 * hand-kept list of flags took the next option as its value). */
static void
test_every_option_is_classified_as_the_table_says(void **state)
{
	size_t n;
	const struct opt_def *defs = run_args_options(&n);
	static struct run_opts o;

	(void) state;
	assert_true(n > 30);
	for (size_t k = 0; k < n; k++) {
		const struct opt_def *d = &defs[k];
		const char *v = sample_value(d->id);
		char joined[128], *name = (char *) d->name, *val = (char *) v;
		struct trace_opts t = { .on = true, .runs = 1 };
		char **nv = NULL;
		int nn = 0, r;

		print_message("%s\n", d->name);
		assert_int_equal(d->has_value, v != NULL);
		if (d->id == RUN_OPT_HELP)
			continue;
		/* trace: the option goes on (or is trace's own); the command stays whole */
		r = d->has_value ? trace_args_parse(4, ARGV("trace", name, val, "true"), &t, &nv, &nn) :
				   trace_args_parse(3, ARGV("trace", name, "true"), &t, &nv, &nn);
		assert_int_equal(r, 0);
		assert_string_equal(nv[nn - 1], "true");
		assert_string_equal(nv[nn - 2], "--");
		if (d->flags & RUN_OPTF_TRACE) {
			assert_int_equal(nn, 3);
		} else {
			assert_int_equal(nn, d->has_value ? 5 : 4);
			assert_string_equal(nv[1], d->name);
		}
		free(nv);
		if (d->flags & RUN_OPTF_TRACE) {
			assert_int_equal(parse(4, ARGV("run", name, val, "true"), &o), -EINVAL);
			assert_non_null(strstr(captured, "unknown option"));
			continue;
		}
		/* run: --name VALUE, --name=VALUE, and a flag before another option */
		if (d->has_value) {
			assert_int_equal(parse(4, ARGV("run", name, val, "true"), &o), 0);
			assert_int_equal(o.argc, 1);
			assert_string_equal(o.argv[0], "true");
			snprintf(joined, sizeof(joined), "%s=%s", d->name, v);
			assert_int_equal(parse(3, ARGV("run", joined, "true"), &o), 0);
			assert_string_equal(o.argv[0], "true");
			assert_int_equal(parse(2, ARGV("run", name), &o), -EINVAL);
			assert_non_null(strstr(captured, "needs a value"));
		} else {
			assert_int_equal(parse(5, ARGV("run", name, "--timeout", "5", "true"), &o), 0);
			assert_int_equal(o.argc, 1);
			assert_true(o.has_timeout);
			snprintf(joined, sizeof(joined), "%s=yes", d->name);
			assert_int_equal(parse(3, ARGV("run", joined, "true"), &o), -EINVAL);
			assert_non_null(strstr(captured, "takes no value"));
		}
	}
}

/* sandcap run --help lists every option of run (it once left out --profile). */
static void
test_help_lists_every_option(void **state)
{
	char *text = NULL;
	size_t len = 0, n;
	const struct opt_def *defs = run_args_options(&n);
	FILE *f = open_memstream(&text, &len);

	(void) state;
	assert_non_null(f);
	run_args_usage(f);
	fclose(f);
	for (size_t k = 0; k < n; k++) {
		char want[48];
		const char *p = text;
		bool found = false;

		/* the name as a word: "--env" must not be found inside "--env-clear" */
		snprintf(want, sizeof(want), "%s", defs[k].name);
		while ((p = strstr(p, want)) != NULL && !found) {
			char after = p[strlen(want)];

			found = after == ' ' || after == ',' || after == '\n';
			p++;
		}
		if ((defs[k].flags & RUN_OPTF_TRACE) != 0)
			assert_false(found);
		else if (!found)
			fail_msg("sandcap run --help does not list %s", defs[k].name);
	}
	free(text);
}

/* Messages name the option typed, also inside a bundle and after a value. */
static void
test_errors_name_the_word(void **state)
{
	static struct run_opts o;

	(void) state;
	assert_int_equal(parse(4, ARGV("run", "-xq", "--", "true"), &o), -EINVAL);
	assert_string_equal(captured, "sandcap: run: unknown option '-x'; see 'sandcap run --help'\n");
	assert_int_equal(parse(4, ARGV("run", "--timeout", "5", "-qx"), &o), -EINVAL);
	assert_string_equal(captured, "sandcap: run: unknown option '-x'; see 'sandcap run --help'\n");
	assert_int_equal(parse(2, ARGV("run", "--timeout"), &o), -EINVAL);
	assert_string_equal(captured, "sandcap: run: --timeout needs a value; see 'sandcap run "
			    "--help'\n");
	/* A forgotten value before "--": the message says so, not "invalid duration '--'". */
	assert_int_equal(parse(4, ARGV("run", "--timeout", "--", "true"), &o), -EINVAL);
	assert_string_equal(captured, "sandcap: run: --timeout needs a value (it is followed by "
			    "'--', which ends the options: give the value before it); see 'sandcap "
			    "run --help'\n");
	assert_int_equal(parse(5, ARGV("run", "-q", "--env", "--", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "--env needs a value (it is followed by '--'"));
	assert_int_equal(parse(3, ARGV("run", "-qq", "true"), &o), 0);
	assert_true(o.quiet);
	/* "-" is a command, as with getopt */
	assert_int_equal(parse(3, ARGV("run", "-q", "-"), &o), 0);
	assert_string_equal(o.argv[0], "-");
}

/* No abbreviations; a word that starts options' names says which. */
static void
test_no_abbreviations(void **state)
{
	static struct run_opts o;

	(void) state;
	assert_int_equal(parse(4, ARGV("run", "--time", "1", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "unknown option '--time' (options are not abbreviated: "
				"did you mean --timeout?)"));
	assert_int_equal(parse(4, ARGV("run", "--mem", "1G", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "did you mean --memory?"));
	assert_int_equal(parse(3, ARGV("run", "--no-cg", "true"), &o), -EINVAL);
	assert_int_equal(parse(4, ARGV("run", "--c", "1", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "--cpu-time, --core, --cpu or --chdir?"));
	/* sandcap trace's own options are no options of run, and not suggested there */
	assert_int_equal(parse(4, ARGV("run", "--run", "1", "true"), &o), -EINVAL);
	assert_null(strstr(captured, "--runs"));
	assert_null(strstr(captured, "did you mean"));
}

/* A typo gets the nearest option by edit distance; a word far from every option none. */
static void
test_typo_suggestions(void **state)
{
	static struct run_opts o;

	(void) state;
	assert_int_equal(parse(4, ARGV("run", "--memroy", "1G", "true"), &o), -EINVAL);
	assert_string_equal(captured, "sandcap: run: unknown option '--memroy' (did you mean "
			    "--memory?); see 'sandcap run --help'\n");
	assert_int_equal(parse(4, ARGV("run", "--timeuot", "1", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "(did you mean --timeout?)"));
	assert_int_equal(parse(4, ARGV("run", "--pid", "1", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "did you mean --pids?"));
	assert_int_equal(parse(3, ARGV("run", "--fallbak", "true"), &o), -EINVAL);
	assert_non_null(strstr(captured, "(did you mean --fallback?)"));
	assert_int_equal(parse(4, ARGV("run", "--banana", "1", "true"), &o), -EINVAL);
	assert_null(strstr(captured, "did you mean"));
	assert_int_equal(opt_edit_distance("--memroy", "--memory"), 1);
	assert_int_equal(opt_edit_distance("", "abc"), 3);
	assert_int_equal(opt_edit_distance("kitten", "sitting"), 3);
}

/* A lower-case b means bits: "1Mb" is refused with the accepted forms, not read as bytes. */
static void
test_size_bits_refused(void **state)
{
	static struct run_opts o;
	static const char *const bad[] = { "1Mb", "1mb", "1Kb", "64gib", "100b" };

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(parse(4, ARGV("run", "--memory", (char *) bad[i], "true"), &o),
				 -EINVAL);
		assert_non_null(strstr(captured, bad[i]));
		assert_non_null(strstr(captured, "a lower-case b means bits"));
		assert_non_null(strstr(captured, "512M"));
	}
	assert_int_equal(parse(4, ARGV("run", "--memory", "1MB", "true"), &o), 0);
	assert_int_equal(parse(4, ARGV("run", "--memory", "1MiB", "true"), &o), 0);
}

/* Every size is at most 1 EiB (the policy's cap): RLIM_INFINITY cannot be typed. */
static void
test_ranges(void **state)
{
	static struct run_opts o;
	static const struct {
		const char *opt, *value;
		bool ok;
		const char *range;      /* in the message when !ok */
	} cases[] = {
		{ "--as", "0", false, "from 1 byte to 1 EiB" },
		{ "--stack", "0", false, "from 1 byte to 1 EiB" },
		{ "--as", "18446744073709551615", false, "from 1 byte to 1 EiB" },
		{ "--stack", "18446744073709551615", false, "from 1 byte to 1 EiB" },
		{ "--fsize", "18446744073709551615", false, "from 0 to 1 EiB" },
		{ "--core", "1152921504606846977", false, "from 0 to 1 EiB" },
		{ "--memory", "1048577T", false, "from 1 byte to 1 EiB" },
		{ "--memory", "0", false, "from 1 byte to 1 EiB" },
		{ "--disk", "0", false, "from 1 byte to 1 EiB" },
		{ "--output-limit", "0", false, "from 1 byte to 1 EiB" },
		{ "--as", "1048576T", true, NULL },
		{ "--fsize", "0", true, NULL },
		{ "--core", "0", true, NULL },
		{ "--cpu", "999999%", false, "from 1% to 102400%" },
		{ "--cpu", "0%", false, "from 1% to 102400%" },
		{ "--cpu", "102400%", true, NULL },
		{ "--pids", "4194305", false, "from 1 to 4194304" },
		{ "--pids", "4194304", true, NULL },
		{ "--nofile", "0", false, "from 1 to 1073741824" },
		{ "--timeout", "8785h", false, "from 1ms to 366 days" },
		{ "--timeout", "0", false, "from 1ms to 366 days" },
		{ "--timeout", "8784h", true, NULL },
		{ "--grace", "8785h", false, "from 0 to 366 days" },
		{ "--grace", "0", true, NULL },
		{ "--cpu-time", "99999999999", false, "from 1ms to 366 days" },
		{ "--report-fd", "2", false, "from 3 to 2147483647" },
	};

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		int r = parse(4, ARGV("run", (char *) cases[i].opt, (char *) cases[i].value, "true"),
			      &o);

		print_message("%s %s: %s", cases[i].opt, cases[i].value, captured);
		assert_int_equal(r, cases[i].ok ? 0 : -EINVAL);
		if (!cases[i].ok) {
			assert_non_null(strstr(captured, cases[i].opt));
			assert_non_null(strstr(captured, cases[i].value));
			assert_non_null(strstr(captured, "out of range"));
			assert_non_null(strstr(captured, cases[i].range));
		}
	}
	assert_int_equal(POLICY_SIZE_MAX, UINT64_C(1) << 60);
	assert_int_equal(parse(4, ARGV("run", "--as", "1048576T", "true"), &o), 0);
	assert_int_equal(o.rl[RUN_RL_AS].value, POLICY_SIZE_MAX);
}

/* The last of a repeated option counts. */
static void
test_last_wins(void **state)
{
	static struct run_opts o;

	(void) state;
	assert_int_equal(parse(6, ARGV("run", "--timeout", "5", "--timeout=7", "-q", "true"), &o),
			 0);
	assert_int_equal(o.timeout_ms, 7000);
	assert_int_equal(parse(6, ARGV("run", "--as", "1M", "--as", "2M", "true"), &o), 0);
	assert_int_equal(o.rl[RUN_RL_AS].value, 2 << 20);
}

static void
test_find_profile(void **state)
{
	const char *name = (const char *) 1;

	(void) state;
	capture_begin();
	assert_int_equal(run_args_find_profile(5, ARGV("run", "--env-clear", "--profile", "small",
						      "true"), &name), 0);
	assert_string_equal(name, "small");
	assert_int_equal(run_args_find_profile(4, ARGV("run", "-q", "--profile=a", "true"), &name),
			 0);
	assert_string_equal(name, "a");
	/* a value that looks like the option is a value; after the command, the command's */
	assert_int_equal(run_args_find_profile(6, ARGV("run", "--env-deny", "--profile", "--",
						      "x", "--profile"), &name), 0);
	assert_null(name);
	assert_int_equal(run_args_find_profile(6, ARGV("run", "--profile", "a", "--profile", "a",
						      "true"), &name), -EINVAL);
	capture_end();
	assert_non_null(strstr(captured, "--profile: given twice ('a', then 'a')"));
}

/* sandcap trace takes its own options from among run's, wherever they are. */
static void
test_trace_args(void **state)
{
	struct trace_opts t = { .on = true, .headroom_percent = 25, .runs = 1 };
	char **nv = NULL;
	int n = 0;

	(void) state;
	assert_int_equal(trace_args_parse(7, ARGV("trace", "--no-cgroup", "--env-clear", "--runs",
						  "3", "--", "true"), &t, &nv, &n), 0);
	assert_int_equal(t.runs, 3);
	assert_int_equal(n, 5);
	assert_string_equal(nv[1], "--no-cgroup");
	assert_string_equal(nv[2], "--env-clear");
	assert_string_equal(nv[3], "--");
	assert_string_equal(nv[4], "true");
	assert_null(nv[5]);
	free(nv);
	assert_int_equal(trace_args_parse(6, ARGV("trace", "-q", "--headroom=50%", "--as=1M", "sh",
						  "-c"), &t, &nv, &n), 0);
	assert_int_equal(t.headroom_percent, 50);
	assert_int_equal(n, 6);
	assert_string_equal(nv[1], "--quiet");
	assert_string_equal(nv[2], "--as=1M");      /* attached, as given */
	assert_string_equal(nv[3], "--");
	assert_string_equal(nv[4], "sh");
	assert_string_equal(nv[5], "-c");
	free(nv);
	/* A value "--" can only be attached: sandcap run must see it so (review). */
	assert_int_equal(trace_args_parse(4, ARGV("trace", "--report=--", "--", "true"), &t, &nv,
					  &n), 0);
	assert_string_equal(nv[1], "--report=--");
	assert_string_equal(nv[2], "--");
	assert_string_equal(nv[3], "true");
	free(nv);
	capture_begin();
	assert_int_equal(trace_args_parse(3, ARGV("trace", "--no-cgroup", "--headroom"), &t, &nv,
					  &n), -EINVAL);
	capture_end();
	assert_string_equal(captured, "sandcap: trace: --headroom needs a value; see 'sandcap "
			    "trace --help'\n");
}

static void
test_opt_iter(void **state)
{
	static const struct opt_def defs[] = {
		{ "--signal", 's', true, 1, 0 },
		{ "--json", 0, false, 2, 0 },
	};
	struct opt_iter it;
	char msg[128];

	(void) state;
	opt_init(&it, 6, ARGV("kill", "-s9", "-s", "TERM", "--signal=HUP", "id"), 1, defs, 2, 0);
	assert_int_equal(opt_next(&it), 1);
	assert_string_equal(it.value, "9");
	assert_int_equal(opt_next(&it), 1);
	assert_string_equal(it.value, "TERM");
	assert_int_equal(opt_next(&it), 1);
	assert_string_equal(it.value, "HUP");
	assert_int_equal(opt_next(&it), 0);
	assert_int_equal(it.i, 5);
	opt_init(&it, 2, ARGV("kill", "--signal"), 1, defs, 2, 0);
	assert_int_equal(opt_next(&it), -ENODATA);
	opt_error(&it, -ENODATA, msg, sizeof(msg));
	assert_string_equal(msg, "--signal needs a value");
	opt_init(&it, 2, ARGV("kill", "--json=1"), 1, defs, 2, 0);
	assert_int_equal(opt_next(&it), -EINVAL);
	opt_error(&it, -EINVAL, msg, sizeof(msg));
	assert_string_equal(msg, "--json takes no value (given '--json=1')");
}

static void
test_signals(void **state)
{
	static const struct {
		const char *s;
		int r, sig;
	} cases[] = {
		{ "TERM", 0, 15 }, { "term", 0, 15 }, { "SIGTERM", 0, 15 }, { "sigterm", 0, 15 },
		{ "SigKill", 0, 9 }, { "usr1", 0, 10 }, { "9", 0, 9 }, { "0", 0, 0 },
		{ "64", 0, 64 }, { "65", -ERANGE, 0 }, { "SIG9", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "+9", -EINVAL, 0 }, { "NOPE", -EINVAL, 0 }, { "SIG", -EINVAL, 0 },
	};

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		int sig = -1;

		print_message("'%s'\n", cases[i].s);
		assert_int_equal(opt_parse_signal(cases[i].s, &sig), cases[i].r);
		assert_int_equal(sig, cases[i].r == 0 ? cases[i].sig : -1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_is_classified_as_the_table_says),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_errors_name_the_word),
		cmocka_unit_test(test_no_abbreviations),
		cmocka_unit_test(test_typo_suggestions),
		cmocka_unit_test(test_size_bits_refused),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_last_wins),
		cmocka_unit_test(test_find_profile),
		cmocka_unit_test(test_trace_args),
		cmocka_unit_test(test_opt_iter),
		cmocka_unit_test(test_signals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
