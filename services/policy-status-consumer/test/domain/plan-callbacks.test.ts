import type { Partner } from '@hookstream/partners';
import type { PolicyStatusEventValue } from '@hookstream/contract';
import { deliveryIdFor } from '../../src/domain/delivery-id';
import { endpointWants, planCallbacks } from '../../src/domain/plan-callbacks';

const endpoint = (endpoint_id: string, statuses: string[] = [], product_codes: string[] = []) => ({
  endpoint_id,
  url: `https://partner.example/${endpoint_id}`,
  timeout_ms: 10_000,
  statuses,
  product_codes,
  ordering: 'LATEST_WINS' as const,
});

const partner = (overrides: Partial<Partner> = {}): Partner => ({
  partner_id: 'acme',
  name: 'Acme',
  status: 'ACTIVE',
  revision: 1,
  updated_at: 0,
  api_keys: [],
  callback_endpoints: [endpoint('all'), endpoint('active-only', ['POLICY_ACTIVE']), endpoint('travel', [], ['TRAVEL_1'])],
  outbound_auth: null,
  body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
  ...overrides,
});

const event = (status: 'POLICY_ISSUING' | 'POLICY_ACTIVE' | 'POLICY_CANCELLED' = 'POLICY_ACTIVE'): PolicyStatusEventValue => ({
  event_id: '6f1c2b9e-3d4a-4e57-9b8a-2f0d1c7e5a31',
  partner_id: 'acme',
  occurred_at: 1,
  version: 7,
  policy: { policy_number: 'POL-1', status, product_code: 'GADGET_12M' },
});

describe('deliveryIdFor', () => {
  test('is stable for the same event and endpoint, and differs across endpoints, partners and events', () => {
    const id = deliveryIdFor('e1', 'acme', 'ep-1');
    expect(deliveryIdFor('e1', 'acme', 'ep-1')).toBe(id);
    expect(
      new Set([id, deliveryIdFor('e1', 'acme', 'ep-2'), deliveryIdFor('e1', 'other', 'ep-1'), deliveryIdFor('e2', 'acme', 'ep-1')]).size,
    ).toBe(4);
  });

  test('is an RFC 9562 version 8 UUID', () => {
    expect(deliveryIdFor('e1', 'acme', 'ep-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('planCallbacks', () => {
  test('when endpoints filter by status and product, then only those that want the event get a request, all with one body', () => {
    const plan = planCallbacks(event('POLICY_ACTIVE'), partner(), 123);
    expect(plan.kind).toBe('callbacks');
    if (plan.kind !== 'callbacks') return;
    expect(plan.requests.map((r) => r.endpoint_id)).toEqual(['all', 'active-only']);
    expect(plan.requests[0]).toEqual({
      delivery_id: deliveryIdFor('6f1c2b9e-3d4a-4e57-9b8a-2f0d1c7e5a31', 'acme', 'all'),
      event_id: '6f1c2b9e-3d4a-4e57-9b8a-2f0d1c7e5a31',
      partner_id: 'acme',
      endpoint_id: 'all',
      policy_number: 'POL-1',
      policy_version: 7,
      policy_status: 'POLICY_ACTIVE',
      body: '{"policy_number":"POL-1","product_code":"GADGET_12M","status":"POLICY_ACTIVE"}',
      created_at: 123,
    });
    expect(plan.requests[1]!.body).toBe(plan.requests[0]!.body);
  });

  test('when an endpoint is disabled, then it gets no request, whatever it subscribes to; with all disabled there is nothing to send', () => {
    const some = planCallbacks(
      event('POLICY_ACTIVE'),
      partner({ callback_endpoints: [{ ...endpoint('all'), disabled: true }, endpoint('active-only', ['POLICY_ACTIVE'])] }),
      5,
    );
    expect(some.kind === 'callbacks' && some.requests.map((r) => r.endpoint_id)).toEqual(['active-only']);
    const none = planCallbacks(event('POLICY_ACTIVE'), partner({ callback_endpoints: [{ ...endpoint('all'), disabled: true }] }), 5);
    expect(none).toEqual({ kind: 'no-target' });
  });

  test('when no endpoint wants the event, then there is nothing to send', () => {
    expect(planCallbacks(event(), partner({ callback_endpoints: [endpoint('x', ['POLICY_CANCELLED'])] }), 0)).toEqual({
      kind: 'no-target',
    });
    expect(planCallbacks(event(), partner({ callback_endpoints: [] }), 0)).toEqual({ kind: 'no-target' });
  });

  test('when the partner is unknown or disabled, then the event is dead-lettered with the reason', () => {
    expect(planCallbacks(event(), undefined, 0)).toMatchObject({ kind: 'dead-letter', errorClass: 'UNKNOWN_PARTNER' });
    expect(planCallbacks(event(), partner({ status: 'DISABLED' }), 0)).toMatchObject({
      kind: 'dead-letter',
      errorClass: 'PARTNER_DISABLED',
    });
  });

  test('when the mapping cannot build the body (a date that is not ISO 8601), then the event is dead-lettered as BODY_BUILD_FAILED', () => {
    const broken = { ...event(), policy: { ...event().policy, start_protection_at: 'next tuesday' } };
    const mapping = {
      shape: 'MAPPED' as const,
      rules: [{ source: 'start_protection_at', target: 'start', format: 'DATE_ONLY' as const, time_zone: null }],
      signature_field: null,
      absent_fields: 'OMIT' as const,
    };
    const plan = planCallbacks(broken, partner({ body_mapping: mapping }), 0);
    expect(plan).toMatchObject({ kind: 'dead-letter', errorClass: 'BODY_BUILD_FAILED' });
    expect(plan.kind === 'dead-letter' && plan.reason).toContain('next tuesday');
  });

  test('endpointWants: empty filters mean everything; a product filter refuses an event without a product code', () => {
    expect(endpointWants(endpoint('a'), 'POLICY_ISSUING', null)).toBe(true);
    expect(endpointWants(endpoint('a', [], ['X']), 'POLICY_ISSUING', null)).toBe(false);
    expect(endpointWants(endpoint('a', [], ['X']), 'POLICY_ISSUING', 'X')).toBe(true);
  });
});
