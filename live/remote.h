/*
 * remote.h — the front end of the state streams (remote.c): listens for the
 * node agents (agent.c), authenticates them, and keeps one remote rank
 * (livefile.c, lf_open_remote) per rank they send, for the live view
 * (live.c) to read as if it were a rank file.
 */
#ifndef ML_REMOTE_H
#define ML_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream.h"

struct rsrv;
struct lf;

/* Listen on addr ("[ADDR:]PORT"; ADDR default 127.0.0.1).  Messages (one
 * line each: rejected connections, lost streams) go to msgs with prefix
 * ("mpilens top").  NULL and a reason in err on failure. */
struct rsrv *rs_listen(const char *addr, const uint8_t secret[MS_SECRET_LEN], FILE *msgs, const char *prefix,
                       char *err, size_t errn);
int rs_port(const struct rsrv *s);
/* Accept, authenticate, read and apply what arrived, waiting up to
 * timeout_ms for something to arrive (0: only what is there). */
void rs_poll(struct rsrv *s, int timeout_ms);
/* The next rank that arrived since the last call, NULL if none.  The rank
 * stays owned by s (rs_free closes it). */
struct lf *rs_take(struct rsrv *s);
/* Streams connected and authenticated now, and ever. */
unsigned rs_streams(const struct rsrv *s, unsigned *ever);
/* Ask every connected agent to stop the ranks of its node (MS_STOP: SIGTERM,
 * SIGKILL 3 s later).  Returns the number of their ranks that had not
 * finished; *agents: how many agents were asked. */
unsigned rs_stop(struct rsrv *s, unsigned *agents);
void rs_free(struct rsrv *s);

/* One message of an authenticated stream, for tests (tests/unit/test_stream.c):
 * a connection with no socket, its messages applied as if they had
 * arrived with valid tags.  0 ok, -1 the message is malformed (the stream
 * would be closed). */
struct rconn;
struct rconn *rs_test_conn(struct rsrv *s);
int rs_test_msg(struct rsrv *s, struct rconn *c, uint8_t type, const uint8_t *body, size_t n);
struct rsrv *rs_test_new(void);

#endif
