import { Catch, ConflictException, Logger } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { ConsumedRecord } from '@kafka-retry-topology/runtime';

/**
 * A replayed or redelivered order that the payment service already charged is done, not
 * dead: returning a value settles the record (committed, no DLQ). A filter that rethrows
 * leaves the exception to the retry classifier.
 */
@Catch(ConflictException)
export class AlreadyChargedFilter implements ExceptionFilter {
  private readonly logger = new Logger(AlreadyChargedFilter.name);

  catch(exception: ConflictException, host: ArgumentsHost): string {
    const record = host.getArgByIndex<ConsumedRecord>(0);
    this.logger.log(`${record.topic}@${record.message.offset}: ${exception.message}; skipped`);
    return 'already-charged';
  }
}
