// SPDX-License-Identifier: GPL-2.0
/*
 * Taskstats exit records: resolve the TASKSTATS generic netlink family,
 * register for exits on every CPU, then read TASKSTATS_TYPE_AGGR_PID
 * records (one per exiting thread; the AGGR_TGID ones repeat the group).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "userspace/backend/perf/perf.h"

#define TS_BUF		65536
#define TS_RCVBUF	(4 << 20)

struct lwprof_ts {
	int fd;			/* exit records */
	int qfd;		/* queries, whose answers must not mix with them */
	__u16 family;
	__u32 seq;
	char mask[32];		/* the CPUs registered for, or "" */
	char *buf;
};

#define NLA_OK_LEN(len)	((len) >= (int)sizeof(struct nlattr))
#define NLA_DATA(a)	((char *)(a) + NLA_HDRLEN)
#define NLA_NEXT(a)	((struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define GENL_ATTRS(nh)	((struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN))

/*
 * Send one request with one attribute and wait for its ack; the answer, if
 * any, is copied to answer (len bytes at most).
 */
static int ts_request(struct lwprof_ts *ts, int fd, __u16 type, __u8 cmd,
		      __u16 atype, const void *val, int vlen, void *answer,
		      size_t len)
{
	char req[256] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (struct nlmsghdr *)req;
	struct genlmsghdr *g = NLMSG_DATA(nh);
	struct nlattr *a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	__u32 seq = ++ts->seq;
	ssize_t n;

	if (NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + NLA_ALIGN(vlen) >
	    (int)sizeof(req))
		return -EINVAL;
	memset(req, 0, sizeof(req));
	a->nla_type = atype;
	a->nla_len = NLA_HDRLEN + vlen;
	memcpy(NLA_DATA(a), val, vlen);
	g->cmd = cmd;
	g->version = 1;
	nh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + NLA_ALIGN(vlen);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = seq;
	if (send(fd, req, nh->nlmsg_len, 0) < 0)
		return -errno;
	/* Exit records may come first: they precede the session, skip them. */
	for (;;) {
		n = recv(fd, ts->buf, TS_BUF, 0);
		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return -errno;
		}
		for (nh = (struct nlmsghdr *)ts->buf; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				return e->error;
			}
			if (answer && nh->nlmsg_len <= len)
				memcpy(answer, nh, nh->nlmsg_len);
		}
	}
}

/* The family id of "TASKSTATS" from the controller's answer. */
static int ts_family(struct lwprof_ts *ts)
{
	__u32 ans[1024];
	struct nlmsghdr *nh = (struct nlmsghdr *)ans;
	struct nlattr *a;
	int len, err;

	memset(ans, 0, sizeof(ans));
	err = ts_request(ts, ts->qfd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			 CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
			 sizeof(TASKSTATS_GENL_NAME), ans, sizeof(ans));
	if (err)
		return err;
	if (nh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -ENOENT;
	len = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	for (a = GENL_ATTRS(nh); NLA_OK_LEN(len) && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len; len -= NLA_ALIGN(a->nla_len), a = NLA_NEXT(a)) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) {
			memcpy(&ts->family, NLA_DATA(a), sizeof(ts->family));
			return 0;
		}
	}
	return -ENOENT;
}

int lwprof_ts_open(struct lwprof_ts **out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tmo = { 1, 0 };
	int rcv = TS_RCVBUF, err;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct lwprof_ts *ts;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	ts->fd = ts->qfd = -1;
	ts->buf = malloc(TS_BUF);
	ts->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ts->qfd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!ts->buf || ts->fd < 0 || ts->qfd < 0) {
		err = ts->buf ? -errno : -ENOMEM;
		goto fail;
	}
	/* Room for bursts of exits; FORCE only works with CAP_NET_ADMIN. */
	if (setsockopt(ts->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(ts->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	/* An ack lost to a full buffer must not hang us. */
	setsockopt(ts->fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(ts->qfd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (bind(ts->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto fail;
	}
	err = ts_family(ts);
	if (err)
		goto fail;
	snprintf(ts->mask, sizeof(ts->mask), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	err = ts_request(ts, ts->fd, ts->family, TASKSTATS_CMD_GET,
			 TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, ts->mask,
			 strlen(ts->mask) + 1, NULL, 0);
	if (err) {
		ts->mask[0] = 0;
		goto fail;
	}
	*out = ts;
	return 0;
fail:
	lwprof_ts_close(ts);
	return err;
}

/* The AGGR_PID nest of one TASKSTATS_CMD_NEW message: its STATS. */
static void ts_message(struct nlmsghdr *nh,
		       void (*fn)(void *arg, const struct taskstats *t),
		       void *arg)
{
	int len = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *a, *s;
	struct taskstats t;
	int slen;

	for (a = GENL_ATTRS(nh); NLA_OK_LEN(len) && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len; len -= NLA_ALIGN(a->nla_len), a = NLA_NEXT(a)) {
		if ((a->nla_type & NLA_TYPE_MASK) != TASKSTATS_TYPE_AGGR_PID)
			continue;
		slen = a->nla_len - NLA_HDRLEN;
		for (s = (struct nlattr *)NLA_DATA(a);
		     NLA_OK_LEN(slen) && s->nla_len >= NLA_HDRLEN &&
		     s->nla_len <= slen;
		     slen -= NLA_ALIGN(s->nla_len), s = NLA_NEXT(s)) {
			size_t n = s->nla_len - NLA_HDRLEN;

			if ((s->nla_type & NLA_TYPE_MASK) != TASKSTATS_TYPE_STATS)
				continue;
			/* Older kernels send less, newer ones more. */
			memset(&t, 0, sizeof(t));
			memcpy(&t, NLA_DATA(s), n < sizeof(t) ? n : sizeof(t));
			fn(arg, &t);
		}
	}
}

int lwprof_ts_drain(struct lwprof_ts *ts,
		    void (*fn)(void *arg, const struct taskstats *t),
		    void *arg)
{
	struct nlmsghdr *nh;
	int lost = 0;
	ssize_t n;

	for (;;) {
		n = recv(ts->fd, ts->buf, TS_BUF, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				lost++;		/* at least one */
				continue;
			}
			if (errno == EAGAIN)
				return lost;
			return -errno;
		}
		for (nh = (struct nlmsghdr *)ts->buf; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n))
			if (nh->nlmsg_type == ts->family)
				ts_message(nh, fn, arg);
	}
}

static void ts_copy(void *arg, const struct taskstats *t)
{
	memcpy(arg, t, sizeof(*t));
}

int lwprof_ts_query(struct lwprof_ts *ts, __u32 tid, struct taskstats *t)
{
	__u32 ans[2048];
	struct nlmsghdr *nh = (struct nlmsghdr *)ans;
	int err;

	nh->nlmsg_len = 0;
	err = ts_request(ts, ts->qfd, ts->family, TASKSTATS_CMD_GET,
			 TASKSTATS_CMD_ATTR_PID, &tid, sizeof(tid), ans,
			 sizeof(ans));
	if (err)
		return err;
	if (nh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -ESRCH;
	memset(t, 0, sizeof(*t));
	ts_message(nh, ts_copy, t);
	return t->ac_pid == tid ? 0 : -ESRCH;
}

void lwprof_ts_close(struct lwprof_ts *ts)
{
	if (!ts)
		return;
	/* The kernel would drop us at its next send to a closed socket. */
	if (ts->mask[0])
		ts_request(ts, ts->fd, ts->family, TASKSTATS_CMD_GET,
			   TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, ts->mask,
			   strlen(ts->mask) + 1, NULL, 0);
	if (ts->fd >= 0)
		close(ts->fd);
	if (ts->qfd >= 0)
		close(ts->qfd);
	free(ts->buf);
	free(ts);
}
