const path = require('node:path');

/**
 * Mutant id -> the suites that reached it in the coverage run. In the working directory of
 * the test runners, which is Stryker's sandbox: each `stryker run` starts from none, and a
 * runner that Stryker restarts after a timeout still finds it.
 */
exports.SUITES_FILE = path.join(process.cwd(), '.mutation-suites.json');
