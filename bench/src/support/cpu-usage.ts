/**
 * CPU time from /proc: per process, for the whole machine, and over a window of a bench's run,
 * and the local stack's broker, registry and PostgreSQL processes to name in it. CPU per request is
 * steadier than a rate on a shared machine, and where the rest of the machine's time went tells
 * a busy neighbour from a slow service.
 */
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** CPU seconds (user + system) process `pid` has used so far, from /proc; undefined where there is none. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds process `pid` and every process it started have used so far: its own, its reaped
 * children's (cutime + cstime: a PostgreSQL backend that ended) and its live children's, and
 * theirs. PostgreSQL works in the postmaster's children (a backend per connection, the WAL writer,
 * the checkpointer), so the postmaster's own time alone would miss nearly all of it.
 */
export function processTreeCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const own = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
    return childrenOf(pid).reduce((sum, child) => sum + (processTreeCpuSeconds(child) ?? 0), own);
  } catch {
    return undefined;
  }
}

/** The live children of `pid`; none where the kernel does not list them (no CONFIG_PROC_CHILDREN). */
function childrenOf(pid: number | undefined): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Busy and total CPU time of the whole machine so far (all cores, ticks of 1/100 s), from /proc/stat. */
function machineCpuTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/**
 * The local stack's broker, registry and PostgreSQL (its postmaster): the processes `hookstream
 * stack exec` (this process's parent) started beside this one, named by their state folders.
 * Empty when the stack is not ours.
 */
export function stackProcesses(): Record<string, number> {
  const found: Record<string, number> = {};
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  for (const pid of pids) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid !== process.ppid || Number(pid) === process.pid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes('/kafka/')) found.broker = Number(pid);
      else if (cmdline.includes('/registry/')) found.registry = Number(pid);
      else if (cmdline.includes('/postgres/')) found.postgres = Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU used by some processes, this one and the whole machine over a window of time. */
export class CpuWindow {
  private constructor(
    private readonly pids: Array<[name: string, pid: number | undefined, start: number | undefined]>,
    private readonly ownLabel: string,
    private readonly own: NodeJS.CpuUsage,
    private readonly machine: { busy: number; total: number } | undefined,
    private readonly startedAt: number,
  ) {}

  /** Starts the window for `processes` (name → pid), this process (named `ownLabel`) and the machine. */
  static start(processes: Record<string, number | undefined>, ownLabel = 'bench'): CpuWindow {
    return new CpuWindow(
      Object.entries(processes)
        .filter(([, pid]) => pid !== undefined)
        .map(([name, pid]) => [name, pid, processTreeCpuSeconds(pid)]),
      ownLabel,
      process.cpuUsage(),
      machineCpuTicks(),
      performance.now(),
    );
  }

  /** CPU seconds the process named `name` (and those it started) has used since the window began; undefined where unknown. */
  cpuSecondsOf(name: string): number | undefined {
    const [, pid, start] = this.pids.find(([known]) => known === name) ?? [];
    const now = processTreeCpuSeconds(pid);
    return now === undefined || start === undefined ? undefined : now - start;
  }

  /** Seconds since the window began. */
  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  /** The window's length and the CPU seconds of each named process over it, read at one moment. */
  usage(): { seconds: number; cpuSeconds: Record<string, number | undefined> } {
    return {
      seconds: this.elapsedSeconds(),
      cpuSeconds: Object.fromEntries(this.pids.map(([name]) => [name, this.cpuSecondsOf(name)])),
    };
  }

  /**
   * e.g. "consumer 45 %, sender 60 %, bench (publisher) 20 %; the rest of the machine (other work
   * on it) 60 % — of a core each; machine 185 % busy of 2 cores".
   */
  describe(): string {
    const seconds = this.elapsedSeconds();
    const percent = (cpu: number) => (cpu / seconds) * 100;
    let known = 0;
    const parts = this.pids.map(([name]) => {
      const used = this.cpuSecondsOf(name);
      if (used === undefined) return `${name} n/a`;
      known += percent(used);
      return `${name} ${percent(used).toFixed(0)} %`;
    });
    const own = process.cpuUsage(this.own);
    known += percent((own.user + own.system) / 1e6);
    parts.push(`${this.ownLabel} ${percent((own.user + own.system) / 1e6).toFixed(0)} %`);
    const machine = machineCpuTicks();
    const cores = os.availableParallelism();
    if (!machine || !this.machine) return `${parts.join(', ')} of a core each`;
    const busy = ((machine.busy - this.machine.busy) / (machine.total - this.machine.total)) * cores * 100;
    return (
      `${parts.join(', ')}; the rest of the machine (other work on it) ${Math.max(0, busy - known).toFixed(0)} % ` +
      `— of a core each; machine ${busy.toFixed(0)} % busy of ${cores} cores`
    );
  }
}
