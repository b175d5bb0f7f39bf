#ifndef WPFS_HLFS_SENTINEL_H
#define WPFS_HLFS_SENTINEL_H
/* Where is the master? Asks Redis Sentinels in turn ("SENTINEL
 * get-master-addr-by-name"), asynchronously on the libuv loop, for the
 * store (hlfs/state/store.c) to connect to. One question at a time.
 *
 * Contracts: sentinel_ask returns non-zero (and never calls cb) when a
 * question is already under way; otherwise cb runs exactly once with the
 * master's address, or host NULL when no sentinel knew it (each is given
 * timeout_ms); from the loop, or before sentinel_ask returns when no
 * sentinel could even be tried. sentinel_free cancels: no callback after. */
#include <stdint.h>
#include <uv.h>

struct sentinel;
typedef void sentinel_cb(void *arg, const char *host, int port);

/* addrs: "host:port,host:port,..."; NULL when none parses. */
struct sentinel *sentinel_new(uv_loop_t *loop, const char *addrs, const char *master,
                              uint32_t timeout_ms);
int  sentinel_ask(struct sentinel *q, sentinel_cb *cb, void *arg);
void sentinel_free(struct sentinel **qp);

#endif
