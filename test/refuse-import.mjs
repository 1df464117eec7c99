// `node --import ./test/refuse-import.mjs`: every ES import of the packages named in
// REFUSE_IMPORTS (comma-separated) fails, naming the module that asked for it; so a test can
// show that a module graph does not load a package at import time (server-imports.test.ts).
import { register } from 'node:module';

register(new URL('./refuse-import-hooks.mjs', import.meta.url), { data: (process.env.REFUSE_IMPORTS ?? '').split(',').filter(Boolean) });
