import path from 'node:path';

/**
 * The project's templates folder, the same from src/ and from dist/: the runbook emitter
 * reads it and the synth cache hashes it, so both must name one folder.
 */
export const TEMPLATES_DIR = path.resolve(__dirname, '..', '..', 'templates');
