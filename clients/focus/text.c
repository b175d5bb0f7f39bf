#include "clients/focus/text.h"

#include <libstemmer.h>
#include <string.h>

#include "common/hash.h"
#include "common/mem.h"

struct text {
  struct text_opts   o;
  struct sb_stemmer *stemmer;  /* libstemmer's: only this file sees it */
};

struct text_opts text_opts_default(void)
{
  struct text_opts o = { true, true };
  return o;
}

crawl_err text_open(const struct text_opts *o, struct text **out)
{
  struct text *t = mem_calloc(1, sizeof *t);
  *out = NULL;
  if(!t)
    return CRAWL_ERR_NOMEM;
  t->o = *o;
  t->stemmer = sb_stemmer_new("english", "UTF_8");
  if(!t->stemmer) {  /* the algorithm is built in: only memory can lack */
    mem_free(t);
    return CRAWL_ERR_NOMEM;
  }
  *out = t;
  return CRAWL_OK;
}

void text_close(struct text **tp)
{
  struct text *t = *tp;
  if(!t)
    return;
  *tp = NULL;
  sb_stemmer_delete(t->stemmer);
  mem_free(t);
}

uint64_t text_term(const char *stem, size_t n)
{
  return hash_fp64(stem, n);
}

static bool is_alpha(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool is_word_byte(unsigned char c)
{
  return is_alpha(c) || (c >= '0' && c <= '9');
}

/* Non-ASCII bytes that are no letters but spaces and punctuation: the
 * no-break space (U+00A0) and the General Punctuation block (U+2000 to
 * U+206F: dashes, quotes, ellipsis, thin spaces). Their length at i, or 0. */
static size_t sep_len(const unsigned char *s, size_t n, size_t i)
{
  if(i + 1 < n && s[i] == 0xC2 && s[i + 1] == 0xA0)
    return 2;
  if(i + 2 < n && s[i] == 0xE2 && (s[i + 1] == 0x80 || s[i + 1] == 0x81))
    return 3;
  return 0;
}

/* The end of the token starting at i: word bytes, and an apostrophe
 * between two letters. */
static size_t token_end(const unsigned char *s, size_t n, size_t i)
{
  while(i < n && !sep_len(s, n, i)) {
    if(is_word_byte(s[i]))
      i++;
    else if(s[i] == '\'' && i > 0 && is_alpha(s[i - 1]) && i + 1 < n && is_alpha(s[i + 1]))
      i++;
    else
      break;
  }
  return i;
}

/* One token: lower-cased into w, judged, stemmed, handed over. */
static crawl_err text_word(struct text *t, const unsigned char *p, size_t len, text_term_fn *fn,
                           void *arg)
{
  char w[TEXT_WORD_MAX];
  bool letter = false;
  if(len > TEXT_WORD_MAX)
    return CRAWL_OK;
  for(size_t i = 0; i < len; i++) {
    unsigned char c = p[i];
    letter |= is_alpha(c);
    w[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  if(!letter || (t->o.stop && text_is_stop(w, len)))
    return CRAWL_OK;
  if(!t->o.stem)
    return fn(arg, text_term(w, len), w, len);
  const sb_symbol *st = sb_stemmer_stem(t->stemmer, (const sb_symbol *)w, (int)len);
  if(!st)
    return CRAWL_ERR_NOMEM;
  size_t sl = (size_t)sb_stemmer_length(t->stemmer);
  return fn(arg, text_term((const char *)st, sl), (const char *)st, sl);
}

crawl_err text_terms(struct text *t, const char *s, size_t n, text_term_fn *fn, void *arg)
{
  const unsigned char *u = (const unsigned char *)s;
  crawl_err e = CRAWL_OK;
  size_t i = 0;
  while(i < n && !e) {
    size_t sep = sep_len(u, n, i);
    if(sep || !is_word_byte(u[i])) {
      i += sep ? sep : 1;
      continue;
    }
    size_t end = token_end(u, n, i);
    e = text_word(t, u + i, end - i, fn, arg);
    i = end;
  }
  return e;
}
