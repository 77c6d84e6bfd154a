#!/usr/bin/env node
// memspec adapter (profile memories) for @anthropic-ai/sdk's BetaLocalFilesystemMemoryTool,
// over JSON lines: memspec run --adapter "cmd:node adapter.js".
//
// Glue only. memories.call makes the tool on the base, as an application does
// (BetaLocalFilesystemMemoryTool.init), and hands it the tool input through the SDK's own
// dispatcher (betaMemoryTool) and tool-runner step (runRunnableTool); memories.session_script
// keeps one tool for the whole script. Each reply is what the runner sends back to the model:
// the command's text, or "Error: " and the message of what it threw, with is_error.
'use strict';

// One libuv worker thread, unless the environment says otherwise: the SDK's file calls are
// then made by the same thread in every request, so that the harness's observer meets each
// crash point at the same call in every run. Requests are served one at a time.
process.env.UV_THREADPOOL_SIZE ??= '1';

const fs = require('node:fs/promises');
const path = require('node:path');
const readline = require('node:readline');
const {
  BetaLocalFilesystemMemoryTool,
  betaMemoryTool,
} = require('@anthropic-ai/sdk/tools/memory/node');
const {
  runRunnableTool,
  toolErrorContent,
} = require('@anthropic-ai/sdk/lib/tools/BetaRunnableTool');
const { VERSION } = require('@anthropic-ai/sdk/version');

const PROTOCOL_VERSION = '1.1.0';
const CAPABILITIES = ['symlinks', 'fifos', 'concurrency'];

class OpError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const SCRIPT_ITEMS = { call: ['input', 'op'], clear_all: ['op'], remove_root: ['op'] };
// What the SDK states only in its code, unexported: the virtual root and the root's name
// (validatePath, the constructor), the line limit, the width of line numbers and the
// listing's depth (view), the size units (formatFileSize), the modes (FILE_CREATE_MODE,
// DIR_CREATE_MODE) and the commands (the tool's methods).
const LITERALS = {
  virtual_root: '/memories',
  root_dir: 'memories',
  max_lines: 999999,
  line_number_width: 6,
  listing_depth: 2,
  size_units: ['B', 'K', 'M', 'G'],
  file_mode: '0600',
  dir_mode: '0700',
  commands: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'],
};

function baseArg(args) {
  const base = args.base;
  if (typeof base !== 'string' || !base.startsWith('/') || base.includes('\0')) {
    throw new OpError('invalid-args', 'base must be an absolute path without NUL');
  }
  if (!base.isWellFormed()) throw new OpError('invalid-args', 'base holds an unpaired surrogate');
  return base;
}

function inputArg(input, name = 'input') {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new OpError('invalid-args', `${name} must be an object (the tool-use input)`);
  }
  return input;
}

function scriptArg(args) {
  const script = args.script;
  if (!Array.isArray(script)) throw new OpError('invalid-args', 'script must be a list');
  script.forEach((item, index) => {
    const shape = item && typeof item === 'object' ? SCRIPT_ITEMS[item.op] : undefined;
    if (!Object.hasOwn(SCRIPT_ITEMS, item?.op) || Object.keys(item).sort().join() !== shape.join()) {
      throw new OpError('invalid-args', `script[${index}] is no call, clear_all or remove_root`);
    }
    if (item.op === 'call') inputArg(item.input, `script[${index}].input`);
  });
  return script;
}

// The application's tool: made with init(), which creates the root, and given to the
// SDK's dispatcher. What init() throws is answered as the runner answers a tool's throw.
async function makeTool(base) {
  try {
    return { tool: betaMemoryTool(await BetaLocalFilesystemMemoryTool.init(base)) };
  } catch (error) {
    return { failed: { content: toolErrorContent(error), is_error: true } };
  }
}

async function reply(tool, input) {
  const outcome = await runRunnableTool(tool, input, {});
  return { content: outcome.content, is_error: outcome.isError };
}

async function call(args) {
  const base = baseArg(args);
  const input = inputArg(args.input);
  const { tool, failed } = await makeTool(base);
  return failed ?? (await reply(tool, input));
}

async function sessionScript(args) {
  const base = baseArg(args);
  const script = scriptArg(args);
  if (script.some((item) => item.op === 'clear_all')) {
    throw new OpError('unsupported', 'BetaLocalFilesystemMemoryTool has no clear_all_memory()');
  }
  const { tool, failed } = await makeTool(base);
  const events = [];
  for (const item of script) {
    if (item.op === 'remove_root') {
      // Another process's rm -rf <base>/memories.
      await fs.rm(path.join(base, LITERALS.root_dir), { recursive: true, force: true });
      events.push(null);
    } else {
      events.push(failed ?? (await reply(tool, item.input)));
    }
  }
  return { events };
}

async function constants() {
  // The definition the tool gives the API: its type and name.
  const { type: tool_type, name: tool_name } = betaMemoryTool({});
  return { tool_type, tool_name, ...LITERALS };
}

const OPS = {
  'memories.constants': constants,
  'memories.call': call,
  'memories.session_script': sessionScript,
};

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
