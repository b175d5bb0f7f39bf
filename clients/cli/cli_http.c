/* bin/wpfs: requests to the gateway and what to say when one fails. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clients/cli/cli.h"
#include "common/mem.h"

#define JSON_WHY_MAX 200  /* jansson's error text is at most 160 bytes */

volatile sig_atomic_t cli_stopped;

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
  (void)arg, (void)dt, (void)dn, (void)ut, (void)un;
  return cli_stopped != 0;  /* non-zero ends the transfer */
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
  struct cli_resp *r = arg;
  return buf_add(&r->body, p, size * n) ? 0 : size * n;  /* 0: over the cap, curl stops */
}

static void head_value(const char *p, size_t n, char *out, size_t cap)
{
  while(n && (*p == ' ' || *p == '\t'))
    p++, n--;
  while(n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
    n--;
  snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

static size_t on_head(char *p, size_t size, size_t n, void *arg)
{
  struct cli_resp *r = arg;
  size_t len = size * n;
  if(len > 5 && !strncmp(p, "HTTP/", 5))
    buf_reset(&r->head);  /* a 100 Continue's block, then the answer's */
  if(buf_add(&r->head, p, len))
    return 0;
  char v[64];
  if(len > 13 && !strncasecmp(p, "Content-Type:", 13))
    head_value(p + 13, len - 13, r->ctype, sizeof r->ctype);
  else if(len > 12 && !strncasecmp(p, "Retry-After:", 12)) {
    head_value(p + 12, len - 12, v, sizeof v);
    char *end;
    long s = strtol(v, &end, 10);
    r->retry_after_ms = end != v && s >= 0 && s < 86400 ? s * 1000 : -1;
  }
  return len;
}

int cli_call(struct cli *c, const char *method, const char *path, const char *body,
             const char *accept, long wait_ms, struct cli_resp *r)
{
  memset(r, 0, sizeof *r);
  buf_init(&r->body, CLI_MAX_ANSWER);
  buf_init(&r->head, CLI_MAX_HEAD);
  r->retry_after_ms = -1;
  struct buf url, auth, acc;
  buf_init(&url, 16384);
  buf_init(&auth, 4096);
  buf_init(&acc, 1024);
  size_t gl = strlen(c->gateway);
  while(gl && c->gateway[gl - 1] == '/')
    gl--;
  buf_add(&url, c->gateway, gl);
  buf_adds(&url, path);
  struct curl_slist *h = NULL;
  if(c->token && *c->token && !buf_addf(&auth, "Authorization: Bearer %s", c->token))
    h = curl_slist_append(h, auth.data);
  buf_addf(&acc, "Accept: %s", accept ? accept : "application/json");
  h = curl_slist_append(h, acc.data);
  if(body)
    h = curl_slist_append(h, "Content-Type: application/json");
  CURL *e = c->curl;
  curl_easy_reset(e);
  curl_easy_setopt(e, CURLOPT_URL, url.data);
  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
  if(body)
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "wpfs-cli/1");
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, c->timeout_ms + wait_ms);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms);
  const char *ca = getenv("WPFS_CA_FILE");  /* a gateway behind a private CA */
  if(ca && *ca)
    curl_easy_setopt(e, CURLOPT_CAINFO, ca);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_head);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  char ebuf[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ebuf);
  CURLcode rc = curl_easy_perform(e);
  curl_slist_free_all(h);
  int out = CLI_OK;
  if(rc == CURLE_WRITE_ERROR && r->body.len + CURL_MAX_WRITE_SIZE > r->body.max) {
    cli_err(c, "the answer of %s is larger than %u MiB", url.data, CLI_MAX_ANSWER >> 20);
    out = CLI_GATEWAY;
  } else if(rc == CURLE_ABORTED_BY_CALLBACK) {
    out = CLI_UNREACHABLE;  /* stopped by a signal: nothing to say */
  } else if(rc != CURLE_OK) {
    cli_err(c, "no answer from the gateway at %.*s: %s", (int)gl, c->gateway,
            *ebuf ? ebuf : curl_easy_strerror(rc));
    out = CLI_UNREACHABLE;
  } else {
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
  }
  buf_free(&url);
  buf_free(&auth);
  buf_free(&acc);
  return out;
}

void cli_resp_free(struct cli_resp *r)
{
  buf_free(&r->body);
  buf_free(&r->head);
}

char *cli_escape(struct cli *c, const char *s)
{
  char *e = curl_easy_escape(c->curl, s, 0);
  if(!e)
    return NULL;
  char *out = xstrdup(e);
  curl_free(e);
  return out;
}

void cli_err(const struct cli *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "wpfs %s: ", c->verb ? c->verb : "");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int cli_body(const struct cli *c, crawl_err e)
{
  if(!e)
    return CLI_OK;
  cli_err(c, e == CRAWL_ERR_NOMEM ? "out of memory" : "the request is over %u bytes",
          CLI_MAX_BODY);
  return CLI_LOCAL;
}

int cli_unread(const struct cli *c, const struct cli_resp *r, crawl_err e, const char *what)
{
  char why[JSON_WHY_MAX];
  if(e == CRAWL_ERR_NOMEM) {
    cli_err(c, "out of memory");
    return CLI_LOCAL;
  }
  if(!gwproto_is_object(r->body.data, r->body.len, why, sizeof why))
    cli_err(c, "the gateway's answer (HTTP %ld) is not a JSON object: %s", r->status, why);
  else
    cli_err(c, "%s", what);
  return CLI_GATEWAY;
}

/* "urn:wpfs:problem:over-quota" -> "over-quota" */
static const char *problem_name(const char *type)
{
  const char *p = type ? strrchr(type, ':') : NULL;
  return p ? p + 1 : type ? type : "";
}

int cli_fail(const struct cli *c, const struct cli_resp *r)
{
  struct gw_problem p = { 0 };
  if(strstr(r->ctype, "json"))
    gwproto_problem(r->body.data, r->body.len, &p);
  if(p.type || p.title)
    cli_err(c, "HTTP %ld %s: %s", r->status, problem_name(p.type),
            p.detail ? p.detail : p.title ? p.title : "");
  else
    cli_err(c, "HTTP %ld from the gateway%s", r->status,
            r->status == 404 ? " (is this a wpfs gateway?)" : "");
  gwproto_problem_free(&p);
  if(r->status >= 400 && r->status < 500)
    return CLI_REFUSED;
  return CLI_GATEWAY;
}

int cli_put_line(const struct cli *c, FILE *f, const char *s)
{
  if(fputs(s, f) == EOF || fputc('\n', f) == EOF || fflush(f)) {
    cli_err(c, "cannot write the output");
    return CLI_LOCAL;
  }
  return CLI_OK;
}

bool cli_num(const struct cli *c, const char *opt, const char *s, long max, long *out)
{
  char *end;
  long v = strtol(s, &end, 10);
  if(!*s || *end || v < 0 || v > max) {
    cli_err(c, "%s wants a whole number from 0 to %ld, not '%s'", opt, max, s);
    return false;
  }
  *out = v;
  return true;
}
