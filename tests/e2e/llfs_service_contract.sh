#!/bin/bash
# timeout: 90
# openapi.yaml against the code, so that they cannot drift apart:
#  - the Outcome enum is exactly the engine's outcome table, in order
#    (`llfs --print-outcomes`);
#  - every problem slug the fetcher can answer is in the Problem enum;
#  - real answers of a running llfs (fetches with many outcomes, in both
#    representations, resolves, problems) validate against FetchResult,
#    ResolveResult and Problem, with additionalProperties false added here,
#    so an undocumented field fails too;
#  - the configuration table of docs/llfs.md is `llfs --help-markdown`.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
A=$T_DIR/answers
mkdir -p "$A"

# ---- tables --------------------------------------------------------------
spec_outcomes=$(node -e '
  const YAML = require(process.env.WPFS_ROOT + "/node_modules/yaml");
  const doc = YAML.parse(require("fs").readFileSync("openapi.yaml", "utf8"));
  console.log(doc.components.schemas.Outcome.enum.join("\n"));')
is "$(echo "$spec_outcomes" | tr '\n' ' ')" "$("$WPFS_BIN/llfs" --print-outcomes | tr '\n' ' ')" \
  "Outcome enum of openapi.yaml == the engine's outcome table, in order"
spec_slugs=$(node -e '
  const YAML = require(process.env.WPFS_ROOT + "/node_modules/yaml");
  const doc = YAML.parse(require("fs").readFileSync("openapi.yaml", "utf8"));
  const t = doc.components.schemas.Problem.properties.type.enum;
  console.log(t.map(s => s.replace("urn:wpfs:problem:", "")).join("\n"));')
code_slugs=$(grep -ohE '(api_problem\([^,]+, *[0-9]+|req_fail\([^,]+, *[0-9]+), *"[a-z-]+"' \
  llfs/*.c api/*.c | sed -E 's/.*"([a-z-]+)"$/\1/' | sort -u)
missing=$(comm -23 <(echo "$code_slugs") <(echo "$spec_slugs" | sort -u) | tr '\n' ' ')
cmp_ge "$(echo "$code_slugs" | wc -l)" 10 "found the problem slugs in the code"
is "$missing" "" "every problem slug of llfs/ and api/ is in the Problem enum"

doc_table() {
  sed -n '/<!-- BEGIN llfs --help-markdown -->/,/<!-- END llfs --help-markdown -->/p' docs/llfs.md |
    sed '1d;$d'
}
ok "docs/llfs.md has the generated configuration table" test -n "$(doc_table)"
if diff <(doc_table) <("$WPFS_BIN/llfs" --help-markdown) >"$T_DIR/doc.diff"; then
  pass "docs/llfs.md configuration table == llfs --help-markdown"
else
  sed 's/^/# /' "$T_DIR/doc.diff" | head -20
  fail "docs/llfs.md configuration table == llfs --help-markdown (paste its output)"
fi

# ---- real answers ----------------------------------------------------------
start_dnsmasq 10
start_testweb --generate sites=10
start_llfs --max-body-bytes 100000
closed_port=$(freeport)
n=0
# answer KIND JSON-BODY [CURL ARGS]: keep the answer as $A/KIND-N.json
answer() {
  local kind=$1 body=$2 out
  shift 2
  n=$((n + 1))
  out=$A/$kind-$n.json
  if [ "$kind" = meta ]; then
    curl -s -D "$T_DIR/h" -o "$T_DIR/framed" -H 'Accept: application/x-wpfs-fetch' \
      --data-binary "$body" "$@" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch"
    head -c "$(grep -i '^Wpfs-Meta-Length:' "$T_DIR/h" | tr -dc 0-9)" "$T_DIR/framed" >"$out"
  else
    curl -s -o "$out" --data-binary "$body" "$@" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch"
  fi
}
fetch_both() {  # URL [EXTRA-JSON]
  local b
  b=$(jq -cn --arg u "$1" "{url: \$u} + ${2:-"{}"}")
  answer fetch "$b"
  answer meta "$b"
}
fetch_both "$(tw_url site0.test /)"
fetch_both "$(tw_url site0.test /)" '{method: "HEAD"}'
fetch_both "$(tw_url site1.test /_b/status/404)"
fetch_both "$(tw_url site1.test '/_b/redirect/301?to=/p/2.html')"
fetch_both "$(tw_url site2.test '/_b/body/x?size=300000')"
fetch_both "$(tw_url site2.test '/_b/body/x?size=50000&reset_after=1000')"
fetch_both "$(tw_url site3.test /_b/hang/x)" '{timeout_ms: 300}'
fetch_both "$(tw_url site3.test /_b/malformed/no-colon)"
fetch_both "$(tw_url private.test /)"
fetch_both "$(tw_url nx.test /)"
fetch_both "$(tw_url servfail.test /)"
fetch_both "http://127.0.0.1:$closed_port/"
fetch_both "$(tw_url site4.test /)" '{pin_address: "169.254.169.254"}'
outcomes=$(cat "$A"/fetch-*.json | jq -r .outcome | sort -u | tr '\n' ' ')
is "$outcomes" \
  "blocked_address connect_refused dns_nxdomain dns_servfail ok protocol_error reset timeout too_large " \
  "the sample covers nine outcomes"
for h in site5.test private.test nx.test 127.0.0.1 '%5B::1%5D' dual.test; do
  n=$((n + 1))
  curl -s -o "$A/resolve-$n.json" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/resolve?host=$h"
done
p=0
for args in "-d {" "-d []" "-d {\"url\":1}" "-d {\"url\":\"ftp://a/\"}" \
  "-d {\"url\":\"http://a:0/\"}" "-H Content-Type:text/plain -d {}" "-X GET" \
  "-d {\"url\":\"http://a/\",\"x\":1}"; do
  p=$((p + 1))
  # shellcheck disable=SC2086  # the arguments are split on purpose
  curl -s -o "$A/problem-$p.json" $args -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch"
done
curl -s -o "$A/problem-r1.json" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/resolve"
curl -s -o "$A/problem-r2.json" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/nothing"

node - "$A" >"$T_DIR/validate.json" <<'JS'
const fs = require("fs");
const root = process.env.WPFS_ROOT;
const YAML = require(root + "/node_modules/yaml");
const Ajv2020 = require(root + "/node_modules/ajv/dist/2020");
const doc = YAML.parse(fs.readFileSync(root + "/openapi.yaml", "utf8"));
const s = doc.components.schemas;
// Closed objects: a field the code sends and the contract does not list fails.
s.FetchResult.additionalProperties = false;
s.FetchResult.properties.timings_us.additionalProperties = false;
s.ResolveResult.additionalProperties = false;
s.ResolveResult.properties.addresses.items.additionalProperties = false;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(doc, "openapi");
const check = {
  fetch: ajv.getSchema("openapi#/components/schemas/FetchResult"),
  meta: ajv.getSchema("openapi#/components/schemas/FetchResult"),
  resolve: ajv.getSchema("openapi#/components/schemas/ResolveResult"),
  problem: ajv.getSchema("openapi#/components/schemas/Problem"),
};
const out = { validated: 0, errors: [] };
for (const f of fs.readdirSync(process.argv[2]).sort()) {
  const kind = f.split("-")[0];
  let v;
  try {
    v = JSON.parse(fs.readFileSync(process.argv[2] + "/" + f, "utf8"));
  } catch (e) {
    out.errors.push(f + ": not JSON");
    continue;
  }
  if (!check[kind](v))
    out.errors.push(f + " (" + (v.outcome || v.type) + "): " + ajv.errorsText(check[kind].errors));
  if (kind === "meta" && "body_base64" in v)
    out.errors.push(f + ": the framed meta line carries body_base64");
  out.validated++;
}
console.log(JSON.stringify(out));
JS
is "$?" 0 "the validator ran"
jq -r '.errors[]' "$T_DIR/validate.json" | sed 's/^/# /'
is "$(jq -r .validated "$T_DIR/validate.json")" "$(ls "$A" | wc -l)" "every answer was validated"
cmp_ge "$(jq -r .validated "$T_DIR/validate.json")" 42 "... at least 42 of them"
is "$(jq -r '.errors | length' "$T_DIR/validate.json")" 0 \
  "every answer matches its schema in openapi.yaml (closed objects)"
done_testing
