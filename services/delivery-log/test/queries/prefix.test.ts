/** A prefix search's LIKE pattern: the prefix in lower case, its own wildcards and backslashes taken literally. */
import { prefixPattern } from '../../src/adapters/store/queries/prefix';

test('a prefix becomes a lower-case LIKE pattern that matches what starts with it', () => {
  expect(prefixPattern('P-1002')).toBe('p-1002%');
  expect(prefixPattern('trx-A')).toBe('trx-a%');
});

test("the prefix's own % _ and \\ are taken literally, not as wildcards", () => {
  expect(prefixPattern('50%_off\\x')).toBe('50\\%\\_off\\\\x%');
});
