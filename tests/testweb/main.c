/* testweb: the project's own Web on loopback. One process answers for many
 * sites (generated or described by a JSON file), each at its own 127.x.y.z
 * address and Host name, with behaviours tests ask for (docs/testweb.md),
 * and records what every site was asked, readable on a control endpoint. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/cfg.h"
#include "common/log.h"
#include "tests/testweb/tw_fill.h"
#include "tests/testweb/tw_load.h"
#include "tests/testweb/tw_srv.h"

#define OFF(f) offsetof(struct tw_opts, f)
/* Keep sorted by name. */
static const struct cfg_key tw_keys[] = {
  { "bind",              CFG_STR,  OFF(bind),              "0.0.0.0", 1, 0, "TESTWEB_BIND",
    "address of the sites' socket; 0.0.0.0 takes all of 127.0.0.0/8 (other local addresses are refused)" },
  { "bomb_size",         CFG_SIZE, OFF(bomb_size),         "1g", 1, 1e12, "TESTWEB_BOMB_SIZE",
    "default decoded size of the gzip/brotli bombs" },
  { "control_port",      CFG_INT,  OFF(control_port),      "0", 0, 65535, "TESTWEB_CONTROL_PORT",
    "control endpoint port on 127.0.0.1 (0: any free port)" },
  { "control_port_file", CFG_STR,  OFF(control_port_file), NULL, 1, 0, "TESTWEB_CONTROL_PORT_FILE",
    "write the control port here once listening" },
  { "generate",          CFG_STR,  OFF(generate),          NULL, 1, 0, "TESTWEB_GENERATE",
    "generated world, \"sites=1000,pages=50,...\" (default sites=10 without --sites)" },
  { "link_port",         CFG_INT,  OFF(link_port),         "0", 0, 65535, "TESTWEB_LINK_PORT",
    "port written in cross-site links and sitemaps (0: the sites' port)" },
  { "log_level",         CFG_STR,  OFF(log_level),         "info", 1, 0, "TESTWEB_LOG_LEVEL",
    "debug, info, warn, error or off" },
  { "max_header_bytes",  CFG_SIZE, OFF(max_header_bytes),  "16k", 512, 1 << 24, "TESTWEB_MAX_HEADER_BYTES",
    "largest request head accepted (431 beyond)" },
  { "port",              CFG_INT,  OFF(port),              "0", 0, 65535, "TESTWEB_PORT",
    "port of every site (0: any free port)" },
  { "port_file",         CFG_STR,  OFF(port_file),         NULL, 1, 0, "TESTWEB_PORT_FILE",
    "write the sites' port here once listening" },
  { "print_docs",        CFG_BOOL, OFF(print_docs),        "false", 1, 0, "TESTWEB_PRINT_DOCS",
    "print the reference tables of docs/testweb.md (Markdown) and exit" },
  { "print_zone",        CFG_BOOL, OFF(print_zone),        "false", 1, 0, "TESTWEB_PRINT_ZONE",
    "print \"name address\" for every site and exit" },
  { "record_max",        CFG_INT,  OFF(record_max),        "10000", 0, 1e8, "TESTWEB_RECORD_MAX",
    "requests kept per site (counters stay exact beyond)" },
  { "sites",             CFG_STR,  OFF(sites),             NULL, 1, 0, "TESTWEB_SITES",
    "JSON site file (format in docs/testweb.md)" },
  { "topics",            CFG_STR,  OFF(topics),            NULL, 1, 0, "TESTWEB_TOPICS",
    "the generated sites as a topical web, \"topics=12,share=0.04,...\" (docs/testweb.md)" },
};

static const struct cfg_prog tw_prog = {
  "testweb", "A web of many sites on loopback, with scripted behaviours and a record of every request.",
  tw_keys, sizeof tw_keys / sizeof tw_keys[0], "WPFS_TESTWEB_",
};

static int tw_build_world(struct tw_world *w, const struct tw_opts *o)
{
  char err[512] = "";
  json_t *root = NULL;
  tw_err e = TW_OK;
  if(o->sites && (e = tw_load_file(o->sites, &root, err, sizeof err)) == TW_OK)
    e = tw_load_gen(w, root, err, sizeof err);
  if(!e && !o->sites && !o->generate)
    w->gen.sites = 10;
  else if(!e && o->sites && !o->generate && !json_object_get(root, "generate"))
    w->gen.sites = 0;  /* a site file alone: only its sites */
  if(!e && o->generate)
    e = tw_gen_parse(&w->gen, o->generate, err, sizeof err);
  if(!e)
    e = tw_gen_world(w, err, sizeof err);
  if(!e && o->topics)
    e = tw_topic_build(w, o->topics, err, sizeof err);
  if(!e && root)
    e = tw_load_sites(w, root, err, sizeof err);
  json_decref(root);
  if(e)
    fprintf(stderr, "testweb: %s\n", err[0] ? err : tw_strerror(e));
  return e ? -1 : 0;
}

static int tw_print_zone(const struct tw_world *w)
{
  struct buf b;
  buf_init(&b, 64u << 20);
  tw_err e = tw_world_zone(w, &b);
  if(!e && b.len)
    fwrite(b.data, 1, b.len, stdout);
  buf_free(&b);
  return e ? 1 : 0;
}

/* The tables of docs/testweb.md come from the tables in the code. */
static int tw_print_docs(void)
{
  fputs("### Options\n\n", stdout);
  cfg_markdown(&tw_prog, stdout);
  fputs("\n### Generator options\n\n", stdout);
  tw_gen_markdown(stdout);
  fputs("\n### Behaviour parameters and kinds\n\n", stdout);
  tw_beh_markdown(stdout);
  fputs("\n### Topical web options\n\n", stdout);
  tw_topic_markdown(stdout);
  return 0;
}

static int tw_run(struct tw_srv *srv, const struct tw_opts *o)
{
  uv_loop_t *loop = uv_default_loop();
  signal(SIGPIPE, SIG_IGN);  /* a client that leaves is an EPIPE, not our death */
  tw_fill_init();
  if(tw_bomb_init(&srv->bombs, o->bomb_size)) {
    LOG(LOG_ERROR, "cannot build the compression bombs");
    return 1;
  }
  if(tw_srv_start(srv, loop, o))
    return 1;
  uv_run(loop, UV_RUN_DEFAULT);
  uv_loop_close(loop);
  tw_bomb_free(&srv->bombs);
  LOG(LOG_INFO, "stopped after %llu requests", (unsigned long long)srv->stats.requests);
  return 0;
}

int main(int argc, char **argv)
{
  static struct tw_srv srv;  /* large; lives as long as the process */
  struct tw_opts o;
  enum log_level lvl;
  memset(&o, 0, sizeof o);
  enum cfg_rc rc = cfg_load(&tw_prog, &o, argc, argv);
  if(rc == CFG_OK && log_level_parse(o.log_level, &lvl)) {
    fprintf(stderr, "testweb: bad log level \"%s\"\n", o.log_level);
    rc = CFG_ERROR;
  }
  if(rc != CFG_OK) {
    cfg_free(&tw_prog, &o);
    return rc == CFG_EXIT_OK ? 0 : 2;
  }
  log_init("testweb", lvl);
  tw_world_init(&srv.world, (size_t)o.record_max);
  srv.world.link_port = o.link_port;
  srv.world.bomb_size = o.bomb_size;
  int ret = o.print_docs                    ? tw_print_docs()
          : tw_build_world(&srv.world, &o) ? 2
          : o.print_zone                    ? tw_print_zone(&srv.world)
                                            : tw_run(&srv, &o);
  tw_world_free(&srv.world);
  cfg_free(&tw_prog, &o);
  return ret;
}
