/**
 * The docs state what the code and data guarantee, not figures that go stale (issue 36,
 * item 12: the record counts in docs/platform-api.md were hand-typed and wrong for
 * holidays, crosswalks, aviation and people). Record counts live in the catalogue
 * (GET /apis, from the manifest of the release served); the dataset tables say what each
 * dataset holds, without counts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../docs/platform-api.md', import.meta.url), 'utf8');
/** The rows of the dataset tables: a path under /apis/ in the first cell. */
const rows = doc.split('\n').filter((l) => /^\| `\/apis\/[a-z]/.test(l));

describe('docs/platform-api.md', () => {
  it('lists the datasets without record counts: no count column, no thousands in a row, none of a size beside a path', () => {
    expect(rows.length).toBeGreaterThan(25);
    expect(doc).not.toMatch(/^\| path \| records \|/m);
    // A documented cap ("up to 50,000", "5,000 largest") is a rule of the build, not a count.
    const counted = rows.filter((r) => /(?<!up to )\b\d{1,3}(,\d{3})+\b(?! largest)|^\| [^|]+ \| \d+( |\))/.test(r));
    expect(counted).toEqual([]);
  });

  it('says where the counts are instead', () => {
    expect(doc).toMatch(/Record counts are not written here[\s\S]{0,200}GET \/apis/);
  });
});
