/**
 * Puts the fixed producer send (kafkajs-send-messages.ts) in place of kafkajs's own. kafkajs's
 * producer takes its send function once, when its module first loads, so the fixed one must be in
 * Node's module cache before anything loads kafkajs: this module is the first import of the shared
 * package's entry point, which every Hookstream process loads before kafkajs. Applied only to
 * kafkajs 2.2.4, whose code the fix was written against.
 */
import Module from 'node:module';
import path from 'node:path';
import { createSendMessages } from './kafkajs-send-messages';

const FIXED_VERSION = '2.2.4';

function install(): boolean {
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== FIXED_VERSION) return false;
  const target = require.resolve('kafkajs/src/producer/sendMessages');
  const cached = require.cache[target];
  if (cached) return cached.exports === createSendMessages;
  // Too late once kafkajs's producer has taken the original (it would have loaded it into the cache).
  if (require.cache[require.resolve('kafkajs/src/producer/messageProducer')]) return false;
  const fixed = new Module(target, module);
  fixed.filename = target;
  fixed.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(target));
  fixed.exports = createSendMessages;
  fixed.loaded = true;
  require.cache[target] = fixed;
  return true;
}

const installed = install();

/** Whether kafkajs's producers in this process send through the fixed function (ask once kafkajs is loaded). */
export function kafkajsSendFixInForce(): boolean {
  return installed && require('kafkajs/src/producer/sendMessages') === createSendMessages;
}
