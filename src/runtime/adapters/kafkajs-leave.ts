/**
 * Disconnects a kafkajs consumer once the run() it was given has settled. kafkajs's run()
 * resolves when the member joined its group (or gave up); a disconnect made while it still
 * joins stops nothing: kafkajs marks its runner running only after the join, and forgets
 * it at that disconnect, so the runner fetches on, a member nothing can leave, and keeps
 * the process alive. A read that gives up (a timeout) while its member joins leaves so.
 */
export async function disconnectAfterRun(client: { disconnect(): Promise<void> }, run: Promise<unknown> | undefined): Promise<void> {
  await run?.catch(() => undefined);
  await client.disconnect();
}
