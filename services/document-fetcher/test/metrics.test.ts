import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Registry } from '@hookstream/runtime';
import { createDocumentFetcherMetrics } from '../src/metrics';

/** docs/metrics.md's rows for the document-fetcher: name, type and label names, from the metric table. */
function catalogueRows(): Array<{ name: string; type: string; labels: string[] }> {
  const lines = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'metrics.md'), 'utf8').split('\n');
  const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return lines
    .filter((line) => line.startsWith('| `hookstream_'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => cells[4] === 'document-fetcher')
    .map((cells) => ({ name: ticked(cells[1]!)[0]!, type: cells[2]!, labels: ticked(cells[3]!).sort() }));
}

test('when the document-fetcher registers its own metrics, then each has exactly its row in docs/metrics.md, with its type and labels', async () => {
  const registry = new Registry();
  createDocumentFetcherMetrics(registry);
  const registered = (await registry.getMetricsAsJSON()).map((m) => ({
    name: m.name,
    type: String(m.type),
    labels: [...((registry.getSingleMetric(m.name) as unknown as { labelNames: string[] }).labelNames ?? [])].sort(),
  }));
  expect(registered.sort((a, b) => a.name.localeCompare(b.name))).toEqual(catalogueRows().sort((a, b) => a.name.localeCompare(b.name)));
});
