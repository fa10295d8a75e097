import type { IHeaders } from '@hookstream/kafka';
import { CallbackRequestHeaders } from './callback-request';

/**
 * The newest policy version emitted per (partner, endpoint, policy) on callback-requests: what
 * latest-wins ordering (spec 7.2) judges by. Fed with the key and headers of callback-requests
 * records (never their values). `hookstream dlq replay`, a one-shot command, builds one from its
 * own window of the topic to skip dead letters that a newer version has superseded. (The
 * callback-sender keeps its versions in PostgreSQL instead, judged by the same rule: a greater
 * version supersedes; see its ordering/latest-versions.ts.)
 *
 * Memory: one entry (~450 bytes measured) per (endpoint, policy) observed; `forgetSeenBefore` drops
 * entries last raised before a time.
 */
export class EmittedPolicyVersions {
  private readonly versions = new Map<string, { version: number; seenAt: number }>();

  get size(): number {
    return this.versions.size;
  }

  /** Whether a newer version than `version` was emitted for this endpoint and policy. */
  isSuperseded(partnerId: string, endpointId: string, policyNumber: string, version: number): boolean {
    const newest = this.versions.get(versionKey(partnerId, endpointId, policyNumber));
    return newest !== undefined && newest.version > version;
  }

  /** The newest version emitted for this endpoint and policy, if any was observed. */
  newest(partnerId: string, endpointId: string, policyNumber: string): number | undefined {
    return this.versions.get(versionKey(partnerId, endpointId, policyNumber))?.version;
  }

  /** Records an emitted version. */
  observe(partnerId: string, endpointId: string, policyNumber: string, version: number, now = Date.now()): void {
    const key = versionKey(partnerId, endpointId, policyNumber);
    const known = this.versions.get(key);
    if (!known || version > known.version) this.versions.set(key, { version, seenAt: now });
  }

  /** Records the version one callback-requests record carries (key: the policy number); a record without the headers is ignored. */
  observeRecord(policyNumber: string | undefined, headers: IHeaders | undefined, now = Date.now()): void {
    const partnerId = headerText(headers, CallbackRequestHeaders.partnerId);
    const endpointId = headerText(headers, CallbackRequestHeaders.endpointId);
    const version = Number(headerText(headers, CallbackRequestHeaders.policyVersion));
    if (!policyNumber || !partnerId || !endpointId || !Number.isFinite(version)) return;
    this.observe(partnerId, endpointId, policyNumber, version, now);
  }

  /** Drops the entries whose newest version was observed before `cutoff` (epoch ms). */
  forgetSeenBefore(cutoff: number): void {
    for (const [key, entry] of this.versions) if (entry.seenAt < cutoff) this.versions.delete(key);
  }
}

function versionKey(partnerId: string, endpointId: string, policyNumber: string): string {
  return `${partnerId}\n${endpointId}\n${policyNumber}`;
}

function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
