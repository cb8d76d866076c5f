/**
 * Whether `test` holds for the error or any error it carries: the errors of an aggregate, its
 * cause, a rejection's reason (clients wrap a broker's refusal in their retry errors).
 */
export function someCause(error: unknown, test: (e: object) => boolean): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (e === null || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    if (test(e)) return true;
    const { errors, cause, reason } = e as { errors?: unknown; cause?: unknown; reason?: unknown };
    return (Array.isArray(errors) && errors.some(visit)) || visit(cause) || visit(reason);
  };
  return visit(error);
}
