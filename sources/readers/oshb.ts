/**
 * Reads the OpenScriptures Hebrew Bible's OSIS books (morphhb `wlc/<Book>.xml`) into
 * verses of words with lemma, morphology and OSHB word id, and its `VerseMap.xml`
 * (WLC ↔ KJV numbering).
 *
 * OSHB's markup is flat and regular: `<verse osisID>` holds `<w lemma morph id>` whose
 * content is text (morpheme boundaries as "/"; 11 large or small letters as `<seg>`), `<seg>` punctuation (maqqef, sof
 * pasuq, paseq…), and `<note>`s. A `<note type="variant">` carries the qere reading of
 * the ketiv word before it (kept as that word's `qere`); other notes are editorial and
 * dropped. A regular expression over each verse is enough for that shape and ~10×
 * faster than a SAX pass over 306,785 words; anything else inside a verse throws.
 */
export interface OshbWord {
  /** Surface text with the "/" morpheme separators removed. */
  text: string;
  /** OSHB lemma: Strong's-based, with prefixes ("b/7225") and homonym letters ("1254 a"). */
  lemma: string;
  morph: string;
  id: string;
  /** The qere (read) form when this word is a ketiv (written) form. */
  qere?: string;
}
export interface OshbVerse { book: string; chapter: number; verse: number; words: OshbWord[] }

const VERSE = /<verse osisID="([^"]+)">([\s\S]*?)<\/verse>/g;
// A word's text may hold large/small letters as <seg type="x-large|x-small"> (11 words).
const ITEM = /<w ([^>]*)>((?:[^<]|<seg type="x-(?:large|small|suspended)">[^<]*<\/seg>)*)<\/w>|<seg [^>]*>[^<]*<\/seg>|<note type="variant">([\s\S]*?)<\/note>|<note[^>]*>[\s\S]*?<\/note>|(<[^>]+>)|([^<\s]+)/g;
const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

export function readOshbBook(xml: string, file = 'OSHB book'): OshbVerse[] {
  const out: OshbVerse[] = [];
  for (const v of xml.matchAll(VERSE)) {
    const m = /^([1-3]?[A-Za-z]+)\.(\d+)\.(\d+)$/.exec(v[1]);
    if (!m) throw new Error(`${file}: verse osisID '${v[1]}' is not Book.C.V`);
    const words: OshbWord[] = [];
    for (const it of v[2].matchAll(ITEM)) {
      if (it[1] !== undefined) {
        const lemma = attr(it[1], 'lemma'), morph = attr(it[1], 'morph'), id = attr(it[1], 'id');
        if (lemma === undefined || morph === undefined || id === undefined) throw new Error(`${file} ${v[1]}: <w> without lemma, morph or id`);
        words.push({ text: it[2].replace(/<[^>]*>/g, '').replaceAll('/', ''), lemma, morph, id });
      } else if (it[3] !== undefined) {
        const q = /<rdg type="x-qere">([\s\S]*?)<\/rdg>/.exec(it[3]);
        const prev = words[words.length - 1];
        if (q && prev) prev.qere = [...q[1].matchAll(/<w [^>]*>([^<]*)<\/w>/g)].map((w) => w[1].replaceAll('/', '')).join(' ');
      } else if (it[4] !== undefined || it[5] !== undefined) {
        throw new Error(`${file} ${v[1]}: unexpected ${(it[4] ?? it[5]).slice(0, 40)}`);
      }
    }
    out.push({ book: m[1], chapter: Number(m[2]), verse: Number(m[3]), words });
  }
  if (!out.length) throw new Error(`${file}: no <verse> elements`);
  return out;
}

export interface VerseMapEntry { wlc: string; kjv: string; type: 'full' | 'partial' }

/** `VerseMap.xml`: `<verse wlc="Gen.32.1" kjv="Gen.31.55" type="full"/>`; partial refs end in "!a"/"!b". */
export function readVerseMap(xml: string): VerseMapEntry[] {
  const out: VerseMapEntry[] = [];
  for (const m of xml.matchAll(/<verse wlc="([^"]+)" kjv="([^"]+)" type="(full|partial)"\/>/g)) {
    out.push({ wlc: m[1], kjv: m[2], type: m[3] as 'full' | 'partial' });
  }
  if (!out.length) throw new Error('VerseMap.xml: no <verse> mappings');
  return out;
}
