/**
 * The development key `npm start` and `npm run edge` print: made on first run (a
 * `development` exception of its own), kept in <state folder>/dev-key — in plain text,
 * for local development only; every other key is stored hashed — and made again when the
 * old one stopped working (revoked, or its exception ended).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stateDir } from '../../pipeline/paths.ts';
import { KeyStore } from '../state/keys.ts';

export function devKey(env: NodeJS.ProcessEnv): string {
  const dir = stateDir(env);
  const file = path.join(dir, 'dev-key');
  // Kept in plain text only for local development; real keys are stored hashed.
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    const store = new KeyStore(dir);
    const rec = store.verify(secret);
    // Still working: not revoked, and its development exception not ended.
    if (rec && store.access(rec).ok) return secret;
  }
  mkdirSync(dir, { recursive: true });
  const { secret } = new KeyStore(dir).create('development', 'npm start development key');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}
