/* The public surface of the concurrent consumer: the component and what its user passes in. */
export { ConcurrentConsumer } from './concurrent-consumer';
export type { ConcurrentConsumerOptions, ConsumedRecord } from './options';
