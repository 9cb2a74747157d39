#!/usr/bin/env node
// Entry point of the `compositor` command: the built CLI (npm run build).
import '../dist/src/cli/main.js';
