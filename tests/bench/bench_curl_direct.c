/* bench_curl_direct: the baseline of the LLFS benchmark. A plain libcurl
 * multi program, no service in between: fetch a list of URLs with K
 * transfers in parallel over kept-alive connections, then print one JSON
 * line with pages/s.
 *
 *   bench_curl_direct --sites N --pages M --port P [--requests R]
 *                     [--parallel K] [--identity] [--seconds S]
 *                     [--max-connections C]   (kept-alive connections, 1024)
 *   bench_curl_direct --file URLS [--requests R] [--parallel K] ...
 *
 * Generated URLs follow testweb's site mapping: site i answers on
 * 127.10.<i/250>.<i%250+1>:P, with pages "/" and "/p/<j>.html" (j < M);
 * they are visited round-robin over the sites, so parallel transfers go to
 * different sites. R defaults to one pass over the list; the list repeats
 * when R is larger. Responses are asked gzip/br/zstd-encoded like the
 * fetch engine does, unless --identity. */
#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tests/bench/args.h"

#define MAX_PARALLEL 4096
#define MAX_URLS     (1u << 22)
#define URL_LEN      2048

struct opts {
  long  sites, pages, port, requests, parallel, maxconn;
  double seconds;
  bool  identity;
  const char *file;
};

struct list {
  char  **v;
  size_t  n;
};

struct tally {
  uint64_t ok, non2xx, errors, bytes;
};

static int usage(void)
{
  fputs("usage: bench_curl_direct (--sites N --pages M --port P | --file URLS)\n"
        "         [--requests R] [--parallel K] [--seconds S] [--identity]\n"
        "         [--max-connections C]\n", stderr);
  return 2;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
  *o = (struct opts){ .sites = 0, .pages = 10, .port = 0, .requests = 0, .parallel = 64,
                       .maxconn = 1024 };
  for(int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x = 0;
    int rc = 0;
    if(!strcmp(a, "--identity")) {
      o->identity = true;
      continue;
    }
    if(!v)
      return -1;
    i++;
    if(!strcmp(a, "--sites")) rc = num_arg(v, 1, 1000000, &o->sites);
    else if(!strcmp(a, "--pages")) rc = num_arg(v, 0, 1000000, &o->pages);
    else if(!strcmp(a, "--port")) rc = num_arg(v, 1, 65535, &o->port);
    else if(!strcmp(a, "--requests")) rc = num_arg(v, 1, 1000000000, &o->requests);
    else if(!strcmp(a, "--parallel")) rc = num_arg(v, 1, MAX_PARALLEL, &o->parallel);
    else if(!strcmp(a, "--max-connections")) rc = num_arg(v, 1, 1000000, &o->maxconn);
    else if(!strcmp(a, "--seconds")) { rc = num_arg(v, 1, 86400, &x); o->seconds = (double)x; }
    else if(!strcmp(a, "--file")) o->file = v;
    else rc = -1;
    if(rc)
      return -1;
  }
  return (o->file || (o->sites && o->port)) ? 0 : -1;
}

static int list_add(struct list *l, const char *u)
{
  if(l->n >= MAX_URLS)
    return -1;
  if((l->n & (l->n - 1)) == 0) {   /* grow at powers of two */
    char **v = realloc(l->v, (l->n ? 2 * l->n : 1) * sizeof *v);
    if(!v)
      return -1;
    l->v = v;
  }
  l->v[l->n] = strdup(u);
  return l->v[l->n++] ? 0 : -1;
}

static int list_generate(const struct opts *o, struct list *l)
{
  char u[URL_LEN];
  for(long j = -1; j < o->pages; j++)
    for(long i = 0; i < o->sites; i++) {
      int n = snprintf(u, sizeof u, "http://127.10.%ld.%ld:%ld/", i / 250, i % 250 + 1, o->port);
      if(j >= 0)
        snprintf(u + n - 1, sizeof u - (size_t)n + 1, "/p/%ld.html", j);
      if(list_add(l, u))
        return -1;
    }
  return 0;
}

static int list_read(const char *path, struct list *l)
{
  char line[URL_LEN];
  FILE *fp = fopen(path, "r");
  if(!fp)
    return -1;
  while(fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    if(line[0] && line[0] != '#' && list_add(l, line)) {
      fclose(fp);
      return -1;
    }
  }
  fclose(fp);
  return l->n ? 0 : -1;
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
  (void)p;
  *(uint64_t *)ud += sz * n;
  return sz * n;
}

static CURL *easy_for(const struct opts *o, const char *u, uint64_t *bytes)
{
  CURL *e = curl_easy_init();
  if(!e)
    return NULL;
  curl_easy_setopt(e, CURLOPT_URL, u);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, bytes);
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
  if(!o->identity)
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  return e;
}

static void count_done(CURLMsg *m, struct tally *t)
{
  long code = 0;
  curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &code);
  if(m->data.result != CURLE_OK)
    t->errors++;
  else if(code / 100 == 2)
    t->ok++;
  else
    t->non2xx++;
}

/* Keep `parallel` transfers going until `total` have been started and
 * all have finished (or the time is up). */
static int run(const struct opts *o, const struct list *l, long total, struct tally *t,
               double *secs)
{
  CURLM *m = curl_multi_init();
  long started = 0, running_n = 0;
  uint64_t t0 = clock_mono_us(), stop = o->seconds > 0 ? t0 + (uint64_t)(o->seconds * 1e6) : 0;
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, o->maxconn);   /* as the engine's default */
  while(started < total || running_n > 0) {
    bool late = stop && clock_mono_us() >= stop;
    while(!late && started < total && running_n < o->parallel) {
      CURL *e = easy_for(o, l->v[(size_t)started % l->n], &t->bytes);
      if(!e || curl_multi_add_handle(m, e) != CURLM_OK)
        return -1;
      started++;
      running_n++;
    }
    int still;
    curl_multi_perform(m, &still);
    CURLMsg *msg;
    int left;
    while((msg = curl_multi_info_read(m, &left))) {
      if(msg->msg != CURLMSG_DONE)
        continue;
      count_done(msg, t);
      CURL *e = msg->easy_handle;
      curl_multi_remove_handle(m, e);
      curl_easy_cleanup(e);
      running_n--;
    }
    if(late && running_n == 0)
      break;
    if(running_n > 0)
      curl_multi_poll(m, NULL, 0, 100, NULL);
  }
  *secs = (double)(clock_mono_us() - t0) / 1e6;
  curl_multi_cleanup(m);
  return 0;
}

int main(int argc, char **argv)
{
  struct opts o;
  struct list l = { 0 };
  struct tally t = { 0 };
  double secs = 0;
  if(parse_opts(argc, argv, &o))
    return usage();
  if(o.file ? list_read(o.file, &l) : list_generate(&o, &l)) {
    fprintf(stderr, "bench_curl_direct: no URLs (%s)\n", o.file ? o.file : "generator");
    return 1;
  }
  long total = o.requests ? o.requests : (long)l.n;
  if(o.seconds > 0 && !o.requests)
    total = 1000000000;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  if(run(&o, &l, total, &t, &secs)) {
    fprintf(stderr, "bench_curl_direct: libcurl set-up failed\n");
    return 1;
  }
  uint64_t done = t.ok + t.non2xx + t.errors;
  printf("{\"bench\":\"curl_direct\",\"urls\":%zu,\"parallel\":%ld,\"fetched\":%llu,"
         "\"ok\":%llu,\"non_2xx\":%llu,\"errors\":%llu,\"bytes\":%llu,\"seconds\":%.3f,"
         "\"pages_per_s\":%.1f}\n",
         l.n, o.parallel, (unsigned long long)done, (unsigned long long)t.ok,
         (unsigned long long)t.non2xx, (unsigned long long)t.errors,
         (unsigned long long)t.bytes, secs, secs > 0 ? (double)done / secs : 0.0);
  for(size_t i = 0; i < l.n; i++)
    free(l.v[i]);
  free(l.v);
  curl_global_cleanup();
  return t.errors ? 3 : 0;
}
