#!/bin/bash
# timeout: 120
# deploy/k8s without a cluster: every manifest against the Kubernetes
# schemas and its field lists, cross-references, the programs' own option
# tables, pod security and the network policies (deploy/tools/k8s-check.js);
# the kustomize rendering when kubectl is on the machine. Then a few broken
# copies of the manifests, each of which must be caught by the right check.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
command -v node >/dev/null || bail "node is missing (make deps)"
[ -d node_modules/kubernetes-models ] || bail "node_modules/kubernetes-models is missing (make deps)"
check=deploy/tools/k8s-check.js

# tap_from FILE: the checker's "ok - X" / "not ok - X" lines as TAP.
tap_from() {
  local line
  while IFS= read -r line; do
    case $line in
      "ok - "*) pass "${line#ok - }" ;;
      "not ok - "*) fail "${line#not ok - }" ;;
      *) echo "$line" ;;
    esac
  done <"$1"
}

rendered=()
if command -v kubectl >/dev/null 2>&1; then
  if kubectl kustomize deploy/k8s >"$T_DIR/rendered.yaml" 2>"$T_DIR/kustomize.err"; then
    pass "kubectl kustomize deploy/k8s renders"
    rendered=(--rendered "$T_DIR/rendered.yaml")
  else
    fail "kubectl kustomize deploy/k8s renders"
    sed 's/^/# /' "$T_DIR/kustomize.err"
  fi
else
  echo "# kubectl not installed: kustomize rendering not checked"
fi

node "$check" --bin "$WPFS_BIN" "${rendered[@]}" deploy/k8s >"$T_DIR/out" 2>&1
rc=$?
tap_from "$T_DIR/out"
is "$rc" 0 "k8s-check exits 0"

# mutant NAME CHECK-REGEX FILE SED-SCRIPT: a copy of deploy/k8s with one
# change must fail the check whose name matches CHECK-REGEX.
mutant() {
  local name=$1 want=$2 file=$3 script=$4 d="$T_DIR/m"
  rm -rf "$d" && cp -r deploy/k8s "$d"
  sed -i "$script" "$d/$file"
  if cmp -s "deploy/k8s/$file" "$d/$file"; then fail "mutant $name: the edit changed nothing"; return; fi
  node "$check" --bin "$WPFS_BIN" --only "$want" "$d" >"$T_DIR/mut.out" 2>&1
  if grep -q "^not ok - " "$T_DIR/mut.out"; then
    pass "caught: $name"
  else
    fail "caught: $name"
    sed 's/^/# /' "$T_DIR/mut.out"
  fi
}
mutant "misspelt field (readinesProbe)" "unknown" llfs.yaml 's/readinessProbe:/readinesProbe:/'
mutant "string where the schema wants an integer" "schemas" llfs.yaml 's/containerPort: 8081/containerPort: "8081"/'
mutant "removed API version (autoscaling/v2beta2)" "schemas" hlfs.yaml 's|autoscaling/v2$|autoscaling/v2beta2|'
mutant "unknown WPFS_ variable" "settings" config/llfs.env 's/^WPFS_LLFS_LOG_LEVEL=/WPFS_LLFS_LOGLEVEL=/'
mutant "value the program refuses" "settings" config/llfs.env 's/^WPFS_LLFS_TIMEOUT_MS=30s$/WPFS_LLFS_TIMEOUT_MS=30 s/'
mutant "shutdown grace longer than the pod's grace period" "graceful" config/hlfs.env 's/^WPFS_HLFS_SHUTDOWN_GRACE_MS=10s$/WPFS_HLFS_SHUTDOWN_GRACE_MS=40s/'
mutant "Service selector that matches no pod" "selectors" llfs.yaml '/^kind: Service$/,/^---$/ s/component: llfs/component: llfs-x/'
mutant "probe on a port the container does not open" "ports" hlfs.yaml 's/port: http$/port: web/'
mutant "Secret name that does not exist" "referenced" hlfs.yaml 's/secretName: wpfs-hlfs-tokens/secretName: wpfs-tokens/'
mutant "gateway bound to loopback" "listen" config/hlfs.env 's/^WPFS_HLFS_LISTEN_ADDR=0.0.0.0$/WPFS_HLFS_LISTEN_ADDR=127.0.0.1/'
mutant "container allowed to escalate privileges" "security" redis.yaml 's/allowPrivilegeEscalation: false/allowPrivilegeEscalation: true/'
mutant "Redis without AOF" "redis" config/redis.conf 's/^appendonly yes$/appendonly no/'
mutant "a Sentinel set of two" "Sentinel set" redis.yaml 's/^  replicas: 3$/  replicas: 2/'
mutant "a server started without redis-ha.sh" "Sentinel set" redis.yaml 's|command: \["/bin/sh", "/etc/wpfs/redis/redis-ha.sh"\]|command: ["redis-server"]|'
mutant "the pods listed wrong" "Sentinel set" redis.yaml 's/value: wpfs-redis-0.wpfs-redis wpfs-redis-1/value: wpfs-redis-1.wpfs-redis wpfs-redis-0/'
mutant "a sentinel past the set" "listen" config/hlfs.env 's/wpfs-redis-2.wpfs-redis:26379/wpfs-redis-3.wpfs-redis:26379/'
mutant "sentinels closed to the gateways" "network" network-policies.yaml '/name: wpfs-hlfs$/,/name: wpfs-llfs$/ s/port: 26379/port: 26380/'
mutant "replication closed between the Redis pods" "network" network-policies.yaml '/name: wpfs-redis$/,/name: wpfs-redis-cache$/ { /^  egress:$/,/^---$/d }'
mutant "page cache Redis that never evicts" "redis-cache" config/redis-cache.conf 's/^maxmemory-policy allkeys-lru$/maxmemory-policy noeviction/'
mutant "page cache Redis without a memory cap" "redis-cache" config/redis-cache.conf '/^maxmemory 2gb$/d'
mutant "pages sent to the state Redis" "listen" config/hlfs.env 's/^WPFS_HLFS_CACHE_REDIS=wpfs-redis-cache:6380$/WPFS_HLFS_CACHE_REDIS=wpfs-redis:6379/'
mutant "page cache open to the fetcher" "network" network-policies.yaml '/name: wpfs-redis-cache$/,$ s/component: hlfs$/component: llfs/'
mutant "fetcher egress open to 10.0.0.0/8" "network" network-policies.yaml '/- 10.0.0.0\/8/d'
mutant "policy peer label misspelt" "network" network-policies.yaml '0,/component: hlfs/! s/component: hlfs$/component: hlf/'
# The partitioned crawl (discover.yaml, redis-coord.yaml and their policies).
mutant "a member named after its node, not its pod" "discover" discover.yaml 's/fieldPath: metadata.name/fieldPath: spec.nodeName/'
mutant "--out not on the pod's claim" "discover" config/discover.env 's|^WPFS_OUT=/var/lib/wpfs/crawl$|WPFS_OUT=/tmp/crawl|'
mutant "the claim mounted elsewhere than --out" "discover" discover.yaml 's|mountPath: /var/lib/wpfs/crawl$|mountPath: /var/lib/wpfs/out|'
mutant "members that wait for each other (OrderedReady)" "discover" discover.yaml 's/podManagementPolicy: Parallel/podManagementPolicy: OrderedReady/'
mutant "members restarted by hand only (OnDelete)" "discover" discover.yaml '/^  updateStrategy:$/,/partition: 0/c\  updateStrategy:\n    type: OnDelete'
mutant "no time for the checkpoint" "discover" discover.yaml 's/terminationGracePeriodSeconds: 120/terminationGracePeriodSeconds: 10/'
mutant "a budget that selects no member" "selectors" discover.yaml '/^kind: PodDisruptionBudget$/,$ s/component: discover$/component: discovery/'
mutant "a budget of two members" "discover" discover.yaml 's/^  maxUnavailable: 1$/  maxUnavailable: 2/'
# A gateway token per member (the gateway hands a client's results to
# whoever reads with its token): a member without a key, a set scaled past
# the keys, two members with one token, one token for all.
mutant "a member without its token" "discover" secret-discover.yaml '/^  wpfs-discover-1:/d'
mutant "a set scaled past its members' tokens" "discover" discover.yaml 's/^  replicas: 3$/  replicas: 4/'
mutant "two members sharing one token" "discover" secret-discover.yaml 's/^  wpfs-discover-\([01]\): ""$/  wpfs-discover-\1: "same-token"/'
mutant "one token for every member" "discover" discover.yaml 's|^            - name: WPFS_MEMBER_TOKENS$|            - name: WPFS_TOKEN\n              value: one-for-all\n            - name: WPFS_MEMBER_TOKENS|'
mutant "the tokens not mounted" "discover" discover.yaml 's|mountPath: /etc/wpfs/discover-tokens$|mountPath: /etc/wpfs/tokens-elsewhere|'
mutant "a member told to --resume" "discover" config/discover.env '$a WPFS_RESUME=true'
mutant "the crawl coordinated in the gateway's state Redis" "discover" config/discover.env 's|^WPFS_COORD_REDIS=.*|WPFS_COORD_REDIS=redis://wpfs-redis:6379|'
mutant "a gateway that is not the gateway" "discover" config/discover.env 's|^WPFS_GATEWAY=.*|WPFS_GATEWAY=http://wpfs-llfs:8081|'
mutant "an unknown crawler setting" "settings" config/discover.env 's/^WPFS_SCOPE=/WPFS_SCOPES=/'
mutant "a crawler setting it refuses" "settings" config/discover.env 's/^WPFS_CHECKPOINT_MS=30s$/WPFS_CHECKPOINT_MS=30 s/'
mutant "the crawl's Redis without AOF" "redis-coord" config/redis-coord.conf 's/^appendonly yes$/appendonly no/'
mutant "the crawl's Redis evicting leases" "redis-coord" config/redis-coord.conf 's/^maxmemory-policy noeviction$/maxmemory-policy allkeys-lru/'
mutant "the members cut off from the gateway" "network" network-policies.yaml '/name: wpfs-discover$/,$ s/port: 8080$/port: 8081/'
mutant "the members cut off from their Redis" "network" network-policies.yaml '/name: wpfs-discover$/,$ s/port: 6381$/port: 6379/'
mutant "the members let onto the Internet" "network" network-policies.yaml '/name: wpfs-discover$/,/^---$/ s/^  egress:$/  egress:\n    - to: [{ipBlock: {cidr: 0.0.0.0\/0}}]/'
mutant "the crawl's Redis open to the gateway" "network" network-policies.yaml '/name: wpfs-redis-coord$/,$ s/component: discover$/component: hlfs/'
mutant "the gateway closed to the members" "network" network-policies.yaml '/name: wpfs-hlfs$/,/name: wpfs-llfs$/ { /component: discover$/ s/discover/discovery/ }'
done_testing
