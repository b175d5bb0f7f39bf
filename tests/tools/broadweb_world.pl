#!/usr/bin/perl
# The broad web: many small sites under real DNS names, most sharing a few
# loopback addresses the way shared hosting shares them, written as files
# for nginx to serve, plus everything a test or a benchmark needs to check
# a crawl of it against. Deterministic: the same arguments give the same
# world, byte for byte.
#
#   broadweb_world.pl DIR HOSTS SEED TLS_PORT HTTP_PORT [IPS]
#
# Hosts are <word><i>.z<i/100>.test (100 host names per registrable
# domain, so that per-domain limits do not bite in a world of thousands).
# Each host has a kind (drawn from the seed):
#   live     served by nginx on one of IPS addresses 127.60.0.1..
#   slow     the same, its pages of about 8 KB sent at 4 KB/s by nginx (about 1 s each)
#   dead     not in the zone: NXDOMAIN
#   refuse   127.61.0.1, where nothing listens: connection refused
#   hang     127.62.0.1, where a server accepts and never answers
# and (live and slow hosts) a robots.txt:
#   allow    "Disallow:" (everything allowed)
#   disallow "Disallow: /private/", some pages link into /private/
#   delay    "Crawl-delay: 1"
#   missing  no robots.txt (404: everything allowed)
#   e503     robots.txt answers 503 (everything disallowed for now)
# A fifth of the hosts are http://, the rest https:// (a certificate for
# *.zK.test from the test's own CA). Some robots.txt name a sitemap of the
# host's pages.
#
# Pages: 1..20 per host (at most 6 on slow hosts, whose pages take a
# second each), page 0 at /, page j at /p/<j>.html. Each links to the next
# page (every page is reachable from /), then 2..5 links: about 10 % to a
# page of another host (any kind), else to a page of the same host.
#
# The site-dense web (BROADWEB_DENSE=PAGES in the environment): every host
# live, robots.txt allowing everything, PAGES pages of 7-8 KiB each with
# 25-35 links, a third of them to other hosts; BROADWEB_SCHEME=http or
# https puts every host on that scheme. Without them the world is the one
# above, byte for byte.
#
# Files written in DIR:
#   sites/<host>/...   the trees nginx serves (root sites/$host)
#   hosts              "address name" lines for dnsmasq (dead hosts absent)
#   seeds              every host's home page
#   world.tsv          host kind robots scheme address pages sitemap
#   expect.tsv         url host kind robots what: every URL a crawler that
#                      starts from the seeds reaches, and what must become
#                      of it: page (200), disallowed (robots.txt refuses it)
#                      or unavailable (no page: robots.txt or host unreachable)
#   rate.map, r503.map nginx map bodies: per-host limit_rate, robots 503
#   zones              the domains (zK.test), one a line, for the certificate
use strict;
use warnings;

my ($dir, $n, $seed, $tls_port, $http_port, $ips) = @ARGV;
die "usage: $0 DIR HOSTS SEED TLS_PORT HTTP_PORT [IPS]\n" unless defined $http_port;
$ips ||= 4;
my $dense = $ENV{BROADWEB_DENSE} || 0;
my $only = $ENV{BROADWEB_SCHEME} || '';
die "BROADWEB_SCHEME: http or https\n" if $only && $only !~ /^https?$/;
srand($seed);

my @words = qw(shop blog news wiki club forum photo cafe hotel garden books music
               travel sport school church studio bakery farm market);
my (@host, @kind, @robots, @scheme, @addr, @pages, @sitemap);
for my $i (0 .. $n - 1) {
  $host[$i] = $words[int(rand(@words))] . $i . ".z" . int($i / 100) . ".test";
  my $k = rand();
  $kind[$i] = $k < 0.05 ? 'dead' : $k < 0.08 ? 'refuse' : $k < 0.10 ? 'hang'
            : $k < 0.15 ? 'slow' : 'live';
  my $r = rand();
  $robots[$i] = $r < 0.25 ? 'allow' : $r < 0.60 ? 'disallow' : $r < 0.70 ? 'delay'
              : $r < 0.85 ? 'missing' : 'e503';
  $scheme[$i] = rand() < 0.2 ? 'http' : 'https';
  $addr[$i] = $kind[$i] eq 'refuse' ? '127.61.0.1'
            : $kind[$i] eq 'hang'   ? '127.62.0.1'
            : '127.60.0.' . (1 + $i % $ips);
  my $max = $kind[$i] eq 'slow' ? 6 : 20;
  $pages[$i] = 1 + int(rand($max));
  $sitemap[$i] = ($robots[$i] ne 'missing' && rand() < 0.3) ? 1 : 0;
  ($kind[$i], $robots[$i], $pages[$i], $sitemap[$i]) = ('live', 'allow', $dense, 0) if $dense;
  $scheme[$i] = $only if $only;
  $addr[$i] = '127.60.0.' . (1 + $i % $ips) if $dense;
}

sub origin { my $i = shift; "$scheme[$i]://$host[$i]:" . ($scheme[$i] eq 'https' ? $tls_port : $http_port) }
sub page_path { my $j = shift; $j == 0 ? '/' : "/p/$j.html" }
sub served { my $i = shift; $kind[$i] eq 'live' || $kind[$i] eq 'slow' }
# What becomes of a URL of host i at path p.
sub fate {
  my ($i, $p) = @_;
  return 'unavailable' unless served($i) && $robots[$i] ne 'e503';
  return 'disallowed' if $robots[$i] eq 'disallow' && $p =~ m{^/private/};
  return 'page';
}

sub wfile {
  my ($path, $text) = @_;
  open(my $f, '>', $path) or die "$path: $!\n";
  print $f $text;
  close($f) or die "$path: $!\n";
}

mkdir $dir;
mkdir "$dir/sites";
my %expect;    # url -> [host index, what]
# Words of 1..3 random syllables: every page's text is its own, so that no
# two pages are near duplicates (a crawler follows no links of those).
my @syl = map { my $c = $_; map { "$c$_" } qw(a e i o u) } qw(b d f g k l m n p r s t v z);
sub word { join('', map { $syl[int(rand(@syl))] } 0 .. int(rand(3))) }
for my $i (0 .. $n - 1) {
  my $o = origin($i);
  $expect{"$o/"} = [$i, fate($i, '/')];    # the seed
  next unless served($i);
  my $d = "$dir/sites/$host[$i]";
  mkdir $d;
  mkdir "$d/p";
  for my $j (0 .. $pages[$i] - 1) {
    my @links;    # [href, host index]
    push @links, [page_path($j + 1), $i] if $j + 1 < $pages[$i];
    for (1 .. ($dense ? 25 + int(rand(11)) : 2 + int(rand(4)))) {
      if (rand() < ($dense ? 1 / 3 : 0.1)) {
        my $t = int(rand($n));
        push @links, [origin($t) . page_path(int(rand($pages[$t]))), $t];
      } else {
        push @links, [page_path(int(rand($pages[$i]))), $i];
      }
    }
    push @links, ["/private/$j.html", $i] if $robots[$i] eq 'disallow' && rand() < 0.3;
    my $slow = $kind[$i] eq 'slow';
    my $words = $slow ? 1400 : $dense ? 900 + int(rand(200)) : 100 + int(rand(400));
    my $body = "<!DOCTYPE html>\n<html><head><title>$host[$i] page $j</title></head><body>\n"
             . "<h1>$host[$i] page $j</h1>\n<p>"
             . join(' ', map { word() } 1 .. $words) . "</p>\n<ul>\n";
    my $got = fate($i, page_path($j)) eq 'page';
    for my $l (@links) {
      my ($href, $t) = @$l;
      $body .= "<li><a href=\"$href\">$href</a></li>\n";
      my ($abs, $path) = $href =~ m{^/} ? ("$o$href", $href) : ($href, $href =~ m{^\w+://[^/]+(/.*)$});
      # Only the links of a page the crawler gets are reached.
      $expect{$abs} //= [$t, fate($t, $path)] if $got;
    }
    wfile($j == 0 ? "$d/index.html" : "$d/p/$j.html", "$body</ul>\n</body></html>\n");
  }
  my $r = $robots[$i];
  next if $r eq 'missing';
  my $rt = "User-agent: *\n";
  $rt .= $r eq 'disallow' ? "Disallow: /private/\n" : "Disallow:\n";
  $rt .= "Crawl-delay: 1\n" if $r eq 'delay';
  if ($sitemap[$i]) {
    $rt .= "Sitemap: $o/sitemap.xml\n";
    my $sm = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           . "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
    $sm .= "<url><loc>$o" . page_path($_) . "</loc></url>\n" for 0 .. $pages[$i] - 1;
    wfile("$d/sitemap.xml", "$sm</urlset>\n");
    $expect{"$o/sitemap.xml"} = [$i, fate($i, '/sitemap.xml')] if $r ne 'e503';
  }
  wfile("$d/robots.txt", $rt);
}

my ($hosts, $seeds, $world, $rate, $r503, $exp) = ('', '', '', '', '', '');
for my $i (0 .. $n - 1) {
  $hosts .= "$addr[$i] $host[$i]\n" unless $kind[$i] eq 'dead';
  $seeds .= origin($i) . "/\n";
  $world .= join("\t", $host[$i], $kind[$i], $robots[$i], $scheme[$i], $addr[$i],
                 $pages[$i], $sitemap[$i]) . "\n";
  $rate .= "$host[$i] 4k;\n" if $kind[$i] eq 'slow';
  $r503 .= "$host[$i] 1;\n" if served($i) && $robots[$i] eq 'e503';
}
for my $u (sort keys %expect) {
  my ($i, $what) = @{$expect{$u}};
  $exp .= join("\t", $u, $host[$i], $kind[$i], $robots[$i], $what) . "\n";
}
wfile("$dir/hosts", $hosts);
wfile("$dir/seeds", $seeds);
wfile("$dir/world.tsv", $world);
wfile("$dir/rate.map", $rate);
wfile("$dir/r503.map", $r503);
wfile("$dir/expect.tsv", $exp);
wfile("$dir/zones", join('', map { "z$_.test\n" } 0 .. int(($n - 1) / 100)));
