import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Compares text with a committed golden file. `UPDATE_GOLDEN=1 npx jest` rewrites the
 * golden files; review their diff before committing it.
 */
export function expectGolden(relativePath: string, actual: string): void {
  const file = path.join(__dirname, '..', 'golden', relativePath);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  if (!existsSync(file)) throw new Error(`golden file ${relativePath} is missing; run UPDATE_GOLDEN=1 npx jest and review it`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}
