import { SpringDltHeaders } from '../../src/retry-tiers/dead-letter-names';
import { deadLetterHeaders } from '../../src/retry-tiers/dead-letter-headers';

describe('deadLetterHeaders', () => {
  test("uses Spring Kafka's DLT names and encodings: partition as a 4-byte and offset as an 8-byte big-endian integer", () => {
    const headers = deadLetterHeaders({
      originalTopic: 'callback-requests',
      originalPartition: 5,
      originalOffset: 1234567890123n,
      originalTimestamp: 1767840000000n,
      errorClass: 'HTTP_STATUS',
      reason: 'HTTP 201',
    });
    expect(headers[SpringDltHeaders.originalTopic]).toBe('callback-requests');
    expect((headers[SpringDltHeaders.originalPartition] as Buffer).readInt32BE()).toBe(5);
    expect((headers[SpringDltHeaders.originalOffset] as Buffer).readBigInt64BE()).toBe(1234567890123n);
    expect((headers[SpringDltHeaders.originalTimestamp] as Buffer).readBigInt64BE()).toBe(1767840000000n);
    expect(headers[SpringDltHeaders.exceptionMessage]).toBe('HTTP 201');
  });
});
