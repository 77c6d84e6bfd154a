#!/usr/bin/env node
// The TypeScript SDK adapter (implementations/anthropic-typescript/adapter.js) with one flaw
// added: a view whose path holds ".." answers the text of the file it names, resolved from
// the memory root without any check. Its expectations file must fail it (.ci/implementations).
'use strict';

const fs = require('node:fs/promises');
const path = require('node:path');
const { BetaLocalFilesystemMemoryTool } = require('@anthropic-ai/sdk/tools/memory/node');

const view = BetaLocalFilesystemMemoryTool.prototype.view;
BetaLocalFilesystemMemoryTool.prototype.view = async function (command) {
  if (typeof command.path === 'string' && command.path.includes('..')) {
    const named = path.join(this.memoryRoot, command.path.replace(/^\/memories\/?/, ''));
    try {
      return await fs.readFile(named, 'utf8');
    } catch {
      // not a file: the SDK's own answer
    }
  }
  return view.call(this, command);
};

require('../../../implementations/anthropic-typescript/adapter.js');
