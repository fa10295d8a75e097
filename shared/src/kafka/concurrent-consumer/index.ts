/* The public surface of the concurrent consumer: the component and what its user passes in. */
export { ConcurrentConsumer, type ConcurrentConsumerOptions, type ConsumedRecord } from './concurrent-consumer';
