#!/usr/bin/env node
import { cacheCompiledCode } from './compiled-code-cache';

// First, so that the compiled code of everything krt loads next is cached too.
cacheCompiledCode();
(require('./process-main') as typeof import('./process-main')).main();
