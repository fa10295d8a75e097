/*
 * A service's retry tiers as topics: which topic is which tier, and what a GroupMember
 * needs to hold a tier record until it is due.
 */
import type { KafkaMessage } from '../types';
import { dueAtOf } from './retry-headers';

export class RetryTiers {
  private readonly tierOfTopic = new Map<string, number>();

  /** `topicOf(tier)` is the real name of tier 1…`count`. */
  constructor(
    readonly topicOf: (tier: number) => string,
    readonly count: number,
  ) {
    for (let tier = 1; tier <= count; tier++) this.tierOfTopic.set(topicOf(tier), tier);
  }

  /** The tiers' topics, in tier order. */
  get topics(): string[] {
    return [...this.tierOfTopic.keys()];
  }

  /** The tier a topic is (1-based), or undefined when it is not one. */
  tierOf(topic: string): number | undefined {
    return this.tierOfTopic.get(topic);
  }

  isTier(topic: string): boolean {
    return this.tierOfTopic.has(topic);
  }

  /** When a tier record may be attempted (epoch ms). */
  dueAt(message: Pick<KafkaMessage, 'headers'>): number {
    return dueAtOf(message.headers);
  }

  /** What a GroupMember with tiers holds until due: every tier's records. */
  get delayed(): { topics: readonly string[]; dueAt: (topic: string, message: KafkaMessage) => number } {
    return { topics: this.topics, dueAt: (_topic, message) => this.dueAt(message) };
  }
}
