/**
 * `npm run release:pull` (issue 14): a release moves between two folders and between two
 * running servers by id, every file verified; a corrupt or partial source is refused and
 * the live release keeps serving.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { writeBundle } from '../pipeline/bundle.ts';
import { MANIFEST, currentPointer, releaseDir } from '../pipeline/paths.ts';
import { pullRelease, releaseIdOf } from '../pipeline/release-pull.ts';
import { readCurrent, type Manifest } from '../pipeline/writer.ts';
import elements from '../sources/elements.ts';
import units from '../sources/units/index.ts';
import { cleanup, quiet, startServer, tempDir } from './helpers.ts';

const dirs: string[] = [];
const dir = (p: string) => {
  const d = tempDir(p);
  dirs.push(d);
  return d;
};
let distA: string; // elements
let distD: string; // elements and units: another release
let idA: string;
let idD: string;
beforeAll(async () => {
  distA = dir('almanac-pull-a-');
  distD = dir('almanac-pull-d-');
  idA = (await build({ env: { ALMANAC_DIST: distA, ALMANAC_CACHE: dir('almanac-pull-cache-') }, sources: [elements], log: quiet })).release;
  idD = (await build({ env: { ALMANAC_DIST: distD, ALMANAC_CACHE: dir('almanac-pull-cache-') }, sources: [elements, units], log: quiet })).release;
});
afterAll(() => cleanup(...dirs));

const noTemp = (dist: string) => readdirSync(path.join(dist, 'releases')).filter((d) => d.startsWith('.tmp-'));

describe('release:pull between folders', () => {
  it('copies the live release into an empty dist byte for byte (variants included) and switches current to it', async () => {
    const target = dir('almanac-pull-b-');
    const r = await pullRelease(distA, { dist: target });
    expect(r).toMatchObject({ release: idA, copied: true });
    expect(readCurrent(target)).toBe(idA);
    const src = releaseDir(distA, idA), dst = releaseDir(target, idA);
    const files = readdirSync(src, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(src, path.join(e.parentPath, e.name))).sort();
    expect(files.some((f) => f.endsWith('.br'))).toBe(true);
    for (const f of files) expect(readFileSync(path.join(dst, f)).equals(readFileSync(path.join(src, f))), f).toBe(true);
    // Asking for an id the source does not hold is refused.
    await expect(pullRelease(distA, { dist: target, id: 'ffffffffffffffff' })).rejects.toThrow(/has no release ffffffffffffffff/);
  });

  it('refuses a source with one byte changed, or with its manifest edited to match, and leaves current as it was', async () => {
    const target = dir('almanac-pull-b-');
    await pullRelease(distA, { dist: target });
    const bad = dir('almanac-pull-bad-');
    cpSync(releaseDir(distD, idD), bad, { recursive: true });
    const manifest: Manifest = JSON.parse(readFileSync(path.join(bad, MANIFEST), 'utf8'));
    const victim = Object.keys(manifest.files).find((f) => f.startsWith('units/packs/'))!;
    const bytes = readFileSync(path.join(bad, victim));
    bytes[Math.floor(bytes.length / 2)] ^= 1;
    writeFileSync(path.join(bad, victim), bytes);
    await expect(pullRelease(bad, { dist: target })).rejects.toThrow(new RegExp(`${victim} does not match its sha256`));
    expect(readCurrent(target)).toBe(idA);
    expect(existsSync(releaseDir(target, idD))).toBe(false);
    expect(noTemp(target)).toEqual([]);
    // A manifest rewritten to the altered bytes no longer adds up to its release id.
    const { createHash } = await import('node:crypto');
    manifest.files[victim].sha256 = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(path.join(bad, MANIFEST), JSON.stringify(manifest));
    expect(releaseIdOf(manifest)).not.toBe(idD);
    await expect(pullRelease(bad, { dist: target })).rejects.toThrow(/does not add up to release/);
    expect(readCurrent(target)).toBe(idA);
    expect(noTemp(target)).toEqual([]);
  });
});

describe('release:pull between two running servers', () => {
  it('pulls the live release of one server from its downloads with a key, and the other server switches to it', async () => {
    await writeBundle({ env: { ALMANAC_DIST: distD }, log: quiet });
    const source = await startServer(distD);
    const targetDist = dir('almanac-pull-t-');
    await pullRelease(distA, { dist: targetDist });
    const target = await startServer(targetDist);
    try {
      const key = source.key('standard');
      const health = async () => (await (await fetch(`${target.base}/healthz`)).json()).release;
      expect(await health()).toBe(idA);
      await expect(pullRelease(source.base, { dist: targetDist, key: 'alm_not-a-key-at-all' })).rejects.toThrow(/HTTP 401/);
      await expect(pullRelease(source.base, { dist: targetDist, key, id: idA })).rejects.toThrow(new RegExp(`serves release ${idD}, not ${idA}`));
      expect(readCurrent(targetDist)).toBe(idA);
      const r = await pullRelease(source.base, { dist: targetDist, key });
      expect(r).toMatchObject({ release: idD, copied: true });
      expect(readFileSync(currentPointer(targetDist), 'utf8').trim()).toBe(idD);
      // The running target server notices the new current (polled every second).
      const deadline = Date.now() + 10_000;
      while ((await health()) !== idD && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
      expect(await health()).toBe(idD);
      const tk = target.key('standard');
      const conv = await fetch(`${target.base}/apis/units/convert?from=mile&to=km&value=1`, { headers: { 'x-service-key': tk } });
      expect(conv.status).toBe(200);
      // Same bytes as the source's release, so the same id and identical files.
      for (const f of Object.keys(JSON.parse(readFileSync(path.join(releaseDir(distD, idD), MANIFEST), 'utf8')).files)) {
        expect(readFileSync(path.join(releaseDir(targetDist, idD), f)).equals(readFileSync(path.join(releaseDir(distD, idD), f))), f).toBe(true);
      }
    } finally {
      await source.close();
      await target.close();
    }
  });
});
