/**
 * USFM → verses, for eBible.org's per-book USFM files (WEB Catholic, Brenton).
 *
 * USFM is a stream of markers: paragraph markers (`\p`, `\q1`, `\s1` …) start a block
 * running to the next one, `\c N` / `\v N` are milestones in that stream, character
 * markers (`\wj … \wj*`, `\w word|strong="H1"\w*`) wrap text, notes (`\f … \f*`,
 * `\x … \x*`) are inline islands. So text goes to "the open verse", never by line, and
 * every marker is listed below as flow / drop / keep: an unknown one throws with file,
 * chapter and marker, because guessing is how text is silently lost or polluted.
 *
 * Decisions (each covered by test/usfm.test.ts):
 * - Headings, titles, speaker and chapter labels are dropped (editorial, not verse text);
 *   so are footnotes and cross references, with their content; character markup is kept
 *   as its text; Strong's numbers on `\w` are collected in word order as "H7225" / "G2316".
 * - `\d` (Psalm superscription) before a chapter's first verse becomes verse 0: it is
 *   canonical text (verse 1 in Hebrew numbering) and the verse schema allows 0. So does
 *   other text before verse 1 (WEB Sir 51's "A Prayer of Jesus …", Brenton's Lam 1
 *   preface), noted. Where an edition puts the title inside verse 1 (Brenton: an empty
 *   `\d` then `\v 1 title`) it simply stays verse 1. A `\d` with text after verses have
 *   started is a label (WEB Psalm 119's ALEPH, BETH …): dropped, and then the chapter's
 *   first `\d` is a label too, not a title; all noted.
 * - A verse range `\v 15-16` puts its text on 15 and gives 16 an empty verse (as the OSIS
 *   reader does with merged verses); WEB uses ranges only for omitted Sirach verses.
 * - A lettered segment `\v 50a` (Brenton's Septuagint additions) is appended to verse 50
 *   of the same chapter, since a verse number is an integer; a segment with no plain
 *   verse before it (`\v 2a` first) starts that verse. Both noted.
 * - Book introductions (`\is`, `\ip` …) are dropped: the edition marks them as such. In
 *   the WEB that includes the ancient Prologue of Sirach, which it prints as an \ip.
 */
import type { Verse } from '../scripture/contract.ts';
import { book } from '../scripture/books.ts';

/** USFM 3 book code → OSIS id (books.ts). DAG, Greek Daniel with Susanna and Bel as its
 * chapters 13–14 (WEB) or without them (Brenton), is "Dan" in the edition's numbering:
 * books.ts has no Greek-Daniel id, and splitting it would renumber the edition. */
export const USFM_TO_OSIS: Readonly<Record<string, string>> = {
  GEN: 'Gen', EXO: 'Exod', LEV: 'Lev', NUM: 'Num', DEU: 'Deut', JOS: 'Josh', JDG: 'Judg', RUT: 'Ruth',
  '1SA': '1Sam', '2SA': '2Sam', '1KI': '1Kgs', '2KI': '2Kgs', '1CH': '1Chr', '2CH': '2Chr', EZR: 'Ezra',
  NEH: 'Neh', EST: 'Esth', JOB: 'Job', PSA: 'Ps', PRO: 'Prov', ECC: 'Eccl', SNG: 'Song', ISA: 'Isa',
  JER: 'Jer', LAM: 'Lam', EZK: 'Ezek', DAN: 'Dan', HOS: 'Hos', JOL: 'Joel', AMO: 'Amos', OBA: 'Obad',
  JON: 'Jonah', MIC: 'Mic', NAM: 'Nah', HAB: 'Hab', ZEP: 'Zeph', HAG: 'Hag', ZEC: 'Zech', MAL: 'Mal',
  MAT: 'Matt', MRK: 'Mark', LUK: 'Luke', JHN: 'John', ACT: 'Acts', ROM: 'Rom', '1CO': '1Cor', '2CO': '2Cor',
  GAL: 'Gal', EPH: 'Eph', PHP: 'Phil', COL: 'Col', '1TH': '1Thess', '2TH': '2Thess', '1TI': '1Tim',
  '2TI': '2Tim', TIT: 'Titus', PHM: 'Phlm', HEB: 'Heb', JAS: 'Jas', '1PE': '1Pet', '2PE': '2Pet',
  '1JN': '1John', '2JN': '2John', '3JN': '3John', JUD: 'Jude', REV: 'Rev',
  TOB: 'Tob', JDT: 'Jdt', ESG: 'EsthGr', ADE: 'AddEsth', WIS: 'Wis', SIR: 'Sir', BAR: 'Bar', LJE: 'EpJer',
  S3Y: 'PrAzar', SUS: 'Sus', BEL: 'Bel', '1MA': '1Macc', '2MA': '2Macc', '3MA': '3Macc', '4MA': '4Macc',
  '1ES': '1Esd', '2ES': '2Esd', MAN: 'PrMan', PS2: 'AddPs', ODA: 'Odes', PSS: 'PssSol', ENO: '1En',
  LAO: 'EpLao', DAG: 'Dan',
};
/** Peripheral "books": front matter, introductions, glossaries, appendices. */
const NON_SCRIPTURE = /^(FRT|BAK|OTH|INT|CNC|GLO|TDX|NDX|XX[A-G])$/;

/** Paragraphs whose text is verse text. */
const FLOW = new Set(('p m po pr cls pmo pm pmc pmr pi pi1 pi2 pi3 mi nb pc ph ph1 ph2 ph3 q q1 q2 q3 q4 qr qc qm qm1 ' +
  'qm2 qm3 qd li li1 li2 li3 li4 lim lim1 lim2 b').split(' '));
/** Paragraphs dropped with their text: identification, titles, headings, labels. */
const HEADING = new Set(('h toc1 toc2 toc3 toca1 toca2 toca3 ide rem sts usfm mt mt1 mt2 mt3 mt4 mte mte1 mte2 ms ms1 ' +
  'ms2 ms3 mr s s1 s2 s3 s4 sr r sp sd sd1 sd2 cl cd qa').split(' '));
/** Book-introduction paragraphs: dropped, and only allowed before chapter 1. */
const INTRO = new Set(('imt imt1 imt2 imt3 is is1 is2 ip ipi im imi ipq imq ipr iq iq1 iq2 iq3 ib ili ili1 ili2 iot io ' +
  'io1 io2 io3 iex imte ie').split(' '));
/** Character markers whose text is kept. */
const CHAR = new Set(('w wj add nd qs bk sc it bd bdit em no sls tl pn png k qt ord sig dc wh wg wa addpn qac sup ior ' +
  'fv').split(' '));
/** Inline spans dropped with their content until the matching close marker. */
const ISLAND = new Set(['f', 'fe', 'ef', 'x', 'ex', 'fig', 'vp', 'va', 'ca', 'rq']);

export interface UsfmBook {
  code: string;
  osis: string;
  verses: Verse[];
  /** Structural decisions taken on this file (ranges, lettered segments, dropped \d labels). */
  notes: string[];
}

/** Marks dropped inline material: a space only where it separated two words. */
const SOFT = '\u0001';
function finish(s: string): string {
  return s
    .replace(/[ \t\r\n]+/g, ' ')
    .replace(/[ \u0001]*\u0001[ \u0001]*/g, (m) => (m.includes(' ') ? ' ' : SOFT))
    .replace(/\u0001(?=[,.;:!?)\]}’”'»]|$)/g, '')
    .replace(/(^|[(\[{‘“«])\u0001/g, '$1')
    .replace(/\u0001/g, ' ')
    .trim();
}

/** `strong="H07225"` (possibly several, comma or space separated) → ["H7225"]. Cached: the
 * WEB has 631k \w attribute strings but only ~14k distinct ones. */
const strongsCache = new Map<string, string[]>();
function strongsOf(attributes: string, where: () => string): string[] {
  const cached = strongsCache.get(attributes);
  if (cached) return cached;
  const out: string[] = [];
  for (const [, key, value] of attributes.matchAll(/([\w-]+)="([^"]*)"/g)) {
    if (key !== 'strong' && key !== 'x-strong') continue;
    for (const s of value.split(/[\s,]+/).filter(Boolean)) {
      const m = /^([HG])0*([1-9][0-9]*)([a-z]?)$/i.exec(s);
      if (!m) throw new Error(`${where()}: Strong's number '${s}' not understood`);
      out.push(`${m[1].toUpperCase()}${m[2]}${m[3].toLowerCase()}`);
    }
  }
  strongsCache.set(attributes, out);
  return out;
}

/** The book of one USFM file, or null for a non-scripture file (front matter, glossary …). */
export function readUsfm(file: string, usfm: string): UsfmBook | null {
  const id = /^\uFEFF?\\id ([A-Z0-9]{3})\b/.exec(usfm);
  if (!id) throw new Error(`${file}: does not start with \\id <book code>`);
  const code = id[1];
  if (NON_SCRIPTURE.test(code)) return null;
  const osis = USFM_TO_OSIS[code];
  if (!osis) throw new Error(`${file}: unknown USFM book code ${code}`);
  book(osis); // throws if books.ts lacks the id
  type Open = { verse: Verse; parts: string[]; strongs: string[] };
  const verses: Verse[] = [];
  const notes: string[] = [];
  const chapters = new Set<number>();
  let chapter = 0;
  let inChapter = new Map<number, Open>(); // verse number (each number of a range) → its verse
  let segments = new Map<number, string[]>(); // verse → lettered segments merged into it
  let open: Open | undefined;
  let mode: 'flow' | 'drop' | 'title' = 'drop'; // the rest of the \id line is dropped
  let marker = 'id'; // current paragraph marker
  let island: string | undefined; // note or span being dropped
  let dropped = ''; // text of a mid-chapter \d label, for its note
  let labels = 0; // mid-chapter \d labels in this chapter
  let titled: Open | undefined; // verse 0 made from a \d title
  const chars: string[] = []; // open character markers
  let attrs = false; // inside \w after its '|'
  let arg: 'c' | 'v' | undefined;
  const where = () => `${file}: ${code} ${chapter ? `chapter ${chapter}` : 'before chapter 1'}, in \\${marker}`;
  const close = () => {
    if (!open) return;
    open.verse.text = finish(open.parts.join(''));
    if (open.strongs.length) open.verse.strongs = open.strongs;
    open = undefined;
  };
  const startVerse = (n: number, last = n) => {
    close();
    const o: Open = { verse: { book: osis, chapter, verse: n, text: '' }, parts: [], strongs: [] };
    for (let k = n; k <= last; k++) {
      if (inChapter.has(k)) throw new Error(`${where()}: verse ${k} appears twice`);
      inChapter.set(k, o);
    }
    verses.push(o.verse);
    // The other numbers of a range are present and empty (as the OSIS reader does for merged verses).
    for (let k = n + 1; k <= last; k++) verses.push({ book: osis, chapter, verse: k, text: '' });
    open = o;
  };
  const endChapter = () => {
    close();
    if (titled && labels) {
      // Several \d in one chapter (Psalm 119's ALEPH, BETH …) are section labels, not a title.
      verses.splice(verses.indexOf(titled.verse), 1);
      notes.push(`${osis} ${chapter}: \\d label '${titled.verse.text}' before verse 1 dropped`);
    }
    [titled, labels] = [undefined, 0];
    for (const [n, s] of segments) notes.push(`${osis} ${chapter}:${n} holds lettered segments ${s.join(' ')}`);
  };
  const endParagraph = () => {
    if (mode === 'drop' && marker === 'd' && dropped.trim()) {
      notes.push(`${osis} ${chapter}: \\d label '${finish(dropped)}' after verse ${open?.verse.verse} dropped`);
      labels++;
    }
    if (mode === 'title') close(); // verse 0 ends with its paragraph
    dropped = '';
  };
  const number = (a: string) => {
    if (arg === 'c') {
      const n = /^[1-9][0-9]*$/.test(a) ? Number(a) : 0;
      if (!n) throw new Error(`${where()}: chapter '${a}' not understood`);
      if (chapter) endChapter();
      if (chapters.has(n)) throw new Error(`${file}: ${code} chapter ${n} appears twice`);
      chapters.add(n);
      [chapter, inChapter, segments] = [n, new Map(), new Map()];
      return;
    }
    const v = /^([1-9][0-9]*)([a-z]?)(?:-([1-9][0-9]*))?$/.exec(a);
    if (!v || (v[2] && v[3]) || Number(v[3] ?? v[1]) < Number(v[1])) throw new Error(`${where()}: verse '${a}' not understood`);
    const n = Number(v[1]);
    const base = inChapter.get(n);
    if (v[2] && base) {
      // Lettered segment of the verse just read: appended to it.
      if (open !== base) throw new Error(`${where()}: segment ${a} does not follow verse ${n}`);
      if (!segments.has(n)) segments.set(n, []);
      segments.get(n)!.push(a);
      open.parts.push(' ');
      return;
    }
    if (v[2]) notes.push(`${osis} ${chapter}:${n} starts with segment ${a} (there is no plain ${n})`);
    if (v[3]) notes.push(`${osis} ${chapter}:${a} is one verse in the source: text on ${n}, the rest empty`);
    startVerse(n, Number(v[3] ?? n));
  };

  for (const m of usfm.slice(id[0].length).matchAll(/\\(\+?)([a-z][a-z0-9]*)(?:(\*)| ?)|([^\\]+)|\\/g)) {
    const [, plus, name, star = '', text] = m;
    if (text !== undefined) {
      let t = text;
      if (arg) {
        const a = /^\s*(\S+)\s?/.exec(t);
        if (!a) throw new Error(`${where()}: \\${arg} without a number`);
        number(a[1]);
        arg = undefined;
        t = t.slice(a[0].length);
      }
      if (island || attrs) continue;
      let strongs: string[] = [];
      if (chars[chars.length - 1]?.endsWith('w') && t.includes('|')) {
        strongs = strongsOf(t.slice(t.indexOf('|') + 1), where);
        t = t.slice(0, t.indexOf('|'));
        attrs = true;
      }
      if (t.includes('~') || t.includes('//')) t = t.replace(/~/g, '\u00a0').replace(/\/\//g, ' '); // no-break space, optional break
      if (mode === 'drop') {
        if (marker === 'd') dropped += t;
        continue;
      }
      if (!open && chapter && !inChapter.size && (t.trim() || strongs.length)) {
        // Text before a chapter's first verse: a superscription, kept as verse 0.
        if (mode !== 'title') notes.push(`${osis} ${chapter}:0 is text before verse 1 (in \\${marker})`);
        startVerse(0);
        if (mode === 'title') titled = open;
      }
      if (!open) {
        if (t.trim()) throw new Error(`${where()}: text outside a verse: '${t.trim().slice(0, 40)}'`);
      } else {
        open.parts.push(t);
        open.strongs.push(...strongs);
      }
      continue;
    }
    if (!name) throw new Error(`${where()}: stray backslash`);
    const full = plus + name;
    if (arg) throw new Error(`${where()}: \\${full} where the number of \\${arg} was expected`);
    // Inside a dropped note or span only its own close marker matters.
    if (island) {
      if (star && !plus && name === island) {
        island = undefined;
        open?.parts.push(SOFT); // a note between two words still separates them
      } else if (!star && (name === 'c' || name === 'v' || FLOW.has(name) || HEADING.has(name))) {
        throw new Error(`${where()}: \\${island} not closed before \\${name}`);
      }
      continue;
    }
    if (star) {
      if (chars.pop() !== full) throw new Error(`${where()}: \\${full}* closes nothing open`);
      attrs = false;
      continue;
    }
    if (ISLAND.has(name) && !plus) {
      island = name;
      open?.parts.push(SOFT);
      continue;
    }
    if (CHAR.has(name)) {
      chars.push(full); // kept as its text
      continue;
    }
    // Markers below end a span, so no character marker may still be open.
    if (chars.length) throw new Error(`${where()}: \\${chars[chars.length - 1]} not closed before \\${full}`);
    if (name === 'v' || name === 'c') {
      if (name === 'v' && !chapter) throw new Error(`${where()}: \\v before \\c`);
      // Brenton: an empty \d then "\v 1 <title>": the title is that verse's text.
      if (name === 'v' && marker === 'd' && !dropped.trim()) mode = 'flow';
      if (name === 'v' && mode === 'drop') throw new Error(`${where()}: \\v inside a dropped paragraph`);
      if (name === 'c') close();
      arg = name;
      continue;
    }
    if (!FLOW.has(name) && !HEADING.has(name) && !INTRO.has(name) && name !== 'd') {
      throw new Error(`${where()}: unknown marker \\${full}`);
    }
    endParagraph();
    marker = name;
    if (FLOW.has(name)) {
      if (!chapter) throw new Error(`${where()}: verse paragraph before chapter 1`);
      mode = 'flow';
      open?.parts.push(' ');
    } else if (name === 'd') {
      if (!chapter) throw new Error(`${where()}: \\d before chapter 1`);
      mode = inChapter.size ? 'drop' : 'title';
    } else if (HEADING.has(name)) {
      mode = 'drop';
      open?.parts.push(' ');
    } else {
      if (chapter) throw new Error(`${where()}: introduction paragraph \\${name} inside the text`);
      mode = 'drop'; // INTRO
    }
  }
  if (arg) throw new Error(`${where()}: \\${arg} without a number at end of file`);
  if (island) throw new Error(`${where()}: \\${island} not closed at end of file`);
  if (chars.length) throw new Error(`${where()}: \\${chars[chars.length - 1]} not closed at end of file`);
  endParagraph();
  endChapter();
  if (!verses.length) throw new Error(`${file}: ${code} has no verses`);
  return { code, osis, verses, notes };
}
