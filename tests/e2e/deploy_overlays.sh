#!/bin/bash
# timeout: 120
# The overlays deploy/overlays/dev and deploy/overlays/prod, rendered by
# kubectl kustomize (prod with a tokens.json, a Redis password and a
# fetcher secret made here, in a copy of deploy/) and checked whole by k8s-check.js, like the
# base. The settings roll the pods: every ConfigMap is rendered with its
# content's hash in its name and the workloads refer to that name, so a
# changed setting (the dev overlay's, or one edited in the base) renames
# the ConfigMap of the pods that read it and no other.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
command -v kubectl >/dev/null 2>&1 || bail "kubectl is missing: it renders the overlays"
check=deploy/tools/k8s-check.js
cp -r deploy "$T_DIR/deploy"
D=$T_DIR/deploy
# One operator key and one per crawl member (the gateway gives a client's
# results to whoever reads with its token: each member a client of its own).
for i in 0 1 2; do printf 'discover-token-%s-%s' "$i" "$RANDOM$RANDOM$RANDOM" >"$D/overlays/prod/discover-token-$i"; done
jq -nc --arg op "prod-token-$RANDOM$RANDOM$RANDOM" \
  --rawfile t0 "$D/overlays/prod/discover-token-0" --rawfile t1 "$D/overlays/prod/discover-token-1" \
  --rawfile t2 "$D/overlays/prod/discover-token-2" \
  '{clients: ([{name: "operator", token: $op}] + ([$t0, $t1, $t2] | to_entries |
    map({name: "wpfs-discover-\(.key)", token: .value, role: "crawler", weight: 1})))}' \
  >"$D/overlays/prod/tokens.json"
printf 'redis-%s' "$RANDOM$RANDOM" >"$D/overlays/prod/redis-password"
printf 'fetcher-secret-%s\n' "$RANDOM$RANDOM$RANDOM" >"$D/overlays/prod/fetcher-secret"

render() {  # dir name
  kubectl kustomize "$1" >"$T_DIR/$2.yaml" 2>"$T_DIR/$2.err"
}
tap_check() {  # name file
  node "$check" --bin "$WPFS_BIN" "$2" >"$T_DIR/$1.check" 2>&1
  local rc=$?
  is "$rc" 0 "k8s-check passes on the rendered $1"
  [ "$rc" = 0 ] || sed 's/^/# /' "$T_DIR/$1.check"
}
# field NAME KIND OBJ JQ: a field of one rendered object
field() {
  node -e '
    const Y = require("yaml"), fs = require("fs");
    const [file, kind, name, expr] = process.argv.slice(1);
    for (const d of Y.parseAllDocuments(fs.readFileSync(file, "utf8"))) {
      const o = d.toJS();
      if (o && o.kind === kind && (o.metadata.name === name || new RegExp("^" + name + "-[a-z0-9]{10}$").test(o.metadata.name)))
        console.log(JSON.stringify(new Function("o", "return " + expr)(o)));
    }' "$T_DIR/$1.yaml" "$2" "$3" "$4"
}

for o in base dev prod; do
  dir=$D/k8s
  [ "$o" = base ] || dir=$D/overlays/$o
  ok "kubectl kustomize renders $o" render "$dir" "$o"
  sed 's/^/# /' "$T_DIR/$o.err"
  tap_check "$o" "$T_DIR/$o.yaml"
done

cm() { field "$1" ConfigMap "$2" 'o.metadata.name' | tr -d '"'; }
ref() { field "$1" Deployment "$2" 'o.spec.template.spec.containers[0].envFrom[0].configMapRef.name' | tr -d '"'; }
ok "ConfigMaps carry their content's hash" grep -qE '^wpfs-hlfs-[a-z0-9]{10}$' <<<"$(cm base wpfs-hlfs)"
is "$(ref base wpfs-hlfs)" "$(cm base wpfs-hlfs)" "the gateways read the hashed ConfigMap"
ok "dev's settings make another ConfigMap for the gateways (their pods roll)" \
  test "$(cm dev wpfs-hlfs)" != "$(cm base wpfs-hlfs)"
is "$(ref dev wpfs-hlfs)" "$(cm dev wpfs-hlfs)" "...and the gateways read it"
is "$(cm dev wpfs-llfs)" "$(cm base wpfs-llfs)" "the fetchers' ConfigMap is unchanged (their pods stay)"
is "$(field dev ConfigMap wpfs-hlfs 'o.data.WPFS_HLFS_LOG_LEVEL')" '"debug"' "dev: the gateways log at debug"
is "$(field dev ConfigMap wpfs-hlfs 'o.data.WPFS_HLFS_REDIS_MASTER')" '"wpfs"' "dev: the base's other settings stay"
is "$(field dev StatefulSet wpfs-redis 'o.spec.replicas')" 3 "dev: still a Sentinel set of three"
is "$(field dev StatefulSet wpfs-discover 'o.spec.replicas')" 2 "dev: a crawl of two members"
dt=$(field dev Secret wpfs-discover-tokens 'Object.keys(o.data).sort().map(k => k + "=" + Buffer.from(o.data[k], "base64").toString()).join(" ")' | tr -d '"')
is "$dt" "wpfs-discover-0=dev-token-discover-0 wpfs-discover-1=dev-token-discover-1" \
  "dev: a token per member, named like its pod"
is "$(field dev Secret wpfs-hlfs-tokens \
  'JSON.parse(Buffer.from(o.data["tokens.json"].replace(/\s/g, ""), "base64").toString()).clients.filter(c => /^dev-token-discover-[01]$/.test(c.token)).map(c => c.name).join(" ")')" \
  '"wpfs-discover-0 wpfs-discover-1"' "dev: ...each a client of its own in tokens.json"

# a setting edited in the base: the same, for the pods that read it
sed -i 's/^WPFS_LLFS_TIMEOUT_MS=30s$/WPFS_LLFS_TIMEOUT_MS=20s/' "$D/k8s/config/llfs.env"
ok "a setting edited in the base renders" render "$D/k8s" edited
ok "...as another ConfigMap for the fetchers" test "$(cm edited wpfs-llfs)" != "$(cm base wpfs-llfs)"
is "$(ref edited wpfs-llfs)" "$(cm edited wpfs-llfs)" "...which the fetchers read (their pods roll)"
is "$(cm edited wpfs-hlfs)" "$(cm base wpfs-hlfs)" "...and the gateways' is unchanged"
sed -i 's/^WPFS_LLFS_TIMEOUT_MS=20s$/WPFS_LLFS_TIMEOUT_MS=30s/' "$D/k8s/config/llfs.env"

is "$(field prod Deployment wpfs-hlfs 'o.spec.template.spec.containers[0].image')" \
  '"registry.example.net/wpfs:0.1"' "prod: the images come from the registry"
tokens=$(field prod Secret wpfs-hlfs-tokens 'Buffer.from(o.data["tokens.json"].replace(/\s/g, ""), "base64").toString()')
is "$(jq -r . <<<"$tokens" | jq -c .)" "$(jq -c . "$D/overlays/prod/tokens.json")" "prod: the API keys are tokens.json"
pw=$(field prod Secret wpfs-redis-auth 'Buffer.from(o.data.password, "base64").toString()' | tr -d '"')
is "$pw" "$(cat "$D/overlays/prod/redis-password")" "prod: the Redis password is redis-password"
fs=$(field prod Secret wpfs-fetcher-secret 'Buffer.from(o.data.secret, "base64").toString()' | tr -d '"')
is "$fs" "$(head -1 "$D/overlays/prod/fetcher-secret")\\n" "prod: the fetcher secret is fetcher-secret"
for i in 0 1 2; do
  dtp=$(field prod Secret wpfs-discover-tokens "Buffer.from(o.data['wpfs-discover-$i'], 'base64').toString()" | tr -d '"')
  is "$dtp" "$(cat "$D/overlays/prod/discover-token-$i")" "prod: member wpfs-discover-$i's token is discover-token-$i"
done
is "$(field prod StatefulSet wpfs-discover 'o.spec.template.spec.volumes.find(v => v.name === "tokens").secret.secretName')" \
  "$(field prod Secret wpfs-discover-tokens 'o.metadata.name')" "prod: the members mount that Secret"

# Broken copies of the overlays k8s-check must refuse: a member's token
# missing, two members with one token, a set scaled past its tokens.
# broken NAME OVERLAY FILE SED-SCRIPT
broken() {
  local name=$1 o=$2 file=$3 script=$4 b=$T_DIR/broken
  rm -rf "$b" && cp -r "$D" "$b"
  sed -i "$script" "$b/overlays/$o/$file"
  if ! kubectl kustomize "$b/overlays/$o" >"$T_DIR/broken.yaml" 2>"$T_DIR/broken.err"; then
    fail "$name: does not render"; sed 's/^/# /' "$T_DIR/broken.err"; return
  fi
  node "$check" --bin "$WPFS_BIN" --only discover "$T_DIR/broken.yaml" >"$T_DIR/broken.check" 2>&1
  if grep -q "^not ok - " "$T_DIR/broken.check"; then pass "k8s-check refuses $name"
  else fail "k8s-check refuses $name"; sed 's/^/# /' "$T_DIR/broken.check"; fi
}
broken "dev: a member without its token" dev kustomization.yaml '/- wpfs-discover-1=dev-token-discover-1$/d'
broken "dev: two members with one token" dev kustomization.yaml 's/- wpfs-discover-1=dev-token-discover-1$/- wpfs-discover-1=dev-token-discover-0/'
broken "dev: the set scaled to three, with two tokens" dev kustomization.yaml '/name: wpfs-discover}$/,/value: 2$/ s/value: 2$/value: 3/'
broken "prod: one file for two members" prod kustomization.yaml 's/- wpfs-discover-2=discover-token-2$/- wpfs-discover-2=discover-token-1/'
broken "prod: a member's token not a gateway client" prod kustomization.yaml 's/- wpfs-discover-0=discover-token-0$/- wpfs-discover-0=redis-password/'
for d in llfs hlfs; do
  is "$(field prod Deployment "wpfs-$d" \
    'o.spec.template.spec.containers[0].env.find(e => e.name === "WPFS_FETCHER_SECRET").valueFrom.secretKeyRef.name')" \
    '"wpfs-fetcher-secret"' "prod: $d reads WPFS_FETCHER_SECRET from that Secret"
done
ok "prod: none of the files can be committed (.gitignore)" sh -c "cd '$WPFS_ROOT' &&
  git check-ignore -q deploy/overlays/prod/tokens.json && git check-ignore -q deploy/overlays/prod/redis-password &&
  git check-ignore -q deploy/overlays/prod/fetcher-secret &&
  git check-ignore -q deploy/overlays/prod/discover-token-0"
done_testing
