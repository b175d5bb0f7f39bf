#include "clients/base/crawl_err.h"

/* CRAWL_OK is outside the table: its row goes first. */
#define CRAWL_ERR_ROWS(X) X(OK, ok, "success") CRAWL_ERRORS(X)
ERR_DEFINE_NAME(crawl_err_name, crawl_err, CRAWL_ERR_ROWS)
ERR_DEFINE_TEXT(crawl_err_text, crawl_err, CRAWL_ERR_ROWS, ERR_TEXT_OF)

crawl_err crawl_from_cm(cm_err e)
{
  return e == CM_NOMEM ? CRAWL_ERR_NOMEM : e ? CRAWL_ERR_TOO_LARGE : CRAWL_OK;
}
