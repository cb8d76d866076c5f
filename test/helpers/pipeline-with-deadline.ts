import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PipelineResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the pipeline outlived its deadline: what each of its Node processes was doing then. */
  readonly hung?: string;
}

/**
 * Runs a shell pipeline (`bash -o pipefail -c`) and gives its exit code and output. Past
 * `deadlineMs` it does not wait on: each Node process of the pipeline writes a diagnostic
 * report (its JavaScript stack, the handles keeping it alive), everything is killed, and the
 * result carries the reports. A hang in CI then says where it hung, not only that the test
 * timed out.
 */
export function runPipeline(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; deadlineMs: number }): Promise<PipelineResult> {
  const reports = mkdtempSync(path.join(tmpdir(), 'krt-pipeline-'));
  const nodeOptions = `${options.env.NODE_OPTIONS ?? ''} --report-on-signal --report-signal=SIGUSR2 --report-directory=${reports}`.trim();
  const child = spawn('bash', ['-o', 'pipefail', '-c', command], { cwd: options.cwd, env: { ...options.env, NODE_OPTIONS: nodeOptions }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    let hung: string | undefined;
    const deadline = setTimeout(() => {
      void reportAndKill(child.pid!, reports).then((text) => {
        hung = text;
      });
    }, options.deadlineMs);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      rmSync(reports, { recursive: true, force: true });
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, ...(hung === undefined ? {} : { hung }) });
    });
  });
}

/** Asks each Node process under `pid` for a diagnostic report, then kills the pipeline; gives the reports' gist. */
async function reportAndKill(pid: number, reports: string): Promise<string> {
  const nodes = childrenOf(pid).filter((p) => /node/.test(safeReadlink(`/proc/${p}/exe`)));
  for (const p of nodes) process.kill(p, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const text = readdirSync(reports)
    .map((file) => gist(JSON.parse(readFileSync(path.join(reports, file), 'utf8')) as DiagnosticReport))
    .join('\n\n');
  process.kill(-pid, 'SIGKILL');
  return text === '' ? `no report from the Node processes ${nodes.join(', ') || '(none found)'}` : text;
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function safeReadlink(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '';
  }
}

interface DiagnosticReport {
  header?: { commandLine?: string[] };
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; remoteEndpoint?: unknown; timeout?: number }[];
}

/** The command, the JavaScript stack, and the active, referenced handles (what keeps the process alive). */
function gist(report: DiagnosticReport): string {
  const alive = (report.libuv ?? []).filter((h) => h.is_active && h.is_referenced).map((h) => `${h.type}${h.remoteEndpoint ? ` ${JSON.stringify(h.remoteEndpoint)}` : ''}${h.timeout !== undefined ? ` timeout=${h.timeout}` : ''}`);
  return [`process: ${(report.header?.commandLine ?? []).join(' ')}`, `stack: ${report.javascriptStack?.message ?? ''}\n  ${(report.javascriptStack?.stack ?? []).join('\n  ')}`, `handles keeping it alive: ${alive.join('; ') || 'none'}`].join('\n');
}
