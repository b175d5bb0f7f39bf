#!/bin/bash
# The control endpoint: stats, world, zone, site lists, sites added and
# changed at run time, resets; and a world of 10,000 sites.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate sites=10000,pages=5
P=$TESTWEB_PORT C=$TESTWEB_CTL

is "$(curl -s "$C/health" | jq .ok)" true "GET /health"
is "$(curl -s "$C/stats" | jq .sites)" 10000 "10,000 sites"
is "$(curl -s "$C/zone" | wc -l)" 10000 "GET /zone: one line per site"
is "$(curl -s "$C/zone" | tail -1)" "site9999.test 127.10.39.250" "the last one at 127.10.39.250"
w=$(curl -s "$C/world")
is "$(jq .port <<<"$w")" "$P" "GET /world: the sites' port"
is "$(jq .generate.pages <<<"$w")" 5 "and the generator options"
for i in 0 4321 9999; do
  a=$(tw_addr site$i.test)
  is "$(curl -s -o /dev/null -w '%{http_code}' "http://$a:$P/p/4.html")" 200 "site$i answers on $a"
done
is "$(curl -s "$C/sites" | jq length)" 3 "GET /sites lists the 3 sites that were asked"
is "$(curl -s "$C/sites?all=1" | jq length)" 10000 "?all=1 lists every site"
is "$(curl -s "$C/sites/127.10.17.72" | jq -r .name)" site4321.test "a site by its address"
is "$(curl -s -o /dev/null -w '%{http_code}' "$C/sites/nosuch.test")" 404 "an unknown site: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' "$C/nothing")" 404 "an unknown resource: 404"

# A site added at run time, reachable by its address and its name.
out=$(tw_add_site '{"name":"New.Test","address":"127.30.0.1","pages":2,"hold_ms":100}')
is "$(jq -r .name <<<"$out")" new.test "POST /sites adds a site (name lower-cased)"
is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.30.0.1:$P/p/1.html")" 200 "reachable by address"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: new.test' "http://127.0.0.1:$P/")" 200 "and by name"
ok "it is in the zone now" bash -c "curl -s '$C/zone' | grep -qx 'new.test 127.30.0.1'"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data '{"name":"site1.test"}' "$C/sites")" \
  409 "a taken name: 409"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data '{"name":"x.test","bogus":1}' "$C/sites")" \
  400 "an unknown key: 400"
ok "with the reason" bash -c "curl -s -X POST --data '{\"name\":\"x.test\",\"bogus\":1}' '$C/sites' | jq -r .error | grep -q bogus"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data '{' "$C/sites")" 400 "bad JSON: 400"

# Changing a site's behaviour at run time; its record stays.
is "$(tw_site_field new.test .request_count)" 2 "the new site has its record"
tw_put_site new.test '{"pages":2,"paths":{"/gone":{"kind":"status","variant":"410"}}}' >/dev/null
is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.30.0.1:$P/gone")" 410 "PUT: a new path"
t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.30.0.1:$P/")
cmp_le "$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')" 90 "PUT: hold_ms=100 is gone"
is "$(tw_site_field new.test .request_count)" 4 "the record stayed"
tw_reset new.test
is "$(tw_site_field new.test .request_count)" 0 "POST /sites/KEY/reset"
is "$(tw_site_field site4321.test .request_count)" 1 "other sites keep theirs"
tw_reset
is "$(tw_stats | jq .requests)" 0 "POST /reset: counters are zero"
is "$(curl -s "$C/sites" | jq length)" 0 "and no site was asked"
stop_testweb
is "$?" 0 "clean exit with 10,000 sites"
done_testing
