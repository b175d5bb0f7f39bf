#include "clients/web/sitemap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <time.h>

#include "common/buf.h"

#define SM_LOC_MAX  (64u << 10)  /* a <loc> longer than this is no URL */
#define SM_HINT_MAX 64u          /* a lastmod, changefreq or priority longer is none */

enum sm_field { SM_NONE, SM_LOC, SM_LASTMOD, SM_FREQ, SM_PRIO };

struct sm_ctx {
  sitemap_loc_fn      *fn;
  void                *arg;
  bool                 stop;
  struct html_opts     html;
  size_t               max_text;
  struct buf           text;   /* XML not parsed yet: under 2 pieces */
  struct sitemap_info *info;
  unsigned             in_sitemap;  /* <sitemap> elements open: an index */
  enum sm_field        in;          /* the field whose text is being read */
  struct buf           loc;
  bool                 pending;     /* a <loc> read, its entry not reported yet */
  bool                 index;
  char                 hint[3][SM_HINT_MAX + 1];
  size_t               hint_len[3];
  crawl_err            err;
};

static enum sm_field sm_field_of(const char *name)
{
  return !strcmp(name, "loc") ? SM_LOC : !strcmp(name, "lastmod") ? SM_LASTMOD
       : !strcmp(name, "changefreq") ? SM_FREQ : !strcmp(name, "priority") ? SM_PRIO : SM_NONE;
}

static void sm_trim(const char **s, size_t *n)
{
  while(*n && strchr(" \t\r\n", (*s)[*n - 1]))
    (*n)--;
  while(*n && strchr(" \t\r\n", **s)) {
    (*s)++;
    (*n)--;
  }
}

static int64_t sm_tz(const char *s, size_t n, bool *ok)
{
  int hh, mm;
  *ok = true;
  if(n == 0 || (n == 1 && (*s == 'Z' || *s == 'z')))
    return 0;
  *ok = n == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':' &&
        sscanf(s + 1, "%2d", &hh) == 1 && sscanf(s + 4, "%2d", &mm) == 1 && hh < 24 && mm < 60;
  return *ok ? (s[0] == '-' ? -1 : 1) * (hh * 3600 + mm * 60) : 0;
}

static bool sm_digits(const char *s, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if(s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

/* hh:mm[:ss[.s+]] then a zone: seconds into the day, less the zone. */
static bool sm_time(const char *s, size_t n, int64_t *secs)
{
  if(n < 5 || !sm_digits(s, 2) || s[2] != ':' || !sm_digits(s + 3, 2))
    return false;
  int64_t t = ((s[0] - '0') * 10 + s[1] - '0') * 3600 + ((s[3] - '0') * 10 + s[4] - '0') * 60;
  size_t i = 5;
  if(i + 2 < n && s[i] == ':' && sm_digits(s + i + 1, 2)) {
    t += (s[i + 1] - '0') * 10 + s[i + 2] - '0';
    i += 3;
    if(i < n && s[i] == '.')
      for(i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {}
  }
  bool ok;
  int64_t tz = sm_tz(s + i, n - i, &ok);
  *secs = t - tz;
  return ok;
}

/* The W3C Datetime of a lastmod, as seconds since the epoch, or -1. */
static int64_t sitemap_date(const char *s, size_t n)
{
  sm_trim(&s, &n);
  struct tm tm = { .tm_mday = 1 };
  if(n < 4 || !sm_digits(s, 4))
    return -1;
  tm.tm_year = atoi(s) - 1900;
  size_t i = 4;
  if(i < n && (n < i + 3 || s[i] != '-' || !sm_digits(s + i + 1, 2)))
    return -1;
  if(i < n) {
    tm.tm_mon = (s[i + 1] - '0') * 10 + s[i + 2] - '0' - 1;
    i += 3;
  }
  if(i < n && (n < i + 3 || s[i] != '-' || !sm_digits(s + i + 1, 2)))
    return -1;
  if(i < n) {
    tm.tm_mday = (s[i + 1] - '0') * 10 + s[i + 2] - '0';
    i += 3;
  }
  int64_t secs = 0;
  if(i < n && (s[i] != 'T' || !sm_time(s + i + 1, n - i - 1, &secs)))
    return -1;
  if(tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31)
    return -1;
  return (int64_t)timegm(&tm) + secs;
}

static enum sitemap_freq sm_freq(const char *s, size_t n)
{
  sm_trim(&s, &n);
#define X(w) if(n == strlen(#w) && !strncasecmp(s, #w, n)) return SITEMAP_FREQ_##w;
  SITEMAP_FREQS(X)
#undef X
  return SITEMAP_FREQ_NONE;
}

static double sm_priority(const char *s, size_t n)
{
  char tmp[SM_HINT_MAX + 1], *end;
  sm_trim(&s, &n);
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  double p = n ? strtod(tmp, &end) : -1;
  return n && *end == '\0' && p >= 0 && p <= 1 ? p : -1;
}

/* Report the entry whose <loc> was read, with its hints; then forget both. */
static int sm_flush(struct sm_ctx *c)
{
  if(!c->pending)
    return c->stop;
  c->pending = false;
  const char *s = c->loc.data ? c->loc.data : "";
  size_t n = c->loc.len;
  sm_trim(&s, &n);
  struct sitemap_entry e = {
    s, n, c->index,
    c->hint_len[0] ? sitemap_date(c->hint[0], c->hint_len[0]) : -1,
    sm_freq(c->hint[1], c->hint_len[1]),
    c->hint_len[2] ? sm_priority(c->hint[2], c->hint_len[2]) : -1,
  };
  memset(c->hint_len, 0, sizeof c->hint_len);
  if(n)
    c->stop = c->fn(c->arg, &e) != 0;
  return c->stop;
}

static int sm_start(void *arg, const char *name, const char *const *attrs)
{
  struct sm_ctx *c = arg;
  (void)attrs;
  bool entry = !strcmp(name, "url") || !strcmp(name, "sitemap");
  if(entry && sm_flush(c))  /* an entry whose end tag was left out */
    return 1;
  if(entry)
    memset(c->hint_len, 0, sizeof c->hint_len);
  if(!strcmp(name, "sitemap"))
    c->in_sitemap++;
  c->in = sm_field_of(name);
  if(c->in == SM_LOC && sm_flush(c))  /* a second <loc>: the first is an entry */
    return 1;
  if(c->in == SM_LOC)
    buf_reset(&c->loc);
  else if(c->in != SM_NONE)
    c->hint_len[c->in - SM_LASTMOD] = 0;
  return 0;
}

static int sm_text_ev(void *arg, const char *t, size_t n)
{
  struct sm_ctx *c = arg;
  if(c->in == SM_LOC && c->loc.len + n <= c->loc.max && buf_add(&c->loc, t, n))
    c->err = CRAWL_ERR_NOMEM;
  if(c->in >= SM_LASTMOD) {
    size_t k = (size_t)(c->in - SM_LASTMOD), room = SM_HINT_MAX - c->hint_len[k];
    size_t take = n < room ? n : room;
    memcpy(c->hint[k] + c->hint_len[k], t, take);
    c->hint_len[k] += take;
  }
  return c->err != CRAWL_OK;
}

/* The end of a <loc> makes an entry, reported at the end of its <url> or
 * <sitemap> (its hints may follow the <loc>). */
static int sm_end(void *arg, const char *name)
{
  struct sm_ctx *c = arg;
  enum sm_field f = sm_field_of(name);
  if(f == SM_LOC && c->in == SM_LOC) {
    c->pending = true;
    c->index = c->in_sitemap > 0;
  }
  if(f != SM_NONE)
    c->in = SM_NONE;
  bool entry = !strcmp(name, "url") || !strcmp(name, "sitemap");
  if(!strcmp(name, "sitemap") && c->in_sitemap)
    c->in_sitemap--;
  return entry ? sm_flush(c) : 0;
}

static crawl_err sm_parse(struct sm_ctx *c, const char *p, size_t n)
{
  c->info->pieces++;
  c->in = SM_NONE;
  struct html_sink sink = { sm_start, sm_end, sm_text_ev, c };
  crawl_err e = html_scan(p, n, &c->html, &sink, NULL);
  if(!e && !c->err)
    sm_flush(c);  /* a <loc> outside any entry */
  return e ? e : c->err;
}

/* Just after the last </url> or </sitemap> of p[0..n), or 0: a piece ends
 * between two entries, so each <loc> is parsed with its parent. */
static size_t sm_cut(const char *p, size_t n)
{
  for(size_t i = n; i-- > 0;) {
    if(p[i] != '>')
      continue;
    if(i >= 5 && !strncasecmp(p + i - 5, "</url", 5))
      return i + 1;
    if(i >= 9 && !strncasecmp(p + i - 9, "</sitemap", 9))
      return i + 1;
  }
  return 0;
}

/* Parse a piece off the front of the text (all of it when last). */
static crawl_err sm_piece(struct sm_ctx *c, bool last)
{
  size_t cut = last ? c->text.len : sm_cut(c->text.data, c->text.len);
  if(cut == 0)
    cut = c->text.len;  /* one entry longer than a piece: not a sitemap */
  crawl_err e = sm_parse(c, c->text.data, cut);
  memmove(c->text.data, c->text.data + cut, c->text.len - cut);
  c->text.len -= cut;
  c->text.data[c->text.len] = '\0';
  return e;
}

/* gunzip_sink: XML text, in any pieces. CRAWL_ERR_INVALID stops a reader
 * that fn asked to stop (sitemap_read returns OK then). */
static crawl_err sm_text(void *arg, const char *p, size_t n)
{
  struct sm_ctx *c = arg;
  crawl_err e = CRAWL_OK;
  c->info->text += n;
  while(!e && n > 0 && !c->stop) {
    size_t k = SITEMAP_PIECE < n ? SITEMAP_PIECE : n;
    if(buf_add(&c->text, p, k))
      return CRAWL_ERR_NOMEM;
    p += k;
    n -= k;
    while(!e && c->text.len >= SITEMAP_PIECE && !c->stop)
      e = sm_piece(c, false);
  }
  return e ? e : c->stop ? CRAWL_ERR_INVALID : CRAWL_OK;
}

static crawl_err sm_plain(struct sm_ctx *c, const char *body, size_t len)
{
  c->info->end = len > c->max_text ? GUNZIP_CAP : GUNZIP_WHOLE;
  return sm_text(c, body, len < c->max_text ? len : c->max_text);
}

crawl_err sitemap_read(const void *body, size_t len, const struct sitemap_opts *o,
                       sitemap_loc_fn *fn, void *arg, struct sitemap_info *info)
{
  struct sm_ctx c = { .fn = fn, .arg = arg, .info = info };
  memset(info, 0, sizeof *info);
  if(o)
    c.html = o->html;
  c.max_text = o && o->max_text ? o->max_text : SITEMAP_MAX_TEXT_DEFAULT;
  buf_init(&c.text, 2 * SITEMAP_PIECE);
  buf_init(&c.loc, SM_LOC_MAX);
  info->gzip = gunzip_magic(body, len);
  crawl_err e = info->gzip ? gunzip(body, len, c.max_text, sm_text, &c, &info->end, NULL)
                           : sm_plain(&c, body, len);
  if(!e && !c.stop && c.text.len)
    e = sm_piece(&c, true);
  buf_free(&c.text);
  buf_free(&c.loc);
  return c.stop ? CRAWL_OK : e;
}
