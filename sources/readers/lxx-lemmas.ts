/**
 * Open Scriptures' Septuagint lemma files (openscriptures/GreekResources, `LxxLemmas/<Book>.js`,
 * CC BY 4.0): one file per book of Rahlfs' Septuagint, each a JSON object from an OSIS-style
 * reference to the verse's words in order, each word its lemma and its key in the Greek
 * Word List:
 *
 *   {"Gen.1.1": [{"key": "εν", "lemma": "ἐν"}, {"key": "αρχη", "lemma": "ἀρχή"}, …], …}
 *
 * The files hold no inflected text: the CCAT text they were made from is not freely
 * licensed, so Open Scriptures published the lemmas only. Lemmas are returned in NFC: the
 * files write acute accents as oxia (U+1F75 ή), which NFC folds to the tonos (U+03AE) that
 * Strong's dictionary and MorphGNT use, so the same word compares equal across sources.
 *
 * References follow Rahlfs' numbering with SBL book names, and carry the edition's own
 * quirks, each read as what it is rather than rejected:
 * - lettered verses, Rahlfs' additions after a numbered verse (`1Kgs.2.35a`, `Esth.1.1a`);
 * - merged verses `Jer.7.27/28` and ranges `Sus.1.60-62` (one unit covering several verses);
 * - verse 0 (`EpJer.1.0`, the letter's title; `Od.1.0`), chapter 0 (`Lam.0.1`, the Greek
 *   Lamentations' preface) and Sirach's prologue (`Sir.Prolog.1`);
 * - a file's references may name the book otherwise than its file (`1Macc.js` holds `1Mac`,
 *   `JoshA.js` and `JoshB.js` both `Josh`): the file says which text it is.
 * Anything else (a reference of another shape, a word without a key or lemma, a second book
 * in one file, a reference twice) fails naming the file and the reference.
 */

export interface LxxWord { key: string; lemma: string }
export interface LxxVerse {
  /** The reference as the file writes it (`1Kgs.2.35a`). */
  ref: string;
  /** `Prolog` for Sirach's prologue, else a number (0 allowed). */
  chapter: number | 'Prolog';
  /** The first verse number the unit covers. */
  verse: number;
  /** The letter of a Rahlfs addition (`a` in 2:35a), '' for a plain verse. */
  letter: string;
  /** The last verse a merged or ranged unit covers (28 in `7.27/28`), else `verse`. */
  through: number;
  words: LxxWord[];
}
export interface LxxBook { file: string; book: string; verses: LxxVerse[] }

const REF = /^([1-4]?[A-Z][A-Za-z]*)\.(Prolog|\d+)\.(\d+)([a-z]?)(?:[/-](\d+))?$/;
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads one LxxLemmas file (`file` names it in errors). Verses come in the file's order. */
export function readLxxLemmas(text: string, file: string): LxxBook {
  let body: unknown;
  try {
    body = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new Error(`${file}: not JSON: ${(e as Error).message}`);
  }
  if (!isObj(body)) throw new Error(`${file}: expected an object of references`);
  let book: string | undefined;
  const verses: LxxVerse[] = [];
  for (const [ref, words] of Object.entries(body)) {
    const m = REF.exec(ref);
    if (!m) throw new Error(`${file}: reference '${ref.slice(0, 40)}' is not Book.chapter.verse`);
    if (book === undefined) book = m[1];
    else if (m[1] !== book) throw new Error(`${file}: ${ref} names book ${m[1]}, the file's others ${book}`);
    if (!Array.isArray(words)) throw new Error(`${file}: ${ref}: expected an array of words`);
    const verse = Number(m[3]);
    const through = m[5] === undefined ? verse : Number(m[5]);
    if (m[5] !== undefined && through <= verse) throw new Error(`${file}: ${ref}: a range must end after it starts`);
    verses.push({
      ref, chapter: m[2] === 'Prolog' ? 'Prolog' : Number(m[2]), verse, letter: m[4], through,
      words: words.map((w, i) => {
        if (!isObj(w) || typeof w.key !== 'string' || typeof w.lemma !== 'string' || !w.key || !w.lemma || Object.keys(w).length !== 2) {
          throw new Error(`${file}: ${ref} word ${i + 1}: expected {key, lemma}, got ${JSON.stringify(w)?.slice(0, 80)}`);
        }
        return { key: w.key, lemma: w.lemma.normalize('NFC') };
      }),
    });
  }
  if (book === undefined) throw new Error(`${file}: no verses`);
  return { file, book, verses };
}
