/**
 * Turns one verse of SWORD module markup into clean readable text plus the Strong's
 * numbers its words carry. Handles the markups the English zText modules we ship use:
 * OSIS (ASV, Darby, Geneva1599, and DRC whose conf omits SourceType but whose osis2mod
 * build left OSIS milestones in the text), GBF (YLT) and Plaintext (Webster).
 * ThML is not used by any of them and is refused rather than guessed at.
 *
 * Every tag is listed explicitly as "keep its text", "ignore (empty marker)" or "drop
 * with its content" (notes, headings, epistle subscriptions). Any other tag throws,
 * naming the place: an unknown element might carry verse text or a heading, and we
 * would rather stop the build than silently lose or pollute a verse.
 */

export type Markup = 'OSIS' | 'GBF' | 'ThML' | 'Plaintext';

export interface CleanVerse {
  text: string;
  /** Strong's numbers in word order, normalised to "H7225" / "G2316". */
  strongs: string[];
}

/** Marks where dropped material was: becomes a space only between two words (see finish). */
const SOFT = '\u0001';

/** OSIS elements whose text is verse text: the tags themselves are dropped. */
const OSIS_KEEP = new Set(['w', 'divineName', 'hi', 'foreign', 'seg', 'name', 'abbr', 'reference', 'inscription', 'l', 'lg', 'p', 'div']);
/** OSIS empty markers (or milestone halves of kept containers): nothing to output. */
const OSIS_EMPTY = new Set(['milestone', 'lb', 'chapter', 'verse', 'cb', 'pb']);
/** OSIS elements removed with all their content: footnotes, headings, subscriptions. */
const OSIS_DROP = new Set(['note', 'title', 'closer']);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(s: string, where = 'text'): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (all, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    const named = ENTITIES[e];
    if (named === undefined) throw new Error(`${where}: unknown entity ${all}`);
    return named;
  });
}

/** "strong:H07225" / "H07225" / "G2316a" → "H7225" / "G2316a"; undefined if not a Strong's number. */
export function normaliseStrongs(s: string): string | undefined {
  let n = STRONGS.get(s);
  if (n === undefined) {
    const m = /^(?:strong:)?([HG])0*([1-9][0-9]*)([a-z]?)$/i.exec(s.trim());
    n = m ? `${m[1].toUpperCase()}${m[2]}${m[3].toLowerCase()}` : '';
    STRONGS.set(s, n); // a Bible has ~14k distinct numbers and ~700k occurrences
  }
  return n || undefined;
}
const STRONGS = new Map<string, string>();

/** Joins text pieces: SOFT survives only between word characters, whitespace collapses. */
function finish(pieces: string[]): string {
  return pieces
    .join('')
    .replace(/\s+/g, ' ')
    .replace(/[ \u0001]*\u0001[ \u0001]*/g, (m) => (m.includes(' ') ? ' ' : SOFT))
    .replace(/\u0001(?=[,.;:!?)\]}’”'»]|$)/g, '')
    .replace(/(^|[(\[{‘“«])\u0001/g, '$1')
    .replace(/\u0001/g, ' ')
    .trim();
}

const ATTR_RE = new Map<string, RegExp>();
/** One attribute's value from a tag's attribute text, or undefined (no per-tag object: hot loop). */
function attr(rest: string, name: string): string | undefined {
  if (!rest.includes(name)) return undefined;
  let re = ATTR_RE.get(name);
  if (!re) ATTR_RE.set(name, (re = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`)));
  const m = re.exec(rest);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Error prefix: the module and verse, then the offending tag. No per-token closures: hot loop. */
function at(where: string, tok: string): string {
  return `${where}: ${tok.slice(0, 80)}`;
}

function cleanOsis(raw: string, where: string): CleanVerse {
  const pieces: string[] = [];
  const strongs: string[] = [];
  const dropping: string[] = []; // open elements inside a dropped container
  let range: string | undefined; // a dropped sID…eID milestone range, by key
  // Tags are matched with their quoted attribute values, so a '>' inside a value cannot
  // end a tag early and leak attribute text into the verse.
  for (const m of raw.matchAll(/<!--[\s\S]*?-->|<(?:[^<>"']|"[^"]*"|'[^']*')*>|[^<]+|</g)) {
    const tok = m[0];
    if (tok.startsWith('<!--')) continue;
    if (!tok.startsWith('<')) {
      if (!dropping.length && range === undefined) pieces.push(tok.includes('&') ? decodeEntities(tok, where) : tok);
      continue;
    }
    const t = /^<(\/?)([A-Za-z][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>$/.exec(tok);
    if (!t) throw new Error(`${at(where, tok)}: not a tag`);
    const [, close, name, rest, selfClose] = t;
    if (dropping.length) {
      if (close) {
        if (dropping.pop() !== name) throw new Error(`${at(where, tok)}: mismatched close inside a dropped element`);
        if (!dropping.length) pieces.push(SOFT);
      } else if (!selfClose) dropping.push(name);
      continue;
    }
    // Milestone ranges dropped whole: epistle subscriptions (<closer sID/>…<closer eID/>,
    // Geneva1599) and centred acrostic headings (<l type="x-center" sID/>, ASV Ps 119).
    const key = name === 'l' && attr(rest, 'type') === 'x-center' ? 'l x-center' : OSIS_DROP.has(name) ? name : undefined;
    if (range !== undefined) {
      if (key === range && attr(rest, 'eID') !== undefined) { range = undefined; pieces.push(SOFT); }
      continue;
    }
    if (key !== undefined) {
      if (close) throw new Error(`${at(where, tok)}: close without open`);
      if (!selfClose) dropping.push(name);
      else if (attr(rest, 'sID') !== undefined) range = key;
      // An eID whose sID was in an earlier verse: this verse's text so far was inside it.
      else if (attr(rest, 'eID') !== undefined) throw new Error(`${at(where, tok)}: range end without its start in this verse`);
      continue;
    }
    if (name === 'w' && !close) {
      for (const l of (attr(rest, 'lemma') ?? '').split(/\s+/)) {
        if (!l.startsWith('strong:')) continue;
        const s = normaliseStrongs(l);
        if (!s) throw new Error(`${at(where, tok)}: unreadable Strong's ${l}`);
        strongs.push(s);
      }
      continue;
    }
    // Quotation: the marker attribute, when present, is the punctuation to print.
    if (name === 'q') { const marker = attr(rest, 'marker'); if (marker) pieces.push(marker); continue; }
    // transChange wraps whole supplied words; ASV's osis2mod build lost the spaces at ~1,300
    // of its edges ("drive out<transChange>the inhabitants of</transChange>Beth-shean").
    if (name === 'transChange') { pieces.push(SOFT); continue; }
    if (OSIS_KEEP.has(name) || OSIS_EMPTY.has(name)) continue;
    throw new Error(`${at(where, tok)}: unknown OSIS element <${name}>`);
  }
  if (dropping.length) throw new Error(`${where}: <${dropping[0]}> not closed in the verse`);
  return { text: finish(pieces), strongs };
}

/** GBF code pairs whose content is kept (font changes) or dropped (notes, titles). */
const GBF_KEEP = new Set(['FI', 'Fi', 'FR', 'Fr', 'FO', 'Fo', 'FB', 'Fb', 'FU', 'Fu']);
const GBF_DROP: Record<string, string> = { RF: 'Rf', TS: 'Ts' };
/** GBF layout codes: paragraph end, line break. */
const GBF_BREAK = new Set(['CM', 'CL']);

function cleanGbf(raw: string, where: string): CleanVerse {
  const pieces: string[] = [];
  const strongs: string[] = [];
  let until: string | undefined; // closing code of a dropped note/title
  for (const m of raw.matchAll(/<([A-Z][A-Za-z])([^<>]*)>|[^<]+|</g)) {
    const tok = m[0];
    if (m[1] === undefined) {
      if (tok === '<') throw new Error(`${where}: stray '<'`);
      if (until === undefined) pieces.push(tok);
      continue;
    }
    const code = m[1], arg = m[2];
    if (until !== undefined) {
      if (code === until) { until = undefined; pieces.push(SOFT); }
      continue;
    }
    if (code === 'WH' || code === 'WG') {
      const s = normaliseStrongs(code[1] + arg);
      if (!s) throw new Error(`${where}: unreadable Strong's ${tok}`);
      strongs.push(s);
    } else if (code === 'WT') {
      // Morphology code: not text.
    } else if (GBF_DROP[code]) {
      until = GBF_DROP[code];
    } else if (GBF_BREAK.has(code)) {
      pieces.push(SOFT);
    } else if (!GBF_KEEP.has(code) || arg) {
      throw new Error(`${where}: unknown GBF code ${tok}`);
    }
  }
  if (until !== undefined) throw new Error(`${where}: GBF note/title not closed by <${until}>`);
  return { text: finish(pieces), strongs };
}

/** Clean text and Strong's of one verse. `where` names the module and verse in errors. */
export function cleanVerse(raw: string, markup: Markup, where = 'verse'): CleanVerse {
  switch (markup) {
    case 'OSIS':
      return cleanOsis(raw, where);
    case 'GBF':
      return cleanGbf(raw, where);
    case 'Plaintext':
      // Plain text has no markup; a '<' would mean the conf's SourceType is wrong.
      if (raw.includes('<')) throw new Error(`${where}: markup in a Plaintext module: ${raw.slice(raw.indexOf('<'), raw.indexOf('<') + 60)}`);
      return { text: finish([raw]), strongs: [] };
    default:
      throw new Error(`${where}: ${markup} markup is not supported (no shipped module uses it)`);
  }
}
