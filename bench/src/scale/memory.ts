import type { ServiceProcess } from '../support/service-process';

/** A replica's memory as its /metrics reports it (prom-client's default process metrics). */
export interface Memory {
  heapUsed: number;
  rss: number;
}

export async function memoryOf(replica: ServiceProcess): Promise<Memory> {
  const text = await replica.metrics();
  const gauge = (name: string) => {
    const value = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`${replica.name}'s /metrics has no ${name}`);
    return Number(value);
  };
  return { heapUsed: gauge('nodejs_heap_size_used_bytes'), rss: gauge('process_resident_memory_bytes') };
}
