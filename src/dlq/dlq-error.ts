import { KrtError } from '../runtime/krt-error';
import { visibleText } from '../util/visible-text';

/** A DLQ error can quote a record's headers (its original topic): the CLI escapes it like all output of records. */
export class DlqError extends KrtError {
  /** New lines too: a header's bytes must not start a line of their own. */
  override describe(): string {
    return visibleText(this.message);
  }
}
