/**
 * SWORD zText reading: a module built here in the real on-disk format (conf from
 * test/fixtures/sword, .bzs/.bzv/.bzz written below), the markup cleaner, and — when the
 * mirror is present — the real CrossWire zips.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseConf, readSwordModule } from '../sources/readers/sword.ts';
import { cleanVerse } from '../sources/readers/sword-markup.ts';
import { SWORD_TRANSLATIONS } from '../sources/scripture/sword.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'sword');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

/** KJV Old Testament: 2 headings + 39 book intros + 929 chapter intros + 23,145 verses. */
const KJV_OT_SLOTS = 24115;
// Slot numbers from the documented layout (also seen in the real modules' ot.bzv).
const GEN_1_1 = 4, GEN_1_2 = 5, GEN_2_1 = 36, GEN_50_26 = 1585, EXOD_INTRO = 1586, EXOD_1_INTRO = 1587, EXOD_1_1 = 1588, MAL_4_6 = 24114;

/** Writes a zText testament: entries {slot: [block, text]} → .bzs/.bzv/.bzz (zlib per block). */
function testament(slots: number, entries: Record<number, [number, string]>) {
  const blocks: Buffer[][] = [];
  const bzv = Buffer.alloc(slots * 10);
  for (const [slot, [block, text]] of Object.entries(entries)) {
    const bytes = Buffer.from(text, 'utf8');
    const parts = (blocks[block] ??= []);
    const offset = parts.reduce((n, b) => n + b.length, 0);
    parts.push(bytes);
    bzv.writeUInt32LE(block, Number(slot) * 10);
    bzv.writeUInt32LE(offset, Number(slot) * 10 + 4);
    bzv.writeUInt16LE(bytes.length, Number(slot) * 10 + 8);
  }
  const bzs = Buffer.alloc(blocks.length * 12);
  const compressed: Buffer[] = [];
  let at = 0;
  blocks.forEach((parts, i) => {
    const plain = Buffer.concat(parts ?? []);
    const z = deflateSync(plain);
    bzs.writeUInt32LE(at, i * 12);
    bzs.writeUInt32LE(z.length, i * 12 + 4);
    bzs.writeUInt32LE(plain.length, i * 12 + 8);
    compressed.push(z);
    at += z.length;
  });
  return { bzs, bzv, bzz: Buffer.concat(compressed) };
}

function moduleZip(conf: string, dir: string, ot: ReturnType<typeof testament>, extra: Record<string, Uint8Array> = {}) {
  const base = `modules/texts/ztext/${dir}/`;
  return Buffer.from(
    zipSync({
      [`mods.d/${dir}.conf`]: Buffer.from(conf),
      [`${base}ot.bzs`]: ot.bzs,
      [`${base}ot.bzv`]: ot.bzv,
      [`${base}ot.bzz`]: ot.bzz,
      ...extra,
    }),
  );
}

const TINY_OT = testament(KJV_OT_SLOTS, {
  1: [0, '<milestone type="x-importer"/>'],
  2: [1, '<div osisID="Gen" type="book" sID="b1"/><title>GENESIS</title>'],
  3: [1, '<chapter osisID="Gen.1" sID="Gen.1"/>'],
  [GEN_1_1]: [1, '<w lemma="strong:H07225">In the beginning</w> <w lemma="strong:H0430">God</w> created.'],
  [GEN_1_2]: [1, 'And the earth<note placement="foot">Or, <w lemma="strong:H9999">land</w></note> was void.'],
  [GEN_2_1]: [1, 'Thus the heavens &amp; the earth were finished.'],
  [GEN_50_26]: [1, 'So Joseph died. <chapter eID="Gen.50"/> <div eID="b1" type="book"/>'],
  [EXOD_INTRO]: [2, '<title>EXODUS</title>'],
  [EXOD_1_INTRO]: [2, '<title>Chapter heading</title>'],
  [EXOD_1_1]: [2, 'Now these are the names.'],
  [MAL_4_6]: [3, 'Lest I come and smite the earth with a curse.'],
});

describe('SWORD conf', () => {
  it('reads sections, repeated keys and backslash continuation lines', () => {
    const conf = parseConf(fixture('tiny.conf'));
    expect(conf.module).toBe('Tiny');
    expect(conf.about).toBe('First line of the about text,\ncontinued on a second line.\\par Still the same value.');
    expect(conf.globalOptionFilters).toEqual(['OSISFootnotes', 'OSISStrongs']);
    expect([conf.sourceType, conf.encoding, conf.versification, conf.version]).toEqual(['OSIS', 'UTF-8', 'KJV', '0.1']);
  });

  it('applies SWORD defaults when the conf is silent (Plaintext, Latin-1, KJV)', () => {
    const conf = parseConf(fixture('webster.conf'));
    expect([conf.sourceType, conf.encoding, conf.versification]).toEqual(['Plaintext', 'Latin-1', 'KJV']);
  });
});

describe('SWORD zText reader (module built in the real format)', () => {
  const mod = readSwordModule(moduleZip(fixture('tiny.conf'), 'tiny', TINY_OT), 'tiny.zip');
  const all = [...mod.verses()];

  it('yields every verse slot of the versification, intros excluded', () => {
    expect(all).toHaveLength(23145); // KJV OT verses; no nt.* files, so no NT
    expect(all[0]).toMatchObject({ book: 'Gen', chapter: 1, verse: 1 });
    expect(all.at(-1)).toMatchObject({ book: 'Mal', chapter: 4, verse: 6 });
  });

  it('places each entry at its book, chapter and verse (book boundary included)', () => {
    const found = all.filter((v) => v.raw).map((v) => `${v.book} ${v.chapter}:${v.verse}`);
    expect(found).toEqual(['Gen 1:1', 'Gen 1:2', 'Gen 2:1', 'Gen 50:26', 'Exod 1:1', 'Mal 4:6']);
    expect(all.find((v) => v.book === 'Exod')!.raw).toBe('Now these are the names.');
  });

  it('refuses a verse index that does not fit the versification', () => {
    const short = { ...TINY_OT, bzv: TINY_OT.bzv.subarray(0, 1000) };
    expect(() => [...readSwordModule(moduleZip(fixture('tiny.conf'), 'tiny', short), 'short.zip').verses()]).toThrow(/ot\.bzv has 100 entries, KJV needs 24115/);
  });

  it('refuses compression it cannot read and half a testament', () => {
    const lzss = fixture('tiny.conf').replace('CompressType=ZIP', 'CompressType=LZSS');
    expect(() => readSwordModule(moduleZip(lzss, 'tiny', TINY_OT))).toThrow(/CompressType LZSS/);
    const half = moduleZip(fixture('tiny.conf'), 'tiny', TINY_OT, { 'modules/texts/ztext/tiny/nt.bzs': new Uint8Array(12) });
    expect(() => [...readSwordModule(half).verses()]).toThrow(/incomplete nt/);
  });

  it('a translation omits zero-byte slots and cleans the rest (Webster-shaped module)', () => {
    const ot = testament(KJV_OT_SLOTS, {
      [GEN_1_1]: [0, 'In the beginning God created the heaven and the earth.'],
      [GEN_1_2]: [0, 'And darkness [was] upon the face   of the deep.'],
    });
    const webster = SWORD_TRANSLATIONS.find((t) => t.slug === 'webster')!;
    const verses = webster.read({ module: moduleZip(fixture('webster.conf'), 'webster', ot) });
    expect(verses).toEqual([
      { book: 'Gen', chapter: 1, verse: 1, text: 'In the beginning God created the heaven and the earth.' },
      { book: 'Gen', chapter: 1, verse: 2, text: 'And darkness was upon the face of the deep.' },
    ]);
    const wrong = fixture('webster.conf').replace('Version=1.2', 'Version=1.3');
    expect(() => webster.read({ module: moduleZip(wrong, 'webster', ot) })).toThrow(/conf Version is '1.3', expected '1.2'/);
  });
});

describe('SWORD markup cleaner', () => {
  it('OSIS: keeps words, drops notes with their Strong\'s, normalises Strong\'s', () => {
    const raw = '<w lemma="strong:H07225 lemma.TR:x">In the beginning</w><note placement="foot"><reference type="annotateRef">1.1 </reference><w lemma="strong:H430">Elohim</w></note><w lemma="strong:H430">God</w> created.';
    expect(cleanVerse(raw, 'OSIS')).toEqual({ text: 'In the beginning God created.', strongs: ['H7225', 'H430'] });
  });

  it('OSIS: drops headings, psalm titles, subscriptions and centred acrostic headings', () => {
    const raw = '<title canonical="true" type="psalm">A Psalm.</title> <lg sID="a"/><l sID="b"/>Jehovah, <divineName>LORD</divineName> <transChange type="added">is</transChange>my<transChange type="added">shepherd</transChange>, <q marker="“"/>say<q marker="”"/>.<l eID="b"/> <l sID="c" type="x-center"/>ב BETH. <l eID="c" type="x-center"/><closer sID="d"/>Written from Rome.<closer eID="d"/><lb/><milestone type="x-p"/><chapter eID="Ps.23"/> <title>BOOK II</title>';
    expect(cleanVerse(raw, 'OSIS').text).toBe('Jehovah, LORD is my shepherd, “say”.');
  });

  it('OSIS: decodes entities and collapses whitespace', () => {
    expect(cleanVerse('Tom &amp; Jerry &lt;&#x41;&#66;&gt;\n\t said &quot;hi&quot;', 'OSIS').text).toBe('Tom & Jerry <AB> said "hi"');
  });

  it('OSIS: throws on what it does not understand, naming the place', () => {
    expect(() => cleanVerse('a <speaker>Bride</speaker> b', 'OSIS', 'X.zip Song 1:1')).toThrow(/X\.zip Song 1:1.*unknown OSIS element <speaker>/);
    expect(() => cleanVerse('a <note>open', 'OSIS')).toThrow(/not closed/);
    expect(() => cleanVerse('a &bogus; b', 'OSIS')).toThrow(/unknown entity/);
  });

  it('GBF: Strong\'s tags, notes, italics, paragraph codes', () => {
    const raw = '<TS>Title<Ts>In the beginning<WH07225> God<WH0430><WTN> <FI>was<Fi> here<RF>a note<Rf>,<CM> and<WG2316> there.<CM>';
    expect(cleanVerse(raw, 'GBF')).toEqual({ text: 'In the beginning God was here, and there.', strongs: ['H7225', 'H430', 'G2316'] });
    expect(() => cleanVerse('x<ZZ>y', 'GBF', 'Y.zip')).toThrow(/Y\.zip: unknown GBF code <ZZ>/);
  });

  it('Plaintext refuses markup; ThML is refused outright', () => {
    expect(cleanVerse('  plain\n text ', 'Plaintext').text).toBe('plain text');
    expect(() => cleanVerse('a <b>c</b>', 'Plaintext')).toThrow(/markup in a Plaintext module/);
    expect(() => cleanVerse('a', 'ThML')).toThrow(/not supported/);
  });
});

// The real modules, from the upstream mirror (ALMANAC_MIRROR, else the shared mirror).
const MIRROR = MIRROR_ROOT ?? '/nonexistent';
const zipPath = (module: string) => path.join(MIRROR, 'www.crosswire.org/ftpmirror/pub/sword/packages/rawzip', `${module}.zip`);
const haveMirror = existsSync(zipPath('ASV'));

describe.skipIf(!haveMirror)(`real CrossWire modules ${NEEDS_MIRROR}`, () => {
  const load = (slug: string) => {
    const t = SWORD_TRANSLATIONS.find((s) => s.slug === slug)!;
    const input = t.inputs.module;
    if (input.kind !== 'url') throw new Error('expected a url input');
    const buf = readFileSync(zipPath(new URL(input.url).pathname.split('/').pop()!.replace(/\.zip$/, '')));
    expect(createHash('sha256').update(buf).digest('hex')).toBe(input.sha256);
    return t.read({ module: buf });
  };

  it('ASV: Gen 1:1, John 3:16, Mal 4:6 → Matt 1:1, last verse, count, Strong\'s', () => {
    const asv = load('asv');
    const at = (ref: string) => asv.findIndex((v) => `${v.book} ${v.chapter}:${v.verse}` === ref);
    expect(asv).toHaveLength(31102);
    expect(asv[0]).toEqual({
      book: 'Gen', chapter: 1, verse: 1, text: 'In the beginning God created the heavens and the earth.',
      strongs: ['H430', 'H853', 'H7225', 'H430', 'H1254', 'H853', 'H8064', 'H430', 'H853', 'H776'],
    });
    expect(asv[at('John 3:16')].text).toBe('For God so loved the world, that he gave his only begotten Son, that whosoever believeth on him should not perish, but have eternal life.');
    expect(at('Matt 1:1')).toBe(at('Mal 4:6') + 1);
    expect(asv[at('Matt 1:1')].text).toMatch(/^The book of the generation of Jesus Christ/);
    expect(asv.at(-1)).toMatchObject({ book: 'Rev', chapter: 22, verse: 21, text: 'The grace of the Lord Jesus be with the saints. Amen.' });
    expect(asv[at('Matt 17:21')].text).toBe(''); // only a footnote in this edition
  });

  it('ASV: the unmatched "[" before Selah is removed (the word stays); John 7:53–8:11 keeps its matched brackets', () => {
    const asv = load('asv');
    const at = (ref: string) => asv.find((v) => `${v.book} ${v.chapter}:${v.verse}` === ref)!.text;
    expect(at('Ps 3:2')).toBe('Many there are that say of my soul, There is no help for him in God. Selah');
    expect(at('Ps 9:16')).toMatch(/own hands\. Higgaion\. Selah$/);
    expect(at('Ps 55:19')).toMatch(/of old, Selah The men/);
    expect(asv.filter((v) => /Selah/.test(v.text))).toHaveLength(75); // 74 of them had the stray bracket
    expect(asv.filter((v) => v.text.includes('[')).map((v) => `${v.book} ${v.chapter}:${v.verse}`)).toEqual(['John 7:53']);
    expect(SWORD_TRANSLATIONS.find((t) => t.slug === 'asv')!.edition).toMatch(/normalised: the unmatched "\[" before Selah removed/);
  });

  it('YLT: no space before punctuation (658 verses had one where an italic span ended)', () => {
    const ylt = load('ylt');
    const at = (ref: string) => ylt.find((v) => `${v.book} ${v.chapter}:${v.verse}` === ref)!.text;
    expect(at('Gen 2:10')).toMatch(/four chief rivers;$/);
    expect(at('Gen 19:18')).toBe('And Lot saith unto them, `Not so, I pray thee, my lord;');
    expect(ylt.filter((v) => /\s[,.;:?!]/.test(v.text))).toEqual([]);
    expect(SWORD_TRANSLATIONS.find((t) => t.slug === 'ylt')!.edition).toMatch(/spaces before punctuation/);
  });

  it.each([
    ['darby', 31099, true, 'In the beginning God created the heavens and the earth.'],
    ['webster', 31102, false, 'In the beginning God created the heaven and the earth.'],
    ['ylt', 31102, false, "In the beginning of God's preparing the heavens and the earth--"],
    ['douay-rheims', 35805, false, 'In the beginning God created heaven, and earth.'],
    ['geneva', 31064, false, 'In the beginning God created the heauen and the earth.'],
  ])('%s: %i verses, Strong\'s %s, Gen 1:1', (slug, count, strongs, gen11) => {
    const verses = load(slug);
    expect(verses).toHaveLength(count);
    expect(verses.some((v) => v.strongs)).toBe(strongs);
    expect(verses[0]).toMatchObject({ book: 'Gen', chapter: 1, verse: 1, text: gen11 });
    expect(verses.filter((v) => /[<>]/.test(v.text))).toEqual([]);
  });
});
