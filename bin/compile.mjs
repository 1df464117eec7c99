#!/usr/bin/env node
/**
 * Compiles sources/, pipeline/, server/, reader/, edge/ and ops/ to JavaScript in lib/ (tsc with
 * tsconfig.build.json, `.ts` imports rewritten to `.js`) and copies the data files those
 * modules read beside them. The production commands (`npm start`, `serve`, `build`,
 * `fetch`, `bundle`, `keys`, `review`) run lib/ with plain node, never tsx
 * (docs/operations.md, "Running without devDependencies").
 *
 * typescript is a dependency, so a production install of a bare clone (`npm ci
 * --omit=dev`: `prepare` runs this with --if-stale) compiles its own lib/. There the
 * devDependencies are absent, @types/node among them, and some sources import others
 * (edge/'s tools: esbuild, miniflare): tsc could not type-check, so it only transpiles
 * (`--noCheck`, no type libraries). The JavaScript is the same byte for byte as the
 * checked compile's (test/runtime.test.ts compares them); type checking is `npm run
 * typecheck`, which `npm test` runs.
 *
 *   node bin/compile.mjs             compile now
 *   node bin/compile.mjs --if-stale  compile only when a source file is newer than lib/;
 *                                    where typescript is not installed (lib/ shipped
 *                                    into an install without it), use lib/ as it is
 *
 * Plain JavaScript with no dependency: it has to run before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LIB = path.join(root, 'lib');
const STAMP = path.join(LIB, '.compiled');
const DIRS = ['sources', 'pipeline', 'server', 'reader', 'edge', 'ops'];
/** Non-TypeScript files the compiled modules read relative to themselves. */
const ASSET = /\.json$/;

function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

/** Newest modification time of what lib/ is compiled from (0 when the sources are not here). */
function newestSource() {
  let newest = 0;
  for (const f of ['tsconfig.json', 'tsconfig.build.json'].map((n) => path.join(root, n))) if (existsSync(f)) newest = Math.max(newest, statSync(f).mtimeMs);
  for (const d of DIRS) for (const f of walk(path.join(root, d))) newest = Math.max(newest, statSync(f).mtimeMs);
  return newest;
}

function installed(pkg) {
  try {
    createRequire(path.join(root, 'package.json')).resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return false;
  }
}
const haveTypescript = () => installed('typescript');
/** The devDependencies are installed (@types/node stands for them): tsc can type-check. */
const canCheck = () => installed('@types/node');

function compile() {
  const started = Date.now();
  // From scratch into a temporary folder, then swapped in: a deleted or renamed module
  // leaves nothing behind, and a failed compile leaves lib/ as it was.
  const tmp = path.join(root, `.lib-tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const tsc = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsc.cmd' : 'tsc');
  const check = canCheck();
  const args = ['-p', path.join(root, 'tsconfig.build.json'), '--outDir', tmp, ...(check ? [] : ['--noCheck', '--types', ''])];
  const r = spawnSync(tsc, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    console.error('compile: tsc failed; lib/ unchanged');
    process.exit(r.status ?? 1);
  }
  for (const d of DIRS) {
    for (const f of walk(path.join(root, d))) {
      if (!ASSET.test(f)) continue;
      const to = path.join(tmp, path.relative(root, f));
      mkdirSync(path.dirname(to), { recursive: true });
      cpSync(f, to);
    }
  }
  writeFileSync(path.join(tmp, '.compiled'), `${new Date().toISOString()}\n`);
  // The old lib/ is renamed aside, not removed, before the new one takes its place: a server
  // running from lib/ (which loads some modules later, on first use) finds lib/ missing for
  // the time between two renames, not for the time a whole tree takes to delete.
  const old = path.join(root, `.lib-old-${process.pid}`);
  try {
    renameSync(LIB, old);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  try {
    renameSync(tmp, LIB);
  } catch (err) {
    // Another command compiled at the same moment and swapped its lib/ in first: use that one.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(STAMP)) throw err;
  }
  rmSync(old, { recursive: true, force: true });
  const how = check ? '' : ' (transpiled only: the devDependencies, @types/node among them, are not installed; npm run typecheck checks types)';
  console.error(`compile: lib/ written in ${((Date.now() - started) / 1000).toFixed(1)} s${how}`);
}

const USAGE = `usage: npm run compile [-- --if-stale]
  compiles sources/, pipeline/, server/, reader/, edge/ and ops/ into lib/ (the production commands run lib/ with node)
  --if-stale   only when a source file is newer than lib/ (every npm run command does this first)`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = args.find((a) => a !== '--if-stale');
if (unknown) {
  console.error(`compile: Unknown option '${unknown.slice(0, 60)}'\n${USAGE}`);
  process.exit(2);
}
const ifStale = args.includes('--if-stale');
if (!ifStale) {
  if (!haveTypescript()) {
    console.error('compile: typescript is not installed (a dependency); run npm ci first');
    process.exit(1);
  }
  compile();
} else {
  const compiledAt = existsSync(STAMP) ? statSync(STAMP).mtimeMs : -1;
  if (compiledAt < newestSource()) {
    if (haveTypescript()) compile();
    else if (compiledAt < 0) {
      console.error('compile: lib/ is missing and typescript is not installed (was the install run with --ignore-scripts or without its dependencies?): run npm ci, or ship a compiled lib/ with the package');
      process.exit(1);
    } else console.error('compile: lib/ is older than the TypeScript sources, and typescript is not installed to recompile it; running lib/ as it is');
  }
}
