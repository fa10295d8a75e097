/**
 * The supervision of the local stack when the stack is stopped on purpose (`stack down` marks
 * run.json, then stops the JVMs): nothing is started again, and supervision ends with the
 * reason. Stand-in processes carry `-Djava.io.tmpdir=<stateDir>/…` as the stack's JVMs do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markStopping } from '../../src/stack/heal';
import { StackAvailability, superviseStack } from '../../src/supervisor/stack-supervision';

describe('superviseStack', () => {
  let stateDir: string;
  const children: ChildProcess[] = [];

  /** A process that looks like one of the stack's JVMs. */
  function standIn(part: string): ChildProcess {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)', '--', `-Djava.io.tmpdir=${stateDir}/${part}/tmp`], {
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  }

  function recordRun(processes: { kafka: number; registry: number }): void {
    const info = {
      stateDir,
      startedAt: new Date().toISOString(),
      versions: { kafka: '4.3.1', log4j: '2.24.3', apicurio: '3.3.3' },
      settings: { KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9/apis/ccompat/v7' },
      processes,
      ports: { kafka: 9, kafkaController: 1, registry: 9, registryManagement: 2 },
      logs: { kafka: 'kafka.log', registry: 'registry.log' },
      java: 'java',
    };
    writeFileSync(path.join(stateDir, 'run.json'), JSON.stringify(info));
  }

  beforeEach(() => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-supervision-test-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  });

  test.each([
    ['marked as stopping', () => markStopping(stateDir)],
    ['no longer recorded', () => rmSync(path.join(stateDir, 'run.json'))],
  ])(
    'when the stack is %s and a part ends, then nothing is started again and supervision ends saying the stack was stopped',
    async (_, stop) => {
      const kafka = standIn('kafka');
      const registry = standIn('registry');
      recordRun({ kafka: kafka.pid!, registry: registry.pid! });
      const lines: string[] = [];
      const availability = new StackAvailability();
      const supervision = superviseStack({ stateDir, cacheDir: stateDir, availability, say: (l) => lines.push(l) });
      try {
        stop();
        registry.kill('SIGTERM');
        await expect(supervision.done).rejects.toThrow(`the local stack in ${stateDir} was stopped (\`hookstream stack down\`)`);
        expect(lines).toEqual([]); // no "restarting it"
        expect(availability.awaySince(0)).toBe(true); // services are not blamed for crashes meanwhile
      } finally {
        supervision.stop();
      }
    },
  );
});
