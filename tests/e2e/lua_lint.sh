#!/bin/bash
# timeout: 60
# The gateway's Redis functions (hlfs/state/lua/*.lua, one library made by
# mk/lua2c.sh) are linted as Redis loads them by luacheck (Lua 5.1, Redis's
# globals only): an undefined name, a global set by mistake or an unused
# local of a function fails here. The library loads in Redis, each function
# with its flags; and a Redis error's line maps back to the .lua file.
. "$WPFS_ROOT/tests/lib.sh"
command -v luacheck >/dev/null || bail "luacheck missing (Debian lua-check; make deps)"
D=$WPFS_ROOT/hlfs/state/lua
sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/lua.c" "$D" "$T_DIR/lint" || bail "mk/lua2c.sh failed"
LIB=$T_DIR/lint/library.lua
lint() { luacheck "$1" --std lua51 --no-max-line-length --formatter plain --globals redis cjson; }
is "$(lint "$LIB" 2>&1)" "" "luacheck: the library"
# The lint can fail: a misspelt name in a function.
sed 's/local n = redis.call/local n = redis_call/' "$LIB" >"$T_DIR/bad.lua"
ok "luacheck catches an undefined name" test -n "$(lint "$T_DIR/bad.lua" 2>&1)"

start_redis
rc() { redis-cli -p "$REDIS_PORT" "$@" 2>&1; }
name=$(sed -n 's/^const char lua_library_name\[\] = "\(.*\)";/\1/p' "$T_DIR/lua.c")
fn() { sed -n "s/^const char lua_$1\\[\\] = \"\\(.*\\)\";/\\1/p" "$T_DIR/lua.c"; }
is "$(rc -x FUNCTION LOAD <"$LIB")" "$name" "the library loads as $name"
# The name is a digest of the text: any change to a file gives a new one.
mkdir -p "$T_DIR/changed"
cp "$D"/*.lua "$T_DIR/changed/"
echo '-- a comment' >>"$T_DIR/changed/ack.lua"
sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/changed.c" "$T_DIR/changed"
ok "a changed file renames the library" test "$(grep -c "$name" "$T_DIR/changed.c")" -eq 0

# Flags: what adds work (submit) is refused past maxmemory; what finishes
# or hands out accepted work runs (docs/hlfs-state.md).
flags=$(rc --json FUNCTION LIST LIBRARYNAME "$name" |
  jq -r '.[0].functions[] | "\(.name | sub("_[0-9a-f]{12}$"; "")) \(.flags | join(","))"' | sort | tr '\n' ';')
is "$flags" "abort allow-oom;ack allow-oom;addr allow-oom;claim allow-oom;complete allow-oom;fence allow-oom;fleet allow-oom;hop_free allow-oom;hop_take allow-oom;reapply allow-oom;renew allow-oom;robots_done allow-oom;site no-writes;submit ;" "each function's flags"
rc CONFIG SET maxmemory 1 >/dev/null
ok "past maxmemory, a submission is refused" \
  grep -q "^OOM" <<<"$(rc FCALL "$(fn submit)" 1 'h:{0}' '{0}' c 1 0 0 0 0 '' a.test h/ 0 '' '')"
ok "past maxmemory, a fence is set" \
  grep -qE "^[0-9]+$" <<<"$(rc FCALL "$(fn fence)" 1 'h:{0}' '{0}' 10)"
ok "past maxmemory, a site is read" grep -q "^queued" <<<"$(rc FCALL "$(fn site)" 1 'h:{0}' '{0}' a.test)"
rc CONFIG SET maxmemory 0 >/dev/null

# Line numbers: an error on line 9 of a file is reported at the library's
# line S + 8, S the line where that file's function starts.
mkdir -p "$T_DIR/lines"
cp "$D/lib.lua" "$T_DIR/lines/"
{ echo '-- wpfs: uses lib.lua'; for i in 2 3 4 5 6 7 8; do echo "redis.call('GET', 'x$i')"; done
  echo "error('on line nine')"; } >"$T_DIR/lines/t.lua"
sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/lines.c" "$T_DIR/lines" "$T_DIR/lines-out"
S=$(grep -n "register_function{function_name = 't_" "$T_DIR/lines-out/library.lua" | cut -d: -f1)
rc -x FUNCTION LOAD REPLACE <"$T_DIR/lines-out/library.lua" >/dev/null
msg=$(rc FCALL "$(sed -n 's/^const char lua_t\[\] = "\(.*\)";/\1/p' "$T_DIR/lines.c")" 1 'h:{0}' '{0}')
echo "# redis: $msg (the function starts at line $S)"
ok "Redis names line S + 8" grep -q ":$((S + 8)): on line nine" <<<"$msg"

# The crawlers' coordination functions (clients/part/lua/, a library of
# their own names, wpfs-discover --crawl): linted the same way, and loaded
# beside the gateway's in one Redis.
LUA2C_NAME=part_lua LUA2C_HEADER=clients/part/part_lua.h \
  sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/part.c" "$WPFS_ROOT/clients/part/lua" "$T_DIR/part-lint" ||
  bail "mk/lua2c.sh failed on clients/part/lua"
is "$(lint "$T_DIR/part-lint/library.lua" 2>&1)" "" "luacheck: the crawlers' coordination library"
pname=$(sed -n 's/^const char part_lua_library_name\[\] = "\(.*\)";/\1/p' "$T_DIR/part.c")
is "$(rc -x FUNCTION LOAD <"$T_DIR/part-lint/library.lua")" "$pname" \
  "it loads as $pname, beside the gateway's library"
done_testing
