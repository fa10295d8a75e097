/**
 * What the bench and its arrival-noting children (the callback receiver, the commit tracer) say
 * to each other over IPC: the bench asks, the child hands over what arrived since it last asked.
 * Receipts come over in small helpings on the bench's request, so that no large IPC message
 * lands mid-run.
 */

/** One policy number and when it arrived (epoch ms). */
export type Receipt = [policyNumber: string, arrivedAt: number];

export type ArrivalCommand = { type: 'take' };

export interface ArrivalReport {
  type: 'receipts';
  receipts: Receipt[];
  /** Receiver only: requests the black hole accepted so far (never answered). */
  blackHoled: number;
}

/** The receiver's first message: its three partners' base URLs. */
export interface ReceiverHello {
  answeringUrl: string;
  blackHoleUrl: string;
  recoveringUrl: string;
}

/** The tracer's message each time its consumer joins its group (the first one: it is reading). */
export interface TracerJoined {
  joined: true;
}

/** The child's side: hands over what it noted since the last command, and exits with the bench. */
export function serveReceipts(take: () => ArrivalReport): void {
  process.on('message', (_command: ArrivalCommand) => process.send?.(take()));
  process.on('disconnect', () => process.exit(0));
}

/** The recovering partner's path prefix: a black hole until `epochMs`, then answering 200. */
export const downUntilPath = (epochMs: number) => `/down-until-${Math.round(epochMs)}`;
export const DOWN_UNTIL = /^\/down-until-(\d+)\//;
