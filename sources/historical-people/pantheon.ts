/**
 * Reader of Pantheon 1.0's pantheon.tsv (see index.ts for the encoding of the mirrored
 * copy). The header must be exactly PANTHEON_HEADER; every field is checked, failing
 * with file, row (1 = first data row) and field.
 */
export const PANTHEON_HEADER = ['en_curid', 'name', 'numlangs', 'birthcity', 'birthstate', 'countryName', 'countryCode', 'countryCode3',
  'LAT', 'LON', 'continentName', 'birthyear', 'gender', 'occupation', 'industry', 'domain', 'TotalPageViews', 'L_star',
  'StdDevPageViews', 'PageViewsEnglish', 'PageViewsNonEnglish', 'AverageViews', 'HPI'] as const;

export interface PantheonRow {
  curid: number; name: string; numlangs: number; birthCity: string | null; birthState: string | null; countryName: string | null;
  countryCode: string | null; lat: number | null; lon: number | null; birthYear: number | null; birthYearText: string | null;
  gender: string; occupation: string; industry: string; domain: string; hpi: number;
}

const FILE = 'pantheon.tsv';
function fail(where: string, field: string, value: unknown): never {
  throw new Error(`historical-people: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 160)}`);
}

export function decodePantheon(bytes: unknown): string {
  if (!Buffer.isBuffer(bytes)) fail(FILE, '(input)', typeof bytes);
  try {
    return new TextDecoder('gbk', { fatal: true }).decode(bytes);
  } catch (e) {
    return fail(FILE, '(encoding: not GBK)', (e as Error).message);
  }
}

const NUM = /^-?\d+(\.\d+)?$/;

export function pantheonRows(bytes: unknown): PantheonRow[] {
  const lines = decodePantheon(bytes).split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const head = lines[0].split('\t');
  const bad = PANTHEON_HEADER.findIndex((c, i) => head[i] !== c);
  if (bad >= 0 || head.length !== PANTHEON_HEADER.length) fail(`${FILE} header`, PANTHEON_HEADER[bad] ?? `(column ${head.length + 1})`, lines[0]);
  return lines.slice(1).map((line, i) => {
    const at = `${FILE} row ${i + 1}`;
    const c = line.split('\t');
    if (c.length !== PANTHEON_HEADER.length) fail(at, '(row)', `${c.length} columns`);
    // A field holding a comma is quoted the CSV way ("William Thomson, 1st Baron Kelvin":
    // 204 names, 36 birth cities); the quotes are the file's, not the name's.
    const unquote = (t: string) => (/^".*"$/.test(t) ? t.slice(1, -1).replace(/""/g, '"') : t);
    const v = Object.fromEntries(PANTHEON_HEADER.map((h, j) => [h, unquote(c[j].trim())])) as Record<(typeof PANTHEON_HEADER)[number], string>;
    const opt = (f: keyof typeof v) => (v[f] === '' ? null : v[f]);
    const num = (f: keyof typeof v) => (NUM.test(v[f]) ? Number(v[f]) : fail(at, f, v[f]));
    const optNum = (f: keyof typeof v) => (v[f] === '' ? null : num(f));
    const word = (f: keyof typeof v) => (/\S/.test(v[f]) ? v[f] : fail(at, f, v[f]));
    if (!/^\d+$/.test(v.en_curid)) fail(at, 'en_curid', v.en_curid);
    // Known non-numeric birth years of 1.0: "530s", "1237?", "Unknown".
    const year = /^-?\d+$/.test(v.birthyear) ? Number(v.birthyear) : /^(\d+s|\d+\?|Unknown)$/.test(v.birthyear) ? null : fail(at, 'birthyear', v.birthyear);
    if (!['Male', 'Female'].includes(v.gender)) fail(at, 'gender', v.gender);
    const code = v.countryCode === 'UNK' || v.countryCode === '' ? null : /^[A-Z]{2}$/.test(v.countryCode) ? v.countryCode : fail(at, 'countryCode', v.countryCode);
    const lat = optNum('LAT');
    const lon = optNum('LON');
    if ((lat !== null && Math.abs(lat) > 90) || (lon !== null && Math.abs(lon) > 180)) fail(at, 'LAT/LON', `${v.LAT},${v.LON}`);
    return {
      curid: Number(v.en_curid), name: word('name'), numlangs: num('numlangs'), birthCity: opt('birthcity'), birthState: opt('birthstate'),
      countryName: code ? opt('countryName') : null, countryCode: code, lat, lon, birthYear: year,
      birthYearText: year === null ? (v.birthyear === 'Unknown' ? null : v.birthyear) : null,
      gender: v.gender, occupation: word('occupation'), industry: word('industry'), domain: word('domain'), hpi: num('HPI'),
    };
  });
}
