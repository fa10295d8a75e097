import { PartnerLimiter } from '@hookstream/runtime';
import { fetchDocument, type FetchDocumentDeps } from '../../src/domain/fetch-document';
import { failureOf, httpFailure, type FetchFailure } from '../../src/domain/fetch-failure';
import type { DocumentRequest } from '../../src/domain/document-request';
import type { SpooledDocument } from '../../src/domain/document';

/** The retrieval's past after `attempts` failed attempts, never replayed. */
const history = (attempts: number) => ({ attempts, skips: 0, firstFailureAt: attempts > 0 ? 1 : null, replay: 0 });

const request: DocumentRequest = {
  document_id: 'd'.repeat(64),
  document_index: 0,
  partner_id: 'acme',
  request_id: 'req-1',
  transaction_number: 'TX-1',
  transaction_type: 'POLICY',
  document_type: 'POLICY_CERTIFICATE',
  source_url: 'https://docs.acme.example/cert.pdf',
  filename: null,
  received_at: 0,
};
const spooled: SpooledDocument = { path: '/spool/x.part', sha256: 'a'.repeat(64), sizeBytes: 10, contentType: 'application/pdf' };

function deps(retrieved: SpooledDocument | FetchFailure, recorded = false) {
  const calls = { retrieve: 0, store: 0 };
  const d: FetchDocumentDeps = {
    isRecorded: () => Promise.resolve(recorded),
    limiter: new PartnerLimiter({ perPartner: 1 }),
    retrieve: () => {
      calls.retrieve += 1;
      return Promise.resolve('path' in retrieved ? { kind: 'retrieved', document: retrieved } : { kind: 'failed', failure: retrieved });
    },
    store: (document) => {
      calls.store += 1;
      return Promise.resolve({ uri: 'file:///store/aa/aaa', ...document, written: true });
    },
    retryDelaysMs: [100, 200],
    now: () => 5_000,
  };
  return { d, calls };
}

describe('fetchDocument', () => {
  test('when the document is already recorded, then it is neither retrieved nor stored', async () => {
    const { d, calls } = deps(spooled, true);
    expect(await fetchDocument(request, history(0), d)).toEqual({ kind: 'already-recorded' });
    expect(calls).toEqual({ retrieve: 0, store: 0 });
  });

  test('when it is retrieved, then it is stored and the disposition carries where', async () => {
    const { d, calls } = deps(spooled);
    const disposition = await fetchDocument(request, history(1), d);
    expect(disposition).toMatchObject({ kind: 'stored', attempts: 2, document: { uri: 'file:///store/aa/aaa', sha256: spooled.sha256 } });
    expect(calls).toEqual({ retrieve: 1, store: 1 });
  });

  test('when it fails in a way that cannot pass, then it fails at once without a retry', async () => {
    const { d } = deps(httpFailure(404));
    expect(await fetchDocument(request, history(0), d)).toMatchObject({
      kind: 'failed',
      attempts: 1,
      failure: { httpStatus: 404 },
    });
  });

  test('when it fails in a way that may pass, then it goes to the next tier, and after the last to the dead letters', async () => {
    const { d } = deps(failureOf('TIMEOUT', 'slow'));
    expect(await fetchDocument(request, history(0), d)).toMatchObject({
      kind: 'retry',
      attempts: 1,
      tier: 1,
      dueAt: 5_100,
    });
    expect(await fetchDocument(request, history(1), d)).toMatchObject({
      kind: 'retry',
      attempts: 2,
      tier: 2,
      dueAt: 5_200,
    });
    expect(await fetchDocument(request, history(2), d)).toMatchObject({ kind: 'dead-letter', attempts: 3 });
  });

  test('when the store is unavailable, then the error is thrown (the record is read again)', async () => {
    const { d } = deps(spooled);
    d.store = () => Promise.reject(new Error('store down'));
    await expect(fetchDocument(request, history(0), d)).rejects.toThrow('store down');
  });
});
