/**
 * ALMANAC_REDIS_URL: the keys document (keys, accounts, projects, subscriptions,
 * exceptions, the approval queue) and the token reviews live in Redis as two RedisDocs
 * (redis-doc.ts), so every server and every CLI on any machine sees one copy (issue 14).
 *
 * - Writers (the keys and review CLIs, server/redis-cli.ts) run the same pure transitions
 *   under a compare-and-set; the keys document's audit events are RPUSHed to
 *   `almanac:doc:keys:log` in the same script, so a transition and its audit lines land
 *   together or not at all (a kill -9 of a CLI loses nothing it reported done).
 * - Servers hold a copy in memory (KeyStore/ReviewStore in external mode: the request path
 *   stays synchronous and costs no round trip). Every write PUBLISHes its new version; a
 *   subscriber re-reads at once, and a poll of both versions every POLL_MS (two GETs, one
 *   round trip) catches a message missed while the subscriber reconnected. So a revoke
 *   applies within POLL_MS plus one read of the document, usually within milliseconds.
 * - Redis unreachable at startup: refuse, naming the URL without its password. While
 *   running: keep serving the last copy read, log once per 10 s, catch up when it is back.
 * - First start on an empty Redis: a local keys.json / reviews.json is copied in once
 *   (only while Redis has none: a compare-and-set at version 0), logged, with an audit event.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createClient } from '@redis/client';
import { emptyDoc, parseKeyFile, type KeyDoc } from './accounts.ts';
import { KeyStore } from './keys.ts';
import { RedisDoc } from './redis-doc.ts';
import { ReviewStore, useReviews, type ReviewFile } from './reviews.ts';

export const POLL_MS = 1000;

/** The URL as it may be printed: never a password. */
export const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//…@');

// Quick refusal at startup (a few attempts, then the error); after that, reconnect for ever.
const newClient = (url: string, isUp: () => boolean) => createClient({
  url,
  disableOfflineQueue: true,
  socket: {
    connectTimeout: 2000,
    reconnectStrategy: (retries: number, err: Error) => (isUp() ? Math.min(50 * 2 ** retries, 2000) : retries >= 3 ? err : 200),
  },
});
type Client = ReturnType<typeof newClient>;

/** Connects, or throws naming the URL (redacted) after a few quick attempts; later drops reconnect by themselves. */
export async function connectState(url: string, log: (m: string) => void = (m) => console.error(m)): Promise<Client> {
  let up = false;
  let warned = 0;
  const client = newClient(url, () => up);
  client.on('error', (err: Error) => {
    if (up && Date.now() - warned > 10_000) {
      warned = Date.now();
      log(`redis ${redact(url)}: ${err.message}; keys and reviews keep serving the last copy read`);
    }
  });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot reach Redis at ${redact(url)} (ALMANAC_REDIS_URL): ${(err as Error).message}`);
  }
  up = true;
  return client;
}

export const keysDoc = (c: Client) => new RedisDoc<KeyDoc>(c, 'keys', emptyDoc);
export const reviewsDoc = (c: Client) => new RedisDoc<ReviewFile>(c, 'reviews', () => ({ version: 1, reviews: {} }));

/**
 * Copies the state folder's keys.json and reviews.json into Redis when Redis has none yet
 * (version 0). Runs at every server start and CLI run; after the first it does nothing.
 */
export async function seed(c: Client, dir: string, by: string, log: (m: string) => void) {
  const keysFile = path.join(dir, 'keys.json');
  const kd = keysDoc(c);
  if (existsSync(keysFile) && (await kd.version()) === 0) {
    const doc = parseKeyFile(readFileSync(keysFile, 'utf8'), keysFile);
    const event = { rev: doc.rev, at: new Date().toISOString(), by, what: 'document.seed', from: keysFile, keys: Object.keys(doc.keys).length };
    const r = await kd.change(() => ({ next: doc, result: undefined, log: [JSON.stringify(event)] }), 0);
    if (r.written) log(`redis: seeded the keys document from ${keysFile} (${event.keys} keys); from now on Redis holds it and ${keysFile} is not read`);
  }
  const reviewsFile = path.join(dir, 'reviews.json');
  const rd = reviewsDoc(c);
  if (existsSync(reviewsFile) && (await rd.version()) === 0) {
    const local = new ReviewStore(dir);
    const r = await rd.change(() => ({ next: { version: 1 as const, reviews: Object.fromEntries(local.all().map((x) => [x.token, x])) }, result: undefined }), 0);
    if (r.written) log(`redis: seeded the reviews from ${reviewsFile} (${local.all().length}); from now on Redis holds them`);
  }
}

export interface RedisState {
  keys: KeyStore;
  reviews: ReviewStore;
  /** Re-reads whatever changed (what the subscriber and the poll call). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** A server's copies of the keys document and the reviews, kept current (see the top of this file). */
export async function redisState(url: string, dir: string, log: (m: string) => void = (m) => console.error(m), opts: { now?: () => number; pollMs?: number } = {}): Promise<RedisState> {
  const client = await connectState(url, log);
  await seed(client, dir, 'server', log);
  const kd = keysDoc(client), rd = reviewsDoc(client);
  const keys = new KeyStore(dir, log, { now: opts.now, external: true });
  const reviews = new ReviewStore(dir);
  let kv = -1, rv = -1;
  async function refresh() {
    const [k, r] = await Promise.all([kd.version(), rd.version()]);
    if (k !== kv) {
      const got = await kd.read();
      // parseKeyFile validates as for the file, so a bad document is refused, not served.
      if (got.version > kv) keys.adopt(parseKeyFile(JSON.stringify(got.doc), 'redis almanac:doc:keys'));
      kv = Math.max(kv, got.version);
    }
    if (r !== rv) {
      const got = await rd.read();
      if (got.version > rv) reviews.adopt(got.doc, `redis:${got.version}`);
      rv = Math.max(rv, got.version);
    }
  }
  await refresh();
  useReviews(dir, reviews);

  let busy: Promise<void> | undefined;
  let warned = 0;
  const check = () => {
    busy ??= refresh().catch((err) => {
      if (Date.now() - warned > 10_000) {
        warned = Date.now();
        log(`redis ${redact(url)}: cannot re-read keys and reviews (${(err as Error).message}); serving the last copy read`);
      }
    }).finally(() => { busy = undefined; });
    return busy;
  };
  const sub = client.duplicate();
  sub.on('error', () => {}); // the main client reports; the subscriber reconnects and resubscribes by itself
  await sub.connect();
  await sub.subscribe([kd.channel, rd.channel], () => void check());
  const timer = setInterval(check, opts.pollMs ?? POLL_MS);
  timer.unref();
  return {
    keys, reviews, refresh: check,
    close: async () => {
      clearInterval(timer);
      for (const c of [sub, client]) {
        try {
          await c.close();
        } catch {
          c.destroy();
        }
      }
    },
  };
}
