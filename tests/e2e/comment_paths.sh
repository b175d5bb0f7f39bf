#!/bin/bash
# timeout: 60
# Every repository path a comment names exists: a file moved leaves no
# comment pointing at its old place. Read: every line of the C and Lua
# sources (comments and strings alike), the "#" lines of scripts, the
# Makefile and YAML, and the `code` spans of Markdown. A path starts with
# a top folder of the tree; it may be a glob (hlfs/policy/robots*.c), a
# file without its extension (common/mem) or the start of names
# (tests/integ/itest_).
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no $WPFS_ROOT"
TOP='(common|api|llfs|hlfs|clients|tests|deploy|docs|mk)'

# tokens FILE...: "file:line:path" of each path-like word. A path names a
# file (has an extension), a glob, or has two slashes: "llfs/direct" in
# a sentence is a ratio; FOLDER/FILE a placeholder.
tokens() {
  local f
  for f in "$@"; do
    case $f in
      *.c | *.h | *.lua) grep -n '' "$f" ;;
      *.md) grep -no '`[^`]*`' "$f" ;;     # the code spans only
      *) grep -nE '^[[:space:]]*#' "$f" ;;  # the comment lines only
    esac | awk -v f="$f" -v re="(^|[][ \t(\"',;:=<\`])$TOP/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*]" '
      { ln = $0; sub(/:.*/, "", ln); t = substr($0, length(ln) + 2)
        while (match(t, re)) {
          p = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
          sub(/^[^a-z]/, "", p)
          if (p ~ /\/[A-Z_]*[A-Z][A-Z_]*(\/|\.|$)/) continue
          if (p ~ /^[^\/]*\/[^\/]*\./ || p ~ /[*]/ || p ~ /\/.*\//) print f ":" ln ":" p } }'
  done
}

# stale FILE...: those of the tokens that name nothing in the tree
stale() {
  local p
  tokens "$@" >"$T_DIR/tokens"
  cut -d: -f3- "$T_DIR/tokens" | sort -u | while read -r p; do
    compgen -G "$p" >/dev/null || compgen -G "$p.[chm]*" >/dev/null ||
      compgen -G "$p.sh" >/dev/null || compgen -G "$p*" >/dev/null || echo "$p"
  done >"$T_DIR/missing"
  awk -F: 'NR == FNR { m[$0] = 1; next } { p = substr($0, length($1) + length($2) + 3) }
           p in m { print $1 ":" $2 ": " p }' "$T_DIR/missing" "$T_DIR/tokens"
}

mapfile -t files < <(git ls-files '*.c' '*.h' '*.lua' '*.sh' '*.mk' Makefile '*.yaml' '*.yml' \
  '*Dockerfile*' '*.md')
[ "${#files[@]}" -gt 100 ] || bail "no files from git ls-files"
is "$(stale "${files[@]}")" "" "every repository path named in a comment exists"

# The check can fail: a comment naming a moved file, a glob of nothing,
# and a Markdown code span; a path that exists (or a stem of one) passes.
mkdir -p "$T_DIR/x"
printf '/* See hlfs/robots*.h and common/url.c, common/mem and tests/integ/itest_. */\n' >"$T_DIR/x/a.c"
printf '# built by clients/crawl/nothing.sh\necho clients/also_not_read\n' >"$T_DIR/x/b.sh"
printf 'The engine (`clients/crawl*.c`), `common/url.c`, and hlfs/none.\n' >"$T_DIR/x/c.md"
is "$(stale "$T_DIR/x/a.c" "$T_DIR/x/b.sh" "$T_DIR/x/c.md" | sed "s|$T_DIR/x/||" | tr '\n' ' ')" \
  "a.c:1: hlfs/robots*.h b.sh:1: clients/crawl/nothing.sh c.md:1: clients/crawl*.c " \
  "stale paths are found in C, script and Markdown comments"
done_testing
