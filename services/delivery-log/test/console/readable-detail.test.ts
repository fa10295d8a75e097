/** An audit record's detail as the console shows it: its times written as times with their zone, other values as they are. */
import { readable } from '../../console/src/readable-detail';

test('epoch milliseconds under a time’s name and RFC 3339 texts are written as times with their zone, the original kept', () => {
  const shown = readable({
    expires_at: 1764324000000,
    selection: { since: '2026-11-28T10:00:00.000Z', partners: ['ux-test'] },
    attempts: 1764324000000,
    token_id: 'tok-1',
  }) as Record<string, unknown>;
  expect(shown['expires_at']).toMatch(/2025.*(UTC|GMT).*\(1764324000000\)$/);
  expect((shown['selection'] as Record<string, unknown>)['since']).toMatch(/2026.*(UTC|GMT).*\(2026-11-28T10:00:00.000Z\)$/);
  expect((shown['selection'] as Record<string, unknown>)['partners']).toEqual(['ux-test']);
  // A number that is not named as a time stays a number.
  expect(shown['attempts']).toBe(1764324000000);
  expect(shown['token_id']).toBe('tok-1');
});
