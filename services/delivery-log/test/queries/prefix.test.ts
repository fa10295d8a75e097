/** A prefix search's LIKE pattern: the prefix as given (PostgreSQL lowers both sides), its own wildcards and backslashes taken literally. */
import { prefixPattern } from '../../src/adapters/store/queries/prefix';

test('a prefix becomes a LIKE pattern that matches what starts with it, its case left to PostgreSQL', () => {
  expect(prefixPattern('P-1002')).toBe('P-1002%');
  expect(prefixPattern('trx-Ä')).toBe('trx-Ä%');
});

test("the prefix's own % _ and \\ are taken literally, not as wildcards", () => {
  expect(prefixPattern('50%_off\\x')).toBe('50\\%\\_off\\\\x%');
});
