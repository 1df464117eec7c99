/**
 * What the alignment model (align-evidence.ts) sees of a source token: its "units",
 * namely its Strong's number plus the parts of its morphology that English renders as
 * words of their own. A Hebrew word carries its conjunction, preposition, article and
 * pronoun suffix (וּבְבֵיתוֹ "and in his house"); a Greek verb carries "shall" (future)
 * or "might" (subjunctive), a noun "of" (genitive). With these units the model can say
 * that "and" is explained by the וְ of the word next to it rather than by the number the
 * upstream tag copied onto it. Units that English seldom renders separately (the Qal
 * stem, the aorist, the nominative) are left out: they would only add noise and cost.
 */
import type { TokenTuple } from './tokens.ts';

/**
 * OSHB: lemma "c/b/7225" and morph "HC/R/Ncfsa". Prefix letters (c and, b in, l to,
 * k as, m from, d the, i interrogative, s which) come from the lemma; pronoun suffixes
 * (Sp3ms "his"), the directional he (Sd "toward"), the construct state (Nc "of"), verb
 * conjugation (Vki "shall", Vkw "and"), passive stems ("be") and person from the morph.
 */
function hebrewUnits(t: TokenTuple, out: string[]) {
  const lemma = t[2] ?? '';
  const n = /(?:^|\/)(\d+)/.exec(lemma);
  const strong = t[3] ?? (n ? `H${Number(n[1])}` : null);
  if (strong) out.push(strong);
  for (const p of lemma.split('/')) if (/^[a-z]$/.test(p)) out.push(`+${p}`);
  for (const seg of (t[4] ?? '').slice(1).split('/')) {
    const pos = seg[0];
    if (pos === 'S' && seg[1] === 'p') out.push(`S${seg.slice(1)}`);
    else if (pos === 'S' && seg[1] === 'd') out.push('Sd');
    else if (pos === 'N' && seg.endsWith('c')) out.push('Nc');
    else if (pos === 'V') {
      const [stem, kind, person, , number] = seg.slice(1);
      out.push(`Vk${kind}`);
      if (stem && 'NPH'.includes(stem)) out.push('Vpass');
      if (person && /[123]/.test(person)) out.push(`Vp${person}${number ?? ''}`);
    }
  }
}

/**
 * Byzantine RP2018: Robinson codes "V-FAI-3S", "N-GSF", "P-1DS". Future and perfect
 * tenses ("shall", "have"), the passive ("be"), non-indicative moods ("might", "let",
 * "to"), person ("they"), and the genitive and dative ("of", "to").
 */
function greekUnits(t: TokenTuple, out: string[]) {
  if (t[3]) out.push(t[3]);
  const more = (t[7] as { strongs?: string[] } | undefined)?.strongs;
  if (more) for (const s of more.slice(1)) out.push(s);
  const [pos, a, b] = (t[4] ?? '').split('-');
  if (pos === 'V' && a) {
    const [tense, voice, mood] = a.replace(/^2/, '');
    if (tense && 'FRL'.includes(tense)) out.push(`Vt${tense}`);
    if (voice === 'P') out.push('Vpass');
    if (mood && mood !== 'I') out.push(`Vm${mood}`);
    if (b && /^[123]/.test(b)) out.push(`Vp${b}`);
    else if (b && 'GD'.includes(b[0])) out.push(`C${b[0]}`);
  } else if (a) {
    const c = /^[123]/.test(a) ? a[1] : a[0];
    if (c === 'G' || c === 'D') out.push(`C${c}`);
  }
}

export function unitsOf(t: TokenTuple, hebrew: boolean): string[] {
  const out: string[] = [];
  (hebrew ? hebrewUnits : greekUnits)(t, out);
  return out;
}
