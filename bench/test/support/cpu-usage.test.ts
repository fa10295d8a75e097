import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpuSeconds, processTreeCpuSeconds } from '../../src/support/cpu-usage';

/** A child of a shell: it burns 0.3 s of CPU, says so, and (`then`) ends or waits. */
const BURN = `node -e "while (process.cpuUsage().user < 300000); console.log('burnt'); if (process.argv[1] === 'wait') setTimeout(() => {}, 30000)"`;

/** The shell leads a process group of its own, so that the test can end its children with it. */
function shell(script: string): ChildProcess {
  return spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
}

async function burnt(child: ChildProcess): Promise<void> {
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(chunk.toString()).toContain('burnt');
}

/** PostgreSQL works in the postmaster's children: a bench counting only the postmaster would miss it. */
describe('processTreeCpuSeconds', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) process.kill(-child.pid!, 'SIGKILL');
  });

  it('when a child has ended and been reaped, then its CPU counts in its parent tree', async () => {
    const parent = shell(`${BURN} end; sleep 30`);
    started.push(parent);
    await burnt(parent);
    // The shell reaps its child as the child ends, a moment after it printed.
    const deadline = Date.now() + 5000;
    while ((processTreeCpuSeconds(parent.pid) ?? 0) < 0.3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processTreeCpuSeconds(parent.pid)).toBeGreaterThanOrEqual(0.3);
    expect(cpuSeconds(parent.pid)).toBeLessThan(0.3);
  });

  it('when a child still runs, then its CPU counts in its parent tree', async () => {
    const parent = shell(`${BURN} wait & wait`);
    started.push(parent);
    await burnt(parent);
    expect(processTreeCpuSeconds(parent.pid)).toBeGreaterThanOrEqual(0.3);
    expect(cpuSeconds(parent.pid)).toBeLessThan(0.3);
  });

  it('when there is no such process, then it is unknown', () => {
    expect(processTreeCpuSeconds(2 ** 30)).toBeUndefined();
  });
});
