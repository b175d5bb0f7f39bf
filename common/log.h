#ifndef WPFS_COMMON_LOG_H
#define WPFS_COMMON_LOG_H
/* Structured logs: one JSON object per line on stderr, written with a single
 * write(2) so lines from concurrent processes never interleave.
 * {"ts":"...","level":"warn","svc":"llfs","msg":"...","req":"...",...}
 * The level is tested before any argument is evaluated. User-supplied bytes
 * (URLs, client names) go through the context, escaped and truncated. */
#include <stdarg.h>
#include <stddef.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_OFF };

extern enum log_level log_level;

/* What a connection or job is doing; any field may be NULL. */
struct log_ctx {
  const char *req;     /* request id, carried from gateway to fetcher */
  const char *client;  /* tenant */
  const char *url;     /* truncated to LOG_URL_MAX bytes */
  const char *action;  /* "resolving", "waiting for redis reply", ... */
  /* An answered HTTP request (the access line); status 0 = none. */
  const char *method;
  const char *path;    /* truncated to LOG_URL_MAX bytes */
  const char *work;    /* the id of the work the request made: the fetcher
                          logs that fetch under it as "req" */
  unsigned    status;  /* HTTP status; 499 = the caller left first */
  double      ms;      /* arrival to answer */
};
#define LOG_URL_MAX 256

void log_init(const char *service, enum log_level lvl);
int  log_level_parse(const char *s, enum log_level *out);
void log_emit(enum log_level lvl, const struct log_ctx *ctx, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* The last warnings and errors this process logged, oldest first (for a
 * status page): how many were copied into out. */
#define LOG_RECENT 32
struct log_recent {
  unsigned long long at_ms;  /* wall clock */
  enum log_level     lvl;
  char               msg[200];
  char               url[120];
};
size_t log_recent(struct log_recent *out, size_t cap);

#define LOG(lvl, ...)                          \
  do {                                         \
    if((lvl) < log_level)                      \
      break;                                   \
    log_emit((lvl), NULL, __VA_ARGS__);        \
  } while(0)
#define LOGC(lvl, ctx, ...)                    \
  do {                                         \
    if((lvl) < log_level)                      \
      break;                                   \
    log_emit((lvl), (ctx), __VA_ARGS__);       \
  } while(0)

#endif
