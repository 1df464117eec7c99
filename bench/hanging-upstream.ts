/**
 * How long an upstream that never answers holds the fetch (issue 40, item 1), with the
 * settings a night uses (ALMANAC_FETCH_TIMEOUT_S 60, 3 attempts, waits of 1 s and 4 s,
 * a source deadline of 15 min), against the documented bound: 3 × 60 + 1 + 4 = 185 s.
 *
 *   npx tsx bench/hanging-upstream.ts            (about 3 minutes; not part of npm test)
 *   ALMANAC_FETCH_TIMEOUT_S=5 npx tsx bench/hanging-upstream.ts   (a quick run: bound 20 s)
 *
 * A loopback upstream holds one input's request open forever and answers the source's
 * other input at once; garbage is collected every 100 ms meanwhile (the timeout used to be
 * collected before it fired: ~426 s). Prints the time, the bound and their ratio, the
 * other input's outcome, and the load average before and after (a busy machine only
 * delays the answer that comes, never the timer).
 */
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DatasetSource } from '../sources/contract.ts';
import { fetchAll } from '../pipeline/fetch.ts';

const timeoutS = Number(process.env.ALMANAC_FETCH_TIMEOUT_S ?? 60);
const bound = 3 * timeoutS + 1 + 4;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const server = createServer((req, res) => {
  if (req.url?.startsWith('/hang.example/')) return; // never answers
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok": true}');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const cache = mkdtempSync(path.join(tmpdir(), 'almanac-hang-'));
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const collecting = setInterval(gc, 100);

const source = {
  id: 'hanging',
  inputs: {
    stuck: { kind: 'live', url: 'https://hang.example/feed.json', format: 'json' },
    fine: { kind: 'live', url: 'https://ok.example/feed.json', format: 'json' },
  },
} as unknown as DatasetSource<any>;
const env = { ...process.env, ALMANAC_CACHE: cache, ALMANAC_MIRROR: `http://127.0.0.1:${(server.address() as { port: number }).port}`, ALMANAC_FETCH_TIMEOUT_S: String(timeoutS) };
console.log(`load average before: ${load()}`);
const t0 = performance.now();
const out = await fetchAll([source], env, () => {});
const seconds = (performance.now() - t0) / 1000;
clearInterval(collecting);
server.closeAllConnections();
server.close();
rmSync(cache, { recursive: true, force: true });
for (const o of out) console.log(`  ${o.url}: ${o.status}${o.reason ? ` (${o.reason})` : ''}`);
console.log(`hanging upstream: ${seconds.toFixed(1)} s; documented bound ${bound} s (3 × ${timeoutS} + 1 + 4); ratio ${(seconds / bound).toFixed(3)}`);
console.log(`load average after: ${load()}`);
