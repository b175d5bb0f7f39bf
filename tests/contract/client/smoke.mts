// Smoke test of a TypeScript client generated from openapi.yaml
// (openapi-typescript types + openapi-fetch) against a live stack: what a
// crawler written in TypeScript would do. Built by build.sh, run by
// tests/e2e/contract_client.sh with:
//   WPFS_HLFS_URL, WPFS_LLFS_URL, WPFS_TOKEN, WPFS_PAGES (space-separated
//   URLs of pages that exist), WPFS_DISALLOWED (a URL robots.txt refuses),
//   WPFS_FETCHER_SECRET (the fetcher's shared secret)
// Prints "PASS what" / "FAIL what: why" lines.
import createClient from 'openapi-fetch';
import type { components, paths } from './wpfs-api.js';

type Problem = components['schemas']['Problem'];

const env = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const token = env('WPFS_TOKEN');
const [page0, page1, page2] = env('WPFS_PAGES').split(' ') as [string, string, string];
const disallowed = env('WPFS_DISALLOWED');

// JSON answers typed as JSON (media types application/...); the raw page (format=raw,
// '*/*' in the contract) through a client of every media type.
const gw = createClient<paths, `application/${string}`>({
  baseUrl: env('WPFS_HLFS_URL'),
  headers: { Authorization: `Bearer ${token}` },
});
const gwRaw = createClient<paths>({
  baseUrl: env('WPFS_HLFS_URL'),
  headers: { Authorization: `Bearer ${token}` },
});
// the fetcher's routes want the gateways' shared secret (fetcherSecret)
const fetcher = createClient<paths>({
  baseUrl: env('WPFS_LLFS_URL'),
  headers: { Authorization: `Bearer ${env('WPFS_FETCHER_SECRET')}` },
});

let failed = 0;
function check(what: string, cond: boolean, why?: unknown): void {
  if (cond) console.log(`PASS ${what}`);
  else {
    failed++;
    console.log(`FAIL ${what}: ${JSON.stringify(why)}`);
  }
}

// Compile-time checks: the generated types refuse what the contract refuses.
// (tsc fails on an @ts-expect-error that expects nothing.)
async function neverCalled(): Promise<void> {
  // @ts-expect-error urls must be an array
  await gw.POST('/v1/batches', { body: { urls: 'http://a/' } });
  // @ts-expect-error wait_ms is a number
  await gw.POST('/v1/fetch', { body: { url: 'http://a/', wait_ms: 'soon' } });
  // @ts-expect-error url is required
  await gw.POST('/v1/fetch', { body: { wait_ms: 5 } });
  // @ts-expect-error no such route
  await gw.GET('/v1/nope');
  // @ts-expect-error path parameter required
  await gw.GET('/v1/sites/{site}', {});
  const { data } = await gw.GET('/v1/results', {});
  // @ts-expect-error outcome is a string, not a number
  const n: number | undefined = data?.results[0]?.outcome;
  void n;
}
void neverCalled;

async function main(): Promise<void> {
  // Health.
  {
    const { data, response } = await gw.GET('/healthz');
    check('healthz: 200 ok', response.status === 200 && data?.status === 'ok', data);
  }

  // Submit a batch: per-URL answers in order, each accepted with an id.
  const ids = new Map<string, string>();
  {
    const { data, error, response } = await gw.POST('/v1/batches', {
      body: { urls: [page0, { url: page1, priority: 5 }, 'ftp://x/'], max_age_s: -1 },
      headers: { 'X-Request-Id': 'ts-smoke-batch' },
    });
    check('batch: 200', response.status === 200, error);
    check('batch: request id echoed', response.headers.get('X-Request-Id') === 'ts-smoke-batch');
    check('batch: two accepted, one rejected',
      data?.accepted === 2 && data.rejected === 1 &&
      data.items.map((i) => i.status).join() === 'accepted,accepted,rejected', data);
    check('batch: the rejection says why', data?.items[2]?.reason === 'unsupported_scheme', data?.items[2]);
    for (const it of data?.items ?? []) if (it.id) ids.set(it.id, it.url);
  }

  // Read results until both arrive (long-poll), then acknowledge them.
  const read = () => gw.GET('/v1/results', { params: { query: { max: 100, wait_ms: 2000 } } });
  const got: NonNullable<Awaited<ReturnType<typeof read>>['data']>['results'] = [];
  const deadline = Date.now() + 30000;
  while (got.length < ids.size && Date.now() < deadline) {
    const { data, error } = await read();
    if (error) {
      check('results: read', false, error);
      break;
    }
    for (const r of data.results) if (ids.has(r.id) && !got.some((g) => g.id === r.id)) got.push(r);
  }
  check('results: both arrived', got.length === ids.size, got.map((r) => r.id));
  check('results: pages fetched, ok 200',
    got.every((r) => r.outcome === 'ok' && r.status === 200), got.map((r) => `${r.outcome} ${r.status}`));
  check('results: bodies inlined',
    got.every((r) => Buffer.from(r.body_base64 ?? '', 'base64').length > 0 && r.body_bytes === Buffer.from(r.body_base64 ?? '', 'base64').length));
  {
    const deliveries = got.map((r) => r.delivery).filter((d): d is string => !!d);
    const { data, error } = await gw.POST('/v1/results/ack', { body: { deliveries } });
    check('ack: every delivery acknowledged', data?.acked === deliveries.length, data ?? error);
  }

  // The synchronous fetch.
  {
    const { data, error, response } = await gw.POST('/v1/fetch', { body: { url: page2, wait_ms: 10000 } });
    check('fetch: 200 with the page', response.status === 200 && data?.outcome === 'ok' && data.status === 200, data ?? error);
    const body = Buffer.from(data?.body_base64 ?? '', 'base64').toString('utf8');
    check('fetch: the body is HTML', /<html/i.test(body), body.slice(0, 80));
  }
  {
    const { data, response } = await gwRaw.POST('/v1/fetch', {
      params: { query: { format: 'raw' } }, body: { url: page2, max_age_s: 3600 }, parseAs: 'text',
    });
    check('fetch raw: the page itself', response.status === 200 && typeof data === 'string' &&
      /<html/i.test(data) && /^text\/html/.test(response.headers.get('Content-Type') ?? ''), data);
    check('fetch raw: the outcome in X-Wpfs-Outcome', response.headers.get('X-Wpfs-Outcome') === 'cached',
      response.headers.get('X-Wpfs-Outcome'));
  }
  {
    const { data, error } = await gw.POST('/v1/fetch', { body: { url: disallowed } });
    check('fetch: robots.txt decides', data?.outcome === 'robots_disallowed', data ?? error);
  }

  // Site state and robots explanation.
  const site = new URL(page0).hostname;
  {
    const { data, error } = await gw.GET('/v1/sites/{site}', { params: { path: { site } } });
    check('site: state of the site', data?.site === site && typeof data.queued === 'number', data ?? error);
  }
  {
    const { data, error } = await gw.GET('/v1/robots', { params: { query: { url: disallowed } } });
    check('robots: explained', data?.allowed === false && data.rule_type === 'disallow', data ?? error);
  }
  {
    const { data } = await gw.GET('/v1/stats');
    check('stats: counters', typeof data === 'object' && data !== null && 'gateway' in data, data);
  }

  // Errors are typed problems.
  {
    const { data, error, response } = await gw.POST('/v1/fetch', { body: { url: 'gopher://x/' } });
    const p: Problem | undefined = error;
    check('error: 400 unsupported-scheme problem',
      data === undefined && response.status === 400 && p?.type === 'urn:wpfs:problem:unsupported-scheme' &&
      p.status === 400, error);
  }
  {
    const anon = createClient<paths>({ baseUrl: env('WPFS_HLFS_URL') });
    const { error, response } = await anon.GET('/v1/stats');
    check('error: 401 without a key', response.status === 401 && error?.type === 'urn:wpfs:problem:unauthorized', error);
  }
  {
    const { error, response } = await gw.GET('/v1/results', { params: { query: { max: 0 } } });
    check('error: 400 names the parameter', response.status === 400 && error?.field === 'max', error);
  }

  // The fetcher's internal API through the same generated types.
  {
    // Two representations of a 200 (JSON or framed): narrow to the JSON one.
    const { data, error } = await fetcher.POST('/internal/v1/fetch', { body: { url: page0, method: 'HEAD' } });
    const r = typeof data === 'object' ? data : undefined;
    check('llfs: fetch', r?.outcome === 'ok' && r.status === 200 && r.timings_us.total > 0, data ?? error);
  }
  {
    const { data, error } = await fetcher.GET('/internal/v1/resolve', { params: { query: { host: '127.0.0.1' } } });
    check('llfs: resolve a literal', data?.literal === true && data.addresses[0]?.address === '127.0.0.1', data ?? error);
  }
}

main().then(
  () => { process.exitCode = failed ? 1 : 0; },
  (e: unknown) => { console.log(`FAIL smoke test crashed: ${String(e)}`); process.exitCode = 1; },
);
