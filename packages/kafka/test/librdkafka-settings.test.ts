import { TIER_FETCH } from '../src/group-member/group-member';
import { groupMemberSettings } from '../src/librdkafka-settings';

describe('groupMemberSettings', () => {
  test("when a group member's fetches bound what is fetched ahead, then librdkafka's queue is bounded to it", () => {
    expect(groupMemberSettings({ groupId: 'g', maxQueuedKBytes: 2048 })['queued.max.messages.kbytes']).toBe(2048);
    expect(groupMemberSettings({ groupId: 'g' })).not.toHaveProperty('queued.max.messages.kbytes');
  });

  test("when the retry tiers' group is made, then it fetches ahead a few megabytes at most, not librdkafka's 64 MB (npm run bench:retry-backlog)", () => {
    const settings = groupMemberSettings({ groupId: 'g-retries', ...TIER_FETCH });
    expect(settings['queued.max.messages.kbytes']).toBeLessThanOrEqual(4 * 1024);
    expect(settings['max.partition.fetch.bytes']).toBe(64 * 1024);
  });
});
