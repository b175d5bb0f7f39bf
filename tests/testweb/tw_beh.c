#include "tests/testweb/tw_beh.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum beh_type { BT_INT, BT_SIZE, BT_BOOL, BT_STR };

struct beh_param {
  const char   *name;
  enum beh_type type;
  size_t        off;
  const char   *help;
};

static const struct beh_param beh_params[] = {
#define X(n, t, h) { #n, BT_##t, offsetof(struct tw_beh, n), h },
  TW_PARAMS(X)
#undef X
};

static const char *const kind_names[] = {
#define X(e, s, h) s,
  TW_KINDS(X)
#undef X
};

const char *tw_kind_name(enum tw_kind k)
{
  return (unsigned)k < TW_K__COUNT ? kind_names[k] : "?";
}

enum tw_kind tw_kind_parse(const char *s, size_t n)
{
  for(unsigned k = 0; k < TW_K__COUNT; k++)
    if(strlen(kind_names[k]) == n && !memcmp(kind_names[k], s, n))
      return (enum tw_kind)k;
  return TW_K__COUNT;
}

static const struct beh_param *beh_find(const char *name, size_t n)
{
  for(size_t i = 0; i < TW_P__COUNT; i++)
    if(strlen(beh_params[i].name) == n && !memcmp(beh_params[i].name, name, n))
      return &beh_params[i];
  return NULL;
}

static int beh_bool(const char *v, long *out)
{
  static const char *yes[] = { "", "1", "true", "yes", "on" };
  static const char *no[] = { "0", "false", "no", "off" };
  for(size_t i = 0; i < 5; i++)
    if(!strcasecmp(v, yes[i]))
      return *out = 1, 0;
  for(size_t i = 0; i < 4; i++)
    if(!strcasecmp(v, no[i]))
      return *out = 0, 0;
  return -1;
}

/* Whole number, with k/m/g (powers of 1024) when size is set. */
static int beh_number(const char *v, int size, long *out)
{
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if(end == v || errno || x < 0)
    return -1;
  long mult = 1;
  if(size && *end) {
    switch(*end | 0x20) {
    case 'k': mult = 1L << 10; break;
    case 'm': mult = 1L << 20; break;
    case 'g': mult = 1L << 30; break;
    default: return -1;
    }
    end++;
  }
  if(*end || x > (1L << 62) / mult)
    return -1;
  *out = x * mult;
  return 0;
}

static void beh_mark(struct tw_beh *b, const struct beh_param *p)
{
  b->set |= 1u << (p - beh_params);
}

tw_err tw_beh_set(struct tw_beh *b, const char *name, size_t nlen, const char *val,
                  char *err, size_t errlen)
{
  const struct beh_param *p = beh_find(name, nlen);
  if(!p)
    return TW_NOT_FOUND;
  char *field = (char *)b + p->off;
  int rc = 0;
  if(p->type == BT_STR)
    memcpy(field, &val, sizeof val);
  else if(p->type == BT_BOOL)
    rc = beh_bool(val, (long *)(void *)field);
  else
    rc = beh_number(val, p->type == BT_SIZE, (long *)(void *)field);
  if(rc) {
    snprintf(err, errlen, "%s: bad value \"%.64s\"", p->name, val);
    return TW_CONFIG;
  }
  beh_mark(b, p);
  return TW_OK;
}

tw_err tw_beh_set_json(struct tw_beh *b, const char *name, json_t *v, char *err,
                       size_t errlen)
{
  const struct beh_param *p = beh_find(name, strlen(name));
  if(!p)
    return TW_NOT_FOUND;
  char text[32];
  if(json_is_string(v))
    return tw_beh_set(b, name, strlen(name), json_string_value(v), err, errlen);
  if(json_is_boolean(v) && p->type == BT_BOOL)
    return tw_beh_set(b, name, strlen(name), json_is_true(v) ? "1" : "0", err, errlen);
  if(json_is_integer(v) && p->type != BT_STR) {
    snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
    return tw_beh_set(b, name, strlen(name), text, err, errlen);
  }
  snprintf(err, errlen, "%s: wrong JSON type", name);
  return TW_CONFIG;
}

static int pct_hex(char c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  c = (char)(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

size_t tw_pct_decode(char *s, size_t n)
{
  size_t o = 0;
  for(size_t i = 0; i < n; i++) {
    int hi, lo;
    if(s[i] == '%' && i + 2 < n && (hi = pct_hex(s[i + 1])) >= 0 &&
       (lo = pct_hex(s[i + 2])) >= 0) {
      s[o++] = (char)(hi << 4 | lo);
      i += 2;
    } else {
      s[o++] = s[i] == '+' ? ' ' : s[i];
    }
  }
  s[o] = '\0';
  return o;
}

tw_err tw_beh_query(struct tw_beh *b, char *q, char *err, size_t errlen)
{
  for(char *kv = q; kv && *kv;) {
    char *amp = strchr(kv, '&');
    if(amp)
      *amp = '\0';
    char *eq = strchr(kv, '=');
    char *val = eq ? eq + 1 : kv + strlen(kv);
    size_t klen = tw_pct_decode(kv, eq ? (size_t)(eq - kv) : strlen(kv));
    tw_pct_decode(val, strlen(val));
    tw_err e = klen ? tw_beh_set(b, kv, klen, val, err, errlen) : TW_OK;
    if(e == TW_NOT_FOUND)
      snprintf(err, errlen, "unknown parameter \"%.64s\"", kv);
    if(e)
      return e == TW_NOT_FOUND ? TW_CONFIG : e;
    kv = amp ? amp + 1 : NULL;
  }
  return TW_OK;
}

void tw_beh_merge(struct tw_beh *dst, const struct tw_beh *src)
{
  for(size_t i = 0; i < TW_P__COUNT; i++) {
    if(!((src->set >> i) & 1u))
      continue;
    size_t sz = beh_params[i].type == BT_STR ? sizeof(const char *) : sizeof(long);
    memcpy((char *)dst + beh_params[i].off, (const char *)src + beh_params[i].off, sz);
    dst->set |= 1u << i;
  }
}

void tw_beh_markdown(FILE *out)
{
  static const char *const tn[] = { "int", "size", "bool", "string" };
  fputs("| parameter | type | meaning |\n| --- | --- | --- |\n", out);
  for(size_t i = 0; i < TW_P__COUNT; i++)
    fprintf(out, "| `%s` | %s | %s |\n", beh_params[i].name, tn[beh_params[i].type],
            beh_params[i].help);
  fputs("\n| kind | meaning |\n| --- | --- |\n", out);
  static const char *const kh[] = {
#define X(e, s, h) h,
    TW_KINDS(X)
#undef X
  };
  for(size_t k = 0; k < TW_K__COUNT; k++)
    fprintf(out, "| `%s` | %s |\n", kind_names[k], kh[k]);
}
