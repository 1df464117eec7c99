/**
 * The study layers from the real mirrored upstreams, checked over HTTP on the full release
 * that test/mirror-build.test.ts builds from the fetched cache (in CI, `npm run fetch` from
 * the mirror): SBLGNT, Byzantine, Vulgate, Peshitta and the generated alignments, in the
 * numbering of each translation. These checks once built their own release of four
 * translations and the study layers (~50 s of the suite, issue 28); the full build has them.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { kjvKeys, vulgateKey } from '../sources/scripture/versification/numbering.ts';
import { useReadyPanels } from '../server/api/v1/study-panels.ts';
import { studyCacheBytes } from '../server/api/v1/study.ts';

/** Whitaker's WORDS on this machine: the Latin tokens are analysed only then (sources/scripture/study/latin.ts). */
const WORDS = spawnSync('sh', ['-c', 'command -v whitakers-words']).status === 0;
type Panel = { layer: string; source_reference: string; source_references: string[]; generated: boolean; tokens: Record<string, any>[]; source_text: { source_role: string } };

/** Registers the checks in the caller's describe; `server` gives its base URL and a development key once its beforeAll ran. */
export function studyLayerChecks(server: () => { base: string; key: string }) {
  const call = async (p: string) => {
    const { base, key } = server();
    const res = await fetch(base + p, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.json() };
  };
  const panels = async (p: string) => (await call(p)).body.source_panels as Panel[];
  const panel = async (p: string, layer: string) => (await panels(p)).find((x) => x.layer === layer)!;

  it('every verse of every translation that draws on two study records or on a Vulgate-numbered one reads the same bytes from the stored panels as expanded', async () => {
    // The stored panels (server/api/v1/study-panels.ts) meet the hiding of a layer verse an
    // earlier record showed only in these verses; test/study-panels.test.ts compares every
    // verse of the npm-only release, this every such verse of the full one.
    const translations = (await call('/api/v1/translations')).body.data as { slug: string; available: boolean }[];
    const urls: string[] = [];
    for (const { slug } of translations.filter((t) => t.available)) {
      const books = (await call(`/api/v1/books?translation=${slug}`)).body.data as { slug: string }[];
      for (const b of books) {
        const chapters = (await call(`/api/v1/text/${slug}/${b.slug}`)).body.data.chapters as { chapter: number; verses: { verse: number }[] }[];
        for (const c of chapters) {
          for (const v of c.verses) {
            const ref = `${b.slug}.${c.chapter}.${v.verse}`;
            if (kjvKeys(slug, ref).length > 1 || (!kjvKeys(slug, ref).length && vulgateKey(slug, ref))) urls.push(`/api/v1/study/${slug}/${b.slug}/${c.chapter}/${v.verse}`);
          }
        }
      }
    }
    const bodies = async (ready: boolean) => {
      useReadyPanels(ready);
      studyCacheBytes(64 * 2 ** 20);
      const out: string[] = [];
      for (const u of urls) {
        const { status, body } = await call(u);
        expect(status, u).toBe(200);
        const { meta: _m, ...rest } = body;
        out.push(JSON.stringify(rest));
      }
      return out;
    };
    const ready = await bodies(true);
    const expanded = await bodies(false).finally(() => useReadyPanels(true));
    for (let i = 0; i < urls.length; i++) if (ready[i] !== expanded[i]) expect(ready[i], urls[i]).toBe(expanded[i]);
    expect(urls.length).toBeGreaterThan(100);
  }, 900_000);
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
  });
  // Issue 25, finding 3: the Greek additions were in no panel. Now under the Vulgate's own numbering.
  it('the Douay-Rheims and the WEB Catholic Dan 3:24 (the Song of the Three) show the Vulgate verse; the KJV has no such verse', async () => {
    const drc = await panels('/api/v1/study/douay-rheims/dan/3/24');
    expect(drc.map((p) => p.layer)).toEqual(['vulgate-clementine']);
    expect(drc[0].tokens.slice(0, 3).map((t) => t.text)).toEqual(['Et', 'ambulabant', 'in']);
    const webc = await panels('/api/v1/study/web-catholic/dan/3/24');
    expect(webc.map((p) => p.layer)).toEqual(['vulgate-clementine']);
    expect(webc[0].source_reference).toBe('dan.3.24');
    // WEB Catholic Dan 3:91 is the KJV's 3:24 ("Then Nebuchadnezzar the king was astonished"): the Aramaic, with a note.
    const k = (await panels('/api/v1/study/web-catholic/dan/3/91')).find((p) => p.layer === 'oshb-aramaic') as Panel & { versification: any };
    expect(k.source_reference).toBe('dan.3.24');
    expect(k.versification.note).toMatch(/web-catholic dan 3:91 is dan 3:24/);
  });
  // Issue 25, finding 2: shown one verse off where SWORD's table had no rule.
  it('the Vulgate panel is the right verse where the numberings part: Jonah 1:17 / 2:1, Mic 5:15, 1 Sam 20:42 / 21:1, John 6:51', async () => {
    const latin = async (p: string) => (await panel(p, 'vulgate-clementine')).tokens.map((t) => t.text).join(' ');
    expect(await latin('/api/v1/study/kjv/jonah/1/17')).toMatch(/^Et præparavit Dominus piscem grandem/);
    expect(await latin('/api/v1/study/kjv/jonah/2/1')).toMatch(/^Et oravit Jonas/);
    expect((await panel('/api/v1/study/kjv/jonah/2/10', 'vulgate-clementine')).source_reference).toBe('jonah.2.11');
    expect((await panel('/api/v1/study/kjv/mic/5/15', 'vulgate-clementine')).source_reference).toBe('mic.5.14');
    expect((await panel('/api/v1/study/kjv/1sam/20/42', 'vulgate-clementine')).source_references).toEqual(['1sam.20.42', '1sam.20.43']);
    expect((await panel('/api/v1/study/kjv/1sam/21/1', 'vulgate-clementine')).source_reference).toBe('1sam.21.1');
    const john = await panel('/api/v1/study/kjv/john/6/51', 'vulgate-clementine') as Panel & { versification: any };
    expect(john.source_references).toEqual(['john.6.51', 'john.6.52']);
    expect(john.tokens.map((t) => t.text).join(' ')).toMatch(/^Ego sum panis vivus/);
    expect(john.versification.note).toMatch(/kjv john 6:51 is john 6:51 \+ john 6:52/);
    // The Douay-Rheims asks in the Vulgate's numbering: its Jonah 2:1 is the KJV's 1:17.
    expect((await panel('/api/v1/study/douay-rheims/jonah/2/1', 'oshb-hebrew')).source_reference).toBe('jonah.2.1');
  });
  // Issue 25, finding 1: SBLGNT was keyed as if it numbered as the KJV.
  it('SBLGNT (NA numbering) under the KJV verse it is: 2 Cor 13:13-14, 3 John 14, Rev 13:1', async () => {
    const greek = async (p: string) => (await panel(p, 'sblgnt')) as Panel & { versification?: any };
    const grace = await greek('/api/v1/study/kjv/2cor/13/14');
    expect(grace.source_reference).toBe('2cor.13.13');
    expect(grace.tokens[0].text.toLowerCase()).toBe('ἡ');
    expect(grace.tokens[1].text).toBe('χάρις');
    const saints = await greek('/api/v1/study/kjv/2cor/13/13');
    expect(saints.source_reference).toBe('2cor.13.12');
    expect(saints.versification.note).toMatch(/spans KJV 2cor 13:12 and 2cor 13:13/);
    expect((await greek('/api/v1/study/kjv/3john/1/14')).source_references).toEqual(['3john.1.14', '3john.1.15']);
    const rev = await greek('/api/v1/study/kjv/rev/13/1');
    expect(rev.source_references).toEqual(['rev.12.18', 'rev.13.1']);
    expect(rev.tokens.map((t) => t.text).join(' ')).toMatch(/^καὶ ⸀ἐστάθη ἐπὶ τὴν ἄμμον τῆς θαλάσσης/); // the SBLGNT's own text, with its variant mark
    expect((await panel('/api/v1/study/kjv/rom/16/25', 'byzantine-rp2018')).source_reference).toBe('rom.14.24');
  });
  // Issue 36: the five versification faults, on the real layers, and the whole-corpus check.
  it('Hebrew (issue 36, fault 1): KJV Isa 63:19 shows Hebrew 63:19, shared with 64:1; KJV Num 26:2 shows Hebrew 26:2 alone, 26:1 Hebrew 25:19 and 26:1', async () => {
    const isa = await panel('/api/v1/study/kjv/isa/63/19', 'oshb-hebrew') as Panel & { versification: any };
    expect(isa.source_references).toEqual(['isa.63.19']);
    expect(isa.versification.note).toMatch(/spans KJV isa 63:19 and isa 64:1/);
    expect((await panel('/api/v1/study/kjv/isa/64/1', 'oshb-hebrew')).source_references).toEqual(['isa.63.19']);
    expect((await panel('/api/v1/study/kjv/num/26/2', 'oshb-hebrew')).source_references).toEqual(['num.26.2']);
    expect((await panel('/api/v1/study/kjv/num/26/1', 'oshb-hebrew')).source_references).toEqual(['num.25.19', 'num.26.1']);
    expect((await panel('/api/v1/study/kjv/1kgs/18/34', 'oshb-hebrew')).source_references).toEqual(['1kgs.18.34']);
  });
  it('Peshitta (issue 36, fault 2): KJV Rom 16:25-27 show the doxology (Peshitta 16:24-26), KJV 16:24 the grace (Peshitta 16:27)', async () => {
    const syr = async (v: number) => (await panel(`/api/v1/study/kjv/rom/16/${v}`, 'peshitta-nt'));
    expect((await syr(24)).source_references).toEqual(['rom.16.27']);
    expect((await syr(24)).tokens[0].text).toBe('ܛܝܒܘܬܗ'); // "the grace"
    expect((await syr(25)).source_references).toEqual(['rom.16.24']);
    expect((await syr(26)).source_references).toEqual(['rom.16.25']);
    const end = await syr(27);
    expect(end.source_references).toEqual(['rom.16.26']);
    expect(end.tokens.map((t) => t.text)).toContain('ܚܟܝܡܐ'); // "wise": "to God only wise"
  });
  it('Brenton (issue 36, fault 3): Jer 26:2 ("against the Power of Pharao Nechao") studies Hebrew Jer 46:2, Jer 32:15 Hebrew 25:15, Exod 36:10 Hebrew 39:3', async () => {
    expect((await call('/api/v1/text/brenton/jer/26/2')).body.data.text).toMatch(/Pharao Nechao/);
    expect((await panel('/api/v1/study/brenton/jer/26/2', 'oshb-hebrew')).source_reference).toBe('jer.46.2');
    expect((await panel('/api/v1/study/brenton/jer/32/15', 'oshb-hebrew')).source_reference).toBe('jer.25.15'); // Jer 32 is numbered from 13, as the Hebrew's 25
    expect((await panel('/api/v1/study/brenton/exod/36/10', 'oshb-hebrew')).source_reference).toBe('exod.39.3');
  });
  it("Vulgate (issue 36, fault 4): its own table: KJV Isa 45:24 shows the Latin of 45:24, 45:25 of 45:25; 1 Thess 4:13 of 4:13", async () => {
    const latin = async (p: string) => (await panel(p, 'vulgate-clementine')) as Panel & { versification?: any };
    expect((await latin('/api/v1/study/kjv/isa/45/24')).source_references).toEqual(['isa.45.24']);
    const last = await latin('/api/v1/study/kjv/isa/45/25');
    expect(last.source_references).toEqual(['isa.45.25']);
    expect(last.tokens.map((t) => t.text).join(' ')).toMatch(/^In Domino justificabitur/);
    expect((await latin('/api/v1/study/kjv/1thess/4/13')).source_references).toEqual(['1thess.4.13']);
  });
  it('SBLGNT (issue 36, fault 5): KJV Acts 19:41 shows SBLGNT 19:40, which spans it and 19:40, with a note', async () => {
    const sbl = await panel('/api/v1/study/kjv/acts/19/41', 'sblgnt') as Panel & { versification: any };
    expect(sbl.source_references).toEqual(['acts.19.40']);
    expect(sbl.versification.note).toMatch(/spans KJV acts 19:40 and acts 19:41/);
  });
  // The KJV verses a layer has no verse under are explained one by one where the text
  // lacks a handful (the critical and Byzantine omissions, Neh 7:68); the Vulgate's and the
  // Septuagint's (a shorter Jeremiah and Job, verses the Latin joins) are counted, not yet
  // each explained (docs/alignment.md, "Results"): held at the counts measured, so a table
  // change that leaves more KJV verses without them fails here.
  const UNCOVERED_COUNTED: Record<string, number> = {
    // Measured with npm run versification:check (docs/alignment.md, "Results"); 51 before issue 36.
    'vulgate-clementine': 27,
    // By book: Proverbs 162 (the Greek orders and divides chapters 24-31 otherwise and lacks
    // verses), Jeremiah 75 (a shorter text), Exodus and 1 Kings 55 each, 1 Samuel 40 (17-18).
    septuagint: 501, 'septuagint-joshua-b': 13, 'septuagint-joshua-a': 13,
  };
  /** Flags of the generated English layers (their Strong's-tagged words only; the translations' whole text is checked as table:<slug>), counted. */
  const FLAGS_COUNTED: Record<string, number> = { 'align-asv': 10, 'align-darby': 10, 'align-web-catholic': 11 };
  it('/source-coverage: every placement of every layer checked by content, every flag left with its reason; KJV verses without a layer explained (the generated English layers\' by the readers: verses their upstream left without Strong\'s markup), or counted for the Vulgate and the Septuagint', async () => {
    const { body } = await call('/api/v1/source-coverage');
    for (const l of body.data.layers) {
      const c = l.placement_check;
      expect(c, l.id).not.toBeNull();
      // The Septuagint's second texts are short (Joshua A: 96 verses); Tobit has no KJV book.
      const least = l.id.startsWith('septuagint-') ? (/tobit/.test(l.id) ? 0 : 80) : l.id === 'oshb-aramaic' ? 200 : 5000;
      expect(c.checked, l.id).toBeGreaterThanOrEqual(least);
      const unexplained = c.flags.filter((f: any) => !f.reason).map((f: any) => `${f.kind} ${f.ref}`);
      if (Object.hasOwn(FLAGS_COUNTED, l.id)) expect(unexplained.length, `${l.id}: flags without a reason`).toBeLessThanOrEqual(FLAGS_COUNTED[l.id]);
      else expect(unexplained, `${l.id}: flags without a reason`).toEqual([]);
      const open = c.uncovered_references.filter((k: string) => !c.uncovered_reasons[k]);
      if (Object.hasOwn(UNCOVERED_COUNTED, l.id)) expect(open.length, `${l.id}: KJV verses without this layer`).toBeLessThanOrEqual(UNCOVERED_COUNTED[l.id]);
      else expect(open, `${l.id}: KJV verses without this layer, unexplained`).toEqual([]);
    }
  });
  // Issue 37, item 5: the Greek Tradition role is the Septuagint's lemmas (issue 25 answered it with a note of its absence).
  it('source_role=Greek Tradition answers with the Septuagint\'s panels: lemmas with Strong\'s numbers and no text, saying why, in Rahlfs\' numbering; an unknown role is 400', async () => {
    const r = await call('/api/v1/study/kjv/gen/1/1?source_role=Greek%20Tradition');
    expect(r.status).toBe(200);
    expect(r.body.meta.source_role_note).toBeUndefined();
    const [lxx, ...more] = r.body.source_panels as Panel[];
    expect(more).toEqual([]);
    expect(lxx).toMatchObject({ layer: 'septuagint', source_reference: 'gen.1.1', source_text: { source_role: 'Greek Tradition', kind: 'Greek Septuagint' } });
    expect((lxx.source_text as any).note).toMatch(/^Lemmas only: .*not freely licensed/);
    expect(lxx.tokens.map((t) => t.lemma)).toEqual(['ἐν', 'ἀρχή', 'ποιέω', 'ὁ', 'θεός', 'ὁ', 'οὐρανός', 'καί', 'ὁ', 'γῆ']);
    expect(lxx.tokens[1]).toMatchObject({ id: 'septuagint:gen.1.1:2', text: null, language: 'grc', strong: 'G746', study_status: 'lexicon-aligned', licence: ['CC-BY-4.0'] });
    expect(lxx.tokens[1].gloss).toMatch(/commencement/);
    // The Greek psalm numbering: Brenton's (and the Septuagint's) Psalm 9:22 is the KJV's 10:1.
    const ps = (await call('/api/v1/study/kjv/ps/10/1?source_role=Greek%20Tradition')).body.source_panels as Panel[];
    expect(ps.map((p) => [p.layer, p.source_reference])).toEqual([['septuagint', 'ps.9.22']]);
    expect((await call('/api/v1/study/brenton/ps/9/22?source_role=greek%20tradition')).body.source_panels.map((p: Panel) => p.source_reference)).toEqual(['ps.9.22']);
    // The texts Rahlfs prints twice are separate, named panels.
    const judg = (await call('/api/v1/study/kjv/judg/1/1?source_role=Greek%20Tradition')).body.source_panels as (Panel & { name: string })[];
    expect(judg.map((p) => p.layer)).toEqual(['septuagint-judges-b', 'septuagint-judges-a']);
    expect(judg[0].name).toMatch(/Judges, B text/);
    const dan = (await call('/api/v1/study/kjv/dan/1/1?source_role=Greek%20Tradition')).body.source_panels as Panel[];
    expect(dan.map((p) => p.layer)).toEqual(['septuagint-daniel-og', 'septuagint-daniel-th']);
    expect((await call('/api/v1/study/kjv/gen/1/1?source_role=Coptic')).status).toBe(400);
  });
  it('/source-coverage counts the Septuagint\'s 30,637 verses and 623,693 words as the upstream does, says they are lemmas only and credits the Open Scriptures Septuagint Project', async () => {
    const cov = (await call('/api/v1/source-coverage')).body.data;
    const lxx = cov.layers.filter((l: any) => l.id.startsWith('septuagint'));
    expect(lxx.map((l: any) => l.id)).toEqual(['septuagint', 'septuagint-joshua-b', 'septuagint-joshua-a', 'septuagint-judges-b', 'septuagint-judges-a',
      'septuagint-daniel-og', 'septuagint-daniel-th', 'septuagint-tobit-ba', 'septuagint-tobit-s']);
    expect(lxx.reduce((n: number, l: any) => n + l.verses, 0)).toBe(30_637);
    expect(lxx.reduce((n: number, l: any) => n + l.word_tokens, 0)).toBe(623_693);
    for (const l of lxx) {
      expect(l).toMatchObject({ source_role: 'Greek Tradition', generated: false });
      expect(l.note).toMatch(/Lemmas only/);
      expect(l.licence_notes.join(' ')).toMatch(/Creative Commons Attribution 4\.0: .*Open Scriptures Septuagint Project/);
      expect(l.placement.same_number + l.placement.by_table + l.placement.unplaced).toBe(l.verses);
    }
    expect(cov.absent.map((a: any) => a.id)).not.toContain('septuagint');
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
    const lxx = ['septuagint', 'septuagint-joshua-b', 'septuagint-joshua-a', 'septuagint-judges-b', 'septuagint-judges-a', 'septuagint-daniel-og', 'septuagint-daniel-th', 'septuagint-tobit-ba', 'septuagint-tobit-s'];
    expect(ids).toEqual(['oshb-hebrew', 'oshb-aramaic', 'sblgnt', 'byzantine-rp2018', ...lxx, 'vulgate-clementine', 'peshitta-nt', 'align-asv', 'align-darby', 'align-web-catholic'].filter((id) => ids.includes(id)));
    expect(ids).toEqual(expect.arrayContaining(['sblgnt', 'byzantine-rp2018', 'vulgate-clementine', 'peshitta-nt', 'align-asv']));
    expect(body.data.total.word_tokens).toBe(body.data.layers.reduce((n: number, l: any) => n + l.word_tokens, 0));
    expect(body.data.layers.find((l: any) => l.id === 'align-asv').phase_5.state).toBe('not-started');
    // Where every layer verse went (issue 25): none dropped silently.
    const vg = body.data.layers.find((l: any) => l.id === 'vulgate-clementine').placement;
    expect(vg.unplaced).toBe(0);
    expect(vg.vulgate_numbering_only).toBeGreaterThan(280); // Dan 3:24-90, Susanna, Bel, Esther 10:4-16:24
    expect(vg.by_table).toBeGreaterThan(500);
    for (const l of body.data.layers) {
      expect(l.placement.same_number + l.placement.by_table + l.placement.vulgate_numbering_only + l.placement.unplaced).toBe(l.verses);
      expect(l.placement.unplaced_references).toHaveLength(l.placement.unplaced);
    }
  });
}
