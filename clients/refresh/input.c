/* rf_pages_load (pages.h): the URLs to keep fresh, from a list with
 * weights, from a discovery crawl's log, or from its WARC files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clients/out/crawllog.h"
#include "clients/out/warc_read.h"
#include "clients/refresh/pages.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/url.h"

#define LINE_MAX_BYTES (16u << 10)
#define WARC_RECORD_MAX (256u << 20)

#define SAY_MAX 100  /* refused URLs named one by one; the rest counted */

struct load {
  struct rf_pages *ps;
  double           step_ms;  /* between two first visits */
  uint64_t         now_ms;
  struct tally    *refused;
  const char      *prog;
  unsigned long    no;       /* line of a list, record or line of a log */
  const char      *rule;     /* the rule that rejected the URL refused "rule" */
  char            *err;
  size_t           errlen;
};

static void load_refuse(struct load *l, const char *url, const char *why)
{
  tally_add(l->refused, why, 1);
  if(!l->prog)
    return;
  if(l->refused->total <= SAY_MAX)
    fprintf(stderr, "%s: --urls line %lu: %s%s (%s): %.200s\n", l->prog, l->no,
            !strcmp(why, "malformed") ? "not an http(s) URL" : !strcmp(why, "rule")
            ? "rejected by a scope rule, " : "listed before",
            !strcmp(why, "rule") ? l->rule : "", why, url);
  if(l->refused->total == SAY_MAX + 1)
    fprintf(stderr, "%s: --urls: more URLs refused (the summary's input_refused counts "
                    "them by reason)\n", l->prog);
}

static bool load_is_url(const char *url)
{
  struct url_opts o = url_opts_default();
  char *canon = NULL;
  url_err ue = url_canon(url, strlen(url), &o, &canon);
  mem_free(canon);
  return ue == URL_OK;
}

static crawl_err load_add(struct load *l, const char *url, double weight)
{
  bool added, keep;
  int rule;
  if(!load_is_url(url)) {
    load_refuse(l, url, "malformed");
    return CRAWL_OK;
  }
  crawl_err se = scope_decide_url(l->ps->rules, url, true, &keep, &rule);
  if(se == CRAWL_ERR_NOMEM)
    return se;
  if(!keep) {
    l->rule = scope_rule_text(l->ps->rules, rule);
    load_refuse(l, url, "rule");
    return CRAWL_OK;
  }
  crawl_err e = rf_pages_add(l->ps, url, weight,
                             l->now_ms + (uint64_t)((double)l->ps->n * l->step_ms), &added);
  if(e)
    snprintf(l->err, l->errlen, "%s after %zu pages", e == CRAWL_ERR_FULL ?
             "more URLs than --max-pages" : crawl_err_text(e), l->ps->n);
  else if(!added)
    load_refuse(l, url, "duplicate");
  return e;
}

/* "URL" or "URL<TAB>weight"; blank lines and # comments are skipped. */
static crawl_err load_list(struct load *l, FILE *f)
{
  char *line = mem_alloc(LINE_MAX_BYTES);
  crawl_err e = line ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(unsigned no = 1; !e && fgets(line, LINE_MAX_BYTES, f); no++) {
    l->no = no;
    size_t n = strlen(line);
    if(n == LINE_MAX_BYTES - 1 && line[n - 1] != '\n') {
      snprintf(l->err, l->errlen, "line %u is longer than %u bytes", no, LINE_MAX_BYTES);
      e = CRAWL_ERR_INVALID;
      break;
    }
    line[strcspn(line, "\r\n")] = '\0';
    char *tab = strchr(line, '\t');
    double weight = 1;
    if(tab) {
      char *end;
      *tab = '\0';
      errno = 0;
      weight = strtod(tab + 1, &end);
      if(end == tab + 1 || *end || errno || !isfinite(weight) || weight <= 0 || weight > 1e9) {
        snprintf(l->err, l->errlen, "line %u: the weight must be a number in (0, 1e9]", no);
        e = CRAWL_ERR_INVALID;
        break;
      }
    }
    if(line[0] && line[0] != '#')
      e = load_add(l, line, weight);
  }
  mem_free(line);
  return e;
}

static crawl_err load_log_line(void *arg, const struct crawllog_rec *rec)
{
  struct load *l = arg;
  l->no++;
  return rec->status == 200 && !rec->sitemap ? load_add(l, rec->url, 1) : CRAWL_OK;
}

static crawl_err load_warc(struct load *l, const char *path)
{
  struct warc_record r;
  crawl_err e = CRAWL_OK;
  for(uint64_t off = 0; !e;) {
    e = warc_read_at(path, off, WARC_RECORD_MAX, &r);
    if(e == CRAWL_ERR_CORRUPT && off > 0)
      return CRAWL_OK;  /* the end (or a record cut by a crash) */
    if(e) {
      snprintf(l->err, l->errlen, "%s: %s at byte %llu", path, crawl_err_text(e),
               (unsigned long long)off);
      return e;
    }
    l->no++;
    if(!strcmp(r.type, "response") && r.status == 200 && r.target)
      e = load_add(l, r.target, 1);
    off += r.member_len;
    warc_record_free(&r);
  }
  return e;
}

bool rf_pages_keep_target(struct rf_pages *ps, const char *url)
{
  bool keep;
  int rule;
  scope_decide_url(ps->rules, url, true, &keep, &rule);
  if(keep)
    return true;
  ps->ruled_out++;
  struct log_ctx ctx = { .url = url, .action = "following a redirect" };
  LOGC(LOG_DEBUG, &ctx, "not kept: rule (%s)", scope_rule_text(ps->rules, rule));
  return false;
}

crawl_err rf_pages_load(struct rf_pages *ps, const char *path, double rate, uint64_t now_ms,
                        struct tally *refused, const char *prog, char *err, size_t errlen)
{
  struct load l = { ps, 1000 / rate, now_ms, refused, prog, 0, NULL, err, errlen };
  struct stat st;
  char *joined = NULL;
  if(!stat(path, &st) && S_ISDIR(st.st_mode)) {  /* a discovery crawl's --out */
    size_t n = strlen(path) + sizeof "/crawl.jsonl";
    if(!(joined = mem_alloc(n)))
      return CRAWL_ERR_NOMEM;
    snprintf(joined, n, "%s/crawl.jsonl", path);
    path = joined;
  }
  FILE *f = fopen(path, "rb");
  crawl_err e = CRAWL_OK;
  unsigned char head[5] = { 0 };
  if(!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    e = CRAWL_ERR_IO;
  } else if(fread(head, 1, sizeof head, f), head[0] == 0x1f && head[1] == 0x8b) {
    e = load_warc(&l, path);
  } else if(!memcmp(head, "WARC/", 5)) {
    e = load_warc(&l, path);
  } else if(head[0] == '{') {
    e = crawllog_scan(path, 0, load_log_line, &l);
    if(e && !err[0])
      snprintf(err, errlen, "%s: %s", path, crawl_err_text(e));
  } else {
    rewind(f);
    e = load_list(&l, f);
  }
  if(f)
    fclose(f);
  mem_free(joined);
  return e;
}
