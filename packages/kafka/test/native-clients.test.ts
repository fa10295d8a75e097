import pino from 'pino';
import { clientErrorListener } from '../src/native-clients';

function listener() {
  const lines: Array<{ level: number; msg: string; code?: number }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  return { onError: clientErrorListener(logger), lines };
}

test('when librdkafka reports a broker down, then it is logged at debug: it recovers by itself', () => {
  const { onError, lines } = listener();
  onError(Object.assign(new Error('broker transport failure'), { code: -195, isFatal: false }));
  expect(lines.map((l) => [l.level, l.code])).toEqual([[20, -195]]);
});

test('when librdkafka reports a fatal error or a failed authentication, then it is logged at error', () => {
  const { onError, lines } = listener();
  onError(Object.assign(new Error('producer fenced'), { code: -144, isFatal: true }));
  onError(Object.assign(new Error('SASL authentication error'), { code: -169, isFatal: false }));
  expect(lines.map((l) => [l.level, l.code])).toEqual([
    [50, -144],
    [50, -169],
  ]);
});
