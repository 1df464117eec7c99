/**
 * The study serializer's check over every record of a full release already built
 * (test/study-serializer-check.ts), without building one: ALMANAC_FULL_DIST names its
 * folder (e.g. a `npm run build` from the mirror). test/mirror-build.test.ts runs the same
 * check on the release it builds; this skips, saying so, when no folder is named.
 */
import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { studySerializerCheck } from './study-serializer-check.ts';

const dist = process.env.ALMANAC_FULL_DIST;
describe.skipIf(!dist || !existsSync(dist))(`study serializer on a full release (needs ALMANAC_FULL_DIST=<a full release folder>${dist && !existsSync(dist) ? `; ${dist} not found` : ''})`, () => {
  studySerializerCheck(() => dist!);
});
