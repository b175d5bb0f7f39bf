#ifndef WPFS_CLIENTS_FOCUS_TOPIC_PAGES_H
#define WPFS_CLIENTS_FOCUS_TOPIC_PAGES_H
/* --topic-pages FILE (topic_pages.c): example pages added to the topic. */
#include "clients/focus/focus.h"
#include "clients/gwclient/gwclient.h"

/* 0 when every page was read and added; -1 otherwise (said on stderr,
 * after prog's name). URLs are fetched through the gateway gw. */
int focus_topic_pages(struct focus *f, const char *path, const struct gwclient_opts *gw,
                      long max_age_s, const char *prog);

#endif
