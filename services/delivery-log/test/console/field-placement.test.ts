import { owns, placeProblems } from '../../console/src/field-placement';

const FORM = ['name', 'callback_endpoints', 'callback_endpoints[0]', 'callback_endpoints[0].url', 'body', 'body.rules', 'outbound_auth'];

test('when a problem names an input, then it is shown beside that input', () => {
  const placement = placeProblems([{ field: 'callback_endpoints[0].url', message: 'must use http or https' }], FORM);
  expect(placement.byField).toEqual({
    'callback_endpoints[0].url': [{ field: 'callback_endpoints[0].url', message: 'must use http or https' }],
  });
  expect(placement.unplaced).toEqual([]);
});

test('when a problem is inside an input (a rule of the rules, an endpoint’s id), then it goes to the deepest input that owns it', () => {
  const placement = placeProblems(
    [
      { field: 'body.rules[0].target', message: 'is also the target of body.rules[1]' },
      { field: 'body.rules[2].source', message: 'is not a field of the body' },
      { field: 'callback_endpoints[0].endpoint_id', message: '"main" is used twice' },
      { field: 'outbound_auth.parts[0].path', message: 'is not a field' },
    ],
    FORM,
  );
  expect(Object.keys(placement.byField).sort()).toEqual(['body.rules', 'callback_endpoints[0]', 'outbound_auth']);
  expect(placement.byField['body.rules']).toHaveLength(2);
  expect(placement.unplaced).toEqual([]);
});

test('when no input owns a problem, then it stays for the banner', () => {
  const placement = placeProblems(
    [
      { field: '(spec)', message: 'is not an object' },
      { field: 'partner_id', message: 'cannot change' },
      { field: 'names', message: 'is not a known parameter' },
    ],
    FORM,
  );
  expect(placement.byField).toEqual({});
  expect(placement.unplaced.map((p) => p.field)).toEqual(['(spec)', 'partner_id', 'names']);
});

test('an input owns its own path and what is under it, not a longer name that starts alike', () => {
  expect(owns('body.rules', 'body.rules')).toBe(true);
  expect(owns('body.rules', 'body.rules[3].format')).toBe(true);
  expect(owns('body.rules', 'body.rules.x')).toBe(true);
  expect(owns('body.rules', 'body.rules_extra')).toBe(false);
  expect(owns('name', 'names')).toBe(false);
});
