#ifndef WPFS_HLFS_REDIS_UV_H
#define WPFS_HLFS_REDIS_UV_H
/* hiredis on a libuv loop: hiredis's own adapter (hiredis/adapters/libuv.h)
 * with one change. That adapter restarts its poll on every event hiredis
 * asks for: a write for every command queued, a read after every read,
 * even when the poll already watches it. libuv's uv_poll_start first takes
 * the descriptor out of epoll (an EPOLL_CTL_DEL) and later puts it back
 * (an EPOLL_CTL_ADD): two system calls each time, most of the gateway's
 * epoll_ctl calls in a crawl (strace -k), about 4.5 % of its CPU (perf).
 * Here the poll is restarted only when the events it watches change, and
 * a poll error (a reset connection, a refused connect) is handed to hiredis
 * as the events watched, which hiredis 0.14's adapter drops (hiredis 1.0
 * does the same as here). */
#include <hiredis/async.h>
#include <uv.h>

/* REDIS_OK, or REDIS_ERR (already attached, no memory, libuv refused). */
int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop);

#endif
