// Preloaded into a measured `krt` process (`node -r`): at exit, writes the process's CPU
// time and peak RSS to the file KRT_BENCH_USAGE_FILE names, for the bench that started it.
'use strict';
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(process.env.KRT_BENCH_USAGE_FILE, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssMb: usage.maxRSS / 1024 }));
});
