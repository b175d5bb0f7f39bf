#include "clients/base/crawl_err.h"

static const char *const crawl_err_names[] = {
  "ok",
#define X(e, name, txt) #name,
  CRAWL_ERRORS(X)
#undef X
};

static const char *const crawl_err_texts[] = {
  "success",
#define X(e, name, txt) txt,
  CRAWL_ERRORS(X)
#undef X
};

const char *crawl_err_name(crawl_err e)
{
  return (unsigned)e < CRAWL_ERR__LAST ? crawl_err_names[e] : "unknown";
}

const char *crawl_err_text(crawl_err e)
{
  return (unsigned)e < CRAWL_ERR__LAST ? crawl_err_texts[e] : "unknown";
}
