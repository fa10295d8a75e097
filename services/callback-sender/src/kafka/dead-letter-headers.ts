import { SpringDltHeaders, type IHeaders } from '@hookstream/shared';

/*
 * The dead-letter headers (names in shared's callback-headers.ts, `hookstream dlq` reads them):
 * Spring Kafka's, with Spring's encodings, so tools written for Spring dead-letter topics read ours.
 */
export { DeadLetterIdentityHeaders, SpringDltHeaders } from '@hookstream/shared';

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
