/** sources/readers/xlsx.ts and the pipeline's `xlsx` input format. */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInputs } from '../pipeline/inputs.ts';
import { cachedLocation } from '../pipeline/paths.ts';
import { defineSource } from '../sources/contract.ts';
import { cellText, codeText, readWorkbook, sheetRows } from '../sources/readers/xlsx.ts';
import { cleanup, tempDir } from './helpers.ts';

const FIXTURE = new URL('./fixtures/crosswalks/2012_NAICS_to_ISIC_4.xlsx', import.meta.url);

describe('xlsx reader', () => {
  it('reads every sheet into rows of typed cell values, empty cells null', async () => {
    const book = await readWorkbook(fs.readFileSync(FIXTURE));
    expect(book.map((s) => s.sheet)).toEqual(['NAICS 12 to ISIC 4 technical']);
    const rows = sheetRows(book, 'NAICS 12 to ISIC 4 technical', '2012_NAICS_to_ISIC_4.xlsx');
    expect(rows[1]).toEqual([111110, 'Soybean Farming', 111, 'Growing of cereals (except rice), leguminous crops and oil seeds', null]);
    expect(() => sheetRows(book, 'Sheet1', 'x.xlsx')).toThrow(/x\.xlsx: no sheet 'Sheet1' \(has 'NAICS 12 to ISIC 4 technical'\)/);
  });

  it('restores the leading zeros Excel drops from numeric codes, and refuses what is not a code', () => {
    expect(codeText(111, 4)).toBe('0111');
    expect(codeText('4330', 4)).toBe('4330');
    expect(codeText(111110, 6)).toBe('111110');
    expect(codeText(12345, 4)).toBeNull();
    expect(codeText(1.5, 4)).toBeNull();
    expect(codeText('012X', 4)).toBeNull();
    expect(cellText(null)).toBe('');
    expect(cellText('  a b ')).toBe('a b');
  });

  it('the pipeline hands normalise the workbook; bytes that are not a workbook fail naming the file', async () => {
    const cache = tempDir('almanac-xlsx-');
    try {
      const url = 'https://example.org/data/book.xlsx';
      const put = (bytes: Buffer) => {
        fs.mkdirSync(path.dirname(cachedLocation(url, { ALMANAC_CACHE: cache })), { recursive: true });
        fs.writeFileSync(cachedLocation(url, { ALMANAC_CACHE: cache }), bytes);
        return createHash('sha256').update(bytes).digest('hex');
      };
      const source = (sha256: string) => defineSource<{ id: string }>({
        id: 'book', title: 'b', description: 'b', contractVersion: '0.1.0', provenance: [], schema: {}, search: { fields: [] }, filters: [],
        inputs: { book: { kind: 'url', url, sha256, format: 'xlsx' } }, normalise: () => [],
      });
      const good = put(fs.readFileSync(FIXTURE));
      const { raw } = await resolveInputs(source(good), { ALMANAC_CACHE: cache });
      expect((raw.book as { sheet: string }[])[0].sheet).toBe('NAICS 12 to ISIC 4 technical');
      const bad = put(Buffer.from('Code,Title\n11,Agriculture\n'));
      await expect(resolveInputs(source(bad), { ALMANAC_CACHE: cache })).rejects.toThrow(/book\.xlsx: not a readable \.xlsx workbook/);
    } finally {
      cleanup(cache);
    }
  });
});
