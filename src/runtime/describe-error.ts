/**
 * What the runtime writes about a thrown value, whatever was thrown: a null-prototype
 * object, a getter that throws, a cyclic object, a symbol, a BigInt, a Proxy. Reading a
 * thrown value is user code (getters, `toString`), so every read here is guarded: a
 * record that cannot be described must still reach its tier or the DLQ.
 */
export interface ErrorDescription {
  /** `error.name`, else the constructor's name, else the `typeof`. */
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

/** Reads `value[key]`, or undefined when the read throws (a getter, a revoked Proxy). */
export function safeField(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function constructorName(value: unknown): string | undefined {
  const ctor = safeField(value, 'constructor');
  const name = safeField(ctor, 'name');
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : undefined;
}

/** `String(value)` that never throws (a null-prototype object has no `toString`; a symbol refuses `+`). */
export function safeText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return `[${typeof value}]`;
    }
  }
}

export function errorNameOf(error: unknown): string {
  const name = safeField(error, 'name');
  if (typeof name === 'string' && name !== '') return name;
  const ctor = error !== null && typeof error === 'object' ? constructorName(error) : undefined;
  return ctor ?? (typeof error === 'string' ? 'Error' : typeof error);
}

/**
 * The name and message of any thrown value; its stack only when asked, because reading
 * `stack` makes V8 format the trace (tens of microseconds on every failure).
 */
export function describeError(error: unknown, options: { withStack?: boolean } = {}): ErrorDescription {
  const message = safeField(error, 'message');
  const stack = options.withStack ? safeField(error, 'stack') : undefined;
  return {
    name: errorNameOf(error),
    message: typeof message === 'string' ? message : message === undefined || message === null ? safeText(error) : safeText(message),
    ...(typeof stack === 'string' ? { stack } : {}),
  };
}
