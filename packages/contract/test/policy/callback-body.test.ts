import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CallbackBodyError } from '../../src/policy/callback-body-error';
import { POLICY_BODY_FIELD_ORDER, buildCallbackBody } from '../../src/policy/callback-body';
import { bodyMappingFromSpec } from '@hookstream/partners';
import { defaultSchemasDir } from '@hookstream/kafka';
import { parsePartnerSpec } from '@hookstream/partners';
import { parsePolicyEventJson } from '../../src/policy/parse-policy-event';
import { policyBodyFieldPaths } from '@hookstream/partners';
import { policyNotificationType, policyStatusEventType } from '../../src/policy/avro-form';
import { type BodyMapping, type FieldRule } from '@hookstream/partners';
import { type PolicyNotificationValue, type PolicyStatusEventValue } from '../../src/policy/policy-event-value';
import { everyDetailEvent, fullBody } from './fixtures/every-detail-event';

const eventType = policyStatusEventType();

/** What the consumer sees: the event parsed, Avro-encoded and decoded again. */
function decoded(input: unknown): PolicyNotificationValue {
  const value = parsePolicyEventJson(input);
  return (eventType.fromBuffer(eventType.toBuffer(value)) as PolicyStatusEventValue).policy;
}

const mapping = (
  shape: BodyMapping['shape'],
  rules: Array<Partial<FieldRule> & { source: string }> = [],
  absent_fields: 'OMIT' | 'NULL' = 'OMIT',
) =>
  ({
    shape,
    rules: rules.map((r) => ({ target: r.source.split('.').pop()!, format: null, time_zone: null, ...r })),
    signature_field: null,
    absent_fields,
  }) satisfies BodyMapping;

const minimal = { partner_id: 'acme', version: 1, policy: { policy_number: 'P-1', status: 'POLICY_ISSUING' } };

describe('buildCallbackBody', () => {
  const policy = decoded(everyDetailEvent);

  test('the full body field order is the order of the Avro PolicyNotification record', () => {
    expect(POLICY_BODY_FIELD_ORDER).toEqual(policyNotificationType().fields.map((f) => f.name));
  });

  test('when the shape is FULL, then the partner gets the 2.1 body of every detail type in contract order, JSON text parsed back', () => {
    const body = buildCallbackBody(policy, mapping('FULL'));
    expect(body).toBe(JSON.stringify(fullBody));
  });

  test('when built twice, or from the parsed value before Avro, then the bytes are the same', () => {
    const first = buildCallbackBody(policy, mapping('FULL'));
    expect(buildCallbackBody(decoded(everyDetailEvent), mapping('FULL'))).toBe(first);
    expect(buildCallbackBody(parsePolicyEventJson(everyDetailEvent).policy, mapping('FULL'))).toBe(first);
  });

  test('when a rule renames status to actual_status, then it keeps its place and everything else is unchanged', () => {
    const body = buildCallbackBody(policy, mapping('FULL', [{ source: 'status', target: 'actual_status' }]));
    const expected = Object.fromEntries(Object.entries(fullBody).map(([k, v]) => [k === 'status' ? 'actual_status' : k, v]));
    expect(body).toBe(JSON.stringify(expected));
    expect(Object.keys(JSON.parse(body))[6]).toBe('actual_status');
  });

  test('when the partner spec asks for a reduced body (examples/partners/md5-reduced-body.yaml), then only its fields are sent, without the Sign field', () => {
    const file = path.join(__dirname, '..', '..', '..', '..', 'examples', 'partners', 'md5-reduced-body.yaml');
    const spec = parsePartnerSpec(parseYaml(readFileSync(file, 'utf8')), policyBodyFieldPaths(defaultSchemasDir()));
    const reduced = bodyMappingFromSpec(spec);
    expect(reduced.signature_field).toBe('Sign');
    expect(buildCallbackBody(policy, reduced)).toBe(
      '{"partner_transaction_number":"ACME-TRX-88412","start_protection_at":"2026-01-08","status":"POLICY_ACTIVE"}',
    );
  });

  test('when MAPPED rules lift nested fields and whole objects, then they come in rule order under their targets', () => {
    const body = buildCallbackBody(
      policy,
      mapping('MAPPED', [
        { source: 'status', target: 'state' },
        { source: 'policy_holder.full_name', target: 'holder' },
        { source: 'calculation.gwp', target: 'premium' },
        { source: 'end_protection_at', target: 'valid_until', format: 'DATE_TIME_UTC' },
        { source: 'product.benefits' },
        { source: 'calculation' },
        { source: 'policy_holder.email', target: 'email' },
      ]),
    );
    expect(body).toBe(
      JSON.stringify({
        state: 'POLICY_ACTIVE',
        holder: 'Siti Rahmawati',
        premium: 249000,
        valid_until: '2027-01-07T16:59:59Z',
        benefits: fullBody.product.benefits,
        calculation: { gwp: 249000, total_sum_insured: 12499000 },
        email: 'siti.rahmawati@example.com',
      }),
    );
  });

  test('when the shape is SIMPLIFIED_POLICIES, then the four fields of the simplified flow are sent, with rules applied in place', () => {
    expect(buildCallbackBody(policy, mapping('SIMPLIFIED_POLICIES'))).toBe(
      JSON.stringify({
        partner_transaction_number: 'ACME-TRX-88412',
        transaction_number: 'TRX-2026-000987',
        product_code: 'GADGET_PROTECT_12M',
        policies: fullBody.policies,
      }),
    );
    expect(buildCallbackBody(policy, mapping('SIMPLIFIED_POLICIES', [{ source: 'transaction_number', target: 'trx_no' }]))).toMatch(
      /^\{"partner_transaction_number":"ACME-TRX-88412","trx_no":"TRX-2026-000987","product_code":/,
    );
  });

  describe('absent fields', () => {
    const sparse = decoded(minimal);

    test('when OMIT (the default), then absent fields are left out', () => {
      expect(buildCallbackBody(sparse, mapping('FULL'))).toBe('{"policy_number":"P-1","status":"POLICY_ISSUING"}');
      expect(buildCallbackBody(sparse, mapping('SIMPLIFIED_POLICIES'))).toBe('{}');
      expect(buildCallbackBody(sparse, mapping('MAPPED', [{ source: 'status' }, { source: 'policy_holder.email' }]))).toBe(
        '{"status":"POLICY_ISSUING"}',
      );
    });

    test('when NULL, then every field of the FULL shape is there, absent ones null, in contract order', () => {
      const body = buildCallbackBody(sparse, mapping('FULL', [{ source: 'status', target: 'actual_status' }], 'NULL'));
      expect(body).toBe(
        JSON.stringify(
          Object.fromEntries(
            POLICY_BODY_FIELD_ORDER.map((f) => [
              f === 'status' ? 'actual_status' : f,
              f === 'policy_number' ? 'P-1' : f === 'status' ? 'POLICY_ISSUING' : null,
            ]),
          ),
        ),
      );
    });

    test('when NULL, then nested records of the shape carry their absent fields as null too', () => {
      const body = JSON.parse(
        buildCallbackBody(
          decoded({
            ...minimal,
            policy: { ...minimal.policy, calculation: { gwp: 1 }, insureds: [{ type: 'AGENT', detail: { full_name: 'B' } }] },
          }),
          mapping('FULL', [], 'NULL'),
        ),
      );
      expect(body.calculation).toEqual({ gwp: 1, total_sum_insured: null });
      expect(body.insureds).toEqual([
        {
          uuid: null,
          type: 'AGENT',
          detail: {
            identity_type: null,
            identity_number: null,
            full_name: 'B',
            email: null,
            phone_number: null,
            store_location: null,
            store_name: null,
          },
          documents: null,
        },
      ]);
    });

    test('when NULL with SIMPLIFIED_POLICIES and MAPPED, then each field of the shape or rule is null when absent', () => {
      const withPolicies = decoded({ ...minimal, policy: { ...minimal.policy, policies: [{ number: 'N-1' }] } });
      expect(buildCallbackBody(withPolicies, mapping('SIMPLIFIED_POLICIES', [], 'NULL'))).toBe(
        '{"partner_transaction_number":null,"transaction_number":null,"product_code":null,"policies":[{"number":"N-1","status":null,"start_protection_at":null,"end_protection_at":null,"premium_amount":null,"documents":null}]}',
      );
      expect(
        buildCallbackBody(
          sparse,
          mapping(
            'MAPPED',
            [{ source: 'status' }, { source: 'policy_holder.email' }, { source: 'start_protection_at', format: 'DATE_ONLY' }],
            'NULL',
          ),
        ),
      ).toBe('{"status":"POLICY_ISSUING","email":null,"start_protection_at":null}');
    });
  });

  test('when a formatted field is not an ISO 8601 date-time, then CallbackBodyError names the field and value and is not retryable', () => {
    const bad = decoded({ ...minimal, policy: { ...minimal.policy, start_protection_at: '2026-01-08' } });
    const tampered = { ...bad, start_protection_at: '08/01/2026' };
    const rules = [{ source: 'start_protection_at', format: 'DATE_ONLY' as const }];
    const error = (() => {
      try {
        buildCallbackBody(tampered, mapping('MAPPED', rules));
      } catch (e) {
        return e as CallbackBodyError;
      }
      throw new Error('expected a CallbackBodyError');
    })();
    expect(error).toBeInstanceOf(CallbackBodyError);
    expect(error).toMatchObject({
      code: 'HOOKSTREAM_CALLBACK_BODY_INVALID',
      retryable: false,
      field: 'start_protection_at',
      value: '08/01/2026',
    });
    expect(error.message).toBe('start_protection_at: "08/01/2026" is not an ISO 8601 date-time, so it cannot be formatted as DATE_ONLY');
    // A field the rule does not format is copied as it is.
    expect(buildCallbackBody(tampered, mapping('MAPPED', [{ source: 'start_protection_at' }]))).toBe(
      '{"start_protection_at":"08/01/2026"}',
    );
    expect(() => buildCallbackBody(policy, mapping('MAPPED', [{ source: 'calculation.gwp', format: 'DATE_ONLY' }]))).toThrow(
      /calculation\.gwp: 249000 is not an ISO 8601 date-time/,
    );
  });

  test('when JSON text in the decoded value does not parse, then CallbackBodyError names its path', () => {
    const broken = decoded({
      ...minimal,
      policy: { ...minimal.policy, insureds: [{ type: 'USER', detail: { additional_info: { a: 1 } } }] },
    }) as unknown as { insureds: Array<{ detail: Record<string, Record<string, unknown>> }> };
    broken.insureds[0]!.detail['io.hookstream.v1.PersonDetail']!.additional_info = '{not json';
    expect(() => buildCallbackBody(broken as unknown as PolicyNotificationValue, mapping('FULL'))).toThrow(
      'insureds[0].detail.additional_info: "{not json" is not JSON text',
    );
  });
});
