/* --topic-pages FILE: example pages of the topic, one per line (blank
 * lines and # comments skipped): an http(s) URL, fetched through the
 * gateway like any page (POST /v1/fetch: robots.txt, politeness and the
 * cache apply), or the path of a local file (HTML or text). Each adds its
 * terms to the topic. */
#include "clients/focus/topic_pages.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include "clients/crawl/crawl.h"
#include "common/log.h"
#include "common/mem.h"

#define PAGES_MAX     1000
#define LINE_MAX_LEN  4096
#define FILE_MAX      (8u << 20)
#define FETCH_WAIT_MS 60000

struct tp {
  struct focus    *f;
  const char      *prog;
  unsigned         pending;
  int              failed;
  crawl_err        err;
};

static int read_file(struct focus *f, const char *path, const char *prog)
{
  FILE *fp = fopen(path, "rb");
  if(!fp) {
    fprintf(stderr, "%s: cannot read topic page %s\n", prog, path);
    return -1;
  }
  char *body = mem_alloc(FILE_MAX);
  size_t n = body ? fread(body, 1, FILE_MAX, fp) : 0;
  bool err = !body || ferror(fp);
  fclose(fp);
  crawl_err e = err ? CRAWL_ERR_IO : focus_topic_page(f, body, n);
  mem_free(body);
  if(e)
    fprintf(stderr, "%s: topic page %s: %s\n", prog, path, crawl_err_text(e));
  return e ? -1 : 0;
}

static void on_fetch(void *arg, const struct gwclient_answer *a, struct gw_result *res)
{
  struct tp *t = arg;
  t->pending--;
  bool ok = res && crawl_outcome_http(res->outcome) && res->status >= 200 && res->status < 300;
  if(!ok) {
    char buf[GWPROTO_CAUSE_MAX];
    const char *cause = res ? gwproto_cause(res, buf, sizeof buf) : NULL;
    fprintf(stderr, "%s: topic page %s: %s%s%s (HTTP %d from the gateway)\n", t->prog,
            res ? res->url : "?", res ? res->outcome : crawl_err_text(a->err),
            cause && res && strcmp(cause, res->outcome) ? ", cause " : "",
            cause && res && strcmp(cause, res->outcome) ? cause : "", a->http);
    t->failed++;
    return;
  }
  crawl_err e = focus_topic_page(t->f, (const char *)res->body, res->body_len);
  if(e && !t->err)
    t->err = e;
  LOG(LOG_INFO, "topic page %s: %zu bytes", res->url, res->body_len);
}

/* Fetch the URLs through the gateway, all at once, on a loop of their own
 * (the crawl's loop starts after the topic is known). */
static int fetch_all(struct tp *t, char **urls, size_t n, const struct gwclient_opts *gw,
                     long max_age_s)
{
  uv_loop_t loop;
  struct gwclient *g = NULL;
  if(uv_loop_init(&loop) != 0)
    return -1;
  crawl_err e = gwclient_open(&loop, gw, &g);
  for(size_t i = 0; !e && i < n; i++) {
    e = gwclient_fetch(g, urls[i], FETCH_WAIT_MS, max_age_s, on_fetch, t);
    t->pending += !e;
  }
  while(t->pending > 0 && uv_run(&loop, UV_RUN_ONCE))
    ;
  gwclient_close(&g);
  uv_run(&loop, UV_RUN_DEFAULT);  /* let closed handles go */
  uv_loop_close(&loop);
  if(e || t->err)
    fprintf(stderr, "%s: topic pages: %s\n", t->prog, crawl_err_text(e ? e : t->err));
  return e || t->err || t->failed || t->pending ? -1 : 0;
}

static bool is_url(const char *s)
{
  return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

int focus_topic_pages(struct focus *f, const char *path, const struct gwclient_opts *gw,
                      long max_age_s, const char *prog)
{
  FILE *fp = fopen(path, "r");
  if(!fp) {
    fprintf(stderr, "%s: cannot read --topic-pages %s\n", prog, path);
    return -1;
  }
  char line[LINE_MAX_LEN], *urls[PAGES_MAX];
  size_t nurls = 0, pages = 0;
  int rc = 0;
  while(rc == 0 && fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    const char *s = line + strspn(line, " \t");
    if(!*s || *s == '#')
      continue;
    if(++pages > PAGES_MAX) {
      fprintf(stderr, "%s: --topic-pages: more than %d pages\n", prog, PAGES_MAX);
      rc = -1;
    } else if(is_url(s)) {
      rc = (urls[nurls] = mem_strdup(s)) ? 0 : -1;
      nurls += rc == 0;
    } else {
      rc = read_file(f, s, prog);
    }
  }
  fclose(fp);
  struct tp t = { f, prog, 0, 0, CRAWL_OK };
  if(rc == 0 && nurls)
    rc = fetch_all(&t, urls, nurls, gw, max_age_s);
  for(size_t i = 0; i < nurls; i++)
    mem_free(urls[i]);
  return rc;
}
