import type { ServiceProcess } from '../support/service-process';

/** A replica's memory as its /metrics reports it (prom-client's default process metrics). */
export interface Memory {
  heapUsed: number;
  rss: number;
}

/**
 * The least heap seen over a few samples 500 ms apart (the heap after a collection: what is live,
 * not the garbage a collection has yet to take), and the RSS of the last.
 */
export async function memoryOf(replica: ServiceProcess, samples = 6): Promise<Memory> {
  let least: Memory | undefined;
  for (let i = 0; i < samples; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await sampleOf(replica);
    least = { heapUsed: Math.min(now.heapUsed, least?.heapUsed ?? Infinity), rss: now.rss };
  }
  return least!;
}

async function sampleOf(replica: ServiceProcess): Promise<Memory> {
  const text = await replica.metrics();
  const gauge = (name: string) => {
    const value = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`${replica.name}'s /metrics has no ${name}`);
    return Number(value);
  };
  return { heapUsed: gauge('nodejs_heap_size_used_bytes'), rss: gauge('process_resident_memory_bytes') };
}
