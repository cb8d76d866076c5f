import { readFileSync } from 'node:fs';
import path from 'node:path';

/** krt's package.json, the same from src/ and from dist/: the synth cache hashes it, and its version names the runtime line generated packages ask for. */
export const OWN_PACKAGE_JSON = path.resolve(__dirname, '..', '..', 'package.json');

/** krt's own version. The runtime package is released in lockstep with it (test/runtime/isolation.test.ts). */
export function ownVersion(): string {
  version ??= (JSON.parse(readFileSync(OWN_PACKAGE_JSON, 'utf8')) as { version: string }).version;
  return version;
}
let version: string | undefined;
