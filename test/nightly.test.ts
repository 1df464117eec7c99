/**
 * The nightly job (issue 29) over four nights of a loopback upstream: elements (npm),
 * the test feed (fixtures/live-source.ts), and USGS earthquakes and NWS alerts in their
 * own formats (fixtures). Night 2: the feed shrinks from 30 events to 10 and the
 * earthquake feed goes stale; both keep night 1's version, marked held back with the
 * reason, while the alerts move on and the report lists their changes by id. Night 3: the
 * same inputs make no new release. Night 4: the operator accepts the shrink; releases are
 * pruned to the number kept.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, nightly } from '../ops/nightly.ts';
import { MANIFEST, releaseDir, releasesDir } from '../pipeline/paths.ts';
import { markdown, nightlyReport, type NightlyReport } from '../pipeline/report.ts';
import { readCurrent } from '../pipeline/writer.ts';
import elements from '../sources/elements.ts';
import earthquakes from '../sources/earthquakes.ts';
import weatherAlerts from '../sources/weather-alerts.ts';
import { feed } from './fixtures/live-source.ts';
import { fakeUpstream, startServer } from './helpers.ts';
import { leaseLock } from '../server/state/lease.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-nightly-');
const NOW = Date.now();
const fixture = (p: string) => JSON.parse(readFileSync(new URL(`./fixtures/${p}`, import.meta.url), 'utf8'));
const QUAKES = { all_month: fixture('earthquakes/all_month.geojson'), all_week: fixture('earthquakes/all_week.geojson'), '4.5_month': fixture('earthquakes/4.5_month.geojson') };
const ALERTS = fixture('weather-alerts/active.geojson');
const alertId = (n: number) => ALERTS.features[n].properties.id as string;
const event = (n: number) => ({ code: `e${n}`, time: '2026-11-01T00:00:00.000Z', mag: 3 + (n % 5) / 10, lat: 10 + n / 10, lon: 20, expires: null, region: `region ${n % 4}` });

/** What the upstream answers tonight. */
let night = { events: 30, quakesFresh: true, quakeMag: null as number | null, alerts: [0, 1, 2], alertHeadline: null as string | null };
let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
let env: NodeJS.ProcessEnv;
/** When set, the upstream's first answer overwrites this lock file as another host's nightly would. */
let stealLock: string | null = null;
const sources = [elements, feed, earthquakes, weatherAlerts];

beforeAll(async () => {
  upstream = await fakeUpstream((req) => {
    const u = new URL(req.url, 'http://x');
    if (stealLock) {
      writeFileSync(stealLock, `999 runner-thief ${new Date().toISOString()} lease=600000 token=theirs\n`);
      stealLock = null;
    }
    if (u.pathname === '/feed.example/v1/events') {
      return { body: JSON.stringify({ generated: new Date(NOW - 3_600_000).toISOString(), events: Array.from({ length: night.events }, (_, i) => event(i + 1)), next: false }) };
    }
    const q = /^\/earthquake\.usgs\.gov\/earthquakes\/feed\/v1\.0\/summary\/(.+)\.geojson$/.exec(u.pathname);
    if (q && q[1] in QUAKES) {
      const body = structuredClone(QUAKES[q[1] as keyof typeof QUAKES]);
      if (night.quakesFresh) body.metadata.generated = NOW - 3_600_000;
      if (night.quakeMag !== null) body.features[0].properties.mag = night.quakeMag;
      return { body: JSON.stringify(body) };
    }
    if (u.pathname === '/api.weather.gov/alerts/active') {
      const body = structuredClone(ALERTS);
      body.updated = new Date(NOW - 1_800_000).toISOString();
      body.features = night.alerts.map((n) => ALERTS.features[n]).map((f: any) => structuredClone(f));
      if (night.alertHeadline) body.features[0].properties.headline = night.alertHeadline;
      return { body: JSON.stringify(body) };
    }
    return { status: 404, body: 'not here' };
  });
  const root = dir();
  env = { ALMANAC_DIST: path.join(root, 'dist'), ALMANAC_CACHE: path.join(root, 'cache'), ALMANAC_MIRROR: upstream.base, ALMANAC_FETCH_BACKOFF_MS: '5' };
});
afterAll(() => upstream?.close());

const run = async (extra: Parameters<typeof nightly>[0] = {}) => {
  const lines: string[] = [];
  const out = await nightly({ env, sources, downloads: false, log: (l) => lines.push(l), ...extra });
  return { ...out, lines };
};
const manifest = (id: string) => JSON.parse(readFileSync(path.join(releaseDir(env.ALMANAC_DIST!, id), MANIFEST), 'utf8'));
const byId = (r: NightlyReport, id: string) => r.datasets.find((d) => d.id === id)!;

describe('npm run nightly', () => {
  let first: string, second: string;

  it('night 1: builds every dataset and exits 0', async () => {
    const { code, report } = await run();
    expect(code).toBe(EXIT.ok);
    expect(report!.new_release).toBe(true);
    expect(report!.datasets.map((d) => [d.id, d.status, d.records])).toEqual([
      ['elements', 'built', 118], ['feed', 'built', 30], ['earthquakes', 'built', expect.any(Number)], ['weather-alerts', 'built', 3],
    ]);
    first = report!.release;
    expect(readCurrent(env.ALMANAC_DIST!)).toBe(first);
    expect(existsSync(path.join(env.ALMANAC_DIST!, 'reports', `${first}.md`))).toBe(true);
  });

  it('night 2: holds back a feed that shrank to 10 and a stale one, moves the rest on, reports changes by id, exits 3', async () => {
    night = { events: 10, quakesFresh: false, quakeMag: 9.9, alerts: [1, 2, 3], alertHeadline: 'Headline changed tonight' };
    const { code, report, lines } = await run();
    expect(code).toBe(EXIT.heldBack);
    second = report!.release;
    expect(second).not.toBe(first);
    const m = manifest(second);
    expect(m.datasets.feed).toMatchObject({ records: 30, carried_forward_from: first, held_back: { reason: expect.stringMatching(/^records fell from 30 to 10 \(-66\.7 %\), more than the 10 % allowed$/), since: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) } });
    expect(Date.parse(m.datasets.feed.held_back.since)).toBeGreaterThanOrEqual(NOW);
    expect(m.datasets.earthquakes).toMatchObject({ carried_forward_from: first, held_back: { reason: expect.stringMatching(/^live feed is stale: its data is from 2024-.*older than the 48 h it allows$/) } });
    expect(manifest(first).datasets.earthquakes.records).toBe(m.datasets.earthquakes.records);
    // The held-back datasets serve night 1's files, byte for byte.
    for (const p of Object.keys(m.files).filter((p) => p.startsWith('feed/') || p.startsWith('earthquakes/'))) expect(m.files[p].sha256).toBe(manifest(first).files[p]?.sha256);
    expect(m.datasets['weather-alerts'].held_back).toBeUndefined();
    expect(report!.held_back).toEqual(['feed', 'earthquakes']);
    // The OpenAPI document carries real answers of its release as examples (server/api/examples.ts).
    expect(report!.release_files).toEqual(['openapi.json']);
    expect(byId(report!, 'weather-alerts')).toMatchObject({ status: 'built', added: 1, removed: 1, changed: 1, ids: { added: [alertId(3)], removed: [alertId(0)], changed: [alertId(1)] } });
    expect(byId(report!, 'elements')).toMatchObject({ status: 'unchanged', added: 0, removed: 0, changed: 0 });
    expect(byId(report!, 'feed')).toMatchObject({ status: 'held-back', records: 30, reason: expect.stringMatching(/records fell/) });
    const md = readFileSync(path.join(env.ALMANAC_DIST!, 'reports', `${second}.md`), 'utf8');
    expect(md).toContain(`- weather-alerts changed (1): ${alertId(1)}`);
    expect(md).toMatch(/\*\*feed\*\* \(held-back, since .*\): records fell from 30 to 10/);
    expect(lines.join('\n')).toMatch(/earthquakes held-back: live feed is stale/);
  });

  it('serves the held-back data with the reason in meta and the catalogue, and each dataset\'s data date', async () => {
    const srv = await startServer(env.ALMANAC_DIST!, undefined, [feed]);
    try {
      const key = srv.key();
      const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json();
      const list = await get('/apis/feed?limit=1');
      expect(list.meta.total).toBe(30);
      expect(list.meta.held_back).toEqual({ reason: expect.stringMatching(/records fell from 30 to 10/), since: expect.any(String), data_from: first });
      const cat = (await get('/apis')).data;
      // Night 1's earthquakes are served, so their date is night 1's feed time.
      expect(cat.find((d: any) => d.dataset === 'earthquakes')).toMatchObject({ held_back: { reason: expect.stringMatching(/stale/) }, data_date: new Date(NOW - 3_600_000).toISOString() });
      expect(cat.find((d: any) => d.dataset === 'weather-alerts')).toMatchObject({ data_date: expect.any(String) });
      expect(cat.find((d: any) => d.dataset === 'weather-alerts').held_back).toBeUndefined();
      expect(cat.find((d: any) => d.dataset === 'elements')).toMatchObject({ data_date: null });
    } finally {
      await srv.close();
    }
  });

  it('night 3, same inputs: no new release, says so, still exits 3 for the datasets held back', async () => {
    const releases = readdirSync(releasesDir(env.ALMANAC_DIST!)).sort();
    const { code, report, lines } = await run();
    expect(code).toBe(EXIT.heldBack);
    expect(report).toMatchObject({ release: second, previous: second, new_release: false });
    expect(report!.datasets.filter((d) => d.added + d.removed + d.changed > 0)).toEqual([]);
    expect(lines.at(-3)).toMatch(/^nightly: no change — release \w+ is already live; no release written$/);
    expect(readdirSync(releasesDir(env.ALMANAC_DIST!)).sort()).toEqual(releases);
    expect(manifest(second).datasets.feed.held_back.since).toBe(report!.datasets.find((d) => d.id === 'feed')!.held_back!.since);
  });

  it('night 4: --accept lets the shrink through once; keep 2 prunes the oldest release and its report', async () => {
    const { code, report } = await run({ accept: ['feed'], keep: 2 });
    expect(code).toBe(EXIT.heldBack); // the earthquake feed is still stale
    expect(byId(report!, 'feed')).toMatchObject({ status: 'built', records: 10, removed: 20 });
    expect(report!.held_back).toEqual(['earthquakes']);
    expect(readdirSync(releasesDir(env.ALMANAC_DIST!)).filter((d) => !d.startsWith('.')).sort()).toEqual([report!.release, second].sort());
    expect(readdirSync(path.join(env.ALMANAC_DIST!, 'reports')).sort()).toEqual([`${report!.release}.json`, `${report!.release}.md`, `${second}.json`, `${second}.md`].sort());
  });

  it('a second nightly at the same time refuses (exit 2) and names the holder', async () => {
    const a = run();
    const b = await run();
    await a;
    expect(b.code).toBe(EXIT.usage);
    expect(b.error).toMatch(/nightly\.lock/);
  });
});

describe('the nightly lock (issue 40, item 2)', () => {
  const lockOf = (dist: string) => path.join(dist, 'nightly.lock');
  const aged = (file: string, ms: number) => utimesSync(file, (Date.now() - ms) / 1000, (Date.now() - ms) / 1000);

  it('takes over a lock another host left once it has not been renewed for longer than its lease, and names it', async () => {
    const dist = path.join(dir(), 'dist');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dist, { recursive: true });
    // A cancelled run on another GitHub runner: its pid means nothing here, and it stopped renewing 2 hours ago.
    writeFileSync(lockOf(dist), '4242 runner-gone 2026-11-27T03:17:00.000Z\n');
    aged(lockOf(dist), 2 * 3_600_000);
    const { code, lines } = await run({ env: { ...env, ALMANAC_DIST: dist } });
    expect([EXIT.ok, EXIT.heldBack]).toContain(code);
    expect(lines[0]).toBe('nightly.lock: took over a stale lock of pid 4242 on runner-gone (held since 2026-11-27T03:17:00.000Z, not renewed for 120 min, more than its lease of 10 min)');
    expect(existsSync(lockOf(dist))).toBe(false); // released at the end
  });

  it('refuses (exit 2) a lock another host renewed within its lease', async () => {
    const dist = path.join(dir(), 'dist');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dist, { recursive: true });
    writeFileSync(lockOf(dist), `4242 runner-busy ${new Date(Date.now() - 3_600_000).toISOString()} lease=600000 token=abc\n`);
    aged(lockOf(dist), 60_000); // held for an hour, renewed a minute ago
    const { code, error } = await run({ env: { ...env, ALMANAC_DIST: dist } });
    expect(code).toBe(EXIT.usage);
    expect(error).toMatch(/^another nightly is running: .*nightly\.lock is held by pid 4242 on runner-busy since /);
  });

  it('renews its lease while it runs, from a thread of its own: the lock file\'s time moves on while the job\'s thread is busy', async () => {
    const file = path.join(dir(), 'x.lock');
    const lease = leaseLock(file, { leaseMs: 300, renewMs: 20 });
    try {
      for (let i = 0; i < 100 && !lease.stats().renewals; i++) await new Promise((r) => setTimeout(r, 50)); // the thread started
      aged(file, 10_000);
      // Renewed from a thread of its own, even while this one is busy (the build's synchronous stretches).
      const until = Date.now() + 500;
      while (Date.now() < until);
      expect(Date.now() - statSync(file).mtimeMs).toBeLessThan(300);
      expect(lease.held()).toBe(true);
      expect(lease.stats().renewals).toBeGreaterThan(0);
      expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid} \\S+ \\S+ lease=300 token=[0-9a-f]{12}\\n$`));
    } finally {
      lease.release();
    }
    expect(existsSync(file)).toBe(false);
  });

  it('does not switch, publish or prune once another run took the lock over: exit 1, the live release unchanged, the other lock left alone', async () => {
    const live = readCurrent(env.ALMANAC_DIST!);
    night = { ...night, alerts: [0, 2, 4] }; // something new to release
    stealLock = lockOf(env.ALMANAC_DIST!);
    try {
      const { code, error } = await run();
      expect(code).toBe(EXIT.failed);
      expect(error).toMatch(/the nightly lock is no longer this run's .*: not switching current/);
      expect(readCurrent(env.ALMANAC_DIST!)).toBe(live);
      expect(readFileSync(lockOf(env.ALMANAC_DIST!), 'utf8')).toMatch(/^999 runner-thief /);
    } finally {
      rmSync(lockOf(env.ALMANAC_DIST!), { force: true });
    }
  });

  it('releases the lock on SIGTERM (a cancelled run) and exits 143, saying where it stopped', async () => {
    const { createServer } = await import('node:http');
    const hang = createServer(() => {}); // an upstream that never answers: the night is in its fetch
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const root = dir();
    const dist = path.join(root, 'dist');
    const child = spawn(process.execPath, ['--import', 'tsx', 'ops/nightly.ts', '--no-downloads'], {
      cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(root, 'cache'), ALMANAC_MIRROR: `http://127.0.0.1:${(hang.address() as { port: number }).port}` },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    try {
      // Signalled the moment the lock file appears: the run must already answer a signal
      // then (its handlers came after the lock once, and a SIGTERM between the two ended it
      // by the default action with the lock left behind).
      for (let i = 0; i < 60_000 && !existsSync(lockOf(dist)); i++) await new Promise((r) => setTimeout(r, 1));
      expect(existsSync(lockOf(dist)), out).toBe(true);
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      expect(code, out).toBe(143);
      expect(out).toMatch(/nightly: stopped by SIGTERM during the fetch; the live release is none; the lock is released/);
      expect(existsSync(lockOf(dist))).toBe(false);
    } finally {
      child.kill('SIGKILL');
      hang.closeAllConnections();
      hang.close();
    }
  }, 120_000);
});

describe('what a night says and leaves (issue 40, item 6)', () => {
  it('refuses an --accept naming no dataset (a typo), before doing anything', async () => {
    const { code, error, lines } = await run({ accept: ['feeds'] });
    expect(code).toBe(EXIT.usage);
    expect(error).toBe(`--accept: no dataset 'feeds'; the datasets are elements, feed, earthquakes, weather-alerts`);
    expect(lines).toEqual([]);
  });

  it('a night with no change that prunes says what it removed; pruned releases take their reports; another build\'s temporary folder stays', async () => {
    const dist = path.join(dir(), 'dist');
    const e = { ...env, ALMANAC_DIST: dist };
    const releases: string[] = [];
    for (const alerts of [[0], [0, 1], [0, 1, 2]]) {
      night = { ...night, alerts };
      releases.push((await run({ env: e })).report!.release);
    }
    expect(readdirSync(path.join(dist, 'reports'))).toHaveLength(6);
    // A build running beside this one (its pid alive on this host), and one that crashed.
    const { tmpHost } = await import('../pipeline/paths.ts');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.once('exit', r));
    const { mkdirSync } = await import('node:fs');
    const running = `.tmp-${sleeper.pid}-1-${tmpHost()}`, crashed = `.tmp-${dead.pid}-1-${tmpHost()}`;
    for (const t of [running, crashed]) mkdirSync(path.join(releasesDir(dist), t, 'elements'), { recursive: true });
    try {
      const { report, lines } = await run({ env: e, keep: 1 });
      expect(report!.new_release).toBe(false);
      expect(lines.find((l) => l.startsWith('nightly: no change'))).toMatch(new RegExp(`^nightly: no change — release ${releases[2]} is already live; no release written; pruned 2 releases \\([0-9.]+ GB with their downloads\\): (${releases[0]}, ${releases[1]}|${releases[1]}, ${releases[0]})$`));
      expect(lines).toContain(`removed 1 abandoned temporary folder (releases/${crashed})`);
      expect(readdirSync(releasesDir(dist)).sort()).toEqual([releases[2], running].sort());
      expect(readdirSync(path.join(dist, 'reports')).sort()).toEqual([`${releases[2]}.json`, `${releases[2]}.md`]);
    } finally {
      sleeper.kill();
    }
  });
});

describe('every build that switches current holds to the gate (issue 38, item 5)', () => {
  it('a plain build (npm run build, npm start) that would shrink or drop a live dataset is not switched to and says why; --accept lets it through', async () => {
    const { build } = await import('../server/cli/build.ts');
    const { fetchAll } = await import('../pipeline/fetch.ts');
    const { SwitchRefused } = await import('../pipeline/gate.ts');
    const e = { ...env, ALMANAC_DIST: path.join(dir(), 'dist') };
    night = { events: 30, quakesFresh: true, quakeMag: null, alerts: [0, 1, 2], alertHeadline: null };
    expect((await run({ env: e })).code).toBe(EXIT.ok);
    const live = readCurrent(e.ALMANAC_DIST)!;
    night = { ...night, events: 5 };
    await fetchAll(sources, e, () => {});
    const plain = (extra: object) => build({ env: e, sources, log: () => {}, guard: {}, ...extra });
    await expect(plain({})).rejects.toThrow(SwitchRefused);
    await expect(plain({})).rejects.toThrow(/^not switching to this build: 1 dataset would be dropped or shrink \(let one through with --accept <dataset>\):\n  feed: records fell from 30 to 5 \(-83\.3 %\), more than the 10 % allowed$/);
    await expect(plain({ sources: sources.filter((s) => s.id !== 'earthquakes'), guard: { accept: ['feed'] } })).rejects.toThrow(/\n  earthquakes: in the live release \(\d+ records\), not in this build$/);
    expect(readCurrent(e.ALMANAC_DIST)).toBe(live);
    expect(readdirSync(releasesDir(e.ALMANAC_DIST)).filter((d) => d.startsWith('.tmp-'))).toEqual([]);
    const accepted = await plain({ guard: { accept: ['feed'] } });
    expect(readCurrent(e.ALMANAC_DIST)).toBe(accepted.release);
    expect(JSON.parse(readFileSync(path.join(releaseDir(e.ALMANAC_DIST, accepted.release), MANIFEST), 'utf8')).datasets.feed.records).toBe(5);
  });
});

describe('the report of a release in which no dataset changed', () => {
  it('names the release files that made it new (an OpenAPI document after a code change)', () => {
    const f = (sha: string) => ({ size: 1, sha256: sha });
    const before = { release: 'a', pipeline_version: '1', datasets: {}, absent: {}, files: { 'openapi.json': f('1'), 'licences.json': f('2'), 'old.json': f('3') } };
    const after = { release: 'b', pipeline_version: '1', datasets: {}, absent: {}, files: { 'openapi.json': f('9'), 'licences.json': f('2'), 'openapi-v1.json': f('4') } };
    const r = nightlyReport({ dist: dir(), before: before as any, after: after as any, builds: [], started: NOW, now: NOW });
    expect(r).toMatchObject({ new_release: true, release_files: ['old.json', 'openapi-v1.json', 'openapi.json'].sort() });
    expect(markdown(r)).toContain('## Release files that changed\n\n- old.json\n- openapi-v1.json\n- openapi.json');
  });
});
