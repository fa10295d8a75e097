import { documentIdOf } from '@hookstream/contract';
import { documentRequestsOf, type PartnerEvent } from '../../src/domain/document-request';

const event: PartnerEvent = {
  partner_id: 'acme',
  request_id: 'req-1',
  transaction_number: 'TX-1',
  transaction_type: 'CLAIM',
  documents: [
    { type: 'CLAIM_FORM', url: 'https://docs.acme.example/form.pdf', filename: 'form.pdf' },
    { type: 'PHOTO', url: 'https://docs.acme.example/photo.jpg', filename: null },
  ],
  received_at: 1_700_000_000_000,
  payload_fingerprint: 'f'.repeat(64),
};

describe('documentIdOf', () => {
  test('when the same webhook is read twice, then its documents get the same ids', () => {
    expect(documentIdOf({ ...event }, 1)).toBe(documentIdOf(event, 1));
    expect(documentIdOf(event, 0)).toMatch(/^[0-9a-f]{64}$/);
  });

  test.each([
    ['another index', { ...event }, 1],
    ['another partner', { ...event, partner_id: 'other' }, 0],
    ['another request_id', { ...event, request_id: 'req-2' }, 0],
    ['no request_id', { ...event, request_id: null }, 0],
    ['another transaction', { ...event, transaction_number: 'TX-2' }, 0],
    ['another payload', { ...event, payload_fingerprint: 'e'.repeat(64) }, 0],
  ] as const)('when it has %s, then the id differs', (_what, other, index) => {
    expect(documentIdOf(other, index)).not.toBe(documentIdOf(event, 0));
  });
});

describe('documentRequestsOf', () => {
  test('when an event links two documents, then there is one retrieval per item, in order, with the webhook around it', () => {
    const requests = documentRequestsOf(event);
    expect(requests.map((r) => [r.document_index, r.document_type, r.source_url, r.filename])).toEqual([
      [0, 'CLAIM_FORM', 'https://docs.acme.example/form.pdf', 'form.pdf'],
      [1, 'PHOTO', 'https://docs.acme.example/photo.jpg', null],
    ]);
    expect(requests[1]).toMatchObject({
      document_id: documentIdOf(event, 1),
      partner_id: 'acme',
      request_id: 'req-1',
      transaction_number: 'TX-1',
      transaction_type: 'CLAIM',
      received_at: event.received_at,
    });
  });
});
