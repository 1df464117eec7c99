import { resolveInputs } from '../pipeline/inputs.ts';
import { studyDataset, STUDY_LAYERS } from '../sources/scripture/study/dataset.ts';
import { Lexicon } from '../sources/scripture/study/lexicon.ts';
const s = studyDataset();
const { raw } = await resolveInputs(s);
let t0 = performance.now();
const lx = Lexicon.from(raw); console.log('lexicon', (performance.now() - t0).toFixed(0));
const ctx = { sourceTokens: new Map(), studyKeys: (_s: string, r: any) => [`${r.book.toLowerCase()}.${r.chapter}.${r.verse}`] };
for (const l of STUDY_LAYERS) { t0 = performance.now(); const v = l.read(raw, lx, ctx as any); console.log(l.layers[0].id, (performance.now() - t0).toFixed(0), v?.length);
  if (l.layers[0].role === 'Original Language') for (const x of v!) { const k = ctx.studyKeys('', x.ref)[0]; (ctx.sourceTokens.get(k) ?? ctx.sourceTokens.set(k, []).get(k)).push({ layer: x.layer, ref: k, tokens: x.tokens }); } }
