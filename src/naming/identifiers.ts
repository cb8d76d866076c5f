/**
 * Names of topologies and consumers: lower-case words joined by '-'. They appear in
 * Terraform addresses, metric labels, runbook file names and TypeScript identifiers,
 * so they are kept to the characters all of those accept.
 */
export const IDENTIFIER_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const MAX_IDENTIFIER_LENGTH = 64;
export const IDENTIFIER_HINT = "use lower-case letters and digits in words joined by '-', e.g. 'billing-order-confirmed'";
