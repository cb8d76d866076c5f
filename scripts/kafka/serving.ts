/**
 * A broker that answers is not yet a broker that serves. Just after a start, or a restart
 * after a kill (every partition's log recovered), and just after a topic is created, a
 * partition may have no leader yet, and kafkajs waits out neither: its createTopics gives
 * up on "This server does not host this topic-partition", and a consumer joining then
 * meets a group coordinator still loading. The tests, the broker set-up and the bench
 * create topics and wait for a restarted broker only through here.
 */
import type { Admin, ITopicConfig } from 'kafkajs';

/** How long a broker may take to lead every partition after a (re)start or a creation. */
const SERVING_TIMEOUT_MS = 90_000;
const POLL_MS = 200;

/**
 * Creates the topics and resolves once every partition of them has a leader. Resolves to
 * false when they all existed already (kafkajs's createTopics answer), true otherwise.
 */
export async function createTopicsWithLeaders(admin: Admin, topics: readonly ITopicConfig[]): Promise<boolean> {
  let created: boolean;
  try {
    created = await admin.createTopics({ topics: [...topics], waitForLeaders: false });
  } catch (error) {
    if (!stillElecting(error)) throw error;
    created = true;
  }
  await untilLed(admin, topics.map((t) => t.topic));
  return created;
}

/**
 * Resolves once the broker leads every partition of every topic (or of these) and its
 * group coordinator answers: what a suite after a restart needs before it creates topics
 * or joins a group.
 */
export async function untilServing(admin: Admin, topics?: readonly string[]): Promise<void> {
  await untilLed(admin, topics);
  await until('the group coordinator to answer', async () => {
    await admin.describeGroups(['krt-serving-probe']);
    return true;
  });
}

async function untilLed(admin: Admin, topics?: readonly string[]): Promise<void> {
  const what = topics ? `a leader for every partition of ${topics.join(', ')}` : 'a leader for every partition';
  await until(what, async () => {
    const { topics: described } = await admin.fetchTopicMetadata(topics ? { topics: [...topics] } : undefined);
    const leaderless = described.flatMap((t) => t.partitions.filter((p) => p.leader < 0 || p.partitionErrorCode !== 0).map((p) => `${t.name}/${p.partitionId}`));
    if (topics && described.length < topics.length) return false;
    return leaderless.length === 0 ? true : `no leader yet for ${leaderless.slice(0, 5).join(', ')}${leaderless.length > 5 ? ', ...' : ''}`;
  });
}

/** Polls `check` until it returns true; an error or another answer is what it last saw. */
async function until(what: string, check: () => Promise<true | false | string>): Promise<void> {
  const deadline = Date.now() + SERVING_TIMEOUT_MS;
  let last = 'nothing yet';
  for (;;) {
    try {
      const answer = await check();
      if (answer === true) return;
      last = answer === false ? 'not every topic listed yet' : answer;
    } catch (error) {
      last = String(error);
    }
    if (Date.now() > deadline) throw new Error(`the broker did not serve within ${SERVING_TIMEOUT_MS / 1000}s: waited for ${what}; last seen: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The errors of a creation the controller took but the broker has not published yet (or answered late); the wait for leaders follows. */
function stillElecting(error: unknown): boolean {
  const { type, errors } = error as { type?: string; errors?: unknown[] };
  if (Array.isArray(errors) && errors.length > 0) return errors.every((e) => stillElecting(e) || (e as { type?: string }).type === 'TOPIC_ALREADY_EXISTS');
  return type === 'UNKNOWN_TOPIC_OR_PARTITION' || type === 'LEADER_NOT_AVAILABLE' || type === 'NOT_LEADER_OR_FOLLOWER' || type === 'REQUEST_TIMED_OUT';
}
