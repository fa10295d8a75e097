export { watchBacklog } from './backlog-watch';
export { createServiceRuntime, runService } from './service-runtime';
