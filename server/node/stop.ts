/**
 * Stopping on a signal (issue 38, item 4). SIGTERM (a supervisor, `docker stop`, systemd)
 * or SIGINT (Ctrl-C): the server stops accepting, lets the responses in flight finish for
 * up to ALMANAC_DRAIN_MS (default 10 s, the grace `docker stop` gives before SIGKILL), then
 * closes its state and exits 0. A second signal in the same process exits at once (1): an
 * operator who presses Ctrl-C twice means it. Workers of `--workers N` drain the same way
 * when their primary (or the signal sent to the whole group) tells them.
 */
export const DEFAULT_DRAIN_MS = 10_000;

/** ALMANAC_DRAIN_MS, checked: a whole number of milliseconds from 0 (cut at once) to 600000. */
export function drainMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ALMANAC_DRAIN_MS ?? String(DEFAULT_DRAIN_MS);
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > 600_000) throw new Error(`ALMANAC_DRAIN_MS must be a whole number of milliseconds from 0 to 600000 (got ${JSON.stringify(raw.slice(0, 40))})`);
  return Number(raw);
}

/** Runs `stop` on the first SIGTERM or SIGINT and exits when it is done; exits at once on a second. */
export function stopOnSignals(stop: () => Promise<unknown>, log: (m: string) => void = (m) => console.error(m)) {
  let stopping = false;
  const on = (sig: NodeJS.Signals) => {
    if (stopping) {
      log(`${sig} again: exiting without waiting for the responses in flight`);
      process.exit(1);
    }
    stopping = true;
    log(`${sig}: no new connections; finishing the responses in flight, then exiting`);
    stop().then(() => process.exit(0), (err) => {
      log(`stopping failed: ${(err as Error).message}`);
      process.exit(1);
    });
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
}
