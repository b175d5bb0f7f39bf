#!/bin/bash
# timeout: 120
# Real HTML, not testweb's: ten documentation trees that Debian packages
# ship (mk/packages.txt installs them), written by as many generators, from
# hand-written pages to Sphinx; two in ISO-8859-1 (one with Latin-1 bytes,
# some in pages that declare no charset), one with inline SVG and a page
# of 8 MiB, one given a robots.txt. nginx
# serves them as they are on loopback, one address per tree; wpfs-discover
# crawls them through the whole stack, and an independent crawler, wget2
# -r --robots=on, crawls them too. A tree's URL sets are what nginx saw
# each crawler ask (its access log, by User-Agent), and every difference
# is put in a class with its reason, asserted URL by URL:
#   denied     an extension of wpfs-discover's deny list (images,
#              stylesheets, scripts): wget2 takes a page's <img src>,
#              <script src>, <link rel=stylesheet> and a stylesheet's url()
#              as links to fetch, where wpfs-discover follows the
#              navigation only (a, area, frame, iframe, link rel=alternate,
#              meta refresh); and <a href> to an image (pod2html's
#              figures) is refused by extension (drop_extension);
#   nofollow   wget2 follows <a rel=nofollow>; wpfs-discover does not
#              (unless --follow-nofollow), and counts each one;
#   spelling   one URL written two ways: an '@' in a path (libxslt's page
#              links a bare e-mail address), which wpfs-discover keeps as
#              RFC 3986 allows and wget2 percent-encodes (%40): the same
#              path to the server, asked by both;
# and nothing else: wpfs-discover asks nothing wget2 does not (but for
# its spelling of the same URLs), and every
# HTML page wget2 reached, wpfs-discover reached. Both obey robots.txt,
# stay on the seeds' hosts (wpfs-discover's drop_scope: the packages'
# links to their projects' sites) and get the same 404s (links to files
# a package does not ship). The duplicates the crawler finds are pinned
# too (one file by two URLs; one near-identical copyright page).
# Figures (pages, links, per-tree differences) are printed as comments.
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=realweb-token
# name | generator | root | a page of the tree | what that generator
# writes in it (the front pages of PAM and Lua are hand-written)
TREES=(
  "jansson|Sphinx 4 (docutils 0.17)|/usr/share/doc/libjansson-dev/html|index.html|content=\"Docutils"
  "gcrypt|texinfo (makeinfo)|/usr/share/doc/libgcrypt20-doc/html|index.html|content=\"makeinfo"
  "pam|DocBook XSL|/usr/share/doc/libpam-doc/html|Linux-PAM_SAG.html|DocBook XSL Stylesheets"
  "jsonc|Doxygen 1.9|/usr/share/doc/libjson-c-dev/html|index.html|content=\"Doxygen"
  "tasn1|gtk-doc 1.33|/usr/share/gtk-doc/html/libtasn1|index.html|GTK-Doc"
  "lua|hand-written (2006), ISO-8859-1|/usr/share/doc/lua5.1-doc/doc|manual.html|charset=iso-8859-1"
  "modperl|pod2html (DocSet)|/usr/share/doc/libapache2-mod-perl2-doc|index.html|INDEX BEGIN"
  "gettext|texi2html 1.78, groff, javadoc|/usr/share/doc/gettext|index.html|texi2html 1.78"
  "xslt|xsltproc site, Latin-1 bytes|/usr/share/doc/libxslt1-dev/html|index.html|charset=ISO-8859-1"
  "node|Node.js v20 doc tool, inline SVG|/usr/share/doc/nodejs/api|index.html|<svg xmlns"
)
# the crawler's extension deny list, from its source
DENY=$(sed -n '/^#define LINKFILTER_DENY_EXT_DEFAULT/,/^$/p' "$WPFS_ROOT/clients/crawl/linkfilter.h" |
  grep -o '"[^"]*"' | tr -d '"\n')
field() { cut -d'|' -f"$2" <<<"$1"; }
command -v wget2 >/dev/null && command -v nginx >/dev/null || bail "wget2 or nginx missing: make deps"
notgen=0
for t in "${TREES[@]}"; do
  root=$(field "$t" 3)
  [ -f "$root/index.html" ] || bail "$root/index.html is missing: make deps installs the corpus"
  grep -qF "$(field "$t" 5)" "$root/$(field "$t" 4)" ||
    { notgen=$((notgen + 1)); echo "# $(field "$t" 1): not $(field "$t" 2)"; }
done
is "$notgen" 0 "the corpus: ${#TREES[@]} trees, each from its generator"

# nginx: one server per tree on 127.41.0.N, its own access log of who
# asked what, with the answer's status and type and the Referer.
PORT=$(freeport)
DISALLOW=/docs/2.0/os/
mkdir -p "$T_DIR/nginx"
{
  cat <<CONF
daemon off;
master_process off;
worker_processes 1;
error_log $T_DIR/nginx/error.log crit;
pid $T_DIR/nginx/nginx.pid;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  log_format corpus '\$http_user_agent\t\$status\t\$request_uri\t\$sent_http_content_type\t\$http_referer';
  client_body_temp_path $T_DIR/nginx/body;
  proxy_temp_path $T_DIR/nginx/proxy;
  fastcgi_temp_path $T_DIR/nginx/fastcgi;
  uwsgi_temp_path $T_DIR/nginx/uwsgi;
  scgi_temp_path $T_DIR/nginx/scgi;
CONF
  k=0
  for t in "${TREES[@]}"; do
    k=$((k + 1))
    echo "  server { listen 127.41.0.$k:$PORT; root $(field "$t" 3);"
    echo "           access_log $T_DIR/nginx/$(field "$t" 1).log corpus;"
    # one tree has a robots.txt, which both crawlers obey
    [ "$(field "$t" 1)" = modperl ] &&
      echo "           location = /robots.txt { default_type text/plain; return 200 \"User-agent: *\\nDisallow: $DISALLOW\\n\"; }"
    echo "  }"
  done
  echo "}"
} >"$T_DIR/nginx.conf"
bg nginx nginx -e "$T_DIR/nginx/error.log" -p "$T_DIR/nginx" -c "$T_DIR/nginx.conf"
wait_for 10 curl -sf -A corpus-probe -o /dev/null "http://127.41.0.1:$PORT/" || bail "nginx did not start"
for k in $(seq 1 ${#TREES[@]}); do echo "http://127.41.0.$k:$PORT/"; done >"$T_DIR/seeds"

# wget2 first, then the stack: the logs tell them apart by User-Agent.
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t0=$(ms)
(cd "$T_DIR" && wget2 -q -r -l inf --robots=on --tries=1 --timeout=10 -P "$T_DIR/wget2" \
  -U corpus-wget2 -i "$T_DIR/seeds" >"$T_DIR/wget2.log" 2>&1)
w_ms=$(($(ms) - t0))
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn
t0=$(ms)
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --log-level warn --progress=false >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover crawled the corpus to the end"
echo "# wall time: wget2 $w_ms ms, wpfs-discover $(($(ms) - t0)) ms"
S=$(tail -1 "$T_DIR/summary")
sum() { jq -r ".$1" <<<"$S"; }
LOG=$T_DIR/out/crawl.jsonl
is "$(sum fetch_errors)/$(sum rejected)" "0/0" "no fetch error, nothing refused"

# The URLs each crawler asked of a tree (robots.txt apart), as files.
asked() {  # tree who(wget2|wpfs) [status-and-type filter]
  awk -F'\t' -v who="$2" -v html="${3:-}" '
    $1 != "corpus-probe" && ($1 == "corpus-wget2") == (who == "wget2") && $3 != "/robots.txt" &&
    (html == "" || ($2 == 200 && $4 ~ /^text\/html/)) { print $3 }' \
    "$T_DIR/nginx/$1.log" | sort -u
}
# The file a referring page came from: its path under the tree's root.
ref_file() {  # root referer
  local p=${2#http://*/}
  p=${p%%[?#]*}
  [ -z "$p" ] || [ "${p%/}" != "$p" ] && p=${p}index.html
  echo "$1/$p"
}
# A path as the server reads it: percent escapes decoded.
decoded() { local u=${1//\\/\\\\}; printf '%b\n' "${u//%/\\x}"; }
ext_denied() { local e=${1##*/}; e=${e##*.}; [[ ,$DENY, == *,${e,,},* ]] && [ "$e" != "${1##*/}" ]; }
# The tag of the referring page that names the URL's last segment: the
# anchor with rel=nofollow it must be.
nofollow_anchor() {  # file url
  tr '\n' ' ' <"$1" | grep -oE "<a [^>]*href=\"[^\"]*${2##*/}\"[^>]*>" | grep -q 'rel="nofollow"'
}

tot_w=0 tot_p=0 tot_html=0 tot_req=0 tot_nof=0 tot_sp=0 bad=0 only_p=0 html_diff=0
printf '# %-8s %-32s %6s %6s %6s %6s %6s %8s %8s\n' tree generator wget2 wpfs html links denied nofollow spelling
k=0
for t in "${TREES[@]}"; do
  k=$((k + 1))
  name=$(field "$t" 1) root=$(field "$t" 3)
  asked "$name" wget2 >"$T_DIR/$name.w"
  asked "$name" wpfs >"$T_DIR/$name.p"
  asked "$name" wget2 html >"$T_DIR/$name.wh"
  asked "$name" wpfs html >"$T_DIR/$name.ph"
  comm -13 "$T_DIR/$name.w" "$T_DIR/$name.p" | while IFS= read -r u; do decoded "$u"; done \
    >"$T_DIR/$name.p1"
  cmp -s "$T_DIR/$name.wh" "$T_DIR/$name.ph" || { html_diff=$((html_diff + 1)); echo "# $name: HTML pages differ"; }
  req=0 nof=0 sp=0
  while IFS= read -r u; do
    if grep -qxF "$(decoded "$u")" "$T_DIR/$name.p1"; then
      sp=$((sp + 1)); continue  # the same path, spelled otherwise by wpfs-discover
    fi
    # the page that named it, as wget2 said (its Referer)
    r=$(awk -F'\t' -v u="$u" '$1 == "corpus-wget2" && $3 == u { print $5; exit }' "$T_DIR/nginx/$name.log")
    rp=/${r#http://*/}
    if grep -qxF "$rp" "$T_DIR/$name.p" && nofollow_anchor "$(ref_file "$root" "$r")" "$u"; then
      nof=$((nof + 1))
    elif ext_denied "$u" && { grep -qxF "$rp" "$T_DIR/$name.p" || [[ $rp == *.css ]]; }; then
      req=$((req + 1))   # from a page wpfs-discover read, or from a stylesheet
    else
      bad=$((bad + 1)); echo "# $name: unexplained: wget2 asked $u (from $r), wpfs-discover did not"
    fi
  done < <(comm -23 "$T_DIR/$name.w" "$T_DIR/$name.p")
  only_p=$((only_p + $(wc -l <"$T_DIR/$name.p1") - sp))
  links=$(jq -s --arg h "127.41.0.$k:" '[.[] | select(.url | contains("//" + $h)) | .links] | add' "$LOG")
  printf '# %-8s %-32s %6d %6d %6d %6d %6d %8d %8d\n' "$name" "$(field "$t" 2)" \
    "$(wc -l <"$T_DIR/$name.w")" "$(wc -l <"$T_DIR/$name.p")" "$(wc -l <"$T_DIR/$name.ph")" \
    "$links" "$req" "$nof" "$sp"
  tot_w=$((tot_w + $(wc -l <"$T_DIR/$name.w"))) tot_p=$((tot_p + $(wc -l <"$T_DIR/$name.p")))
  tot_html=$((tot_html + $(wc -l <"$T_DIR/$name.ph"))) tot_req=$((tot_req + req)) tot_nof=$((tot_nof + nof))
  tot_sp=$((tot_sp + sp))
done
echo "# all: wget2 asked $tot_w URLs, wpfs-discover $tot_p ($tot_html HTML pages, $(sum links) links);" \
  "wget2 only: $tot_req denied by extension, $tot_nof nofollow; $tot_sp spelled otherwise"

is "$only_p" 0 "wpfs-discover asked nothing that wget2 did not (but spelled otherwise)"
is "$html_diff" 0 "every tree: the same HTML pages reached by both"
is "$bad" 0 "every URL only wget2 asked has a denied extension, is a nofollow link or is spelled otherwise"
is "$tot_sp" 1 "spelled otherwise: one bare e-mail address, its '@' kept by wpfs-discover, %40 by wget2"
is "$((tot_p + $(sum robots)))" "$(sum pages)" \
  "the crawl log records every URL wpfs-discover asked (and those robots.txt disallows)"
cmp_ge "$tot_html" 300 "the corpus has its 300-odd pages"
cmp_ge "$tot_req" 80 "denied by extension: the images, stylesheets and scripts of the pages"
cmp_ge "$(sum drop_extension)" 1 "...some of them named by <a href>, refused by extension"
is "$tot_nof" "$(sum drop_nofollow)" "nofollow: each link wpfs-discover left is one wget2 took"
cmp_ge "$tot_nof" 8 "...Sphinx's 'Show Source' links among them"
# Links to files the packages do not ship: the same 404s, but for the
# denied extensions (a stylesheet's url() of an image not shipped).
e404() {  # who
  awk -F'\t' -v who="$1" '($1 == "corpus-wget2") == (who == "wget2") && $2 == 404 && $3 != "/robots.txt" { print $3 }' \
    "$T_DIR"/nginx/*.log | while IFS= read -r u; do ext_denied "$u" || decoded "$u"; done | sort -u
}
is "$(e404 wpfs | tr '\n' ' ')" "$(e404 wget2 | tr '\n' ' ')" "both got the same 404s"
is "$(sum http_errors)" "$(e404 wpfs | wc -l)" "...which the crawler counts"

# robots.txt: the pages it disallows are asked by neither crawler; the
# gateway refused each link to them, and the crawler recorded it.
is "$(awk -F'\t' -v d="$DISALLOW" 'index($3, d) == 1' "$T_DIR/nginx/modperl.log" | wc -l)" 0 \
  "robots.txt: nothing under $DISALLOW asked by either crawler"
is "$(jq -r 'select(.outcome == "robots_disallowed") | .url' "$LOG" | grep -c "$DISALLOW")" \
  "$(sum robots)" "...each link there refused by the gateway (robots_disallowed)"
cmp_ge "$(sum robots)" 1 "...some of them"

# Inline SVG: on the Node.js front page, all.html and index.json are
# linked only after its two inline <svg> (the theme toggle): both were
# found one hop from the seed, so what follows an inline SVG is read.
for f in all.html index.json; do
  is "$(jq -r --arg f ":$PORT/$f" 'select(.url | startswith("http://127.41.0.10") and endswith($f)) | .depth' "$LOG")" 1 \
    "inline SVG: $f, linked after it, found from the front page"
done
# A page past the 2 MiB parse cap (all.html, the whole manual in 8 MiB)
# is fetched and stored whole and parsed in its first 2 MiB: what it
# links further on, the other pages link too (the same HTML pages reached).
is "$(sum html_cut)" 1 "one page parsed in part: past 2 MiB"
is "$(jq -r 'select(.url | startswith("http://127.41.0.10") and endswith("/all.html")) | .bytes' "$LOG")" \
  "$(stat -c %s /usr/share/doc/nodejs/api/all.html)" "...fetched whole"

# The ISO-8859-1 pages are parsed: the table of contents' link to the
# manual (its other links are fragments of it) is read.
is "$(jq -r 'select(.url | endswith("/contents.html")) | .links' "$LOG")" 1 \
  "the ISO-8859-1 contents page's link is read"

# Duplicates: exact ones are one file by two URLs ("/" and "/index.html",
# and gettext's front page is a link to its table of contents); the one near
# duplicate is the copyright page of one PAM guide, whose visible text is
# another guide's, word for word. The third guide's copyright page differs
# from those only in its chapter numbers (4 words), yet is not found a
# near duplicate of them (more than --near-distance 3 bits apart): that
# is what near-duplicate detection does now; when it is reworked, this
# assertion says what changed.
same=0 other=0
while read -r u d; do
  k=${u#http://127.41.0.}
  root=$(field "${TREES[$((${k%%:*} - 1))]}" 3)
  if cmp -s "$(ref_file "$root" "$u")" "$(ref_file "$root" "$d")"; then
    same=$((same + 1))
  else
    other=$((other + 1)); echo "# $u is not the file of $d"
  fi
done < <(jq -r 'select(.dup == "exact") | "\(.url) \(.duplicate_of)"' "$LOG")
echo "# exact duplicates: $same, near: $(sum dup_near)"
is "$same/$other" "$(sum dup_exact)/0" "exact duplicates: each one file by two URLs"
cmp_ge "$same" 4 "...the front pages"
# (which of the two is the original is the order they were fetched in)
is "$(jq -r 'select(.dup == "near") | [(.url, .duplicate_of) | sub(".*/"; "")] | sort | join(" ")' "$LOG")" \
  "mwg-copyright.html sag-copyright.html" "near duplicates: one PAM copyright page, of another"
is "$(jq -r 'select(.url | endswith("/adg-copyright.html")) | .duplicate_of' "$LOG")" null \
  "...not the third, its chapter numbers apart (recorded as an original)"
done_testing
