#!/bin/bash
# timeout: 30
# The API case tables' runner (api_cases in tests/lib.sh) on made-up
# answers: a case passes when its status, problem type (and the problem's
# Content-Type) and field are those its line names, and fails when any one
# of them differs, when its request cannot run (nothing of the last answer
# passes it), or when a "=" line's value differs; ARGS are expanded when
# the case runs, lines go on after " \", comments and blank lines count
# for nothing.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/table.sh" <<'SCRIPT'
. "$WPFS_ROOT/tests/lib.sh"
answer() {  # STATUS BODY [CONTENT-TYPE]: the answer given, as a request function leaves it
  API_STATUS=$1 API_BODY=$T_DIR/a.body API_HEAD=$T_DIR/a.head
  printf '%s' "$2" >"$API_BODY"
  printf 'HTTP/1.1 %s\r\nContent-Type: %s\r\n\r\n' "$1" "${3:-application/problem+json}" \
    >"$API_HEAD"
}
P='{"type":"urn:wpfs:problem:invalid-field","field":"url","n":2}'
n=1
api_cases answer <<'CASES'
# a comment, then a blank line

422 invalid-field url | pass: status, type, field | 422 "$P"
= 2 | pass: a value of the same answer | .n
200 - - | pass: the status alone | 200 '{"s":"a | b"}'
= a-b | pass: ARGS and JQ holding pipes | .s | sub(" [|] "; "-")
- - - | (no line of its own) | 201 "$(echo "{\"n\": $((n + 1))}")"
= 2 | pass: ARGS expanded when the case runs | .n
422 invalid-field url | pass: a line going on on the next | \
    422 "$P"
400 invalid-field url | fail: status | 422 "$P"
422 invalid-json url | fail: type | 422 "$P"
422 invalid-field url | fail: Content-Type | 422 "$P" application/json
422 invalid-field urls | fail: field | 422 "$P"
= 3 | fail: a value | .n
200 - - | fail: a request that cannot run | 200 "{
= 2 | fail: a value after it | .n
CASES
done_testing
SCRIPT
bash "$T_DIR/table.sh" >"$T_DIR/out" 2>&1
ok "a table with failing cases fails its script" test "$?" -ne 0
passed=$(sed -n 's/^ok [0-9]* - pass: //p' "$T_DIR/out" | paste -sd,)
want="status, type, field,a value of the same answer,the status alone"
want+=",ARGS and JQ holding pipes,ARGS expanded when the case runs,a line going on on the next"
is "$passed" "$want" "every pass: case passes, in order"
failed=$(sed -n 's/^not ok [0-9]* - fail: \([^(]*\) (.*/\1/p' "$T_DIR/out" | paste -sd,)
is "$failed" "status,type,Content-Type,field,a value,a request that cannot run,a value after it" \
  "every fail: case fails, naming what it got"
is "$(grep -c '^ok\|^not ok' "$T_DIR/out")" 13 \
  "one TAP line per case and per = line, none for - - -"
line="fail: field (got '422 application/problem+json urn:wpfs:problem:invalid-field url',"
line+=" want '422 application/problem+json urn:wpfs:problem:invalid-field urls')"
ok "what differed is shown" grep -qF "$line" "$T_DIR/out"
done_testing
