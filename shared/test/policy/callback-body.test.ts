import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  CallbackBodyError,
  POLICY_BODY_FIELD_ORDER,
  bodyMappingFromSpec,
  buildCallbackBody,
  defaultSchemasDir,
  formatDateTime,
  parsePartnerSpec,
  parsePolicyEventJson,
  policyBodyFieldPaths,
  policyNotificationType,
  policyStatusEventType,
  type BodyMapping,
  type FieldRule,
  type PolicyNotificationValue,
  type PolicyStatusEventValue,
} from '@hookstream/shared';

/** The schema example, typed as far as these tests read it. */
type ExampleEvent = Record<string, unknown> & { event_id: string; policy: Record<string, unknown> & { insureds: unknown[] } };
const example = JSON.parse(readFileSync(path.join(defaultSchemasDir(), 'examples', 'policy-status-event.json'), 'utf8')) as ExampleEvent;
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

/** The schema example plus one insured of every other detail shape of the contract, written in the plain form. */
const everyDetailEvent = {
  ...example,
  policy: {
    ...example.policy,
    insureds: [
      ...example.policy.insureds, // USER and GADGET, in the avsc form
      {
        uuid: 'ins-agent',
        type: 'AGENT',
        detail: {
          identity_type: 'KTP',
          identity_number: '3174000000000001',
          full_name: 'Budi Santoso',
          email: 'budi@acme.example',
          phone_number: '+6281100000001',
          store_location: 'Jakarta Selatan',
          store_name: 'Acme Kemang',
        },
      },
      {
        uuid: 'ins-vehicle',
        type: 'VEHICLE',
        // Written out of order on purpose: the body follows the contract's order.
        detail: {
          registration_number: 'REG-1',
          engine_number: 'ENG-1',
          chassis_number: 'CHS-1',
          usage_type: 'PRIVATE',
          price: 350000000,
          year: 2024,
          brand: 'Toyota',
          plate_number: '1234 XYZ',
          plate_code: 'B',
        },
      },
      {
        uuid: 'ins-travel',
        type: 'TRAVEL',
        detail: {
          identity_type: 'PASSPORT',
          identity_number: 'X1234567',
          booking_time: '2026-01-05T10:00:00+07:00',
          departure: 'CGK',
          departure_time: '2026-02-01T08:00:00+07:00',
          departure_time_offset: 7,
          arrival: 'NRT',
          arrival_time: '2026-02-01T17:30:00+09:00',
          arrival_time_offset: 9,
          city_origin: 'Jakarta',
          city_destination: 'Tokyo',
          country_origin: 'ID',
          country_destination: 'JP',
          trip_type: 'ROUND_TRIP',
          trip_order: 1,
          total_covered: 2,
          additional_info: { travellers: 2, purpose: 'LEISURE' },
        },
      },
      {
        uuid: 'ins-flight',
        type: 'FLIGHT',
        detail: {
          name: 'Garuda Indonesia',
          number: 'GA874',
          class: 'ECONOMY',
          sub_class: 'Y',
          total_price_ticket: 8500000,
          sub_total_price_ticket: 8000000,
        },
      },
      {
        uuid: 'ins-goods',
        type: 'GOODS',
        detail: {
          identity_type: 'SERIAL',
          identity_number: 'SN-998',
          sum_insured: 5000000,
          category: 'ELECTRONICS',
          brand: 'Sony',
          model: 'WH-1000XM6',
          price: 5000000,
          address: 'Jl. Sudirman 1, Jakarta',
          additional_info: { warranty_months: 12 },
        },
      },
      {
        uuid: 'ins-pet',
        type: 'PET',
        detail: {
          full_name: 'Mochi',
          birth_date: '2022-03-01',
          gender: 'FEMALE',
          breed: 'Shiba Inu',
          pure_breed: true,
          color: 'RED',
          category: 'DOG',
          vaccination: ['Rabies', { name: 'DHPP', date: '2025-06-01' }],
          pre_existing_condition: 'NONE',
          number_of_pets_in_household: 2,
          number_of_pets_with_same_insurance: 1,
        },
      },
      {
        uuid: 'ins-loan',
        type: 'LOAN',
        detail: {
          identity_type: 'KTP',
          identity_number: '3174000000000002',
          loan_amount: 20000000,
          sum_insured: 20000000,
          loan_total_principal: 20000000,
          loan_total_principal_percentage: 100,
          tenure_value: 12,
          tenure_period: 'MONTH',
          interest_rate: 1.5,
          interest_period: 'MONTH',
          additional_info: { lender: 'Bank Contoh' },
        },
      },
      {
        uuid: 'ins-sender',
        type: 'SENDER',
        detail: {
          full_name: 'Dewi Lestari',
          phone_number: '+6281100000003',
          address: 'Jl. Thamrin 2, Jakarta',
          additional_data: { city: 'Jakarta', country: 'ID', zipcode: '10230', subject: 'Documents' },
        },
      },
      {
        uuid: 'ins-shipping',
        type: 'SHIPPING',
        detail: {
          carrier: 'JNE',
          service: 'YES',
          total_package_price: 1500000,
          cost: 25000,
          estimated_delivery_time: '2026-01-09T12:00:00+07:00',
          input_package_at: '2026-01-08T09:00:00+07:00',
          estimated_delivery_time_offset: 7,
          input_package_at_offset: 7,
        },
      },
      {
        uuid: 'ins-package',
        type: 'PACKAGE',
        detail: { name: 'Laptop box', identity_type: 'AWB', identity_number: 'AWB-556677', price: 1500000, sum_insured: 1500000 },
      },
      {
        uuid: 'ins-experience',
        type: 'EXPERIENCE',
        detail: { venue: 'Ubud', tickets: 2, guests: [{ name: 'Siti' }], confirmed: true },
      },
    ],
    policies: [
      {
        number: 'HS-TRV-2026-000001',
        status: 'POLICY_ACTIVE',
        start_protection_at: '2026-02-01T00:00:00+07:00',
        end_protection_at: '2026-02-10T23:59:59+07:00',
        premium_amount: 150000,
        documents: [{ type: 'POLICY_CERTIFICATE', filename: 'cert-1.pdf', alias: 'E-Certificate', url: 'https://docs.example.com/1.pdf' }],
      },
      { number: 'HS-TRV-2026-000002', status: 'POLICY_ISSUING', premium_amount: 99000.5 },
    ],
  },
};

/** The body the partner must receive for everyDetailEvent with the FULL shape: key order matters. */
const fullBody = {
  policy_number: 'HS-GDG-2026-000123',
  partner_transaction_number: 'ACME-TRX-88412',
  transaction_number: 'TRX-2026-000987',
  quotation_number: 'QUO-2026-004411',
  product_code: 'GADGET_PROTECT_12M',
  insurance_number: 'INS-77-102938',
  status: 'POLICY_ACTIVE',
  start_protection_at: '2026-01-08T00:00:00+07:00',
  end_protection_at: '2027-01-07T23:59:59+07:00',
  purchased_at: '2026-01-07T14:12:05+07:00',
  activated_at: '2026-01-08T09:30:00+07:00',
  currency_code: 'IDR',
  payer_type: 'CUSTOMER',
  calculation: { gwp: 249000, total_sum_insured: 12499000 },
  policy_holder: { full_name: 'Siti Rahmawati', email: 'siti.rahmawati@example.com', phone_number: '+6281234567890' },
  insureds: [
    {
      uuid: '0b6d7f3e-91c2-4a0e-8d55-7a1e2c9b4f10',
      type: 'USER',
      detail: {
        identity_type: 'KTP',
        identity_number: '3174015507900002',
        full_name: 'Siti Rahmawati',
        email: 'siti.rahmawati@example.com',
        phone_number: '81234567890',
        dial_code: '+62',
        birth_date: '1990-07-15',
        gender: 'FEMALE',
        city: 'Jakarta',
        country: 'ID',
        additional_info: { loyalty_tier: 'GOLD' },
      },
    },
    {
      uuid: '5a2e8c41-6b7d-4f09-a3e2-1c8d9b0f7e62',
      type: 'GADGET',
      detail: {
        identity_type: 'IMEI',
        identity_number: '356938035643809',
        sum_insured: 12499000,
        manufacturer: 'Samsung',
        brand: 'Samsung',
        series: 'Galaxy S',
        model: 'Galaxy S25',
        device_category: 'SMARTPHONE',
        price: 12499000,
        covered_type_unit: 'CLAIM',
        covered_type_max: 1,
      },
      documents: [{ type: 'PURCHASE_RECEIPT', filename: 'receipt-88412.pdf', url: 'https://docs.example.com/acme/receipt-88412.pdf' }],
    },
    {
      uuid: 'ins-agent',
      type: 'AGENT',
      detail: {
        identity_type: 'KTP',
        identity_number: '3174000000000001',
        full_name: 'Budi Santoso',
        email: 'budi@acme.example',
        phone_number: '+6281100000001',
        store_location: 'Jakarta Selatan',
        store_name: 'Acme Kemang',
      },
    },
    {
      uuid: 'ins-vehicle',
      type: 'VEHICLE',
      detail: {
        plate_code: 'B',
        plate_number: '1234 XYZ',
        brand: 'Toyota',
        year: 2024,
        price: 350000000,
        usage_type: 'PRIVATE',
        chassis_number: 'CHS-1',
        engine_number: 'ENG-1',
        registration_number: 'REG-1',
      },
    },
    {
      uuid: 'ins-travel',
      type: 'TRAVEL',
      detail: {
        identity_type: 'PASSPORT',
        identity_number: 'X1234567',
        booking_time: '2026-01-05T10:00:00+07:00',
        departure: 'CGK',
        departure_time: '2026-02-01T08:00:00+07:00',
        departure_time_offset: 7,
        arrival: 'NRT',
        arrival_time: '2026-02-01T17:30:00+09:00',
        arrival_time_offset: 9,
        city_origin: 'Jakarta',
        city_destination: 'Tokyo',
        country_origin: 'ID',
        country_destination: 'JP',
        trip_type: 'ROUND_TRIP',
        trip_order: 1,
        total_covered: 2,
        additional_info: { travellers: 2, purpose: 'LEISURE' },
      },
    },
    {
      uuid: 'ins-flight',
      type: 'FLIGHT',
      detail: {
        name: 'Garuda Indonesia',
        number: 'GA874',
        class: 'ECONOMY',
        sub_class: 'Y',
        total_price_ticket: 8500000,
        sub_total_price_ticket: 8000000,
      },
    },
    {
      uuid: 'ins-goods',
      type: 'GOODS',
      detail: {
        identity_type: 'SERIAL',
        identity_number: 'SN-998',
        sum_insured: 5000000,
        category: 'ELECTRONICS',
        brand: 'Sony',
        model: 'WH-1000XM6',
        price: 5000000,
        address: 'Jl. Sudirman 1, Jakarta',
        additional_info: { warranty_months: 12 },
      },
    },
    {
      uuid: 'ins-pet',
      type: 'PET',
      detail: {
        full_name: 'Mochi',
        birth_date: '2022-03-01',
        gender: 'FEMALE',
        breed: 'Shiba Inu',
        pure_breed: true,
        color: 'RED',
        category: 'DOG',
        vaccination: ['Rabies', { name: 'DHPP', date: '2025-06-01' }],
        pre_existing_condition: 'NONE',
        number_of_pets_in_household: 2,
        number_of_pets_with_same_insurance: 1,
      },
    },
    {
      uuid: 'ins-loan',
      type: 'LOAN',
      detail: {
        identity_type: 'KTP',
        identity_number: '3174000000000002',
        loan_amount: 20000000,
        sum_insured: 20000000,
        loan_total_principal: 20000000,
        loan_total_principal_percentage: 100,
        tenure_value: 12,
        tenure_period: 'MONTH',
        interest_rate: 1.5,
        interest_period: 'MONTH',
        additional_info: { lender: 'Bank Contoh' },
      },
    },
    {
      uuid: 'ins-sender',
      type: 'SENDER',
      detail: {
        full_name: 'Dewi Lestari',
        phone_number: '+6281100000003',
        address: 'Jl. Thamrin 2, Jakarta',
        additional_data: { city: 'Jakarta', country: 'ID', zipcode: '10230', subject: 'Documents' },
      },
    },
    {
      uuid: 'ins-shipping',
      type: 'SHIPPING',
      detail: {
        carrier: 'JNE',
        service: 'YES',
        total_package_price: 1500000,
        cost: 25000,
        estimated_delivery_time: '2026-01-09T12:00:00+07:00',
        input_package_at: '2026-01-08T09:00:00+07:00',
        estimated_delivery_time_offset: 7,
        input_package_at_offset: 7,
      },
    },
    {
      uuid: 'ins-package',
      type: 'PACKAGE',
      detail: { name: 'Laptop box', identity_type: 'AWB', identity_number: 'AWB-556677', price: 1500000, sum_insured: 1500000 },
    },
    {
      uuid: 'ins-experience',
      type: 'EXPERIENCE',
      detail: { venue: 'Ubud', tickets: 2, guests: [{ name: 'Siti' }], confirmed: true },
    },
  ],
  product: {
    country: 'ID',
    code: 'GADGET_PROTECT_12M',
    name: 'Gadget Protect 12 Months',
    language: 'id',
    insurance_name: 'Asuransi Contoh',
    partner_name: 'Acme Phones',
    timezone: 'Asia/Jakarta',
    benefits: [
      {
        code: 'SCREEN_DAMAGE',
        name: 'Screen damage',
        description: 'Repair or replacement of a cracked screen',
        term: { inclusion: ['Accidental drop', 'Liquid damage'], exclusion: ['Intentional damage'] },
      },
    ],
  },
  documents: [
    {
      type: 'POLICY_CERTIFICATE',
      filename: 'e-certificate-HS-GDG-2026-000123.pdf',
      alias: 'E-Certificate',
      url: 'https://docs.example.com/policies/HS-GDG-2026-000123/e-certificate.pdf',
    },
  ],
  policies: [
    {
      number: 'HS-TRV-2026-000001',
      status: 'POLICY_ACTIVE',
      start_protection_at: '2026-02-01T00:00:00+07:00',
      end_protection_at: '2026-02-10T23:59:59+07:00',
      premium_amount: 150000,
      documents: [{ type: 'POLICY_CERTIFICATE', filename: 'cert-1.pdf', alias: 'E-Certificate', url: 'https://docs.example.com/1.pdf' }],
    },
    { number: 'HS-TRV-2026-000002', status: 'POLICY_ISSUING', premium_amount: 99000.5 },
  ],
};

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
    const file = path.join(__dirname, '..', '..', '..', 'examples', 'partners', 'md5-reduced-body.yaml');
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

describe('formatDateTime', () => {
  test.each<[string, 'DATE_ONLY' | 'DATE_TIME_UTC' | 'DATE_TIME_ZONE', string | null, string]>([
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', null, '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', 'Asia/Jakarta', '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', 'UTC', '2026-01-07'],
    ['2026-01-07T20:00:00Z', 'DATE_ONLY', 'Asia/Jakarta', '2026-01-08'],
    ['2026-01-08', 'DATE_ONLY', null, '2026-01-08'],
    ['2026-01-08T23:30:00', 'DATE_ONLY', 'America/New_York', '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00Z'],
    ['2026-01-08T00:00:00.250+07:00', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00.250Z'],
    ['2026-01-08T00:00:00,123456+0700', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00.123Z'],
    ['2026-01-08T00:00+07', 'DATE_TIME_UTC', 'Europe/London', '2026-01-07T17:00:00Z'],
    ['2026-01-08', 'DATE_TIME_UTC', null, '2026-01-08T00:00:00Z'],
    ['2026-01-08T00:00:00', 'DATE_TIME_UTC', 'Asia/Jakarta', '2026-01-07T17:00:00Z'],
    ['2026-01-07T17:00:00Z', 'DATE_TIME_ZONE', 'Asia/Jakarta', '2026-01-08T00:00:00+07:00'],
    ['2026-01-07T18:30:00Z', 'DATE_TIME_ZONE', 'Asia/Kolkata', '2026-01-08T00:00:00+05:30'],
    ['2026-01-15T12:00:00Z', 'DATE_TIME_ZONE', 'America/New_York', '2026-01-15T07:00:00-05:00'],
    ['2026-07-01T12:00:00Z', 'DATE_TIME_ZONE', 'America/New_York', '2026-07-01T08:00:00-04:00'],
    ['2026-07-01T12:00:00.5Z', 'DATE_TIME_ZONE', 'UTC', '2026-07-01T12:00:00.500+00:00'],
    ['2026-01-08T00:00:00+0700', 'DATE_TIME_ZONE', null, '2026-01-08T00:00:00+07:00'],
    ['2026-07-01T08:00:00', 'DATE_TIME_ZONE', 'America/New_York', '2026-07-01T08:00:00-04:00'],
  ])('%s as %s in %s is %s', (value, format, zone, expected) => {
    expect(formatDateTime(value, format, zone)).toBe(expected);
  });

  test.each([
    '08/01/2026',
    '2026-02-30T00:00:00Z',
    '2026-01-08T24:00:00Z',
    '2026-01-08T10:00:00+25:00',
    '20260108T000000Z',
    'Jan 8 2026',
    '',
  ])('%j is refused', (value) => {
    expect(() => formatDateTime(value, 'DATE_TIME_UTC', null, 'start_protection_at')).toThrow(CallbackBodyError);
  });

  test('an unknown time zone is refused', () => {
    expect(() => formatDateTime('2026-01-08T00:00:00Z', 'DATE_ONLY', 'Mars/Olympus', 'start_protection_at')).toThrow(
      /start_protection_at: "Mars\/Olympus" is not an IANA time zone/,
    );
  });
});
