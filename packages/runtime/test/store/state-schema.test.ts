import { withoutStartupOptions } from '../../src/store/postgres-pool';
import { isStoreUnavailable, stateSchemaOf } from '../../src/store/state-store';

describe('stateSchemaOf', () => {
  it('keeps a deployment without a prefix in public', () => {
    expect(stateSchemaOf('')).toBe('public');
  });

  it('gives prefixes that fold alike schemas of their own, each a plain PostgreSQL identifier', () => {
    const names = ['a.b', 'a-b', 'A.b', `${'x'.repeat(300)}.`, 'bench-1764271234.'].map(stateSchemaOf);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z_][a-z0-9_]{0,62}$/);
  });

  it('is the same schema for the same prefix (every replica and restart finds its state)', () => {
    expect(stateSchemaOf('prod.')).toBe(stateSchemaOf('prod.'));
  });
});

describe('isStoreUnavailable', () => {
  it('is "retry later" for a store away, down or silent: 503 to a partner, not 500', () => {
    const away = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      // pg's query_timeout: a server that stopped answering without closing the connection.
      new Error('Query read timeout'),
    ];
    expect(away.filter((error) => !isStoreUnavailable(error)).map((e) => e.message)).toEqual([]);
  });

  it('is a fault of ours for a query the store refuses', () => {
    const faults = [
      Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      new Error('something else'),
    ];
    expect(faults.filter((error) => isStoreUnavailable(error)).map((e) => e.message)).toEqual([]);
  });
});

describe('withoutStartupOptions', () => {
  it("takes the URL's own startup options out and leaves the rest as it was written", () => {
    expect(withoutStartupOptions('postgres://u:50%off@db/hookstream')).toEqual({ url: 'postgres://u:50%off@db/hookstream' });
    expect(withoutStartupOptions('postgres://u:pw@/db?host=/cloudsql/x&options=-c%20work_mem%3D4MB')).toEqual({
      url: 'postgres://u:pw@/db?host=%2Fcloudsql%2Fx',
      startupOptions: '-c work_mem=4MB',
    });
    expect(withoutStartupOptions('postgres://u@db/h?options=-c+a%3D1')).toEqual({ url: 'postgres://u@db/h', startupOptions: '-c a=1' });
  });
});
