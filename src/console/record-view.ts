import { isUtf8 } from 'node:buffer';
import { decodeFailure } from '../dlq/origin';
import { confluentSchemaId } from '../dlq/schema-id';
import { HEADERS, REPLAY_COUNT_HEADER, SPRING_DLT_HEADERS, SPRING_RETRY_TOPIC_HEADERS } from '../naming/headers';
import { decodeRetryHeaders, isoTimeOf } from '../runtime/headers';
import type { RawHeaders } from '../runtime/headers';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from '../runtime/spring-headers';

/** The most bytes of a key or value a page shows; the rest is counted, not sent. */
export const MAX_SHOWN_BYTES = 64 * 1024;

export type BytesView =
  | { readonly kind: 'null' }
  | { readonly kind: 'json' | 'text'; readonly text: string; readonly size: number; readonly cut: boolean }
  | { readonly kind: 'hex'; readonly text: string; readonly size: number; readonly cut: boolean; readonly schemaId?: number };

/** 16 bytes a line: offset, hex, and the printable ASCII (others as '.'). */
export function hexDump(bytes: Buffer): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

/** A key or value as the record page shows it: pretty JSON, text when it is UTF-8, hex otherwise. */
export function bytesView(bytes: Buffer | null): BytesView {
  if (bytes === null) return { kind: 'null' };
  const cut = bytes.length > MAX_SHOWN_BYTES;
  const shown = cut ? bytes.subarray(0, MAX_SHOWN_BYTES) : bytes;
  // A Schema Registry-framed value is binary even when its bytes happen to be UTF-8.
  const schemaId = confluentSchemaId(bytes);
  if (schemaId !== undefined) return { kind: 'hex', text: hexDump(shown), size: bytes.length, cut, schemaId };
  if (!isUtf8(bytes)) return { kind: 'hex', text: hexDump(shown), size: bytes.length, cut };
  const text = bytes.toString('utf8');
  if (!cut && /^\s*[[{]/.test(text)) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(text), null, 2), size: bytes.length, cut };
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  return { kind: 'text', text: cut ? shown.toString('utf8') : text, size: bytes.length, cut };
}

export interface HeaderView {
  readonly name: string;
  /** The raw value: text when UTF-8, hex otherwise. */
  readonly raw: string;
  /** What the header means, decoded as the runtime reads it; absent when it says nothing more than raw. */
  readonly meaning?: string;
}

const iso = isoTimeOf;

/** Each of our `x-*` headers and Spring's numbers in both its layouts, decoded by the runtime's own decoders. */
function meanings(headers: RawHeaders): Map<string, string | undefined> {
  const x = decodeRetryHeaders(headers);
  const dlt = decodeSpringDltHeaders(headers);
  const retryTopic = decodeSpringRetryTopicHeaders(headers);
  const garbage = 'unreadable: the runtime reads it as absent';
  const or = (value: string | number | undefined) => (value === undefined ? garbage : String(value));
  return new Map<string, string | undefined>([
    [HEADERS.attempt, or(x.attempt)],
    [HEADERS.dueAt, or(iso(x.dueAt))],
    [HEADERS.firstFailedAt, or(iso(x.firstFailedAt))],
    [HEADERS.originalPartition, or(x.originalPartition)],
    [HEADERS.originalOffset, or(x.originalOffset)],
    [HEADERS.originalTimestamp, or(iso(x.originalTimestamp))],
    [REPLAY_COUNT_HEADER, undefined],
    [SPRING_DLT_HEADERS.originalPartition, or(dlt.originalPartition)],
    [SPRING_DLT_HEADERS.originalOffset, or(dlt.originalOffset)],
    [SPRING_DLT_HEADERS.originalTimestamp, or(iso(dlt.originalTimestamp))],
    [SPRING_RETRY_TOPIC_HEADERS.originalPartition, or(retryTopic.originalPartition)],
    [SPRING_RETRY_TOPIC_HEADERS.originalOffset, or(retryTopic.originalOffset)],
    [SPRING_RETRY_TOPIC_HEADERS.originalTimestamp, or(iso(retryTopic.originalTimestamp))],
    [SPRING_RETRY_TOPIC_HEADERS.retryOriginalTimestamp, or(iso(retryTopic.retryOriginalTimestamp))],
    [SPRING_RETRY_TOPIC_HEADERS.retryAttempts, or(retryTopic.attempts)],
    [SPRING_RETRY_TOPIC_HEADERS.retryBackoffTimestamp, or(iso(retryTopic.backoffTimestamp))],
  ]);
}

/** Text when the bytes are UTF-8 without NULs; otherwise hex (Spring's numbers are big-endian binary). */
function rawText(value: Buffer | string): string {
  if (!Buffer.isBuffer(value)) return value;
  return isUtf8(value) && !value.includes(0) ? value.toString('utf8') : `hex ${value.toString('hex')}`;
}

/** Every header of the record, in its order, each value of a repeated header on its own row. */
export function headerViews(headers: RawHeaders): HeaderView[] {
  const known = meanings(headers);
  return Object.entries(headers).flatMap(([name, raw]) => {
    const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    return values.map((value) => {
      const meaning = known.get(name);
      const text = rawText(value);
      return { name, raw: text, ...(meaning !== undefined && meaning !== text ? { meaning } : {}) };
    });
  });
}

/** The error as the record keeps it, from whichever layout it carries (the DLQ tools' decoder); the stack when Spring kept one. */
export function errorOf(headers: RawHeaders): { readonly name?: string; readonly message?: string; readonly stack?: string } {
  const failure = decodeFailure(headers);
  return { name: failure.errorClass, message: failure.errorMessage, stack: failure.stack };
}
