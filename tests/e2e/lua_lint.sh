#!/bin/bash
# timeout: 60
# The gateway's Redis scripts (hlfs/state/lua/*.lua) are linted as Redis
# runs them — the library in front, on the first line — by luacheck (Lua
# 5.1, Redis's globals only): an undefined name, a global set by mistake or
# an unused local of a script fails here. The library's own functions may go
# unused by a given script. And a Redis error names the line of the .lua
# file, the library notwithstanding.
. "$WPFS_ROOT/tests/lib.sh"
command -v luacheck >/dev/null || bail "luacheck missing (Debian lua-check; make deps)"
D=$WPFS_ROOT/hlfs/state/lua
sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/lua.c" "$D" "$T_DIR/lint" || bail "mk/lua2c.sh failed"
# luacheck's patterns are Lua patterns (no alternation): one per name
mapfile -t libnames < <(sed -n 's/^local function \([A-Za-z_0-9]*\).*/211\/^\1$/p; s/^local \([A-Za-z_0-9]*\) *=.*/211\/^\1$/p' "$D/lib.lua")
lint() {  # FILE (first: the list options take every word after them)
  luacheck "$1" --std lua51 --no-max-line-length --formatter plain \
    --globals redis KEYS ARGV cjson --ignore "${libnames[@]}"
}
for f in "$T_DIR"/lint/*.lua; do
  out=$(lint "$f" 2>&1)
  is "$out" "" "luacheck: $(basename "$f") (library included)"
done
# The lint can fail: a misspelt name in a script.
sed 's/local n = redis.call/local n = redis_call/' "$T_DIR/lint/ack.lua" >"$T_DIR/bad.lua"
ok "luacheck catches an undefined name" test -n "$(lint "$T_DIR/bad.lua" 2>&1)"

# Line numbers: an error on line 9 of a script with the library is
# reported by Redis as line 9.
start_redis
mkdir -p "$T_DIR/lines"
cp "$D/lib.lua" "$T_DIR/lines/"
{ echo '-- wpfs: uses lib.lua'; for i in 2 3 4 5 6 7 8; do echo "redis.call('GET', 'x$i')"; done
  echo "error('on line nine')"; } >"$T_DIR/lines/t.lua"
sh "$WPFS_ROOT/mk/lua2c.sh" "$T_DIR/lines.c" "$T_DIR/lines" "$T_DIR/lines-out"
msg=$(redis-cli -p "$REDIS_PORT" eval "$(cat "$T_DIR/lines-out/t.lua")" 1 'h:{0}' '{0}' 2>&1)
echo "# redis: $msg"
ok "Redis names line 9" grep -q ':9: on line nine' <<<"$msg"
done_testing
