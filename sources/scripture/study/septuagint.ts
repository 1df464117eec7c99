/**
 * The Septuagint (Greek Tradition role): the lemma of every word of Rahlfs' Septuagint, in
 * order, from the Open Scriptures Septuagint Project's LxxLemmas (CC BY 4.0; reader:
 * ../../readers/lxx-lemmas.ts). 59 files, each pinned by sha256 (lxx-lemmas.json), fetched
 * from the publisher's repository at the commit the mirror holds.
 *
 * Lemmas only: the inflected Greek text the lemmas were made from (CCAT's) is not freely
 * licensed, so a token's `text` is null and its `lemma` is the word. Each lemma gets a
 * Strong's number when exactly one Strong's Greek entry spells it so, or so but for the
 * dictionary's own spelling conventions (Lexicon.greekLemmaVariant): `lexicon-aligned`,
 * medium; a lemma with none or several entries stays `imported` (high: the lemma is the
 * dataset's own) without a number. Open Scriptures' Greek Word List, which gives Strong's
 * numbers by the files' keys, is not among the mirrored files. A token keeps its Word List
 * key (`word_list_key`) where the key is not simply the lemma without accents (the list's
 * numbered homographs, `ισραηλ.1`).
 *
 * Books that Rahlfs prints in two forms are separate, named texts, one layer each (Joshua
 * A and B, Judges A and B, Daniel with Susanna and Bel in the Old Greek and in Theodotion,
 * Tobit BA and S); every other book is the `septuagint` layer. References are Rahlfs' own,
 * with the project's book ids (Qoh → eccl, 1Mac → 1macc…; 2 Esdras 1–10 is ezra and 11–23
 * neh 1–13, as the LXX versification divides it), lettered additions and merged verses as
 * the files write them (`1kgs.2.35a`, `jer.7.27-28`). They are placed under the KJV-numbered
 * study keys by one table, ../versification/maps/septuagint.json (numbering `septuagint`).
 */
import type { InputSpec, Provenance } from '../../contract.ts';
import { readLxxLemmas, type LxxVerse } from '../../readers/lxx-lemmas.ts';
import type { LayerMeta, LayerVerse, StudyLayer } from './layer.ts';
import type { Lexicon } from './lexicon.ts';
import { tuple } from './tokens.ts';
import PINS from './lxx-lemmas.json' with { type: 'json' };

export const LXX_COMMIT = 'dd5a2fd530ab3c6b748c174cec38966c356d8111';
export const LXX_BASE = `https://raw.githubusercontent.com/openscriptures/GreekResources/${LXX_COMMIT}/LxxLemmas/`;
/** File → sha256, in Rahlfs' book order (LxxFileNames.txt). */
export const LXX_PINS: Readonly<Record<string, string>> = PINS;

export const LXX_NOTE = 'Lemmas only: each token is the dictionary form (lemma) of the word at its place, with no inflected '
  + 'form (text is null). The inflected Greek text the lemmas were made from (the CCAT morphological Septuagint) is not freely '
  + 'licensed, so the Open Scriptures Septuagint Project published the lemmas alone, under CC BY 4.0.';

const PROVENANCE: Provenance[] = [{
  name: 'Open Scriptures Septuagint Project: LxxLemmas (openscriptures/GreekResources)',
  url: 'https://github.com/openscriptures/GreekResources',
  licence: { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
  attribution: 'Septuagint lemmas: the Open Scriptures Septuagint Project, CC BY 4.0 (lemmas only; the CCAT Greek text they '
    + 'were made from is not freely licensed and is not served).',
}];

const meta = (id: string, name: string, canon: string[]): LayerMeta => ({
  id, name, language: 'grc', role: 'Greek Tradition', kind: 'Greek Septuagint', canon, generated: false, provenance: PROVENANCE,
  version: `LxxLemmas (openscriptures/GreekResources @ ${LXX_COMMIT.slice(0, 7)}, lemmas 2016)`,
  versification: 'Rahlfs (LXX)', numbering: 'septuagint', note: LXX_NOTE,
});
export const SEPTUAGINT = meta('septuagint', 'Greek Septuagint (Rahlfs), lemmas', ['old', 'apocrypha']);
/** The texts Rahlfs prints twice: file → layer. */
const ALTERNATIVE: Record<string, LayerMeta> = {};
export const ALTERNATIVE_TEXTS: LayerMeta[] = [
  [['JoshB'], 'septuagint-joshua-b', 'Joshua, B text (Codex Vaticanus)', ['old']],
  [['JoshA'], 'septuagint-joshua-a', 'Joshua, A text (Codex Alexandrinus; Rahlfs prints it for 15:21–19:45 only)', ['old']],
  [['JudgB'], 'septuagint-judges-b', 'Judges, B text (Codex Vaticanus)', ['old']],
  [['JudgA'], 'septuagint-judges-a', 'Judges, A text (Codex Alexandrinus)', ['old']],
  [['SusOG', 'DanOG', 'BelOG'], 'septuagint-daniel-og', 'Daniel with Susanna and Bel, Old Greek', ['old', 'apocrypha']],
  [['SusTh', 'DanTh', 'BelTh'], 'septuagint-daniel-th', 'Daniel with Susanna and Bel, Theodotion', ['old', 'apocrypha']],
  [['TobBA'], 'septuagint-tobit-ba', 'Tobit, BA text (Codices Vaticanus and Alexandrinus)', ['apocrypha']],
  [['TobS'], 'septuagint-tobit-s', 'Tobit, S text (Codex Sinaiticus)', ['apocrypha']],
].map(([files, id, name, canon]) => {
  const m = meta(id as string, `Greek Septuagint (Rahlfs), lemmas: ${name as string}`, canon as string[]);
  for (const f of files as string[]) ALTERNATIVE[f] = m;
  return m;
});

/** A file's book as the project names it (OSIS ids of sources/scripture/books.ts), where that is not the file's own name. */
const OSIS: Record<string, string> = {
  JoshA: 'Josh', JoshB: 'Josh', JudgA: 'Judg', JudgB: 'Judg', TobBA: 'Tob', TobS: 'Tob', Odes: 'Odes', PsSol: 'PssSol',
  SusOG: 'Sus', SusTh: 'Sus', DanOG: 'Dan', DanTh: 'Dan', BelOG: 'Bel', BelTh: 'Bel',
};
const fileOf = (name: string) => name.replace(/\.js$/, '');

/** The layer's own reference of a verse (`1kgs.2.35a`, `jer.7.27-28`, `sir.prolog.1`) and the book and numbers it stands on. */
export function lxxReference(file: string, v: LxxVerse): { label: string; book: string; chapter: number; verse: number } {
  let book = OSIS[file] ?? file, chapter = v.chapter === 'Prolog' ? 0 : v.chapter;
  // 2 Esdras is Ezra (1–10) and Nehemiah (11–23), as the LXX versification (SWORD `LXX`) divides it.
  if (file === '2Esd') [book, chapter] = chapter <= 10 ? ['Ezra', chapter] : ['Neh', chapter - 10];
  const c = v.chapter === 'Prolog' ? 'prolog' : String(chapter);
  const label = `${book.toLowerCase()}.${c}.${v.verse}${v.letter}${v.through > v.verse ? `-${v.through}` : ''}`;
  return { label, book, chapter, verse: v.verse };
}

/** The lemma without accents, breathings or capitals: what a Word List key is but for its homograph number. */
const plain = (lemma: string) => lemma.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

export const septuagintLayer: StudyLayer = {
  layers: [SEPTUAGINT, ...ALTERNATIVE_TEXTS],
  inputs: Object.fromEntries(Object.entries(LXX_PINS).map(([f, sha256]) => [
    `lxx:${f}`, { kind: 'url', url: LXX_BASE + f, sha256, format: 'text', optional: true } as InputSpec,
  ])),
  read(raw, lexicon) {
    const files = Object.keys(LXX_PINS);
    // All or nothing: a Septuagint missing books would look complete in its coverage counts.
    if (!files.every((f) => typeof raw[`lxx:${f}`] === 'string')) return null;
    return septuagintVerses(Object.fromEntries(files.map((f) => [f, raw[`lxx:${f}`] as string])), lexicon);
  },
};

/** The layer verses of the given files (`Gen.js` → its text), in the order given. */
export function septuagintVerses(texts: Record<string, string>, lexicon: Lexicon): LayerVerse[] {
  const out: LayerVerse[] = [];
  const strongOf = strongs(lexicon);
  for (const [f, text] of Object.entries(texts)) {
    const file = fileOf(f);
    const layer = (ALTERNATIVE[file] ?? SEPTUAGINT).id;
    for (const v of readLxxLemmas(text, LXX_BASE + f).verses) {
      const { label, book, chapter, verse } = lxxReference(file, v);
      out.push({
        layer, ref: { book, chapter, verse }, label,
        tokens: v.words.map((w, i) => {
          const strong = strongOf(w.lemma);
          const extra = w.key === plain(w.lemma) ? null : { word_list_key: w.key };
          return tuple(i + 1, null, w.lemma, strong, null, strong ? 'lexicon-aligned' : 'imported', strong ? 'medium' : 'high', extra);
        }),
      });
    }
  }
  return out;
}

/** Lemma → its one Strong's number or null, asked once per distinct lemma (14,000 lemmas, 620,000 words). */
function strongs(lexicon: Lexicon): (lemma: string) => string | null {
  const seen = new Map<string, string | null>();
  return (lemma) => {
    let s = seen.get(lemma);
    if (s === undefined) {
      const hits = lexicon.greekLemmaVariant(lemma);
      seen.set(lemma, (s = hits.length === 1 ? hits[0] : null));
    }
    return s;
  };
}
