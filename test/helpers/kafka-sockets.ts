import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/** Kafka API keys the tests look for. */
export const ApiKeys = { produce: 0, fetch: 1, metadata: 3 } as const;

/**
 * A real connection to the broker for kafkajs (its `socketFactory`) that tells `onRequest` of every
 * request written on it. kafkajs writes each request whole: size, api key, api version,
 * correlation id.
 */
export function tappedSocket(
  { host, port, onConnect }: Parameters<ISocketFactory>[0],
  onRequest: (apiKey: number, correlationId: number) => void,
): net.Socket {
  const socket = net.connect({ host, port }, onConnect);
  socket.setKeepAlive(true, 60_000);
  const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
  socket.write = (chunk: Buffer, ...rest: unknown[]) => {
    onRequest(chunk.readInt16BE(4), chunk.readInt32BE(8));
    return write(chunk, ...rest);
  };
  return socket;
}

/** A socket factory counting the requests its connections write, by API key. */
export function requestCountingSockets(): { socketFactory: ISocketFactory; requests: Map<number, number> } {
  const requests = new Map<number, number>();
  const socketFactory: ISocketFactory = (options) =>
    tappedSocket(options, (apiKey) => requests.set(apiKey, (requests.get(apiKey) ?? 0) + 1));
  return { socketFactory, requests };
}
