import { KrtError } from '../runtime/krt-error';

/** A problem with the output folder (not krt's, half-written, a snapshot krt cannot read). */
export class OutputFolderError extends KrtError {}
