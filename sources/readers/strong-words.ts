/**
 * The English words that carry Strong's numbers in a verse's source markup, in order:
 * OSIS `<w lemma="strong:H07225">In the beginning</w>` (CrossWire ASV, Darby) and USFM
 * `\w beginning|strong="H7225"\w*` (eBible WEB, also `\+w` inside words of Jesus).
 * The readable text itself comes from the translation readers; this only pairs words
 * with numbers for the generated English alignment.
 */
import { decodeEntities, normaliseStrongs } from './sword-markup.ts';

export interface StrongWord { word: string; strongs: string[] }

const lemmaCache = new Map<string, string[]>();
/** Words inside footnotes (Darby's "Elohim" note on Gen 1:1) are not verse words: notes go first. */
export function osisStrongWords(raw: string, where = 'verse'): StrongWord[] {
  const out: StrongWord[] = [];
  const text = raw.includes('<note') ? raw.replace(/<note\b[\s\S]*?<\/note>/g, ' ') : raw;
  for (const m of text.matchAll(/<w\b([^>]*)>([^]*?)<\/w>/g)) {
    const lemma = /\blemma="([^"]*)"/.exec(m[1])?.[1];
    if (!lemma) continue;
    let strongs = lemmaCache.get(lemma);
    if (!strongs) {
      strongs = lemma.split(/\s+/).map((l) => normaliseStrongs(l)).filter((s): s is string => !!s);
      lemmaCache.set(lemma, strongs);
    }
    let word = m[2];
    if (word.includes('<')) word = word.replace(/<[^>]*>/g, '');
    if (word.includes('&')) word = decodeEntities(word, where);
    word = word.trim();
    if (/\s\s/.test(word)) word = word.replace(/\s+/g, ' ');
    if (strongs.length && word) out.push({ word, strongs });
  }
  return out;
}

export function usfmStrongWords(usfm: string): StrongWord[] {
  const out: StrongWord[] = [];
  // Footnotes and cross references (\f … \f*, \x … \x*) may quote tagged words: not verse words.
  const text = usfm.replace(/\\(f|x|fe) [^]*?\\\1\*/g, ' ');
  for (const m of text.matchAll(/\\\+?w ([^|\\]*)\|([^\\]*)\\\+?w\*/g)) {
    const s = /strong="([^"]*)"/.exec(m[2])?.[1];
    const strongs = (s ?? '').split(/[,\s]+/).map((x) => normaliseStrongs(x)).filter((x): x is string => !!x);
    const word = m[1].trim();
    if (strongs.length && word) out.push({ word, strongs });
  }
  return out;
}
