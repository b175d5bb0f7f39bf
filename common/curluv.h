#ifndef WPFS_COMMON_CURLUV_H
#define WPFS_COMMON_CURLUV_H
/* A libcurl multi handle driven by a libuv loop through the multi socket
 * API: curl's sockets are watched with uv_poll, its timer with a uv_timer,
 * and finished transfers are handed to their done callback.
 *
 * Contracts: done runs once per added handle, from the loop, never from
 * inside curluv_add; the handle has already been removed from the multi,
 * so done may clean it up or add it again. curluv_remove cancels: done is
 * then never called. */
#include <curl/curl.h>
#include <uv.h>

struct curluv;
typedef void curluv_done_fn(CURL *easy, CURLcode rc, void *arg);

/* NULL if libcurl cannot make a multi handle. */
struct curluv *curluv_new(uv_loop_t *loop);
/* For curl_multi_setopt (connection cache size, per-host limits...). */
CURLM *curluv_multi(struct curluv *c);
/* 0, or the CURLMcode that refused the handle (done is then never called). */
int  curluv_add(struct curluv *c, CURL *easy, curluv_done_fn *done, void *arg);
void curluv_remove(struct curluv *c, CURL *easy);
/* Remove every handle without calling done (their owners must free them),
 * close the loop handles; memory goes once the loop has run. */
void curluv_free(struct curluv **cp);

#endif
