/**
 * How soon a refused resume (or seek-and-resume) of a partition is tried again: the main
 * pipeline's held partitions, the tier pipeline's due partitions and the consumer's rebalance
 * resumes all use it, so a client that refuses a resume for a while is asked at one pace.
 */
export const RESUME_RETRY_MS = 100;
