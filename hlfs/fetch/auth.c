#include "hlfs/fetch/auth.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hash.h"
#include "common/mem.h"
#include "hlfs/policy/robots.h"

struct auth_entry {
  struct state_client c;
  enum auth_role role;
  bool priv;
  char *ua;     /* its User-Agent, or NULL: the gateway's */
  char *ptok;   /* its robots.txt product token, or NULL: the gateway's */
  uint8_t token_sha[HASH_SHA256_LEN];  /* compare digests: equal length, constant time */
};

struct auth {
  struct auth_entry e[AUTH_MAX_CLIENTS];
  size_t n;
  size_t npriv;
};

static const char *const role_names[] = { "operator", "crawler", "metrics" };

const char *auth_role_name(enum auth_role r)
{
  return (size_t)r < sizeof role_names / sizeof role_names[0] ? role_names[r] : "?";
}

static int auth_role_parse(const char *s, enum auth_role *out)
{
  for(size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
    if(!strcmp(s, role_names[i])) {
      *out = (enum auth_role)i;
      return 0;
    }
  return -1;
}

static const struct auth_entry *auth_entry_of(const struct auth *a,
                                              const struct state_client *c);

static bool str_eq(const char *x, const char *y)
{
  return (!x && !y) || (x && y && !strcmp(x, y));
}

/* A client's identity on the Web (docs/operations.md, "Identities"). */
struct auth_ident {
  const char *ua, *ptok;
};

static bool auth_same_ident(const struct auth_entry *e, const struct auth_ident *id)
{
  return e && str_eq(e->ua, id ? id->ua : NULL) && str_eq(e->ptok, id ? id->ptok : NULL);
}

static int auth_add(struct auth *a, const char *token, const struct state_client *c,
                    enum auth_role role, bool priv, const struct auth_ident *id, char *err,
                    size_t errlen)
{
  if(a->n >= AUTH_MAX_CLIENTS) {
    snprintf(err, errlen, "more than %d clients", AUTH_MAX_CLIENTS);
    return -1;
  }
  if(strlen(token) < 8) {
    snprintf(err, errlen, "client %s: token shorter than 8 characters", c->name);
    return -1;
  }
  /* sync.<replica> is the stream of a replica's synchronous fetches: a
   * client of that name would read them, and they its results. */
  if(!strncmp(c->name, "sync.", 5)) {
    snprintf(err, errlen, "client name \"%.64s\": names starting with \"sync.\" are the "
             "gateway's own", c->name);
    return -1;
  }
  if(!state_client_ok(c->name)) {
    snprintf(err, errlen, "client name \"%.64s\": 1-%d of [A-Za-z0-9._-]", c->name,
             STATE_CLIENT_MAX);
    return -1;
  }
  /* Two keys of one name (a key being replaced) are one client: one
   * queue, one result stream, one set of pages. They must agree on what
   * that client may do and on whether its pages are its own. */
  const struct state_client *same = auth_find(a, c->name);
  if(same && (auth_role_of(a, same) != role || auth_private(a, same) != priv ||
              !auth_same_ident(auth_entry_of(a, same), id))) {
    snprintf(err, errlen, "client %s: its keys differ in role, private, user_agent or "
             "product_token", c->name);
    return -1;
  }
  struct auth_entry *e = &a->e[a->n++];
  e->c = *c;
  e->c.name = xstrdup(c->name);
  e->role = role;
  e->priv = priv;
  e->ua = id && id->ua ? xstrdup(id->ua) : NULL;
  e->ptok = id && id->ptok ? xstrdup(id->ptok) : NULL;
  a->npriv += priv;
  hash_sha256(token, strlen(token), e->token_sha);
  return 0;
}

/* A User-Agent is one header value: visible ASCII and spaces, no line
 * breaks, 1..AUTH_UA_MAX bytes. A product token is what RFC 9309 matches
 * ([A-Za-z_-]); without one, a key's is its User-Agent's first word. */
static int auth_ident_check(struct auth_ident *id, size_t i, char *err, size_t errlen)
{
  size_t n = id->ua ? strlen(id->ua) : 0;
  for(size_t k = 0; k < n; k++)
    if(id->ua[k] < 0x20 || id->ua[k] > 0x7e)
      n = 0;
  if(id->ua && (n == 0 || n > AUTH_UA_MAX || id->ua[0] == ' ' || id->ua[n - 1] == ' ')) {
    snprintf(err, errlen, "clients[%zu]: user_agent: 1-%d visible ASCII characters", i,
             AUTH_UA_MAX);
    return -1;
  }
  if(id->ptok && (!robots_agent_valid(id->ptok, strlen(id->ptok)) ||
                  strlen(id->ptok) > AUTH_PTOK_MAX)) {
    snprintf(err, errlen, "clients[%zu]: product_token: 1-%d of [A-Za-z_-]", i,
             AUTH_PTOK_MAX);
    return -1;
  }
  if(id->ua && !id->ptok && robots_agent_token(id->ua, strlen(id->ua)) == 0) {
    snprintf(err, errlen, "clients[%zu]: user_agent does not start with a product token "
             "([A-Za-z_-]): give product_token", i);
    return -1;
  }
  return 0;
}

static int auth_client(struct auth *a, json_t *o, size_t i, char *err, size_t errlen)
{
  struct state_client c = { .weight = 1 };
  const char *token = NULL;
  const char *role_s = NULL;
  struct auth_ident id = { NULL, NULL };
  json_int_t w = 1, burst = 0, maxq = 0, att = 0;
  double rate = 0;
  int priv = 0;
  enum auth_role role = AUTH_ROLE_OPERATOR;
  json_error_t je;
  if(json_unpack_ex(o, &je, JSON_STRICT, "{s:s, s:s, s?I, s?F, s?I, s?I, s?I, s?s, s?b, s?s, s?s}",
                    "name", &c.name, "token", &token, "weight", &w, "rate", &rate, "burst",
                    &burst, "max_queued", &maxq, "max_attempts", &att, "role", &role_s,
                    "private", &priv, "user_agent", &id.ua, "product_token", &id.ptok)) {
    snprintf(err, errlen, "clients[%zu]: %s", i, je.text);
    return -1;
  }
  if(role_s && auth_role_parse(role_s, &role)) {
    snprintf(err, errlen, "clients[%zu]: role \"%.32s\": operator, crawler or metrics", i,
             role_s);
    return -1;
  }
  if(w < 1 || w > 1000 || rate < 0 || burst < 0 || maxq < 0 || att < 0 ||
     att > QENC_ATTEMPTS_MAX + 1) {
    snprintf(err, errlen, "clients[%zu]: weight 1..1000, rate/burst/max_queued >= 0, "
             "max_attempts 1..%d", i, QENC_ATTEMPTS_MAX + 1);
    return -1;
  }
  if(auth_ident_check(&id, i, err, errlen))
    return -1;
  c.max_attempts = (unsigned)att;
  c.weight = (unsigned)w;
  c.rate = rate;
  c.burst = (unsigned)(burst ? burst : (rate > 0 ? (json_int_t)(rate * 10 + 1) : 0));
  c.max_queued = (unsigned)maxq;
  return auth_add(a, token, &c, role, priv, &id, err, errlen);
}

static int auth_file(struct auth *a, const char *file, char *err, size_t errlen)
{
  json_error_t je;
  json_t *j = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
  json_t *list = j ? json_object_get(j, "clients") : NULL;
  size_t i;
  json_t *o;
  int rc = 0;
  if(!j || !json_is_array(list)) {
    snprintf(err, errlen, "%s: %s", file, j ? "no \"clients\" array" : je.text);
    json_decref(j);
    return -1;
  }
  json_array_foreach(list, i, o) {
    if((rc = auth_client(a, o, i, err, errlen)) != 0)
      break;
  }
  json_decref(j);
  return rc;
}

struct auth *auth_load(const char *file, const char *dev_token, const struct state_client *dev,
                       char *err, size_t errlen)
{
  struct auth *a = xalloc(sizeof *a);
  if((file && *file && auth_file(a, file, err, errlen)) ||
     (dev_token && *dev_token &&
      auth_add(a, dev_token, dev, AUTH_ROLE_OPERATOR, false, NULL, err, errlen))) {
    auth_free(&a);
    return NULL;
  }
  return a;
}

const struct state_client *auth_check(const struct auth *a, const char *authorization)
{
  uint8_t sha[HASH_SHA256_LEN];
  const struct state_client *found = NULL;
  if(!authorization || strncasecmp(authorization, "Bearer ", 7))
    return NULL;
  const char *t = authorization + 7;
  while(*t == ' ')
    t++;
  hash_sha256(t, strlen(t), sha);
  for(size_t i = 0; i < a->n; i++)
    if(!CRYPTO_memcmp(sha, a->e[i].token_sha, sizeof sha))
      found = &a->e[i].c;
  return found;
}

static const struct auth_entry *auth_entry_of(const struct auth *a,
                                              const struct state_client *c)
{
  /* c is &e[i].c of this table (auth_check, auth_find): its entry */
  uintptr_t p = (uintptr_t)c - offsetof(struct auth_entry, c);
  uintptr_t lo = (uintptr_t)a->e, hi = (uintptr_t)(a->e + a->n);
  if(!c || p < lo || p >= hi || (p - lo) % sizeof a->e[0])
    return NULL;
  return (const struct auth_entry *)p;
}

enum auth_role auth_role_of(const struct auth *a, const struct state_client *c)
{
  const struct auth_entry *e = auth_entry_of(a, c);
  return e ? e->role : AUTH_ROLE_CRAWLER;  /* no key of ours: the least */
}

bool auth_private(const struct auth *a, const struct state_client *c)
{
  const struct auth_entry *e = auth_entry_of(a, c);
  return e && e->priv;
}

const struct state_client *auth_find(const struct auth *a, const char *name)
{
  for(size_t i = 0; name && i < a->n; i++)
    if(!strcmp(a->e[i].c.name, name))
      return &a->e[i].c;
  return NULL;
}

bool auth_any_private(const struct auth *a) { return a->npriv > 0; }

bool auth_identity(const struct auth *a, const struct state_client *c, const char **ua,
                   const char **ptok, size_t *ptok_len)
{
  const struct auth_entry *e = auth_entry_of(a, c);
  if(!e || (!e->ua && !e->ptok))
    return false;
  if(e->ua)
    *ua = e->ua;
  if(e->ptok) {
    *ptok = e->ptok;
    *ptok_len = strlen(e->ptok);
  } else {
    *ptok = e->ua;
    *ptok_len = robots_agent_token(e->ua, strlen(e->ua));
  }
  return true;
}

size_t auth_count(const struct auth *a) { return a->n; }

const struct state_client *auth_nth(const struct auth *a, size_t i)
{
  return i < a->n ? &a->e[i].c : NULL;
}

void auth_free(struct auth **ap)
{
  struct auth *a = *ap;
  if(!a)
    return;
  *ap = NULL;
  for(size_t i = 0; i < a->n; i++) {
    free((char *)a->e[i].c.name);
    free(a->e[i].ua);
    free(a->e[i].ptok);
  }
  free(a);
}
