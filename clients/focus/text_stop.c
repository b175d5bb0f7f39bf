/* The English stop list of the Snowball project
 * (https://snowballstem.org/algorithms/english/stop.txt, BSD licence),
 * sorted for a binary search. The words are the unstemmed, lower-case
 * forms; the list is checked before stemming. */
#include "clients/focus/text.h"

#include <stdlib.h>
#include <string.h>

static const char *const stop_words[] = {
  "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any",
  "are", "aren't", "as", "at", "be", "because", "been", "before", "being", "below",
  "between", "both", "but", "by", "can't", "cannot", "could", "couldn't", "did",
  "didn't", "do", "does", "doesn't", "doing", "don't", "down", "during", "each", "few",
  "for", "from", "further", "had", "hadn't", "has", "hasn't", "have", "haven't",
  "having", "he", "he'd", "he'll", "he's", "her", "here", "here's", "hers", "herself",
  "him", "himself", "his", "how", "how's", "i", "i'd", "i'll", "i'm", "i've", "if",
  "in", "into", "is", "isn't", "it", "it's", "its", "itself", "let's", "me", "more",
  "most", "mustn't", "my", "myself", "no", "nor", "not", "of", "off", "on", "once",
  "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own",
  "same", "shan't", "she", "she'd", "she'll", "she's", "should", "shouldn't", "so",
  "some", "such", "than", "that", "that's", "the", "their", "theirs", "them",
  "themselves", "then", "there", "there's", "these", "they", "they'd", "they'll",
  "they're", "they've", "this", "those", "through", "to", "too", "under", "until", "up",
  "very", "was", "wasn't", "we", "we'd", "we'll", "we're", "we've", "were", "weren't",
  "what", "what's", "when", "when's", "where", "where's", "which", "while", "who",
  "who's", "whom", "why", "why's", "with", "won't", "would", "wouldn't", "you", "you'd",
  "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves",
};
#define NSTOP (sizeof stop_words / sizeof stop_words[0])

struct stop_key {
  const char *p;
  size_t      n;
};

static int stop_cmp(const void *k, const void *e)
{
  const struct stop_key *key = k;
  const char *w = *(const char *const *)e;
  size_t wn = strlen(w);
  int c = memcmp(key->p, w, key->n < wn ? key->n : wn);
  if(c)
    return c;
  return key->n < wn ? -1 : key->n > wn;
}

bool text_is_stop(const char *word, size_t n)
{
  struct stop_key k = { word, n };
  return bsearch(&k, stop_words, NSTOP, sizeof stop_words[0], stop_cmp) != NULL;
}
