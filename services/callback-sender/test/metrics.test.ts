import { Registry } from '@hookstream/runtime';
import { createCallbackSenderMetrics } from '../src/metrics';

test('when scraped, then hookstream_callback_retry_overdue_seconds has the retry tiers’ consumer’s figure for every tier', async () => {
  const registry = new Registry();
  const metrics = createCallbackSenderMetrics(registry);
  metrics.readRetryOverdueFrom(() => new Map([1, 2, 3, 4, 5, 6, 7, 8].map((tier) => [tier, tier === 8 ? 30 : 0])));
  const text = await registry.metrics();
  expect(text).toContain('hookstream_callback_retry_overdue_seconds{tier="8"} 30');
  expect(text).toContain('hookstream_callback_retry_overdue_seconds{tier="1"} 0');
  expect(text.match(/^hookstream_callback_retry_overdue_seconds\{/gm)).toHaveLength(8);
});
