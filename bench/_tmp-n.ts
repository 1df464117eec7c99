import { resolveInputs } from '../pipeline/inputs.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
const s = studyDataset();
let t0 = performance.now();
const { raw } = await resolveInputs(s);
console.log('inputs', ((performance.now() - t0) / 1000).toFixed(1));
t0 = performance.now();
const recs = s.normalise(raw);
console.log('normalise', ((performance.now() - t0) / 1000).toFixed(1), recs.length, 'rss', (process.memoryUsage().rss / 2 ** 20).toFixed(0));
const by: Record<string, number> = {};
let total = 0;
for (const r of recs) { total += Buffer.byteLength(JSON.stringify(r)); for (const p of r.panels) by[p.layer] = (by[p.layer] ?? 0) + Buffer.byteLength(JSON.stringify(p.tokens)); }
console.log((total / 2 ** 20).toFixed(1), 'MiB', Object.fromEntries(Object.entries(by).map(([k, v]) => [k, (v / 2 ** 20).toFixed(1)])));
console.log(JSON.stringify((s.summary!(recs) as any).layers.map((l: any) => [l.id, l.counts.verses, l.counts.tokens, l.counts.token_statuses])));
const g = recs.find((r) => r.id === 'gen.1.1')!; console.log(JSON.stringify(g).slice(0, 1500));
