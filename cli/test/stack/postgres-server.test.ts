import { postgresUrl, withDatabase } from '../../src/stack/postgres-server';

describe("the stack's PostgreSQL URLs", () => {
  test('when made for a port, then they name the loopback server, its role and the state database', () => {
    expect(postgresUrl(5432)).toBe('postgres://hookstream:hookstream@127.0.0.1:5432/hookstream');
  });

  test('when another database is named, then the server, credentials and options stay', () => {
    expect(withDatabase('postgres://hookstream:hookstream@127.0.0.1:5433/hookstream?sslmode=disable', 'delivery_log')).toBe(
      'postgres://hookstream:hookstream@127.0.0.1:5433/delivery_log?sslmode=disable',
    );
  });
});
