import { build } from '../pipeline/build.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
const t0 = performance.now();
const tr = TRANSLATIONS.filter((t) => ['kjv', 'asv', 'douay-rheims', 'web-catholic'].includes(t.slug)).map(translationDataset);
await build({ env: { ...process.env, ALMANAC_DIST: '/tmp/study-dist' }, sources: [...tr, studyDataset()] });
console.log('total', ((performance.now() - t0) / 1000).toFixed(1), 's', 'rss', (process.memoryUsage().rss / 2 ** 20).toFixed(0));
