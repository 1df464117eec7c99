import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** True when the module at `metaUrl` is the script node/tsx was asked to run. */
export const isMain = (metaUrl: string) => !!process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === metaUrl;
