import type { IHeaders } from '../types';
import { SpringDltHeaders } from './dead-letter-names';

/**
 * The dead-letter headers of a record given up on (names in callbacks/callback-headers.ts;
 * `hookstream dlq` reads them): Spring Kafka's, with Spring's encodings, so tools written for
 * Spring dead-letter topics read ours. Written by the callback-sender and the document-fetcher.
 */
export function deadLetterHeaders(why: {
  originalTopic: string;
  originalPartition: number;
  originalOffset: bigint;
  originalTimestamp: bigint;
  errorClass: string;
  reason: string;
}): IHeaders {
  const int32 = Buffer.alloc(4);
  int32.writeInt32BE(why.originalPartition);
  const int64 = (value: bigint) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64BE(value);
    return buffer;
  };
  return {
    [SpringDltHeaders.originalTopic]: why.originalTopic,
    [SpringDltHeaders.originalPartition]: int32,
    [SpringDltHeaders.originalOffset]: int64(why.originalOffset),
    [SpringDltHeaders.originalTimestamp]: int64(why.originalTimestamp),
    // Spring puts the exception's class name here; ours is the failure class.
    [SpringDltHeaders.exceptionFqcn]: why.errorClass,
    [SpringDltHeaders.exceptionMessage]: why.reason.slice(0, 1000),
  };
}
