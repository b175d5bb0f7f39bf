/* clients/focus/text*.c, tvec.c, idf.c: tokens (letters and digits,
 * apostrophes inside words, UTF-8 letters, Unicode punctuation as spaces,
 * numbers and overlong tokens dropped), lower case, the Snowball stop list
 * (every word of it found, nothing else), Snowball's English stemmer
 * (inflections to one term; off, they stay apart), term vectors, IDF
 * learned page by page, and the TF-IDF cosine against values computed by
 * hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "clients/focus/text.c"
#include "clients/focus/text_stop.c"
#include "clients/focus/idf.c"
#include "clients/focus/idf.h"
#include "clients/focus/text.h"
#include "clients/focus/tvec.h"
#include "common/mem.h"

struct terms {
  char   s[64][TEXT_WORD_MAX + 1];
  size_t n;
};

static crawl_err collect(void *arg, uint64_t term, const char *stem, size_t len)
{
  struct terms *t = arg;
  assert_int_equal(term, text_term(stem, len));
  assert_true(t->n < 64);
  memcpy(t->s[t->n], stem, len);
  t->s[t->n++][len] = '\0';
  return CRAWL_OK;
}

static void terms_of(struct text *t, const char *s, struct terms *out)
{
  memset(out, 0, sizeof *out);
  assert_int_equal(text_terms(t, s, strlen(s), collect, out), CRAWL_OK);
}

static struct text *open_text(bool stop, bool stem)
{
  struct text_opts o = { stop, stem };
  struct text *t;
  assert_int_equal(text_open(&o, &t), CRAWL_OK);
  return t;
}

static void expect(struct text *t, const char *in, const char *const *want, size_t n)
{
  struct terms got;
  terms_of(t, in, &got);
  for(size_t i = 0; i < got.n && i < n; i++)
    assert_string_equal(got.s[i], want[i]);
  assert_int_equal(got.n, n);
}

/* Tokens without stop list or stemmer: what a word is. */
static void test_tokens(void **state)
{
  (void)state;
  struct text *t = open_text(false, false);
  const char *a[] = { "sailing", "sails", "sailed", "mp3", "x2" };
  expect(t, "  Sailing, SAILS;sailed! 2024 1.5 mp3 -x2-", a, 5);
  const char *b[] = { "sailor's", "boat", "o" };
  expect(t, "sailor's 'boat' o'", b, 3);
  /* UTF-8 letters are word bytes; dashes, quotes and no-break spaces are not. */
  const char *c[] = { "caf\xc3\xa9", "boats", "harbours", "na\xc3\xafve", "mast" };
  expect(t, "caf\xc3\xa9\xe2\x80\x94" "boats\xe2\x80\x9charbours\xe2\x80\x9d na\xc3\xafve\xc2\xa0mast", c, 5);
  /* A token longer than any word (a hash, base64) is dropped whole. */
  char longw[TEXT_WORD_MAX + 10];
  memset(longw, 'q', sizeof longw - 1);
  longw[sizeof longw - 1] = '\0';
  char in[200];
  snprintf(in, sizeof in, "keel %s hull", longw);
  const char *d[] = { "keel", "hull" };
  expect(t, in, d, 2);
  text_close(&t);
}

/* The stop list: every word of it is found (it is sorted), a few others
 * are not, and they leave the terms. */
static void test_stop_list(void **state)
{
  (void)state;
  size_t n = NSTOP;
  assert_true(n > 170);
  for(size_t i = 0; i < n; i++) {
    const char *w = stop_words[i];
    assert_true(text_is_stop(w, strlen(w)));
    if(i > 0)
      assert_true(strcmp(stop_words[i - 1], w) < 0);
  }
  const char *keep[] = { "theory", "sail", "an't", "", "boat", "hers2", "yourselve" };
  for(size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    assert_false(text_is_stop(keep[i], strlen(keep[i])));
  struct text *t = open_text(true, false);
  const char *a[] = { "boats", "harbour" };
  expect(t, "The boats and THE harbour, but they don't", a, 2);
  text_close(&t);
  t = open_text(false, false);
  const char *b[] = { "the", "boats", "and", "the", "harbour" };
  expect(t, "The boats and THE harbour", b, 5);
  text_close(&t);
}

/* Snowball's English stemmer joins inflections; without it they stay apart. */
static void test_stemming(void **state)
{
  (void)state;
  struct text *t = open_text(true, true);
  const char *a[] = { "sail", "sail", "sail", "sailor", "sailor" };
  expect(t, "sailing sails sailed sailors sailor's", a, 5);
  const char *b[] = { "run", "generous", "harbour", "navig", "yacht", "anchor" };
  expect(t, "running generously harbours navigation yachts anchored", b, 6);
  text_close(&t);
  t = open_text(true, false);
  const char *c[] = { "sailing", "sails", "sailed" };
  expect(t, "sailing sails sailed", c, 3);
  text_close(&t);
}

static void vec(struct tvec *v, struct text *t, const char *s)
{
  tvec_init(v, 1000);
  assert_int_equal(tvec_add_text(v, t, s, strlen(s)), CRAWL_OK);
  tvec_end(v);
}

/* Vectors: terms sorted, repeats merged, the cap on distinct terms. */
static void test_vectors(void **state)
{
  (void)state;
  struct text *t = open_text(true, true);
  struct tvec v;
  vec(&v, t, "boats boat harbour boating the harbours mast");
  assert_int_equal(v.n, 3);  /* boat x3, harbour x2, mast */
  uint32_t sum = 0;
  for(size_t i = 0; i < v.n; i++) {
    sum += v.v[i].tf;
    if(i)
      assert_true(v.v[i - 1].term < v.v[i].term);
    if(v.v[i].term == text_term("boat", 4))
      assert_int_equal(v.v[i].tf, 3);
  }
  assert_int_equal(sum, 6);
  struct tvec small;
  tvec_init(&small, 2);
  assert_int_equal(tvec_add_text(&small, t, "one two three four", 18), CRAWL_OK);
  tvec_end(&small);
  assert_int_equal(small.n, 2);
  tvec_free(&small);
  tvec_free(&v);
  text_close(&t);
}

/* The cosine against values computed by hand: three documents learned,
 * {a}, {a, b}, {c}; then X = {a, b, b} and Y = {a, a, d}:
 *   idf(a) = ln(4/3) + 1 = 1.287682, idf(b) = ln(4/2) + 1 = 1.693147,
 *   idf(d) = ln(4/1) + 1 = 2.386294;
 *   X: a 1 * 1.287682, b (1 + ln 2) * 1.693147; Y: a (1 + ln 2) * 1.287682,
 *   d 1 * 2.386294; cos = 0.276376. Before any page every idf is 1:
 *   cos = (1 + ln 2) / sqrt((1 + (1 + ln 2)^2)^2) = 0.437874. */
static void test_cosine_by_hand(void **state)
{
  (void)state;
  long live = mem_live();
  struct text *t = open_text(false, false);
  struct idf *d;
  assert_int_equal(idf_open(1 << 20, &d), CRAWL_OK);
  struct tvec x, y, d1, d2, d3;
  vec(&x, t, "a b b");
  vec(&y, t, "a a d");
  assert_true(fabs(tvec_cosine(d, &x, &y) - 0.4378737518) < 1e-6);
  vec(&d1, t, "a");
  vec(&d2, t, "a b");
  vec(&d3, t, "c");
  assert_int_equal(idf_learn(d, &d1), CRAWL_OK);
  assert_int_equal(idf_learn(d, &d2), CRAWL_OK);
  assert_int_equal(idf_learn(d, &d3), CRAWL_OK);
  assert_int_equal(idf_docs(d), 3);
  assert_int_equal(idf_df(d, text_term("a", 1)), 2);
  assert_true(fabs(idf_of(d, text_term("a", 1)) - 1.2876820725) < 1e-9);
  assert_true(fabs(idf_of(d, text_term("b", 1)) - 1.6931471806) < 1e-9);
  assert_true(fabs(idf_of(d, text_term("d", 1)) - 2.3862943611) < 1e-9);
  assert_true(fabs(tvec_cosine(d, &x, &y) - 0.2763760798) < 1e-6);
  assert_true(fabs(tvec_cosine(d, &x, &x) - 1.0) < 1e-12);
  assert_true(tvec_cosine(d, &x, &d3) == 0);
  struct tvec empty;
  tvec_init(&empty, 10);
  assert_true(tvec_cosine(d, &x, &empty) == 0);
  tvec_free(&x);
  tvec_free(&y);
  tvec_free(&d1);
  tvec_free(&d2);
  tvec_free(&d3);
  idf_close(&d);
  text_close(&t);
  assert_int_equal(mem_live(), live);
}

/* IDF learned as pages come: a word on every page fades, and stop words
 * or not, the pages that share the topic's rare words stay close. */
static void test_idf_learned(void **state)
{
  (void)state;
  struct text *t = open_text(true, true);
  struct idf *d;
  assert_int_equal(idf_open(1 << 20, &d), CRAWL_OK);
  struct tvec topic, on, off;
  vec(&topic, t, "sailing yacht regatta");
  vec(&on, t, "the yachts sailed in the regatta, crew and people");
  vec(&off, t, "people and crew of the city market");
  double before = tvec_cosine(d, &topic, &on);
  for(int i = 0; i < 50; i++) {  /* fifty pages about people and the city */
    struct tvec p;
    vec(&p, t, "people city market crew");
    assert_int_equal(idf_learn(d, &p), CRAWL_OK);
    tvec_free(&p);
  }
  assert_true(idf_of(d, text_term("peopl", 5)) < idf_of(d, text_term("yacht", 5)));
  assert_true(tvec_cosine(d, &topic, &on) > before);  /* the common words weigh less now */
  assert_true(tvec_cosine(d, &topic, &off) == 0);
  /* A budget too small for every term: past it, terms are not counted. */
  struct idf *tiny;
  struct tvec many;
  vec(&many, t, "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
                "mike november oscar papa quebec romeo sierra tango uniform victor whiskey");
  assert_int_equal(idf_open(256, &tiny), CRAWL_OK);  /* 16 slots: 12 terms */
  assert_int_equal(idf_learn(tiny, &many), CRAWL_OK);
  assert_int_equal(idf_untracked(tiny), many.n - 12);
  size_t counted = 0;
  for(size_t i = 0; i < many.n; i++)
    counted += idf_df(tiny, many.v[i].term) == 1;
  assert_int_equal(counted, 12);
  idf_close(&tiny);
  tvec_free(&many);
  tvec_free(&topic);
  tvec_free(&on);
  tvec_free(&off);
  idf_close(&d);
  text_close(&t);
}

/* Checkpoints: a vector and the frequencies come back the same. */
static void test_save_load(void **state)
{
  (void)state;
  struct text *t = open_text(true, true);
  struct idf *d, *d2;
  assert_int_equal(idf_open(1 << 20, &d), CRAWL_OK);
  assert_int_equal(idf_open(1 << 20, &d2), CRAWL_OK);
  struct tvec a, b;
  vec(&a, t, "mast keel hull mast");
  assert_int_equal(idf_learn(d, &a), CRAWL_OK);
  char path[] = "/tmp/wpfs-tvec-ck.XXXXXX";
  close(mkstemp(path));
  struct ckfile c;
  assert_int_equal(ckfile_create(&c, path, "TESTTVEC"), CRAWL_OK);
  tvec_save(&a, &c);
  idf_save(d, &c);
  assert_int_equal(ckfile_commit(&c), CRAWL_OK);
  tvec_init(&b, 1000);
  assert_int_equal(ckfile_open(&c, path, "TESTTVEC"), CRAWL_OK);
  tvec_load(&b, &c);
  idf_load(d2, &c);
  assert_int_equal(ckfile_close(&c), CRAWL_OK);
  unlink(path);
  assert_int_equal(b.n, a.n);
  assert_memory_equal(b.v, a.v, a.n * sizeof *a.v);
  assert_int_equal(idf_docs(d2), 1);
  assert_int_equal(idf_df(d2, text_term("mast", 4)), 1);
  tvec_free(&a);
  tvec_free(&b);
  idf_close(&d);
  idf_close(&d2);
  text_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tokens),
    cmocka_unit_test(test_stop_list),
    cmocka_unit_test(test_stemming),
    cmocka_unit_test(test_vectors),
    cmocka_unit_test(test_cosine_by_hand),
    cmocka_unit_test(test_idf_learned),
    cmocka_unit_test(test_save_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
