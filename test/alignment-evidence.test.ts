/**
 * Alignment confidence from evidence (issue 25, finding 4): the model
 * (sources/scripture/study/align-evidence.ts) on synthetic verse pairs, the stored and
 * served form of its suggestions, and, over the mirrored corpus, the judged sample
 * test/fixtures/alignment-judged.json: links served at `medium` must be ≥ 90 % correct.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAll } from '../pipeline/fetch.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { EVIDENCE_DEFAULTS, judgeLinks, type LinkVerse } from '../sources/scripture/study/align-evidence.ts';
import { unitsOf } from '../sources/scripture/study/align-units.ts';
import { studyDataset, type StudyRecord } from '../sources/scripture/study/dataset.ts';
import { ENGLISH_LAYERS, englishLinks } from '../sources/scripture/study/english.ts';
import { byzantineLayer } from '../sources/scripture/study/greek.ts';
import { HEBREW, oshbLayer } from '../sources/scripture/study/oshb.ts';
import { tuple, type TokenTuple } from '../sources/scripture/study/tokens.ts';
import { panelsJson, panelsOf, type LayerInfo } from '../server/api/v1/study-tokens.ts';
import type { ReviewView } from '../server/state/reviews.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, tempDir } from './helpers.ts';

const greek = (strong: string, k: number) => tuple(k + 1, strong.toLowerCase(), null, strong, null, 'dataset-backed', 'high');
const GLOSS: Record<string, string> = { G1: 'god', G2: 'loved', G3: 'world', G4: 'so', G5: 'son', G6: 'gave', G7: 'life', G8: 'light' };

/** 80 correctly tagged verses over eight words (a seeded LCG picks each verse's words), then the verses under test. */
function greekCorpus(test: LinkVerse[]): LinkVerse[] {
  let seed = 25;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const keys = Object.keys(GLOSS);
  const verses: LinkVerse[] = [];
  for (let v = 0; v < 80; v++) {
    const chosen = [...new Set([...keys.filter(() => rnd() < 0.45), keys[v % 8], keys[(v + 3) % 8]])];
    verses.push({ hebrew: false, words: chosen.map((s) => GLOSS[s]), links: chosen.map((_, i) => [i]), source: chosen.map(greek) });
  }
  return [...verses, ...test];
}

describe('the evidence model on synthetic verse pairs', () => {
  it('reads the units English renders from OSHB and Robinson morphology', () => {
    const heb = (lemma: string, morph: string) => unitsOf(tuple(1, 'x', lemma, null, morph, 'dataset-backed', 'high'), true);
    expect(heb('c/b/7225', 'HC/R/Ncfsa')).toEqual(['H7225', '+c', '+b']);
    expect(heb('1285', 'HNcfsc/Sp3ms')).toEqual(['H1285', 'Nc', 'Sp3ms']);
    expect(heb('c/2498', 'HC/Vhi3mp')).toEqual(['H2498', '+c', 'Vki', 'Vp3p']);
    const grc = (strong: string, morph: string) => unitsOf(tuple(1, 'x', null, strong, morph, 'dataset-backed', 'high'), false);
    expect(grc('G622', 'V-2AMS-3S')).toEqual(['G622', 'VmS', 'Vp3S']);
    expect(grc('G2316', 'N-GSM')).toEqual(['G2316', 'CG']);
    expect(grc('G1510', 'V-FDI-3S')).toEqual(['G1510', 'VtF', 'Vp3S']);
  });

  it('demotes a contradicted link, names the better token, and keeps the supported ones (ASV John 3:16 "so" → ἵνα)', () => {
    // "so" carries loved's number: the tag says G2, the corpus says G4.
    const test: LinkVerse = { hebrew: false, words: ['so', 'god', 'loved', 'world'], links: [[2], [1], [2], [3]], source: ['G4', 'G1', 'G2', 'G3'].map(greek) };
    const j = judgeLinks(greekCorpus([test]));
    const at = j.at[80];
    expect(j.support[at]).toBeLessThan(EVIDENCE_DEFAULTS.keep);
    expect(j.suggested[at]).toBe(0);
    for (const i of [1, 2, 3]) {
      expect(j.support[at + i]).toBeGreaterThanOrEqual(EVIDENCE_DEFAULTS.keep);
      expect(j.suggested[at + i]).toBe(-1);
    }
  });

  it('narrows several candidates to the one on the diagonal, and gives nothing to a word without a link', () => {
    const test: LinkVerse = { hebrew: false, words: ['god', 'gave', 'god', 'light'], links: [[0, 2], [1], [0, 2], []], source: ['G1', 'G6', 'G1', 'G8'].map(greek) };
    const j = judgeLinks(greekCorpus([test]));
    const at = j.at[80];
    expect([j.suggested[at], j.suggested[at + 2]]).toEqual([0, 2]);
    expect(j.support[at + 3]).toBe(0);
    expect(j.suggested[at + 3]).toBe(3);
  });

  it('explains "and" by the וְ of a Hebrew word, not by the number the tag copied from its neighbour', () => {
    const tok = (k: number, lemma: string, strong: string, morph: string) => tuple(k + 1, lemma, lemma, strong, morph, 'dataset-backed', 'high');
    const nouns: [string, string][] = [['776', 'earth'], ['8064', 'heaven'], ['3117', 'day'], ['4325', 'water'], ['216', 'light']];
    const verses: LinkVerse[] = [];
    for (let v = 0; v < 60; v++) {
      const [a, b] = [nouns[v % 5], nouns[(v + 2) % 5]];
      // "<a> and <b>": the second noun carries the conjunction; and verses of one noun alone.
      verses.push({ hebrew: true, words: [a[1], 'and', b[1]], links: [[0], [1], [1]],
        source: [tok(0, a[0], `H${a[0]}`, 'HNcbsa'), tok(1, `c/${b[0]}`, `H${b[0]}`, 'HC/Ncbsa')] });
      verses.push({ hebrew: true, words: [b[1]], links: [[0]], source: [tok(0, b[0], `H${b[0]}`, 'HNcbsa')] });
    }
    // The tag gives "and" its neighbour's number (ASV and Darby Gen 1:1 tag "and" H430).
    verses.push({ hebrew: true, words: ['heaven', 'and', 'earth'], links: [[0], [0], [1]],
      source: [tok(0, '8064', 'H8064', 'HNcmpa'), tok(1, 'c/776', 'H776', 'HC/Ncbsa')] });
    const j = judgeLinks(verses);
    const at = j.at[120];
    expect(j.support[at + 1]).toBeLessThan(EVIDENCE_DEFAULTS.keep);
    expect(j.suggested[at + 1]).toBe(1);
    expect([j.support[at], j.support[at + 2]].every((s) => s >= EVIDENCE_DEFAULTS.keep)).toBe(true);
    // The corpus verses' own "and" → וְ links stand.
    expect(j.support[j.at[0] + 1]).toBeGreaterThanOrEqual(EVIDENCE_DEFAULTS.keep);
  });

  it('is deterministic: the same verses give the same bytes', () => {
    const test: LinkVerse = { hebrew: false, words: ['so', 'god'], links: [[1], [1]], source: ['G4', 'G1'].map(greek) };
    const [a, b] = [judgeLinks(greekCorpus([test])), judgeLinks(greekCorpus([test]))];
    expect(Buffer.from(a.support.buffer)).toEqual(Buffer.from(b.support.buffer));
    expect([...a.suggested]).toEqual([...b.suggested]);
  });
});

describe('suggested tokens, stored and served', () => {
  const align = ENGLISH_LAYERS[0].layers[0];
  const layers = new Map<string, LayerInfo>([[HEBREW.id, HEBREW], [align.id, align]]);
  const reviews = { version: 0, get: () => undefined, all: () => [] } as unknown as ReviewView;
  const source: TokenTuple[] = [
    tuple(1, 'בְּרֵאשִׁ֖ית', 'b/7225', 'H7225', 'HR/Ncfsa', 'dataset-backed', 'high'),
    tuple(2, 'בָּרָ֣א', '1254 a', 'H1254', 'HVqp3ms', 'dataset-backed', 'high'),
  ];
  const english = [
    tuple(1, 'In', null, 'H1254', null, 'review-needed', 'low', [1, -1]),
    tuple(2, 'beginning', null, 'H7225', null, 'rule-aligned', 'medium', [0]),
  ];
  const record: StudyRecord = {
    id: 'gen.1.1', book: 'gen', chapter: 1, verse: 1, glosses: {},
    panels: [{ layer: HEBREW.id, refs: ['gen.1.1'], tokens: source }],
    aligned: { [align.id]: JSON.stringify({ layer: align.id, refs: ['gen.1.1'], tokens: english }) },
  };

  it('reads an English word\'s stored links: the linked indexes, then each suggestion as -(index + 1)', () => {
    expect(englishLinks([3, 4])).toEqual({ aligned: [3, 4], suggested: [] });
    expect(englishLinks([14, -1])).toEqual({ aligned: [14], suggested: [0] });
    expect(englishLinks([-6])).toEqual({ aligned: [], suggested: [5] });
    expect(englishLinks({ qere: 'x' })).toBeNull();
  });

  it('serves suggested_tokens as token ids beside aligned_tokens, the same on the object and the JSON path', () => {
    const f = { verifiedOnly: false, includeGenerated: true };
    const objects = panelsOf(record, 'asv', 'gen.1.1', layers, f, reviews);
    const tokens = (objects.find((p) => p.layer === align.id)!.tokens as Record<string, unknown>[]);
    expect(tokens[0]).toMatchObject({ english: 'In', aligned_tokens: ['oshb-hebrew:gen.1.1:2'], suggested_tokens: ['oshb-hebrew:gen.1.1:1'], study_status: 'review-needed', confidence: 'low' });
    expect(tokens[1]).toMatchObject({ english: 'beginning', aligned_tokens: ['oshb-hebrew:gen.1.1:1'], suggested_tokens: [], confidence: 'medium' });
    const [json] = panelsJson(record, 'asv', 'gen.1.1', layers, f, reviews);
    expect(JSON.parse(`[${json}]`)).toEqual(JSON.parse(JSON.stringify(objects)));
  });
});

type Judged = { set: string; translation: string; reference: string; position: number; english: string; strong: string; linked: string[]; verdict: 'correct' | 'wrong'; suggested?: string[]; suggestion_verdict?: 'correct' | 'wrong' };
type Served = { position: number; english: string; strong: string; study_status: string; confidence: string; aligned_tokens: string[]; suggested_tokens: string[] };
const FIXTURE: { links: Judged[] } = JSON.parse(readFileSync(new URL('./fixtures/alignment-judged.json', import.meta.url), 'utf8'));
/** The issue's examples: [translation, reference, English word (each occurrence), the token id it should be suggested, if any]. */
const ISSUE: [string, string, string, string?][] = [
  ['asv', 'isa.40.31', 'shall'], ['asv', 'isa.40.31', 'as'], ['asv', 'isa.40.31', 'that'], ['asv', 'isa.40.31', 'for'],
  ['asv', 'john.3.16', 'so', 'byzantine-rp2018:john.3.16:1'],
  ['web-catholic', 'john.3.16', 'should'], ['web-catholic', 'john.3.16', 'his', 'byzantine-rp2018:john.3.16:11'],
  ['darby', 'john.1.1', 'with'], ['darby', 'gen.1.3', 'And'],
  ['asv', 'gen.1.1', 'In', 'oshb-hebrew:gen.1.1:1'], ['asv', 'gen.1.1', 'and'], ['darby', 'gen.1.1', 'In', 'oshb-hebrew:gen.1.1:1'], ['darby', 'gen.1.1', 'and'],
  ['web-catholic', 'gen.1.1', 'God', 'oshb-hebrew:gen.1.1:3'], ['web-catholic', 'gen.1.1', 'earth', 'oshb-hebrew:gen.1.1:7'],
];

describe.skipIf(!MIRROR_ROOT)(`alignment confidence over the mirrored corpus ${NEEDS_MIRROR}`, () => {
  let cache: string;
  let verses: Record<string, Served[] | null>;
  let summary: { id: string; version: string; counts: { tokens: number; confidence: Record<string, number> } }[];

  beforeAll(async () => {
    cache = tempDir('almanac-align-cache-');
    const env = { ALMANAC_CACHE: cache, ALMANAC_MIRROR: MIRROR_ROOT };
    await fetchAll([studyDataset([oshbLayer, byzantineLayer, ...ENGLISH_LAYERS])], env, quiet);
    const want = [...new Set([...FIXTURE.links.map((l) => `${l.translation} ${l.reference}`), ...ISSUE.map(([t, r]) => `${t} ${r}`)])];
    // A child process: the Hebrew, Greek and three English layers take ~2 GB and a
    // minute at load, which must not block the test worker.
    const script = `import { resolveInputs } from './pipeline/inputs.ts';
import { studyDataset } from './sources/scripture/study/dataset.ts';
import { oshbLayer } from './sources/scripture/study/oshb.ts';
import { byzantineLayer } from './sources/scripture/study/greek.ts';
import { ENGLISH_LAYERS } from './sources/scripture/study/english.ts';
import { layerTable, panelsOf } from './server/api/v1/study-tokens.ts';
const ds = studyDataset([oshbLayer, byzantineLayer, ...ENGLISH_LAYERS]);
const { raw } = await resolveInputs(ds, ${JSON.stringify(env)});
const records = new Map(ds.normalise(raw).map((r) => [r.id, r]));
const layers = layerTable(ds.summary());
const reviews = { version: 0, get: () => undefined, all: () => [] };
const verses = {};
for (const w of ${JSON.stringify(want)}) {
  const [translation, reference] = w.split(' ');
  const panel = records.has(reference) && panelsOf(records.get(reference), translation, reference, layers, { verifiedOnly: false, includeGenerated: true }, reviews).find((p) => p.layer === 'align-' + translation);
  verses[w] = panel ? panel.tokens.map((t) => ({ position: t.position, english: t.english, strong: t.strong, study_status: t.study_status, confidence: t.confidence, aligned_tokens: t.aligned_tokens, suggested_tokens: t.suggested_tokens })) : null;
}
const summary = ds.summary().layers.filter((l) => l.generated).map((l) => ({ id: l.id, version: l.version, counts: l.counts }));
process.stdout.write(JSON.stringify({ verses, summary }));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`alignment child failed (exit ${code}): ${err.slice(-2000)}`);
    ({ verses, summary } = JSON.parse(out));
  }, 900_000);
  afterAll(() => cleanup(cache));

  const served = (l: Judged) => verses[`${l.translation} ${l.reference}`]!.find((t) => t.position === l.position)!;
  const precision = (links: Judged[]) => links.filter((l) => l.verdict === 'correct').length / links.length;

  it('every judged link is still the link the rules make (the sample has not drifted)', () => {
    for (const l of FIXTURE.links) {
      const t = served(l);
      expect({ english: t.english, strong: t.strong, aligned: t.aligned_tokens }, `${l.translation} ${l.reference} ${l.position}`).toEqual({ english: l.english, strong: l.strong, aligned: l.linked });
    }
  });

  it('links served at medium are ≥ 90 % correct on the judged sample, in each set and each translation; never high', () => {
    const medium = FIXTURE.links.filter((l) => served(l).confidence === 'medium');
    expect(FIXTURE.links.every((l) => served(l).confidence !== 'high')).toBe(true);
    expect(medium.every((l) => served(l).study_status === 'rule-aligned' && served(l).aligned_tokens.length === 1)).toBe(true);
    expect(precision(medium), `${medium.length} at medium`).toBeGreaterThanOrEqual(0.9);
    for (const set of ['tuning', 'held-out']) expect(precision(medium.filter((l) => l.set === set)), set).toBeGreaterThanOrEqual(0.9);
    for (const tr of ['asv', 'darby', 'web-catholic']) expect(precision(medium.filter((l) => l.translation === tr)), tr).toBeGreaterThanOrEqual(0.9);
    // Not by demoting everything: the rules alone put 79 % at medium, half of them wrong.
    const before = FIXTURE.links.filter((l) => l.linked.length === 1);
    expect(precision(before)).toBeLessThan(0.6);
    expect(medium.length / FIXTURE.links.length).toBeGreaterThan(0.25);
  });

  it('the issue\'s examples are review-needed, low, with the better token named where the model has one', () => {
    for (const [tr, ref, word, better] of ISSUE) {
      const tokens = verses[`${tr} ${ref}`]!.filter((t) => t.english === word && t.aligned_tokens.length === 1);
      expect(tokens.length, `${tr} ${ref} ${word}`).toBeGreaterThan(0);
      for (const t of tokens) expect([t.study_status, t.confidence], `${tr} ${ref} ${word}`).toEqual(['review-needed', 'low']);
      if (better) expect(tokens[0].suggested_tokens, `${tr} ${ref} ${word}`).toEqual([better]);
    }
    const beginning = verses['asv gen.1.1']!.find((t) => t.english === 'beginning')!;
    expect(beginning).toMatchObject({ study_status: 'rule-aligned', confidence: 'medium', aligned_tokens: ['oshb-hebrew:gen.1.1:1'], suggested_tokens: [] });
  });

  it('suggestions the model still makes on judged links are mostly right, and the layers say which rules made them', () => {
    const judged = FIXTURE.links.filter((l) => l.suggestion_verdict && served(l).suggested_tokens.join() === l.suggested!.join());
    expect(judged.length).toBeGreaterThan(100);
    expect(judged.filter((l) => l.suggestion_verdict === 'correct').length / judged.length).toBeGreaterThanOrEqual(0.75);
    for (const l of summary) {
      expect(l.version).toBe('rules 2 (Model 1 evidence)');
      expect(l.counts.confidence.high).toBe(0);
      expect(l.counts.confidence.medium / l.counts.tokens).toBeGreaterThan(0.2);
    }
  });
});
