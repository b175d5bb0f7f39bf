#include "common/log.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"

enum log_level log_level = LOG_INFO;
static const char *log_svc = "wpfs";
static const char *const level_name[] = { "debug", "info", "warn", "error", "off" };

void log_init(const char *service, enum log_level lvl)
{
  log_svc = service;
  log_level = lvl;
}

int log_level_parse(const char *s, enum log_level *out)
{
  for(int i = LOG_DEBUG; i <= LOG_OFF; i++)
    if(!strcasecmp(s, level_name[i])) {
      *out = (enum log_level)i;
      return 0;
    }
  return -1;
}

static void log_field(struct buf *b, const char *key, const char *val, size_t max)
{
  if(!val)
    return;
  size_t n = strlen(val);
  buf_addf(b, ",\"%s\":", key);
  buf_add_json_str(b, val, n > max ? max : n);
}

static void log_ts(struct buf *b)
{
  struct timeval tv;
  struct tm tm;
  char ts[32];
  gettimeofday(&tv, NULL);
  gmtime_r(&tv.tv_sec, &tm);
  strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  buf_addf(b, "{\"ts\":\"%s.%03dZ\"", ts, (int)(tv.tv_usec / 1000));
}

static struct log_recent recent[LOG_RECENT];
static size_t recent_n;  /* ever kept; the newest is recent[(recent_n - 1) % LOG_RECENT] */
static pthread_mutex_t recent_mu = PTHREAD_MUTEX_INITIALIZER;

static void recent_keep(enum log_level lvl, const char *msg, const char *url)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  pthread_mutex_lock(&recent_mu);
  struct log_recent *r = &recent[recent_n++ % LOG_RECENT];
  r->at_ms = (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
  r->lvl = lvl;
  /* cut to fit (a status page shows the start) */
  size_t m = strnlen(msg, sizeof r->msg - 1), u = url ? strnlen(url, sizeof r->url - 1) : 0;
  memcpy(r->msg, msg, m);
  r->msg[m] = '\0';
  memcpy(r->url, url ? url : "", u);
  r->url[u] = '\0';
  pthread_mutex_unlock(&recent_mu);
}

size_t log_recent(struct log_recent *out, size_t cap)
{
  pthread_mutex_lock(&recent_mu);
  size_t have = recent_n < LOG_RECENT ? recent_n : LOG_RECENT, n = have < cap ? have : cap;
  for(size_t i = 0; i < n; i++)
    out[i] = recent[(recent_n - n + i) % LOG_RECENT];
  pthread_mutex_unlock(&recent_mu);
  return n;
}

void log_emit(enum log_level lvl, const struct log_ctx *ctx, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if(lvl >= LOG_WARN)
    recent_keep(lvl, msg, ctx ? ctx->url : NULL);

  struct buf b;
  buf_init(&b, 4096);
  log_ts(&b);
  buf_addf(&b, ",\"level\":\"%s\",\"svc\":\"%s\",\"pid\":%d", level_name[lvl],
           log_svc, (int)getpid());
  log_field(&b, "msg", msg, sizeof msg);
  if(ctx) {
    log_field(&b, "req", ctx->req, 64);
    log_field(&b, "client", ctx->client, 64);
    log_field(&b, "url", ctx->url, LOG_URL_MAX);
    log_field(&b, "action", ctx->action, 128);
    log_field(&b, "method", ctx->method, 16);
    log_field(&b, "path", ctx->path, LOG_URL_MAX);
    log_field(&b, "work", ctx->work, 64);
    if(ctx->status)
      buf_addf(&b, ",\"status\":%u,\"ms\":%.3f", ctx->status, ctx->ms);
  }
  if(buf_adds(&b, "}\n") == CM_OK) {
    ssize_t w = write(STDERR_FILENO, b.data, b.len);
    (void)w;
  }
  buf_free(&b);
}
