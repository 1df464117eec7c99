/**
 * The (English word, source unit) pairs that co-occur in some verse, numbered densely,
 * for the alignment model (align-evidence.ts). A whole Bible has about 1.8 million such
 * pairs and 14 million verse-level co-occurrences: as string keys in a Map they would
 * take hundreds of MB. Instead the pairs are numbered word by word: for each English
 * word, the verses that have it are visited and each unit met gets the next number
 * (a dense array over the unit vocabulary, reset per word by a stamp, does the lookup:
 * no hashing). A word's pairs are contiguous, so each verse's word × unit grid is kept
 * as offsets into its row word's block: 16 bits a cell (a word meets fewer distinct
 * units than the ~14,500 there are), 28 MB for the 14 million cells of a Bible.
 */

/** Per verse, the distinct ids of one side (align-evidence.ts `Side`). */
interface Ids { ids: Int32Array; start: Int32Array }

export interface PairTable {
  /** Number of distinct pairs. */
  size: number;
  /** The pairs of word w are wordStart[w] … wordStart[w+1] - 1. */
  wordStart: Int32Array;
  /** The unit of each pair. */
  unit: Int32Array;
  /** Unit vocabulary size. */
  units: number;
  /**
   * Verse by verse, verse v's grid from cellStart[v], one row per word entry
   * (words.start[v]…), one column per unit entry (units.start[v]…): the pair number
   * less wordStart of the row's word.
   */
  cells: Uint16Array;
  cellStart: Int32Array;
}

export function pairTable(words: Ids, units: Ids, wordCount: number, unitCount: number): PairTable {
  if (unitCount > 0x10000) throw new Error(`alignment model: ${unitCount} source units do not fit 16-bit cells`);
  const verses = words.start.length - 1;
  const cellStart = new Int32Array(verses + 1);
  const verseOf = new Int32Array(words.ids.length);
  for (let v = 0; v < verses; v++) {
    cellStart[v + 1] = cellStart[v] + (words.start[v + 1] - words.start[v]) * (units.start[v + 1] - units.start[v]);
    verseOf.fill(v, words.start[v], words.start[v + 1]);
  }
  // The word entries of each word (counting sort by word id).
  const entryStart = new Int32Array(wordCount + 1);
  for (let i = 0; i < words.ids.length; i++) entryStart[words.ids[i] + 1]++;
  for (let w = 0; w < wordCount; w++) entryStart[w + 1] += entryStart[w];
  const next = entryStart.slice(0, wordCount), entries = new Int32Array(words.ids.length);
  for (let i = 0; i < words.ids.length; i++) entries[next[words.ids[i]]++] = i;

  const cells = new Uint16Array(cellStart[verses]);
  const stamp = new Int32Array(unitCount).fill(-1), num = new Int32Array(unitCount);
  const wordStart = new Int32Array(wordCount + 1);
  // A Bible has ~1.8 million pairs: start near that, not with a cascade of doublings.
  let unit: Int32Array<ArrayBuffer> = new Int32Array(Math.max(1 << 16, Math.min(cells.length, 1 << 21))), size = 0;
  for (let w = 0; w < wordCount; w++) {
    wordStart[w] = size;
    for (let e = entryStart[w]; e < entryStart[w + 1]; e++) {
      const i = entries[e], v = verseOf[i], u0 = units.start[v], nU = units.start[v + 1] - u0;
      const row = cellStart[v] + (i - words.start[v]) * nU;
      for (let b = 0; b < nU; b++) {
        const u = units.ids[u0 + b];
        if (stamp[u] !== w) {
          stamp[u] = w;
          if (size === unit.length) unit = grown(unit);
          unit[size] = u;
          num[u] = size++;
        }
        cells[row + b] = num[u] - wordStart[w];
      }
    }
  }
  wordStart[wordCount] = size;
  return { size, wordStart, unit: unit.slice(0, size), units: unitCount, cells, cellStart };
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
