/**
 * Loading a serialized minisearch index without holding the event loop (issue 27): moved
 * out of search-index.ts, which searches a loaded index. release-search.ts loads with it.
 */
import MiniSearch from 'minisearch';
import { SEARCH_SLICE_MS } from './search-bounds.ts';
import { runInTurns } from './turns.ts';

/** One term's postings: field id → (document short id → term frequency), minisearch's own shape. */
export type TermData = Map<number, Map<number, number>>;

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
