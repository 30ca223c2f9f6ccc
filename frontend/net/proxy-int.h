/* SPDX-License-Identifier: MIT */
/* Inside net/: the egress proxy's process, shared by its files and by nothing else (the
 * API is proxy.h; parsers: proxy-parse.c; decisions: allow.c; peers: proxy-peer.c):
 *   proxy.c           starting the proxy process, authorizing its sandbox, collecting
 *                     its records
 *   proxy-loop.c      the event loop: what it polls, the control pipe, the end
 *   proxy-conn.c      the connection table and admission (peer check, secret), replies
 *   proxy-head.c      reading and acting on the request head (HTTP, SOCKS5)
 *   proxy-upstream.c  the allow-list's decision, resolution, connecting upstream
 *   proxy-relay.c     relaying bytes both ways once connected
 *   proxy-record.c    the report records, as the proxy writes and sandcap reads them
 *
 * Process model: sandcap forks the proxy before the sandbox exists.  The proxy is not
 * dumpable (the sandbox runs as the same user: without this it could ptrace the proxy,
 * read its secret or write its memory and make it connect anywhere), is not sandcap's child
 * (the supervisor owns those) but ends when sandcap's end of the stop pipe closes.  It is
 * one process with one poll() loop: no fork, no thread, so the sandbox cannot make it
 * grow past max_conn connections of fixed-size buffers (struct pconn), whatever it does.
 *
 * Who may use it: the proxy serves its own sandbox and nobody else.  An accepted
 * connection is first looked up in the kernel (sock_diag, proxy-peer.h): a peer socket of
 * another uid, or outside the sandbox's cgroup in cgroup and user-cgroup mode, is closed at
 * once, before it has a slot, and leaves no record.  Then the request must carry the
 * per-run secret (HTTP Proxy-Authorization: Basic, SOCKS5 username/password), the only
 * discriminator between two sandboxes of one user in rlimit mode.  A connection that has
 * not authenticated yet holds a slot only until a new one needs it (the oldest such is
 * dropped), so idle connections of someone else cannot starve the sandbox's.
 *
 * Nothing here waits without a deadline on the sandbox's side of a connection except the
 * relay itself, which the sandbox's end (closed with the sandbox) or the stop ends.  When
 * sandcap closes the stop pipe, the proxy gives the open relays a short grace, records
 * what is left as open at the end, writes the records to the result pipe and exits. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "macro.h"
#include "net/allow.h"
#include "net/proxy-parse.h"
#include "net/proxy.h"
#include "time-util.h"

#define HEAD_DEADLINE_MS    30000 /* the whole request head */
#define CONNECT_DEADLINE_MS 10000 /* per address tried */
#define STOP_GRACE_MS       1000  /* for children to report after the stop */
#define RESULT_DEADLINE_MS  5000  /* sandcap's wait for the result */
#define RELAY_BUF           16384 /* upstream -> client, per connection */
#define ADDRS_MAX           16    /* addresses of one name tried */
#define PROXY_CTL_MAGIC     UINT64_C(0x73616e6463617031)

enum pstate {
	ST_FREE,
	ST_HEAD,       /* reading the request (HTTP) or the SOCKS5 greeting */
	ST_SOCKS_AUTH, /* reading the SOCKS5 username/password */
	ST_SOCKS_REQ,  /* authenticated: reading the SOCKS5 request */
	ST_CONNECTING,
	ST_RELAY,
};

struct pconn {
	int64_t since, deadline; /* deadline: ST_HEAD .. ST_CONNECTING */
	/* client -> upstream: the head, then the payload (in_off: what was sent or parsed) */
	size_t in_off, in_len;
	/* upstream -> client, and the proxy's own reply first */
	size_t out_off, out_len;
	size_t fwd_off; /* PROXY_HTTP_FORWARD: req.fwd sent so far */
	size_t n_addr, i_addr;
	struct net_conn rec;
	struct sockaddr_storage addr[ADDRS_MAX];
	struct proxy_req req;
	enum pstate st;
	int cl, up;
	int last_err;
	socklen_t addr_len[ADDRS_MAX];
	bool authed; /* the secret was right: the connection is recorded */
	bool cl_eof, up_eof, cl_shut, up_shut;
	uint8_t in[PROXY_HEAD_MAX];
	uint8_t out[RELAY_BUF];
};

struct px {
	const struct allow_list *l;
	int lfd, ctl, nl;
	size_t max_conn;
	uid_t uid;
	uint64_t cgroup; /* the sandbox's cgroup v2 id; 0: not checked */
	bool configured, stopping;
	int64_t stop_deadline;
	char cred[8 + 2 * PROXY_SECRET_BYTES + 1]; /* "sandcap:HEX" */
	size_t cred_len;
	size_t n_rec;
	uint64_t omitted, denied;
	struct net_conn rec[NET_CONNS_MAX];
	struct pconn slots[NET_CONCURRENT_MAX];
};

static inline int64_t
now_ms(void)
{
	return (int64_t) mono_ms();
}

static inline int
left_ms(int64_t deadline)
{
	int64_t l = deadline - now_ms();

	return l < 0 ? 0 : l > INT_MAX ? INT_MAX : (int) l;
}

/* proxy-loop.c */
_Noreturn void px_main(struct px *px, int res_w);

/* proxy-conn.c */
bool px_cred_equal(const struct px *px, const char *c, size_t len);
void px_say(int fd, const void *p, size_t n);
void px_http_error(int fd, int status, const char *reason);
void px_socks_reply(int fd, uint8_t rep);
void px_conn_end(struct px *px, struct pconn *c);
void px_conn_reason(struct pconn *c, bool denied, const char *fmt, ...) _printf_(3, 4);
void px_refuse_client(struct pconn *c, int r);
void px_on_accept(struct px *px);

/* proxy-head.c */
void px_on_head_event(struct px *px, struct pconn *c, short ev);

/* proxy-upstream.c */
void px_begin(struct px *px, struct pconn *c);
void px_on_connecting(struct px *px, struct pconn *c, short up_ev);

/* proxy-relay.c */
int px_pull(int fd, uint8_t *buf, size_t cap, size_t *len, uint64_t *count);
bool px_c2u_pending(const struct pconn *c);
void px_on_relay(struct px *px, struct pconn *c, short cl_ev, short up_ev);
