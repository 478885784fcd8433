// SPDX-License-Identifier: GPL-2.0
/*
 * tests/lib/hrtrace.h leaves tracefs as it found it: hrt_start() turns the
 * ring buffer and timer:hrtimer_expire_entry on, hrt_stop() puts back the
 * tracing_on and the event's enable it found, whatever they were, and a
 * program that exits between the two (t_fatal(), t_skip()) puts them back
 * at exit.  The truth is tracefs's own files, read here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hrtrace.h"
#include "test.h"

#define TR "/sys/kernel/tracing/"

/* The first character of tracefs file name ('0' or '1'), or '?'. */
static char get(const char *name)
{
	char path[256], c = '?';
	FILE *f;

	snprintf(path, sizeof(path), TR "%s", name);
	f = fopen(path, "re");
	if (f) {
		c = (char)fgetc(f);
		fclose(f);
	}
	return c;
}

static void set(const char *name, char v)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), TR "%s", name);
	f = fopen(path, "we");
	if (!f || fputc(v, f) == EOF || fclose(f))
		t_fatal(path);
}

/*
 * From tracing_on on and the event's enable ev, a child starts; it stops
 * with hrt_stop() or, by_exit, just exits.
 */
static void round_trip(char on, char ev, int by_exit)
{
	char on_in, ev_in;
	int status;
	pid_t pid;

	set("tracing_on", on);
	set(HRT_EVENT, ev);
	pid = fork();
	if (pid < 0)
		t_fatal("fork");
	if (!pid) {
		if (hrt_start())
			_exit(100);
		/* what hrt_start set, for the parent, in the exit status */
		status = (get("tracing_on") == '1') |
			 (get(HRT_EVENT) == '1') << 1;
		if (by_exit)
			exit(status);	/* hrt_start's atexit puts them back */
		hrt_stop();
		_exit(status);		/* no atexit */
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		t_fatal("waitpid");
	t_check(WEXITSTATUS(status) == 3,
		"from tracing_on %c, enable %c: hrt_start turned both on (%d)",
		on, ev, WEXITSTATUS(status));
	on_in = get("tracing_on");
	ev_in = get(HRT_EVENT);
	t_check(on_in == on && ev_in == ev,
		"%s put back tracing_on %c (%c) and enable %c (%c)",
		by_exit ? "exit after hrt_start" : "hrt_stop", on, on_in, ev,
		ev_in);
}

int main(void)
{
	char on, ev;

	if (access(TR "trace", W_OK))
		t_skip("no tracefs at " TR);
	on = get("tracing_on");
	ev = get(HRT_EVENT);
	if (on == '?' || ev == '?')
		t_skip("no tracing_on or timer:hrtimer_expire_entry here");

	round_trip('1', '0', 0);	/* the defaults */
	round_trip('0', '1', 0);	/* not them */
	round_trip('0', '0', 1);
	round_trip('1', '1', 1);

	set("tracing_on", on);
	set(HRT_EVENT, ev);
	return t_done();
}
