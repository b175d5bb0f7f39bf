/* What the fetchers remember of each host (HOST:PORT): how many
 * connections they opened to it, and the last TLS session it gave, to
 * resume the next handshake with it.
 *
 * Why our own session cache: libcurl 7.88 keeps 8 sessions in a share
 * (5 in a handle), evicting the oldest; a broad crawl makes hundreds of
 * handshakes a second to thousands of hosts, so a session is gone
 * milliseconds after it came and no handshake was ever resumed. Here a
 * session is kept per host (the last one, for FETCH_HOSTS_MAX hosts,
 * least recently used dropped), set on the connection's SSL before its
 * ClientHello is written, and replaced by the next one the host sends
 * (TLS 1.3 tickets come after the handshake). libcurl makes an SSL_CTX
 * per connection; CURLOPT_SSL_CTX_FUNCTION gives it our new-session
 * callback (in place of libcurl's, whose cache would hold nothing) and an
 * info callback, and tags it with the host it connects to.
 *
 * One table for every fetcher of a fetch_shared (under its mutex: a
 * lookup per new connection, not per request), or the fetcher's own. */
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/fetch_int.h"

#define FETCH_HOSTS_MAX 16384   /* a session holds the host's certificates: a few KiB */

struct host_ent {
  struct lru_node node;
  SSL_SESSION    *sess;
  uint64_t        opened;
  long            keepalive_s;    /* the host's Keep-Alive: timeout=N; 0: none said */
  char            key[FETCH_HOST_KEY];
};

/* The tag on a connection's SSL_CTX. */
struct host_tag {
  struct fetch_hosts *hs;
  char                key[FETCH_HOST_KEY];
};

static int tag_idx = -1;
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;

static void tag_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
  (void)parent;
  (void)ad;
  (void)idx;
  (void)argl;
  (void)argp;
  mem_free(ptr);
}

static void tag_init(void)
{
  tag_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, tag_free);
}

static bool ent_eq(const struct lru_node *n, const void *key)
{
  return !strcmp(LRU_ENTRY(n, struct host_ent, node)->key, key);
}

static void ent_free(struct host_ent *e)
{
  if(e->sess)
    SSL_SESSION_free(e->sess);
  mem_free(e);
}

int fetch_hosts_init(struct fetch_hosts *hs)
{
  pthread_once(&tag_once, tag_init);
  pthread_mutex_init(&hs->mu, NULL);
  hs->max = FETCH_HOSTS_MAX;
  return tag_idx < 0 || lru_init(&hs->l, FETCH_HOSTS_MAX) ? -1 : 0;
}

void fetch_hosts_fini(struct fetch_hosts *hs)
{
  if(!hs->l.tab)
    return;
  while(hs->l.tail) {
    struct lru_node *n = hs->l.tail;
    lru_remove(&hs->l, n);
    ent_free(LRU_ENTRY(n, struct host_ent, node));
  }
  lru_fini(&hs->l);
  pthread_mutex_destroy(&hs->mu);
}

/* The host's entry, made (and the oldest dropped) if new; under hs->mu.
 * NULL on out of memory. */
static struct host_ent *hosts_get(struct fetch_hosts *hs, const char *key, bool *made)
{
  uint64_t h = hash_fp64(key, strlen(key));
  struct lru_node *n = lru_find(&hs->l, h, ent_eq, key);
  *made = false;
  if(n) {
    lru_touch(&hs->l, n);
    return LRU_ENTRY(n, struct host_ent, node);
  }
  struct host_ent *e = mem_calloc(1, sizeof *e);
  if(!e)
    return NULL;
  str_copy(e->key, sizeof e->key, key);
  e->node.h = h;
  e->node.bytes = 1;
  if(hs->l.n >= hs->max) {
    struct lru_node *old = hs->l.tail;
    lru_remove(&hs->l, old);
    ent_free(LRU_ENTRY(old, struct host_ent, node));
  }
  lru_insert(&hs->l, &e->node);
  *made = true;
  return e;
}

void fetch_host_key(const struct fetch_url *u, char *key, size_t len)
{
  snprintf(key, len, "%s:%u", u->host, u->port);
}

bool fetch_hosts_opened(struct fetch_hosts *hs, const char *key)
{
  bool made = false;
  pthread_mutex_lock(&hs->mu);
  struct host_ent *e = hosts_get(hs, key, &made);
  if(e)
    e->opened++;
  pthread_mutex_unlock(&hs->mu);
  return made;
}

void fetch_hosts_set_keepalive(struct fetch_hosts *hs, const char *key, long secs)
{
  bool made;
  pthread_mutex_lock(&hs->mu);
  struct host_ent *e = hosts_get(hs, key, &made);
  if(e)
    e->keepalive_s = secs;
  pthread_mutex_unlock(&hs->mu);
}

long fetch_hosts_keepalive(struct fetch_hosts *hs, const char *key)
{
  long v = 0;
  pthread_mutex_lock(&hs->mu);
  struct lru_node *n = lru_find(&hs->l, hash_fp64(key, strlen(key)), ent_eq, key);
  if(n)
    v = LRU_ENTRY(n, struct host_ent, node)->keepalive_s;
  pthread_mutex_unlock(&hs->mu);
  return v;
}

/* OpenSSL's: a session the host gave us. 1: we keep its reference. */
static int hosts_on_session(SSL *ssl, SSL_SESSION *sess)
{
  struct host_tag *t = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tag_idx);
  bool made;
  if(!t || !SSL_SESSION_is_resumable(sess))
    return 0;
  struct fetch_hosts *hs = t->hs;
  pthread_mutex_lock(&hs->mu);
  struct host_ent *e = hosts_get(hs, t->key, &made);
  if(e) {
    if(e->sess)
      SSL_SESSION_free(e->sess);
    e->sess = sess;
  }
  pthread_mutex_unlock(&hs->mu);
  return e ? 1 : 0;
}

/* OpenSSL's, as the handshake starts and before the ClientHello is
 * written: offer the host's last session. */
static void hosts_on_info(const SSL *cssl, int where, int ret)
{
  SSL *ssl = (SSL *)cssl;
  (void)ret;
  if(!(where & SSL_CB_HANDSHAKE_START) || SSL_get_session(ssl))
    return;
  struct host_tag *t = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tag_idx);
  if(!t)
    return;
  struct fetch_hosts *hs = t->hs;
  SSL_SESSION *s = NULL;
  pthread_mutex_lock(&hs->mu);
  uint64_t h = hash_fp64(t->key, strlen(t->key));
  struct lru_node *n = lru_find(&hs->l, h, ent_eq, t->key);
  if(n && (s = LRU_ENTRY(n, struct host_ent, node)->sess))
    SSL_SESSION_up_ref(s);
  pthread_mutex_unlock(&hs->mu);
  if(s) {
    SSL_set_session(ssl, s);
    SSL_SESSION_free(s);
  }
}

/* CURLOPT_SSL_CTX_FUNCTION: the context of one new connection. */
CURLcode fetch_hosts_ssl_ctx(CURL *easy, void *sslctx, void *arg)
{
  struct fetcher *f = arg;
  struct fetch_job *j = NULL;
  SSL_CTX *ctx = sslctx;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&j);
  if(!j || j->magic != FETCH_JOB_MAGIC)
    return CURLE_OK;
  struct host_tag *t = mem_calloc(1, sizeof *t);
  if(!t)
    return CURLE_OK;   /* no resumption: the handshake still works */
  t->hs = f->hosts;
  fetch_host_key(&j->u, t->key, sizeof t->key);
  if(!SSL_CTX_set_ex_data(ctx, tag_idx, t)) {
    mem_free(t);
    return CURLE_OK;
  }
  SSL_CTX_sess_set_new_cb(ctx, hosts_on_session);
  SSL_CTX_set_info_callback(ctx, hosts_on_info);
  return CURLE_OK;
}

/* Whether the transfer's connection is TLS, and if so whether its
 * handshake resumed a session: -1 not TLS (or not known), 0 full, 1
 * resumed. */
int fetch_hosts_tls_resumed(CURL *easy)
{
  struct curl_tlssessioninfo *ti = NULL;
  if(curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &ti) != CURLE_OK || !ti ||
     ti->backend != CURLSSLBACKEND_OPENSSL || !ti->internals)
    return -1;
  SSL *ssl = ti->internals;
  if(!SSL_is_init_finished(ssl))
    return -1;
  return SSL_session_reused(ssl) ? 1 : 0;
}
