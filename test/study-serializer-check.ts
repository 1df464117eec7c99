/**
 * The study serializer over every record of a full release (issue 41, item 2): each
 * record's panels as written by panelsJson are exactly the JSON of the token objects the
 * review command builds (panelsOf), with a review in force on a Latin and a Hebrew token,
 * and no token takes the slow path (object, then JSON.stringify); and the panels the build
 * stored as ready JSON (study-panels.ts) are each exactly what the server writes. The test release has no
 * Vulgate layer (Whitaker's WORDS analyses it at build time), so this runs on the release
 * test/mirror-build.test.ts builds from the mirrored upstreams.
 */
import { expect, it } from 'vitest';
import { STUDY_DATASET, type StudyRecord, type StudySummary } from '../sources/scripture/study/dataset.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { ReviewStore } from '../server/state/reviews.ts';
import { layerTable, panelsJson, panelsOf, slowTokenCount, type StudyFilters } from '../server/api/v1/study-tokens.ts';
import { storedMatches } from '../server/api/v1/study-panels.ts';
import { cleanup, tempDir } from './helpers.ts';

/** Registers the check in the caller's describe; `dist` gives the full release's folder once its beforeAll ran. */
export function studySerializerCheck(dist: () => string) {
  it('every study record of the full release is written exactly as its token objects, Latin candidates included, none by the slow path', async () => {
    const rel = fsRelease(dist());
    const layers = layerTable(rel.datasets.get(STUDY_DATASET)!.summary as StudySummary);
    const dir = tempDir('almanac-serializer-');
    const reviews = new ReviewStore(dir);
    reviews.decide('vulgate-clementine:john.3.16:2', 'verified', 'checked', 'r');
    reviews.decide('oshb-hebrew:gen.1.1:2', 'rejected', 'no', 'r');
    const all: StudyFilters = { verifiedOnly: false, includeGenerated: true };
    const reviewed: StudyFilters = { verifiedOnly: false, includeGenerated: true, reviewStatus: 'verified' };
    const slow = slowTokenCount();
    let latin = 0;
    let candidates = 0;
    let verified = 0;
    const records = rel.datasets.get(STUDY_DATASET)!.records;
    let stored = 0;
    for (let o = 0; o < records; o++) {
      if (await storedMatches(rel, o, layers)) stored++;
      const rec = JSON.parse((await rel.record(STUDY_DATASET, o)).toString('utf8')) as StudyRecord;
      // Every record unfiltered; the review filter (a verified token's notes) on every 50th and the reviewed verse.
      for (const f of o % 50 && rec.id !== 'john.3.16' ? [all] : [all, reviewed]) {
        const objects = panelsOf(rec, 'kjv', rec.id, layers, f, reviews);
        const [json, count] = panelsJson(rec, 'kjv', rec.id, layers, f, reviews);
        if (`[${json}]` !== JSON.stringify(objects)) expect(JSON.parse(`[${json}]`), rec.id).toEqual(objects);
        expect(`[${json}]`, rec.id).toBe(JSON.stringify(objects));
        expect(count).toBe(objects.length);
        for (const p of objects) {
          if (p.layer !== 'vulgate-clementine') continue;
          for (const t of p.tokens as Record<string, unknown>[]) {
            if ('dictionary_form' in t) latin++;
            if ('candidates' in t) candidates++;
            if (t.verified_by_service) verified++;
          }
        }
      }
    }
    expect(records).toBeGreaterThan(31_000);
    expect(stored).toBe(records);
    expect(latin).toBeGreaterThan(100_000);
    expect(candidates).toBeGreaterThan(1_000);
    expect(verified).toBe(2); // the reviewed Latin token, unfiltered and under review_status=verified
    expect(slowTokenCount() - slow).toBe(0);
    cleanup(dir);
  }, 900_000);
}
