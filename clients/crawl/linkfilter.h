#ifndef WPFS_CLIENTS_LINKFILTER_H
#define WPFS_CLIENTS_LINKFILTER_H
/* Which discovered URLs are worth a fetch, from the URL alone: the file
 * type (a denylist of extensions of things that are not HTML pages) and
 * the scope (the seeds' hosts, their registrable domains, or anything).
 * Schemes and length were checked when the link was canonicalized
 * (html_links: http and https only, url_opts.max_len). */
#include <stdbool.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "clients/base/scope.h"
#include "clients/crawl/drop.h"
#include "common/url.h"

enum linkfilter_scope { LINKFILTER_HOST, LINKFILTER_DOMAIN, LINKFILTER_ANY };

/* Images, audio and video, archives and packages, binaries, office
 * documents and PDF, fonts, style sheets and scripts: none holds HTML
 * links worth following, and each can be large. PDF is on the list because
 * this crawler follows the HTML link graph; a crawler that indexes
 * documents would take it off (--deny-ext). */
#define LINKFILTER_DENY_EXT_DEFAULT                                            \
  "7z,aac,ai,apk,avi,avif,bin,bmp,bz2,class,css,deb,dll,dmg,doc,docx,eot,"     \
  "eps,exe,flac,flv,gif,gz,heic,ico,img,iso,jar,jpeg,jpg,js,m4a,m4v,mkv,mov,"  \
  "mp3,mp4,mpeg,mpg,msi,odp,ods,odt,ogg,ogv,otf,pdf,png,ppt,pptx,ps,psd,rar,"  \
  "rpm,rtf,svg,swf,tar,tgz,tif,tiff,ttf,wav,webm,webp,wma,wmv,woff,woff2,xls," \
  "xlsx,xz,zip,zst"

struct linkfilter_opts {
  enum linkfilter_scope scope;
  const char           *deny_ext;  /* comma-separated; NULL = the default */
  struct scope         *rules;     /* --scope-rules, the caller's; NULL: none */
};

struct linkfilter;

crawl_err linkfilter_open(const struct linkfilter_opts *o, struct linkfilter **out);
void      linkfilter_close(struct linkfilter **lfp);
/* A seed widens the scope to its host (or its registrable domain). */
crawl_err linkfilter_add_seed(struct linkfilter *lf, const char *canon_url);
/* DROP_NONE, DROP_EXTENSION, DROP_SCOPE or DROP_RULE for a URL split by
 * url_split. The scope and the rules are one decision (scope.h): the
 * scope's answer is where the rules start, and the last rule that matches
 * decides; a URL the scope left out and no rule took back is DROP_SCOPE,
 * one a rule rejected DROP_RULE (counted on that rule). */
enum drop_reason linkfilter_check(struct linkfilter *lf, const struct url_parts *p);
/* The scope alone: for a sitemap, whose name (sitemap.xml.gz) is not a
 * page's. */
enum drop_reason linkfilter_check_scope(struct linkfilter *lf, const struct url_parts *p);
/* The rule that rejected the last URL dropped DROP_RULE ("line 3: reject
 * regex ..."), for the log. */
const char *linkfilter_rule(const struct linkfilter *lf);
/* "host", "domain", "any". */
bool      linkfilter_scope_parse(const char *s, enum linkfilter_scope *out);
/* The scope (the seeds' hosts and domains) and the rules' counters, for
 * checkpoints. */
void      linkfilter_save(const struct linkfilter *lf, struct ckfile *c);
void      linkfilter_load(struct linkfilter *lf, struct ckfile *c);

#endif
