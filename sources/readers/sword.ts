/**
 * Reads a CrossWire SWORD Bible module in the zText format straight from its "rawzip"
 * package (the zip CrossWire's installers download): `mods.d/<mod>.conf` plus the data
 * files under the conf's DataPath. Pure TypeScript (fflate + node:zlib), no libsword.
 *
 * zText layout, per testament ("ot" / "nt"):
 *   <t>.bzs  block index, 12-byte entries: u32le offset in .bzz, u32le compressed size,
 *            u32le uncompressed size. BlockType=BOOK puts one book per block.
 *   <t>.bzv  verse index, 10-byte entries: u32le block number, u32le offset inside the
 *            uncompressed block, u16le size in bytes (0 = the slot has no text).
 *   <t>.bzz  the blocks, each compressed on its own (CompressType=ZIP → zlib stream).
 *
 * The verse index has one entry per slot of the module's versification, in this order
 * (libsword's System::getOffsetFromVerse; checked against the real ASV, Darby, Webster,
 * YLT, DRC and Geneva1599 modules, whose .bzv sizes equal this count exactly):
 *   0 = module heading, 1 = testament heading,
 *   then per book of the testament: 1 book intro, then per chapter: 1 chapter intro
 *   followed by one entry per verse.
 * So Gen 1:1 is entry 4 of ot.bzv, Matt 1:1 entry 4 of nt.bzv; the last entry of ot.bzv
 * is the last verse of the OT (Mal 4:6 in KJV) and of nt.bzv the last verse of the NT.
 * Intros (book/chapter headings, front matter) are not verses and are not returned.
 */
import { unzipSync } from 'fflate';
import { inflateSync } from 'node:zlib';
import { SYSTEMS, versification, type SystemName } from '../scripture/books.ts';

export interface SwordConf {
  /** The module name in the conf's `[Name]` section header, e.g. "ASV". */
  module: string;
  /** Every key with all its values in file order (GlobalOptionFilter, Feature… repeat). */
  entries: Record<string, string[]>;
  dataPath: string;
  modDrv: string;
  compressType: string;
  blockType: string;
  /** OSIS, GBF, ThML or Plaintext (SWORD's default when the conf says nothing). */
  sourceType: string;
  /** UTF-8 or Latin-1 (SWORD's default when the conf says nothing). */
  encoding: string;
  /** Versification system; KJV when the conf says nothing (SWORD's default). */
  versification: string;
  version?: string;
  swordVersionDate?: string;
  distributionLicense?: string;
  description?: string;
  about?: string;
  globalOptionFilters: string[];
  features: string[];
}

/** One verse slot of the versification; `raw` is "" when the module's entry is empty. */
export interface SwordVerse {
  book: string;
  chapter: number;
  verse: number;
  raw: string;
}

export interface SwordModule {
  conf: SwordConf;
  /** Every verse slot of the conf's versification, in canon order (read lazily). */
  verses(): Iterable<SwordVerse>;
}

/**
 * Parses a SWORD .conf: `[Name]`, `Key=Value` lines, `#` comments, a value ending in a
 * backslash continues on the next line. Repeated keys keep every value.
 */
export function parseConf(text: string, file = 'conf'): SwordConf {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let module: string | undefined;
  const entries: Record<string, string[]> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || line.startsWith('#')) continue;
    const section = /^\[([^\]]+)\]\s*$/.exec(line);
    if (section) {
      if (module !== undefined) throw new Error(`${file}: more than one [section] (line ${i + 1})`);
      module = section[1];
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 1) throw new Error(`${file}:${i + 1}: not a Key=Value line: ${line.slice(0, 60)}`);
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1);
    // Continuation: strip the trailing backslash and append the next line.
    while (value.endsWith('\\') && i + 1 < lines.length) value = value.slice(0, -1) + '\n' + lines[++i];
    (entries[key] ??= []).push(value.trim());
  }
  if (module === undefined) throw new Error(`${file}: no [ModuleName] section`);
  const one = (k: string) => entries[k]?.[entries[k].length - 1];
  return {
    module,
    entries,
    dataPath: one('DataPath') ?? '',
    modDrv: one('ModDrv') ?? '',
    compressType: one('CompressType') ?? '',
    blockType: one('BlockType') ?? '',
    sourceType: one('SourceType') ?? 'Plaintext',
    encoding: one('Encoding') ?? 'Latin-1',
    versification: one('Versification') ?? 'KJV',
    version: one('Version'),
    swordVersionDate: one('SwordVersionDate'),
    distributionLicense: one('DistributionLicense'),
    description: one('Description'),
    about: one('About'),
    globalOptionFilters: entries.GlobalOptionFilter ?? [],
    features: entries.Feature ?? [],
  };
}

const u8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Opens a rawzip SWORD package holding exactly one zText Bible module. */
export function readSwordModule(zip: Uint8Array, label = 'SWORD zip'): SwordModule {
  const files = unzipSync(zip);
  // Zip member names compared case-insensitively: DataPath spelling varies across modules.
  const byLower = new Map(Object.keys(files).map((name) => [name.toLowerCase(), name]));
  const confs = Object.keys(files).filter((n) => /^mods\.d\/[^/]+\.conf$/i.test(n));
  if (confs.length !== 1) throw new Error(`${label}: expected one mods.d/*.conf, found ${confs.length}`);
  const conf = parseConf(new TextDecoder('utf-8').decode(files[confs[0]]), `${label}:${confs[0]}`);
  const where = `${label}:${conf.module}`;
  if (conf.modDrv.toLowerCase() !== 'ztext') throw new Error(`${where}: ModDrv ${conf.modDrv} is not zText`);
  if (conf.compressType.toUpperCase() !== 'ZIP') throw new Error(`${where}: CompressType ${conf.compressType} is not supported (only ZIP)`);
  if (!(SYSTEMS as readonly string[]).includes(conf.versification)) {
    throw new Error(`${where}: unknown Versification ${conf.versification}`);
  }
  const decoder = decoderFor(conf.encoding, where);
  const dir = conf.dataPath.replace(/^\.\//, '').replace(/\/?$/, '/');
  const file = (name: string) => {
    const real = byLower.get((dir + name).toLowerCase());
    return real === undefined ? undefined : u8(files[real]);
  };
  const system = versification(conf.versification as SystemName);

  function* verses(): Iterable<SwordVerse> {
    for (const [testament, prefix] of [[1, 'ot'], [2, 'nt']] as const) {
      const books = system.books.filter((b) => b.testament === testament);
      const bzs = file(`${prefix}.bzs`), bzv = file(`${prefix}.bzv`), bzz = file(`${prefix}.bzz`);
      if (!bzs || !bzv || !bzz) {
        // A module may lack a whole testament (all three files absent); half a set is broken.
        if (bzs || bzv || bzz) throw new Error(`${where}: incomplete ${prefix}.bz[svz] set`);
        continue;
      }
      const slots = 2 + books.reduce((n, b) => n + 1 + b.verses.length + b.verses.reduce((s, v) => s + v, 0), 0);
      if (bzv.length !== slots * 10) {
        throw new Error(`${where}: ${prefix}.bzv has ${bzv.length / 10} entries, ${conf.versification} needs ${slots}`);
      }
      // Books are read in order and BlockType=BOOK keeps a book in one block: cache one.
      let cachedNo = -1;
      let cached = Buffer.alloc(0);
      const block = (no: number) => {
        if (no !== cachedNo) {
          if ((no + 1) * 12 > bzs.length) throw new Error(`${where}: ${prefix}.bzv points at block ${no}, past ${prefix}.bzs`);
          const offset = bzs.readUInt32LE(no * 12), size = bzs.readUInt32LE(no * 12 + 4), usize = bzs.readUInt32LE(no * 12 + 8);
          cached = inflateSync(bzz.subarray(offset, offset + size));
          if (cached.length !== usize) throw new Error(`${where}: ${prefix} block ${no} inflates to ${cached.length} bytes, index says ${usize}`);
          cachedNo = no;
        }
        return cached;
      };
      let index = 2; // past the module and testament headings
      for (const b of books) {
        index++; // book intro
        for (let c = 0; c < b.verses.length; c++) {
          index++; // chapter intro
          for (let v = 1; v <= b.verses[c]; v++, index++) {
            const size = bzv.readUInt16LE(index * 10 + 8);
            let raw = '';
            if (size > 0) {
              const data = block(bzv.readUInt32LE(index * 10));
              const start = bzv.readUInt32LE(index * 10 + 4);
              if (start + size > data.length) throw new Error(`${where}: ${b.osis} ${c + 1}:${v} runs past its block`);
              raw = decoder.decode(data.subarray(start, start + size));
            }
            yield { book: b.osis, chapter: c + 1, verse: v, raw };
          }
        }
      }
    }
  }
  return { conf, verses };
}

function decoderFor(encoding: string, where: string): TextDecoder {
  const e = encoding.toLowerCase().replace(/[^a-z0-9]/g, '');
  // fatal: a module that says UTF-8 but is not fails loudly instead of gaining U+FFFDs.
  if (e === 'utf8') return new TextDecoder('utf-8', { fatal: true });
  // WHATWG 'latin1' is windows-1252, a superset of Latin-1's printable range (the Latin-1
  // modules we ship, Webster, YLT and DRC, are in fact pure ASCII).
  if (e === 'latin1' || e === 'iso88591') return new TextDecoder('latin1');
  throw new Error(`${where}: unsupported Encoding ${encoding}`);
}
