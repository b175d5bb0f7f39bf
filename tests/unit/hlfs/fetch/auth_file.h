#ifndef WPFS_TESTS_UNIT_AUTH_FILE_H
#define WPFS_TESTS_UNIT_AUTH_FILE_H
/* A tokens file with json as its text, loaded (hlfs/fetch/auth.h) and
 * removed: for the unit tests of the tokens file's fields. Include after
 * cmocka.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlfs/fetch/auth.h"

static struct auth *load(const char *json, char *err, size_t errlen)
{
  char path[] = "/tmp/test_gw_tokens.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
  close(fd);
  struct auth *a = auth_load(path, NULL, NULL, err, errlen);
  unlink(path);
  return a;
}

#endif
