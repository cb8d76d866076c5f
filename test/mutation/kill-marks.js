/**
 * The marks the mutation suites leave in Stryker's sandbox (the working directory of its test
 * runners), as the suites share no memory: which mutant a test has killed in this jest run, and
 * how many mutants each suite has killed so far in this `stryker run`.
 */
const fs = require('node:fs');
const path = require('node:path');

const KILLED_FILE = path.join(process.cwd(), '.mutation-killed');
const KILLS_FILE = path.join(process.cwd(), '.mutation-kills.json');

/** Whether a test has killed `mutant` already. */
exports.isKilled = (mutant) => mutant !== undefined && fs.existsSync(KILLED_FILE) && fs.readFileSync(KILLED_FILE, 'utf8') === mutant;

/** Suite path -> mutants it killed first, in this `stryker run`. */
exports.killsBySuite = () => (fs.existsSync(KILLS_FILE) ? JSON.parse(fs.readFileSync(KILLS_FILE, 'utf8')) : {});

/** Marks `mutant` killed, and counts the kill for `suite` (once per mutant). */
exports.markKilled = (mutant, suite) => {
  if (exports.isKilled(mutant)) return;
  fs.writeFileSync(KILLED_FILE, mutant);
  const kills = exports.killsBySuite();
  kills[suite] = (kills[suite] ?? 0) + 1;
  fs.writeFileSync(KILLS_FILE, JSON.stringify(kills));
};
