/* How precise the crawler's near-duplicate test is on real HTML. Every
 * page of a documentation tree on disk goes through what wpfs-discover
 * does with a page (links and text in one pass, SimHash of the text, the
 * content-seen test with its defaults), in path order, as if a site
 * served the tree. Each page the test calls a near duplicate is compared
 * with the original it names:
 *   - text: the same words (read as SimHash reads them), or 3-word
 *     shingle sets whose Jaccard similarity is at least 0.9;
 *   - links: every link of the page is one of the original's too.
 * The text test is right ("text_close") when the first holds; the flag loses
 * nothing ("right") when both do. The crawler follows the links of a near
 * duplicate whose set of links is not its original's (dedup.h): counted
 * are the links only unfollowed near duplicates carry, which a crawl of
 * the tree would never reach ("links_lost"); with --before, as the crawler
 * did before that rule, no near duplicate's links are followed.
 *   bench_neardup [--before] [-v] NAME=DIR...   one JSON line per corpus;
 *                                   -v: each wrong flag on stderr
 * Files only, no network: the same tree gives the same numbers. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/crawl/dedup.h"
#include "clients/web/html_links.h"
#include "clients/web/simhash.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/mem.h"

#define FILE_MAX (10u << 20)  /* the gateway's default body cap */

struct fps {
  uint64_t *v;
  size_t    n;
};

struct page {
  char      *url;
  struct fps links, shingles;
  uint64_t   words_fp;
  enum dedup_verdict verdict;
  bool       followed;  /* its links are taken */
  size_t     of;        /* the original of a near duplicate */
  unsigned   distance;
};

static bool    before, verbose;
static char  **files;
static size_t  nfiles, files_cap;

static int collect(const char *path, const struct stat *st, int type, struct FTW *f)
{
  (void)st;
  (void)f;
  size_t n = strlen(path);
  if(type != FTW_F || n < 5 || (strcmp(path + n - 5, ".html") && strcmp(path + n - 4, ".htm")))
    return 0;
  if(nfiles == files_cap) {
    files_cap = files_cap ? 2 * files_cap : 1024;
    files = realloc(files, files_cap * sizeof *files);
  }
  files[nfiles++] = strdup(path);
  return 0;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void fps_sort(struct fps *f)
{
  qsort(f->v, f->n, sizeof *f->v, cmp_u64);
  size_t k = 0;
  for(size_t i = 0; i < f->n; i++)
    if(!k || f->v[k - 1] != f->v[i])
      f->v[k++] = f->v[i];
  f->n = k;
}

static bool fps_has(const struct fps *f, uint64_t x)
{
  return bsearch(&x, f->v, f->n, sizeof x, cmp_u64) != NULL;
}

static size_t fps_common(const struct fps *a, const struct fps *b)
{
  size_t c = 0;
  for(size_t i = 0; i < a->n; i++)
    c += fps_has(b, a->v[i]);
  return c;
}

static char *read_file(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  if(!f)
    return NULL;
  char *p = malloc(FILE_MAX);
  *n = fread(p, 1, FILE_MAX, f);
  fclose(f);
  return p;
}

/* The words of the text as SimHash reads them (runs of ASCII letters and
 * digits or of non-ASCII bytes, lower-cased), one space apart: their
 * fingerprint, and the set of their 3-word shingles. */
static bool word_byte(unsigned c)
{
  return (c | 32) - 'a' < 26u || c - '0' < 10u || c >= 0x80;
}

static void page_words(struct page *pg, const char *t, size_t n)
{
  struct buf w;
  buf_init(&w, 2 * n + 16);
  size_t *starts = malloc((n + 1) * sizeof *starts), nw = 0;
  for(size_t i = 0; i < n;) {
    unsigned c = (unsigned char)t[i];
    if(!word_byte(c)) {
      i++;
      continue;
    }
    if(w.len)
      buf_addc(&w, ' ');
    starts[nw++] = w.len;
    for(; i < n; i++) {
      c = (unsigned char)t[i];
      if(!word_byte(c))
        break;
      buf_addc(&w, (char)(c - 'A' < 26u ? c + 32 : c));
    }
  }
  pg->words_fp = hash_fp64(w.data ? w.data : "", w.len);
  pg->shingles.v = malloc((nw + 1) * sizeof(uint64_t));
  for(size_t i = 0; i + 3 <= nw; i++) {
    size_t end = i + 3 < nw ? starts[i + 3] - 1 : w.len;
    pg->shingles.v[pg->shingles.n++] = hash_fp64(w.data + starts[i], end - starts[i]);
  }
  if(nw && nw < 3)
    pg->shingles.v[pg->shingles.n++] = pg->words_fp;
  fps_sort(&pg->shingles);
  free(starts);
  buf_free(&w);
}

static void page_links(struct page *pg, const struct html_links *l)
{
  pg->links.v = malloc((l->n + 1) * sizeof(uint64_t));
  for(size_t i = 0; i < l->n; i++)
    pg->links.v[pg->links.n++] = hash_fp64(l->v[i].url, strlen(l->v[i].url));
  fps_sort(&pg->links);
}

static size_t find_url(const struct page *pages, size_t n, const char *url)
{
  for(size_t i = 0; i < n; i++)
    if(!strcmp(pages[i].url, url))
      return i;
  abort();
}

/* One page through the crawler's steps; false when it is not read. */
static bool page_read(struct dedup *d, struct page *pages, size_t k, const char *path,
                      const char *root, const char *name)
{
  size_t n;
  char *p = read_file(path, &n);
  if(!p)
    return false;
  struct page *pg = &pages[k];
  struct buf u;
  buf_init(&u, 4096);
  buf_addf(&u, "http://%s.test%s", name, path + strlen(root));
  pg->url = u.data;
  struct html_links_opts lo = html_links_opts_default();
  lo.text_max = 1u << 20;  /* the crawler's --max-text default */
  struct html_links l;
  if(html_links_extract(p, n, NULL, pg->url, &lo, &l, NULL) != CRAWL_OK)
    abort();
  size_t shingles;
  uint64_t sim = simhash_text(l.text.data, l.text.len, &shingles);
  page_words(pg, l.text.data ? l.text.data : "", l.text.len);
  page_links(pg, &l);
  uint64_t links_fp = 0;
  for(size_t i = 0; i < l.n; i++)
    links_fp = dedup_links_add(links_fp, l.v[i].url);
  struct dedup_hit hit;
  if(dedup_check(d, pg->url, hash_fp64(p, n), sim, shingles, links_fp, NULL, &hit) != CRAWL_OK)
    abort();
  pg->verdict = hit.verdict;
  /* As crawl_page_read does: an original's links are taken, and a near
   * duplicate's with links of its own (all of them, with --before: none) */
  pg->followed = hit.verdict == DEDUP_NEW || (hit.verdict == DEDUP_NEAR && hit.own_links && !before);
  if(hit.verdict == DEDUP_NEAR) {
    pg->of = find_url(pages, k, hit.of);
    pg->distance = hit.distance;
  }
  html_links_free(&l);
  free(p);
  return true;
}

static void fps_add(struct fps *into, const struct fps *f)
{
  into->v = realloc(into->v, (into->n + f->n + 1) * sizeof(uint64_t));
  memcpy(into->v + into->n, f->v, f->n * sizeof(uint64_t));
  into->n += f->n;
}

struct tally {
  size_t pages, exact, near, text_same, text_close, links_within, right, own_links, followed;
  size_t links, lost;
};

static void judge(const struct page *pages, size_t n, struct tally *t)
{
  struct fps all = { malloc(1), 0 }, followed = { malloc(1), 0 };
  for(size_t i = 0; i < n; i++) {
    const struct page *pg = &pages[i];
    t->exact += pg->verdict == DEDUP_EXACT;
    if(pg->verdict == DEDUP_EXACT)
      continue;  /* the same bytes: its links are the original's */
    fps_add(&all, &pg->links);
    if(pg->followed)
      fps_add(&followed, &pg->links);
    if(pg->verdict != DEDUP_NEAR)
      continue;
    const struct page *o = &pages[pg->of];
    size_t common = fps_common(&pg->shingles, &o->shingles);
    size_t uni = pg->shingles.n + o->shingles.n - common;
    bool same = pg->words_fp == o->words_fp;
    bool close = same || (uni && (double)common / (double)uni >= 0.9);
    bool within = fps_common(&pg->links, &o->links) == pg->links.n;
    t->near++;
    t->text_same += same;
    t->text_close += close;
    t->links_within += within;
    t->right += close && within;
    t->own_links += !within;
    t->followed += pg->followed;
    if(verbose && !(close && within))
      fprintf(stderr, "# %s ~ %s: %u bits, text %s (jaccard %.2f), %zu of %zu links not the original's%s\n",
              pg->url, o->url, pg->distance, same ? "same" : close ? "close" : "differs",
              uni ? (double)common / (double)uni : 1.0, pg->links.n - fps_common(&pg->links, &o->links),
              pg->links.n, pg->followed ? " (followed)" : "");
  }
  fps_sort(&all);
  fps_sort(&followed);
  t->links = all.n;
  t->lost = all.n - followed.n;
  free(all.v);
  free(followed.v);
}

static int corpus(const char *arg)
{
  const char *eq = strchr(arg, '=');
  if(!eq) {
    fprintf(stderr, "usage: bench_neardup [--before] [-v] NAME=DIR...\n");
    return 2;
  }
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
  const char *root = eq + 1;
  nfiles = 0;
  if(nftw(root, collect, 16, FTW_PHYS) != 0 || nfiles == 0) {
    fprintf(stderr, "bench_neardup: no HTML under %s\n", root);
    return 1;
  }
  qsort(files, nfiles, sizeof *files, cmp_str);
  struct page *pages = calloc(nfiles, sizeof *pages);
  struct dedup *d;
  if(dedup_open(NULL, &d) != CRAWL_OK)
    abort();
  size_t n = 0;
  for(size_t i = 0; i < nfiles; i++)
    n += page_read(d, pages, n, files[i], root, name);
  struct tally t = { .pages = n };
  judge(pages, n, &t);
  double near = t.near ? (double)t.near : 1.0;
  printf("{\"corpus\":\"%s\",\"dir\":\"%s\",\"rule\":\"%s\",\"pages\":%zu,\"exact\":%zu,"
         "\"near\":%zu,\"text_same\":%zu,\"text_close\":%zu,\"text_precision\":%.3f,"
         "\"links_within\":%zu,\"right\":%zu,\"precision\":%.3f,\"near_followed\":%zu,"
         "\"links\":%zu,\"links_lost\":%zu}\n",
         name, root, before ? "before" : "after", n, t.exact, t.near, t.text_same, t.text_close,
         t.near ? (double)t.text_close / near : 1.0, t.links_within, t.right,
         t.near ? (double)t.right / near : 1.0, t.followed, t.links, t.lost);
  for(size_t i = 0; i < n; i++) {
    mem_free(pages[i].url);
    free(pages[i].links.v);
    free(pages[i].shingles.v);
  }
  for(size_t i = 0; i < nfiles; i++)
    free(files[i]);
  free(pages);
  dedup_close(&d);
  return 0;
}

int main(int argc, char **argv)
{
  int i = 1;
  for(; i < argc && argv[i][0] == '-'; i++) {
    before |= !strcmp(argv[i], "--before");
    verbose |= !strcmp(argv[i], "-v");
  }
  int rc = i < argc ? 0 : 2;
  for(; i < argc; i++) {
    int r = corpus(argv[i]);
    rc = r > rc ? r : rc;
  }
  if(rc == 2)
    fprintf(stderr, "usage: bench_neardup [--before] [-v] NAME=DIR...\n");
  free(files);
  return rc;
}
