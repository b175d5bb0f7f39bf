# testweb harness (sourced by tests/lib.sh). docs/testweb.md has the details.
#   start_testweb ARGS...   start testweb on free ports and wait until it
#                           answers; sets TESTWEB_PORT, TESTWEB_CTL (control
#                           base URL), TESTWEB_PID, TESTWEB_LOG
#   stop_testweb            SIGTERM, wait; returns testweb's exit status
#   tw_addr SITE            address of a site (name or address)
#   tw_url SITE PATH        http://SITE:PORT/PATH
#   tw_curl SITE PATH ARGS  curl to a site by its own address (no DNS needed)
#   tw_site_json SITE [Q]   the site's record (Q: query, e.g. requests=0)
#   tw_site_field SITE JQ   one jq expression on the site's record
#   tw_stats                server counters (JSON)
#   tw_reset [SITE]         forget every record (or one site's)
#   tw_add_site JSON        add a site at run time
#   tw_put_site SITE JSON   replace a site's config at run time
#   tw_zone                 "name address" lines of every site
TESTWEB_N=0

start_testweb() {
  TESTWEB_N=$((TESTWEB_N + 1))
  local name=testweb$TESTWEB_N
  local pf="$T_DIR/$name.port" cf="$T_DIR/$name.ctl"
  rm -f "$pf" "$cf"
  bg "$name" "$WPFS_BIN/testweb" --port 0 --port-file "$pf" \
    --control-port 0 --control-port-file "$cf" "$@"
  TESTWEB_PID=$BG_PID
  TESTWEB_LOG="$T_DIR/$name.log"
  wait_for 20 tw_started "$cf"
  if [ ! -s "$cf" ]; then
    cat "$TESTWEB_LOG" >&2
    bail "testweb did not start"
  fi
  TESTWEB_PORT=$(cat "$pf")
  TESTWEB_CTL="http://127.0.0.1:$(cat "$cf")"
  wait_for 10 curl -sf "$TESTWEB_CTL/health" || bail "testweb control does not answer"
}

# Ready, or dead (then there is no point in waiting longer).
tw_started() { [ -s "$1" ] || ! kill -0 "$TESTWEB_PID" 2>/dev/null; }

stop_testweb() {
  local rc
  kill -TERM "$TESTWEB_PID" 2>/dev/null
  wait "$TESTWEB_PID"
  rc=$?
  return $rc
}

# Generated sites follow a fixed rule; other sites are asked for.
tw_addr() {
  local s=$1 i
  if [[ $s =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "$s"
  elif [[ $s =~ ^site([0-9]+)\.test$ ]]; then
    i=${BASH_REMATCH[1]}
    echo "127.10.$((i / 250)).$((i % 250 + 1))"
  else
    curl -s "$TESTWEB_CTL/sites/$s?requests=0" | jq -r '.address // "127.0.0.1"'
  fi
}

tw_url() { echo "http://$1:$TESTWEB_PORT$2"; }

tw_curl() {
  local site=$1 path=$2 addr
  shift 2
  addr=$(tw_addr "$site")
  if [ "$addr" = "$site" ]; then
    curl "$@" "http://$site:$TESTWEB_PORT$path"
  else
    curl --resolve "$site:$TESTWEB_PORT:$addr" "$@" "http://$site:$TESTWEB_PORT$path"
  fi
}

tw_site_json() { curl -s "$TESTWEB_CTL/sites/$1${2:+?$2}"; }
tw_site_field() { tw_site_json "$1" | jq -r "$2"; }
tw_stats() { curl -s "$TESTWEB_CTL/stats"; }
tw_reset() {
  if [ $# -gt 0 ]; then
    curl -sf -X POST "$TESTWEB_CTL/sites/$1/reset" >/dev/null
  else
    curl -sf -X POST "$TESTWEB_CTL/reset" >/dev/null
  fi
}
tw_add_site() { curl -s -X POST --data-binary "$1" "$TESTWEB_CTL/sites"; }
tw_put_site() { curl -s -X PUT --data-binary "$2" "$TESTWEB_CTL/sites/$1"; }
tw_zone() { curl -s "$TESTWEB_CTL/zone"; }

# start_nginx_static ROOT TYPE: nginx (one worker, no master, keep-alive
# without limit) serving the files under ROOT with Content-Type TYPE on a
# free loopback port; sets NGINX_PORT and NGINX_PID. The benchmarks'
# baseline for "the same bytes from disk".
start_nginx_static() {
  local root=$1 type=$2
  NGINX_PORT=$(freeport)
  mkdir -p "$T_DIR/nginx"
  cat >"$T_DIR/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
error_log $T_DIR/nginx/error.log warn;
pid $T_DIR/nginx/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  client_body_temp_path $T_DIR/nginx/body;
  proxy_temp_path $T_DIR/nginx/proxy;
  fastcgi_temp_path $T_DIR/nginx/fastcgi;
  uwsgi_temp_path $T_DIR/nginx/uwsgi;
  scgi_temp_path $T_DIR/nginx/scgi;
  default_type $type;
  server { listen 127.0.0.1:$NGINX_PORT; root $root; }
}
CONF
  bg nginx nginx -e "$T_DIR/nginx/error.log" -p "$T_DIR/nginx" -c "$T_DIR/nginx.conf"
  NGINX_PID=$BG_PID
}

# Politeness as the generated sites 127.10.0.1..N saw it, against a gap of
# min_ms: prints "overlaps early smallest_gap_ms" (sites with two requests
# at once, summed; sites with a gap below min_ms; the smallest gap of all).
tw_gaps() {  # N min_ms
  local over=0 early=0 min=999999 i j g
  for i in $(seq 1 "$1"); do
    j=$(tw_site_json "127.10.0.$i")
    over=$((over + $(jq -r .overlaps <<<"$j")))
    g=$(jq -r '.min_gap_ms // 999999 | floor' <<<"$j")
    [ "$g" -lt "$2" ] && early=$((early + 1))
    [ "$g" -lt "$min" ] && min=$g
  done
  echo "$over $early $min"
}
