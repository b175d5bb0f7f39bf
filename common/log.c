#include "common/log.h"

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

void log_emit(enum log_level lvl, const struct log_ctx *ctx, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);

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
