/**
 * Every study layer from the real mirrored upstreams: a fetch from the mirror into a
 * fresh cache, a build of kjv, asv, douay-rheims and the study dataset, and the
 * done-when checks over HTTP. Skips, saying so in its name, without the mirror.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInChild } from './fixture-release.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

/** Whitaker's WORDS on this machine: the Latin tokens are analysed only then (sources/scripture/study/latin.ts). */
const WORDS = spawnSync('sh', ['-c', 'command -v whitakers-words']).status === 0;
type Panel = { layer: string; source_reference: string; generated: boolean; tokens: Record<string, any>[]; source_text: { source_role: string } };

describe.skipIf(!MIRROR_ROOT)(`study layers from the mirrored upstreams ${NEEDS_MIRROR}`, () => {
  let srv: Running;
  let dist: string, cache: string;
  let key: string;
  const call = async (p: string) => {
    const res = await fetch(srv.base + p, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.json() };
  };
  const panels = async (p: string) => (await call(p)).body.source_panels as Panel[];
  const panel = async (p: string, layer: string) => (await panels(p)).find((x) => x.layer === layer)!;

  beforeAll(async () => {
    dist = tempDir('almanac-study-dist-');
    cache = tempDir('almanac-study-cache-');
    const env = { ALMANAC_DIST: dist, ALMANAC_CACHE: cache, ALMANAC_MIRROR: MIRROR_ROOT };
    const sources = [...TRANSLATIONS.filter((t) => ['kjv', 'asv', 'douay-rheims'].includes(t.slug)).map(translationDataset), studyDataset()];
    await fetchAll(sources, env, quiet);
    await buildInChild(sources.map((s) => s.id), env); // a child process: a long build must not block the worker's RPC
    srv = await startServer(dist);
    key = srv.key('development');
  }, 900_000);
  afterAll(async () => {
    await srv?.close();
    cleanup(dist, cache, srv?.stateDir ?? '');
  });

  it('John 1:1 has SBLGNT and Byzantine panels with decoded parsing', async () => {
    const sbl = await panel('/api/v1/study/kjv/john/1/1', 'sblgnt');
    expect(sbl.tokens).toHaveLength(17);
    expect(sbl.tokens[2]).toMatchObject({ text: 'ἦν', lemma: 'εἰμί', study_status: 'lexicon-aligned', strong: 'G1510',
      morphology: { code: 'V- 3IAI-S--', part_of_speech: 'verb', tense: 'imperfect', voice: 'active', mood: 'indicative', person: 'third', number: 'singular' } });
    const byz = await panel('/api/v1/study/kjv/john/1/1', 'byzantine-rp2018');
    expect(byz.tokens[1]).toMatchObject({ text: 'αρχη', strong: 'G746', study_status: 'dataset-backed', confidence: 'high',
      morphology: { code: 'N-DSF', part_of_speech: 'noun', case: 'dative', number: 'singular', gender: 'feminine' } });
    expect(byz.tokens[1].gloss).toMatch(/commencement/);
  });
  it(`John 3:16 has a Vulgate and a Peshitta panel; Latin tokens carry Whitaker's WORDS candidates (${WORDS ? 'installed' : 'not installed: pending'}), Syriac ones are pending`, async () => {
    const vg = await panel('/api/v1/study/kjv/john/3/16', 'vulgate-clementine');
    const sy = await panel('/api/v1/study/kjv/john/3/16', 'peshitta-nt');
    expect(vg.tokens.slice(0, 4).map((t) => t.text)).toEqual(['Sic', 'enim', 'Deus', 'dilexit']);
    expect(vg.source_text.source_role).toBe('Latin Tradition');
    if (WORDS) {
      expect(vg.tokens[3]).toMatchObject({
        lemma: 'diligo', dictionary_form: 'diligo, diligere, dilexi, dilectus V (3rd) TRANS', gloss: 'love, hold dear', part_of_speech: 'verb',
        study_status: 'rule-aligned', confidence: 'medium', generated: true, licence: expect.arrayContaining(['LicenseRef-Whitakers-Words']),
        morphology: { code: 'V 3 1 PERF ACTIVE IND 3 S', tense: 'perfect', voice: 'active', mood: 'indicative', person: 'third', number: 'singular' },
      });
      const mundum = vg.tokens.find((t) => t.text === 'mundum')!;
      expect(mundum).toMatchObject({ study_status: 'review-needed', confidence: 'low', morphology: null });
      expect(mundum.candidates.length).toBeGreaterThan(1);
      expect(mundum.candidates.every((c: any) => c.morphology.code && c.dictionary_form)).toBe(true);
    } else expect(vg.tokens[3]).toMatchObject({ study_status: 'pending', lemma: null });
    expect(sy.source_text.source_role).toBe('Aramaic/Syriac Tradition');
    expect(sy.tokens[0]).toMatchObject({ language: 'syc', study_status: 'pending', confidence: 'low', morphology: null });
  });
  it('asv study of Gen 1:1 shows rule-aligned English links labelled generated; kjv shows none', async () => {
    const al = await panel('/api/v1/study/asv/gen/1/1', 'align-asv');
    expect(al.generated).toBe(true);
    const beginning = al.tokens.find((t) => t.english === 'beginning')!;
    expect(beginning).toMatchObject({ strong: 'H7225', study_status: 'rule-aligned', confidence: 'medium', generated: true, aligned_tokens: ['oshb-hebrew:gen.1.1:1'] });
    expect(al.tokens.every((t) => t.generated && t.confidence !== 'high')).toBe(true);
    expect((await panels('/api/v1/study/kjv/gen/1/1')).some((p) => p.generated)).toBe(false);
  });
  it('the Douay-Rheims Ps 22 (Vulgate numbering) studies the Hebrew Ps 23', async () => {
    const ps = await panels('/api/v1/study/douay-rheims/ps/22/1');
    expect(ps.find((p) => p.layer === 'oshb-hebrew')!.source_reference).toBe('ps.23.1');
    expect(ps.find((p) => p.layer === 'vulgate-clementine')!.source_reference).toBe('ps.22.1');
  });
  it('the Douay-Rheims outside Psalms: Vulgate Num 13:1 is KJV 12:16, Dan 3:91 is KJV 3:24, Dan 3:24 (a Greek addition) has no KJV verse', async () => {
    const num = await panels('/api/v1/study/douay-rheims/num/13/1');
    expect(num.find((p) => p.layer === 'oshb-hebrew')!.source_reference).toBe('num.12.16');
    expect(num.find((p) => p.layer === 'vulgate-clementine')!.source_reference).toBe('num.13.1');
    expect((await panels('/api/v1/study/kjv/num/12/16')).find((p) => p.layer === 'vulgate-clementine')!.source_reference).toBe('num.13.1');
    expect((await panel('/api/v1/study/kjv/dan/3/24', 'vulgate-clementine')).source_reference).toBe('dan.3.91');
    expect(await panels('/api/v1/study/douay-rheims/dan/3/24')).toEqual([]);
  });
  it('each filter changes what it should and nothing else', async () => {
    const base = await panels('/api/v1/study/asv/gen/1/1');
    const noGen = await panels('/api/v1/study/asv/gen/1/1?include_generated=0');
    expect(noGen.map((p) => p.layer)).toEqual(base.map((p) => p.layer));
    for (const [i, p] of noGen.entries()) expect(p.tokens).toEqual(base[i].tokens.filter((t) => !t.generated));
    const low = await panels('/api/v1/study/asv/gen/1/1?confidence=low');
    for (const [i, p] of low.entries()) expect(p.tokens).toEqual(base[i].tokens.filter((t) => t.confidence === 'low'));
    const queue = await panels('/api/v1/study/asv/gen/1/1?review_status=needs-review');
    for (const [i, p] of queue.entries()) expect(p.tokens).toEqual(base[i].tokens.filter((t) => t.study_status === 'review-needed'));
    const latin = await panels('/api/v1/study/asv/gen/1/1?source_role=latin%20tradition');
    expect(latin).toEqual(base.filter((p) => p.source_text.source_role === 'Latin Tradition'));
    const both = await panels('/api/v1/study/asv/gen/1/1?source_role=Generated%20Alignment&confidence=medium');
    expect(both.map((p) => p.layer)).toEqual(['align-asv']);
    expect(both[0].tokens).toEqual(base.find((p) => p.layer === 'align-asv')!.tokens.filter((t) => t.confidence === 'medium'));
    expect((await panels('/api/v1/study/asv/gen/1/1?verified_only=1')).every((p) => p.tokens.length === 0)).toBe(true);
  });
  it('/source-coverage totals equal the per-layer counts, with absent layers and phase-5 state', async () => {
    const { body } = await call('/api/v1/source-coverage');
    const ids = body.data.layers.map((l: any) => l.id);
    expect(ids).toEqual(['oshb-hebrew', 'oshb-aramaic', 'sblgnt', 'byzantine-rp2018', 'vulgate-clementine', 'peshitta-nt', 'align-asv', 'align-darby', 'align-web-catholic'].filter((id) => ids.includes(id)));
    expect(ids).toEqual(expect.arrayContaining(['sblgnt', 'byzantine-rp2018', 'vulgate-clementine', 'peshitta-nt', 'align-asv']));
    expect(body.data.total.word_tokens).toBe(body.data.layers.reduce((n: number, l: any) => n + l.word_tokens, 0));
    expect(body.data.layers.find((l: any) => l.id === 'align-asv').phase_5.state).toBe('not-started');
  });
});
