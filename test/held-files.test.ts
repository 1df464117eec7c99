/**
 * readRange keeps the files it reads open (release/fs-files.ts): what it serves must stay
 * what a signature names, whatever happens to the path between reads.
 */
import { readdirSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeHeldFiles, heldFiles, readRange, signatureOf } from '../server/release/fs-files.ts';
import { cleanup, tempDir } from './helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  closeHeldFiles();
  cleanup(...dirs.splice(0));
});
/** This process's descriptors open on files in `dir` (other descriptors of the test worker come and go). */
const openIn = (dir: string) => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
  } catch {
    return false; // closed while listed
  }
}).length;

/** A fresh folder (removed after the test) with `pack.ndjson` holding `text`, and the file's signature. */
function pack(text: string) {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'pack.ndjson');
  writeFileSync(file, text);
  return { dir, file, sig: signatureOf(statSync(file)) };
}

describe('readRange with held descriptors', () => {
  it('reads ranges of one file through one descriptor, kept between reads', () => {
    const { dir, file, sig } = pack('alpha\nbeta\ngamma\n');
    expect(readRange(file, 0, 5, sig)?.toString()).toBe('alpha');
    expect(readRange(file, 6, 10, sig)?.toString()).toBe('beta');
    expect(readRange(file, 11, 16, sig)?.toString()).toBe('gamma');
    expect(heldFiles()).toBe(1);
    expect(openIn(dir)).toBe(1);
    // Past the end: a short read is no answer, and the descriptor stays usable.
    expect(readRange(file, 11, 40, sig)).toBeUndefined();
    expect(readRange(file, 0, 5, sig)?.toString()).toBe('alpha');
    closeHeldFiles();
    expect(openIn(dir)).toBe(0);
  });

  it('answers nothing for a file changed in place, and reads a replaced file through a fresh descriptor', () => {
    const { dir, file, sig: first } = pack('alpha\nbeta\n');
    expect(readRange(file, 0, 5, first)?.toString()).toBe('alpha');
    // Written in place (a torn or tampered copy): its signature changes, nothing is served.
    writeFileSync(file, 'ALPHA!\nbeta\n');
    expect(readRange(file, 0, 5, first)).toBeUndefined();
    // Replaced by a rename, as a release is rebuilt: the new copy's signature reads the new bytes.
    const next = path.join(dir, 'next.ndjson');
    writeFileSync(next, 'omega\nbeta\n');
    renameSync(next, file);
    const second = signatureOf(statSync(file));
    expect(second).not.toBe(first);
    expect(readRange(file, 0, 5, second)?.toString()).toBe('omega');
    expect(heldFiles()).toBe(1);
    // The replaced copy's descriptor was closed, not kept beside the new one.
    expect(openIn(dir)).toBe(1);
  });

  it('holds at most 64 files, closing the least recently read', () => {
    const dir = tempDir();
    dirs.push(dir);
    const files = Array.from({ length: 70 }, (_, i) => {
      const f = path.join(dir, `p${i}.ndjson`);
      writeFileSync(f, `line ${i}\n`);
      return [f, signatureOf(statSync(f))] as const;
    });
    for (const [f, sig] of files) expect(readRange(f, 0, 4, sig)?.toString()).toBe('line');
    expect(heldFiles()).toBe(64);
    expect(openIn(dir)).toBe(64);
    // The first files were closed first: reading one again opens it again, the count stays.
    expect(readRange(files[0][0], 5, 6, files[0][1])?.toString()).toBe('0');
    expect(heldFiles()).toBe(64);
    expect(openIn(dir)).toBe(64);
  });

  it('a read that throws closes the descriptor it had in hand, held or just opened', () => {
    const { dir, file, sig } = pack('alpha\nbeta\n');
    expect(readRange(file, 0, 5, sig)?.toString()).toBe('alpha');
    expect(openIn(dir)).toBe(1);
    // A range that cannot be read (its end before its start): the held descriptor is closed.
    expect(() => readRange(file, 5, 0, sig)).toThrow(RangeError);
    expect(heldFiles()).toBe(0);
    expect(openIn(dir)).toBe(0);
    // And the same from a fresh open.
    expect(() => readRange(file, 5, 0, sig)).toThrow(RangeError);
    expect(openIn(dir)).toBe(0);
  });

  it('throws for a file that is not there, as before, and holds nothing for it', () => {
    const dir = tempDir();
    dirs.push(dir);
    expect(() => readRange(path.join(dir, 'gone.ndjson'), 0, 4, '1:4:0')).toThrow(/ENOENT/);
    expect(heldFiles()).toBe(0);
  });
});
