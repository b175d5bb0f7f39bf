# Recording HTTP exchanges for the contract validator (source it after
# tests/lib.sh). Each exchange is one curl call; its request, head and body
# are kept under $CX_DIR and listed in $CX_DIR/exchanges.jsonl, which
# tests/contract/validate.mjs checks against openapi.yaml.
#
#   cx [-s hlfs|llfs] [-A] [-H 'Name: value']... [-d BODY | -f FILE] [-l LABEL] METHOD PATH
#       one exchange with the gateway ($HLFS_URL, default) or the fetcher
#       ($LLFS_URL). Sends X-Request-Id: cx-<n>, Authorization: Bearer
#       $CX_TOKEN to the gateway (the fetchers' secret, $LLFS_AUTH, to the
#       fetcher) unless -A, Content-Type: application/json
#       with a body unless -H gives one. Sets CX_STATUS, CX_BODY (file),
#       CX_HEAD (file).
#   api_cases cx_case <<'CASES'   (tests/lib.sh)
#   STATUS TYPE FIELD | LABEL | [cx options] METHOD PATH
#   CASES
#       cx as api_cases's request: each case one exchange, labelled LABEL,
#       and one TAP check of its status, problem type and field.
#   cx_json JQ      jq -r on the last answer's body
#   cx_hdr NAME     a header of the last answer
#   cx_record ...   append a record made elsewhere (tests/contract/keepalive.mjs)
#   cx_validate [--coverage]
#       validate every recorded exchange: one TAP line each.
CX_DIR=$T_DIR/cx
CX_N=0
CX_TOKEN=${CX_TOKEN:-}
mkdir -p "$CX_DIR"

cx() {
  local svc=hlfs noauth=0 label="" body="" bodyf="" OPTIND=1 opt
  local -a hdrs=()
  while getopts 's:AH:d:f:l:' opt; do
    case $opt in
      s) svc=$OPTARG ;;
      A) noauth=1 ;;
      H) hdrs+=("$OPTARG") ;;
      d) body=$OPTARG; bodyf=set ;;
      f) bodyf=$OPTARG ;;
      l) label=$OPTARG ;;
      *) bail "cx: bad option" ;;
    esac
  done
  shift $((OPTIND - 1))
  local method=$1 path=$2 base n
  CX_N=$((CX_N + 1))
  n=$CX_N
  case $svc in
    hlfs) base=$HLFS_URL ;;
    llfs) base=$LLFS_URL ;;
    *) bail "cx: unknown service $svc" ;;
  esac
  hdrs+=("X-Request-Id: cx-$n")
  if [ "$svc" = hlfs ] && [ "$noauth" = 0 ] && [ -n "$CX_TOKEN" ]; then
    hdrs+=("Authorization: Bearer $CX_TOKEN")
  elif [ "$svc" = llfs ] && [ "$noauth" = 0 ]; then
    hdrs+=("$LLFS_AUTH")
  fi
  local reqf=null
  if [ "$bodyf" = set ]; then
    printf '%s' "$body" >"$CX_DIR/$n.req"
    bodyf=$CX_DIR/$n.req
  fi
  if [ -n "$bodyf" ]; then
    reqf=$bodyf
    printf '%s\n' "${hdrs[@]}" | grep -qi '^Content-Type:' ||
      hdrs+=("Content-Type: application/json")
  fi
  local -a args=(-s -X "$method" -D "$CX_DIR/$n.head" -o "$CX_DIR/$n.body"
                 -w '%{http_code}' --max-time 30)
  local h
  for h in "${hdrs[@]}"; do args+=(-H "$h"); done
  [ -n "$bodyf" ] && args+=(--data-binary "@$bodyf")
  CX_STATUS=$(curl "${args[@]}" "$base$path")
  CX_BODY=$CX_DIR/$n.body
  CX_HEAD=$CX_DIR/$n.head
  touch "$CX_BODY" "$CX_HEAD"
  jq -cn --arg lbl "${label:-$method $path}" --arg svc "$svc" --arg method "$method" \
    --arg path "$path" --argjson status "$((10#${CX_STATUS:-0}))" \
    --arg reqf "$reqf" --arg head "$CX_HEAD" --arg bodyf "$CX_BODY" \
    '{label: $lbl, svc: $svc, method: $method, path: $path,
      req_headers: $ARGS.positional, req_body_file: (if $reqf == "null" then null else $reqf end),
      status: $status, resp_head_file: $head, resp_body_file: $bodyf}' \
    --args "${hdrs[@]}" >>"$CX_DIR/exchanges.jsonl"
}

cx_json() { jq -r "$1" "$CX_BODY" 2>/dev/null; }
cx_hdr() { grep -i "^$1:" "$CX_HEAD" | tail -1 | cut -d' ' -f2- | tr -d '\r'; }

cx_case() {
  cx -l "$API_LABEL" "$@"
  API_STATUS=$CX_STATUS API_BODY=$CX_BODY API_HEAD=$CX_HEAD
}

cx_record() { printf '%s\n' "$1" >>"$CX_DIR/exchanges.jsonl"; }

cx_validate() {
  local line
  node "$WPFS_ROOT/tests/contract/validate.mjs" --spec "${CX_SPEC:-$WPFS_ROOT/openapi.yaml}" \
    "$@" "$CX_DIR/exchanges.jsonl" >"$CX_DIR/validate.out" 2>&1
  while IFS= read -r line; do
    case $line in
      PASS\ *) pass "${line#PASS }" ;;
      FAIL\ *) fail "${line#FAIL }" ;;
      \#*) echo "$line" ;;
      *) echo "# $line" ;;
    esac
  done <"$CX_DIR/validate.out"
}
