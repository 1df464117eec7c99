/** `npm run fetch`: download pinned upstream inputs into the cache (ALMANAC_MIRROR replaces origins). */
import { ALL_SOURCES } from '../sources/index.ts';
import { isMain, parseCli } from './cli.ts';
import { fetchAll } from './fetch.ts';

if (isMain(import.meta.url)) {
  parseCli('fetch', 'usage: npm run fetch\n  downloads every pinned upstream input into the fetch cache (ALMANAC_CACHE); ALMANAC_MIRROR=<folder> reads a mirror laid out as <host>/<path> instead of the network', {});
  const outcomes = await fetchAll(ALL_SOURCES);
  const n = (s: string) => outcomes.filter((o) => o.status === s).length;
  console.log(`fetch: ${n('fetched')} fetched, ${n('cached')} already cached, ${n('failed')} unavailable` +
    (outcomes.length ? '' : ' (no source declares a URL input)'));
}
