/* The focused crawler's reading of a page on arbitrary bytes: the
 * tokenizer (tokens, lower case, stop list, Snowball stemmer), term
 * vectors and their cosine, the page's text with each link's anchor in it
 * (html_links with text_max), and the scorer's judgement of the page and
 * its links (every strategy), then the crawl log members it wrote read
 * back as a resume reads them. Aborts when a stem is empty or longer than
 * the word it came from can make it, a similarity or a link score leaves
 * [0, 1], an anchor lies outside the text, the cap on the text is not
 * kept, what was logged does not read back, or on a leak. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/out/crawllog.h"
#include "clients/focus/focus.h"
#include "clients/focus/text.h"
#include "clients/focus/tvec.h"
#include "clients/web/html.h"
#include "clients/web/html_links.h"
#include "common/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (64u << 10)
#define TEXT_MAX 4096

static void die(const char *what)
{
  fprintf(stderr, "fuzz_focus: %s\n", what);
  abort();
}

static crawl_err on_term(void *arg, uint64_t term, const char *stem, size_t len)
{
  (void)arg;
  if(len == 0 || len > 4 * TEXT_WORD_MAX)
    die("stem empty or too long");
  if(term != text_term(stem, len))
    die("term is not the stem's");
  return CRAWL_OK;
}

static void check_tokens(const char *p, size_t n)
{
  struct text *t;
  struct text_opts o = text_opts_default();
  if(text_open(&o, &t))
    return;
  text_terms(t, p, n, on_term, NULL);
  struct tvec v;
  tvec_init(&v, 1000);
  struct idf *d = NULL;
  if(!tvec_add_text(&v, t, p, n) && !idf_open(1 << 16, &d)) {
    tvec_end(&v);
    for(size_t i = 1; i < v.n; i++)
      if(v.v[i - 1].term >= v.v[i].term)
        die("vector not sorted and merged");
    idf_learn(d, &v);
    double c = tvec_cosine(d, &v, &v);
    if(v.n && fabs(c - 1) > 1e-9)
      die("a text is not its own closest");
  }
  idf_close(&d);
  tvec_free(&v);
  text_close(&t);
}

/* Score the page with every strategy; the log members read back. */
static void check_scores(const struct html_links *l, int strategy)
{
  struct focus_opts fo = focus_opts_default();
  fo.strategy = (enum focus_strategy)strategy;
  struct focus *f;
  if(focus_open(&fo, &f))
    return;
  const struct crawl_scorer *h = focus_scorer(f);
  struct buf log;
  buf_init(&log, CRAWLLOG_EXTRA_MAX);
  struct frontier_score *scores = mem_calloc(l->n + 1, sizeof *scores);
  bool *follow = mem_calloc(l->n + 1, sizeof *follow);
  if(scores && follow && !focus_topic_words(f, l->text.data ? l->text.data : "", l->text.len / 2)) {
    struct crawl_scored sp = { "http://fuzz.test/a", "ok", 200, NULL, l->text.data, l->text.len,
                               l, false, scores, follow, &log, false };
    if(h->page(h->arg, &sp) == CRAWL_OK) {
      for(size_t i = 0; i < l->n; i++)
        if(!(scores[i].score >= 0 && scores[i].score <= 1))
          die("link score out of [0, 1]");
      char *line = mem_alloc(log.len + 64);
      struct frontier_score back;
      if(line) {
        int n = snprintf(line, log.len + 64, "{\"url\":\"u\"%s}", log.data ? log.data : "");
        if(h->recorded(h->arg, line, (size_t)n, &back) != CRAWL_OK)
          die("logged members do not read back");
      }
      mem_free(line);
    }
  }
  mem_free(scores);
  mem_free(follow);
  buf_free(&log);
  focus_close(&f);
}

static void check_anchors(const char *p, size_t n)
{
  struct html_links_opts o = html_links_opts_default();
  o.max_links = 100;
  o.text_max = TEXT_MAX;
  struct html_links l;
  if(html_links_extract(p, n, NULL, "http://fuzz.test/a", &o, &l, NULL) == CRAWL_OK) {
    if(l.text.len > TEXT_MAX)
      die("text cap not kept");
    for(size_t i = 0; i < l.n; i++)
      if(l.v[i].text_at > l.text.len || l.v[i].anchor_len > l.text.len - l.v[i].text_at)
        die("anchor outside the text");
    check_scores(&l, (int)(n % 3));
    html_links_free(&l);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size > FUZZ_MAX_INPUT)
    return 0;
  long live = mem_live();
  check_tokens((const char *)data, size);
  check_anchors((const char *)data, size);
  if(mem_live() != live)
    die("leak");
  return 0;
}
