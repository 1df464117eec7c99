/**
 * Readers for the two Greek New Testament datasets:
 *
 * - MorphGNT (`NN-Bk-morphgnt.txt`): one word per line, seven space-separated columns:
 *   book/chapter/verse "BBCCVV", part of speech, parse code, text (with punctuation),
 *   word, normalized word, lemma.
 * - byztxt Robinson–Pierpont CSV with Strong's and parsing (`csv-unicode/strongs/
 *   with-parsing/<BK>.csv`): header `chapter,verse,text`, text = words each followed by
 *   one or more Strong's numbers and a `{PARSING}` code, e.g. `εν 1722 {PREP}`.
 */
export interface GreekWord {
  text: string; lemma?: string; strongs?: string[]; pos?: string; parse: string; word?: string;
  /** byztxt: further analyses of an ambiguous form ("γη 1093 {N-NSF} 1093 {N-VSF}"). */
  alternatives?: { strongs: string[]; parse: string }[];
}
export interface GreekVerse { chapter: number; verse: number; words: GreekWord[] }

export function readMorphGnt(text: string, file = 'morphgnt'): GreekVerse[] {
  const out: GreekVerse[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line) return;
    const c = line.split(' ');
    if (c.length !== 7 || !/^\d{6}$/.test(c[0])) throw new Error(`${file}:${i + 1}: expected 7 columns starting BBCCVV`);
    const chapter = Number(c[0].slice(2, 4)), verse = Number(c[0].slice(4, 6));
    let v = out[out.length - 1];
    if (!v || v.chapter !== chapter || v.verse !== verse) out.push((v = { chapter, verse, words: [] }));
    v.words.push({ pos: c[1], parse: c[2], text: c[3], word: c[4], lemma: c[6] });
  });
  return out;
}

export function readByzantineCsv(text: string, file = 'byztxt csv'): GreekVerse[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0] !== 'chapter,verse,text') throw new Error(`${file}: header is '${lines[0]}', expected 'chapter,verse,text'`);
  const out: GreekVerse[] = [];
  lines.slice(1).forEach((line, i) => {
    if (!line) return;
    const m = /^(\d+),(\d+),(.*)$/.exec(line);
    if (!m) throw new Error(`${file}:${i + 2}: not chapter,verse,text`);
    const words: GreekWord[] = [];
    let cur: GreekWord | undefined;
    let alt: { strongs: string[]; parse: string } | undefined;
    for (const tok of m[3].replace(/¶/g, ' ').split(/\s+/).filter(Boolean)) {
      if (/^\d+$/.test(tok)) {
        if (!cur) throw new Error(`${file}:${i + 2}: Strong's number before a word`);
        // A number after a complete analysis starts an alternative analysis of the same word.
        if (cur.parse) (cur.alternatives ??= []).push(alt = { strongs: [], parse: '' });
        (alt ? alt.strongs : (cur.strongs ??= [])).push(`G${Number(tok)}`);
      } else if (/^\{[^}]+\}$/.test(tok)) {
        if (!cur || (alt ? alt.parse : cur.parse)) throw new Error(`${file}:${i + 2}: parsing code '${tok}' without its word`);
        if (alt) alt.parse = tok.slice(1, -1);
        else cur.parse = tok.slice(1, -1);
      } else {
        if (cur && (!cur.parse || (alt && !alt.parse))) throw new Error(`${file}:${i + 2}: word '${cur.text}' has no parsing code`);
        words.push((cur = { text: tok, parse: '' }));
        alt = undefined;
      }
    }
    if (cur && !cur.parse) throw new Error(`${file}:${i + 2}: word '${cur.text}' has no parsing code`);
    out.push({ chapter: Number(m[1]), verse: Number(m[2]), words });
  });
  return out;
}
