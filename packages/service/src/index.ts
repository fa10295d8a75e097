// @hookstream/service: what a service's main.ts wires first (README.md).
export { watchBacklog } from './backlog-watch';
export { createServiceRuntime, runService } from './service-runtime';
