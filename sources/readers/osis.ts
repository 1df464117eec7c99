/**
 * OSIS XML → verses. Streams the document with saxes (a whole Bible is megabytes of
 * XML; no DOM needed) and reads both ways OSIS marks verses:
 *
 *   container:  <verse osisID="Gen.1.1">In the beginning …</verse>
 *   milestone:  <verse sID="Gen.1.1" osisID="Gen.1.1"/>In the beginning …<verse eID="Gen.1.1"/>
 *
 * Milestones exist because verses cross paragraph and poetry-line boundaries
 * (`<p>…<verse sID/>…</p><p>…<verse eID/>`), so text is collected by "which verse is
 * open", never by element nesting.
 *
 * Text rules (what a reader of `Verse.text` expects): notes, headings (`<title>`, including
 * canonical psalm superscriptions) and colophons are dropped; the words inside
 * divineName, transChange, q, l, hi, w … are kept; block boundaries (p, l, lg, lb …)
 * become a space; runs of XML whitespace collapse to one space. Strong's numbers on
 * `<w lemma="strong:H1234">` are collected per verse in document order.
 *
 * Elements we do not know throw with the file and line: silently dropping or keeping
 * unknown markup is how wrong text ships.
 */
import { SaxesParser } from 'saxes';
import type { Verse } from '../scripture/contract.ts';
import { book } from '../scripture/books.ts';

/** Content dropped with everything inside it. `header` holds work metadata, not text. */
const SKIP = new Set(['header', 'note', 'title', 'index', 'figure', 'rdgGroup']);
/** Block-level elements: their edges separate words even when the XML has no whitespace there. */
const BLOCK = new Set(['p', 'l', 'lg', 'lb', 'div', 'chapter', 'list', 'item', 'table', 'row', 'cell', 'closer', 'salute', 'signed', 'speech', 'milestone']);
/** Inline elements whose text is kept as is. */
const INLINE = new Set([
  'osis', 'osisText', 'divineName', 'transChange', 'q', 'w', 'hi', 'seg', 'foreign', 'name', 'inscription',
  'abbr', 'reference', 'catchWord', 'mentioned', 'a', 'rdg',
]);
/** Named HTML entities some converters leave in OSIS; XML itself only defines five. */
const HTML_ENTITIES: Record<string, string> = {
  nbsp: '\u00a0', ndash: '\u2013', mdash: '\u2014', lsquo: '\u2018', rsquo: '\u2019',
  ldquo: '\u201c', rdquo: '\u201d', hellip: '\u2026', para: '\u00b6', sect: '\u00a7',
};

export interface OsisOptions {
  /** Named in error messages, e.g. the upstream URL. */
  file: string;
}

interface Open {
  ids: string[];
  parts: string[];
  strongs: string[];
  line: number;
  /** Container verses close with their element; milestones with a matching eID. */
  container: boolean;
}

/** Collapses XML whitespace (not NBSP or thin spaces, which are typography) and trims. */
export const collapse = (s: string) => s.replace(/[ \t\r\n]+/g, ' ').trim();

/** "strong:H07225" → "H7225"; other lemma schemes (lemma.TR:…) are not Strong's and are skipped. */
export function strongsOf(lemma: string, where: string): string[] {
  const out: string[] = [];
  for (const token of lemma.split(/\s+/)) {
    if (!token.startsWith('strong:')) continue;
    const m = /^([HG])0*(\d+)([a-z]?)$/i.exec(token.slice(7));
    if (!m) throw new Error(`${where}: Strong's number '${token}' not understood`);
    out.push(`${m[1].toUpperCase()}${m[2]}${m[3].toLowerCase()}`);
  }
  return out;
}

/** "Gen.1.1" (optionally "KJV:Gen.1.1") → its parts; the book must be one books.ts knows. */
function parseId(id: string, where: string): { book: string; chapter: number; verse: number } {
  const m = /^(?:[^:]+:)?([1-4]?[A-Za-z]+)\.(\d+)\.(\d+)$/.exec(id);
  if (!m) throw new Error(`${where}: verse osisID '${id}' not understood`);
  try {
    book(m[1]);
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`);
  }
  return { book: m[1], chapter: Number(m[2]), verse: Number(m[3]) };
}

/**
 * Every verse of an OSIS document, in document order. A verse whose osisID lists several
 * verses (`osisID="Gen.1.1 Gen.1.2"`, verses the translators merged) gives its text to
 * the first and an empty text to the rest, so every numbered verse still exists.
 */
export function readOsis(xml: string, { file }: OsisOptions): Verse[] {
  const parser = new SaxesParser<{ xmlns: false; fileName: string; position: true }>({ xmlns: false, fileName: file, position: true });
  Object.assign(parser.ENTITIES, HTML_ENTITIES);
  const where = () => `${file}:${parser.line}`;
  const verses: Verse[] = [];
  const seen = new Set<string>();
  /** One entry per open element: its local name, whether it is a container verse, and any q marker. */
  const stack: { name: string; verse: boolean; marker?: string }[] = [];
  let skipDepth = 0;
  let open: Open | undefined;

  const emit = (s: string) => {
    if (open) open.parts.push(s);
  };
  const start = (osisID: string, container: boolean) => {
    const ids = osisID.trim().split(/\s+/);
    for (const id of ids) parseId(id, where());
    open = { ids, parts: [], strongs: [], line: parser.line, container };
  };
  const finish = () => {
    if (!open) return;
    open.ids.forEach((id, i) => {
      if (seen.has(id)) throw new Error(`${file}:${open!.line}: verse ${id} occurs twice`);
      seen.add(id);
      const v: Verse = { ...parseId(id, `${file}:${open!.line}`), text: i === 0 ? collapse(open!.parts.join('')) : '' };
      if (i === 0 && open!.strongs.length) v.strongs = open!.strongs;
      verses.push(v);
    });
    open = undefined;
  };

  parser.on('opentag', (tag) => {
    const name = tag.name.slice(tag.name.indexOf(':') + 1);
    const a = tag.attributes;
    const entry: { name: string; verse: boolean; marker?: string } = { name, verse: false };
    if (!tag.isSelfClosing) stack.push(entry);
    // Colophons ("Written to the Romans from Corinthus…") sit inside the last verse in SWORD
    // exports; they are editorial subscriptions, not verse text.
    if (skipDepth > 0 || SKIP.has(name) || (name === 'div' && a.type === 'colophon')) {
      if (!tag.isSelfClosing) skipDepth++;
      return;
    }
    if (name === 'verse') {
      if (a.eID !== undefined) {
        if (!open || open.container) throw new Error(`${where()}: <verse eID="${a.eID}"> with no open milestone verse`);
        if (open.ids[0] !== a.eID && !open.ids.includes(a.eID)) throw new Error(`${where()}: <verse eID="${a.eID}"> closes ${open.ids[0]}`);
        finish();
      } else {
        const id = a.osisID ?? a.sID;
        if (!id) throw new Error(`${where()}: <verse> without osisID, sID or eID`);
        if (open?.container) throw new Error(`${where()}: verse ${id} starts inside container verse ${open.ids[0]}`);
        // Some exporters omit eIDs: a new milestone start closes the previous verse.
        finish();
        const container = !tag.isSelfClosing && a.sID === undefined;
        start(id, container);
        entry.verse = container;
      }
      return;
    }
    if (BLOCK.has(name)) {
      emit(' ');
    } else if (!INLINE.has(name)) {
      throw new Error(`${where()}: OSIS element <${name}> not understood`);
    }
    if (name === 'w' && a.lemma && open) open.strongs.push(...strongsOf(a.lemma, where()));
    // Files that leave quotation marks to the renderer put them in q's marker attribute.
    if (name === 'q' && a.marker) {
      emit(a.marker);
      entry.marker = a.marker;
    }
    // A book ends any milestone verse left open (exports without eIDs).
    if (name === 'div' && a.type === 'book') finish();
  });

  parser.on('closetag', (tag) => {
    if (tag.isSelfClosing) return;
    const entry = stack.pop()!;
    if (skipDepth > 0) {
      skipDepth--;
      return;
    }
    if (entry.verse) finish();
    else if (entry.marker && !tag.attributes.sID) emit(entry.marker);
    if (BLOCK.has(entry.name)) emit(' ');
    if (entry.name === 'div' && tag.attributes.type === 'book') finish();
  });

  const onText = (text: string) => {
    if (skipDepth > 0) return;
    if (open) open.parts.push(text);
    else if (text.trim() && stack.some((e) => e.name === 'osisText')) {
      throw new Error(`${where()}: text outside any verse: '${collapse(text).slice(0, 60)}'`);
    }
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('error', (e) => {
    throw new Error(`${file}: ${e.message}`);
  });

  parser.write(xml).close();
  finish();
  return verses;
}

/**
 * Text and Strong's of one verse's OSIS fragment (as SWORD modules store verse markup):
 * the same rules as readOsis, for markup that has no <verse> elements of its own.
 */
export function readOsisFragment(fragment: string, where: string): { text: string; strongs?: string[] } {
  const verses = readOsis(`<osisText><verse osisID="Gen.1.1">${fragment}</verse></osisText>`, { file: where });
  const { text, strongs } = verses[0];
  return strongs ? { text, strongs } : { text };
}
