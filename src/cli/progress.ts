import type { CliIo } from './io';

/** `replayed 37/100`: one redrawn line on a terminal, a line per tenth in logs. */
export function progressReporter(io: CliIo, verb: string): (done: number, total: number) => void {
  let lastTenth = -1;
  return (done, total) => {
    if (io.interactive) {
      io.stderr(`\r${verb} ${done}/${total}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done * 10) / total);
    if (tenth !== lastTenth || done === total) {
      lastTenth = tenth;
      io.stderr(`${verb} ${done}/${total}\n`);
    }
  };
}
