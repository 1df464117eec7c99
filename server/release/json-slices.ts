/**
 * JSON.parse of a large release file (a filter index, a column: up to 3 MB, 20–60 ms of
 * JSON.parse on this VM) in slices that share the event loop by turns (search/turns.ts,
 * in the lane of a request's own work, ahead of index loads), so a filter request does
 * not hold every other request for its parse (issue 27). The text's top-level array or object is cut at its own commas
 * into pieces of about CHUNK characters, each parsed by JSON.parse and added to the
 * result in order: the same value as one JSON.parse of the whole text, keys in the same
 * order. Small texts are parsed at once.
 */
import { runInTurns } from '../search/turns.ts';
import { SEARCH_SLICE_MS } from '../search/search-bounds.ts';

/** Texts from this length on are parsed in slices. */
export const SLICED_JSON_FROM = 256 * 1024;
const CHUNK = 64 * 1024;
const QUOTE = 34, COMMA = 44, LBRACKET = 91, BACKSLASH = 92, RBRACKET = 93, LBRACE = 123, RBRACE = 125;

/** The value of a JSON text: at once when small, else in slices (see above). */
export function parseJson(text: string, sliceMs = SEARCH_SLICE_MS): unknown {
  if (text.length < SLICED_JSON_FROM) return JSON.parse(text);
  // A request's own work, bounded by the file's size: ahead of index loads (turns.ts).
  return runInTurns(jsonSteps(text), sliceMs, 'request');
}

/** The steps of parseJson: cut, parse and assemble, yielding between pieces. */
export function* jsonSteps(t: string, chunk = CHUNK): Generator<void, unknown> {
  const n = t.length;
  let i = 0;
  for (let c = t.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = t.charCodeAt(++i));
  const open = t.charCodeAt(i);
  if (open !== LBRACE && open !== LBRACKET) return JSON.parse(t);
  const isObject = open === LBRACE;
  const [before, after] = isObject ? ['{', '}'] : ['[', ']'];
  const list: unknown[] = [];
  const object: Record<string, unknown> = {};
  const add = (from: number, to: number) => {
    const part = JSON.parse(before + t.slice(from, to) + after) as unknown[] | Record<string, unknown>;
    if (Array.isArray(part)) for (let k = 0; k < part.length; k++) list.push(part[k]);
    else {
      for (const key of Object.keys(part)) {
        // As JSON.parse makes it: an own property, never the prototype setter.
        if (key === '__proto__') Object.defineProperty(object, key, { value: part[key], enumerable: true, writable: true, configurable: true });
        else object[key] = part[key];
      }
    }
  };
  let depth = 0;
  let start = i + 1;
  let end = -1;
  for (let p = i, scanned = 0; p < n; p++) {
    const c = t.charCodeAt(p);
    if (c === QUOTE) {
      // To the closing quote: one not escaped by an odd run of backslashes.
      for (let j = t.indexOf('"', p + 1); ; j = t.indexOf('"', j + 1)) {
        if (j < 0) return JSON.parse(t); // unterminated: JSON.parse says where
        let k = j - 1;
        while (t.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) {
          scanned += j - p;
          p = j;
          break;
        }
      }
    } else if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      if (--depth === 0) {
        end = p;
        break;
      }
    } else if (c === COMMA && depth === 1 && p - start >= chunk) {
      add(start, p);
      start = p + 1;
      yield;
    }
    if (++scanned >= chunk) {
      scanned = 0;
      yield;
    }
  }
  // Anything but white space after the value (or no end): JSON.parse's own error.
  if (end < 0 || t.slice(end + 1).trim() !== '') return JSON.parse(t);
  add(start, end);
  return isObject ? object : list;
}
