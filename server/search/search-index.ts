/**
 * Reading a loaded minisearch index directly, for the search cost bound
 * (server/search-bounds.ts): how many index entries a word touches, and the ranking by
 * match kind used when a query touches too many entries for minisearch to score. Both
 * read minisearch's radix tree (`_index`) and id map (`_documentIds`), which it does not
 * export as API: minisearch is pinned at 7.2.0, and test/hardening.test.ts checks the
 * results against minisearch's own.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { typoKeepsPrefix } from '../../pipeline/search-parts.ts';
import { STEM_FIELD } from '../../pipeline/stemming.ts';
import { BOUNDED_MATCH, MAX_POSTINGS, SEARCH_SLICE_MS } from './search-bounds.ts';
import { runInTurns } from './turns.ts';

export type TermData = Map<number, Map<number, number>>;
/** What one expanded word costs minisearch, in postings (measured with bench/worst-query.ts). */
const TERM_COST = 20;
/**
 * Index entries (document postings, all fields) a word touches in a minisearch index,
 * counted the way minisearch expands it: the word itself, its prefix matches, its typo
 * matches. Reads minisearch's radix tree (`_index`), which it does not export as API;
 * pinned minisearch 7.2.0, and test/hardening.test.ts checks the count against results.
 */
type RadixIndex = { get(t: string): TermData | undefined; atPrefix(t: string): Iterable<[string, TermData]>; fuzzyGet(t: string, d: number): Map<string, [TermData, number]> };
const radix = (ms: MiniSearch) => (ms as unknown as { _index: RadixIndex })._index;
/** The field id of an index's hidden stems (pipeline/stemming.ts), -1 when it has none. */
const stemFieldId = (ms: MiniSearch) => (ms as unknown as { _fieldIds: Record<string, number> })._fieldIds[STEM_FIELD] ?? -1;
/** A word's postings per field, without the hidden stems: what a search of the record's own fields reads. */
const ownFields = (d: TermData, stem: number) => [...d].filter(([field]) => field !== stem).map(([, docs]) => docs);

/**
 * Every indexed word `w` matches the way minisearch expands it, as the postings of the
 * record's own fields (never the hidden stems: a word found only there is skipped, so an
 * index with stems counts and matches as the same index without them), with its kind:
 * 3 itself, 2 by prefix, 1 with a typo.
 */
export function* matchingTerms(ms: MiniSearch, w: string, expand: boolean): Generator<[Map<number, number>[], number]> {
  const index = radix(ms);
  const stem = stemFieldId(ms);
  const own = (d: TermData) => (stem < 0 ? [...d.values()] : ownFields(d, stem));
  let lists: Map<number, number>[];
  if (!expand || !BOUNDED_MATCH.prefix(w)) {
    const d = index.get(w);
    if (d && (lists = own(d)).length) yield [lists, 3];
    return;
  }
  for (const [t, d] of index.atPrefix(w)) if ((lists = own(d)).length) yield [lists, t === w ? 3 : 2];
  const edits = BOUNDED_MATCH.fuzzy(w);
  if (edits) for (const [t, [d]] of index.fuzzyGet(w, edits)) if (!t.startsWith(w) && (lists = own(d)).length) yield [lists, 1];
}

/**
 * The postings a stem `s` of a query word adds (server/search/match-tiers.ts): the
 * records whose words stem to it — in the hidden stem field, and as a whole word of their
 * own fields when the query word is not already `s` (then the word's own match has them).
 */
export function stemPostings(ms: MiniSearch, s: string, word: string): Map<number, number>[] {
  const stem = stemFieldId(ms);
  const d = stem < 0 ? undefined : radix(ms).get(s);
  if (!d) return [];
  return [...d].filter(([field]) => field === stem || s !== word).map(([, docs]) => docs);
}

export function indexEntries(ms: MiniSearch, w: string, expand: boolean, limit = MAX_POSTINGS + 1): number {
  let n = 0;
  // Each matching word costs minisearch a pass of its own besides its postings. Stop
  // counting once over the limit: counting a huge expansion must stay cheap too.
  for (const [lists] of matchingTerms(ms, w, expand)) {
    n += TERM_COST;
    for (const docs of lists) n += docs.size;
    if (n > limit) return n;
  }
  return n;
}

/**
 * Per index, minisearch's internal id → the record's ordinal, and whether ordinals rise
 * with internal ids (they do when records were added in list order). Built once per
 * loaded index: a Map lookup per hit cost more than the match. Where every ordinal is its
 * id plus one constant (records added in list order, none skipped) that constant is all
 * that is kept, so a part of a split index (pipeline/search-parts.ts) does not carry a
 * table the size of its whole shard.
 */
type Ordinals = { ord: Float64Array | null; base: number; rising: boolean; size: number };
const ordinalTables = new WeakMap<MiniSearch, Ordinals>();
export function ordinalTable(ms: MiniSearch): Ordinals {
  let t = ordinalTables.get(ms);
  if (!t) {
    const ids = (ms as unknown as { _documentIds: Map<number, number>; _nextId: number });
    let base: number | null = null;
    for (const [id, ordinal] of ids._documentIds) {
      if (base === null) base = ordinal - id;
      else if (ordinal - id !== base) {
        base = null;
        break;
      }
    }
    if (base !== null) t = { ord: null, base, rising: true, size: ids._nextId };
    else {
      const ord = new Float64Array(ids._nextId).fill(-1);
      for (const [id, ordinal] of ids._documentIds) ord[id] = ordinal;
      let rising = true;
      for (let i = 1, last = -1; i < ord.length && rising; i++) if (ord[i] >= 0) (rising = ord[i] > last), (last = ord[i]);
      t = { ord, base: 0, rising, size: ids._nextId };
    }
    ordinalTables.set(ms, t);
  }
  return t;
}

/**
 * The documents matching every word (AND), from the postings alone, ranked by match kind
 * (whole word 3, prefix 2, typo 1, summed over the words), then list order: the term
 * index's rule, at a fraction of minisearch's cost per entry. Returns the ordinals per
 * score, each list ascending. Scores live in a byte per document (at most 8 words × 3),
 * not a Map: a common word touches tens of thousands of documents (issue 14: holidays
 * "day", 61k hits, went from 30–40 ms to a few ms).
 */
export function* matchRanked(msFor: (word: string) => MiniSearch, words: string[], narrow: Set<string>): Generator<void, Map<number, number[]>> {
  // Rarest word first (by its counted entries), then each later word only filters the
  // candidates: a lookup per posting, never a full map of a common word. A split index
  // gives each word its own part, all numbering documents alike; every document left at
  // the end has the rarest word, so that word's part knows all their ordinals.
  const byCost = [...words].sort((a, b) => indexEntries(msFor(a), a, !narrow.has(a)) - indexEntries(msFor(b), b, !narrow.has(b)));
  if (!byCost.length) return new Map();
  const { ord, base, rising, size } = ordinalTable(msFor(byCost[0]));
  let scores: Uint8Array | null = null;
  let steps = 0;
  for (const w of byCost) {
    yield;
    const next: Uint8Array = new Uint8Array(size);
    let any = false;
    for (const [lists, mark] of matchingTerms(msFor(w), w, !narrow.has(w))) {
      for (const byDoc of lists) {
        for (const id of byDoc.keys()) {
          // A pause point every 1024 postings; the driver decides whether to yield.
          if ((++steps & 1023) === 0) yield;
          const prev: number = scores === null ? 0 : scores[id];
          if (scores !== null && prev === 0) continue;
          if (next[id] < prev + mark) (next[id] = prev + mark), (any = true);
        }
      }
    }
    if (!any) return new Map();
    scores = next;
  }
  const buckets = new Map<number, number[]>();
  if (!scores) return buckets;
  // A ranked index (stored __rank: population, prominence) orders ties by rank, then list
  // order, as the scored search weights them (issue 26, item 2: three NAICS vintages of
  // "Offices of Dentists" tie on match kind; the current one comes first).
  const stored = (msFor(byCost[0]) as unknown as { _storedFields?: Map<number, { __rank?: number }> })._storedFields;
  const ranks = new Map<number, number>();
  for (let id = 0; id < scores.length; id++) {
    const score = scores[id];
    if (score === 0) continue;
    const o = ord ? ord[id] : id + base;
    const rank = stored?.get(id)?.__rank;
    if (rank) ranks.set(o, rank);
    const list = buckets.get(score);
    if (list) list.push(o);
    else buckets.set(score, [o]);
    if ((id & 16383) === 16383) yield;
  }
  if (!rising) for (const list of buckets.values()) list.sort((a, b) => a - b);
  if (ranks.size) for (const list of buckets.values()) list.sort((a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0) || a - b);
  return buckets;
}

/**
 * The typo rule of split indexes, applied to every loaded index so that split and whole
 * ones answer alike: a typo match must start with the word's first TYPO_FREE_PREFIX
 * letters (pipeline/search-parts.ts). Both minisearch's search and matchingTerms above
 * find typo matches through the radix tree's fuzzyGet, so that is where it is applied.
 */
export function keepTypoPrefix(ms: MiniSearch): MiniSearch {
  const index = radix(ms);
  const fuzzyGet = index.fuzzyGet.bind(index);
  index.fuzzyGet = (term, distance) => {
    const found = fuzzyGet(term, distance);
    for (const t of found.keys()) if (!typoKeepsPrefix(term, t)) found.delete(t);
    return found;
  };
  return ms;
}

type RawResult = Map<number, { score: number; terms: string[] }>;
type Internals = {
  executeQuery(q: string, options: SearchOptions): RawResult;
  combineResults(results: RawResult[], combineWith: string): RawResult;
  _documentIds: Map<number, number>;
};

/**
 * minisearch's search (AND of the words) over a split index: each word is looked up in
 * its own part, then the per-word results are combined and finished exactly as
 * MiniSearch#search does (sum of the words' scores × the number of query words matched,
 * best first, ties in minisearch's order), so the answer equals the whole index's.
 * `terms` are the query's words after the index's processTerm (stop words removed).
 */
export function searchSplit(msFor: (term: string) => MiniSearch, terms: string[], options: SearchOptions): { id: number; score: number }[] {
  if (!terms.length) return [];
  const raws = terms.map((t) => (msFor(t) as unknown as Internals).executeQuery(t, options));
  const last = msFor(terms[terms.length - 1]) as unknown as Internals;
  const combined = last.combineResults(raws, 'and');
  const out: { id: number; score: number }[] = [];
  for (const [shortId, r] of combined) out.push({ id: last._documentIds.get(shortId)!, score: r.score * (r.terms.length || 1) });
  return out.sort((a, b) => b.score - a.score);
}

type Serialized = ReturnType<MiniSearch['toJSON']>;
type LoadOptions = ConstructorParameters<typeof MiniSearch>[0];
type Radix = { set(term: string, data: TermData): void };
/** minisearch's radix tree class (not exported as API; pinned 7.2.0), to build a loaded index's tree before the index. */
const SearchableMap = (new MiniSearch({ fields: ['_'] }) as unknown as { _index: { constructor: new () => Radix } })._index.constructor;
/** Terms of the indexes loaded here: the radix tree's own count walks the whole tree (~40 ms for a large part). */
const loadedTerms = new WeakMap<MiniSearch, number>();
/** The number of terms of an index: counted while loading, else minisearch's own count. */
export const termCountOf = (ms: MiniSearch) => loadedTerms.get(ms) ?? ms.termCount;

/**
 * MiniSearch.loadJSON in slices, sharing the event loop by turns (turns.ts): the JSON text
 * is read in one pass straight into the index's maps, pausing every 1,024 entries, with
 * at most one slice of about `sliceMs` per event-loop turn among all loads and rankings.
 *
 * Issue 27: the earlier loader parsed the whole text at once (JSON.parse of population's
 * largest part, 10 MB: 80–130 ms on an idle machine) and built the documents' maps in one
 * go (loadJS), so the event loop stood still for hundreds of milliseconds per large part,
 * and every load under way added its own slice to each turn. This reads the text with a cursor:
 * integer keys and values (document ids, field lengths, postings) are read digit by digit
 * into the maps, anything else (stored fields, a key or number of another shape) is
 * parsed by JSON.parse from its own slice of the text, so the index is the one loadJSON
 * builds (test/search-parts.test.ts compares them), in the same insertion order.
 * A text not in minisearch's version-2 layout (its last key `serializationVersion: 2`)
 * is loaded as before: parsed at once, then its terms in slices.
 */
export async function loadIndexSliced(text: string, options: LoadOptions, sliceMs = SEARCH_SLICE_MS): Promise<MiniSearch> {
  return /"serializationVersion":2\}\s*$/.test(text.slice(-40))
    ? runInTurns(indexReader(text, options), sliceMs, 'load')
    : runInTurns(parsedAtOnce(text, options), sliceMs, 'load');
}

/** The earlier loader: the whole text parsed at once, then the terms in slices. */
function* parsedAtOnce(text: string, options: LoadOptions): Generator<void, MiniSearch> {
  const js = JSON.parse(text) as Serialized;
  const ms = (MiniSearch as unknown as { loadJS(js: Serialized, o: LoadOptions): MiniSearch }).loadJS({ ...js, index: [] }, options);
  const tree = (ms as unknown as { _index: Radix })._index;
  const v1 = (js as { serializationVersion?: number }).serializationVersion === 1;
  for (let i = 0; i < js.index.length; i++) {
    const [term, byField] = js.index[i];
    const data: TermData = new Map();
    for (const fieldId of Object.keys(byField)) {
      const docs = new Map<number, number>();
      const entry = (v1 ? (byField[fieldId] as unknown as { ds: Record<string, number> }).ds : byField[fieldId]) as Record<string, number>;
      for (const d of Object.keys(entry)) docs.set(parseInt(d, 10), entry[d]);
      data.set(parseInt(fieldId, 10), docs);
    }
    tree.set(term, data);
    if ((i & 63) === 63) yield;
  }
  loadedTerms.set(ms, js.index.length);
  return ms;
}

const QUOTE = 34, COMMA = 44, COLON = 58, LBRACKET = 91, BACKSLASH = 92, RBRACKET = 93, LBRACE = 123, RBRACE = 125;

/**
 * A serialized index read straight into its maps (the steps of loadIndexSliced). Yields
 * every 1,024 entries. Throws a SyntaxError on text that is not JSON of that shape.
 */
function* indexReader(t: string, options: LoadOptions): Generator<void, MiniSearch> {
  const n = t.length;
  let i = 0;
  let count = 0;
  const bad = (what: string): never => {
    throw new SyntaxError(`search index JSON: ${what} at position ${i}`);
  };
  const space = () => {
    for (let c = t.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = t.charCodeAt(++i));
  };
  const expect = (code: number) => {
    space();
    if (t.charCodeAt(i) !== code) bad(`'${String.fromCharCode(code)}' expected`);
    i++;
  };
  /** Index of the quote that closes the string opened at `q`. */
  const closing = (q: number): number => {
    for (let j = t.indexOf('"', q + 1); ; j = t.indexOf('"', j + 1)) {
      if (j < 0) return bad('unterminated string');
      let k = j - 1;
      while (t.charCodeAt(k) === BACKSLASH) k--;
      if ((j - 1 - k) % 2 === 0) return j;
    }
  };
  /** End (exclusive) of the JSON value that starts at `p`. */
  const valueEnd = (p: number): number => {
    const c = t.charCodeAt(p);
    if (c === QUOTE) return closing(p) + 1;
    if (c !== LBRACE && c !== LBRACKET) {
      let e = p;
      for (let d = t.charCodeAt(e); e < n && d !== COMMA && d !== RBRACE && d !== RBRACKET; d = t.charCodeAt(++e));
      return e;
    }
    let depth = 0;
    for (let q = p; q < n; q++) {
      const d = t.charCodeAt(q);
      if (d === QUOTE) q = closing(q);
      else if (d === LBRACE || d === LBRACKET) depth++;
      else if ((d === RBRACE || d === RBRACKET) && --depth === 0) return q + 1;
    }
    return bad('unterminated value');
  };
  /** The JSON value at the cursor, parsed alone. */
  const anyValue = (): unknown => {
    space();
    const e = valueEnd(i);
    const v = JSON.parse(t.slice(i, e));
    i = e;
    return v;
  };
  /**
   * A string at the cursor. A short one without escapes is sliced from the text (V8 copies
   * slices under 13 characters); any other is JSON.parse'd from its slice, which makes a
   * string of its own: a longer slice would be a view that keeps the whole text alive as
   * long as the index holds the term.
   */
  const string = (): string => {
    space();
    if (t.charCodeAt(i) !== QUOTE) bad('string expected');
    const e = closing(i);
    let plain = e - i - 1 < 13;
    for (let k = i + 1; plain && k < e; k++) if (t.charCodeAt(k) === BACKSLASH) plain = false;
    const s = plain ? t.slice(i + 1, e) : (JSON.parse(t.slice(i, e + 1)) as string);
    i = e + 1;
    return s;
  };
  /**
   * A non-negative integer of at most 15 digits at the cursor, ending where a value ends
   * (or, `inKey`, at the key's closing quote), else -1 with the cursor unmoved.
   */
  const digits = (inKey = false): number => {
    let v = 0;
    let k = i;
    for (let c = t.charCodeAt(k); c >= 48 && c <= 57; c = t.charCodeAt(++k)) v = v * 10 + (c - 48);
    const len = k - i;
    // A leading zero, a fraction or exponent, or too many digits: JSON.parse (parseInt for a key) decides.
    if (len === 0 || len > 15 || (len > 1 && t.charCodeAt(i) === 48)) return -1;
    const c = t.charCodeAt(k);
    if (inKey ? c !== QUOTE : c !== COMMA && c !== RBRACE && c !== RBRACKET && c !== 32 && c !== 10 && c !== 13 && c !== 9) return -1;
    i = k;
    // As a small integer (V8 keeps it in the map's slot, as JSON.parse does), not a boxed double.
    return len <= 9 ? v | 0 : v;
  };
  /** An object key as objectToNumericMap reads it: parseInt of the key's text. */
  const numericKey = (): number => {
    space();
    if (t.charCodeAt(i) === QUOTE) {
      i++;
      const v = digits(true);
      if (v >= 0) {
        i++;
        return v;
      }
      i--;
    }
    return parseInt(string(), 10);
  };
  const scratch: number[] = [];
  /** A value as JSON.parse gives it: integers and arrays of integers read here, others parsed alone. */
  const value = (): unknown => {
    space();
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      const v = digits();
      if (v >= 0) return v;
    } else if (c === LBRACKET) {
      const start = i;
      let len = 0;
      i++;
      space();
      if (t.charCodeAt(i) === RBRACKET) {
        i++;
        return [];
      }
      for (;;) {
        space();
        const v = digits();
        if (v < 0) break;
        scratch[len++] = v;
        space();
        const d = t.charCodeAt(i++);
        // A copy of its exact length, as JSON.parse makes (a pushed-to array keeps spare room).
        if (d === RBRACKET) return scratch.slice(0, len);
        if (d !== COMMA) break;
      }
      i = start;
    }
    return anyValue();
  };
  /** An object of integer-like keys into `into` (objectToNumericMap), and each value to its key into `inverse`. */
  function* numericMap<V>(into: Map<number, V>, read: () => V, inverse?: Map<V, number>): Generator<void> {
    expect(LBRACE);
    space();
    if (t.charCodeAt(i) === RBRACE) {
      i++;
      return;
    }
    for (;;) {
      const k = numericKey();
      expect(COLON);
      const v = read();
      into.set(k, v);
      inverse?.set(v, k);
      if ((++count & 1023) === 0) yield;
      space();
      const d = t.charCodeAt(i++);
      if (d === RBRACE) return;
      if (d !== COMMA) bad("',' or '}' expected");
    }
  }
  const tree = new SearchableMap();
  let terms = 0;
  /** The index: [term, {fieldId: {shortId: frequency}}] entries into the radix tree, in order. */
  function* index(): Generator<void> {
    expect(LBRACKET);
    space();
    if (t.charCodeAt(i) === RBRACKET) {
      i++;
      return;
    }
    for (;;) {
      expect(LBRACKET);
      const term = string();
      expect(COMMA);
      const data: TermData = new Map();
      expect(LBRACE);
      space();
      if (t.charCodeAt(i) === RBRACE) i++;
      else {
        for (;;) {
          const field = numericKey();
          expect(COLON);
          const docs = new Map<number, number>();
          yield* numericMap(docs, value as () => number);
          data.set(field, docs);
          space();
          const d = t.charCodeAt(i++);
          if (d === RBRACE) break;
          if (d !== COMMA) bad("',' or '}' expected");
        }
      }
      expect(RBRACKET);
      tree.set(term, data);
      terms++;
      if ((++count & 1023) === 0) yield;
      space();
      const d = t.charCodeAt(i++);
      if (d === RBRACKET) return;
      if (d !== COMMA) bad("',' or ']' expected");
    }
  }

  const documentIds = new Map<number, unknown>();
  const idToShortId = new Map<unknown, number>();
  const fieldLength = new Map<number, unknown>();
  const storedFields = new Map<number, unknown>();
  const header: Record<string, unknown> = {};
  expect(LBRACE);
  space();
  if (t.charCodeAt(i) !== RBRACE) {
    for (;;) {
      const key = string();
      expect(COLON);
      if (key === 'documentIds') yield* numericMap(documentIds, value, idToShortId);
      else if (key === 'fieldLength') yield* numericMap(fieldLength, value);
      else if (key === 'storedFields') yield* numericMap(storedFields, value);
      else if (key === 'index') yield* index();
      else header[key] = anyValue();
      space();
      const d = t.charCodeAt(i++);
      if (d === RBRACE) break;
      if (d !== COMMA) bad("',' or '}' expected");
    }
  } else i++;
  space();
  if (i !== n) bad('unexpected text after the index');
  // minisearch's own instantiation from the header (it checks the version); the maps are ours.
  const ms = (MiniSearch as unknown as { loadJS(js: unknown, o: LoadOptions): MiniSearch }).loadJS({ ...header, documentIds: {}, fieldLength: {}, storedFields: {}, index: [] }, options);
  Object.assign(ms, { _documentIds: documentIds, _idToShortId: idToShortId, _fieldLength: fieldLength, _storedFields: storedFields, _index: tree });
  loadedTerms.set(ms, terms);
  return ms;
}
