export * from './topics';
export * from './groups';
export * from './principals';
export * from './identifiers';
export * from './headers';
export * from './metrics';
export * from './alerts';
export * from './terraform';
