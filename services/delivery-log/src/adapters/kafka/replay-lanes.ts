/*
 * One replay at a time per dead-letter topic in this replica: every replay run of a topic opens
 * the topic's transactional id and so fences the run before it (ReplayWriter). A partner's resend
 * and an operator's replay of the same topic take turns here instead of failing each other.
 * (Across replicas they still fence: the later run wins and the earlier one answers 503, retryable.)
 */
import type { DlqTopicChoice } from '@hookstream/dead-letters';

export class ReplayLanes {
  private readonly lanes = new Map<DlqTopicChoice, Promise<unknown>>();

  run<T>(topic: DlqTopicChoice, task: () => Promise<T>): Promise<T> {
    const run = (this.lanes.get(topic) ?? Promise.resolve()).then(task);
    this.lanes.set(
      topic,
      run.catch(() => undefined),
    );
    return run;
  }
}
