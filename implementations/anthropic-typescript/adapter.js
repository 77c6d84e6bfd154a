#!/usr/bin/env node
// memspec adapter (profile memories) for @anthropic-ai/sdk's BetaLocalFilesystemMemoryTool,
// over JSON lines: memspec run --adapter "cmd:node adapter.js".
//
// Glue only. memories.call hands the tool input to the tool of its base directory through
// the SDK's own dispatcher (betaMemoryTool) and runner step (runRunnableTool), and answers
// what the tool runner would send back to the model: the command's text, or "Error: " and
// the message of what it threw, with is_error. The application creates one tool per base
// directory with BetaLocalFilesystemMemoryTool.init() and keeps it, and so does the adapter.
'use strict';

const readline = require('node:readline');
const {
  BetaLocalFilesystemMemoryTool,
  betaMemoryTool,
} = require('@anthropic-ai/sdk/tools/memory/node');
const { runRunnableTool } = require('@anthropic-ai/sdk/lib/tools/BetaRunnableTool');
const { VERSION } = require('@anthropic-ai/sdk/version');

const PROTOCOL_VERSION = '1.1.0';
const CAPABILITIES = ['symlinks', 'fifos', 'concurrency'];

class OpError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const tools = new Map();

async function toolFor(base) {
  if (!tools.has(base)) {
    const handlers = await BetaLocalFilesystemMemoryTool.init(base);
    tools.set(base, betaMemoryTool(handlers));
  }
  return tools.get(base);
}

function baseArg(args) {
  const base = args.base;
  if (typeof base !== 'string' || !base.startsWith('/') || base.includes('\0')) {
    throw new OpError('invalid-args', 'base must be an absolute path without NUL');
  }
  return base;
}

function inputArg(args) {
  const input = args.input;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new OpError('invalid-args', 'input must be an object (the tool-use input)');
  }
  return input;
}

async function call(args) {
  const base = baseArg(args);
  const input = inputArg(args);
  const outcome = await runRunnableTool(await toolFor(base), input, {});
  return { content: outcome.content, is_error: outcome.isError };
}

async function constants() {
  const { parse, run, ...definition } = betaMemoryTool({});
  return definition;
}

const OPS = { 'memories.call': call, 'memories.constants': constants };

async function handle(request) {
  const id = request.id;
  const args = request.args && typeof request.args === 'object' ? request.args : {};
  if (request.op === 'start') {
    return {
      id,
      result: {
        implementation: { name: 'anthropic-typescript', version: VERSION, language: 'typescript' },
        protocol_version: PROTOCOL_VERSION,
        profiles: ['memories'],
        capabilities: CAPABILITIES,
      },
    };
  }
  if (request.op === 'stop') return { id, result: null };
  const op = OPS[request.op];
  if (!op) return { id, error: { kind: 'unknown-op', message: String(request.op) } };
  try {
    return { id, result: await op(args) };
  } catch (error) {
    if (error instanceof OpError) return { id, error: { kind: error.kind, message: error.message } };
    return { id, error: { kind: 'internal', message: String(error && error.stack) } };
  }
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const request = JSON.parse(line);
    process.stdout.write(JSON.stringify(await handle(request)) + '\n');
    if (request.op === 'stop') break;
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error && error.stack) + '\n');
    process.exit(1);
  },
);
