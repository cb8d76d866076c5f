import { UsageError } from './topology-files';

/**
 * The number a serving command's `--port` names: decimal digits, 0 to 65535 (0 picks a free
 * port). `Number()` alone took '' and ' ' as 0 and '1e3' or '0x50' as ports.
 */
export function portOption(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new UsageError(`--port takes a port number (0 picks a free one), not '${text}'`);
  return port;
}
