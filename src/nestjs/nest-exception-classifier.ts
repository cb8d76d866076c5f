import { HttpException } from '@nestjs/common';
import type { ErrorClassifier, ErrorKind } from '../runtime';
import { ERROR_KINDS } from '../runtime';

/** An HTTP status as Nest users read it: 408, 429 and 5xx pass; 401/403 are bad credentials; 404 may arrive later. */
function kindOfStatus(status: number): ErrorKind | undefined {
  if (status >= 500 || status === 408 || status === 429) return 'transient-long';
  if (status === 404) return 'ambiguous';
  if (status === 401 || status === 403) return 'permanent-code';
  if (status >= 400) return 'permanent-data';
  return undefined;
}

/**
 * The payload of an `RpcException` (or a subclass), found without importing
 * `@nestjs/microservices`, an optional peer: by its class name and `getError()`.
 */
function rpcPayload(error: unknown): unknown {
  if (!(error instanceof Error)) return undefined;
  for (let proto = Object.getPrototypeOf(error) as { constructor?: { name?: string } } | null; proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name !== 'RpcException') continue;
    const { getError } = error as { getError?: unknown };
    return typeof getError === 'function' ? (getError as () => unknown).call(error) : undefined;
  }
  return undefined;
}

/** An RpcException's payload: `{ kind }` names an error kind; `{ status }` or `{ statusCode }` an HTTP status. */
function kindOfPayload(payload: unknown): ErrorKind | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const { kind, status, statusCode } = payload as { kind?: unknown; status?: unknown; statusCode?: unknown };
  if (ERROR_KINDS.includes(kind as ErrorKind)) return kind as ErrorKind;
  const code = typeof status === 'number' ? status : statusCode;
  return typeof code === 'number' ? kindOfStatus(code) : undefined;
}

/**
 * What Nest exceptions mean for routing, asked before the runtime's table:
 * `HttpException` by its status (a `BadRequestException` from a validation pipe goes
 * to the DLQ at once, a `ServiceUnavailableException` through the tiers), and
 * `RpcException` by its payload. Anything else is left to the runtime.
 */
export const nestExceptionClassifier: ErrorClassifier = (error) => {
  if (error instanceof HttpException) return kindOfStatus(error.getStatus());
  return kindOfPayload(rpcPayload(error));
};
