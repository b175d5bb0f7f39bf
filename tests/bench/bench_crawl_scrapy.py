"""The baseline crawler of tests/bench/bench_crawl_scrapy.sh: Scrapy (Debian's
python3-scrapy) crawling the same testweb world as wpfs-discover, with the
same politeness: robots.txt obeyed, one request per site at a time, the
same delay between two requests to a site. Site names site<i>.test resolve
by testweb's rule (127.10.<i/250>.<i%250+1>), as dnsmasq does for wpfs.
Prints one JSON line: pages (responses), seconds.

  /usr/bin/python3 bench_crawl_scrapy.py SEEDS_FILE DELAY_S CONCURRENCY
"""
import json
import re
import sys
import time

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

SITE = re.compile(r"site(\d+)\.test")


class TestwebResolver(CachingThreadedResolver):
    def getHostByName(self, name, timeout=()):
        m = SITE.fullmatch(name)
        if m:
            i = int(m.group(1))
            return defer.succeed("127.10.%d.%d" % (i // 250, i % 250 + 1))
        return super().getHostByName(name, timeout)


class BenchSpider(scrapy.Spider):
    name = "bench"

    def __init__(self, seeds, **kw):
        super().__init__(**kw)
        self.start_urls = seeds
        self.links = LinkExtractor()  # its default denylist of non-page extensions

    def parse(self, response):
        if b"text/html" not in response.headers.get("Content-Type", b""):
            return
        for link in self.links.extract_links(response):
            yield response.follow(link.url, self.parse)


def main():
    seeds = [l.strip() for l in open(sys.argv[1]) if l.strip()]
    delay, concurrency = float(sys.argv[2]), int(sys.argv[3])
    process = CrawlerProcess(settings={
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": True,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": delay,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "REDIRECT_ENABLED": True,
        "USER_AGENT": "scrapy-bench",
        "DNS_RESOLVER": "__main__.TestwebResolver",
        "REACTOR_THREADPOOL_MAXSIZE": 4,
    })
    crawler = process.create_crawler(BenchSpider)
    start = time.monotonic()
    process.crawl(crawler, seeds=seeds)
    process.start()
    secs = time.monotonic() - start
    stats = crawler.stats.get_stats()
    print(json.dumps({"pages": stats.get("response_received_count", 0), "seconds": round(secs, 3)}))


if __name__ == "__main__":
    main()
