import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** True when the module at `metaUrl` is the script node/tsx was asked to run. */
export const isMain = (metaUrl: string) => !!process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === metaUrl;

/** Whether the arguments ask for help (`--help`, `-h`, or `help` as the command). */
export const wantsHelp = (argv: string[]) => argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';

/**
 * One convention for every command (issue 28): `--help` prints the usage and exits 0; an
 * option the command does not know, or a malformed one, is refused with one line saying
 * which and the usage, exit 2 — never a stack trace. `options` as node:util parseArgs.
 */
export function parseCli<T extends NonNullable<ParseArgsConfig['options']>>(
  name: string, usage: string, options: T, argv = process.argv.slice(2), allowPositionals = false,
) {
  if (wantsHelp(argv)) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    console.error(`${name}: ${(err as Error).message.split('. To specify')[0]}\n${usage}`);
    process.exit(2);
  }
}

/** parseArgs for commands that report their own errors: a bad option throws one line and the usage. */
export function parseOrUsage<R>(usage: string, parse: () => R): R {
  try {
    return parse();
  } catch (err) {
    throw new Error(`${(err as Error).message.split('. To specify')[0]}\n${usage}`);
  }
}
