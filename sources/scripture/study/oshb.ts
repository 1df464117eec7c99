/**
 * Hebrew Bible and biblical Aramaic from the Open Scriptures Hebrew Bible (npm
 * morphhb@2.0.2): WLC text (public domain) with OSHB lemmas and morphology (CC BY 4.0).
 *
 * One reader, two layers: a word whose morph code starts with "A" is Aramaic (Dan
 * 2:4b–7:28, Ezra 4:8–6:18 and 7:12–26, Jer 10:11, two words of Gen 31:47) and goes to
 * the Aramaic layer; so Dan 2:4 has a Hebrew panel (positions 1–4) and an Aramaic panel
 * (positions 5–12), positions counted across the whole verse.
 *
 * Status: OSHB lemmas are Strong's numbers, so a word whose number is in the Strong's
 * lexicon is `dataset-backed` (high); one without a number (a few particles and names
 * marked only by prefix letters) is `imported` (high).
 */
import type { InputSpec, Provenance } from '../../contract.ts';
import { readOshbBook } from '../../readers/oshb.ts';
import type { LayerMeta, LayerVerse, StudyLayer } from './layer.ts';
import { tuple } from './tokens.ts';

export const OSHB_BOOKS = [
  'Gen', 'Exod', 'Lev', 'Num', 'Deut', 'Josh', 'Judg', 'Ruth', '1Sam', '2Sam', '1Kgs', '2Kgs', '1Chr', '2Chr', 'Ezra', 'Neh', 'Esth',
  'Job', 'Ps', 'Prov', 'Eccl', 'Song', 'Isa', 'Jer', 'Lam', 'Ezek', 'Dan', 'Hos', 'Joel', 'Amos', 'Obad', 'Jonah', 'Mic', 'Nah',
  'Hab', 'Zeph', 'Hag', 'Zech', 'Mal',
];

const PROVENANCE: Provenance[] = [
  {
    name: 'Open Scriptures Hebrew Bible (npm morphhb@2.0.2): lemma and morphology',
    url: 'https://github.com/openscriptures/morphhb',
    licence: { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
    attribution: 'Lemma and morphology: Open Scriptures Hebrew Bible (OSHB), Daniel Owens and David Troidl, CC BY 4.0.',
  },
  {
    name: 'Westminster Leningrad Codex 4.20 (via OSHB)',
    url: 'https://www.tanach.us/Tanach.xml',
    licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public Domain', url: 'https://www.tanach.us/Tanach.xml' },
    attribution: 'Hebrew text: Westminster Leningrad Codex, J. Alan Groves Center for Advanced Biblical Research, public domain.',
  },
];

const meta = (id: string, name: string, language: string, kind: string): LayerMeta => ({
  id, name, language, role: 'Original Language', kind, version: 'morphhb 2.0.2 (WLC 4.20, full morphology 2018-12-14)',
  canon: ['old'], generated: false, provenance: PROVENANCE, versification: 'WLC',
});
export const HEBREW = meta('oshb-hebrew', 'Hebrew Bible (WLC with OSHB lemma and morphology)', 'hbo', 'Hebrew text');
export const ARAMAIC = meta('oshb-aramaic', 'Biblical Aramaic passages (WLC with OSHB lemma and morphology)', 'arc', 'biblical Aramaic passages');

const inputs: Record<string, InputSpec> = Object.fromEntries(
  OSHB_BOOKS.map((b) => [`oshb:${b}`, { kind: 'npm-file', package: 'morphhb', file: `wlc/${b}.xml`, format: 'text' } as InputSpec]),
);

/** "b/7225" → H7225, "1254 a" → H1254, "1008+" → H1008, "c/d" (no number) → null. */
export function oshbStrong(lemma: string): string | null {
  for (const part of lemma.split('/')) {
    const m = /^(\d+)/.exec(part.trim());
    if (m) return `H${Number(m[1])}`;
  }
  return null;
}

export const oshbLayer: StudyLayer = {
  layers: [HEBREW, ARAMAIC],
  inputs,
  read(raw, lexicon) {
    const out: LayerVerse[] = [];
    for (const b of OSHB_BOOKS) {
      const xml = raw[`oshb:${b}`];
      if (typeof xml !== 'string') throw new Error(`morphhb wlc/${b}.xml missing from the raw inputs`);
      for (const v of readOshbBook(xml, `wlc/${b}.xml`)) {
        const ref = { book: v.book, chapter: v.chapter, verse: v.verse };
        const heb: LayerVerse = { layer: HEBREW.id, ref, tokens: [] };
        const arc: LayerVerse = { layer: ARAMAIC.id, ref, tokens: [] };
        v.words.forEach((w, i) => {
          const aramaic = w.morph.startsWith('A');
          const strong = oshbStrong(w.lemma);
          const known = !!strong && lexicon.has(strong);
          (aramaic ? arc : heb).tokens.push(tuple(
            i + 1, w.text, w.lemma, known ? strong : null, w.morph, known ? 'dataset-backed' : 'imported', 'high', w.qere ? { qere: w.qere } : null,
          ));
        });
        if (heb.tokens.length) out.push(heb);
        if (arc.tokens.length) out.push(arc);
      }
    }
    return out;
  },
};
