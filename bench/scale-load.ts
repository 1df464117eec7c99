/**
 * The measuring half of bench/scale.ts: a target's process tree and its CPU time, one round
 * of wrk (or autocannon) against it, and a target's rounds as one row. wrk runs without
 * blocking the caller, which reads the servers' output meanwhile.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

export const cores = availableParallelism();

export const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
export const PIN = cores >= 2 && has('taskset');
export const WRK = has('wrk');
export const pinned = (cpu: string, cmd: string, args: string[]): [string, string[]] => (PIN ? ['taskset', ['-c', cpu, cmd, ...args]] : [cmd, args]);

/** Every pid in the tree under `root` (the primary and its workers; nginx and its workers). */
export function tree(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch { /* gone */ }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []));
  return out;
}
/**
 * CPU seconds used so far by every thread of `pids`: the scheduler's own nanosecond count
 * (/proc/<pid>/task/<tid>/schedstat), not utime+stime's 10 ms ticks (a 1 s round of a
 * saturated core is 100 ticks, ±1 %); falls back to the ticks where schedstat is absent.
 */
function cpuSeconds(pids: number[]): number {
  let t = 0;
  for (const p of pids) {
    try {
      for (const tid of readdirSync(`/proc/${p}/task`)) t += Number(readFileSync(`/proc/${p}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
    } catch {
      try {
        const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
        t += (Number(f[11]) + Number(f[12])) / 100;
      } catch { /* gone */ }
    }
  }
  return t;
}

export interface Result { rps: number; p50: number; p99: number; p999: number; max: number; cpuUs: number; errors: number; rootUs?: number }

/**
 * wrk's script. `done` prints what a round measured. `delay` holds each connection's first
 * request back for SETTLE ms (wrk's own latency clock starts when a request is written, so
 * the wait is not counted): node 20's libuv (≥ 1.45, libuv PR #3696) accepts one connection
 * per event-loop turn, so 256 connections opened at once against a server already busy with
 * the first of them waited up to ~1 s to be accepted, the bare node:http floor as long as
 * almanac (issue 41, ninth pass: docs/benchmarks.md). With the wait, a round measures the
 * server's own stalls over connections it has accepted; BENCH_SETTLE_MS=0 measures the
 * accept ramp as well, as before.
 */
export const LUA = `
local conns, settle, n = 0, 0, 0
init = function(args)
  conns = tonumber(args[1]) or 0
  settle = tonumber(args[2]) or 0
  -- No hook without a wait: with one, wrk sends every request through a timer.
  if settle == 0 then delay = nil end
end
delay = function()
  n = n + 1
  if n <= conns then return settle end
  return 0
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status))
end`;

/** How long each connection's first request waits (ms) so every connection is accepted before load starts; 0: none. */
export const SETTLE_MS = Math.max(0, Number(process.env.BENCH_SETTLE_MS ?? 100));
/**
 * The wait applies from 128 connections up. At 32 the accept ramp is short (32 turns of
 * ~1 ms), and the hook has a cost of its own: wrk then sends every request through a timer,
 * which changes how requests arrive together at the server, and so the CPU per request
 * the 32-connection ratios (item 1) compare.
 */
const settleFor = (conns: number) => (conns >= 128 ? SETTLE_MS : 0);

/**
 * One round of load on one target: its requests, latencies, and the CPU its process tree
 * used per request; `from`, `to`: the wall clock (ms) when the load started and ended, to
 * set the round beside a server's collections (gc-marks.mjs); `othersMs`: CPU the other
 * targets used meanwhile.
 */
export interface Round extends Result { n: number; seconds: number; from: number; to: number; othersMs?: number }

/**
 * Waits until the `others` (every target but the one about to be measured) have used under
 * 1 ms of CPU in each 25 ms for QUIET_MS together, at most 3 s, so a target's work after
 * its own round (a collection's marking, a log flush) does not run on the pinned core in
 * the next target's round: before this, the floor's two rounds over 50 ms in three runs
 * both came right after sirv's (docs/benchmarks.md, "Hot path, eleventh pass"). Returns
 * the ms waited.
 */
export const QUIET_MS = 100;
export async function othersQuiet(others: number[], maxMs = 3000): Promise<number> {
  const start = Date.now();
  let prev = cpuSeconds(others), since = start;
  while (Date.now() - since < QUIET_MS && Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 25));
    const now = cpuSeconds(others);
    if (now - prev > 0.001) since = Date.now();
    prev = now;
  }
  return Date.now() - start;
}

export async function load(url: string, headers: Record<string, string>, conns: number, seconds: number, pids: number[], root: number, luaFile: string, others: number[] = []): Promise<Round> {
  if (WRK) {
    const hdr = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const [cmd, args] = pinned('1', 'wrk', ['-t1', `-c${conns}`, `-d${seconds}s`, '--timeout', '10s', '-s', luaFile, ...hdr, url, '--', String(conns), String(settleFor(conns))]);
    const cpu0 = cpuSeconds(pids), root0 = cpuSeconds([root]), others0 = cpuSeconds(others);
    const from = Date.now();
    // Not execFileSync: this process must go on reading the servers' output (their access
    // logs) while wrk runs, as a log collector does; blocked, it left a server's stdout pipe
    // full and its log lines dropped for most of a run (until the eighth pass).
    const { stdout: out } = await execFileAsync(cmd, args, { encoding: 'utf8' });
    const to = Date.now();
    const cpu = cpuSeconds(pids) - cpu0, rootCpu = cpuSeconds([root]) - root0, othersMs = (cpuSeconds(others) - others0) * 1000;
    const [n, all, p50, p99, p999, max, errors] = /RESULT (.*)/.exec(out)![1].split(' ').map(Number);
    const us = all - settleFor(conns) * 1000; // the time requests were sent: req/s over it
    // For a cluster, the primary's share: what counting over IPC costs it per request.
    return { n, seconds: us / 1e6, rps: n / (us / 1e6), p50: p50 / 1000, p99: p99 / 1000, p999: p999 / 1000, max: max / 1000, cpuUs: (cpu / n) * 1e6, errors, rootUs: (rootCpu / n) * 1e6, from, to, othersMs };
  }
  const cpu0 = cpuSeconds(pids), from = Date.now();
  const r = await autocannon({ url, headers, connections: conns, duration: seconds });
  const cpu = cpuSeconds(pids) - cpu0, to = Date.now();
  const n = r.requests.total;
  return { n, seconds: r.duration, rps: n / r.duration, p50: r.latency.p50, p99: r.latency.p99, p999: r.latency.p99_9, max: r.latency.max, cpuUs: (cpu / n) * 1e6, errors: r.errors + r.non2xx, from, to };
}

/** A second of load nothing is measured from (JIT, connections, caches). */
export async function warmUp(url: string, headers: Record<string, string>, conns: number) {
  if (!WRK) return void (await autocannon({ url, headers, connections: conns, duration: 1 }));
  const [cmd, args] = pinned('1', 'wrk', ['-t1', `-c${conns}`, '-d1s', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url]);
  await execFileAsync(cmd, args, { encoding: 'utf8' });
}

const execFileAsync = promisify(execFile);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/**
 * A target's rounds as one row: CPU per request and the latency percentiles are the median
 * of its rounds (a round a neighbour of the VM slowed, 18 → 33 µs for the same server a second
 * later, moves a median little and a mean much); req/s over all rounds; max the worst of them.
 */
export function summarize(rounds: Round[]): Result {
  const n = rounds.reduce((a, r) => a + r.n, 0), secs = rounds.reduce((a, r) => a + r.seconds, 0);
  const rootUs = rounds.every((r) => r.rootUs !== undefined) ? median(rounds.map((r) => r.rootUs!)) : undefined;
  return {
    rps: n / secs, p50: median(rounds.map((r) => r.p50)), p99: median(rounds.map((r) => r.p99)), p999: median(rounds.map((r) => r.p999)),
    max: Math.max(...rounds.map((r) => r.max)), cpuUs: median(rounds.map((r) => r.cpuUs)), errors: rounds.reduce((a, r) => a + r.errors, 0), rootUs,
  };
}

/**
 * BENCH_ALLOC=1: the node targets run with V8's `--trace-gc-nvp`, whose line for each
 * collection says how many bytes were allocated since the one before (`allocated=`); the
 * sum over a case's rounds, per request, is what a request allocates. Unlike CPU time on
 * this VM it does not move from one second to the next, and what a request allocates is
 * memory it touches (the ninth pass: the floor 8.5 KB, almanac 13.7 KB).
 */
export const ALLOC = process.env.BENCH_ALLOC === '1';
export const allocFlags = ALLOC ? ['--trace-gc-nvp'] : [];
/** Sums the `allocated=` fields of a process's output, a field cut between two chunks included. */
export class AllocCount {
  total = 0;
  private tail = '';
  feed(chunk: Buffer) {
    const text = this.tail + chunk.toString('latin1');
    const re = /\ballocated=(\d+)(?=\s)/g;
    let m: RegExpExecArray | null;
    let end = 0;
    while ((m = re.exec(text))) {
      this.total += Number(m[1]);
      end = re.lastIndex;
    }
    // What may go on in the next chunk: a field whose digits are not all here yet, or the
    // start of its name ("alloc" | "ated=…"); only with BENCH_ALLOC, so the copy is no cost
    // of an ordinary run.
    const cut = text.lastIndexOf('allocated=');
    this.tail = cut >= end ? text.slice(cut) : text.slice(Math.max(end, text.length - 'allocated='.length));
  }
}
