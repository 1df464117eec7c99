import { build } from '../pipeline/build.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
const r = await build({ env: { ...process.env, ALMANAC_DIST: '/tmp/study-dist3' }, sources: [studyDataset()] });
console.log(JSON.stringify(r.reports), 'rss', (process.memoryUsage().rss / 2 ** 20).toFixed(0));
