/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector API of lwprof, under the names of Oracle's libcollector
 * (docs/guide/commands.md, "The collector API").  Link with -llwprof_collector.
 * Under lwprof collect, each call reaches the recorder; without it, each
 * call does nothing and returns at once.  The calls are async-signal-safe
 * and never block on the recorder.
 *
 *   collector_sample(name)     record a global sample packet: the sample
 *                              that begins here is called name (NULL: none)
 *   collector_pause()          stop recording data (sample packets go on);
 *                              the paused time is in no metric
 *   collector_resume()         record again
 *   collector_terminate_expt() stop recording for good: the experiment ends
 *                              here, the program runs on
 */
#ifndef LWPROF_COLLECTOR_H
#define LWPROF_COLLECTOR_H

#ifdef __cplusplus
extern "C" {
#endif

void collector_sample(const char *name);
void collector_pause(void);
void collector_resume(void);
void collector_terminate_expt(void);

#ifdef __cplusplus
}
#endif

#endif
