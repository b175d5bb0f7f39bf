/* bench_gateway_llfs: the baseline of the gateway benchmark. Drives the
 * fetcher service directly (POST /internal/v1/fetch, framed answers, as the
 * gateway asks), K requests in flight, over the same URLs the gateway run
 * fetches, and prints one JSON line with fetches/s. Whatever the gateway
 * costs on top of the fetcher (Redis scripts, robots, results) is the
 * difference between the two figures.
 *
 *   bench_gateway_llfs --llfs URL --sites N --pages M --port P
 *                      [--parallel K] [--seconds S]
 *
 * URLs: /p/<j>.html for 1 <= j <= M of site i = 127.10.<i/250>.<i%250+1>:P
 * (testweb's generated world), sites in turn so parallel fetches go to
 * different sites, as the gateway's one-fetch-per-site rule makes them. */
#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tests/bench/args.h"

#define MAX_PARALLEL 4096
#define HEAD_MAX     512   /* bytes of an answer kept: its JSON line starts it */

struct opts {
  const char *llfs;
  long sites, pages, port, parallel, seconds;
};

struct xfer {
  char   head[HEAD_MAX + 1];
  size_t n;
};

struct tally {
  uint64_t ok, not_ok, errors;
};

static int usage(void)
{
  fputs("usage: bench_gateway_llfs --llfs URL --sites N --pages M --port P\n"
        "         [--parallel K] [--seconds S]\n", stderr);
  return 2;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
  *o = (struct opts){ .parallel = 256, .seconds = 120 };
  for(int i = 1; i + 1 < argc; i += 2) {
    const char *a = argv[i], *v = argv[i + 1];
    int rc = 0;
    if(!strcmp(a, "--llfs")) o->llfs = v;
    else if(!strcmp(a, "--sites")) rc = num_arg(v, 1, 64000, &o->sites);
    else if(!strcmp(a, "--pages")) rc = num_arg(v, 1, 1000000, &o->pages);
    else if(!strcmp(a, "--port")) rc = num_arg(v, 1, 65535, &o->port);
    else if(!strcmp(a, "--parallel")) rc = num_arg(v, 1, MAX_PARALLEL, &o->parallel);
    else if(!strcmp(a, "--seconds")) rc = num_arg(v, 1, 86400, &o->seconds);
    else rc = -1;
    if(rc)
      return -1;
  }
  return argc % 2 == 1 && o->llfs && o->sites && o->pages && o->port ? 0 : -1;
}

/* Keep the head of the answer (its JSON line); count the rest. */
static size_t on_answer(char *p, size_t sz, size_t n, void *ud)
{
  struct xfer *x = ud;
  size_t len = sz * n, room = HEAD_MAX - x->n;
  size_t take = len < room ? len : room;
  memcpy(x->head + x->n, p, take);
  x->n += take;
  x->head[x->n] = '\0';
  return len;
}

static CURL *easy_for(const struct opts *o, const char *endpoint, struct curl_slist *hdrs,
                      long k, struct xfer *x)
{
  char body[256];
  CURL *e = curl_easy_init();
  if(!e)
    return NULL;
  long site = k % o->sites, page = k / o->sites + 1;
  snprintf(body, sizeof body, "{\"url\":\"http://127.10.%ld.%ld:%ld/p/%ld.html\"}", site / 250,
           site % 250 + 1, o->port, page);
  x->n = 0;
  curl_easy_setopt(e, CURLOPT_URL, endpoint);
  curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_answer);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(e, CURLOPT_PRIVATE, x);
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 60000L);
  return e;
}

static void count_done(CURLMsg *m, struct tally *t)
{
  long code = 0;
  struct xfer *x = NULL;
  curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
  if(m->data.result != CURLE_OK || code != 200)
    t->errors++;
  else if(strstr(x->head, "\"outcome\":\"ok\""))
    t->ok++;
  else
    t->not_ok++;
}

/* Slots hold the transfers; a finished slot is refilled at once. */
static int run(const struct opts *o, struct tally *t, double *secs)
{
  char endpoint[512];
  long total = o->sites * o->pages, started = 0, running_n = 0;
  struct xfer *slots = calloc((size_t)o->parallel, sizeof *slots);
  long *free_slots = calloc((size_t)o->parallel, sizeof *free_slots);
  struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
  hdrs = curl_slist_append(hdrs, "Accept: application/x-wpfs-fetch");
  /* the fetcher's shared secret, as the gateway sends it */
  const char *secret = getenv("WPFS_FETCHER_SECRET");
  char auth[600];
  if(secret && *secret && snprintf(auth, sizeof auth, "Authorization: Bearer %s", secret) <
                            (int)sizeof auth)
    hdrs = curl_slist_append(hdrs, auth);
  CURLM *m = curl_multi_init();
  if(!slots || !free_slots || !hdrs || !m)
    return -1;
  snprintf(endpoint, sizeof endpoint, "%s/internal/v1/fetch", o->llfs);
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, o->parallel);
  for(long i = 0; i < o->parallel; i++)
    free_slots[i] = i;
  long nfree = o->parallel;
  uint64_t t0 = clock_mono_us(), stop = t0 + (uint64_t)o->seconds * 1000000u;
  while(started < total || running_n > 0) {
    bool late = clock_mono_us() >= stop;
    while(!late && started < total && nfree > 0) {
      CURL *e = easy_for(o, endpoint, hdrs, started, &slots[free_slots[--nfree]]);
      if(!e || curl_multi_add_handle(m, e) != CURLM_OK)
        return -1;
      started++;
      running_n++;
    }
    int still, left;
    curl_multi_perform(m, &still);
    CURLMsg *msg;
    while((msg = curl_multi_info_read(m, &left))) {
      if(msg->msg != CURLMSG_DONE)
        continue;
      count_done(msg, t);
      struct xfer *x = NULL;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
      free_slots[nfree++] = x - slots;
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
  curl_slist_free_all(hdrs);
  free(slots);
  free(free_slots);
  return 0;
}

int main(int argc, char **argv)
{
  struct opts o;
  struct tally t = { 0 };
  double secs = 0;
  if(parse_opts(argc, argv, &o))
    return usage();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  if(run(&o, &t, &secs)) {
    fprintf(stderr, "bench_gateway_llfs: set-up failed\n");
    return 1;
  }
  uint64_t done = t.ok + t.not_ok + t.errors;
  printf("{\"bench\":\"llfs_direct\",\"parallel\":%ld,\"fetched\":%llu,\"ok\":%llu,"
         "\"not_ok\":%llu,\"errors\":%llu,\"seconds\":%.3f,\"fetches_per_s\":%.1f}\n",
         o.parallel, (unsigned long long)done, (unsigned long long)t.ok,
         (unsigned long long)t.not_ok, (unsigned long long)t.errors, secs,
         secs > 0 ? (double)done / secs : 0.0);
  curl_global_cleanup();
  return t.errors ? 3 : 0;
}
