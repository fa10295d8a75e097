import { stateSchemaOf } from '../../src/store/state-store';

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
