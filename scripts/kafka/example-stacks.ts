/**
 * The example topologies (topologies/*.ts) on a real broker, as the test set-up and
 * `npm run tour:dlq` put them there: the broker's users are their principals, their main
 * topics are created as an admin would (their producers own them), and every generated
 * Terraform stack is applied with the real provider.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ProjectModel } from '../../src/model/types';
import { principalName } from '../../src/naming';
import { terraformTooling } from '../tools/tool-scripts';
import { ADMIN_USER, passwordOf } from './broker';
import { createTopicsWithLeaders } from './serving';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

export async function exampleModel(): Promise<ProjectModel> {
  const result = await compileFiles(discoverTopologyFiles(REPO_ROOT), REPO_ROOT);
  if (!result.model) throw new Error('the example topologies do not compile (npx krt validate says why)');
  return result.model;
}

/** Every principal name of the example topologies: the users their broker needs. */
export function principalNames(model: ProjectModel): string[] {
  const principals = model.topologies.flatMap((t) => [t.principals.replay, t.principals.monitor, t.principals.drift, ...t.consumers.map((c) => c.principal)]);
  return [...new Set(principals.map(principalName))].sort();
}

/** A user that is no super user: it deploys with only the ACLs docs/deploying.md lists. */
export const DEPLOYER_USER = 'deployer';

/** The users of a broker for the example topologies: their principals and the deployer (the admin is always there). */
export function exampleUsers(model: ProjectModel): string[] {
  return [...principalNames(model), DEPLOYER_USER];
}

/** Where a stack's Terraform runs: its working copies (with their state) under `root`, against this broker. */
export interface StackTarget {
  readonly root: string;
  readonly bootstrapServers: string;
}

/**
 * Where the working copies of the generated stacks live, with their Terraform state: beside
 * a broker started for this run (in `startedIn`), or, for a broker given by address, a folder
 * kept per broker, so a second run against it finds the topics and ACLs the first one
 * applied in its state rather than failing on them.
 */
export function terraformRoot(broker: { readonly startedIn: string } | { readonly bootstrapServers: string }): string {
  if ('startedIn' in broker) return path.join(broker.startedIn, 'terraform');
  return path.join(os.tmpdir(), 'krt-test-terraform', broker.bootstrapServers.replace(/[^\w.-]+/g, '_'));
}

/**
 * The root a test run uses, from its environment: its own folder (KRT_TEST_WORK_DIR) beside
 * the broker its set-up started (KRT_TEST_BROKER_DIR), or the folder kept for the broker it
 * was given (KAFKA_BOOTSTRAP_SERVERS). A script run inside a test run finds the same state.
 */
export function terraformRootFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KRT_TEST_BROKER_DIR || !env.KAFKA_BOOTSTRAP_SERVERS) return terraformRoot({ startedIn: env.KRT_TEST_WORK_DIR ?? path.join(REPO_ROOT, '.krt-test') });
  return terraformRoot({ bootstrapServers: env.KAFKA_BOOTSTRAP_SERVERS });
}

/** Terraform variables for a test broker: admin credentials (or this user's), SASL_PLAINTEXT, one replica. */
export function terraformVars(bootstrapServers: string, user: string = ADMIN_USER): string[] {
  return [
    `kafka_bootstrap_servers=${JSON.stringify(bootstrapServers.split(','))}`,
    `kafka_sasl_username=${user}`,
    `kafka_sasl_password=${passwordOf(user)}`,
    'kafka_tls_enabled=false',
    'replication_factor=1',
    'min_insync_replicas=1',
  ].flatMap((v) => ['-var', v]);
}

/** Why a missing Terraform stops these steps. */
const TERRAFORM_NEEDED = 'the example stacks are applied with the real Terraform provider';

/** Copies a generated stack into its working copy (its state stays) and initializes it. */
export function prepareTerraformWorkingCopy(root: string, stack: string): void {
  const { terraform, env } = terraformTooling(TERRAFORM_NEEDED);
  const dir = path.join(root, stack);
  mkdirSync(dir, { recursive: true });
  // A kept working copy may have locked an older provider: -upgrade takes the one the tools hold now.
  const upgrade = existsSync(path.join(dir, '.terraform.lock.hcl')) ? ['-upgrade'] : [];
  cpSync(path.join(REPO_ROOT, 'generated', 'terraform', stack), dir, { recursive: true });
  execFileSync(terraform, ['init', '-input=false', '-no-color', ...upgrade], { cwd: dir, env, stdio: 'pipe' });
}

/** Runs terraform in the working copy of a generated stack. */
export function terraformIn(root: string, stack: string, args: string[]): { code: number; output: string } {
  const { terraform, env } = terraformTooling(TERRAFORM_NEEDED);
  const dir = path.join(root, stack);
  if (!existsSync(path.join(dir, '.terraform'))) prepareTerraformWorkingCopy(root, stack);
  try {
    return { code: 0, output: execFileSync(terraform, [...args, '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

/** Main topics are not managed here: their producers own them. They are created as an admin would. */
export async function createMainTopics(model: ProjectModel, bootstrapServers: string): Promise<void> {
  const kafka = new Kafka({
    clientId: 'krt-example-stacks',
    brokers: bootstrapServers.split(','),
    sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) },
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const mains = new Map(model.topologies.flatMap((t) => t.consumers.map((c) => [c.mainTopic.name, c.mainTopic.partitions] as const)));
    const missing = [...mains].filter(([name]) => !existing.has(name));
    if (missing.length > 0) await createTopicsWithLeaders(admin, missing.map(([topic, numPartitions]) => ({ topic, numPartitions, replicationFactor: 1 })));
  } finally {
    await admin.disconnect();
  }
}

/**
 * The provider's Kafka client now and then loses a connection mid-apply on a loaded
 * machine ("kafka: broker not connected", with nothing in the broker's log). What it did
 * is in the state, so applying again finishes the job; any other failure fails at once.
 */
const LOST_CONNECTION = /broker not connected|connection reset by peer|i\/o timeout|: EOF\b/;
const APPLY_ATTEMPTS = 3;

/**
 * Runs terraform in a stack's working copy, again (up to APPLY_ATTEMPTS times) when the
 * provider lost its connection to the broker: an apply finishes the job from its state, a
 * plan (read-only) reads again. Exit code 1 is an error; a plan's 2 (changes) is an answer.
 */
export function terraformKeepingConnection(root: string, stack: string, args: string[]): { code: number; output: string } {
  for (let attempt = 1; ; attempt++) {
    const result = terraformIn(root, stack, args);
    if (result.code !== 1 || attempt === APPLY_ATTEMPTS || !LOST_CONNECTION.test(result.output)) return result;
    console.warn(`terraform ${args[0]} of ${stack}: the provider lost a connection to the broker (attempt ${attempt} of ${APPLY_ATTEMPTS}); running it again`);
  }
}

/** Applies one generated stack to the broker, from its working copy under the target's root. */
export function applyStack(target: StackTarget, stack: string): void {
  prepareTerraformWorkingCopy(target.root, stack);
  const apply = terraformKeepingConnection(target.root, stack, ['apply', '-auto-approve', ...terraformVars(target.bootstrapServers)]);
  if (apply.code !== 0) throw new Error(`terraform apply of ${stack} failed:\n${apply.output}`);
}

/** Creates the main topics of the example topologies, then applies every generated stack (its topics and ACLs). */
export async function applyExampleStacks(model: ProjectModel, target: StackTarget): Promise<void> {
  await createMainTopics(model, target.bootstrapServers);
  for (const topology of model.topologies) applyStack(target, topology.name);
}
