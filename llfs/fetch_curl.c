/* One libcurl transfer per job on the fetcher's multi handle (its sockets
 * and timer on the loop: fetch_sock.c): options (pinned address, limits, no redirects), the write, header,
 * progress and open-socket callbacks that enforce the caps and the guard,
 * and the mapping of CURLE_* to outcomes (only this file sees them). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/mem.h"
#include "common/str.h"
#include "llfs/fetch_int.h"
#include "llfs/proxy.h"

/* ---- the multi handle ---- */

int fetch_curl_init(struct fetcher *f, char *err, size_t errlen)
{
  if(curl_global_init(CURL_GLOBAL_DEFAULT)) {
    snprintf(err, errlen, "libcurl initialization failed");
    return -1;
  }
  f->curl_global = true;
  f->multi = curl_multi_init();
  f->share = f->shared ? f->shared->share : curl_share_init();
  if(!f->multi || !f->share) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  f->hosts = f->shared ? &f->shared->hosts : &f->own_hosts;
  if(!f->shared && fetch_hosts_init(&f->own_hosts)) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  fetch_sock_init(f);
  curl_multi_setopt(f->multi, CURLMOPT_MAX_HOST_CONNECTIONS, f->cfg.max_host_connections);
  curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, f->cfg.max_connections);
  if(!f->shared)
    curl_share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  return 0;
}

void fetch_curl_fini(struct fetcher *f)
{
  while(f->neasy_pool)
    curl_easy_cleanup(f->easy_pool[--f->neasy_pool]);
  if(f->multi)
    curl_multi_cleanup(f->multi);   /* closes the kept-alive connections */
  if(f->share && !f->shared)
    curl_share_cleanup(f->share);
  if(f->hosts == &f->own_hosts)
    fetch_hosts_fini(&f->own_hosts);   /* after the connections that point at it */
  f->hosts = NULL;
  f->multi = NULL;
  f->share = NULL;
  fetch_sock_fini(f);
  if(f->curl_global)
    curl_global_cleanup();
  f->curl_global = false;
}

/* ---- the TLS session cache of fetchers on several threads ---- */

static void fc_share_lock(CURL *e, curl_lock_data data, curl_lock_access access, void *userp)
{
  struct fetch_shared *sh = userp;
  (void)e;
  (void)access;
  pthread_mutex_lock(&sh->locks[data]);
}

static void fc_share_unlock(CURL *e, curl_lock_data data, void *userp)
{
  struct fetch_shared *sh = userp;
  (void)e;
  pthread_mutex_unlock(&sh->locks[data]);
}

int fetch_curl_shared_init(struct fetch_shared *sh, char *err, size_t errlen)
{
  if(curl_global_init(CURL_GLOBAL_DEFAULT)) {
    snprintf(err, errlen, "libcurl initialization failed");
    return -1;
  }
  sh->curl_global = true;
  if(!(sh->share = curl_share_init())) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  curl_share_setopt(sh->share, CURLSHOPT_LOCKFUNC, fc_share_lock);
  curl_share_setopt(sh->share, CURLSHOPT_UNLOCKFUNC, fc_share_unlock);
  curl_share_setopt(sh->share, CURLSHOPT_USERDATA, sh);
  curl_share_setopt(sh->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  return 0;
}

void fetch_curl_shared_fini(struct fetch_shared *sh)
{
  if(sh->share)
    curl_share_cleanup(sh->share);
  sh->share = NULL;
  if(sh->curl_global)
    curl_global_cleanup();
  sh->curl_global = false;
}

/* ---- one transfer ---- */

static size_t fc_on_write(char *p, size_t sz, size_t n, void *ud)
{
  struct fetch_job *j = ud;
  size_t len = sz * n, room = j->max_decoded - j->res.body.len;
  curl_off_t raw = 0;
  j->res.bytes_decoded += len;
  /* The raw count already includes the bytes being delivered: past the
   * cap, keep nothing more (the progress callback alone would let a fast
   * sender run a hundred reads ahead). */
  curl_easy_getinfo(j->easy, CURLINFO_SIZE_DOWNLOAD_T, &raw);
  if(raw > 0 && (uint64_t)raw > j->max_body) {
    j->over = OVER_RAW;
    j->res.truncated = true;
    return 0;
  }
  if(len > room) {
    buf_add(&j->res.body, p, room);
    j->res.truncated = true;
    j->over = OVER_DECODED;
    return 0;   /* CURLE_WRITE_ERROR: the transfer stops here */
  }
  if(buf_add(&j->res.body, p, len)) {
    j->over = OVER_NOMEM;
    return 0;
  }
  return len;
}

/* "Keep-Alive: timeout=5, max=100" (RFC 2068 19.7.1.1): the seconds the
 * server keeps an idle connection; 0 if the line is not that. */
static long fc_keepalive_timeout(const char *p, size_t len)
{
  char line[128];
  if(len < 11 || len >= sizeof line || strncasecmp(p, "keep-alive:", 11))
    return 0;
  memcpy(line, p, len);
  line[len] = '\0';
  for(char *s = line + 11; (s = strcasestr(s, "timeout=")); s += 8) {
    if(s[-1] != ' ' && s[-1] != ',' && s[-1] != ':')
      continue;
    long v = strtol(s + 8, NULL, 10);
    return v > 0 && v < 86400 ? v : 0;
  }
  return 0;
}

static size_t fc_on_header(char *p, size_t sz, size_t n, void *ud)
{
  struct fetch_job *j = ud;
  size_t len = sz * n;
  /* The first line: the connection is the transfer's now (by the end it
   * may be back in the cache, or closed). */
  if(!j->hdr_bytes && j->opened)
    j->tls = fetch_hosts_tls_resumed(j->easy);
  j->hdr_bytes += len;
  if(j->hdr_bytes > j->f->cfg.max_header_bytes) {
    j->over = OVER_HEADER;
    return 0;
  }
  if((p[0] == 'K' || p[0] == 'k') && !j->hdr_done)
    j->keepalive_s = fc_keepalive_timeout(p, len);
  if(fetch_res_header_line(&j->res, p, len)) {
    j->over = OVER_NOMEM;
    return 0;
  }
  /* The blank line ends a head; a 1xx head is followed by another. */
  if(len <= 2 && (p[0] == '\r' || p[0] == '\n')) {
    long code = 0;
    curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &code);
    j->hdr_done = code >= 200;
  }
  return len;
}

/* dlnow counts body bytes as received, before decoding: the raw cap. */
static int fc_on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                          curl_off_t ulnow)
{
  struct fetch_job *j = ud;
  (void)dltotal;
  (void)ultotal;
  (void)ulnow;
  if(dlnow > 0 && (uint64_t)dlnow > j->max_body) {
    j->over = OVER_RAW;
    j->res.truncated = true;
    return 1;
  }
  return 0;
}

/* Through a proxy, every socket goes to the proxy; the target's address
 * passed the guard before it was named to the proxy (fc_connect_to). */
static enum guard_verdict fc_proxy_verdict(const struct fetcher *f, int family,
                                           const unsigned char *b)
{
  return fetch_proxy_is(f->proxy, family, b) ? GUARD_OK : GUARD_NOT_PROXY;
}

/* The last gate before connect(2): whatever address libcurl is about to
 * use goes through the guard again, so nothing but a checked address is
 * ever contacted, even if a pin were bypassed. */
static curl_socket_t fc_on_open(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
  struct fetch_job *j = ud;
  const unsigned char *b = NULL;
  (void)purpose;
  if(a->family == AF_INET)
    b = (const unsigned char *)&((const struct sockaddr_in *)(const void *)&a->addr)->sin_addr;
  else if(a->family == AF_INET6)
    b = (const unsigned char *)&((const struct sockaddr_in6 *)(const void *)&a->addr)->sin6_addr;
  enum guard_verdict v = !b ? GUARD_BAD_FAMILY : j->f->proxy ? fc_proxy_verdict(j->f, a->family, b)
                                                             : guard_check(j->f->guard, a->family, b);
  if(v != GUARD_OK) {
    j->sock_blocked = v;
    return CURL_SOCKET_BAD;
  }
  curl_socket_t fd = fetch_sock_open(j->f, a->family, a->socktype, a->protocol);
  if(fd != CURL_SOCKET_BAD) {
    char key[FETCH_HOST_KEY];
    fetch_host_key(&j->u, key, sizeof key);
    bool first = fetch_hosts_opened(j->f->hosts, key);
    j->opened = true;
    fetch_stats_lock(j->f);
    j->f->st.conn_opened++;
    j->f->st.conn_hosts += first;
    fetch_stats_unlock(j->f);
  }
  return fd;
}

static enum outcome fc_map_curle(const struct fetch_job *j, CURLcode rc, long os_errno)
{
  curl_off_t connect_us = 0;
  switch(rc) {
  case CURLE_OK:
    return OUTCOME_OK;
  case CURLE_COULDNT_CONNECT:
    return os_errno == ECONNREFUSED ? OUTCOME_CONNECT_REFUSED
         : os_errno == ETIMEDOUT    ? OUTCOME_CONNECT_TIMEOUT
                                    : OUTCOME_CONNECT_ERROR;
  case CURLE_OPERATION_TIMEDOUT:
    curl_easy_getinfo(j->easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    return connect_us == 0 && j->opened ? OUTCOME_CONNECT_TIMEOUT : OUTCOME_TIMEOUT;
  case CURLE_SSL_CONNECT_ERROR: case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM: case CURLE_SSL_CIPHER: case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS: case CURLE_SSL_SHUTDOWN_FAILED:
  case CURLE_SSL_CRL_BADFILE: case CURLE_SSL_ENGINE_INITFAILED: case CURLE_USE_SSL_FAILED:
    return OUTCOME_TLS_ERROR;
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
    /* With an errno the peer reset us; without one libcurl found the bytes
     * themselves wrong (chunked encoding). */
    return os_errno ? OUTCOME_RESET : OUTCOME_PROTOCOL_ERROR;
  case CURLE_PARTIAL_FILE:
  case CURLE_GOT_NOTHING:
    return OUTCOME_RESET;
  case CURLE_WEIRD_SERVER_REPLY: case CURLE_BAD_CONTENT_ENCODING:
  case CURLE_UNSUPPORTED_PROTOCOL: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
  case CURLE_HTTP3: case CURLE_RANGE_ERROR: case CURLE_HTTP_RETURNED_ERROR:
    return OUTCOME_PROTOCOL_ERROR;
  case CURLE_OUT_OF_MEMORY:
    /* libcurl 7.88 reports a header line over its own 100 KiB line limit
     * as out of memory: while the head is being read, that is what it is. */
    return j->hdr_done ? OUTCOME_NOMEM : OUTCOME_TOO_LARGE;
  case CURLE_URL_MALFORMAT:
    return OUTCOME_BAD_URL;
  default:
    return OUTCOME_INTERNAL;
  }
}

/* A failure through a proxy is the site's only when the proxy says the
 * site failed (a CONNECT answered 500, 502, 503 or 504 — tinyproxy says
 * 500, squid 503, for a site that refuses — or a SOCKS reply naming the
 * target); a proxy that cannot be reached or refuses the tunnel is the
 * fetcher's (proxy_error: retried without blaming the site). */
static enum outcome fc_map_proxied(const struct fetch_job *j, CURLcode rc, long os_errno)
{
  long code = 0, px = 0;
  curl_easy_getinfo(j->easy, CURLINFO_HTTP_CONNECTCODE, &code);
  curl_easy_getinfo(j->easy, CURLINFO_PROXY_ERROR, &px);
  if(rc == CURLE_COULDNT_RESOLVE_PROXY)
    return OUTCOME_PROXY_ERROR;
  if(code == 500 || code == 502 || code == 503)
    return OUTCOME_CONNECT_ERROR;
  if(code == 504)
    return OUTCOME_CONNECT_TIMEOUT;
  if(code && code != 200)
    return OUTCOME_PROXY_ERROR;
  switch(px) {
  case CURLPX_REPLY_CONNECTION_REFUSED: return OUTCOME_CONNECT_REFUSED;
  case CURLPX_REPLY_HOST_UNREACHABLE:
  case CURLPX_REPLY_NETWORK_UNREACHABLE: return OUTCOME_CONNECT_ERROR;
  case CURLPX_REPLY_TTL_EXPIRED: return OUTCOME_CONNECT_TIMEOUT;
  case CURLPX_OK: break;
  default: return OUTCOME_PROXY_ERROR;
  }
  if(code)
    return fc_map_curle(j, rc, os_errno);  /* the tunnel stood: the site's */
  if(rc == CURLE_COULDNT_CONNECT)
    return OUTCOME_PROXY_ERROR;             /* the proxy is not there */
  if(rc == CURLE_OPERATION_TIMEDOUT) {
    /* Connected to the proxy, no answer to CONNECT: it is still dialling
     * the site. Not connected: the proxy is not answering. */
    curl_off_t us = 0;
    curl_easy_getinfo(j->easy, CURLINFO_CONNECT_TIME_T, &us);
    return us ? OUTCOME_CONNECT_TIMEOUT : OUTCOME_PROXY_ERROR;
  }
  return fc_map_curle(j, rc, os_errno);
}

static enum outcome fc_outcome(struct fetch_job *j, CURLcode rc)
{
  long os_errno = 0;
  if(j->sock_blocked) {
    j->res.blocked = j->sock_blocked;
    return OUTCOME_BLOCKED_ADDRESS;
  }
  switch(j->over) {
  case OVER_HEADER:
  case OVER_RAW:
  case OVER_DECODED: return OUTCOME_TOO_LARGE;
  case OVER_NOMEM:   return OUTCOME_NOMEM;
  case OVER_NONE:    break;
  }
  curl_easy_getinfo(j->easy, CURLINFO_OS_ERRNO, &os_errno);
  if(j->f->proxy && rc != CURLE_OK)
    return fc_map_proxied(j, rc, os_errno);
  return fc_map_curle(j, rc, os_errno);
}

static uint64_t fc_time(CURL *e, CURLINFO what)
{
  curl_off_t v = 0;
  curl_easy_getinfo(e, what, &v);
  return v > 0 ? (uint64_t)v : 0;
}

static void fc_timings(struct fetch_job *j)
{
  struct fetch_timings *t = &j->res.t;
  uint64_t conn = fc_time(j->easy, CURLINFO_CONNECT_TIME_T);
  uint64_t app = fc_time(j->easy, CURLINFO_APPCONNECT_TIME_T);
  uint64_t pre = fc_time(j->easy, CURLINFO_PRETRANSFER_TIME_T);
  uint64_t first = fc_time(j->easy, CURLINFO_STARTTRANSFER_TIME_T);
  uint64_t dns = fc_time(j->easy, CURLINFO_NAMELOOKUP_TIME_T);
  if(!j->res.reused && conn > dns)
    t->connect_us = conn - dns;
  if(!j->res.reused && app > conn)
    t->tls_us = app - conn;
  if(first > pre)
    t->first_byte_us = first - pre;
}

static int fc_http_version(long v)
{
  switch(v) {
  case CURL_HTTP_VERSION_1_0: return 10;
  case CURL_HTTP_VERSION_1_1: return 11;
  case CURL_HTTP_VERSION_2_0: return 20;
  case CURL_HTTP_VERSION_3:   return 30;
  default:                    return 0;
  }
}

/* What libcurl knows about the finished transfer, into the result. */
static void fc_collect(struct fetch_job *j)
{
  struct fetch_res *r = &j->res;
  char *s = NULL;
  long v = 0;
  curl_off_t sz = 0;
  curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &r->status);
  curl_easy_getinfo(j->easy, CURLINFO_HTTP_VERSION, &v);
  r->http_version = r->status ? fc_http_version(v) : 0;
  /* Through a proxy, libcurl's peer is the proxy: the result keeps the
   * target's address the guard allowed. */
  if(!j->f->proxy && curl_easy_getinfo(j->easy, CURLINFO_PRIMARY_IP, &s) == CURLE_OK && s && *s)
    str_copy(r->addr, sizeof r->addr, s);
  if(!j->f->proxy && curl_easy_getinfo(j->easy, CURLINFO_PRIMARY_PORT, &v) == CURLE_OK && v > 0)
    r->port = (unsigned)v;
  s = NULL;
  if(r->status / 100 == 3 && curl_easy_getinfo(j->easy, CURLINFO_REDIRECT_URL, &s) == CURLE_OK &&
     s)
    r->redirect = mem_strdup(s);
  curl_easy_getinfo(j->easy, CURLINFO_SIZE_DOWNLOAD_T, &sz);
  r->bytes_raw = sz > 0 ? (uint64_t)sz : 0;
  r->reused = !j->opened && r->addr[0];
  if(j->keepalive_s && j->hdr_done) {
    char key[FETCH_HOST_KEY];
    fetch_host_key(&j->u, key, sizeof key);
    fetch_hosts_set_keepalive(j->f->hosts, key, j->keepalive_s);
  }
  int tls = j->opened && j->hdr_bytes ? j->tls : -1;
  fetch_stats_lock(j->f);
  if(r->reused)
    j->f->st.conn_reused++;
  if(tls >= 0)
    (*(tls ? &j->f->st.tls_resumed : &j->f->st.tls_full))++;
  j->f->st.bytes_header += j->hdr_bytes;
  fetch_stats_unlock(j->f);
  fc_timings(j);
}

static void fc_done(struct fetch_job *j, CURLcode rc)
{
  enum outcome o = fc_outcome(j, rc);
  fc_collect(j);
  const char *detail = o && j->errbuf[0] ? j->errbuf : curl_easy_strerror(rc);
  fetch_curl_abort(j);
  job_finish(j, o, o ? detail : "");
}

void fetch_curl_check_done(struct fetcher *f)
{
  CURLMsg *m;
  int left;
  while((m = curl_multi_info_read(f->multi, &left))) {
    if(m->msg != CURLMSG_DONE)
      continue;
    struct fetch_job *j = NULL;
    curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&j);
    CHECK(j && j->magic == FETCH_JOB_MAGIC && j->easy == m->easy_handle);
    fc_done(j, m->data.result);
  }
}

/* The transfer dials ADDR, the address the guard allowed, and libcurl
 * never resolves; Host, SNI and certificate checks keep the URL's name.
 * A host name goes in as "+HOST:PORT:ADDR" (CURLOPT_RESOLVE: the
 * fetcher's libcurl DNS cache, for as long as a transfer may wait), so
 * that libcurl files the connection under HOST:PORT. "::ADDR:PORT"
 * (CURLOPT_CONNECT_TO) would dial the same, but files it, and counts
 * max_host_connections, under ADDR: the hosts of one shared address
 * would evict each other's kept-alive connections and share its 4.
 * An address literal keeps CONNECT_TO: it has no name to file under
 * (and an IPv6 one does not fit RESOLVE's syntax). */
static int fc_connect_to(struct fetch_job *j, const struct dns_addr *a)
{
  char line[400];
  const char *ip = j->res.addr;   /* formatted by the caller */
  unsigned char lit[sizeof(struct in6_addr)];
  bool v6 = a->family == AF_INET6;
  /* Through a proxy CONNECT_TO names the address in the proxy's CONNECT
   * (or SOCKS request); RESOLVE would have it resolve the name itself. */
  j->resolve = !j->f->proxy &&
               !(inet_pton(AF_INET, j->u.host, lit) == 1 || inet_pton(AF_INET6, j->u.host, lit) == 1);
  int n = j->resolve
    ? snprintf(line, sizeof line, "+%s:%u:%s%s%s", j->u.host, j->u.port, v6 ? "[" : "", ip, v6 ? "]" : "")
    : snprintf(line, sizeof line, "::%s%s%s:%u", v6 ? "[" : "", ip, v6 ? "]" : "", j->u.port);
  if(n < 0 || (size_t)n >= sizeof line)
    return -1;
  struct curl_slist *l = curl_slist_append(NULL, line);
  if(!l)
    return -1;
  j->connect_to = l;
  return 0;
}

static void fc_limits(struct fetch_job *j)
{
  uint64_t now = clock_mono_ms();
  long left = j->deadline_ms > now ? (long)(j->deadline_ms - now) : 1;
  curl_easy_setopt(j->easy, CURLOPT_TIMEOUT_MS, left);
  curl_easy_setopt(j->easy, CURLOPT_CONNECTTIMEOUT_MS, j->connect_ms < left ? j->connect_ms : left);
  /* libcurl's own timeout should end the transfer; ours is the backstop. */
  job_rearm(j, (uint64_t)left + 2000);
}

/* No proxy: "" makes libcurl ignore the *_proxy variables of the
 * environment. A proxy: HTTP ones tunnel every fetch, plain http too, so
 * that the proxy is told an address, never a name to resolve. */
static CURLcode fc_proxy_setup(struct fetcher *f, CURL *e)
{
  if(!f->proxy)
    return curl_easy_setopt(e, CURLOPT_PROXY, "");
  CURLcode rc = curl_easy_setopt(e, CURLOPT_PROXY, f->cfg.proxy);
  if(!rc)
    rc = curl_easy_setopt(e, CURLOPT_HTTPPROXYTUNNEL, fetch_proxy_tunnels(f->proxy) ? 1L : 0L);
  if(!rc)
    rc = curl_easy_setopt(e, CURLOPT_NOPROXY, "");
  if(!rc && f->cfg.tls_ca_file)
    rc = curl_easy_setopt(e, CURLOPT_PROXY_CAINFO, f->cfg.tls_ca_file);
  return rc;
}

/* What is the same for every fetch, set once per handle: a kept handle is
 * not reset between fetches (curl_easy_reset and setting all of this
 * again cost more than a tenth of libcurl's work per fetch). */
static CURLcode fc_easy_setup(struct fetcher *f, CURL *e)
{
  const struct fetch_cfg *c = &f->cfg;
  CURLcode rc = curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  if(!rc)
    rc = fc_proxy_setup(f, e);
  if(!rc)
    rc = curl_easy_setopt(e, CURLOPT_USERAGENT, c->user_agent);
  if(!rc && c->tls_ca_file)
    rc = curl_easy_setopt(e, CURLOPT_CAINFO, c->tls_ca_file);
  /* The CA store is parsed once per multi handle and kept
   * (CURLOPT_CA_CACHE_TIMEOUT, 24 h by default) only when it comes from a
   * file alone: Debian's libcurl also names a CA directory by default
   * (/etc/ssl/certs), and with one the file was read and parsed for every
   * connection. The system bundle (/etc/ssl/certs/ca-certificates.crt)
   * holds the same certificates as the directory. */
  if(!rc)
    rc = curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
  if(!rc)
    rc = curl_easy_setopt(e, CURLOPT_CA_CACHE_TIMEOUT, 86400L);
  if(rc)
    return rc;
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  /* A RESOLVE entry must outlive the longest wait of its transfer (the
   * hold, up to 10 s, is spent before the transfer is added). */
  curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, c->timeout_ms / 1000 + 15);
  curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(e, CURLOPT_SHARE, f->share);
  curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, fetch_hosts_ssl_ctx);
  curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, f);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, fc_on_write);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, fc_on_header);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, fc_on_progress);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, fc_on_open);
  curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, fetch_sock_close);
  curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, f);
  if(c->low_speed_bytes) {
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, (long)c->low_speed_bytes);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (c->low_speed_time_ms + 999) / 1000);
  }
  return CURLE_OK;
}

/* How long a kept-alive connection to the host may have been idle and
 * still carry this fetch: within what the host said it keeps one
 * (Keep-Alive: timeout=N, a second less for the way there), so that a
 * request is not sent on a connection the server is closing; else
 * libcurl's default. A connection is kept, and reused, across the
 * host's crawl delay otherwise (docs/llfs-engine.md, "Site affinity"). */
#define FC_MAX_IDLE_S 118   /* libcurl's default; a connection the server closed is seen as such */
static long fc_max_idle(const struct fetch_job *j)
{
  char key[FETCH_HOST_KEY];
  fetch_host_key(&j->u, key, sizeof key);
  long ka = fetch_hosts_keepalive(j->f->hosts, key);
  return ka > 1 ? ka - 1 : ka == 1 ? 0 : FC_MAX_IDLE_S;
}

/* What is the job's: every one of these is set for each fetch. */
static CURLcode fc_setopts(struct fetch_job *j)
{
  CURL *e = j->easy;
  CURLcode rc = curl_easy_setopt(e, CURLOPT_URL, j->u.canon);
  if(rc)
    return rc;
  curl_easy_setopt(e, j->resolve ? CURLOPT_RESOLVE : CURLOPT_CONNECT_TO, j->connect_to);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, j->hdrs);
  curl_easy_setopt(e, CURLOPT_NOBODY, j->method == FETCH_HEAD ? 1L : 0L);
  curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)j);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, j);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, j);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, j);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, j);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, j->errbuf);
  curl_easy_setopt(e, CURLOPT_MAXAGE_CONN, fc_max_idle(j));
  fc_limits(j);
  return CURLE_OK;
}

static CURL *fc_easy_get(struct fetcher *f)
{
  if(f->neasy_pool)
    return f->easy_pool[--f->neasy_pool];
  CURL *e = curl_easy_init();
  if(e && fc_easy_setup(f, e)) {
    curl_easy_cleanup(e);
    return NULL;
  }
  return e;
}

/* Keep a finished handle for the next fetch (connections live in the
 * multi); it must hold nothing libcurl could read of the finished job. */
static void fc_easy_put(struct fetcher *f, CURL *e)
{
  if(f->neasy_pool < FETCH_EASY_POOL && !f->freeing) {
    curl_easy_setopt(e, CURLOPT_CONNECT_TO, NULL);
    curl_easy_setopt(e, CURLOPT_RESOLVE, NULL);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(e, CURLOPT_PRIVATE, NULL);
    f->easy_pool[f->neasy_pool++] = e;
    return;
  }
  curl_easy_cleanup(e);
}

enum outcome fetch_curl_start(struct fetch_job *j, const struct dns_addr *a)
{
  CHECK(!j->easy);
  /* The address dialled, even if the connect fails (libcurl then knows
   * no primary address). */
  dns_addr_format(a, j->res.addr, sizeof j->res.addr);
  j->res.port = j->u.port;
  if(fc_connect_to(j, a) || !(j->easy = fc_easy_get(j->f)))
    return OUTCOME_NOMEM;
  CURLcode rc = fc_setopts(j);
  if(rc || curl_multi_add_handle(j->f->multi, j->easy) != CURLM_OK) {
    fc_easy_put(j->f, j->easy);
    j->easy = NULL;
    return rc == CURLE_OUT_OF_MEMORY ? OUTCOME_NOMEM : OUTCOME_INTERNAL;
  }
  return OUTCOME_OK;
}

void fetch_curl_abort(struct fetch_job *j)
{
  if(!j->easy)
    return;
  curl_multi_remove_handle(j->f->multi, j->easy);
  fc_easy_put(j->f, j->easy);
  j->easy = NULL;
}
