/* clients/crawl/crawl*.c over a synthetic web served by a function (no gateway,
 * no sockets): every reachable page fetched exactly once, robots outcomes
 * and errors recorded, file types, nofollow and scope respected, exact and
 * near duplicates detected and not parsed, spider traps contained with
 * their reasons counted, redirects followed; the WARC files hold one
 * record per recorded page, readable back; and a crawl killed with SIGKILL
 * resumes from its checkpoint without fetching a finished page again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "clients/crawl/crawl.c"
#include "clients/crawl/crawl.h"
#include "clients/crawl/crawl_int.h"  /* the disk thread, to hold it up */
#include "clients/out/crawllog.h"
#include "clients/out/warc_read.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/robots_tag.h"

#define SITES 5
#define PAGES 20
#define BIG_SITEMAP 2500  /* <loc>s: more than the engine holds found at once */

/* ---- The synthetic web --------------------------------------------------- */

static const char *const words[] = {
  "crawl", "fetch", "page", "link", "site", "robots", "delay", "cache", "index",
  "server", "request", "answer", "loopback", "world", "test", "queue", "host",
  "politeness", "gateway", "fetcher", "body", "header", "status", "redirect",
};

static uint64_t rng(uint64_t *s)
{
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static void filler(uint64_t seed, int n, struct buf *b)
{
  buf_adds(b, "<p>");
  for(int i = 0; i < n; i++) {
    buf_adds(b, words[rng(&seed) % (sizeof words / sizeof words[0])]);
    buf_addc(b, ' ');
  }
  buf_adds(b, "</p>");
}

static void page_extras(int site, int j, struct buf *b)
{
  if(j != 0)
    return;
  buf_adds(b, "<a href=/img/logo.png>logo</a><a href='mailto:a@b.test'>mail</a>"
              "<a rel=nofollow href=/nofollow.html>nf</a><a href=/private/x.html>p</a>"
              "<a href=/old>old</a><a href=/missing.html>404</a>");
  if(site == 1)
    buf_adds(b, "<a href=/trap/>archive</a><a href=/cal/2024/1>calendar</a>"
                "<a href=/q?s=1>search</a>");
  if(site == 4)
    buf_adds(b, "<a href=/near/1>n1</a><a href=/near/2>n2</a><a href=/near/3>n3</a>");
}

static void page_html(int site, int j, struct buf *b)
{
  uint64_t s = (uint64_t)(site * 1000 + j + 1);
  buf_addf(b, "<html><head><title>s%d page %d</title><link rel=canonical href=/p/%d.html>"
           "</head><body><a href=/p/%d.html>next</a>", site, j, j, (j + 1) % PAGES);
  for(int k = 0; k < 5; k++) {
    int m = (int)(rng(&s) % PAGES), form = (int)(rng(&s) % 10);
    if(form < 2)
      buf_addf(b, "<a href='http://s%d.test/p/%d.html'>x</a>", (int)(rng(&s) % SITES), m);
    else if(form < 3)
      buf_addf(b, "<a href=/p/%d>dup</a>", m);
    else if(form < 4)
      buf_addf(b, "<a href='/p/%d.html?ref=%d'>dup</a>", m, (int)(rng(&s) % 3));
    else
      buf_addf(b, "<a href=/p/%d.html>p</a>", m);
  }
  page_extras(site, j, b);
  filler((uint64_t)(site * 7919 + j * 104729 + 17), 150, b);
  buf_adds(b, "</body></html>");
}

struct fetched {
  char *url[4096];
  int   n;
};

struct web_answer {
  const char *outcome;
  int         status;
  struct buf  body;
  char        location[64];
  const char *ctype;
  unsigned    robots;  /* the gateway's robots_tags (X-Robots-Tag) */
  uint64_t    conns;   /* the gateway's site_connections (0: not contacted) */
};

/* Connections the gateway opened per site: CLOSING_SITE closes every
 * connection (one per fetch), the others keep theirs alive (one). */
#define CLOSING_SITE 3
static uint64_t web_conns[SITES];

static int page_number(const char *path)
{
  if(!strcmp(path, "/") || !strcmp(path, "/index.html"))
    return 0;
  int j;
  char tail[16] = "";
  if(sscanf(path, "/p/%d%15s", &j, tail) >= 1 && j >= 0 && j < PAGES &&
     (!tail[0] || !strcmp(tail, ".html") || !strncmp(tail, ".html?ref=", 10)))
    return j;
  return -1;
}

static void gzip_body(const char *text, struct buf *out)
{
  z_stream z;
  unsigned char tmp[1024];
  memset(&z, 0, sizeof z);
  assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = (Bytef *)(uintptr_t)text;
  z.avail_in = (uInt)strlen(text);
  z.next_out = tmp;
  z.avail_out = sizeof tmp;
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  buf_add(out, tmp, sizeof tmp - z.avail_out);
  deflateEnd(&z);
}

static void web_special(int site, const char *path, struct web_answer *a)
{
  uint64_t h = 1469598103934665603ull;
  for(const char *p = path; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  if(!strncmp(path, "/trap/", 6)) {
    buf_adds(&a->body, "<a href=a/>a</a><a href=b/>b</a><a href=c/>c</a>");
    filler(h, 60, &a->body);  /* unique text: dedup does not hide the trap */
  } else if(!strncmp(path, "/cal/", 5)) {
    int y = 0, m = 0;
    sscanf(path, "/cal/%d/%d", &y, &m);
    buf_addf(&a->body, "<a href=/cal/%d/%d>prev</a><a href=/cal/%d/%d>next</a>",
             m == 1 ? y - 1 : y, m == 1 ? 12 : m - 1, m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1);
    filler(h, 60, &a->body);
  } else if(!strncmp(path, "/q?", 3)) {
    int q = (int)strtol(path + 5, NULL, 10);
    buf_addf(&a->body, "<a href=/q?s=%d>more</a>", q + 1);
    filler(h, 60, &a->body);
  } else if(!strcmp(path, "/old-sitemap.xml")) {
    a->status = 301;
    snprintf(a->location, sizeof a->location, "/sitemap.xml.gz");
  } else if(!strcmp(path, "/sitemap.xml.gz")) {
    char set[256];
    snprintf(set, sizeof set, "<urlset><url><loc>http://s%d.test/only-in-sitemap.html</loc>"
             "</url></urlset>", site);
    gzip_body(set, &a->body);
    a->ctype = "application/gzip";
  } else if(!strcmp(path, "/big-sitemap.xml")) {
    buf_adds(&a->body, "<urlset>");
    for(int i = 0; i < BIG_SITEMAP; i++)
      buf_addf(&a->body, "<url><loc>http://s%d.test/big/%d.html</loc></url>", site, i);
    buf_adds(&a->body, "</urlset>");
    a->ctype = "application/xml";
  } else if(!strncmp(path, "/big/", 5)) {
    filler(h, 60, &a->body);
  } else if(!strcmp(path, "/xrt-nofollow.html")) {
    buf_adds(&a->body, "<a href=/behind-xrt.html>behind</a>");
    filler(h, 60, &a->body);
    a->robots = ROBOTS_TAG_NOFOLLOW | ROBOTS_TAG_NOINDEX;
  } else if(!strcmp(path, "/only-in-sitemap.html")) {
    filler(h, 60, &a->body);
  } else if(site == 4 && !strncmp(path, "/near/", 6)) {
    filler(99, 300, &a->body);
    buf_adds(&a->body, path[6] == '1' ? " alpha" : " omega");
    if(path[6] == '3')  /* a near copy with a link of its own */
      buf_adds(&a->body, "<a href=/only-near.html>only here</a>");
  } else if(site == 4 && !strcmp(path, "/only-near.html")) {
    filler(98, 60, &a->body);
  } else {
    a->status = 404;
    buf_adds(&a->body, "not found");
  }
}

static void web_fetch(const char *url, struct web_answer *a)
{
  int site = -1, off = 0;
  memset(a, 0, sizeof *a);
  buf_init(&a->body, 1 << 20);
  a->outcome = "ok";
  a->status = 200;
  a->ctype = "text/html; charset=utf-8";
  if(sscanf(url, "http://s%d.test%n", &site, &off) != 1 || site < 0 || site >= SITES) {
    a->outcome = "dns_error";
    a->status = 0;
    return;
  }
  const char *path = url + off;
  int j = page_number(path);
  if(j >= 0)
    page_html(site, j, &a->body);
  else if(!strncmp(path, "/private/", 9)) {
    a->outcome = "robots_disallowed";
    a->status = 0;
  } else if(!strcmp(path, "/old")) {
    a->status = 301;
    snprintf(a->location, sizeof a->location, "/p/%d.html", 1);
  } else
    web_special(site, path, a);
  if(strcmp(a->outcome, "robots_disallowed"))
    a->conns = site == CLOSING_SITE ? ++web_conns[site] : (web_conns[site] = 1);
}

/* ---- Driving the engine --------------------------------------------------- */

static char tmpdir[256];

static void rm_rf(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  char p[1024];
  struct stat st;
  while(d && (de = readdir(d)) != NULL) {
    if(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    if(lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
      rm_rf(p);
    else
      unlink(p);
  }
  if(d)
    closedir(d);
  rmdir(dir);
}

static int setup(void **state)
{
  (void)state;
  log_init("test", LOG_WARN);
  memset(web_conns, 0, sizeof web_conns);
  snprintf(tmpdir, sizeof tmpdir, "%s/wpfs-crawl.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
  (void)state;
  if(getenv("WPFS_KEEP_TMP"))
    return 0;  /* to look at a failed crawl's files */
  rm_rf(tmpdir);
  return 0;
}

static struct crawl_opts opts(const char *sub, char *dir, size_t n)
{
  snprintf(dir, n, "%s/%s", tmpdir, sub);
  struct crawl_opts o = crawl_opts_default();
  o.out_dir = dir;
  o.scope = LINKFILTER_ANY;
  o.trap.site_budget = 1000;
  o.trap.max_query_variants = 20;
  o.seen_mem = 16u << 10;   /* small: the seen set spills to disk runs */
  o.max_per_host = 3;
  o.warc_max_bytes = 64u << 10;  /* several files */
  return o;
}

static void add_seeds(struct crawl *c)
{
  char url[64];
  for(int s = 0; s < SITES; s++) {
    snprintf(url, sizeof url, "http://s%d.test/", s);
    assert_int_equal(crawl_add_seed(c, url), CRAWL_OK);
  }
}

/* Fetch one URL and hand the result over. fetched (may be NULL) records it. */
static crawl_err deliver(struct crawl *c, const struct frontier_item *it, struct fetched *f)
{
  struct web_answer a;
  web_fetch(it->url, &a);
  if(f && f->n < 4096)
    f->url[f->n++] = mem_strdup(it->url);
  struct warc_header h[2] = { { "Content-Type", a.ctype }, { "Location", a.location } };
  struct crawl_result r = { it->url, a.outcome, a.status, h, a.location[0] ? 2 : 1,
                            a.body.data, a.body.len, false, a.location[0] ? a.location : NULL,
                            1700000000000ull, 3, NULL, 0, a.robots, 0, a.conns };
  crawl_err e = crawl_result(c, &r);
  buf_free(&a.body);
  return e;
}

/* Crawl until finished, or until stop_after results (then return). */
static size_t run(struct crawl *c, struct fetched *f, size_t stop_after, size_t ckpt_every)
{
  struct frontier_item it[16];
  size_t done = 0, idle = 0;
  while(!crawl_finished(c)) {
    size_t n = crawl_take(c, 16, it);
    if(n == 0) {  /* the seen set's answers are on their way, or just came */
      if(!crawl_wait(c))
        assert_true(++idle < 100);
      continue;
    }
    idle = 0;
    for(size_t i = 0; i < n; i++) {
      assert_int_equal(deliver(c, &it[i], f), CRAWL_OK);
      if(++done == stop_after)
        return done;
      if(ckpt_every && done % ckpt_every == 0)
        assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
    }
  }
  return done;
}

static void fetched_free(struct fetched *f)
{
  for(int i = 0; i < f->n; i++)
    mem_free(f->url[i]);
  f->n = 0;
}

static int times(const struct fetched *f, const char *url)
{
  int k = 0;
  for(int i = 0; i < f->n; i++)
    k += !strcmp(f->url[i], url);
  return k;
}

static int count_prefix(const struct fetched *f, const char *prefix)
{
  int k = 0;
  for(int i = 0; i < f->n; i++)
    k += !strncmp(f->url[i], prefix, strlen(prefix));
  return k;
}

static void assert_each_once(const struct fetched *f)
{
  for(int i = 0; i < f->n; i++)
    for(int j = i + 1; j < f->n; j++)
      if(!strcmp(f->url[i], f->url[j]))
        fail_msg("fetched twice: %s", f->url[i]);
}

static void assert_all_pages(const struct fetched *f)
{
  char url[64];
  for(int s = 0; s < SITES; s++) {
    snprintf(url, sizeof url, "http://s%d.test/", s);
    assert_int_equal(times(f, url), 1);
    for(int j = 1; j < PAGES; j++) {
      snprintf(url, sizeof url, "http://s%d.test/p/%d.html", s, j);
      if(times(f, url) != 1)
        fail_msg("page not fetched once: %s", url);
    }
  }
}

/* ---- WARC and crawl log agree -------------------------------------------- */

struct log_check {
  const char *warc_dir;
  size_t      lines, with_warc, revisits, bad;
  char       *urls[4096];
};

static crawl_err check_line(void *arg, const struct crawllog_rec *rec)
{
  struct log_check *lc = arg;
  if(lc->lines < 4096)
    lc->urls[lc->lines] = mem_strdup(rec->url);
  lc->lines++;
  if(!rec->warc)
    return CRAWL_OK;
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", lc->warc_dir, rec->warc);
  struct warc_record wr;
  if(warc_read_at(path, rec->warc_offset, 1 << 24, &wr) != CRAWL_OK) {
    lc->bad++;
    return CRAWL_OK;
  }
  lc->with_warc++;
  lc->revisits += !strcmp(wr.type, "revisit");
  if(!wr.target || strcmp(wr.target, rec->url) || wr.member_len != rec->warc_length ||
     wr.status != rec->status)
    lc->bad++;
  if(!strcmp(wr.type, "revisit")) {  /* the original is in this crawl: all three named */
    char *uri = warc_record_field(&wr, "WARC-Refers-To-Target-URI");
    char *date = warc_record_field(&wr, "WARC-Refers-To-Date");
    char *id = warc_record_field(&wr, "WARC-Refers-To");
    unsigned char raw[WARC_ID_RAW];
    if(!uri || strcmp(uri, rec->duplicate_of ? rec->duplicate_of : "") || !warc_date_ms(date) ||
       !warc_id_parse(id, raw))
      lc->bad++;
    mem_free(uri);
    mem_free(date);
    mem_free(id);
  }
  warc_record_free(&wr);
  return CRAWL_OK;
}

/* Every record of every file, in order: warcinfo first in each, named by
 * every other record of the file; a request record per page (its
 * response or revisit, the record the log names, comes after it). */
static size_t count_records(const char *warc_dir, size_t *files)
{
  size_t requests = 0;
  DIR *d = opendir(warc_dir);
  struct dirent *de;
  size_t n = 0;
  *files = 0;
  while(d && (de = readdir(d)) != NULL) {
    if(!strstr(de->d_name, ".warc.gz"))
      continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", warc_dir, de->d_name);
    struct stat st;
    stat(path, &st);
    uint64_t off = 0;
    bool first = true;
    char *info = NULL;
    (*files)++;
    while(off < (uint64_t)st.st_size) {
      struct warc_record wr;
      assert_int_equal(warc_read_at(path, off, 1 << 24, &wr), CRAWL_OK);
      assert_true(!first || !strcmp(wr.type, "warcinfo"));
      if(first)
        info = warc_record_field(&wr, "WARC-Record-ID");
      char *named = first ? NULL : warc_record_field(&wr, "WARC-Warcinfo-ID");
      assert_true(first || (named && info && !strcmp(named, info)));
      mem_free(named);
      n += !strcmp(wr.type, "response") || !strcmp(wr.type, "revisit");
      requests += !strcmp(wr.type, "request");
      off += wr.member_len;
      first = false;
      warc_record_free(&wr);
    }
    mem_free(info);
  }
  if(d)
    closedir(d);
  assert_int_equal(requests, n);
  return n;
}

static void check_outputs(const char *dir, const struct crawl_stats *st)
{
  char path[1024], warc_dir[1024];
  struct log_check lc = { 0 };
  snprintf(warc_dir, sizeof warc_dir, "%s/warc", dir);
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  lc.warc_dir = warc_dir;
  assert_int_equal(crawllog_scan(path, 0, check_line, &lc), CRAWL_OK);
  assert_int_equal(lc.bad, 0);
  assert_int_equal(lc.lines, st->pages);
  assert_int_equal(lc.revisits, st->dup_exact);
  for(size_t i = 0; i < lc.lines && i < 4096; i++)
    for(size_t j = i + 1; j < lc.lines && j < 4096; j++)
      if(!strcmp(lc.urls[i], lc.urls[j]))
        fail_msg("two log lines for %s", lc.urls[i]);
  for(size_t i = 0; i < lc.lines && i < 4096; i++)
    mem_free(lc.urls[i]);
  size_t files;
  assert_int_equal(count_records(warc_dir, &files), lc.with_warc);
  assert_true(files > 1);
}

/* The summary's connections: what the fake gateway counted per site. */
static void assert_conns(const char *summary)
{
  uint64_t hosts = 0, opened = 0, max = 0, over = 0;
  for(int s = 0; s < SITES; s++) {
    hosts += web_conns[s] > 0;
    opened += web_conns[s];
    max = web_conns[s] > max ? web_conns[s] : max;
    over += web_conns[s] > 1;
  }
  assert_true(hosts == SITES && web_conns[CLOSING_SITE] > 1);
  char want[256];
  snprintf(want, sizeof want, "\"connections\":{\"hosts\":%llu,\"opened\":%llu,"
           "\"max_per_host\":%llu,\"hosts_over_one\":%llu,\"untracked\":0}",
           (unsigned long long)hosts, (unsigned long long)opened, (unsigned long long)max,
           (unsigned long long)over);
  if(!strstr(summary, want))
    fail_msg("want %s in %s", want, summary);
}

/* ---- Tests ------------------------------------------------------------------ */

static void test_full_crawl(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("full", dir, sizeof dir);
  struct crawl *c;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  static struct fetched f;
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  struct buf sum;
  buf_init(&sum, 1 << 16);
  assert_int_equal(crawl_summary(c, &sum), CRAWL_OK);
  assert_non_null(strstr(sum.data, "\"drop_site_budget\":"));
  assert_conns(sum.data);
  print_message("# %s\n", sum.data);
  buf_free(&sum);
  assert_each_once(&f);
  assert_all_pages(&f);
  assert_int_equal(st.seeds, SITES);
  assert_int_equal(times(&f, "http://s0.test/img/logo.png"), 0);
  assert_int_equal(times(&f, "http://s0.test/nofollow.html"), 0);
  assert_true(st.drop[DROP_EXTENSION] >= SITES);
  assert_true(st.drop[DROP_NOFOLLOW] >= SITES);
  assert_true(st.links_not_http >= SITES);
  assert_int_equal(st.robots, SITES);
  assert_int_equal(st.http_errors, SITES);  /* /missing.html */
  assert_int_equal(st.redirects, SITES);
  /* Duplicates: every /p/N and ?ref= form fetched is an exact duplicate. */
  int dups = count_prefix(&f, "http://s") - SITES * PAGES;
  assert_true(st.dup_exact > 0);
  assert_int_equal(st.dup_near, 2);  /* /near/2 and /near/3 of /near/1 */
  /* /near/3 links to a page no other page links to: its links are taken. */
  assert_int_equal(st.dup_near_followed, 1);
  assert_int_equal(times(&f, "http://s4.test/only-near.html"), 1);
  /* An exact duplicate is not parsed: its links would not be taken. */
  assert_int_equal(st.parsed, st.html + st.dup_near);
  /* Traps: contained, and each defence said so. */
  assert_true(st.drop[DROP_REPEATED_SEGMENTS] > 0);
  assert_true(st.drop[DROP_QUERY_EXPLOSION] > 0);
  assert_true(count_prefix(&f, "http://s1.test/trap/") < 300);
  assert_true(count_prefix(&f, "http://s1.test/q?") <= 20);
  assert_true(count_prefix(&f, "http://s1.test/") <= 1000);
  assert_true(st.drop[DROP_SITE_BUDGET] > 0);  /* the calendar */
  print_message("# %d fetched (%d beyond the %d pages), %llu exact and %llu near duplicates, "
                "traps: %llu repeated, %llu path depth, %llu query, %llu budget\n",
                f.n, dups, SITES * PAGES, (unsigned long long)st.dup_exact,
                (unsigned long long)st.dup_near,
                (unsigned long long)st.drop[DROP_REPEATED_SEGMENTS],
                (unsigned long long)st.drop[DROP_PATH_DEPTH],
                (unsigned long long)st.drop[DROP_QUERY_EXPLOSION],
                (unsigned long long)st.drop[DROP_SITE_BUDGET]);
  check_outputs(dir, &st);
  crawl_close(&c);
  fetched_free(&f);
  /* The directory holds a crawl: only --resume may continue it. */
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_ERR_INVALID);
}

static void test_scope_and_depth(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("scope", dir, sizeof dir);
  o.scope = LINKFILTER_HOST;
  o.max_depth = 1;
  struct crawl *c;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s2.test/"), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "ftp://s2.test/"), CRAWL_ERR_INVALID);
  static struct fetched f;
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(count_prefix(&f, "http://s2.test/"), f.n);
  assert_true(st.drop[DROP_SCOPE] > 0);
  assert_true(st.drop[DROP_DEPTH] > 0);
  assert_true(f.n < PAGES);
  crawl_close(&c);
  fetched_free(&f);
}

/* Every seed not queued says why, and counts by reason: a .html.gz
 * (the extension denylist), a repeated one, one that is no URL. URLs
 * that end without a page count by cause, and the counts survive a
 * resume. */
static void test_seed_fates_and_causes(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("fates", dir, sizeof dir);
  struct crawl *c;
  const char *why;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_seed(c, "http://s1.test/p/1.html", &why), CRAWL_OK);
  assert_null(why);
  assert_int_equal(crawl_seed(c, "http://s1.test/archive/page.html.gz", &why), CRAWL_OK);
  assert_string_equal(why, "extension");
  assert_int_equal(crawl_seed(c, "http://s1.test/p/1.html", &why), CRAWL_OK);
  assert_string_equal(why, "duplicate");
  assert_int_equal(crawl_seed(c, "mailto:x@s1.test", &why), CRAWL_OK);
  assert_string_equal(why, "malformed");
  assert_int_equal(crawl_seed(c, "http://s99.test/", &why), CRAWL_OK);  /* no such site */
  assert_null(why);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.seeds, 2);
  assert_int_equal(st.seeds_refused, 3);
  assert_int_equal(tally_get(&st.seed_refusals, "extension"), 1);
  assert_int_equal(tally_get(&st.seed_refusals, "duplicate"), 1);
  assert_int_equal(tally_get(&st.seed_refusals, "malformed"), 1);
  assert_int_equal(st.links_known + st.links_invalid + st.links_new, 0);  /* not links */
  /* The refusals are in the checkpoint; the results after it, in the log
   * only: a resume counts them again from their lines. */
  assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
  static struct fetched f;
  run(c, &f, 0, 0);
  crawl_stats(c, &st);
  assert_int_equal(tally_get(&st.causes, "dns_error"), 1);  /* s99.test */
  assert_int_equal(st.seeds_fetched, 1);
  uint64_t without = st.causes.total;
  assert_true(without >= 1);
  crawl_sync(c);
  crawl_close(&c);  /* no checkpoint at the end: a kill */
  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  crawl_stats(c, &st);
  assert_int_equal(st.causes.total, without);
  assert_int_equal(tally_get(&st.causes, "dns_error"), 1);
  assert_int_equal(st.seeds_refused, 3);
  assert_int_equal(st.seeds_fetched, 1);
  crawl_close(&c);
  fetched_free(&f);
}

/* A sitemap that moved (301) is a sitemap where it went; a .xml.gz one is
 * not a file type to skip, and its gzip data is read. */
static void test_sitemap_gzip(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("sitemap", dir, sizeof dir);
  o.scope = LINKFILTER_HOST;
  struct crawl *c;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s3.test/"), CRAWL_OK);
  assert_int_equal(crawl_add_sitemap(c, "http://s3.test/old-sitemap.xml"), CRAWL_OK);
  assert_int_equal(crawl_add_url(c, "http://s3.test/page.xml.gz", 1, 1), CRAWL_OK);
  static struct fetched f;
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(times(&f, "http://s3.test/old-sitemap.xml"), 1);
  assert_int_equal(times(&f, "http://s3.test/sitemap.xml.gz"), 1);
  assert_int_equal(times(&f, "http://s3.test/only-in-sitemap.html"), 1);
  assert_int_equal(times(&f, "http://s3.test/page.xml.gz"), 0);  /* not a sitemap: a file */
  assert_int_equal(st.sitemaps, 1);
  assert_int_equal(st.sitemaps_gzip, 1);
  assert_int_equal(st.sitemaps_cut, 0);
  assert_int_equal(st.sitemap_urls, 1);
  crawl_close(&c);
  fetched_free(&f);
}

/* A sitemap of more <loc>s than the engine holds found at once: each is
 * queued once, in chunks while it is read, and the sitemap's log line
 * counts the chunks queued while it was read too. */
static void test_sitemap_big(void **state)
{
  (void)state;
  char dir[512], path[600], line[4096];
  struct crawl_opts o = opts("sitemap-big", dir, sizeof dir);
  o.trap.site_budget = 100000;
  struct crawl *c;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_sitemap(c, "http://s2.test/big-sitemap.xml"), CRAWL_OK);
  static struct fetched f;
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.sitemap_urls, BIG_SITEMAP);
  assert_int_equal(count_prefix(&f, "http://s2.test/big/"), BIG_SITEMAP);
  assert_int_equal(times(&f, "http://s2.test/big/0.html"), 1);
  assert_int_equal(times(&f, "http://s2.test/big/1024.html"), 1);
  assert_int_equal(times(&f, "http://s2.test/big/2499.html"), 1);
  crawl_sync(c);
  crawl_close(&c);
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  FILE *lg = fopen(path, "r");
  assert_non_null(lg);
  bool seen = false;
  while(fgets(line, sizeof line, lg))
    if(strstr(line, "big-sitemap.xml")) {
      seen = true;
      const char *k = strstr(line, ",\"links\":");
      assert_non_null(k);
      /* more than one chunk's worth: those queued while it was read count
       * (some wait for the seen set's runs, and count when they come) */
      assert_true(strtol(k + 9, NULL, 10) > BIG_SITEMAP / 2);
    }
  fclose(lg);
  assert_true(seen);
  fetched_free(&f);
}

/* Each site's /p/ (a 404) is fetched once: found only by path ascent. */
static void assert_ascended(const struct fetched *f)
{
  char url[64];
  for(int s = 0; s < SITES; s++) {
    snprintf(url, sizeof url, "http://s%d.test/p/", s);
    if(times(f, url) != 1)
      fail_msg("not fetched once by path ascent: %s", url);
  }
}

/* --path-ascend: the directories above fetched URLs are crawled once, and
 * the trap defences still hold (the trap's own directories are trap URLs). */
static void test_path_ascend(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("ascend", dir, sizeof dir);
  struct crawl *c;
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  run(c, &f, 0, 0);
  assert_int_equal(times(&f, "http://s1.test/p/"), 0);  /* off by default */
  crawl_close(&c);
  fetched_free(&f);
  o = opts("ascend2", dir, sizeof dir);
  o.path_ascend = true;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_each_once(&f);
  assert_all_pages(&f);
  assert_ascended(&f);
  assert_int_equal(times(&f, "http://s1.test/cal/2024/"), 1);
  assert_int_equal(times(&f, "http://s1.test/cal/"), 1);
  assert_true(st.ascents > 0);
  assert_true(st.drop[DROP_REPEATED_SEGMENTS] > 0);
  assert_true(count_prefix(&f, "http://s1.test/") <= 1000);
  check_outputs(dir, &st);
  crawl_close(&c);
  fetched_free(&f);
}

/* A 404 recorded after the last checkpoint, then a crash: resuming replays
 * its line, and the directories above it are queued again (a 404 has no
 * WARC record to read back, so the replay itself must ascend). */
static void test_ascend_replay(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("ascend-replay", dir, sizeof dir);
  o.path_ascend = true;
  struct crawl *c;
  struct frontier_item it[4];
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s2.test/gone/a/x.html"), CRAWL_OK);
  assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
  assert_int_equal(crawl_take(c, 4, it), 1);
  assert_int_equal(deliver(c, &it[0], &f), CRAWL_OK);
  crawl_sync(c);  /* its line is on disk, then a kill */
  crawl_close(&c);
  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  run(c, &f, 0, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.replayed, 1);
  assert_int_equal(times(&f, "http://s2.test/gone/a/x.html"), 1);
  assert_int_equal(times(&f, "http://s2.test/gone/a/"), 1);
  assert_int_equal(times(&f, "http://s2.test/gone/"), 1);
  assert_int_equal(times(&f, "http://s2.test/"), 1);
  crawl_close(&c);
  fetched_free(&f);
}

/* A page the gateway said X-Robots-Tag: noindex, nofollow of: no link
 * taken, the mark on its line; replayed after a crash (its WARC record
 * keeps only its Content-Type), the line's mark keeps its links untaken. */
static void test_robots_replay(void **state)
{
  (void)state;
  char dir[512], path[600], line[4096] = "";
  struct crawl_opts o = opts("robots-replay", dir, sizeof dir);
  struct crawl *c;
  struct frontier_item it[4];
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s3.test/xrt-nofollow.html"), CRAWL_OK);
  assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
  assert_int_equal(crawl_take(c, 4, it), 1);
  assert_int_equal(deliver(c, &it[0], &f), CRAWL_OK);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.nofollow, 1);
  assert_int_equal(st.noindex, 1);
  assert_true(crawl_finished(c));
  crawl_sync(c);  /* its line is on disk, then a kill */
  crawl_close(&c);
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  FILE *lg = fopen(path, "r");
  assert_non_null(lg);
  assert_non_null(fgets(line, sizeof line, lg));
  fclose(lg);
  assert_non_null(strstr(line, ",\"robots\":[\"noindex\",\"nofollow\"]"));
  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  run(c, &f, 0, 0);
  crawl_stats(c, &st);
  assert_int_equal(st.replayed, 1);
  assert_int_equal(times(&f, "http://s3.test/xrt-nofollow.html"), 1);
  assert_int_equal(times(&f, "http://s3.test/behind-xrt.html"), 0);
  crawl_close(&c);
  fetched_free(&f);
}

/* ---- robots.txt that fails for now --------------------------------------- */

/* s2.test's robots.txt fails (503) until the crawl has begun down_rounds
 * rounds of waiting for it; every other site answers. robots_5xx may pass:
 * its URLs wait and are asked again. */
static unsigned down_rounds;

static crawl_err deliver_down(struct crawl *c, const struct frontier_item *it, struct fetched *f)
{
  struct crawl_stats st;
  crawl_stats(c, &st);
  if(strncmp(it->url, "http://s2.test/", 15) || st.robots_rounds >= down_rounds)
    return deliver(c, it, f);
  struct crawl_result r = { it->url, "robots_unavailable", 0, NULL, 0, NULL, 0, false, NULL,
                            1700000000000ull, 3, "robots_5xx", 503, 0, 0, 0 };
  return crawl_result(c, &r);
}

/* Crawl to the end, a round's wait (0 ms) ending at the next take. */
static void run_down(struct crawl *c, struct fetched *f, size_t stop_after)
{
  struct frontier_item it[16];
  size_t idle = 0, done = 0;
  while(!crawl_finished(c)) {
    size_t n = crawl_take(c, 16, it);
    if(n == 0 && !crawl_wait(c))
      assert_true(++idle < 1000);
    for(size_t i = 0; i < n; i++) {
      assert_int_equal(deliver_down(c, &it[i], f), CRAWL_OK);
      if(++done == stop_after)
        return;
    }
  }
}

/* Lines of the crawl log of dir whose URL begins with prefix and which
 * carry needle. */
static int log_count(const char *dir, const char *prefix, const char *needle)
{
  char path[600], line[8192], url[128];
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  snprintf(url, sizeof url, "\"url\":\"%s", prefix);
  FILE *lg = fopen(path, "r");
  int k = 0;
  while(lg && fgets(line, sizeof line, lg))
    k += strstr(line, url) && strstr(line, needle);
  if(lg)
    fclose(lg);
  return k;
}

static struct crawl_opts opts_down(const char *sub, char *dir, size_t n, unsigned rounds)
{
  struct crawl_opts o = opts(sub, dir, n);
  o.robots_rounds = rounds;
  o.robots_wait_ms = 0;  /* the clock is not what is tested here (test_crawl_robots_wait) */
  return o;
}

/* s2.test's robots.txt fails for 2 rounds then answers: every page of s2
 * is fetched, none logged robots_unavailable; the rest of the crawl as
 * ever. Without rounds (0), s2's seed ends robots_unavailable at once. */
static void test_robots_comes_back(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts_down("robots-back", dir, sizeof dir, 3);
  struct crawl *c;
  static struct fetched f;
  down_rounds = 2;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  run_down(c, &f, 0);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.robots_rounds, 2);
  assert_true(st.robots_retried >= 2);
  assert_int_equal(st.robots_gave_up, 0);
  assert_int_equal(tally_get(&st.causes, "robots_5xx"), 0);
  assert_all_pages(&f);
  assert_int_equal(log_count(dir, "http://s2.test/", "robots_unavailable"), 0);
  assert_int_equal(log_count(dir, "http://s2.test/p/19.html\"", "\"status\":200"), 1);
  struct crawl_sizes sz;
  crawl_sizes(c, &sz);
  assert_int_equal(sz.robots_waiting, 0);
  crawl_close(&c);
  fetched_free(&f);

  o = opts_down("robots-back-0", dir, sizeof dir, 0);
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  run_down(c, &f, 0);
  crawl_stats(c, &st);
  assert_int_equal(st.robots_rounds + st.robots_retried + st.robots_gave_up, 0);
  /* every URL of s2 ends at its first answer: none fetched */
  assert_true(tally_get(&st.causes, "robots_5xx") >= 1);
  assert_int_equal(log_count(dir, "http://s2.test/", "\"cause\":\"robots_5xx\""),
                   tally_get(&st.causes, "robots_5xx"));
  assert_int_equal(count_prefix(&f, "http://s2.test/"), 0);
  crawl_close(&c);
  fetched_free(&f);
}

/* s2.test's robots.txt never answers: after 3 rounds its URLs end
 * robots_unavailable with their cause, counted given up; a cause that
 * does not pass (dns_nxdomain) ends at once. A crawl killed while URLs
 * wait resumes with them queued and the rounds it had: 3 in all. */
static void test_robots_gives_up(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts_down("robots-gone", dir, sizeof dir, 3);
  struct crawl *c;
  struct frontier_item it[16];
  static struct fetched f;
  down_rounds = 1000;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s2.test/"), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s2.test/p/3.html"), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s1.test/p/3.html"), CRAWL_OK);
  size_t n = crawl_take(c, 16, it);
  assert_int_equal(n, 3);
  struct crawl_result nx = { "http://s1.test/p/3.html", "robots_unavailable", 0, NULL, 0, NULL,
                             0, false, NULL, 1700000000000ull, 3, "dns_nxdomain", 0, 0, 0, 0 };
  for(size_t i = 0; i < n; i++)
    if(!strncmp(it[i].url, "http://s1.test/", 15))
      assert_int_equal(crawl_result(c, &nx), CRAWL_OK);
    else
      assert_int_equal(deliver_down(c, &it[i], &f), CRAWL_OK);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(tally_get(&st.causes, "dns_nxdomain"), 1);  /* final at once */
  assert_int_equal(st.robots_rounds, 1);
  assert_int_equal(st.robots_retried, 2);
  struct crawl_sizes sz;
  crawl_sizes(c, &sz);
  assert_int_equal(sz.robots_waiting, 2);
  assert_int_equal(sz.frontier.outstanding, 2);
  assert_false(crawl_finished(c));  /* they wait: the crawl is not over */
  assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
  crawl_sync(c);
  crawl_close(&c);  /* a kill while they wait */

  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  crawl_sizes(c, &sz);
  assert_int_equal(sz.frontier.queued, 2);  /* kept, queued again */
  run_down(c, &f, 0);
  crawl_stats(c, &st);
  assert_int_equal(st.robots_rounds, 3);
  assert_int_equal(st.robots_gave_up, 2);
  assert_int_equal(tally_get(&st.causes, "robots_5xx"), 2);
  assert_int_equal(log_count(dir, "http://s2.test/", "\"cause\":\"robots_5xx\""), 2);
  assert_int_equal(log_count(dir, "http://s2.test/", "\"cause_status\":503"), 2);
  crawl_close(&c);
  fetched_free(&f);
}

/* A page whose headers are past the WARC record's caps keeps its crawl log
 * line (with the reason), gets no record, and the crawl goes on. */
static void test_record_too_large(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("too-large", dir, sizeof dir);
  struct crawl *c;
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s0.test/p/1.html"), CRAWL_OK);
  struct frontier_item it[2];
  assert_int_equal(crawl_take(c, 2, it), 1);
  size_t big = (1u << 20) + 1;
  char *v = mem_alloc(big + 1);
  memset(v, 'v', big);
  v[big] = '\0';
  struct warc_header h[2] = { { "Content-Type", "text/html" }, { "X-Huge", v } };
  const char *body = "<p>a page with huge headers</p><a href=/p/2.html>next</a>";
  struct crawl_result r = { it[0].url, "ok", 200, h, 2, body, strlen(body), false, NULL,
                            1700000000000ull, 3, NULL, 0, 0, 0, 0 };
  assert_int_equal(crawl_result(c, &r), CRAWL_OK);
  mem_free(v);
  run(c, &f, 0, 0);  /* the rest of the crawl goes on */
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.records_too_large, 1);
  assert_int_equal(crawl_error(c), CRAWL_OK);
  assert_true(st.pages > 1);
  char path[600], line[8192];
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  FILE *lf = fopen(path, "r");
  assert_non_null(fgets(line, sizeof line, lf));
  fclose(lf);
  assert_non_null(strstr(line, "\"reason\":\"warc_record_too_large\""));
  assert_null(strstr(line, "\"warc\":"));
  crawl_close(&c);
  fetched_free(&f);
}

/* A page's charset from its Content-Type decodes it: a link written in
 * windows-1251 names the UTF-8 path it means, not the bytes read as
 * Latin-1 (without the charset: /%C3%8F%C3%B0.html). */
static void test_transport_charset(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("charset", dir, sizeof dir);
  struct crawl *c;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  assert_int_equal(crawl_add_seed(c, "http://s0.test/p/1.html"), CRAWL_OK);
  struct frontier_item it[2];
  assert_int_equal(crawl_take(c, 2, it), 1);
  struct warc_header h[1] = { { "Content-Type", "text/html; charset=windows-1251" } };
  const char *body = "<p>\xcf\xf0\xe8\xe2\xe5\xf2</p><a href=\"/\xcf\xf0.html\">x</a>";
  struct crawl_result r = { it[0].url, "ok", 200, h, 1, body, strlen(body), false, NULL,
                            1700000000000ull, 3, NULL, 0, 0, 0, 0 };
  assert_int_equal(crawl_result(c, &r), CRAWL_OK);
  size_t n = 0;
  for(int tries = 0; n == 0 && tries < 100; tries++)
    if((n = crawl_take(c, 2, it)) == 0)
      crawl_wait(c);
  assert_int_equal(n, 1);
  assert_string_equal(it[0].url, "http://s0.test/%D0%9F%D1%80.html");
  crawl_close(&c);
}

/* ---- A disk that does not move ------------------------------------------------ */

struct plug {
  struct wq_job j;
  int           fd[2];
};

static crawl_err plug_run(struct wq_job *j)
{
  struct plug *p = (struct plug *)j;
  char c;
  return read(p->fd[0], &c, 1) == 1 ? CRAWL_OK : CRAWL_ERR_IO;
}

static void plug_done(struct wq_job *j, crawl_err e)
{
  struct plug *p = (struct plug *)j;
  (void)e;
  close(p->fd[0]);
  close(p->fd[1]);
  mem_free(p);
}

/* The disk thread stops at this job until plug_pull. */
static int plug_in(struct crawl *c)
{
  struct plug *p = mem_calloc(1, sizeof *p);
  assert_int_equal(pipe(p->fd), 0);
  p->j.run = plug_run;
  p->j.done = plug_done;
  int out = p->fd[1];
  wq_push(c->wq, &p->j);
  return out;
}

static void plug_pull(int fd)
{
  assert_int_equal(write(fd, "x", 1), 1);
}

static size_t log_lines(const char *dir)
{
  char path[1024], line[8192];
  snprintf(path, sizeof path, "%s/crawl.jsonl", dir);
  FILE *f = fopen(path, "r");
  size_t n = 0;
  while(f && fgets(line, sizeof line, f))
    n++;
  if(f)
    fclose(f);
  return n;
}

static void fence_cb(void *arg, crawl_err e)
{
  *(int *)arg = e == CRAWL_OK ? 1 : -1;
}

/* Results until the engine says the disk is behind (half its cap): none
 * of them waits for the disk. */
static size_t deliver_while_room(struct crawl *c, size_t cap, struct fetched *f)
{
  struct frontier_item it[4];
  size_t n = 0;
  while(crawl_backlog(c) < cap / 2) {
    size_t k = crawl_take(c, 1, it);
    assert_int_equal(k, 1);
    assert_int_equal(deliver(c, &it[0], f), CRAWL_OK);
    n++;
    assert_true(crawl_backlog(c) <= cap);
  }
  return n;
}

/* The disk thread held up: results are recorded, checkpoints taken and
 * fences set without waiting, up to the byte cap; nothing is on disk (not
 * a line, not a checkpoint) and no fence fires until the disk moves; then
 * everything lands, in order, and the crawl ends as any other. */
static void test_slow_disk(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("slow-disk", dir, sizeof dir);
  o.write_queue_bytes = 256u << 10;
  struct crawl *c;
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  int plug = plug_in(c);
  size_t n = deliver_while_room(c, o.write_queue_bytes, &f);
  assert_int_equal(crawl_checkpoint(c), CRAWL_OK);
  int fenced = 0;
  assert_int_equal(crawl_fence(c, fence_cb, &fenced), CRAWL_OK);
  crawl_poll(c);
  struct crawl_stats st;
  crawl_stats(c, &st);
  print_message("# disk held up: %zu results recorded, %zu bytes waiting\n", n,
                crawl_backlog(c));
  assert_true(n >= 10);
  assert_int_equal(st.pages, n);
  assert_int_equal(log_lines(dir), 0);
  assert_int_equal(crawl_checkpoints_out(c), 1);
  char ck[600];
  snprintf(ck, sizeof ck, "%s/checkpoint", dir);
  assert_int_equal(access(ck, F_OK), -1);
  assert_int_equal(fenced, 0);
  plug_pull(plug);
  crawl_sync(c);
  assert_int_equal(fenced, 1);
  assert_int_equal(log_lines(dir), n);
  assert_int_equal(access(ck, F_OK), 0);
  assert_int_equal(crawl_checkpoints_out(c), 0);
  run(c, &f, 0, 0);
  crawl_stats(c, &st);
  assert_each_once(&f);
  assert_all_pages(&f);
  check_outputs(dir, &st);
  crawl_close(&c);
  fetched_free(&f);
}

/* Killed while the disk was held up: the results it had were never
 * written, so they are not finished (their lines are not in the log, and
 * the gateway, never acknowledged, sends them again); the resumed crawl
 * fetches them again and records each page once. */
static void test_kill_before_the_disk(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("kill-slow", dir, sizeof dir);
  fflush(NULL);
  pid_t pid = fork();
  if(pid == 0) {
    struct crawl *c;
    static struct fetched f;
    if(crawl_open(&o, false, &c))
      _exit(3);
    add_seeds(c);
    run(c, &f, 30, 0);
    crawl_checkpoint(c);
    crawl_sync(c);  /* 30 lines and a checkpoint on disk */
    plug_in(c);
    run(c, &f, 20, 0);
    crawl_checkpoint(c);
    raise(SIGKILL);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  assert_int_equal(log_lines(dir), 30);
  struct crawl *c;
  static struct fetched f;
  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.pages, 30);
  assert_int_equal(st.replayed, 0);
  run(c, &f, 0, 0);
  crawl_stats(c, &st);
  check_outputs(dir, &st);  /* each URL once in the log, records agree */
  crawl_close(&c);
  fetched_free(&f);
}

static void append_to_last_warc(const char *dir)
{
  char warc_dir[600], last[256] = "", path[1024];
  snprintf(warc_dir, sizeof warc_dir, "%s/warc", dir);
  DIR *d = opendir(warc_dir);
  struct dirent *de;
  while(d && (de = readdir(d)) != NULL)
    if(strstr(de->d_name, ".warc.gz") && strcmp(de->d_name, last) > 0)
      snprintf(last, sizeof last, "%s", de->d_name);
  if(d)
    closedir(d);
  snprintf(path, sizeof path, "%s/%s", warc_dir, last);
  FILE *w = fopen(path, "a");
  fputs("\x1f\x8b\x08half a record", w);
  fclose(w);
}

/* A child crawls, checkpoints every 25 results and is killed after 60;
 * the crash also leaves half a record at the end of a WARC file and half a
 * line in the crawl log. The parent resumes and finishes. */
static void kill_and_resume(const char *sub, size_t frontier_bytes)
{
  char dir[512], list[600];
  struct crawl_opts o = opts(sub, dir, sizeof dir);
  o.path_ascend = true;  /* the directories found before the kill are not lost */
  o.frontier_bytes = frontier_bytes;
  o.frontier_seg_bytes = 4096;
  snprintf(list, sizeof list, "%s/child-fetched", tmpdir);
  fflush(NULL);
  pid_t pid = fork();
  if(pid == 0) {
    struct crawl *c;
    static struct fetched f;
    if(crawl_open(&o, false, &c))
      _exit(3);
    add_seeds(c);
    run(c, &f, 60, 25);
    crawl_sync(c);  /* the 60 results are acknowledged: on disk */
    FILE *out = fopen(list, "w");
    for(int i = 0; i < f.n; i++)
      fprintf(out, "%s\n", f.url[i]);
    fclose(out);
    char logp[600];
    snprintf(logp, sizeof logp, "%s/crawl.jsonl", dir);
    FILE *lg = fopen(logp, "a");
    fputs("{\"time\":\"2024-", lg);
    fclose(lg);
    append_to_last_warc(dir);
    raise(SIGKILL);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  static struct fetched f;
  FILE *in = fopen(list, "r");
  char line[512];
  while(fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    f.url[f.n++] = mem_strdup(line);
  }
  fclose(in);
  assert_int_equal(f.n, 60);
  struct crawl *c;
  assert_int_equal(crawl_open(&o, true, &c), CRAWL_OK);
  struct crawl_stats st;
  crawl_stats(c, &st);
  assert_int_equal(st.replayed, 10);  /* 60 results, checkpoint at 50 */
  assert_int_equal(st.pages, 60);
  /* the connections per host as of the checkpoint (the replayed lines say
   * none): the closing site had more than one by then */
  assert_true(c->conns.map.count >= 1 && c->conns.max > 1 && c->conns.over_one == 1);
  assert_int_equal(c->conns.max, c->conns.opened - (c->conns.map.count - 1));
  add_seeds(c);  /* seen before: skipped */
  run(c, &f, 0, 25);
  crawl_stats(c, &st);
  assert_each_once(&f);
  assert_all_pages(&f);
  assert_ascended(&f);
  check_outputs(dir, &st);
  struct crawl_sizes sz;
  crawl_sizes(c, &sz);
  print_message("# frontier of %zu bytes: %llu URLs went to disk\n", frontier_bytes,
                (unsigned long long)sz.frontier.spilled);
  assert_int_equal(st.drop[DROP_FRONTIER_FULL], 0);
  assert_true(frontier_bytes > (1u << 20) || sz.frontier.spilled > 100);
  crawl_close(&c);
  fetched_free(&f);
}

static void test_kill_and_resume(void **state)
{
  (void)state;
  kill_and_resume("resume", 1u << 30);
}

/* The same with a frontier of 16 KiB: most URLs wait on disk, in the
 * checkpoints too. */
static void test_kill_and_resume_tiny_frontier(void **state)
{
  (void)state;
  kill_and_resume("resume-tiny", 16u << 10);
}

/* A frontier of 16 KiB holds a handful of URLs: the rest wait on disk,
 * and every page is still fetched once, none dropped. */
static void test_tiny_frontier(void **state)
{
  (void)state;
  char dir[512];
  struct crawl_opts o = opts("tiny-frontier", dir, sizeof dir);
  o.frontier_bytes = 16u << 10;
  o.frontier_seg_bytes = 4096;
  struct crawl *c;
  static struct fetched f;
  assert_int_equal(crawl_open(&o, false, &c), CRAWL_OK);
  add_seeds(c);
  run(c, &f, 0, 0);
  struct crawl_stats st;
  struct crawl_sizes sz;
  crawl_stats(c, &st);
  crawl_sizes(c, &sz);
  assert_each_once(&f);
  assert_all_pages(&f);
  assert_int_equal(st.drop[DROP_FRONTIER_FULL], 0);
  assert_true(sz.frontier.spilled > 100);
  assert_int_equal(sz.frontier.refilled, sz.frontier.spilled);
  assert_int_equal(sz.frontier.on_disk, 0);
  print_message("# %d fetched through a 16 KiB frontier: %llu URLs went to disk and came back\n",
                f.n, (unsigned long long)sz.frontier.spilled);
  check_outputs(dir, &st);
  crawl_close(&c);
  fetched_free(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_full_crawl, setup, teardown),
    cmocka_unit_test_setup_teardown(test_seed_fates_and_causes, setup, teardown),
    cmocka_unit_test_setup_teardown(test_scope_and_depth, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sitemap_gzip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sitemap_big, setup, teardown),
    cmocka_unit_test_setup_teardown(test_path_ascend, setup, teardown),
    cmocka_unit_test_setup_teardown(test_ascend_replay, setup, teardown),
    cmocka_unit_test_setup_teardown(test_robots_replay, setup, teardown),
    cmocka_unit_test_setup_teardown(test_robots_comes_back, setup, teardown),
    cmocka_unit_test_setup_teardown(test_robots_gives_up, setup, teardown),
    cmocka_unit_test_setup_teardown(test_record_too_large, setup, teardown),
    cmocka_unit_test_setup_teardown(test_transport_charset, setup, teardown),
    cmocka_unit_test_setup_teardown(test_slow_disk, setup, teardown),
    cmocka_unit_test_setup_teardown(test_kill_before_the_disk, setup, teardown),
    cmocka_unit_test_setup_teardown(test_kill_and_resume, setup, teardown),
    cmocka_unit_test_setup_teardown(test_tiny_frontier, setup, teardown),
    cmocka_unit_test_setup_teardown(test_kill_and_resume_tiny_frontier, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
