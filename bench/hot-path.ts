/**
 * `npm run bench:hot-path`: the per-request pieces of the full path that issue 14 changed,
 * each measured in-process in CPU time (process.cpuUsage, so a loaded machine inflates
 * less than wall time would), before and after:
 *   key check   SHA-256 + map lookup + constant-time compare, against the presented-key map;
 *   counting    one journal write(2) per request, against one per batch of 16 (a turn);
 *   limits      Limits.charge per request, against chargeMany per batch of 16;
 *   keys.json   a stat per request, against one per event-loop turn (of 16 requests), against
 *               one a second (issue 41);
 *   Caller      an object spread of the key record, against callerOf's fixed-shape literal.
 * BENCH_N sets the iterations (default 200,000).
 */
import { rmSync } from 'node:fs';
import { Limits } from '../server/state/limits.ts';
import { callerOf } from '../server/state/accounts.ts';
import { KeyStore } from '../server/state/keys.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_N ?? 200_000);
const BATCH = 16;

function cpuUs(fn: () => void): number {
  fn(); // warm-up pass (JIT)
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / N;
}

const dir = tempDir('almanac-bench-hot-');
try {
  const keys = new KeyStore(dir, () => {});
  const { secret, record } = keys.create('development', 'bench');
  const hashed = cpuUs(() => {
    for (let i = 0; i < N; i++) {
      (keys as any).known.clear(); // as before the map: every request hashes the key
      keys.verify(secret);
    }
  });
  const cached = cpuUs(() => {
    for (let i = 0; i < N; i++) keys.verify(secret);
  });
  const stat = cpuUs(() => {
    for (let i = 0; i < N; i++) keys.reload();
  });
  // Once per event-loop turn (issue 14): the first request of each turn of BATCH stats, the others skip.
  const statPerTurn = cpuUs(() => {
    for (let i = 0; i < N; i++) if (i % BATCH === 0) keys.reload();
  });
  // At most once a second (issue 41): N requests take well under a second here, so one stat serves them all.
  const statPerSecond = cpuUs(() => {
    for (let i = 0; i < N; i++) keys.reloadEachSecond();
  });
  // The Caller of a request: a spread of the parsed record plus three fields, against a literal of one shape.
  const access = keys.access(record) as Extract<ReturnType<KeyStore['access']>, { ok: true }>;
  let callers = 0;
  const spread = cpuUs(() => {
    for (let i = 0; i < N; i++) callers += ({ ...record, plan: access.plan, access, at: i }).at;
  });
  const literal = cpuUs(() => {
    for (let i = 0; i < N; i++) callers += callerOf(record, access, i).at!;
  });

  const quota = new QuotaStore(dir, { compactBytes: 2 ** 40 });
  quota.open();
  const one = cpuUs(() => {
    for (let i = 0; i < N; i++) quota.count(record.id);
  });
  const ids = Array(BATCH).fill(record.id);
  const many = cpuUs(() => {
    for (let i = 0; i < N; i += BATCH) quota.countMany(ids);
  });
  const limits = new Limits(quota);
  // A clock that advances 20 µs per request, so the development plan's burst (100,000 a
  // second) never refuses and every charge is counted.
  let now = Date.now();
  const charge = cpuUs(() => {
    for (let i = 0; i < N; i++) limits.charge(record, (now += 0.02));
  });
  const recs = Array(BATCH).fill(record);
  const chargeMany = cpuUs(() => {
    for (let i = 0; i < N; i += BATCH) limits.chargeMany(recs, (now += 0.02 * BATCH));
  });
  quota.close();

  // Credential-conflict check on a typical request's 8 headers: what req.headersDistinct
  // built (an object of arrays of every header, then a Set per name) against a rawHeaders scan.
  const raw = ['Host', '127.0.0.1:8080', 'User-Agent', 'curl/8', 'Accept', '*/*', 'X-Service-Key', secret, 'Accept-Encoding', 'br', 'Connection', 'keep-alive', 'Cache-Control', 'no-cache', 'Accept-Language', 'en'];
  const names = ['x-service-key', 'authorization'];
  let sink = 0;
  const distinct = cpuUs(() => {
    for (let i = 0; i < N; i++) {
      const d: Record<string, string[]> = {};
      for (let j = 0; j < raw.length; j += 2) (d[raw[j].toLowerCase()] ??= []).push(raw[j + 1]);
      if (names.some((n) => new Set((d[n] ?? []).map((v) => v.trim())).size > 1)) sink++;
    }
  });
  const scan = cpuUs(() => {
    for (let i = 0; i < N; i++) {
      for (const n of names) {
        let first: string | undefined;
        for (let j = 0; j < raw.length; j += 2) {
          if (raw[j].length !== n.length || raw[j].toLowerCase() !== n) continue;
          const v = raw[j + 1].trim();
          if (first === undefined) first = v;
          else if (v !== first) sink++;
        }
      }
    }
  });
  if (sink) console.log('unexpected conflict');

  const row = (what: string, before: number, after: number) => console.log(`${what.padEnd(44)} ${before.toFixed(2).padStart(7)} µs → ${after.toFixed(2).padStart(6)} µs per request`);
  console.log(`${N} iterations, CPU time per request (node ${process.version})`);
  row('key check: SHA-256 every time → key map', hashed, cached);
  row(`journal: write(2) per request → per ${BATCH}`, one, many);
  row(`limits + journal: charge → chargeMany(${BATCH})`, charge, chargeMany);
  row('repeated-credential check: headersDistinct → rawHeaders scan', distinct, scan);
  row(`keys.json check: stat per request → per turn of ${BATCH}`, stat, statPerTurn);
  row(`keys.json check: per turn of ${BATCH} → once a second`, statPerTurn, statPerSecond);
  row('Caller: { ...record, plan, access, at } → callerOf', spread, literal);
  if (!callers) console.log('unexpected: no callers');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
