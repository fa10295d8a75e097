import { Writable } from 'node:stream';
import { createLogger } from '../src/logging';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'test', instance: 'i-1', destination }) };
}

describe('createLogger', () => {
  test('when secrets sit in logged objects, then they are censored and the rest is kept', () => {
    const { lines, logger } = capture();
    logger.child({ module: 'auth' }).info(
      {
        partner: { id: 'p-1', apiKey: 'hs_live_secret1', secret: 'hmac-secret', password: 'pw' },
        req: { headers: { 'x-api-key': 'hs_live_secret2', authorization: 'Bearer tok', accept: 'application/json' } },
        token: 'bare-token',
      },
      'request',
    );
    const line = lines.join('');
    for (const secret of ['hs_live_secret1', 'hmac-secret', '"pw"', 'hs_live_secret2', 'Bearer tok', 'bare-token'])
      expect(line).not.toContain(secret);
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ level: 'info', service: 'test', instance: 'i-1', module: 'auth', msg: 'request' });
    expect(parsed.partner).toEqual({ id: 'p-1', apiKey: '[REDACTED]', secret: '[REDACTED]', password: '[REDACTED]' });
    expect(parsed.req.headers.accept).toBe('application/json');
  });

  test('when secrets sit deep or in any letter case, then they are censored too', () => {
    const { lines, logger } = capture();
    logger.child({ module: 'x' }).warn(
      {
        partner: { auth: { secret: 'deep-secret', apiKey: 'deep-key', nested: { Password: 'deep-pw' } } },
        'x-api-key': 'top-key',
        clientSecret: 'cs',
        req: { headers: { 'X-Api-Key': 'hdr-key', 'X-API-KEY': 'hdr-key-2', Authorization: 'Basic abc' } },
        list: [{ token: 'in-array' }],
        kafka: { KAFKA_SASL_PASSWORD: 'sasl-env-pw', 'sasl.password': 'sasl-rdkafka-pw' },
        transaction_number: 'TRX-1',
      },
      'deep',
    );
    const line = lines.join('');
    for (const secret of [
      'deep-secret',
      'deep-key',
      'deep-pw',
      'top-key',
      '"cs"',
      'hdr-key',
      'Basic abc',
      'in-array',
      'sasl-env-pw',
      'sasl-rdkafka-pw',
    ])
      expect(line).not.toContain(secret);
    expect(JSON.parse(line).transaction_number).toBe('TRX-1');
  });
});
