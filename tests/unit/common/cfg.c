/* common/cfg.h: flags as --help shows them. A boolean is "--opt <bool>":
 * --opt false, --opt true, --opt=false and a bare --opt (true) all work,
 * whatever follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.c"
#include "common/cfg.h"

struct opts {
  bool  on;     /* default true */
  bool  off;    /* default false */
  long  n;
  char *s;
};

#define OFF(f) offsetof(struct opts, f)
static const struct cfg_key keys[] = {
  { "n", CFG_INT, OFF(n), "1", 0, 100, NULL, "a number" },
  { "off", CFG_BOOL, OFF(off), "false", 1, 0, NULL, "false unless set" },
  { "on", CFG_BOOL, OFF(on), "true", 1, 0, NULL, "true unless set" },
  { "s", CFG_STR, OFF(s), NULL, 1, 0, NULL, "a string" },
};
static const struct cfg_prog prog = { "test_cfg", "flags", keys, 4, "WPFS_TESTCFG_" };

/* cfg_load on the words of line (at most 15), into o. */
static enum cfg_rc load(const char *line, struct opts *o)
{
  char buf[256], *argv[16] = { "test_cfg" };
  int argc = 1;
  snprintf(buf, sizeof buf, "%s", line);
  for(char *save, *w = strtok_r(buf, " ", &save); w && argc < 15;
      w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  memset(o, 0, sizeof *o);
  return cfg_load(&prog, o, argc, argv);
}

static void test_bool_separate_value(void **state)
{
  (void)state;
  struct opts o;
  assert_int_equal(load("--on false", &o), CFG_OK);
  assert_false(o.on);
  assert_int_equal(load("--off true", &o), CFG_OK);
  assert_true(o.off);
  assert_int_equal(load("--on false --off yes --n 7", &o), CFG_OK);
  assert_false(o.on);
  assert_true(o.off);
  assert_int_equal(o.n, 7);
  assert_int_equal(load("--on 0 --off 1", &o), CFG_OK);
  assert_false(o.on);
  assert_true(o.off);
  assert_int_equal(load("--on OFF --off On", &o), CFG_OK);
  assert_false(o.on);
  assert_true(o.off);
  cfg_free(&prog, &o);
}

static void test_bool_with_equals(void **state)
{
  (void)state;
  struct opts o;
  assert_int_equal(load("--on=false --off=true", &o), CFG_OK);
  assert_false(o.on);
  assert_true(o.off);
  assert_int_equal(load("--off=maybe", &o), CFG_ERROR);
}

static void test_bool_bare(void **state)
{
  (void)state;
  struct opts o;
  assert_int_equal(load("--off", &o), CFG_OK);  /* last */
  assert_true(o.off);
  assert_int_equal(load("--off --n 3", &o), CFG_OK);  /* before another flag */
  assert_true(o.off);
  assert_int_equal(o.n, 3);
  assert_true(o.on);  /* the default */
  /* A word that is not a boolean is not taken as the value: there are no
   * positional arguments, so it is refused. */
  assert_int_equal(load("--off maybe", &o), CFG_ERROR);
}

static void test_other_types_unchanged(void **state)
{
  (void)state;
  struct opts o;
  assert_int_equal(load("--s false --n=5", &o), CFG_OK);
  assert_string_equal(o.s, "false");
  assert_int_equal(o.n, 5);
  cfg_free(&prog, &o);
  assert_int_equal(load("--n", &o), CFG_ERROR);  /* a number needs its value */
  assert_int_equal(load("--n true", &o), CFG_ERROR);
}

static void test_env_then_flag(void **state)
{
  (void)state;
  struct opts o;
  setenv("WPFS_TESTCFG_ON", "false", 1);
  assert_int_equal(load("", &o), CFG_OK);
  assert_false(o.on);
  assert_int_equal(load("--on true", &o), CFG_OK);  /* the flag wins */
  assert_true(o.on);
  unsetenv("WPFS_TESTCFG_ON");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bool_separate_value),
    cmocka_unit_test(test_bool_with_equals),
    cmocka_unit_test(test_bool_bare),
    cmocka_unit_test(test_other_types_unchanged),
    cmocka_unit_test(test_env_then_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
