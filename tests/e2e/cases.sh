#!/bin/bash
# Declarative cases: every tests/cases/*/*.case file is one case, run
# against one stack (dnsmasq, testweb, redis, llfs, hlfs) started here.
# A case is "key: value" lines; the first comment line names it:
#
#   # urls must be an array
#   service: hlfs                  hlfs or llfs (the API answering)
#   request: POST /v1/batches      method and path (path may hold $SITE)
#   body: {"urls": 5}              optional; $SITE is replaced
#   status: 422                    expected HTTP status
#   type: invalid-request          expected problem type (urn:wpfs:problem:...)
#   field: urls                    expected .field of the problem
#   json: .items[0].status = "rejected"   a jq expression and the value it gives
#
#   # a gzip bomb is cut at the decoded limit
#   fetch: /_b/bomb/gzip?size=100m  a path on testweb, fetched through
#                                   llfs's POST /internal/v1/fetch
#   options: {"max_decoded_bytes": 1048576}   more members of the request
#   outcome: too_large
#   truncated: true
#   seconds: 5                     at most this long (wall clock)
#
# $SITE is http://site1.test:<testweb port>. Every key but the comment is
# checked when present; an unknown key fails the case, so a typo cannot
# pass unnoticed. CASES=dir/name runs one.
# timeout: 180
. "$WPFS_ROOT/tests/lib.sh"
start_dnsmasq 4
start_testweb --generate sites=4 --log-level warn
start_redis
start_llfs --log-level warn --max-body-bytes 4m --max-decoded-bytes 8m --timeout-ms 10000
TOKEN=cases-token
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn
SITE="http://site1.test:$TESTWEB_PORT"

declare -A C
KEYS=" service request body status type field json fetch options outcome truncated seconds "

# parse FILE: C[key]=value, C[name]=the first comment.
parse() {
  C=()
  local line k v
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      '#'*) [ -z "${C[name]:-}" ] && C[name]=${line#\# } ;;
      '') ;;
      *:*) k=${line%%:*}; v=${line#*: }; C[$k]=${v//\$SITE/$SITE}
           [[ $KEYS == *" $k "* ]] || C[bad]+="$k " ;;
      *) C[bad]+="($line) " ;;
    esac
  done <"$1"
}

# check NAME GOT WANT: one expectation; appends to ERR.
check() { [ "$2" = "$3" ] || ERR+="$1: got '$2', want '$3'; "; }

run_api() {
  local base=$LLFS_URL auth=(-H "$LLFS_AUTH") args
  [ "${C[service]}" = hlfs ] && { base=$HLFS_URL; auth=(-H "Authorization: Bearer $TOKEN"); }
  args=(-s -o "$T_DIR/case.body" -w '%{http_code}' -X "${C[request]%% *}" "${auth[@]}")
  [ -n "${C[body]:-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "${C[body]}")
  local status
  status=$(curl "${args[@]}" "$base${C[request]#* }")
  [ -n "${C[status]:-}" ] && check status "$status" "${C[status]}"
  [ -n "${C[type]:-}" ] && check type "$(jq -r .type "$T_DIR/case.body" 2>/dev/null)" \
    "urn:wpfs:problem:${C[type]}"
  [ -n "${C[field]:-}" ] && check field "$(jq -r .field "$T_DIR/case.body" 2>/dev/null)" "${C[field]}"
}

run_fetch() {
  local req t0 t1
  req=$(jq -cn --arg u "$SITE${C[fetch]}" --argjson o "${C[options]:-{\}}" '{url: $u} + $o') ||
    { ERR+="options is not JSON; "; return; }
  t0=$(date +%s%N)
  curl -s -o "$T_DIR/case.body" -H 'Content-Type: application/json' --data-binary "$req" \
    -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" -m 60
  t1=$(date +%s%N)
  jq -e . "$T_DIR/case.body" >/dev/null 2>&1 || { ERR+="no JSON answer; "; return; }
  [ -n "${C[outcome]:-}" ] && check outcome "$(jq -r .outcome "$T_DIR/case.body")" "${C[outcome]}"
  [ -n "${C[status]:-}" ] && check status "$(jq -r .status "$T_DIR/case.body")" "${C[status]}"
  [ -n "${C[truncated]:-}" ] && check truncated "$(jq -r .truncated "$T_DIR/case.body")" \
    "${C[truncated]}"
  [ -n "${C[seconds]:-}" ] && [ $(( (t1 - t0) / 1000000000 )) -ge "${C[seconds]}" ] &&
    ERR+="took $(( (t1 - t0) / 1000000 )) ms, over ${C[seconds]} s; "
}

n=0
for f in "$WPFS_ROOT"/tests/cases/*/*.case; do
  rel=${f#"$WPFS_ROOT"/tests/cases/}
  [ -n "${CASES:-}" ] && [ "${rel%.case}" != "$CASES" ] && continue
  parse "$f"
  ERR=${C[bad]:+unknown lines: ${C[bad]}; }
  if [ -n "${C[fetch]:-}" ]; then
    run_fetch
  elif [ -n "${C[request]:-}" ]; then
    run_api
  else
    ERR+="neither fetch nor request; "
  fi
  if [ -n "${C[json]:-}" ]; then
    check json "$(jq -c "${C[json]% = *}" "$T_DIR/case.body" 2>/dev/null)" "${C[json]##* = }"
  fi
  if [ -z "$ERR" ]; then pass "$rel: ${C[name]:-}"; else fail "$rel: ${C[name]:-}: $ERR"; fi
  n=$((n + 1))
done
cmp_ge "$n" 1 "cases run"
done_testing
