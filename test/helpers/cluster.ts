import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { Admin } from '@hookstream/kafka';
import { waitFor } from './infrastructure';
import { isolatedStackEnv, runCli, type Finished } from './processes';

/** A stack of a test's own, started by `hookstream stack up --brokers <n> --detach` on free ports and a temp state dir. */
export interface TestStack {
  stateDir: string;
  /** KAFKA_BROKERS, SCHEMA_REGISTRY_URL and the local keys, as the stack's stack.env gives them. */
  env: Record<string, string>;
  /** The stack's run.json. */
  runInfo: () => { cluster?: Array<{ nodeId: number; pid: number; port: number }>; processes?: { kafka?: number } };
  /** `stack status --json`: its exit code and document. */
  status: () => Promise<{ code: number | null; json: StackStatusJson }>;
  /** `stack down`, then the state dir is deleted. */
  down: () => Promise<Finished>;
}

export interface StackStatusJson {
  running: boolean;
  healthy: boolean;
  health: { kafka: { ok: boolean }; kafkaNodes?: Array<{ nodeId: number; ok: boolean; alive: boolean; detail: string }> };
}

export async function startTestStack(brokers: number): Promise<TestStack> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-cluster-test-'));
  const envFile = `${stateDir}.env`;
  const env = isolatedStackEnv(envFile);
  const cli = (...args: string[]) => runCli([...args, '--state-dir', stateDir], { env, timeoutMs: 240_000 });
  const down = async () => {
    const result = await cli('stack', 'down');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(envFile, { force: true });
    return result;
  };
  const up = await cli('stack', 'up', '--brokers', String(brokers), '--detach');
  if (up.code !== 0) {
    await down();
    throw new Error(`stack up --brokers ${brokers} exited ${up.code}:\n${up.stdout}\n${up.stderr}`);
  }
  return {
    stateDir,
    env: Object.fromEntries(
      Object.entries(parseEnv(readFileSync(envFile, 'utf8'))).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    runInfo: () => JSON.parse(readFileSync(path.join(stateDir, 'run.json'), 'utf8')) as ReturnType<TestStack['runInfo']>,
    status: async () => {
      const result = await cli('stack', 'status', '--json');
      return { code: result.code, json: JSON.parse(result.stdout) as StackStatusJson };
    },
    down,
  };
}

/** How many partitions of `topics` each broker leads. */
export async function leadersPerBroker(admin: Admin, topics: string[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const topic of await admin.fetchTopicMetadata({ topics })) {
    for (const partition of topic.partitions) counts.set(partition.leader, (counts.get(partition.leader) ?? 0) + 1);
  }
  return counts;
}

/**
 * The node of a cluster stack that is the active KRaft controller: the last to log its activation.
 * (Clients cannot ask: the Metadata API names a random broker as the controller under KRaft.)
 */
export function activeController(stateDir: string, nodes = 3): number | undefined {
  let latest: { nodeId: number; at: string } | undefined;
  for (let nodeId = 1; nodeId <= nodes; nodeId++) {
    const log = readFileSync(path.join(stateDir, 'kafka-cluster', `node-${nodeId}`, 'kafka.log'), 'utf8');
    const at = log
      .split('\n')
      .filter((line) => line.includes('Performing controller activation'))
      .map((line) => line.slice(0, 23))
      .pop();
    if (at && (!latest || at > latest.at)) latest = { nodeId, at };
  }
  return latest?.nodeId;
}

/**
 * SIGKILLs node `nodeId` of a cluster stack; `restart()` starts it again as a supervisor would.
 * The CLI starts a cluster's nodes only with the whole cluster (a node needs its membership), so
 * the node is started with the very command line, environment and directory the stack gave it,
 * read from /proc before the kill; its storage and config are still in place. The new pid goes
 * into run.json, so `stack status` judges it and `stack down` stops it like the others.
 */
export function killClusterNode(stack: TestStack, nodeId: number): { restart: () => Promise<number> } {
  const pid = stack.runInfo().cluster!.find((n) => n.nodeId === nodeId)!.pid;
  return killAndRespawn(stack, pid, path.join(stack.stateDir, 'kafka-cluster', `node-${nodeId}`, 'kafka.log'));
}

/** SIGKILLs the broker of a single-broker stack; `restart()` starts it again as killClusterNode does. */
export function killStackBroker(stack: TestStack): { restart: () => Promise<number> } {
  return killAndRespawn(stack, stack.runInfo().processes!.kafka!, path.join(stack.stateDir, 'kafka', 'kafka.log'));
}

/** CPU seconds (user + system) process `pid` has used so far, from /proc. */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
}

function killAndRespawn(stack: TestStack, pid: number, logFile: string): { restart: () => Promise<number> } {
  const read = (what: string) => readFileSync(`/proc/${pid}/${what}`, 'utf8').split('\0').filter(Boolean);
  const [command, ...args] = read('cmdline');
  const env = Object.fromEntries(read('environ').map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  process.kill(pid, 'SIGKILL');
  return {
    restart: async () => {
      // Its ports and storage lock are free once it is gone.
      await waitFor(
        () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '),
        `broker ${pid} to end`,
      );
      const out = openSync(logFile, 'a');
      const child = spawn(command!, args, { cwd, env, detached: true, stdio: ['ignore', out, out] });
      closeSync(out);
      child.unref();
      const file = path.join(stack.stateDir, 'run.json');
      const info = JSON.parse(readFileSync(file, 'utf8')) as { processes: { kafka: number }; cluster?: Array<{ pid: number }> };
      for (const node of info.cluster ?? []) if (node.pid === pid) node.pid = child.pid!;
      if (info.processes.kafka === pid) info.processes.kafka = child.pid!;
      writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`);
      return child.pid!;
    },
  };
}
