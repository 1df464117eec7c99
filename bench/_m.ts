import { Release } from '../server/release.ts';
import { layerTable, panelsOf } from '../server/v1/study-tokens.ts';
import { ReviewStore } from '../server/state/reviews.ts';
const rel = new Release('/tmp/study-dist');
const info = rel.datasets.get('bible-study')!;
const layers = layerTable(info.summary as any);
const rv = new ReviewStore('/tmp/rv-bench');
const f = { verifiedOnly: false, includeGenerated: true };
const ords = Array.from({ length: 400 }, (_, i) => (i * 89) % info.records);
for (const o of ords) rel.record('bible-study', o);
for (let round = 0; round < 3; round++) {
  let tp = 0, te = 0, ts = 0, bytes = 0;
  for (const o of ords) {
    let t = performance.now();
    const rec = JSON.parse(rel.record('bible-study', o).toString('utf8'));
    tp += performance.now() - t; t = performance.now();
    const p = panelsOf(rec, 'kjv', rec.id, layers, f, rv);
    te += performance.now() - t; t = performance.now();
    bytes += JSON.stringify(p).length;
    ts += performance.now() - t;
  }
  console.log(`parse ${(tp / 400).toFixed(2)} expand ${(te / 400).toFixed(2)} stringify ${(ts / 400).toFixed(2)} ms/verse, ${(bytes / 400 / 1024).toFixed(1)} KiB/verse`);
}
