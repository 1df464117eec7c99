/** `npm run serve`: serve the live release on HOST:PORT (defaults 127.0.0.1:8080). */
import { isMain } from '../pipeline/cli.ts';
import { distDir, stateDir } from '../pipeline/paths.ts';
import { createApp } from './app.ts';

export async function serve(env: NodeJS.ProcessEnv = process.env) {
  const app = createApp({ dist: distDir(env), stateDir: stateDir(env) });
  // Cold search indexes load before the first client arrives (README "Query rules").
  await app.release().warmSearch();
  const host = env.HOST ?? '127.0.0.1';
  const port = Number(env.PORT ?? 8080);
  await new Promise<void>((resolve) => app.server.listen(port, host, resolve));
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  console.log(`serving release ${app.release().id} on http://${host}:${bound} (state in ${stateDir(env)})`);
  const stop = () => app.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return app;
}

if (isMain(import.meta.url)) {
  serve().catch((err) => {
    console.error(`cannot start: ${err.message}`);
    process.exit(1);
  });
}
