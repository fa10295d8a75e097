import { isStoreUnavailable, stateSchemaOf, withSearchPath } from '../../src/store/state-store';

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

describe('withSearchPath', () => {
  it("sets the schema as a startup option, after the URL's own options", () => {
    const plain = new URL(withSearchPath('postgres://u:p%40ss@db:5432/hookstream', 'state_x_1'));
    expect(plain.searchParams.get('options')).toBe('-c search_path=state_x_1');
    expect(plain.password).toBe('p%40ss');
    const own = new URL(withSearchPath('postgres://u@db/hookstream?options=-c%20statement_timeout%3D5000&sslmode=require', 'public'));
    expect(own.searchParams.get('options')).toBe('-c statement_timeout=5000 -c search_path=public');
    expect(own.searchParams.get('sslmode')).toBe('require');
  });
});
