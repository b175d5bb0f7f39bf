#include "hlfs/state/qenc.h"

#include <stdio.h>
#include <string.h>

#define QENC_MA_BITS   9
#define QENC_ATT_SHIFT 9
#define QENC_SEQ_SHIFT 11
#define QENC_PRIO_SHIFT (QENC_SEQ_SHIFT + QENC_SEQ_BITS)
#define QENC_MA_ANY    511u
#define QENC_MA_TOP    510u

/* Codes below 16 are exact seconds; above, 4 significant bits:
 * code = ((e + 1) << 4) | m stands for (16 + m) << e. */
uint64_t qenc_maxage_secs(unsigned code)
{
  if(code >= QENC_MA_ANY)
    return QENC_MAXAGE_ANY;
  if(code < 16)
    return code;
  unsigned e = (code >> 4) - 1, m = code & 15;
  return (uint64_t)(16 + m) << e;
}

unsigned qenc_maxage_code(uint64_t s)
{
  if(s == QENC_MAXAGE_ANY)
    return QENC_MA_ANY;
  if(s < 16)
    return (unsigned)s;
  unsigned e = 0;
  while((s >> e) >= 32)
    e++;
  unsigned code = ((e + 1) << 4) | (unsigned)((s >> e) - 16);
  return code > QENC_MA_TOP ? QENC_MA_TOP : code;
}

uint64_t qenc_score_base(unsigned prio, uint64_t max_age_s)
{
  if(prio > QENC_PRIO_MAX)
    prio = QENC_PRIO_MAX;
  return ((uint64_t)(QENC_PRIO_MAX - prio) << QENC_PRIO_SHIFT)
         | qenc_maxage_code(max_age_s);
}

void qenc_score_unpack(uint64_t score, struct qenc_score *out)
{
  out->prio = QENC_PRIO_MAX - (unsigned)((score >> QENC_PRIO_SHIFT) & 7);
  out->seq = (score >> QENC_SEQ_SHIFT) & ((1ull << QENC_SEQ_BITS) - 1);
  out->attempts = (unsigned)(score >> QENC_ATT_SHIFT) & 3;
  out->max_age_s = qenc_maxage_secs((unsigned)(score & ((1u << QENC_MA_BITS) - 1)));
}

/* Does url continue, after its scheme, with "[sub.]site" then '/' or ':'?
 * Sets *sublen (0 = the host is the site itself). */
static int qenc_host_match(const char *rest, const char *site, size_t *sublen)
{
  size_t sl = strlen(site);
  size_t hl = strcspn(rest, "/:?#@");
  if(!sl || (rest[hl] != '/' && rest[hl] != ':'))
    return 0;
  if(hl == sl && !memcmp(rest, site, sl)) {
    *sublen = 0;
    return 1;
  }
  if(hl > sl + 1 && rest[hl - sl - 1] == '.' && !memcmp(rest + hl - sl, site, sl)) {
    *sublen = hl - sl - 1;
    return 1;
  }
  return 0;
}

static size_t qenc_put(char *out, size_t outlen, char tag, const char *a, size_t alen,
                       const char *b)
{
  size_t bl = strlen(b);
  if(1 + alen + bl + 1 > outlen)
    return 0;
  out[0] = tag;
  memcpy(out + 1, a, alen);
  memcpy(out + 1 + alen, b, bl + 1);
  return 1 + alen + bl;
}

size_t qenc_url_pack(const char *site, const char *url, char *out, size_t outlen)
{
  static const struct { const char *scheme; char same, sub; } sch[] = {
    { "http://", 'h', 'H' }, { "https://", 's', 'S' },
  };
  for(size_t i = 0; i < 2; i++) {
    size_t pl = strlen(sch[i].scheme), sub;
    if(strncmp(url, sch[i].scheme, pl) || !qenc_host_match(url + pl, site, &sub))
      continue;
    const char *host = url + pl;
    const char *after = host + (sub ? sub + 1 : 0) + strlen(site);
    return sub ? qenc_put(out, outlen, sch[i].sub, host, sub, after)
               : qenc_put(out, outlen, sch[i].same, "", 0, after);
  }
  return qenc_put(out, outlen, 'u', "", 0, url);
}
